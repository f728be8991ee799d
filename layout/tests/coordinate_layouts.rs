//! Coordinate layouts (CuTe's identity layouts with basis strides `1@i`) through
//! the algebra: tiled, partitioned by a TV layout and sliced, each value checked
//! against the coordinate worked out by hand.

mod common;

use common::{compact_layout, small_layout};
use layout::{
    Coord, CoordinateLayout, IdentityLayout, IntTuple, Layout, LayoutError, SymInt, Tiler,
};
use proptest::prelude::*;

fn symbolic(text: &str) -> IntTuple<SymInt> {
    text.parse().unwrap()
}

fn ints(values: &[i64]) -> IntTuple<SymInt> {
    IntTuple::<SymInt>::ints(values)
}

fn tiler(text: &str) -> Tiler<SymInt> {
    text.parse().unwrap()
}

#[test]
fn the_identity_maps_each_coordinate_to_itself_and_prints_basis_strides() {
    let identity = CoordinateLayout::identity(&IntTuple::<SymInt>::ints(&[4, 6])).unwrap();
    assert_eq!(identity.to_string(), "(4,6):(1@0,1@1)");
    for index in 0..24 {
        assert_eq!(
            identity.evaluate(&ints(&[index % 4, index / 4])).unwrap(),
            ints(&[index % 4, index / 4])
        );
        assert_eq!(
            identity
                .evaluate(&IntTuple::Int(SymInt::constant(index)))
                .unwrap(),
            ints(&[index % 4, index / 4])
        );
    }
    let nested = CoordinateLayout::identity(&symbolic("(4,(2,3))")).unwrap();
    assert_eq!(nested.to_string(), "(4,(2,3)):(1@0,(1@1@0,1@1@1))");
    assert_eq!(
        nested.evaluate(&symbolic("(3,4)")).unwrap(),
        symbolic("(3,(0,2))")
    );
}

#[test]
fn zipped_divide_of_an_identity_gives_each_tile_its_coordinates() {
    let identity = CoordinateLayout::identity(&IntTuple::<SymInt>::ints(&[8, 6])).unwrap();
    let tiles = identity.zipped_divide(&tiler("(4,3)")).unwrap();
    assert_eq!(tiles.to_string(), "((4,3),(2,2)):((1@0,1@1),(4@0,3@1))");
    for (tile_row, tile_column) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        for row in 0..4 {
            for column in 0..3 {
                let coord =
                    IntTuple::Tuple(vec![ints(&[row, column]), ints(&[tile_row, tile_column])]);
                assert_eq!(
                    tiles.evaluate(&coord).unwrap(),
                    ints(&[tile_row * 4 + row, tile_column * 3 + column])
                );
            }
        }
    }
}

#[test]
fn a_block_tile_of_a_run_time_shape_starts_at_the_block_coordinate() {
    // local_tile(make_identity_tensor((m,n)), (128,64), (bx,by)): what predication
    // compares with (m,n). Past the edge the rows keep counting, as basis strides do.
    let identity = CoordinateLayout::identity(&symbolic("(m,n)")).unwrap();
    let tiles = identity.zipped_divide(&tiler("(128,64)")).unwrap();
    assert_eq!(
        tiles.to_string(),
        "((128,64),(ceil_div(m,128),ceil_div(n,64))):((1@0,1@1),(128@0,64@1))"
    );
    let block = Coord::Tuple(vec![
        Coord::Free,
        Coord::Tuple(vec![
            Coord::Int(SymInt::variable("bx")),
            Coord::Int(SymInt::variable("by")),
        ]),
    ]);
    let (tile, start) = tiles.slice(&block).unwrap();
    assert_eq!(start, symbolic("(128*bx,64*by)"));
    assert_eq!(tile.to_string(), "((128,64)):((1@0,1@1))");
    let tile = tile.mode(0).unwrap();
    let (thread_row, thread_column) = (SymInt::variable("ty"), SymInt::variable("tx"));
    let inside = tile
        .evaluate(&IntTuple::Tuple(vec![
            IntTuple::Int(thread_row),
            IntTuple::Int(thread_column),
        ]))
        .unwrap();
    assert_eq!(inside, symbolic("(ty,tx)"));
}

#[test]
fn an_identity_partitioned_by_seed_004s_tv_layout_gives_each_thread_its_coordinates() {
    // Thread t's value v of the (8,128) tile is at row t/16, column v + (t%16)*8.
    let identity = CoordinateLayout::identity(&IntTuple::<SymInt>::ints(&[8, 128])).unwrap();
    let tv: Layout<SymInt> = "((16,8),8):((64,1),8)".parse().unwrap();
    let per_thread = identity.composition(&tv).unwrap();
    for thread in 0..128 {
        for value in 0..8 {
            let coord = ints(&[thread, value]);
            assert_eq!(
                per_thread.evaluate(&coord).unwrap(),
                ints(&[thread / 16, value + (thread % 16) * 8]),
                "thread {thread}, value {value}"
            );
        }
    }
    let thread = Coord::Tuple(vec![Coord::Int(SymInt::constant(17)), Coord::Free]);
    let (values, start) = per_thread.slice(&thread).unwrap();
    assert_eq!(start, ints(&[1, 8]));
    assert_eq!(values.to_string(), "(8):(1@1)");
}

#[test]
fn a_static_shape_that_the_tile_does_not_divide_yields_coordinates_past_its_edge() {
    // 130 rows in tiles of 128: the second tile's rows run on to 255, as the plain
    // (130,64):(1,130) layout's offsets do; predication rejects rows from 130 on.
    let identity = CoordinateLayout::identity(&IntTuple::<SymInt>::ints(&[130, 64])).unwrap();
    let tiles = identity.zipped_divide(&tiler("(128,64)")).unwrap();
    assert_eq!(tiles.to_string(), "((128,64),(2,1)):((1@0,1@1),(128@0,0))");
    let coord = IntTuple::Tuple(vec![ints(&[5, 7]), ints(&[1, 0])]);
    assert_eq!(tiles.evaluate(&coord).unwrap(), ints(&[133, 7]));
}

#[test]
fn bad_operands_are_errors() {
    assert!(CoordinateLayout::identity(&IntTuple::<SymInt>::ints(&[4, 0])).is_err());
    let identity = CoordinateLayout::identity(&IntTuple::<SymInt>::ints(&[4, 6])).unwrap();
    assert!(matches!(
        identity.evaluate(&ints(&[1, 2, 3])),
        Err(LayoutError::Incongruent { .. })
    ));
    assert!(matches!(
        identity.mode(2),
        Err(LayoutError::ModeOutOfRange { .. })
    ));
    assert_eq!(identity.mode(1).unwrap().to_string(), "6:1@1");
    assert!(matches!(
        identity.composition(&tiler("3:3")),
        Err(LayoutError::NotDivisible { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// Composition distributes over the leaves of its right operand, as in CuTe;
    /// for each leaf `s:d`, wherever `identity(S) ∘ s:d` exists, its value at `i` is
    /// the coordinate of S that the offset `d*i` names (for offsets inside S). A sum
    /// over several leaves may cross a mode of S, which basis strides do not carry
    /// into the next mode, so the leaves are checked one by one.
    #[test]
    fn composing_an_identity_names_the_coordinates_of_the_offsets(
        a in compact_layout(),
        b in small_layout(),
    ) {
        let shape = a.shape();
        let identity = CoordinateLayout::identity(shape).unwrap();
        let reference = IdentityLayout::new(shape.clone()).unwrap();
        let size = a.size().unwrap();
        for (extent, stride) in b.shape().leaves().into_iter().zip(b.stride().leaves()) {
            let leaf = Layout::new(IntTuple::Int(extent), IntTuple::Int(stride)).unwrap();
            let Ok(composed) = identity.composition(&leaf.to_symbolic()) else {
                continue;
            };
            for index in 0..extent {
                if stride * index >= size {
                    continue;
                }
                let expected = reference.evaluate(&IntTuple::Int(stride * index)).unwrap();
                let found = composed.evaluate(&IntTuple::Int(SymInt::constant(index))).unwrap();
                prop_assert_eq!(found, expected.to_symbolic(), "{} at {}", composed, index);
            }
        }
    }

    /// The same for slicing: the start coordinate plus the sliced layout's value
    /// is the coordinate the whole layout gives.
    #[test]
    fn slices_of_a_divided_identity_start_where_the_whole_says(
        a in compact_layout(),
        tile in 1_i64..=4,
        rest in 0_i64..=7,
    ) {
        let identity = CoordinateLayout::identity(a.shape()).unwrap();
        let Ok(divided) = identity.zipped_divide(&Tiler::Extent(SymInt::constant(tile))) else {
            return Ok(());
        };
        let rests = divided.mode(1).unwrap().size().unwrap().as_constant().unwrap();
        let rest = rest % rests;
        let coord = Coord::Tuple(vec![Coord::Free, Coord::Int(SymInt::constant(rest))]);
        let (sliced, start) = divided.slice(&coord).unwrap();
        for index in 0..tile {
            let whole = divided
                .evaluate(&IntTuple::Tuple(vec![
                    IntTuple::Int(SymInt::constant(index)),
                    IntTuple::Int(SymInt::constant(rest)),
                ]))
                .unwrap();
            let part = sliced.evaluate(&IntTuple::Int(SymInt::constant(index))).unwrap();
            let sum: Vec<SymInt> = start
                .leaves()
                .iter()
                .zip(part.leaves())
                .map(|(start, part)| layout::Int::add(start, &part).unwrap())
                .collect();
            prop_assert_eq!(whole.leaves(), sum);
        }
    }
}
