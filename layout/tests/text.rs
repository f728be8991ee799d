//! Parsing and printing CuTe notation: round trips, symbolic leaves, errors with columns.

use layout::{Coord, IntTuple, Layout, LayoutError, MAX_DEPTH, SymInt, Tiler};

#[test]
fn layouts_round_trip() {
    for text in [
        "((2,2),3):((1,4),8)",
        "4:1",
        "(4):(1)",
        "(4,8):(8,1)",
        "3:-1",
    ] {
        let layout: Layout = text.parse().unwrap();
        assert_eq!(layout.to_string(), text);
    }
    let compact: Layout = " ( 4 , (2 ,3) ) ".parse().unwrap();
    assert_eq!(compact.to_string(), "(4,(2,3)):(1,(4,8))");
    assert_eq!("(4,)".parse::<Layout>().unwrap().to_string(), "(4):(1)");
}

#[test]
fn layouts_printed_by_cute_parse() {
    // C++ CuTe prints compile-time integers with a leading underscore.
    let printed: Layout = "((_2,_2),_3):((_1,_4),_8)".parse().unwrap();
    assert_eq!(printed.to_string(), "((2,2),3):((1,4),8)");
    let negative: Layout = "(_4,_2):(_-1,_0)".parse().unwrap();
    assert_eq!(negative.to_string(), "(4,2):(-1,0)");
    // `_` alone is still the slicing placeholder, and `_k` a name.
    assert_eq!("(_,_2)".parse::<Coord>().unwrap().to_string(), "(_,2)");
    assert_eq!(
        "(_k,4):(1,_k)"
            .parse::<Layout<SymInt>>()
            .unwrap()
            .to_string(),
        "(_k,4):(1,_k)"
    );
}

#[test]
fn symbolic_layouts_parse() {
    let layout: Layout<SymInt> = "(m,k):(k,1)".parse().unwrap();
    assert_eq!(layout.to_string(), "(m,k):(k,1)");
    let folded: Layout<SymInt> = "(2*3,ceil_div(m,8)):(1,8*k*1)".parse().unwrap();
    assert_eq!(folded.to_string(), "(6,ceil_div(m,8)):(1,8*k)");
    assert!("(m,k):(k,1)".parse::<Layout>().is_err());
    // `_` is the slicing wildcard, never a variable inside an expression.
    assert_eq!(
        "4+_".parse::<Layout<SymInt>>().unwrap_err().to_string(),
        "at column 3: expected an integer, a name or `(`, found `_`"
    );
    assert!("(m,_*2)".parse::<Layout<SymInt>>().is_err());
}

#[test]
fn tilers_and_coords() {
    let tiler: Tiler = "<4:1,_,(2,3):(3,1)>".parse().unwrap();
    assert_eq!(tiler.to_string(), "(4:1,_,(2,3):(3,1))");
    assert_eq!("(4,2)".parse::<Tiler>().unwrap().to_string(), "(4,2)");
    assert_eq!(
        "(_,(1,_))".parse::<Coord>().unwrap().to_string(),
        "(_,(1,_))"
    );
}

#[test]
fn errors_name_the_column() {
    let error = "(4,2):(1,".parse::<Layout>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "at column 10: expected an integer, a name or `(`, found end of input"
    );
    let error = "(4 2)".parse::<IntTuple>().unwrap_err();
    assert_eq!(error.to_string(), "at column 4: expected `)`, found `2`");
    assert!(matches!(
        "99999999999999999999".parse::<IntTuple>(),
        Err(LayoutError::Parse { column: 1, .. })
    ));
    let deep = format!("{}1{}", "(".repeat(40), ")".repeat(40));
    assert_eq!(
        deep.parse::<IntTuple>(),
        Err(LayoutError::TooDeep { limit: MAX_DEPTH })
    );
    assert!("(4,2):(1,2,3)".parse::<Layout>().is_err());
    assert!("(0,2)".parse::<Layout>().is_err());
    assert!("()".parse::<Layout>().is_err());
}
