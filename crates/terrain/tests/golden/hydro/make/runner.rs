use bozkir_core::Grid;
use bozkir_terrain::hydrology::{dinf, flow_graph, hand, mfd, priority_flood, streams, twi};
use std::io::Write;

fn read_i16(path: &str) -> (usize, usize, Vec<i16>) {
    let b = std::fs::read(path).unwrap();
    let hl = u16::from_le_bytes([b[8], b[9]]) as usize;
    let h = std::str::from_utf8(&b[10..10 + hl]).unwrap();
    assert!(h.contains("'<i2'"), "{h}");
    let s = &h[h.find("(").unwrap() + 1..h.find(")").unwrap()];
    let dims: Vec<usize> = s.split(',').filter(|t| !t.trim().is_empty()).map(|t| t.trim().parse().unwrap()).collect();
    let data = b[10 + hl..].chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect();
    (dims[1], dims[0], data)
}

fn write(path: &str, descr: &str, w: usize, h: usize, bytes: Vec<u8>) {
    let mut hdr = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({h}, {w}), }}");
    while (10 + hdr.len() + 1) % 64 != 0 {
        hdr.push(' ');
    }
    hdr.push('\n');
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(b"\x93NUMPY\x01\x00").unwrap();
    f.write_all(&(hdr.len() as u16).to_le_bytes()).unwrap();
    f.write_all(hdr.as_bytes()).unwrap();
    f.write_all(&bytes).unwrap();
}
fn f8(path: &str, g: &[f64], w: usize, h: usize) {
    write(path, "<f8", w, h, g.iter().flat_map(|v| v.to_le_bytes()).collect());
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (dx, dy, sq, thr): (f64, f64, f64, u32) = (a[2].parse().unwrap(), a[3].parse().unwrap(), a[4].parse().unwrap(), a[5].parse().unwrap());
    let (w, h, z) = read_i16(&a[1]);
    let dem = Grid::from_vec(w, h, z.iter().map(|&v| v as f64).collect());
    let filled = priority_flood::fill_epsilon(&dem);
    f8("filled.npy", filled.data(), w, h);
    let fa = filled.clone().with_cell_size(dx, dy);
    let fs = filled.clone().with_cell_size(sq, sq);
    // D8 on the metric (anisotropic) cells, streams by threshold.
    let g = flow_graph::d8_receivers(&fa);
    let codes = flow_graph::d8_direction_codes(&g);
    write("d8codes.npy", "|u1", w, h, codes);
    let acc = flow_graph::accumulate_cells(&g);
    let net = streams::stream_network(&g, &acc, &streams::StreamParams { threshold: streams::Threshold::Cells(thr), ..Default::default() });
    write("streams.npy", "|u1", w, h, net.mask.iter().map(|&m| m as u8).collect());
    let ang = dinf::dinf_directions(&fa).unwrap();
    f8("ours_dinf_angle.npy", ang.data(), w, h);
    let angs = dinf::dinf_directions(&fs).unwrap();
    f8("ours_dinf_angle_sq.npy", angs.data(), w, h);
    let accs = dinf::dinf_accumulation(&angs, None).unwrap();
    f8("ours_dinf_acc_sq.npy", accs.data(), w, h);
    let acca = dinf::dinf_accumulation(&ang, None).unwrap();
    f8("ours_dinf_acc.npy", acca.data(), w, h);
    let m = mfd::mfd_accumulation(&fa, &mfd::MfdParams { exponent: 1.0, contour_weights: false }, None).unwrap();
    f8("ours_mfd_acc.npy", m.data(), w, h);
    let hd = hand::hand(&fa, &g, &net.mask).unwrap();
    f8("ours_hand.npy", hd.data(), w, h);
    let dr = hand::nearest_drainage(&g, &net.mask).unwrap();
    write("ours_drain.npy", "<i4", w, h, dr.iter().flat_map(|&v| (if v == hand::NO_DRAINAGE { -1i32 } else { v as i32 }).to_le_bytes()).collect());
    let t = twi::twi(accs.data(), &fs, 0.0).unwrap();
    f8("ours_twi_sq.npy", t.data(), w, h);
    let sl = bozkir_terrain::landform::slope(&fs);
    f8("ours_slope_sq.npy", sl.data(), w, h);
    println!("streams {} cells", net.cells);
}
