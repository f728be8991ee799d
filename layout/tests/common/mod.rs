//! Shared proptest generators of small random layouts for the property tests.

#![allow(dead_code)]

use layout::{Coord, IntTuple, Layout};
use proptest::prelude::*;

/// A tree of `(extent, stride)` leaves: depth at most 3, rank at most 4.
#[derive(Clone, Debug)]
pub enum Tree {
    Leaf(i64, i64),
    Node(Vec<Tree>),
}

fn tree(
    extents: std::ops::RangeInclusive<i64>,
    strides: std::ops::RangeInclusive<i64>,
) -> impl Strategy<Value = Tree> {
    let leaf = (extents, strides).prop_map(|(extent, stride)| Tree::Leaf(extent, stride));
    leaf.prop_recursive(3, 12, 4, |inner| {
        prop::collection::vec(inner, 1..=4).prop_map(Tree::Node)
    })
}

fn split(tree: &Tree) -> (IntTuple, IntTuple) {
    match tree {
        Tree::Leaf(extent, stride) => (IntTuple::Int(*extent), IntTuple::Int(*stride)),
        Tree::Node(children) => {
            let (shapes, strides) = children.iter().map(split).unzip();
            (IntTuple::Tuple(shapes), IntTuple::Tuple(strides))
        }
    }
}

fn to_layout(tree: &Tree) -> Layout {
    let (shape, stride) = split(tree);
    Layout::new(shape, stride).expect("generated layouts are valid")
}

/// Random small layouts: extents 1..=4, strides 0..=24, at most 512 elements.
pub fn small_layout() -> impl Strategy<Value = Layout> {
    tree(1..=4, 0..=24)
        .prop_map(|tree| to_layout(&tree))
        .prop_filter("at most 512 elements", |layout| {
            layout.size().is_ok_and(|size| size <= 512)
        })
}

/// Random small layouts with positive strides.
pub fn positive_layout() -> impl Strategy<Value = Layout> {
    tree(1..=4, 1..=24)
        .prop_map(|tree| to_layout(&tree))
        .prop_filter("at most 512 elements", |layout| {
            layout.size().is_ok_and(|size| size <= 512)
        })
}

/// Random compact layouts (column-major, row-major or ordered) of small shapes: the
/// usual left operands of composition and division.
pub fn compact_layout() -> impl Strategy<Value = Layout> {
    (tree(1..=6, 0..=0), any::<bool>())
        .prop_map(|(tree, right)| {
            let (shape, _) = split(&tree);
            if right {
                Layout::row_major(shape)
            } else {
                Layout::column_major(shape)
            }
            .expect("valid shape")
        })
        .prop_filter("at most 1024 elements", |layout| {
            layout.size().is_ok_and(|size| size <= 1024)
        })
}

/// A coordinate congruent with `shape` whose leaves (or whole modes) are fixed at
/// values chosen by `choices`, or `_`.
pub fn coordinate(shape: &IntTuple, choices: &mut impl Iterator<Item = (bool, i64)>) -> Coord {
    let (free, value) = choices.next().unwrap_or((false, 0));
    match shape {
        _ if free => Coord::Free,
        IntTuple::Int(extent) => Coord::Int(value.rem_euclid(*extent)),
        IntTuple::Tuple(modes) => {
            Coord::Tuple(modes.iter().map(|mode| coordinate(mode, choices)).collect())
        }
    }
}

/// All values of a static layout.
pub fn image(layout: &Layout) -> Vec<i64> {
    layout.table(1 << 16).expect("small static layout")
}
