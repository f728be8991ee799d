//! Cases settled by compiling them against C++ CuTe (CUTLASS's `cute/` headers, host-only
//! g++; `tests/layout-oracle/cpp/` is the harness): where pycute or an earlier reading of
//! the algebra differed, the expected values here are what C++ printed.

use layout::{
    IntTuple, Layout, LayoutError, SymInt, Tiler, flat_divide, flat_product, idx2crd,
    idx2crd_strided, left_inverse, logical_divide, logical_product, tiled_divide, tiled_product,
    zipped_divide, zipped_product,
};

mod notation;

use notation::{int_tuple as shape, layout, tiler};

fn int(value: i64) -> IntTuple {
    IntTuple::int(value)
}

#[test]
fn underscore_in_a_divide_tiler_splits_its_mode_as_a_pair() {
    let a = layout("(4,(2,8)):(1,(4,8))");
    let by = tiler("(2,_)");
    assert_eq!(
        zipped_divide(&a, &by),
        Ok(layout("((2,2),(2,8)):((1,4),(2,8))"))
    );
    assert_eq!(tiled_divide(&a, &by), Ok(layout("((2,2),2,8):((1,4),2,8)")));
    assert_eq!(flat_divide(&a, &by), Ok(layout("(2,2,2,8):(1,4,2,8)")));
    // logical_divide leaves a `_` mode as it is.
    assert_eq!(
        logical_divide(&a, &by),
        Ok(layout("((2,2),(2,8)):((1,2),(4,8))"))
    );
}

#[test]
fn underscore_in_a_product_tiler_splits_its_mode_as_a_pair() {
    let a = layout("(2,(3,4)):(1,(2,6))");
    let by = tiler("(2:1,_)");
    assert_eq!(
        zipped_product(&a, &by),
        Ok(layout("((2,3),(2,4)):((1,2),(2,6))"))
    );
    assert_eq!(
        tiled_product(&a, &by),
        Ok(layout("((2,3),2,4):((1,2),2,6)"))
    );
    assert_eq!(flat_product(&a, &by), Ok(layout("(2,3,2,4):(1,2,2,6)")));
    assert_eq!(
        logical_product(&a, &by),
        Ok(layout("((2,2),(3,4)):((1,2),(2,6))"))
    );
}

#[test]
fn a_whole_underscore_tiler_takes_a_rank_2_layout_as_it_is() {
    let a = layout("(4,8):(1,4)");
    let keep = tiler("_");
    assert_eq!(zipped_divide(&a, &keep), Ok(a.clone()));
    assert_eq!(tiled_divide(&a, &keep), Ok(a.clone()));
    assert_eq!(flat_divide(&a, &keep), Ok(a.clone()));
    assert_eq!(zipped_product(&a, &keep), Ok(a.clone()));
}

#[test]
fn underscore_over_a_mode_that_is_not_a_pair_is_rejected() {
    // C++ does not compile these (zip2_by's static_assert on the mode's rank).
    for (a, by) in [
        ("(4,2):(1,4)", "(_)"),
        ("(4,(2,2,2)):(1,(4,8,16))", "(2,_)"),
        ("8:1", "_"),
    ] {
        let error = flat_divide(&layout(a), &tiler(by)).unwrap_err();
        assert!(matches!(error, LayoutError::Unsupported { .. }), "{error}");
        let message = error.to_string();
        assert!(
            message.starts_with("flat_divide: a `_` in the tiler"),
            "{message}"
        );
        assert!(message.contains("rank-2 (tile, rest) pair"), "{message}");
    }
    let error = tiled_product(&layout("(4,2):(1,4)"), &tiler("(_,2)")).unwrap_err();
    assert!(
        error.to_string().starts_with("tiled_product: a `_`"),
        "{error}"
    );
}

#[test]
fn symbolic_zipped_divide_keeps_a_split_pair_under_underscore() {
    // The guided divide of a TiledCopy/TiledMMA partition: mode 0 divided by a layout,
    // mode 1 already a (tile, rest) pair of run-time extent.
    let a: Layout<SymInt> = "(8,(4,m)):(1,(8,32))".parse().unwrap();
    let by = Tiler::Modes(vec![Tiler::Layout("2:1".parse().unwrap()), Tiler::Keep]);
    let zipped = zipped_divide(&a, &by).unwrap();
    assert_eq!(zipped.to_string(), "((2,4),(4,m)):((1,8),(2,32))");
}

#[test]
fn idx2crd_past_the_end_extends_the_last_mode() {
    assert_eq!(idx2crd(&int(40), &shape("(4,8)")), Ok(shape("(0,10)")));
    assert_eq!(
        idx2crd(&int(100), &shape("(2,(3,4))")),
        Ok(shape("(0,(2,16))"))
    );
    assert_eq!(idx2crd(&int(7), &shape("(4)")), Ok(shape("(7)")));
    // An inner mode that is not last wraps; only the outermost last leaf absorbs.
    assert_eq!(
        idx2crd(&int(13), &shape("((2,3),2)")),
        Ok(shape("((1,0),2)"))
    );
    assert_eq!(idx2crd(&int(9), &shape("(4,1)")), Ok(shape("(1,2)")));
    assert_eq!(idx2crd(&int(9), &shape("(1,4,1)")), Ok(shape("(0,1,2)")));
    // Inside the domain nothing changes.
    assert_eq!(
        idx2crd(&int(5), &shape("(2,(3,4))")),
        Ok(shape("(1,(2,0))"))
    );
    // The strided form is `(idx / stride) % shape` leaf by leaf: it still wraps.
    assert_eq!(
        idx2crd_strided(&int(40), &shape("(4,8)"), &shape("(1,4)")),
        Ok(shape("(0,2)"))
    );
}

#[test]
fn equal_strides_sort_as_cpp_exchange_sort_does() {
    // Non-injective (two modes of stride 8): C++ visits the second one first.
    let a = layout("(2,(4),((2),(2,2)),1):(8,(8),((1),(16,32)),1)");
    assert_eq!(left_inverse(&a), Ok(layout("(8,2,4):(8,1,16)")));
}
