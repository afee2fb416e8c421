fn main() {
    let p = std::env::args().nth(1).unwrap();
    let r = bozkir_io::read_las(std::path::Path::new(&p));
    println!("{:?}", r.map(|_| "ok"));
}
