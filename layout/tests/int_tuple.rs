//! Int-tuple arithmetic: prefix and inner products, shape_div, ceil_div, coordinates.

use layout::{
    IntTuple, Layout, LayoutError, ceil_div, crd2idx, elem_less, idx2crd, inner_product,
    prefix_product, product_each, shape_div,
};

fn t(values: &[i64]) -> IntTuple {
    IntTuple::ints(values)
}

#[test]
fn prefix_and_inner_products() {
    assert_eq!(
        prefix_product(&t(&[2, 3, 4]), &IntTuple::int(1)),
        Ok(t(&[1, 2, 6]))
    );
    let row_major = Layout::<i64>::row_major(t(&[2, 3, 4])).unwrap();
    assert_eq!(row_major.stride(), &t(&[12, 4, 1]));
    // C++ gives a static extent-1 mode stride 0.
    let column_major = Layout::<i64>::column_major(t(&[4, 1, 2])).unwrap();
    assert_eq!(column_major.stride(), &t(&[1, 0, 4]));
    assert_eq!(inner_product(&t(&[1, 2]), &t(&[3, 4])), Ok(11));
    assert!(inner_product(&t(&[1, 2]), &t(&[3])).is_err());
}

#[test]
fn shape_div_and_ceil_div_follow_cute() {
    assert_eq!(shape_div(&t(&[3, 4]), &IntTuple::int(6)), Ok(t(&[1, 2])));
    assert_eq!(
        shape_div(&IntTuple::<i64>::int(2), &IntTuple::int(8)),
        Ok(IntTuple::int(1))
    );
    assert!(matches!(
        shape_div(&IntTuple::<i64>::int(6), &IntTuple::int(4)),
        Err(LayoutError::NotDivisible { .. })
    ));
    assert_eq!(ceil_div(&t(&[3, 3]), &IntTuple::int(2)), Ok(t(&[2, 3])));
    assert_eq!(ceil_div(&t(&[5, 7]), &t(&[2])), Ok(t(&[3, 7])));
}

#[test]
fn coordinates_round_trip() {
    let shape = t(&[2, 3]);
    let stride = t(&[1, 2]);
    assert_eq!(idx2crd(&IntTuple::int(5), &shape), Ok(t(&[1, 2])));
    assert_eq!(crd2idx(&t(&[1, 2]), &shape, &stride), Ok(5));
    assert_eq!(crd2idx(&IntTuple::int(5), &shape, &stride), Ok(5));
    // Past the end, the last mode extends (CuTe): 7 is (1, 3) in (2, 3).
    assert_eq!(crd2idx(&IntTuple::int(7), &shape, &stride), Ok(7));
    assert_eq!(crd2idx(&IntTuple::int(7), &shape, &t(&[3, 1])), Ok(3 + 3));
    assert!(matches!(
        crd2idx(&IntTuple::int(-1), &shape, &stride),
        Err(LayoutError::CoordinateOutOfRange { .. })
    ));
    assert_eq!(elem_less(&t(&[1, 2]), &t(&[2, 3])), Ok(true));
    assert_eq!(
        product_each(&IntTuple::Tuple(vec![t(&[2, 3]), IntTuple::int(4)])),
        Ok(t(&[6, 4]))
    );
}
