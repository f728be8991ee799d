//! CuTe's documented examples and classic results, checked against the values NVIDIA's
//! pycute (or, where it differs, C++ CuTe) gives.

use layout::{
    Coord, IntTuple, Layout, LayoutError, SymInt, Tiler, coalesce, complement, composition,
    flat_divide, left_inverse, logical_divide, logical_product, right_inverse, slice_and_offset,
    tiled_divide, zipped_divide, zipped_product,
};

mod notation;

use notation::{int_tuple as shape, layout, tiler};

#[test]
fn complement_examples() {
    // Values from pycute.
    assert_eq!(
        complement(&layout("4:2"), Some(&shape("24"))).unwrap(),
        layout("(2,3):(1,8)")
    );
    assert_eq!(
        complement(&layout("(2,2):(1,6)"), Some(&shape("24"))).unwrap(),
        layout("(3,2):(2,12)")
    );
    assert_eq!(
        complement(&layout("(4,6):(1,6)"), None).unwrap(),
        layout("1:0")
    );
    assert_eq!(complement(&layout("4:2"), None).unwrap(), layout("2:1"));
    assert!(matches!(
        complement(&layout("(2,2):(1,1)"), None),
        Err(LayoutError::NotInjective { .. })
    ));
}

#[test]
fn composition_examples() {
    // Values from pycute.
    let composed = composition(&layout("(6,2):(8,2)"), &layout("(4,3):(3,1)")).unwrap();
    assert_eq!(composed, layout("((2,2),3):((24,2),8)"));
    let composed = composition(&layout("(10,2):(16,4)"), &layout("(5,4):(1,5)")).unwrap();
    assert_eq!(composed, layout("(5,(2,2)):(16,(80,4))"));
    // C++ CuTe rejects taking 4 elements from a mode of 3 (pycute silently truncates).
    let error = composition(&layout("(3,4):(1,10)"), &layout("4:1")).unwrap_err();
    assert!(
        matches!(
            error,
            LayoutError::NotDivisible {
                operation: "composition",
                ..
            }
        ),
        "{error}"
    );
    // By-mode tilers drop the modes they do not reach, as in C++.
    assert_eq!(
        composition(&layout("(4,6,2):(1,4,24)"), &tiler("(2,_)")).unwrap(),
        layout("(2,6):(1,4)")
    );
}

#[test]
fn integer_tilers_follow_cpp() {
    // composition reads n as n:1; the divides read it as make_layout(n), and C++ gives
    // a static extent 1 the stride 0.
    assert_eq!(
        composition(&layout("8:2"), &tiler("1")).unwrap(),
        layout("1:2")
    );
    assert_eq!(
        zipped_divide(&layout("8:1"), &tiler("1")).unwrap(),
        layout("(1,8):(0,1)")
    );
    assert_eq!(
        zipped_divide(&layout("8:1"), &tiler("2")).unwrap(),
        layout("(2,4):(1,2)")
    );
}

#[test]
fn divide_examples() {
    // Values from pycute.
    let divided = logical_divide(&layout("(4,2,3):(2,1,8)"), &layout("4:2")).unwrap();
    assert_eq!(divided, layout("((2,2),(2,3)):((4,1),(2,8))"));
    assert_eq!(
        logical_divide(&layout("16:3"), &layout("(2,2):(4,1)")).unwrap(),
        layout("((2,2),(2,2)):((12,3),(6,24))")
    );
    // Seed 001: tiling (6,20):(20,1) with (2,4) tiles.
    let row_major = layout("(6,20):(20,1)");
    assert_eq!(
        logical_divide(&row_major, &tiler("(2,4)")).unwrap(),
        layout("((2,3),(4,5)):((20,40),(1,4))")
    );
    assert_eq!(
        zipped_divide(&row_major, &tiler("(2,4)")).unwrap(),
        layout("((2,4),(3,5)):((20,1),(40,4))")
    );
    assert_eq!(
        tiled_divide(&row_major, &tiler("(2,4)")).unwrap(),
        layout("((2,4),3,5):((20,1),40,4)")
    );
    assert_eq!(
        flat_divide(&row_major, &tiler("(2,4)")).unwrap(),
        layout("(2,4,3,5):(20,1,40,4)")
    );
}

#[test]
fn seed_001_divide_shape_formula() {
    // (A,B,C):(1,A,AB) ⊘ (a,b,c) = ((a,b,c),(A/a,B/b,C/c)):((1,A,AB),(a,Ab,ABc)) with
    // A,B,C = 8,6,4 and a,b,c = 2,3,2.
    let divided = zipped_divide(&layout("(8,6,4)"), &tiler("(2,3,2)")).unwrap();
    assert_eq!(divided, layout("((2,3,2),(4,2,2)):((1,8,48),(2,24,96))"));
    // Missing tiler modes are left undivided: (A,B,C) ⊘ (a,b) = ((a,b),(A/a,B/b,C)).
    let divided = zipped_divide(&layout("(8,6,4)"), &tiler("(2,3)")).unwrap();
    assert_eq!(divided, layout("((2,3),(4,2,4)):((1,8),(2,24,48))"));
}

#[test]
fn product_examples() {
    // Values from pycute.
    assert_eq!(
        logical_product(&layout("(2,2):(4,1)"), &layout("6:1")).unwrap(),
        layout("((2,2),(2,3)):((4,1),(2,8))")
    );
    let product = logical_product(&layout("(2,2):(4,1)"), &layout("(4,2):(2,1)")).unwrap();
    assert_eq!(product, layout("((2,2),(4,2)):((4,1),(8,2))"));
    let zipped = zipped_product(&layout("(2,5):(5,1)"), &tiler("(3:5,4:6)")).unwrap();
    assert_eq!(zipped, layout("((2,5),(3,4)):((5,1),(10,30))"));
}

#[test]
fn blocked_and_raked_products_follow_cpp() {
    // C++ CuTe: a 2x2 block tiled 3x4 in column-major order.
    let block = layout("(2,2):(1,2)");
    let repeat = layout("(3,4):(1,3)");
    assert_eq!(
        layout::blocked_product(&block, &repeat).unwrap(),
        layout("((2,3),(2,4)):((1,4),(2,12))")
    );
    assert_eq!(
        layout::raked_product(&block, &repeat).unwrap(),
        layout("((3,2),(4,2)):((4,1),(12,2))")
    );
    // C++ 3.8+ zips without coalescing; two rank-1 operands give one mode (block, repeat).
    let product = layout::blocked_product(&layout("4:1"), &layout("2:1")).unwrap();
    assert_eq!(product, layout("((4,2)):((1,4))"));
    let product = layout::raked_product(&layout("(2):(1)"), &layout("((2)):((1))")).unwrap();
    assert_eq!(product, layout("(((2),2)):(((2),1))"));
}

#[test]
fn inverse_examples() {
    // Values from pycute.
    assert_eq!(
        right_inverse(&layout("(4,(2,3)):(6,(1,2))")).unwrap(),
        layout("(6,4):(4,1)")
    );
    // C++ left_inverse (pycute's construction gives (4,2,2):(1,8,4), equal on the image).
    let inverse = left_inverse(&layout("(4,2):(1,8)")).unwrap();
    assert_eq!(inverse, layout("(8,2):(1,4)"));
    // A quasi-inverse for a non-injective layout: a(l(a(i))) == a(i).
    let broadcast = layout("(4,2):(0,1)");
    let quasi = left_inverse(&broadcast).unwrap();
    for index in 0..8 {
        let value = broadcast.evaluate_index(&index).unwrap();
        let back = quasi.evaluate_index(&value).unwrap();
        assert_eq!(broadcast.evaluate_index(&back).unwrap(), value);
    }
    let error = left_inverse(&layout("(2,2):(2,3)")).unwrap_err();
    assert!(
        matches!(
            error,
            LayoutError::NotDivisible {
                operation: "left_inverse",
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn coalesce_example() {
    // Value from pycute.
    assert_eq!(
        coalesce(&layout("(2,(1,6)):(1,(6,2))")).unwrap(),
        layout("12:1")
    );
}

#[test]
fn seed_004_tv_layout_matches_manual_indexing() {
    // ((16,8),8):((64,1),8) maps (thread, value) into an (8,128) row-major tile; thread
    // t's value v lands at m = t / 16, k = v + (t % 16) * 8, i.e. offset m + 8 * k in
    // the (M,K) column-major coordinate space the seed uses.
    let tv = layout("((16,8),8):((64,1),8)");
    let tile = Layout::<i64>::column_major(shape("(8,128)")).unwrap();
    for thread in 0..128 {
        for value in 0..8 {
            let coord = IntTuple::Tuple(vec![IntTuple::Int(thread), IntTuple::Int(value)]);
            let expected = tile
                .evaluate(&IntTuple::ints(&[thread / 16, value + (thread % 16) * 8]))
                .unwrap();
            assert_eq!(tv.evaluate(&coord).unwrap(), expected);
        }
    }
    // Composing the row-major (8,128) tensor with it gives (T,V) -> memory offset;
    // slicing thread t gives its 8 values, starting at row t/16, column (t%16)*8.
    let g_a = layout("(8,128):(128,1)");
    let per_thread = composition(&g_a, &tv).unwrap();
    for thread in 0..128 {
        let coord = Coord::Tuple(vec![Coord::Int(thread), Coord::Free]);
        let (values, offset) = slice_and_offset(&coord, &per_thread).unwrap();
        assert_eq!(values.size().unwrap(), 8);
        assert_eq!(
            offset,
            g_a.evaluate(&IntTuple::ints(&[thread / 16, (thread % 16) * 8]))
                .unwrap()
        );
        for value in 0..8 {
            let expected = g_a
                .evaluate(&IntTuple::ints(&[thread / 16, value + (thread % 16) * 8]))
                .unwrap();
            assert_eq!(
                offset + values.evaluate(&IntTuple::int(value)).unwrap(),
                expected
            );
        }
    }
}

#[test]
fn local_tile_of_a_symbolic_tensor() {
    let global: Layout<SymInt> = "(m,k):(k,1)".parse().unwrap();
    let tile: Tiler<SymInt> = "(8,128)".parse().unwrap();
    let divided = logical_divide(&global, &tile).unwrap();
    assert_eq!(
        divided.to_string(),
        "((8,ceil_div(m,8)),(128,ceil_div(k,128))):((k,8*k),(1,128))"
    );
    let zipped = zipped_divide(&global, &tile).unwrap();
    assert_eq!(
        zipped.to_string(),
        "((8,128),(ceil_div(m,8),ceil_div(k,128))):((k,1),(8*k,128))"
    );
    // local_tile: block (bx, by) of the zipped divide, with a run-time offset.
    let block: Coord<SymInt> = "((_,_),(bx,by))".parse().unwrap();
    let (tile_layout, offset) = slice_and_offset(&block, &zipped).unwrap();
    assert_eq!(tile_layout.to_string(), "(8,128):(k,1)");
    assert_eq!(offset.to_string(), "8*bx*k+128*by");
    let error = complement(&global, None).unwrap_err();
    assert!(
        matches!(
            error,
            LayoutError::Dynamic {
                operation: "complement",
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn operations_that_need_static_values_name_the_dynamic_operand() {
    let global: Layout<SymInt> = "(m,k):(k,1)".parse().unwrap();
    let expect_dynamic = |result: Result<String, LayoutError>| match result {
        Err(LayoutError::Dynamic { operand, .. }) => assert!(
            operand.contains('m') || operand.contains('k'),
            "the operand {operand} should be the run-time one"
        ),
        other => panic!("expected a Dynamic error, got {other:?}"),
    };
    expect_dynamic(global.table(64).map(|table| format!("{table:?}")));
    expect_dynamic(left_inverse(&global).map(|layout| layout.to_string()));
    expect_dynamic(global.to_static().map(|layout| layout.to_string()));
    // As in C++, right_inverse follows static strides only: here the stride-1 mode.
    assert_eq!(right_inverse(&global).unwrap().to_string(), "k:m");
    // Evaluation and slicing stay symbolic.
    let at: IntTuple<SymInt> = "(i,j)".parse().unwrap();
    assert_eq!(global.evaluate(&at).unwrap().to_string(), "i*k+j");
    let row: Coord<SymInt> = "(i,_)".parse().unwrap();
    let (sliced, offset) = slice_and_offset(&row, &global).unwrap();
    assert_eq!(
        (sliced.to_string(), offset.to_string()),
        ("(k):(1)".to_owned(), "i*k".to_owned())
    );
}
