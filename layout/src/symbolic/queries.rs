//! What code reads off a [`SymInt`]: its terms one by one, its constant, its variables,
//! a linear split over chosen variables, a divisor every value has, its value for given
//! variables, and the expression with some variables replaced by numbers.

use super::{Factor, SymFactor, SymInt, Term, gcd};
use crate::LayoutError;
use crate::int::Int;

impl SymInt {
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

    /// `self - other` when the two differ in their constant terms alone (`8*t+3` and
    /// `8*t-1` by 4), without building the difference.
    pub fn constant_difference(&self, other: &SymInt) -> Option<i64> {
        let (rest, constant) = self.rest_and_constant();
        let (other_rest, other_constant) = other.rest_and_constant();
        (rest == other_rest).then(|| constant.checked_sub(other_constant))?
    }

    /// The terms other than the constant one, and the constant (0 when there is none).
    fn rest_and_constant(&self) -> (&[Term], i64) {
        match self.terms.split_last() {
            Some((last, rest)) if last.factors.is_empty() => (rest, last.coefficient),
            _ => (&self.terms, 0),
        }
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
}
