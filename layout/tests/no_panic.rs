//! Every operation returns (`Ok` or `Err`) and never panics, whatever the input:
//! zero, negative and huge extents and strides, incongruent operands, odd text.

use layout::{
    AsTiler, ComposedLayout, Coord, CoordinateLayout, IdentityLayout, IntTuple, Layout, Swizzle,
    SymInt, Tiler, blocked_product, ceil_div, coalesce, coalesce_by, complement, composition,
    crd2idx, dice, downcast, elem_less, filter, filter_by, filter_zeros, flat_divide, flat_product,
    idx2crd, idx2crd_strided, inner_product, left_inverse, logical_divide, logical_product,
    make_layout_tv, max_common_layout, max_common_vector, prefix_product, product_each,
    raked_product, recast_layout, right_inverse, shape_div, slice_and_offset, tile_to_shape,
    tiled_divide, tiled_product, upcast, zipped_divide, zipped_product,
};
use proptest::prelude::*;

fn value() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => -3_i64..=9,
        1 => Just(i64::MAX),
        1 => Just(i64::MIN),
        1 => Just(i64::MAX / 2 + 1),
        1 => (1_i64 << 30)..(1_i64 << 33),
    ]
}

fn int_tuple() -> impl Strategy<Value = IntTuple> {
    value()
        .prop_map(IntTuple::Int)
        .prop_recursive(4, 16, 4, |inner| {
            prop::collection::vec(inner, 1..=4).prop_map(IntTuple::Tuple)
        })
}

fn any_layout() -> impl Strategy<Value = Option<Layout>> {
    prop_oneof![
        (int_tuple(), int_tuple()).prop_map(|(shape, stride)| Layout::new(shape, stride).ok()),
        int_tuple().prop_map(|shape| Layout::column_major(shape).ok()),
        int_tuple().prop_map(|shape| Layout::row_major(shape).ok()),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("("),
            Just(")"),
            Just(","),
            Just(":"),
            Just("_"),
            Just("<"),
            Just(">"),
            Just("-"),
            Just("*"),
            Just("+"),
            Just("4"),
            Just("0"),
            Just("m"),
            Just("ceil_div("),
            Just("9223372036854775807"),
            Just(" ")
        ],
        0..24,
    )
    .prop_map(|pieces| pieces.concat())
}

fn exercise_pair(a: &Layout, b: &impl AsTiler<i64>) {
    let _ = composition(a, b);
    let _ = logical_divide(a, b);
    let _ = zipped_divide(a, b);
    let _ = tiled_divide(a, b);
    let _ = flat_divide(a, b);
    let _ = logical_product(a, b);
    let _ = zipped_product(a, b);
    let _ = tiled_product(a, b);
    let _ = flat_product(a, b);
}

fn exercise(a: &Layout, b: &Layout, coord: &IntTuple) {
    let _ = (a.size(), a.cosize(), a.rank(), a.depth(), a.table(1 << 12));
    let _ = (
        a.evaluate(coord),
        a.mode(1),
        a.select(&[1, 0]),
        a.group_modes(0, 2),
        a.flatten(),
    );
    let _ = (
        coalesce(a),
        filter(a),
        coalesce_by(a, coord),
        filter_by(a, coord),
    );
    let _ = (
        complement(a, None),
        complement(a, Some(coord)),
        right_inverse(a),
        left_inverse(a),
    );
    let _ = (blocked_product(a, b), raked_product(a, b));
    let _ = (
        a.append(b),
        a.prepend(b),
        IdentityLayout::new(a.shape().clone()).map(|id| id.evaluate(coord)),
    );
    let _ = (
        slice_and_offset(&Coord::from(coord), a),
        dice(&Coord::from(coord), a),
    );
    exercise_pair(a, b);
    let tiler = Tiler::Modes(vec![Tiler::Layout(b.clone()), Tiler::Keep]);
    exercise_pair(a, &tiler);
    if let Ok(by_shape) = Tiler::from_shape(coord) {
        exercise_pair(a, &by_shape);
    }
    let _ = (
        filter_zeros(a),
        Layout::ordered(a.shape().clone(), coord),
        make_layout_tv(a, b),
        tile_to_shape(a, coord, None),
        tile_to_shape(a, b.shape(), Some(coord)),
    );
    let _ = (max_common_layout(a, b), max_common_vector(a, b));
    for factor in [-1, 0, 1, 2, 3, i64::MAX] {
        let _ = (upcast(a, factor), downcast(a, factor));
        let _ = (recast_layout(a, 16, factor), recast_layout(a, factor, 8));
    }
    let (shape, stride) = (a.shape(), a.stride());
    let _ = (
        shape_div(shape, coord),
        ceil_div(shape, coord),
        prefix_product(shape, coord),
    );
    let _ = (
        inner_product(coord, stride),
        crd2idx(coord, shape, stride),
        idx2crd(coord, shape),
    );
    let _ = (
        idx2crd_strided(coord, shape, stride),
        elem_less(coord, shape),
        product_each(coord),
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn operations_never_panic(a in any_layout(), b in any_layout(), coord in int_tuple()) {
        let fallback = Layout::new(IntTuple::int(4), IntTuple::int(0)).unwrap();
        let a = a.unwrap_or_else(|| fallback.clone());
        let b = b.unwrap_or(fallback);
        exercise(&a, &b, &coord);
        exercise(&b, &a, &coord);
        let symbolic = a.to_symbolic();
        let tiler: Tiler<SymInt> = Tiler::Layout(b.to_symbolic());
        let _ = (composition(&symbolic, &tiler), logical_divide(&symbolic, &tiler), complement(&symbolic, None));
    }

    #[test]
    fn swizzled_layouts_never_panic(
        a in any_layout(),
        b in any_layout(),
        (bits, base, shift) in (-2_i64..=12, -2_i64..=12, -12_i64..=12),
        offset in value(),
        coord in int_tuple(),
        factor in -1_i64..=9,
    ) {
        let Ok(swizzle) = Swizzle::new(bits, base, shift) else {
            return Ok(());
        };
        let _ = (swizzle.apply(offset), swizzle.upcast(factor), swizzle.downcast(factor));
        let Some(inner) = a else {
            return Ok(());
        };
        let composed = ComposedLayout::new(swizzle, offset, inner);
        let _ = (composed.size(), composed.evaluate(&coord), composed.table(1 << 12), composed.cosize(1 << 12));
        let _ = (composed.mode(0), composed.slice(&Coord::from(&coord)));
        if let Some(b) = b {
            let _ = composed.compose(&b);
        }
        let _ = (composed.upcast(factor), composed.downcast(factor), composed.recast(16, factor));
        prop_assert_eq!(composed.to_string().parse::<ComposedLayout>(), Ok(composed));
    }

    #[test]
    fn coordinate_layouts_never_panic(a in any_layout(), b in any_layout(), coord in int_tuple()) {
        let Some(a) = a else {
            return Ok(());
        };
        let Ok(identity) = CoordinateLayout::identity(a.shape()) else {
            return Ok(());
        };
        let coord = coord.to_symbolic();
        let _ = (identity.evaluate(&coord), identity.slice(&Coord::from(&coord)), identity.mode(1));
        let Some(b) = b else {
            return Ok(());
        };
        let tiler: Tiler<SymInt> = Tiler::Layout(b.to_symbolic());
        for derived in [
            identity.composition(&tiler),
            identity.logical_divide(&tiler),
            identity.zipped_divide(&tiler),
            identity.tiled_divide(&tiler),
            identity.flat_divide(&tiler),
        ]
        .into_iter()
        .flatten()
        {
            let _ = (derived.evaluate(&coord), derived.slice(&Coord::from(&coord)), derived.to_string());
        }
    }

    #[test]
    fn parsing_never_panics(input in text()) {
        let _ = input.parse::<Layout>();
        let _ = input.parse::<Layout<SymInt>>();
        let _ = input.parse::<Tiler>();
        let _ = input.parse::<Coord>();
        let _ = input.parse::<SymInt>();
        if let Ok(parsed) = input.parse::<Layout<SymInt>>() {
            prop_assert_eq!(parsed.to_string().parse::<Layout<SymInt>>().unwrap(), parsed);
        }
    }
}

#[test]
fn deep_and_huge_layouts_are_errors_not_panics() {
    let deep_text = format!("{}4{}", "(".repeat(32), ")".repeat(32));
    let deep: Layout = deep_text.parse().unwrap();
    assert_eq!(deep.depth(), 32);
    let unit = Layout::new(IntTuple::int(1), IntTuple::int(0)).unwrap();
    exercise(&deep, &unit, &IntTuple::int(0));
    // Adding a level beyond the limit is refused; coalescing first is fine.
    assert!(matches!(
        Layout::from_modes(vec![deep.clone()]),
        Err(layout::LayoutError::TooDeep { .. })
    ));
    assert_eq!(
        zipped_divide(&deep, &Tiler::Extent(2)).unwrap().to_string(),
        "(2,2):(1,2)"
    );
    let huge: Layout = "(1048576,1048576,1048576):(1,1048576,0)".parse().unwrap();
    assert!(matches!(
        huge.table(layout::TABLE_LIMIT),
        Err(layout::LayoutError::TooLarge { .. })
    ));
    let overflowing: Layout = "(4611686018427387904,4):(2,4611686018427387904)"
        .parse()
        .unwrap();
    assert_eq!(
        overflowing.size().unwrap_err().to_string(),
        "multiplication: 4611686018427387904 * 4 does not fit in 64 bits",
        "the message names the values that overflowed"
    );
    assert!(matches!(
        overflowing.cosize(),
        Err(layout::LayoutError::Overflow { .. })
    ));
}
