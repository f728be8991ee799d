//! The canonical form's folding, splitting, bounds and text, on small expressions.

use super::*;

fn var(name: &str) -> SymInt {
    SymInt::variable(name)
}

#[test]
fn terms_and_the_constant_split_off() {
    let t = SymInt::variable("t");
    let expr = t
        .mul(&SymInt::constant(8))
        .unwrap()
        .add(&SymInt::constant(3))
        .unwrap();
    let (rest, constant) = expr.split_constant();
    assert_eq!(constant, 3);
    assert_eq!(rest, t.mul(&SymInt::constant(8)).unwrap());
    assert_eq!(rest.terms(), vec![(8, vec![SymFactor::Variable("t")])]);
    assert_eq!(
        SymInt::constant(5).split_constant(),
        (SymInt::constant(0), 5)
    );
}

#[test]
fn expressions_that_differ_in_their_constant_alone_give_the_difference() {
    let eight_t = var("t").mul(&SymInt::constant(8)).unwrap();
    let plus = |constant: i64| eight_t.add(&SymInt::constant(constant)).unwrap();
    assert_eq!(plus(3).constant_difference(&plus(-1)), Some(4));
    assert_eq!(eight_t.constant_difference(&plus(2)), Some(-2));
    assert_eq!(
        SymInt::constant(7).constant_difference(&SymInt::constant(0)),
        Some(7)
    );
    assert_eq!(
        plus(3).constant_difference(&var("t").add(&SymInt::constant(3)).unwrap()),
        None
    );
    assert_eq!(
        SymInt::constant(i64::MIN).constant_difference(&SymInt::constant(1)),
        None
    );
}

#[test]
fn provable_divisor_skips_assumed_terms() {
    let offset = Int::add(
        &Int::mul(
            &SymInt::constant(8),
            &Int::mul(&var("k"), &var("b")).unwrap(),
        )
        .unwrap(),
        &Int::mul(&SymInt::constant(12), &var("t")).unwrap(),
    )
    .unwrap();
    assert_eq!(offset.provable_divisor(&|_| false), 4);
    assert_eq!(offset.provable_divisor(&|name| name == "k"), 12);
    assert_eq!(offset.provable_divisor(&|_| true), 0);
    assert_eq!(SymInt::constant(6).provable_divisor(&|_| false), 6);
}

#[test]
fn products_that_expand_past_the_term_limit_are_refused() {
    let sum = (0..16)
        .map(|i| var(&format!("a{i}")))
        .try_fold(SymInt::constant(0), |sum, term| Int::add(&sum, &term))
        .unwrap();
    let square = Int::mul(&sum, &sum).unwrap();
    assert_eq!(square.terms().len(), 136);
    let fourth = Int::mul(&square, &square);
    assert!(
        matches!(
            fourth,
            Err(LayoutError::TooManyTerms {
                terms: 18496,
                limit: MAX_SYMBOLIC_TERMS
            })
        ),
        "{fourth:?}"
    );
}

#[test]
fn constants_fold_and_products_are_canonical() {
    let six = Int::mul(&SymInt::constant(2), &SymInt::constant(3)).unwrap();
    assert_eq!(six.as_constant(), Some(6));
    assert_eq!(Int::mul(&var("m"), &SymInt::constant(1)).unwrap(), var("m"));
    let mk = Int::mul(&var("m"), &var("k")).unwrap();
    assert_eq!(mk, Int::mul(&var("k"), &var("m")).unwrap());
    assert_eq!(mk.to_string(), "k*m");
    let eight_k = Int::mul(&SymInt::constant(8), &var("k")).unwrap();
    assert_eq!(eight_k.to_string(), "8*k");
}

#[test]
fn divisions_fold_when_exact_and_stay_symbolic_otherwise() {
    let m = var("m");
    assert_eq!(
        m.ceil_div(&SymInt::constant(8)).unwrap().to_string(),
        "ceil_div(m,8)"
    );
    let eight_m = Int::mul(&m, &SymInt::constant(8)).unwrap();
    assert_eq!(eight_m.ceil_div(&SymInt::constant(8)).unwrap(), m);
    assert_eq!(
        Int::rem(&eight_m, &SymInt::constant(4))
            .unwrap()
            .as_constant(),
        Some(0)
    );
    assert!(Int::div(&m, &SymInt::constant(0)).is_err());
}

#[test]
fn sums_print_with_signs_and_substitute() {
    let expression = Int::sub(
        &Int::mul(&var("i"), &var("k")).unwrap(),
        &SymInt::constant(3),
    )
    .unwrap();
    assert_eq!(expression.to_string(), "i*k-3");
    let value_of = |name: &str| match name {
        "i" => Some(4),
        "k" => Some(5),
        _ => None,
    };
    assert_eq!(
        expression.substitute(&value_of).unwrap().as_constant(),
        Some(17)
    );
}
