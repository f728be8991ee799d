//! Tests of the layout extras: swizzles, swizzled (composed) layouts, TV layouts,
//! recasting, `tile_to_shape` and `max_common_vector`.
//!
//! Fixed expectations come from pycute (swizzle tables) and from CuTe's documentation
//! and the seed documents (TV layouts); the rest are properties that must hold for
//! every input the strategies generate.

use layout::common_vector::{max_common_layout, max_common_vector};
use layout::composed::ComposedLayout;
use layout::recast::{downcast, recast_layout, upcast};
use layout::swizzle::Swizzle;
use layout::tile_to_shape::tile_to_shape;
use layout::tv::make_layout_tv;
use layout::{Coord, IntTuple, Layout, TABLE_LIMIT, product_each};
use proptest::prelude::*;

mod notation;

use notation::layout;

fn swizzle(bits: i64, base: i64, shift: i64) -> Swizzle {
    Swizzle::new(bits, base, shift).unwrap()
}

/// `(bits, base, shift)` of a swizzle.
type SwizzleParameters = (i64, i64, i64);

/// An offset and its swizzled value.
type OffsetAndImage = (i64, i64);

/// `(Sw<bits,base,shift>, [(x, pycute's Swizzle(bits,base,shift)(x))])`, recorded once
/// from pycute 4.2 with random offsets below the swizzle's size.
const PYCUTE_SWIZZLE_SAMPLES: &[(SwizzleParameters, [OffsetAndImage; 8])] = &[
    (
        (2, 1, 3),
        [
            (41, 45),
            (19, 17),
            (50, 52),
            (6, 6),
            (9, 9),
            (12, 12),
            (46, 42),
            (7, 7),
        ],
    ),
    (
        (1, 4, -2),
        [
            (54, 118),
            (9, 9),
            (22, 86),
            (111, 111),
            (107, 107),
            (17, 81),
            (61, 125),
            (23, 87),
        ],
    ),
    (
        (3, 4, 3),
        [
            (869, 773),
            (121, 121),
            (253, 237),
            (457, 505),
            (126, 126),
            (812, 844),
            (101, 101),
            (452, 500),
        ],
    ),
    (
        (2, 0, -5),
        [
            (11, 107),
            (34, 98),
            (74, 10),
            (107, 11),
            (36, 36),
            (30, 94),
            (78, 14),
            (46, 110),
        ],
    ),
    (
        (3, 2, -4),
        [
            (105, 233),
            (192, 192),
            (381, 189),
            (99, 99),
            (64, 64),
            (61, 509),
            (210, 466),
            (508, 60),
        ],
    ),
];

#[test]
fn swizzle_matches_pycute_samples() {
    for &((bits, base, shift), samples) in PYCUTE_SWIZZLE_SAMPLES {
        let swizzle = swizzle(bits, base, shift);
        for (offset, expected) in samples {
            assert_eq!(swizzle.apply(offset), expected, "{swizzle} at {offset}");
        }
    }
}

/// A valid swizzle whose domain has at most 2^12 offsets.
fn small_swizzle() -> impl Strategy<Value = Swizzle> {
    (0_i64..=4, 0_i64..=4, 0_i64..=4, any::<bool>()).prop_map(|(bits, base, extra, negative)| {
        let magnitude = bits + extra;
        let shift = if negative { -magnitude } else { magnitude };
        Swizzle::new(bits, base, shift).unwrap()
    })
}

/// A compact layout: random extents laid out in a random order of modes.
fn compact_layout(max_rank: usize) -> impl Strategy<Value = Layout> {
    prop::collection::vec(1_i64..=6, 1..=max_rank)
        .prop_flat_map(|extents| {
            let rank = extents.len();
            (
                Just(extents),
                Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle(),
            )
        })
        .prop_map(|(extents, order)| {
            Layout::ordered(IntTuple::ints(&extents), &IntTuple::ints(&order)).unwrap()
        })
}

/// Two compact layouts of one shape, their modes laid out in independent orders.
fn same_shape_pair() -> impl Strategy<Value = (Layout, Layout)> {
    prop::collection::vec(1_i64..=6, 1..=3)
        .prop_flat_map(|extents| {
            let order: Vec<i64> = (0..extents.len() as i64).collect();
            (
                Just(extents),
                Just(order.clone()).prop_shuffle(),
                Just(order).prop_shuffle(),
            )
        })
        .prop_map(|(extents, order_a, order_b)| {
            let shape = IntTuple::ints(&extents);
            (
                Layout::ordered(shape.clone(), &IntTuple::ints(&order_a)).unwrap(),
                Layout::ordered(shape, &IntTuple::ints(&order_b)).unwrap(),
            )
        })
}

/// A rank-2 layout with small extents and strides (possibly 0, negative, overlapping).
fn strided_layout() -> impl Strategy<Value = Layout> {
    (1_i64..=6, 1_i64..=6, -16_i64..=16, -16_i64..=16).prop_map(|(m, n, dm, dn)| {
        Layout::new(IntTuple::ints(&[m, n]), IntTuple::ints(&[dm, dn])).unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn swizzle_is_an_involutive_permutation(swizzle in small_swizzle()) {
        let size = swizzle.size();
        let mut image: Vec<i64> = (0..size).map(|offset| swizzle.apply(offset)).collect();
        for (offset, &swizzled) in image.iter().enumerate() {
            let offset = offset as i64;
            prop_assert_eq!(swizzle.apply(swizzled), offset);
            // Only ZZZ bits change, and bits above the domain are carried through.
            prop_assert_eq!((swizzled ^ offset) & !swizzle.zzz_mask(), 0);
            prop_assert_eq!(swizzle.apply(offset + 3 * size), swizzled + 3 * size);
        }
        prop_assert_eq!(swizzle.yyy_mask() & swizzle.zzz_mask(), 0);
        image.sort_unstable();
        prop_assert!(image.iter().copied().eq(0..size));
        if swizzle.bits() == 0 {
            prop_assert!((0..size).all(|offset| swizzle.apply(offset) == offset));
        }
    }

    #[test]
    fn swizzle_text_round_trips(swizzle in small_swizzle()) {
        prop_assert_eq!(swizzle.to_string().parse::<Swizzle>(), Ok(swizzle));
    }

    #[test]
    fn composed_layout_is_swizzle_after_offset_after_inner(
        swizzle in small_swizzle(),
        offset in -64_i64..64,
        inner in strided_layout(),
        row in 0_i64..6,
    ) {
        let composed = ComposedLayout::new(swizzle, offset, inner.clone());
        let size = inner.size().unwrap();
        for index in 0..size {
            let expected = swizzle.apply(offset + inner.evaluate_index(&index).unwrap());
            prop_assert_eq!(composed.evaluate_index(index), Ok(expected));
        }
        prop_assert_eq!(composed.to_string().parse::<ComposedLayout>(), Ok(composed.clone()));

        let rows = inner.mode(0).unwrap().size().unwrap();
        let row = row % rows;
        let sliced = composed.slice(&Coord::Tuple(vec![Coord::Int(row), Coord::Free])).unwrap();
        let columns = inner.mode(1).unwrap().size().unwrap();
        for column in 0..columns {
            prop_assert_eq!(
                sliced.evaluate_index(column),
                composed.evaluate(&IntTuple::ints(&[row, column]))
            );
        }

        let transposed = layout(&format!("({columns},{rows}):({rows},1)"));
        let composed_again = composed.compose(&transposed).unwrap();
        for index in 0..size {
            let inner_index = transposed.evaluate_index(&index).unwrap();
            prop_assert_eq!(
                composed_again.evaluate_index(index),
                composed.evaluate_index(inner_index)
            );
        }
    }

    /// Extents of at least 2 leave exactly one stride-1 mode, the one downcast grows.
    #[test]
    fn upcast_undoes_downcast(extents in prop::collection::vec(2_i64..=6, 2), factor in 1_i64..=8) {
        let unit_stride_first = Layout::column_major(IntTuple::ints(&extents)).unwrap();
        let with_broadcast = unit_stride_first.append(&layout("3:0")).unwrap();
        for original in [unit_stride_first, with_broadcast] {
            let downcasted = downcast(&original, factor).unwrap();
            prop_assert_eq!(downcasted.size().unwrap(), original.size().unwrap() * factor);
            prop_assert_eq!(upcast(&downcasted, factor), Ok(original.clone()));
            prop_assert_eq!(recast_layout(&downcasted, 8, 8 * factor), Ok(original));
        }
    }

    #[test]
    fn tv_layout_partitions_the_tile(thr in compact_layout(2), val in compact_layout(2)) {
        let (tiler, tv) = make_layout_tv(&thr, &val).unwrap();
        let threads = thr.size().unwrap();
        let values = val.size().unwrap();
        prop_assert_eq!(tiler.product(), Ok(threads * values));
        prop_assert_eq!(tv.size(), Ok(threads * values));
        let mut cells = tv.table(TABLE_LIMIT).unwrap();
        cells.sort_unstable();
        prop_assert!(cells.iter().copied().eq(0..threads * values));
        check_ownership(&thr, &val, &tiler, &tv);
    }

    #[test]
    fn tile_to_shape_covers_the_target(
        block in compact_layout(2),
        copies in prop::collection::vec(1_i64..=4, 2),
        row_major_copies in any::<bool>(),
    ) {
        let block_extents = product_each(padded_rank2(&block).shape()).unwrap().leaves();
        let target: Vec<i64> = block_extents.iter().zip(&copies).map(|(b, c)| b * c).collect();
        let order = IntTuple::ints(&[1, 0]);
        let order = row_major_copies.then_some(&order);
        let tiled = tile_to_shape(&block, &IntTuple::ints(&target), order).unwrap();
        prop_assert_eq!(product_each(tiled.shape()).unwrap(), IntTuple::ints(&target));
        let mut offsets = tiled.table(TABLE_LIMIT).unwrap();
        offsets.sort_unstable();
        prop_assert!(offsets.iter().copied().eq(0..tiled.size().unwrap()));
        // The copy at the origin is the block itself.
        let (block_m, block_n) = (block_extents[0], block_extents[1]);
        for m in 0..block_m {
            for n in 0..block_n {
                let coord = IntTuple::ints(&[m, n]);
                let in_block = padded_rank2(&block).evaluate(&coord).unwrap();
                prop_assert_eq!(tiled.evaluate(&coord), Ok(in_block));
            }
        }
    }

    #[test]
    fn common_vector_elements_correspond((a, b) in same_shape_pair()) {
        prop_assert_eq!(max_common_vector(&a, &a), Ok(a.size().unwrap()));
        let common = max_common_vector(&a, &b).unwrap();
        prop_assert!(common >= 1);
        // C++'s postcondition: offset n of b holds the element at offset n of a.
        let inverse_b = b.right_inverse().unwrap();
        for offset in 0..common {
            let index = inverse_b.evaluate_index(&offset).unwrap();
            prop_assert_eq!(a.evaluate_index(&index), Ok(offset));
        }
        prop_assert_eq!(max_common_layout(&a, &b).unwrap().size(), Ok(common));
    }
}

/// Thread `t`'s value `v` sits in the tile cell whose patch `thr` gives to `t` and
/// whose place in the patch `val` numbers `v`.
fn check_ownership(thr: &Layout, val: &Layout, tiler: &IntTuple, tv: &Layout) {
    let thr = padded_rank2(thr);
    let val = padded_rank2(val);
    let tile_m = tiler.get(0).unwrap().product().unwrap();
    let patch_m = val.mode(0).unwrap().size().unwrap();
    let patch_n = val.mode(1).unwrap().size().unwrap();
    for thread in 0..thr.size().unwrap() {
        for value in 0..val.size().unwrap() {
            let cell = tv.evaluate(&IntTuple::ints(&[thread, value])).unwrap();
            let (m, n) = (cell % tile_m, cell / tile_m);
            let owner = thr.evaluate(&IntTuple::ints(&[m / patch_m, n / patch_n]));
            let place = val.evaluate(&IntTuple::ints(&[m % patch_m, n % patch_n]));
            assert_eq!(owner, Ok(thread), "owner of cell ({m},{n})");
            assert_eq!(place, Ok(value), "value index of cell ({m},{n})");
        }
    }
}

/// Pads a rank-1 layout to rank 2 with a `1:0` mode, as the rank-2 products do.
fn padded_rank2(layout: &Layout) -> Layout {
    match layout.rank() {
        1 => layout
            .append(&Layout::new(IntTuple::int(1), IntTuple::int(0)).unwrap())
            .unwrap(),
        _ => layout.clone(),
    }
}

#[test]
fn tv_layouts_of_the_seed_documents() {
    let cases = [
        // CuTe DSL documentation of make_layout_tv.
        (
            "(2,3):(3,1)",
            "(2,2):(2,1)",
            "(4,6)",
            "((3,2),(2,2)):((8,2),(4,1))",
        ),
        // Seed 003: 4x32 threads, 4x4 values each.
        (
            "(4,32):(32,1)",
            "(4,4):(4,1)",
            "(16,128)",
            "((32,4),(4,4)):((64,4),(16,1))",
        ),
        (
            "(4,32):(32,1)",
            "(4,8):(8,1)",
            "(16,256)",
            "((32,4),(8,4)):((128,4),(16,1))",
        ),
        // Seed 003: one column of threads, vectors along the row.
        ("(128,1):(1,0)", "(1,4):(0,1)", "(128,4)", "(128,4):(1,128)"),
        // Seed 004: its hand-written TV layout of a 128-thread copy of an 8x128 tile.
        (
            "(8,16):(16,1)",
            "(1,8):(0,1)",
            "(8,128)",
            "((16,8),8):((64,1),8)",
        ),
    ];
    for (thr, val, tiler, tv) in cases {
        let (thr, val) = (layout(thr), layout(val));
        let (actual_tiler, actual_tv) = make_layout_tv(&thr, &val).unwrap();
        assert_eq!(actual_tiler.to_string(), tiler, "tiler of {thr} x {val}");
        assert_eq!(
            actual_tv.coalesce(),
            layout(tv).coalesce(),
            "TV of {thr} x {val}"
        );
        assert_eq!(
            actual_tv.shape(),
            layout(tv).shape(),
            "TV shape of {thr} x {val}"
        );
        check_ownership(&thr, &val, &actual_tiler, &actual_tv);
    }
}

#[test]
fn swizzled_half_layout_recast_to_bytes() {
    let halves: ComposedLayout = "Sw<3,3,3> o 0 o (8,64):(64,1)".parse().unwrap();
    let bytes = halves.recast(16, 8).unwrap();
    assert_eq!(bytes.to_string(), "Sw<3,4,3> o 0 o (8,128):(128,1)");
    for row in 0..8 {
        for column in 0..64 {
            let half = halves.evaluate(&IntTuple::ints(&[row, column])).unwrap();
            let byte = bytes.evaluate(&IntTuple::ints(&[row, 2 * column])).unwrap();
            assert_eq!(byte, 2 * half);
        }
    }
    assert_eq!(bytes.recast(8, 16), Ok(halves.clone()));
    let vectors = halves.recast(16, 128).unwrap();
    assert_eq!(vectors.to_string(), "Sw<3,0,3> o 0 o (8,8):(8,1)");
    let shifted = ComposedLayout::new(swizzle(3, 3, 3), 4, layout("(8,64):(64,1)"));
    assert!(shifted.upcast(8).is_err());
}
