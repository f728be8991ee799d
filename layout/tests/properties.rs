//! Algebraic properties of the layout operations on random small layouts.

mod common;

use std::collections::BTreeSet;

use common::{compact_layout, coordinate, image, positive_layout, small_layout};
use layout::{
    Coord, IntTuple, Layout, LayoutError, SymInt, Tiler, coalesce, complement, composition, filter,
    filter_zeros, idx2crd, left_inverse, logical_divide, logical_product, right_inverse,
    slice_and_offset,
};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn at(layout: &Layout, index: i64) -> i64 {
    layout.evaluate_index(&index).unwrap()
}

fn size(layout: &Layout) -> i64 {
    layout.size().unwrap()
}

/// Replaces each `_` leaf of `coord`, in order, by the next mode of `fill`.
fn fill_free(coord: &Coord, fill: &mut impl Iterator<Item = IntTuple>) -> IntTuple {
    match coord {
        Coord::Int(value) => IntTuple::Int(*value),
        Coord::Free => fill.next().unwrap(),
        Coord::Tuple(items) => {
            IntTuple::Tuple(items.iter().map(|item| fill_free(item, fill)).collect())
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_table_is_the_layout_at_each_index(a in small_layout()) {
        let table = a.table(1 << 16).unwrap();
        prop_assert_eq!(table.len() as i64, size(&a));
        for (index, offset) in table.iter().enumerate() {
            prop_assert_eq!(*offset, at(&a, index as i64));
        }
    }

    #[test]
    fn coalesce_keeps_the_function(a in small_layout()) {
        let coalesced = coalesce(&a).unwrap();
        prop_assert!(coalesced.depth() <= 1);
        prop_assert_eq!(size(&coalesced), size(&a));
        for index in 0..size(&a) {
            prop_assert_eq!(at(&coalesced, index), at(&a, index));
        }
    }

    #[test]
    fn filter_keeps_the_image(a in small_layout()) {
        let filtered = filter(&a).unwrap();
        let zeroed = filter_zeros(&a).unwrap();
        prop_assert_eq!(size(&filtered), size(&zeroed));
        for index in 0..size(&zeroed) {
            prop_assert_eq!(at(&filtered, index), at(&zeroed, index));
        }
        let expected: BTreeSet<i64> = image(&a).into_iter().collect();
        let found: BTreeSet<i64> = image(&filtered).into_iter().collect();
        prop_assert_eq!(found, expected);
    }

    #[test]
    fn composition_with_one_mode_is_function_composition(
        a in compact_layout(),
        extent in 1_i64..=12,
        stride in 0_i64..=12,
    ) {
        let b = Layout::new(IntTuple::Int(extent), IntTuple::Int(stride)).unwrap();
        prop_assume!(b.cosize().unwrap() <= size(&a));
        match composition(&a, &b) {
            Ok(composed) => {
                prop_assert_eq!(size(&composed), extent);
                for index in 0..extent {
                    prop_assert_eq!(at(&composed, index), at(&a, at(&b, index)), "{} o {} = {}", a, b, composed);
                }
            }
            Err(error) => prop_assert!(matches!(error, LayoutError::NotDivisible { .. }), "{}", error),
        }
    }

    #[test]
    fn composition_distributes_over_the_modes_of_b(a in compact_layout(), b in small_layout()) {
        prop_assume!(b.cosize().unwrap() <= size(&a));
        if let Ok(composed) = composition(&a, &b) {
            prop_assert_eq!(size(&composed), size(&b));
            prop_assert!(b.shape().compatible(composed.shape()).unwrap());
            if !b.shape().is_int() {
                for (index, mode) in b.modes().iter().enumerate() {
                    prop_assert_eq!(composed.mode(index).unwrap(), composition(&a, mode).unwrap());
                }
            }
        }
    }

    #[test]
    fn complement_is_disjoint_and_ordered(a in positive_layout(), extra in 1_i64..64) {
        let cotarget = a.cosize().unwrap() + extra;
        let Ok(rest) = complement(&a, Some(&IntTuple::Int(cotarget))) else {
            return Ok(());
        };
        let taken: BTreeSet<i64> = image(&a).into_iter().collect();
        let mut previous = -1;
        for index in 0..size(&rest) {
            let value = at(&rest, index);
            prop_assert!(value > previous, "complement {} is not increasing", rest);
            previous = value;
            if index > 0 {
                prop_assert!(!taken.contains(&value), "complement {} meets the image of {}", rest, a);
            }
        }
        // C++ CuTe's size postcondition holds when each stride, in increasing order, is a
        // multiple of the extent reached by the smaller modes.
        let filtered = filter(&a).unwrap();
        let mut modes: Vec<(i64, i64)> = filtered.shape().leaves().into_iter().zip(filtered.stride().leaves()).collect();
        modes.sort_by_key(|&(_, stride)| stride);
        let mut reached = 1;
        let mut exact = true;
        for (extent, stride) in modes {
            exact &= stride % reached == 0;
            reached = extent * stride;
        }
        if exact {
            prop_assert!(size(&rest) * size(&filtered) >= cotarget, "{} is too small for {}", rest, a);
        }
    }

    #[test]
    fn right_inverse_is_a_right_inverse(a in small_layout()) {
        let inverse = right_inverse(&a).unwrap();
        for index in 0..size(&inverse) {
            prop_assert_eq!(at(&a, at(&inverse, index)), index);
        }
    }

    #[test]
    fn left_inverse_is_a_quasi_inverse(a in small_layout()) {
        let values = image(&a);
        let injective = values.iter().collect::<BTreeSet<_>>().len() == values.len();
        let filtered = image(&filter(&a).unwrap());
        let broadcast_only = filtered.iter().collect::<BTreeSet<_>>().len() == filtered.len();
        match left_inverse(&a) {
            Ok(inverse) => {
                for (index, value) in values.iter().enumerate() {
                    if injective {
                        prop_assert_eq!(at(&inverse, *value), index as i64, "{} does not invert {}", inverse, a);
                    } else if broadcast_only {
                        // C++ promises a(l(a(i))) == a(i); it holds when only stride-0 modes
                        // make `a` non-injective.
                        let back = at(&inverse, *value);
                        prop_assert_eq!(at(&a, back), *value, "{} is no quasi-inverse of {}", inverse, a);
                    }
                }
            }
            Err(error) => prop_assert!(matches!(error, LayoutError::NotDivisible { .. }), "{}", error),
        }
    }

    #[test]
    fn logical_divide_is_composition_with_the_completed_tiler(a in compact_layout(), b in positive_layout()) {
        let Ok(divided) = logical_divide(&a, &b) else { return Ok(()); };
        let rest = complement(&b, Some(coalesce(&a).unwrap().shape())).unwrap();
        let completed = Layout::from_modes(vec![b.clone(), rest]).unwrap();
        prop_assert_eq!(&divided, &composition(&a, &completed).unwrap());
        prop_assert_eq!(divided.mode(0).unwrap(), composition(&a, &b).unwrap());
    }

    #[test]
    fn logical_product_repeats_the_block(a in positive_layout(), b in compact_layout()) {
        let Ok(product) = logical_product(&a, &b) else { return Ok(()); };
        prop_assert_eq!(product.mode(0).unwrap(), a.clone());
        let cotarget = IntTuple::Int(size(&a) * b.cosize().unwrap());
        let repeat = composition(&complement(&a, Some(&cotarget)).unwrap(), &b).unwrap();
        prop_assert_eq!(product.mode(1).unwrap(), repeat);
        prop_assert_eq!(size(&product), size(&a) * size(&b));
    }

    #[test]
    fn slicing_agrees_with_evaluation(
        a in small_layout(),
        choices in prop::collection::vec((any::<bool>(), 0_i64..8), 64),
    ) {
        let coord = coordinate(a.shape(), &mut choices.into_iter());
        if !coord.has_free() || matches!(coord, Coord::Free) {
            return Ok(());
        }
        let (sliced, offset) = slice_and_offset(&coord, &a).unwrap();
        for index in 0..size(&sliced) {
            let natural = idx2crd(&IntTuple::Int(index), sliced.shape()).unwrap();
            let full = fill_free(&coord, &mut natural.modes().into_iter());
            prop_assert_eq!(a.evaluate(&full).unwrap(), offset + at(&sliced, index));
        }
    }

    #[test]
    fn printing_round_trips(a in small_layout()) {
        let text = a.to_string();
        prop_assert!(!text.contains(' '));
        prop_assert_eq!(text.parse::<Layout>().unwrap(), a.clone());
        let tiler = Tiler::Modes(vec![Tiler::Layout(a.clone()), Tiler::Keep]);
        prop_assert_eq!(tiler.to_string().parse::<Tiler>().unwrap(), tiler);
    }

    #[test]
    fn symbolic_evaluation_matches_static(a in small_layout(), index in 0_i64..512) {
        // Every shape leaf becomes a variable s0, s1, ...; substituting gives `a` back.
        let mut leaves = Vec::new();
        let mut count = 0;
        let symbolic = a.try_map(&mut |value: &i64| {
            leaves.push(*value);
            count += 1;
            Ok(SymInt::variable(&format!("s{}", count - 1)))
        }).unwrap();
        let layout_size = size(&a);
        let index = index % layout_size;
        let value = symbolic.evaluate_index(&SymInt::constant(index)).unwrap();
        let value_of = |name: &str| name.strip_prefix('s')?.parse::<usize>().ok().and_then(|i| leaves.get(i).copied());
        prop_assert_eq!(value.substitute(&value_of).unwrap().as_constant(), Some(at(&a, index)));
    }

    #[test]
    fn symbolic_divide_matches_static(
        extents in (1_i64..40, 1_i64..40),
        strides in (0_i64..50, 0_i64..50),
        tile in (1_i64..9, 1_i64..9),
    ) {
        let concrete = Layout::new(IntTuple::ints(&[extents.0, extents.1]), IntTuple::ints(&[strides.0, strides.1])).unwrap();
        let symbolic: Layout<SymInt> = "(m,n):(dm,dn)".parse().unwrap();
        let tiler_text = format!("({},{})", tile.0, tile.1);
        let expected = logical_divide(&concrete, &tiler_text.parse::<Tiler>().unwrap()).unwrap();
        let divided = logical_divide(&symbolic, &tiler_text.parse::<Tiler<SymInt>>().unwrap()).unwrap();
        let value_of = |name: &str| match name {
            "m" => Some(extents.0),
            "n" => Some(extents.1),
            "dm" => Some(strides.0),
            "dn" => Some(strides.1),
            _ => None,
        };
        let substituted = divided.substitute(&value_of).unwrap().to_static().unwrap();
        // Static folding may drop the stride of a size-1 mode; the functions agree.
        prop_assert_eq!(substituted.shape(), expected.shape());
        prop_assert_eq!(image(&substituted), image(&expected));
    }
}
