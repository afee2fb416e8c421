//! Region files: round trips, truncation at every kind of point, damaged payloads, damaged
//! header and index, version mismatch, caps, atomic writes and updates.

mod common;

mod region {
    use super::common::TmpDir;
    use bozkir_io::region::{
        crc32, update, write_region, ChunkCoord, RegionReader, UpdateReport, ENTRY_BYTES, HEADER_BYTES,
        MAX_CHUNK_BYTES, MAX_REGION_ENTRIES, REGION_FORMAT_VERSION,
    };
    use bozkir_io::IoError;
    use proptest::prelude::*;
    use std::collections::BTreeMap;
    use std::path::Path;

    /// SplitMix64: a small deterministic generator for the test data.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn bytes(&mut self, n: usize) -> Vec<u8> {
            (0..n).map(|_| self.next() as u8).collect()
        }
    }

    /// `n` chunks with distinct random coordinates (some negative, some extreme) and random
    /// payloads of 0..max_len bytes, in random order.
    fn random_chunks(seed: u64, n: usize, max_len: u64) -> Vec<(ChunkCoord, Vec<u8>)> {
        let mut rng = Rng(seed);
        let mut map = BTreeMap::new();
        let extremes = [i32::MIN, -1, 0, 1, i32::MAX];
        while map.len() < n {
            let c = if rng.below(10) == 0 {
                (extremes[rng.below(5) as usize], extremes[rng.below(5) as usize], extremes[rng.below(5) as usize])
            } else {
                (rng.below(64) as i32 - 32, rng.below(16) as i32 - 8, rng.below(64) as i32 - 32)
            };
            let len = rng.below(max_len) as usize;
            map.insert(c, rng.bytes(len));
        }
        let mut v: Vec<_> = map.into_iter().collect();
        // Fisher–Yates, so the writer gets them unsorted.
        for i in (1..v.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
        v
    }

    /// The documented layout: payload byte ranges in coordinate order.
    fn payload_ranges(chunks: &[(ChunkCoord, Vec<u8>)]) -> Vec<(ChunkCoord, u64, u64)> {
        let mut sorted: Vec<_> = chunks.iter().map(|(c, b)| (*c, b.len() as u64)).collect();
        sorted.sort();
        let mut at = HEADER_BYTES + ENTRY_BYTES * sorted.len() as u64 + 4;
        sorted
            .into_iter()
            .map(|(c, len)| {
                let r = (c, at, at + len);
                at += len;
                r
            })
            .collect()
    }

    fn name(c: ChunkCoord) -> String {
        format!("chunk ({}, {}, {})", c.0, c.1, c.2)
    }

    fn files_in(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    fn starts_with_path(err: &IoError, path: &Path) {
        let msg = err.to_string();
        assert!(msg.starts_with(&path.display().to_string()), "message must start with the path: {msg}");
    }

    #[test]
    fn crc32_agrees_with_crc32fast() {
        let mut rng = Rng(7);
        for len in [0usize, 1, 5, 8, 13, 64, 1000, 65_537] {
            let data = rng.bytes(len);
            assert_eq!(crc32(&data), crc32fast::hash(&data), "length {len}");
        }
    }

    #[test]
    fn many_random_blobs_round_trip_and_the_bytes_do_not_depend_on_the_order() {
        let dir = TmpDir::new("region-roundtrip");
        let chunks = random_chunks(1, 400, 3000);
        let path = dir.join("r.bzr");
        write_region(&path, &chunks).unwrap();
        let mut r = RegionReader::open(&path).unwrap();
        assert_eq!(r.len(), chunks.len());
        let mut want: Vec<ChunkCoord> = chunks.iter().map(|c| c.0).collect();
        want.sort();
        assert_eq!(r.coords().collect::<Vec<_>>(), want);
        assert!(r.entries().all(|e| !e.truncated));
        for (c, bytes) in &chunks {
            assert!(r.contains(*c));
            assert_eq!(r.read(*c).unwrap().as_ref(), Some(bytes), "{}", name(*c));
        }
        assert_eq!(r.read((1000, 1000, 1000)).unwrap(), None);
        let size = std::fs::metadata(&path).unwrap().len();
        let payload: u64 = chunks.iter().map(|c| c.1.len() as u64).sum();
        assert_eq!(size, HEADER_BYTES + ENTRY_BYTES * 400 + 4 + payload);

        let mut reversed = chunks.clone();
        reversed.reverse();
        let path2 = dir.join("r2.bzr");
        write_region(&path2, &reversed).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), std::fs::read(&path2).unwrap());
        assert_eq!(files_in(&dir), ["r.bzr", "r2.bzr"]);
    }

    #[test]
    fn empty_region_round_trips() {
        let dir = TmpDir::new("region-empty");
        let path = dir.join("e.bzr");
        write_region::<Vec<u8>>(&path, &[]).unwrap();
        let mut r = RegionReader::open(&path).unwrap();
        assert!(r.is_empty());
        assert_eq!(r.read((0, 0, 0)).unwrap(), None);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), HEADER_BYTES + 4);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn arbitrary_chunks_round_trip(
            chunks in proptest::collection::btree_map(
                (-3i32..3, -3i32..3, -3i32..3),
                proptest::collection::vec(any::<u8>(), 0..200),
                0..40,
            )
        ) {
            let dir = TmpDir::new("region-prop");
            let path = dir.join("p.bzr");
            let list: Vec<_> = chunks.clone().into_iter().collect();
            write_region(&path, &list).unwrap();
            let mut r = RegionReader::open(&path).unwrap();
            prop_assert_eq!(r.coords().collect::<Vec<_>>(), chunks.keys().copied().collect::<Vec<_>>());
            for (c, b) in &chunks {
                prop_assert_eq!(r.read(*c).unwrap(), Some(b.clone()));
            }
        }
    }

    #[test]
    fn truncation_loses_only_the_chunks_it_cuts() {
        let dir = TmpDir::new("region-trunc");
        let chunks = random_chunks(2, 30, 400);
        let path = dir.join("t.bzr");
        write_region(&path, &chunks).unwrap();
        let full = std::fs::read(&path).unwrap();
        let ranges = payload_ranges(&chunks);
        let by_coord: BTreeMap<_, _> = chunks.iter().cloned().collect();
        let data_start = HEADER_BYTES + ENTRY_BYTES * 30 + 4;

        // Every cut point inside the header and index, each payload boundary and its
        // neighbours, and random ones.
        let mut cuts: Vec<u64> = (0..=data_start).collect();
        for &(_, a, b) in &ranges {
            cuts.extend([a.saturating_sub(1), a, a + 1, b.saturating_sub(1), b, b + 1]);
        }
        let mut rng = Rng(3);
        cuts.extend((0..50).map(|_| rng.below(full.len() as u64)));
        cuts.retain(|&c| c < full.len() as u64);
        cuts.sort();
        cuts.dedup();

        let cut_path = dir.join("cut.bzr");
        for cut in cuts {
            std::fs::write(&cut_path, &full[..cut as usize]).unwrap();
            let opened = RegionReader::open(&cut_path);
            if cut < data_start {
                let err = opened.expect_err("a cut header or index cannot open");
                starts_with_path(&err, &cut_path);
                match (cut, &err) {
                    (0, IoError::Empty { .. }) => {}
                    (c, IoError::Truncated { .. }) if c > 0 => {}
                    _ => panic!("cut at {cut}: expected a truncation error, got {err}"),
                }
                continue;
            }
            let mut r = opened.unwrap_or_else(|e| panic!("cut at {cut} (inside the payloads) must open: {e}"));
            assert_eq!(r.len(), 30);
            let flags: BTreeMap<_, _> = r.entries().map(|e| (e.coord, e.truncated)).collect();
            for &(c, _, end) in &ranges {
                let intact = end <= cut;
                assert_eq!(flags[&c], !intact, "cut at {cut}, {}", name(c));
                match r.read(c) {
                    Ok(Some(b)) if intact => assert_eq!(b, by_coord[&c]),
                    Err(e @ IoError::Truncated { .. }) if !intact => {
                        let msg = e.to_string();
                        starts_with_path(&e, &cut_path);
                        assert!(msg.contains(&name(c)), "{msg}");
                    }
                    other => panic!("cut at {cut}, {} (intact: {intact}): {other:?}", name(c)),
                }
            }
        }
    }

    #[test]
    fn a_flipped_payload_byte_fails_only_that_chunk() {
        let dir = TmpDir::new("region-flip");
        let chunks = random_chunks(4, 25, 300);
        let path = dir.join("f.bzr");
        write_region(&path, &chunks).unwrap();
        let full = std::fs::read(&path).unwrap();
        let by_coord: BTreeMap<_, _> = chunks.iter().cloned().collect();
        let mut rng = Rng(5);
        let bad_path = dir.join("bad.bzr");
        for &(victim, a, b) in payload_ranges(&chunks).iter().filter(|r| r.2 > r.1) {
            let mut bytes = full.clone();
            let at = (a + rng.below(b - a)) as usize;
            bytes[at] ^= 1 << rng.below(8);
            std::fs::write(&bad_path, &bytes).unwrap();
            let mut r = RegionReader::open(&bad_path).unwrap();
            for (c, want) in &by_coord {
                let got = r.read(*c);
                if *c == victim {
                    let err = got.expect_err("the damaged chunk must fail");
                    assert!(matches!(err, IoError::Malformed { .. }), "{err}");
                    let msg = err.to_string();
                    starts_with_path(&err, &bad_path);
                    assert!(msg.contains(&name(victim)) && msg.contains("checksum"), "{msg}");
                } else {
                    assert_eq!(got.unwrap().as_ref(), Some(want), "{}", name(*c));
                }
            }
        }
    }

    #[test]
    fn a_flipped_header_or_index_byte_is_a_clear_open_error() {
        let dir = TmpDir::new("region-head");
        let chunks = random_chunks(6, 6, 50);
        let path = dir.join("h.bzr");
        write_region(&path, &chunks).unwrap();
        let full = std::fs::read(&path).unwrap();
        let data_start = (HEADER_BYTES + ENTRY_BYTES * 6 + 4) as usize;
        let bad_path = dir.join("bad.bzr");
        for at in 0..data_start {
            for bit in [0, 7] {
                let mut bytes = full.clone();
                bytes[at] ^= 1 << bit;
                std::fs::write(&bad_path, &bytes).unwrap();
                let err = RegionReader::open(&bad_path).expect_err("a damaged header or index cannot open");
                starts_with_path(&err, &bad_path);
                let msg = err.to_string();
                let ok = match at {
                    0..=7 => matches!(err, IoError::WrongMagic { .. }),
                    8..=11 => matches!(err, IoError::Unsupported { .. }) && msg.contains("version"),
                    12..=31 => msg.contains("header checksum mismatch"),
                    _ => msg.contains("index checksum mismatch"),
                };
                assert!(ok, "byte {at} bit {bit}: {msg}");
            }
        }
    }

    #[test]
    fn random_damage_never_gives_wrong_bytes() {
        // Flip random bytes anywhere (several at once) and cut at random points: opening and
        // reading may fail, never panic, and a chunk that reads gives back exactly its bytes.
        let dir = TmpDir::new("region-random-damage");
        let chunks = random_chunks(13, 12, 120);
        let path = dir.join("d.bzr");
        write_region(&path, &chunks).unwrap();
        let full = std::fs::read(&path).unwrap();
        let by_coord: BTreeMap<_, _> = chunks.iter().cloned().collect();
        let mut rng = Rng(14);
        let (mut opened, mut good_reads, mut failed_reads) = (0, 0, 0);
        for trial in 0..300 {
            let mut bytes = full.clone();
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(bytes.len() as u64) as usize;
                bytes[at] ^= 1 + rng.below(255) as u8;
            }
            if trial % 3 == 0 {
                bytes.truncate(rng.below(bytes.len() as u64 + 1) as usize);
            }
            std::fs::write(&path, &bytes).unwrap();
            let Ok(mut r) = RegionReader::open(&path) else { continue };
            opened += 1;
            for c in r.coords().collect::<Vec<_>>() {
                match r.read(c) {
                    Ok(Some(b)) => {
                        assert_eq!(b, by_coord[&c], "trial {trial}: {} read wrong bytes", name(c));
                        good_reads += 1;
                    }
                    Ok(None) => panic!("listed chunk not found"),
                    Err(e) => {
                        assert!(e.to_string().contains(&name(c)), "{e}");
                        failed_reads += 1;
                    }
                }
            }
        }
        // Damage in the payloads (about 60 % of the bytes) leaves the file readable, chunk by chunk.
        assert!(opened > 80 && good_reads > 500 && failed_reads > 50, "{opened} {good_reads} {failed_reads}");
    }

    /// Rewrite the header's version (and its checksum, as a real writer of that version would).
    fn with_version(bytes: &[u8], version: u32) -> Vec<u8> {
        let mut b = bytes.to_vec();
        b[8..12].copy_from_slice(&version.to_le_bytes());
        let crc = crc32(&b[..28]);
        b[28..32].copy_from_slice(&crc.to_le_bytes());
        b
    }

    #[test]
    fn another_version_is_refused_naming_both_versions() {
        let dir = TmpDir::new("region-version");
        let path = dir.join("v.bzr");
        write_region(&path, &random_chunks(8, 3, 20)).unwrap();
        let full = std::fs::read(&path).unwrap();
        assert_eq!(REGION_FORMAT_VERSION, 1);
        for (v, age) in [(2u32, "newer"), (0, "older"), (77, "newer")] {
            let p = dir.join(format!("v{v}.bzr"));
            std::fs::write(&p, with_version(&full, v)).unwrap();
            let err = RegionReader::open(&p).unwrap_err();
            let msg = err.to_string();
            assert!(matches!(err, IoError::Unsupported { .. }), "{msg}");
            starts_with_path(&err, &p);
            assert!(msg.contains(&format!("version {v}")) && msg.contains("version 1") && msg.contains(age), "{msg}");
        }
    }

    /// Build a file by hand: header fields, index entries (coord, crc, offset, len) and data,
    /// with valid checksums, to reach the checks behind them.
    fn crafted(count: u32, total: u64, entries: &[(ChunkCoord, u32, u64, u64)], data: &[u8]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(b"BZKREGN\x1a");
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&count.to_le_bytes());
        b.extend_from_slice(&total.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        let crc = crc32(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        let mut idx = Vec::new();
        for (c, crc, off, len) in entries {
            for v in [c.0, c.1, c.2] {
                idx.extend_from_slice(&v.to_le_bytes());
            }
            idx.extend_from_slice(&crc.to_le_bytes());
            idx.extend_from_slice(&off.to_le_bytes());
            idx.extend_from_slice(&len.to_le_bytes());
        }
        let crc = crc32(&idx);
        b.extend_from_slice(&idx);
        b.extend_from_slice(&crc.to_le_bytes());
        b.extend_from_slice(data);
        b
    }

    #[test]
    fn hostile_headers_and_indexes_are_refused_before_allocating() {
        let dir = TmpDir::new("region-hostile");
        let p = dir.join("x.bzr");
        let open = |bytes: Vec<u8>| {
            std::fs::write(&p, bytes).unwrap();
            RegionReader::open(&p).unwrap_err().to_string()
        };
        // A count over the cap: refused from the header alone (no 32 GiB index allocated).
        let huge = (MAX_REGION_ENTRIES + 1) as u32;
        let msg = open(crafted(huge, u64::MAX, &[], &[]));
        assert!(msg.contains("too large") && msg.contains("region chunks"), "{msg}");
        // A count whose index is not in the file.
        let msg = open(crafted(1000, 32 + 32_000 + 4, &[], &[]));
        assert!(msg.contains("truncated") && msg.contains("index"), "{msg}");
        let start = 32 + 64 + 4;
        // Unsorted and repeated coordinates.
        let e = |c, off, len| (c, crc32(&[]), off, len);
        let msg = open(crafted(2, start, &[e((1, 0, 0), start, 0), e((0, 0, 0), start, 0)], &[]));
        assert!(msg.contains("sorted"), "{msg}");
        let msg = open(crafted(2, start, &[e((1, 0, 0), start, 0), e((1, 0, 0), start, 0)], &[]));
        assert!(msg.contains("sorted"), "{msg}");
        // A payload over the cap, an offset that is not back to back, a total that disagrees.
        let msg = open(crafted(2, start, &[e((0, 0, 0), start, 0), e((1, 0, 0), start, MAX_CHUNK_BYTES + 1)], &[]));
        assert!(msg.contains("exceeds the limit"), "{msg}");
        let msg = open(crafted(2, start + 4, &[e((0, 0, 0), start, 2), e((1, 0, 0), start + 3, 1)], &[0; 4]));
        assert!(msg.contains("back to back"), "{msg}");
        let start1 = 32 + 32 + 4;
        let msg = open(crafted(1, start1 + 5, &[e((0, 0, 0), start1, 4)], &[0; 4]));
        assert!(msg.contains("total length"), "{msg}");
        // Bytes after the end the header gives.
        let msg = open(crafted(1, start1 + 4, &[e((0, 0, 0), start1, 4)], &[0; 5]));
        assert!(msg.contains("more than"), "{msg}");
        // Not a region at all, and an empty file.
        let msg = open(b"PK\x03\x04 not a region file at all, long enough for a header".to_vec());
        assert!(msg.contains("wrong magic"), "{msg}");
        let msg = open(Vec::new());
        assert!(msg.contains("empty"), "{msg}");
    }

    #[test]
    fn refused_writes_leave_nothing_and_keep_the_old_file() {
        let dir = TmpDir::new("region-atomic");
        let chunks = random_chunks(9, 10, 100);
        // Into a missing directory: an error naming the file, nothing created.
        let missing = dir.join("no-such-dir").join("r.bzr");
        let err = write_region(&missing, &chunks).unwrap_err();
        assert!(matches!(err, IoError::Io { .. }), "{err}");
        starts_with_path(&err, &missing);
        let err = update(&missing, &[((0, 0, 0), Some(vec![1u8]))]).unwrap_err();
        starts_with_path(&err, &missing);
        assert!(files_in(&dir).is_empty());

        let path = dir.join("r.bzr");
        write_region(&path, &chunks).unwrap();
        let before = std::fs::read(&path).unwrap();
        // A coordinate given twice: refused, the old file untouched, no temporary left.
        let mut dup = chunks.clone();
        dup.push(chunks[3].clone());
        let err = write_region(&path, &dup).unwrap_err();
        assert!(err.to_string().contains(&format!("{} is given twice", name(chunks[3].0))), "{err}");
        let err = update(&path, &[(chunks[0].0, Some(vec![1u8])), (chunks[0].0, None)]).unwrap_err();
        assert!(err.to_string().contains("changed twice"), "{err}");
        // An update of a file whose index is damaged: refused as a whole, file untouched.
        let mut damaged = before.clone();
        damaged[40] ^= 0xFF;
        std::fs::write(&path, &damaged).unwrap();
        let err = update(&path, &[((0, 0, 0), Some(vec![1u8]))]).unwrap_err();
        assert!(err.to_string().contains("index checksum"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), damaged);
        std::fs::write(&path, &before).unwrap();
        assert_eq!(files_in(&dir), ["r.bzr"]);
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    #[test]
    fn update_adds_replaces_and_deletes() {
        let dir = TmpDir::new("region-update");
        let chunks = random_chunks(10, 40, 200);
        let path = dir.join("u.bzr");
        // A missing file is an empty region.
        let report = update(&path, &chunks.iter().map(|(c, b)| (*c, Some(b.clone()))).collect::<Vec<_>>()).unwrap();
        assert_eq!(report, UpdateReport { written: 40, ..Default::default() });
        let mut model: BTreeMap<_, _> = chunks.iter().cloned().collect();
        let mut rng = Rng(11);
        let mut changes: Vec<(ChunkCoord, Option<Vec<u8>>)> = Vec::new();
        for (c, _) in chunks.iter().take(5) {
            changes.push((*c, Some(rng.bytes(50))));
        }
        for (c, _) in chunks.iter().skip(5).take(5) {
            changes.push((*c, None));
        }
        for k in 0..5 {
            changes.push(((500 + k, 0, 0), Some(rng.bytes(k as usize * 10))));
        }
        changes.push(((-999, -999, -999), None)); // deleting an absent chunk does nothing
        let report = update(&path, &changes).unwrap();
        assert_eq!(report, UpdateReport { written: 10, kept: 30, removed: 5, dropped: vec![] });
        for (c, b) in &changes {
            match b {
                Some(b) => model.insert(*c, b.clone()),
                None => model.remove(c),
            };
        }
        let mut r = RegionReader::open(&path).unwrap();
        assert_eq!(r.coords().collect::<Vec<_>>(), model.keys().copied().collect::<Vec<_>>());
        for (c, b) in &model {
            assert_eq!(r.read(*c).unwrap().as_ref(), Some(b));
        }
        drop(r);
        // Same bytes as writing the final set directly.
        let direct = dir.join("direct.bzr");
        write_region(&direct, &model.iter().map(|(c, b)| (*c, b.clone())).collect::<Vec<_>>()).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), std::fs::read(&direct).unwrap());
        assert_eq!(files_in(&dir), ["direct.bzr", "u.bzr"]);
    }

    #[test]
    fn an_open_reader_keeps_its_file_when_an_update_replaces_it() {
        let dir = TmpDir::new("region-reader-survives");
        let path = dir.join("s.bzr");
        write_region(&path, &[((0, 0, 0), b"old zero".to_vec()), ((0, 0, 1), b"old one".to_vec())]).unwrap();
        let mut old = RegionReader::open(&path).unwrap();
        let lens: Vec<_> = old.entries().map(|e| (e.coord, e.len, e.truncated)).collect();
        assert_eq!(lens, [((0, 0, 0), 8, false), ((0, 0, 1), 7, false)]);
        update(&path, &[((0, 0, 0), Some(b"new".to_vec())), ((0, 0, 1), None)]).unwrap();
        // The old reader reads the file it opened (the rename left it intact) ...
        assert_eq!(old.read((0, 0, 0)).unwrap(), Some(b"old zero".to_vec()));
        assert_eq!(old.read((0, 0, 1)).unwrap(), Some(b"old one".to_vec()));
        // ... a new one the new file.
        let mut new = RegionReader::open(&path).unwrap();
        assert_eq!(new.coords().collect::<Vec<_>>(), [(0, 0, 0)]);
        assert_eq!(new.read((0, 0, 0)).unwrap(), Some(b"new".to_vec()));
        assert_eq!(files_in(&dir), ["s.bzr"]);
    }

    #[test]
    fn update_keeps_every_good_chunk_of_a_damaged_file() {
        let dir = TmpDir::new("region-update-bad");
        let chunks: Vec<_> = random_chunks(12, 20, 200)
            .into_iter()
            .map(|(c, mut b)| {
                b.push(1); // no empty payloads, so every chunk can be damaged
                (c, b)
            })
            .collect();
        let path = dir.join("d.bzr");
        write_region(&path, &chunks).unwrap();
        let ranges = payload_ranges(&chunks);
        let mut bytes = std::fs::read(&path).unwrap();
        // Damage chunks 3 and 7; cut the file inside the second-to-last payload.
        let (bad_a, bad_b) = (ranges[3], ranges[7]);
        bytes[bad_a.1 as usize] ^= 0x55;
        bytes[bad_b.1 as usize] ^= 0x55;
        let cut = ranges[18].1 + (ranges[18].2 - ranges[18].1) / 2;
        bytes.truncate(cut as usize);
        std::fs::write(&path, &bytes).unwrap();

        // Replace damaged chunk 7, add one; chunks 3, 18 and 19 cannot be carried over.
        let fresh = vec![9u8; 33];
        let report = update(&path, &[(bad_b.0, Some(fresh.clone())), ((1000, 0, 0), Some(vec![]))]).unwrap();
        let dropped: Vec<ChunkCoord> = report.dropped.iter().map(|d| d.0).collect();
        assert_eq!(dropped, [bad_a.0, ranges[18].0, ranges[19].0]);
        assert!(report.dropped[0].1.contains("checksum") && report.dropped[1].1.contains("truncated"));
        assert_eq!((report.written, report.kept, report.removed), (2, 16, 0));
        let by_coord: BTreeMap<_, _> = chunks.iter().cloned().collect();
        let mut r = RegionReader::open(&path).unwrap();
        assert_eq!(r.len(), 18);
        for &(c, _, _) in &ranges {
            let got = r.read(c).unwrap();
            if c == bad_b.0 {
                assert_eq!(got, Some(fresh.clone()));
            } else if dropped.contains(&c) {
                assert_eq!(got, None);
            } else {
                assert_eq!(got.as_ref(), Some(&by_coord[&c]), "good {} must survive", name(c));
            }
        }
        assert_eq!(r.read((1000, 0, 0)).unwrap(), Some(vec![]));
    }
}
