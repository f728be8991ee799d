//! Building and rearranging layouts by mode: make_ordered_layout, select, group_modes,
//! append, prepend, flatten, dice, filter_zeros, coalesce by profile and cosize, checked against
//! the values C++ CuTe gives.

use layout::{Coord, Layout, LayoutError, coalesce_by, dice, filter_zeros};

mod notation;

use notation::{int_tuple, layout};

#[test]
fn ordered_layouts_lay_modes_out_by_increasing_order() {
    let shape = int_tuple("(2,3,4)");
    let ordered = |order: &str| Layout::ordered(shape.clone(), &int_tuple(order)).unwrap();
    assert_eq!(ordered("(0,1,2)"), layout("(2,3,4):(1,2,6)"));
    assert_eq!(ordered("(2,1,0)"), layout("(2,3,4):(12,4,1)"));
    assert_eq!(ordered("(1,0,2)"), layout("(2,3,4):(3,1,6)"));
    // An order leaf over a nested mode lays that mode out column-major.
    let nested = Layout::ordered(int_tuple("((2,2),3)"), &int_tuple("(1,0)")).unwrap();
    assert_eq!(nested, layout("((2,2),3):((3,6),1)"));
    assert!(matches!(
        Layout::ordered(shape, &int_tuple("(0,1)")),
        Err(LayoutError::Incongruent { .. })
    ));
}

#[test]
fn select_and_group_modes_rearrange_without_moving_data() {
    let a = layout("(2,3,4):(1,2,6)");
    assert_eq!(a.select(&[2, 0]).unwrap(), layout("(4,2):(6,1)"));
    assert_eq!(a.select(&[1]).unwrap(), layout("(3):(2)"));
    assert!(matches!(
        a.select(&[3]),
        Err(LayoutError::ModeOutOfRange {
            index: 3,
            rank: 3,
            ..
        })
    ));
    assert_eq!(a.group_modes(0, 2).unwrap(), layout("((2,3),4):((1,2),6)"));
    assert_eq!(a.group_modes(1, 3).unwrap(), layout("(2,(3,4)):(1,(2,6))"));
    assert_eq!(a.group_modes(0, 3).unwrap(), layout("((2,3,4)):((1,2,6))"));
    assert!(a.group_modes(2, 2).is_err());
    assert!(a.group_modes(1, 4).is_err());
}

#[test]
fn append_prepend_and_flatten() {
    let a = layout("(2,3):(1,2)");
    let extra = layout("8:24");
    assert_eq!(a.append(&extra).unwrap(), layout("(2,3,8):(1,2,24)"));
    assert_eq!(a.prepend(&extra).unwrap(), layout("(8,2,3):(24,1,2)"));
    // An integer layout is one mode.
    assert_eq!(
        layout("4:1").append(&layout("2:4")).unwrap(),
        layout("(4,2):(1,4)")
    );
    let nested = layout("((2,2),(3,(4,5))):((1,2),(4,(12,48)))");
    assert_eq!(nested.flatten(), layout("(2,2,3,4,5):(1,2,4,12,48)"));
    assert_eq!(layout("7:3").flatten(), layout("7:3"));
}

#[test]
fn dice_keeps_the_modes_under_integers() {
    let a = layout("(4,3,5):(1,4,12)");
    let coord: Coord = "(1,_,2)".parse().unwrap();
    assert_eq!(dice(&coord, &a).unwrap(), layout("(4,5):(1,12)"));
    let coord: Coord = "(_,1,_)".parse().unwrap();
    assert_eq!(dice(&coord, &a).unwrap(), layout("(3):(4)"));
    let everything: Coord = "(_,_,_)".parse().unwrap();
    assert!(dice(&everything, &a).is_err());
}

#[test]
fn filter_zeros_and_coalesce_by_profile() {
    assert_eq!(
        filter_zeros(&layout("(4,2,3):(1,0,4)")).unwrap(),
        layout("(4,1,3):(1,0,4)")
    );
    let a = layout("(2,(1,6)):(1,(6,2))");
    assert_eq!(
        coalesce_by(&a, &int_tuple("(1,1)")).unwrap(),
        layout("(2,6):(1,2)")
    );
    // A profile of rank 1 coalesces the whole layout to one mode.
    assert_eq!(coalesce_by(&a, &int_tuple("1")).unwrap(), layout("12:1"));
}

#[test]
fn cosize_takes_strides_by_absolute_value() {
    // C++ CuTe's coshape: one past the largest |offset| any coordinate reaches.
    assert_eq!(layout("(2,3):(1,2)").cosize(), Ok(6));
    assert_eq!(layout("3:-1").cosize(), Ok(3));
    assert_eq!(layout("(2,3):(4,-1)").cosize(), Ok(7));
    assert_eq!(layout("(4,2):(0,1)").cosize(), Ok(2));
}
