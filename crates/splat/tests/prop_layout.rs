//! Property tests of the Wang tile layout (issue 20): for random colour counts, grid shapes
//! (≤ 32²), seeds and class maps, every shared edge's colours match, each cell's code is one
//! that fits its west and south neighbours, the layout is a pure function of its inputs, and the
//! classes only pick the tile, never the code.

use bozkir_splat::tiling::wang::{mismatches, Colours, WangSet};
use proptest::prelude::*;

/// A minimal set (2 codes per west/south pair) or the complete set, for 2..=6 colours per family
/// (1..=3 for the complete set, which grows as h²·v²).
fn set() -> impl Strategy<Value = WangSet> {
    prop_oneof![
        (2u8..=6, 2u8..=6).prop_map(|(h, v)| WangSet::minimal(Colours::new(h, v).unwrap()).unwrap()),
        (1u8..=3, 1u8..=3).prop_map(|(h, v)| WangSet::complete(Colours::new(h, v).unwrap())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn layouts_match_every_edge_and_are_deterministic(
        s in set(),
        w in 1usize..=32,
        h in 1usize..=32,
        seed in any::<u32>(),
        classes in prop::collection::vec(0u8..4, 32 * 32 + 1),
    ) {
        let l = s.layout(w, h, seed).unwrap();
        prop_assert_eq!((l.width(), l.height()), (w, h));
        prop_assert_eq!(l.codes().len(), w * h);
        prop_assert_eq!(mismatches(&l), 0);
        for y in 0..h {
            for x in 0..w {
                let c = l.code(x, y);
                prop_assert!(s.colours().contains(c));
                prop_assert_eq!(s.codes()[l.code_index(x, y)], c);
                if x + 1 < w {
                    prop_assert_eq!(c.e, l.code(x + 1, y).w, "east edge of ({}, {})", x, y);
                }
                if y + 1 < h {
                    prop_assert_eq!(c.n, l.code(x, y + 1).s, "north edge of ({}, {})", x, y);
                }
                // The code is one of those fitting its constraints.
                let west = (x > 0).then(|| l.code(x - 1, y).e);
                let south = (y > 0).then(|| l.code(x, y - 1).n);
                let fit = s.fitting(west, south);
                prop_assert!(fit.contains(&(l.code_index(x, y) as u32)));
            }
        }
        // Deterministic: the same inputs give the same layout.
        prop_assert_eq!(&s.layout(w, h, seed).unwrap(), &l);
        // Classes select the tile, never the code.
        let cls = &classes[..w * h];
        let lc = s.layout_with_classes(w, h, seed, cls).unwrap();
        prop_assert_eq!(lc.codes(), l.codes());
        for y in 0..h {
            for x in 0..w {
                prop_assert_eq!(lc.class(x, y), cls[y * w + x]);
                prop_assert_eq!(lc.tile(x, y), cls[y * w + x] as usize * s.len() + l.code_index(x, y));
            }
        }
        // A wrong class count is refused, not read past.
        prop_assert!(s.layout_with_classes(w, h, seed, &classes[..w * h + 1]).is_err());
    }

    #[test]
    fn a_layout_is_a_prefix_of_a_larger_one(s in set(), w in 1usize..=16, h in 1usize..=16, seed in any::<u32>()) {
        // Each cell's choice depends only on its west and south constraints and its own hash, so
        // growing the grid north and east keeps every cell already laid.
        let small = s.layout(w, h, seed).unwrap();
        let big = s.layout(w + 7, h + 5, seed).unwrap();
        for y in 0..h {
            for x in 0..w {
                prop_assert_eq!(small.code(x, y), big.code(x, y));
            }
        }
    }
}
