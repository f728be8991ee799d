//! Layouts, tilers and int-tuples read from CuTe's notation, as the tests write their
//! inputs and expected values.

// Each test binary uses part of it.
#![allow(dead_code)]

use layout::{IntTuple, Layout, Tiler};

pub fn layout(text: &str) -> Layout {
    text.parse().unwrap()
}

pub fn tiler(text: &str) -> Tiler {
    text.parse().unwrap()
}

pub fn int_tuple(text: &str) -> IntTuple {
    text.parse().unwrap()
}
