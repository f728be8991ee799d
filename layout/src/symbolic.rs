//! Symbolic run-time integers: polynomials over named variables.
//!
//! A [`SymInt`] is kept in a canonical form, a sum of terms `coefficient * factor * ...`
//! where a factor is a variable (`m`) or an operation that could not be folded
//! (`ceil_div(m,8)`, `div(i,k)`, `mod(i,k)`). Constants fold (`2*3` is `6`), products
//! distribute over sums, and like terms merge, so `m*1` is `m` and `k*m` equals `m*k`.
//! Run-time variables are assumed positive, as run-time extents are.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use crate::LayoutError;
use crate::int::{Int, overflow};

/// Most terms a product of two [`SymInt`]s may expand to before like terms merge.
/// Distributing products over sums grows exponentially (`(a + b + c + d)^8`); kernel
/// index arithmetic stays far below this.
pub const MAX_SYMBOLIC_TERMS: usize = 4096;

/// A symbolic integer expression over run-time variables, in canonical form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SymInt {
    /// Terms ordered by [`Term::order`], none with coefficient 0, no two alike.
    terms: Vec<Term>,
}

/// A factor of a [`SymInt`] term, as [`SymInt::terms`] shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymFactor<'a> {
    /// A run-time variable.
    Variable(&'a str),
    /// `ceil_div(a, b)`.
    CeilDiv(&'a SymInt, &'a SymInt),
    /// `a / b`, rounding toward zero.
    Div(&'a SymInt, &'a SymInt),
    /// `a % b`.
    Mod(&'a SymInt, &'a SymInt),
}

/// `coefficient * factors[0] * factors[1] * ...`, factors sorted.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Term {
    coefficient: i64,
    factors: Vec<Factor>,
}

/// A factor of a term that arithmetic could not fold further. Its parts are shared,
/// not owned: index arithmetic copies terms in every sum and product, and a copy of
/// a factor is then a reference count, not a string or a nested expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Factor {
    Variable(Arc<str>),
    CeilDiv(Arc<SymInt>, Arc<SymInt>),
    Div(Arc<SymInt>, Arc<SymInt>),
    Mod(Arc<SymInt>, Arc<SymInt>),
}

impl PartialOrd for SymInt {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for SymInt {
    fn cmp(&self, other: &Self) -> Ordering {
        self.terms
            .iter()
            .map(Term::order)
            .cmp(other.terms.iter().map(Term::order))
            .then_with(|| {
                let left = self.terms.iter().map(|term| term.coefficient);
                left.cmp(other.terms.iter().map(|term| term.coefficient))
            })
    }
}

impl Term {
    /// Higher-degree terms first, the constant term last.
    fn order(&self) -> (std::cmp::Reverse<usize>, &[Factor]) {
        (std::cmp::Reverse(self.factors.len()), &self.factors)
    }
}

impl SymInt {
    /// The constant `value`.
    pub fn constant(value: i64) -> SymInt {
        let terms = if value == 0 {
            Vec::new()
        } else {
            vec![Term {
                coefficient: value,
                factors: Vec::new(),
            }]
        };
        SymInt { terms }
    }

    /// The run-time variable `name`.
    pub fn variable(name: &str) -> SymInt {
        SymInt::from_factor(Factor::Variable(name.into()))
    }

    fn from_factor(factor: Factor) -> SymInt {
        SymInt {
            terms: vec![Term {
                coefficient: 1,
                factors: vec![factor],
            }],
        }
    }

    /// The value, if this expression is a constant.
    pub fn as_constant(&self) -> Option<i64> {
        match self.terms.as_slice() {
            [] => Some(0),
            [
                Term {
                    coefficient,
                    factors,
                },
            ] if factors.is_empty() => Some(*coefficient),
            _ => None,
        }
    }

    /// Each term of the canonical form as an expression of its own: keys for code
    /// that computes the terms one by one and shares them between expressions.
    pub fn split_terms(&self) -> Vec<SymInt> {
        (self.terms.iter())
            .map(|term| SymInt {
                terms: vec![term.clone()],
            })
            .collect()
    }

    /// The terms of the canonical form, each a coefficient and its factors (none for
    /// the constant term), for code that evaluates the expression at run time.
    pub fn terms(&self) -> Vec<(i64, Vec<SymFactor<'_>>)> {
        self.terms
            .iter()
            .map(|term| {
                let factors = term
                    .factors
                    .iter()
                    .map(|factor| match factor {
                        Factor::Variable(name) => SymFactor::Variable(name),
                        Factor::CeilDiv(a, b) => SymFactor::CeilDiv(a, b),
                        Factor::Div(a, b) => SymFactor::Div(a, b),
                        Factor::Mod(a, b) => SymFactor::Mod(a, b),
                    })
                    .collect();
                (term.coefficient, factors)
            })
            .collect()
    }

    /// The constant term and the rest: `8*t+3` is `(8*t, 3)`.
    pub fn split_constant(&self) -> (SymInt, i64) {
        let mut rest = self.clone();
        let constant = match rest.terms.last() {
            Some(term) if term.factors.is_empty() => term.coefficient,
            _ => 0,
        };
        if constant != 0 {
            rest.terms.pop();
        }
        (rest, constant)
    }

    /// The names of the variables this expression mentions, sorted, without repeats.
    pub fn variables(&self) -> Vec<String> {
        let mut names = Vec::new();
        self.collect_variables(&mut names);
        names.sort();
        names.dedup();
        names
    }

    fn collect_variables(&self, names: &mut Vec<String>) {
        for factor in self.terms.iter().flat_map(|term| &term.factors) {
            match factor {
                Factor::Variable(name) => names.push(name.to_string()),
                Factor::CeilDiv(a, b) | Factor::Div(a, b) | Factor::Mod(a, b) => {
                    a.collect_variables(names);
                    b.collect_variables(names);
                }
            }
        }
    }

    /// Splits this linear form over the variables `is_basis` selects: for each such
    /// variable, the sum of the terms it appears in, divided by it (a coefficient that
    /// may itself be symbolic), plus the remaining terms. `None` when a term holds two
    /// selected variables or one inside an unfolded operation: then the expression is
    /// not linear in them.
    pub fn split_linear(
        &self,
        is_basis: &dyn Fn(&str) -> bool,
    ) -> Option<(Vec<(String, SymInt)>, SymInt)> {
        let mut components: Vec<(String, Vec<Term>)> = Vec::new();
        let mut rest = Vec::new();
        for term in &self.terms {
            let mut basis = None;
            let mut others = Vec::with_capacity(term.factors.len());
            for factor in &term.factors {
                match factor {
                    Factor::Variable(name) if is_basis(name) => {
                        if basis.replace(name.to_string()).is_some() {
                            return None;
                        }
                    }
                    Factor::CeilDiv(a, b) | Factor::Div(a, b) | Factor::Mod(a, b)
                        if [a, b].iter().any(|operand| {
                            operand.variables().iter().any(|name| is_basis(name))
                        }) =>
                    {
                        return None;
                    }
                    other => others.push(other.clone()),
                }
            }
            let coefficient = Term {
                coefficient: term.coefficient,
                factors: others,
            };
            match basis {
                None => rest.push(coefficient),
                Some(name) => match components.iter_mut().find(|(known, _)| *known == name) {
                    Some((_, terms)) => terms.push(coefficient),
                    None => components.push((name, vec![coefficient])),
                },
            }
        }
        let components = components
            .into_iter()
            .map(|(name, terms)| Some((name, SymInt::normalized(terms).ok()?)))
            .collect::<Option<_>>()?;
        Some((components, SymInt::normalized(rest).ok()?))
    }

    /// The largest `d` such that this expression is provably a multiple of `d`: the
    /// greatest common divisor of its terms' coefficients. Terms holding a variable
    /// for which `assumed_multiple` is true count as multiples of anything (the caller
    /// assumes, and checks elsewhere, that such variables are suitably aligned).
    /// `0` when every term is such a term or the expression is `0`.
    pub fn provable_divisor(&self, assumed_multiple: &dyn Fn(&str) -> bool) -> u64 {
        self.terms
            .iter()
            .filter(|term| {
                !term.factors.iter().any(
                    |factor| matches!(factor, Factor::Variable(name) if assumed_multiple(name)),
                )
            })
            .fold(0, |divisor, term| {
                gcd(divisor, term.coefficient.unsigned_abs())
            })
    }

    /// The value when every variable has one from `value_of`: a number, computed
    /// without building symbolic intermediates (`None` on a missing variable, a
    /// division by zero or an overflow). Division rounds toward zero, `ceil_div`
    /// rounds up, as they do on constants.
    pub fn evaluate(&self, value_of: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
        let mut sum: i64 = 0;
        for term in &self.terms {
            let mut product = term.coefficient;
            for factor in &term.factors {
                let value = match factor {
                    Factor::Variable(name) => value_of(name)?,
                    Factor::CeilDiv(a, b) => {
                        let (a, b) = (a.evaluate(value_of)?, b.evaluate(value_of)?);
                        a.checked_add(b.checked_sub(1)?)?.checked_div(b)?
                    }
                    Factor::Div(a, b) => {
                        a.evaluate(value_of)?.checked_div(b.evaluate(value_of)?)?
                    }
                    Factor::Mod(a, b) => {
                        a.evaluate(value_of)?.checked_rem(b.evaluate(value_of)?)?
                    }
                };
                product = product.checked_mul(value)?;
            }
            sum = sum.checked_add(product)?;
        }
        Some(sum)
    }

    /// Replaces every variable for which `value_of` gives a value, folding the result.
    pub fn substitute(
        &self,
        value_of: &dyn Fn(&str) -> Option<i64>,
    ) -> Result<SymInt, LayoutError> {
        let mut sum = SymInt::constant(0);
        for term in &self.terms {
            let mut product = SymInt::constant(term.coefficient);
            for factor in &term.factors {
                let value = match factor {
                    Factor::Variable(name) => match value_of(name) {
                        Some(value) => SymInt::constant(value),
                        None => SymInt::variable(name),
                    },
                    Factor::CeilDiv(a, b) => {
                        a.substitute(value_of)?.ceil_div(&b.substitute(value_of)?)?
                    }
                    Factor::Div(a, b) => {
                        Int::div(&a.substitute(value_of)?, &b.substitute(value_of)?)?
                    }
                    Factor::Mod(a, b) => {
                        Int::rem(&a.substitute(value_of)?, &b.substitute(value_of)?)?
                    }
                };
                product = Int::mul(&product, &value)?;
            }
            sum = Int::add(&sum, &product)?;
        }
        Ok(sum)
    }

    /// Sorts terms, merges like terms and drops zero terms.
    fn normalized(mut terms: Vec<Term>) -> Result<SymInt, LayoutError> {
        for term in &mut terms {
            term.factors.sort();
        }
        terms.sort_by(|a, b| a.order().cmp(&b.order()));
        let mut merged: Vec<Term> = Vec::with_capacity(terms.len());
        for term in terms {
            match merged.last_mut() {
                Some(last) if last.factors == term.factors => {
                    last.coefficient =
                        last.coefficient
                            .checked_add(term.coefficient)
                            .ok_or_else(|| {
                                overflow(
                                    "symbolic addition",
                                    format!("{} + {}", last.coefficient, term.coefficient),
                                )
                            })?;
                }
                _ => merged.push(term),
            }
        }
        merged.retain(|term| term.coefficient != 0);
        Ok(SymInt { terms: merged })
    }

    /// `self / divisor` when it is exact term by term (the divisor a single term whose
    /// coefficient and factors divide every term of `self`).
    fn exact_quotient(&self, divisor: &SymInt) -> Option<SymInt> {
        let [divisor_term] = divisor.terms.as_slice() else {
            return None;
        };
        let mut terms = Vec::with_capacity(self.terms.len());
        for term in &self.terms {
            if term.coefficient.checked_rem(divisor_term.coefficient)? != 0 {
                return None;
            }
            let mut factors = term.factors.clone();
            for factor in &divisor_term.factors {
                let position = factors.iter().position(|candidate| candidate == factor)?;
                factors.remove(position);
            }
            let coefficient = term.coefficient.checked_div(divisor_term.coefficient)?;
            terms.push(Term {
                coefficient,
                factors,
            });
        }
        SymInt::normalized(terms).ok()
    }

    /// `self + constant` (`constant` not 0) without sorting: the constant term is the
    /// last of a canonical form. `constant_first` orders an overflow's message as
    /// the sorted sum would (the left operand's term first).
    fn plus_constant(&self, constant: i64, constant_first: bool) -> Result<SymInt, LayoutError> {
        let mut terms = self.terms.clone();
        match terms.last_mut() {
            Some(last) if last.factors.is_empty() => {
                let (a, b) = if constant_first {
                    (constant, last.coefficient)
                } else {
                    (last.coefficient, constant)
                };
                last.coefficient = a
                    .checked_add(b)
                    .ok_or_else(|| overflow("symbolic addition", format!("{a} + {b}")))?;
                if last.coefficient == 0 {
                    terms.pop();
                }
            }
            _ => terms.push(Term {
                coefficient: constant,
                factors: Vec::new(),
            }),
        }
        Ok(SymInt { terms })
    }

    /// Whether both operands are constants: arithmetic on them folds at once, where
    /// the symbolic paths (exact quotients, normal forms) would allocate and sort.
    fn is_constant_pair(&self, other: &SymInt) -> bool {
        self.as_constant().is_some() && other.as_constant().is_some()
    }

    fn binary(
        &self,
        divisor: &SymInt,
        operation: &'static str,
        fold: fn(&i64, &i64) -> Result<i64, LayoutError>,
        make: fn(Arc<SymInt>, Arc<SymInt>) -> Factor,
    ) -> Result<SymInt, LayoutError> {
        if divisor.as_constant() == Some(0) {
            return Err(LayoutError::DivisionByZero { operation });
        }
        if let (Some(a), Some(b)) = (self.as_constant(), divisor.as_constant()) {
            return fold(&a, &b).map(SymInt::constant);
        }
        Ok(SymInt::from_factor(make(
            Arc::new(self.clone()),
            Arc::new(divisor.clone()),
        )))
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl From<i64> for SymInt {
    fn from(value: i64) -> SymInt {
        SymInt::constant(value)
    }
}

impl Int for SymInt {
    fn from_static(value: i64) -> Self {
        SymInt::constant(value)
    }

    fn as_static(&self) -> Option<i64> {
        self.as_constant()
    }

    fn add(&self, other: &Self) -> Result<Self, LayoutError> {
        // Index arithmetic adds zero offsets often; a canonical form plus zero is itself.
        if other.terms.is_empty() {
            return Ok(self.clone());
        }
        if self.terms.is_empty() {
            return Ok(other.clone());
        }
        if let Some(constant) = other.as_constant() {
            return self.plus_constant(constant, false);
        }
        if let Some(constant) = self.as_constant() {
            return other.plus_constant(constant, true);
        }
        SymInt::normalized(self.terms.iter().chain(&other.terms).cloned().collect())
    }

    fn sub(&self, other: &Self) -> Result<Self, LayoutError> {
        let negated = Int::mul(other, &SymInt::constant(-1))?;
        Int::add(self, &negated)
    }

    fn mul(&self, other: &Self) -> Result<Self, LayoutError> {
        // Unit strides are the common case; a canonical form times one is itself.
        if other.as_constant() == Some(1) {
            return Ok(self.clone());
        }
        if self.as_constant() == Some(1) {
            return Ok(other.clone());
        }
        if let (Some(a), Some(b)) = (self.as_constant(), other.as_constant()) {
            return a
                .checked_mul(b)
                .map(SymInt::constant)
                .ok_or_else(|| overflow("symbolic multiplication", format!("{a} * {b}")));
        }
        let products = self.terms.len().saturating_mul(other.terms.len());
        if products > MAX_SYMBOLIC_TERMS {
            return Err(LayoutError::TooManyTerms {
                terms: products,
                limit: MAX_SYMBOLIC_TERMS,
            });
        }
        let mut terms = Vec::with_capacity(products);
        for left in &self.terms {
            for right in &other.terms {
                let coefficient =
                    left.coefficient
                        .checked_mul(right.coefficient)
                        .ok_or_else(|| {
                            overflow(
                                "symbolic multiplication",
                                format!("{} * {}", left.coefficient, right.coefficient),
                            )
                        })?;
                let factors = left.factors.iter().chain(&right.factors).cloned().collect();
                terms.push(Term {
                    coefficient,
                    factors,
                });
            }
        }
        SymInt::normalized(terms)
    }

    fn div(&self, other: &Self) -> Result<Self, LayoutError> {
        if self.is_constant_pair(other) {
            return self.binary(other, "division", <i64 as Int>::div, Factor::Div);
        }
        if let Some(quotient) = self.exact_quotient(other) {
            return Ok(quotient);
        }
        self.binary(other, "division", <i64 as Int>::div, Factor::Div)
    }

    fn rem(&self, other: &Self) -> Result<Self, LayoutError> {
        if self.is_constant_pair(other) {
            return self.binary(other, "modulo", <i64 as Int>::rem, Factor::Mod);
        }
        if other.as_constant() != Some(0) && self.exact_quotient(other).is_some() {
            return Ok(SymInt::constant(0));
        }
        self.binary(other, "modulo", <i64 as Int>::rem, Factor::Mod)
    }

    fn ceil_div(&self, other: &Self) -> Result<Self, LayoutError> {
        if self.is_constant_pair(other) {
            return self.binary(other, "ceil_div", <i64 as Int>::ceil_div, Factor::CeilDiv);
        }
        if let Some(quotient) = self.exact_quotient(other) {
            return Ok(quotient);
        }
        self.binary(other, "ceil_div", <i64 as Int>::ceil_div, Factor::CeilDiv)
    }

    fn to_symbolic(&self) -> SymInt {
        self.clone()
    }

    fn from_symbolic(value: &SymInt) -> Option<Self> {
        Some(value.clone())
    }
}

impl fmt::Display for SymInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return f.write_str("0");
        }
        for (index, term) in self.terms.iter().enumerate() {
            if index > 0 && term.coefficient > 0 {
                f.write_str("+")?;
            }
            write!(f, "{term}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut factors = self.factors.iter();
        match (self.coefficient, factors.next()) {
            (coefficient, None) => return write!(f, "{coefficient}"),
            (1, Some(first)) => write!(f, "{first}")?,
            (-1, Some(first)) => write!(f, "-{first}")?,
            (coefficient, Some(first)) => write!(f, "{coefficient}*{first}")?,
        }
        for factor in factors {
            write!(f, "*{factor}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Factor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Factor::Variable(name) => f.write_str(name),
            Factor::CeilDiv(a, b) => write!(f, "ceil_div({a},{b})"),
            Factor::Div(a, b) => write!(f, "div({a},{b})"),
            Factor::Mod(a, b) => write!(f, "mod({a},{b})"),
        }
    }
}

#[cfg(test)]
mod tests {
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
}
