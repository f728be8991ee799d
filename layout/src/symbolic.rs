//! Symbolic run-time integers: polynomials over named variables.
//!
//! A [`SymInt`] is kept in a canonical form, a sum of terms `coefficient * factor * ...`
//! where a factor is a variable (`m`) or an operation that could not be folded
//! (`ceil_div(m,8)`, `div(i,k)`, `mod(i,k)`). Constants fold (`2*3` is `6`), products
//! distribute over sums, and like terms merge, so `m*1` is `m` and `k*m` equals `m*k`.
//! Run-time variables are assumed positive, as run-time extents are.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::LayoutError;
use crate::int::{Int, overflow};

mod queries;
mod text;

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

#[cfg(test)]
mod tests;
