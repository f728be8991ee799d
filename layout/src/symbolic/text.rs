//! The text of a [`SymInt`]: its terms joined by signs, each a coefficient and factors
//! joined by `*` (`2*m+ceil_div(k,8)-1`), as diagnostics and KIR print it.

use std::fmt;

use super::{Factor, SymInt, Term};

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
