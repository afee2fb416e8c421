//! The tiled-world store writer: a reopened store keeps its chunks and sheds the temporary files
//! a killed writer left beside them.

use bozkir_io::zarr_store::{ZarrTiles, ZarrWriter};
use serde_json::Map;

#[test]
fn reopening_keeps_chunks_and_removes_only_temporaries() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("w.zarr");
    let w = ZarrWriter::create(&dir, 5, 3, 4, (2.0, 2.0), Map::new()).unwrap();
    let first: Vec<f64> = (0..12).map(|i| i as f64).collect();
    w.write_chunk(0, 0, &first[..12]).unwrap();
    // What a writer killed between create and rename leaves: a dot file ending in .tmp.
    let row = dir.join("height/c/0");
    std::fs::write(row.join(".1.4242.7.tmp"), b"half a chunk").unwrap();
    // A user's file of another name is not ours to remove.
    std::fs::write(row.join("notes.txt"), b"keep me").unwrap();

    let again = ZarrWriter::create(&dir, 5, 3, 4, (2.0, 2.0), Map::new()).unwrap();
    assert!(again.has_chunk(0, 0) && !again.has_chunk(1, 0));
    assert_eq!(again.remove_temporaries().unwrap(), 1);
    assert!(!row.join(".1.4242.7.tmp").exists());
    assert!(row.join("notes.txt").exists());
    assert_eq!(again.remove_temporaries().unwrap(), 0);

    let r = ZarrTiles::open(&dir).unwrap();
    let c = r.read_chunk(0, 0).unwrap().unwrap();
    assert_eq!(&c[..4], &[0.0, 1.0, 2.0, 3.0]);
    assert!(c[12].is_nan(), "rows past the world are the fill value");
    assert!(r.read_chunk(1, 0).unwrap().is_none());
}
