//! Reporting: diagnostics deduplicated and moved to the user's line, the work and
//! nesting budgets, the stage error for a value that must be const, and "did you mean".

use lang::{Diagnostic, Span};

use crate::builtins::Arg;
use crate::check::{Checker, EVAL_DEPTH_LIMIT, WORK_LIMIT};
use crate::value::{Origin, Value};

impl<'a> Checker<'a> {
    /// Reports `diagnostic` once (checking a body several times repeats findings).
    /// Inside stdlib code, the diagnostic moves to the user's span that led there.
    pub(crate) fn report(&mut self, mut diagnostic: Diagnostic) {
        if self.names.current_module != 0 {
            let Some(anchor) = self.reporting.anchor else {
                return;
            };
            let module = self.names.modules[self.names.current_module].name;
            diagnostic.primary.span = anchor;
            diagnostic.secondary.clear();
            diagnostic.notes.push(format!(
                "found while evaluating the stdlib module `{module}`"
            ));
        }
        let key = (
            diagnostic.code,
            diagnostic.span(),
            diagnostic.message.clone(),
        );
        if self.reporting.seen.insert(key) {
            self.reporting.diagnostics.push(diagnostic);
        } else if let Some(repeated) = &mut self.reporting.repeated {
            repeated.push((diagnostic.code, diagnostic.span()));
        }
    }

    /// Reports an error with one labelled span and returns [`Value::Unknown`].
    pub(crate) fn error(
        &mut self,
        code: &'static str,
        span: Span,
        message: String,
        label: &str,
    ) -> Value {
        self.report(Diagnostic::error(code, message).with_primary(span, label));
        Value::Unknown
    }

    /// Reports the type error E0216 at `span`, `{takes}, not a {value's type}` (`takes`
    /// saying what was wanted, as "`bits` takes a dtype"), and returns [`Value::Unknown`].
    pub(crate) fn wrong_type(
        &mut self,
        span: Span,
        value: &Value,
        takes: &str,
        label: &str,
    ) -> Value {
        let message = format!("{takes}, not a {}", value.type_name());
        self.error("E0216", span, message, label)
    }

    /// [`Checker::wrong_type`] for an argument: its value at its span.
    pub(crate) fn wrong_arg(&mut self, arg: &Arg, takes: &str, label: &str) -> Value {
        self.wrong_type(arg.span, &arg.value, takes, label)
    }

    /// Counts one unit of work; false (after one diagnostic) once the budget is spent.
    pub(crate) fn spend(&mut self, span: Span) -> bool {
        self.budgets.work += 1;
        if self.budgets.work <= WORK_LIMIT {
            return true;
        }
        if !self.budgets.work_reported {
            self.budgets.work_reported = true;
            self.report(
                Diagnostic::error(
                    "E0222",
                    format!("compile-time evaluation stopped after {WORK_LIMIT} steps"),
                )
                .with_primary(span, "still evaluating here")
                .with_note("static loops unroll and functions inline while checking; this program does too much of either"),
            );
        }
        false
    }

    /// Enters one level of evaluation; false (after one diagnostic) past
    /// [`EVAL_DEPTH_LIMIT`], and then the caller must not evaluate. Every true is
    /// matched by a [`Checker::leave`].
    pub(crate) fn enter(&mut self, span: Span) -> bool {
        if self.budgets.depth < EVAL_DEPTH_LIMIT {
            self.budgets.depth += 1;
            return true;
        }
        if !self.budgets.depth_reported {
            self.budgets.depth_reported = true;
            self.report(
                Diagnostic::error(
                    "E0222",
                    format!("compile-time evaluation nested deeper than {EVAL_DEPTH_LIMIT} levels"),
                )
                .with_primary(span, "nested too deep here")
                .with_note("each operand, const naming another const, and inlined call adds a level; split long chains"),
            );
        }
        false
    }

    /// Leaves a level entered with [`Checker::enter`].
    pub(crate) fn leave(&mut self) {
        self.budgets.depth -= 1;
    }

    /// Reports that `what` needed a const value and got one that is dyn because of
    /// `origin`.
    pub(crate) fn require_const_failed(&mut self, what: &str, span: Span, origin: &Origin) {
        let mut diagnostic = Diagnostic::error(
            "E0204",
            format!(
                "{what} must be known at compile time, but {}",
                origin.reason
            ),
        )
        .with_primary(span, "only known at run time");
        if let Some(origin_span) = origin.span
            && origin_span != span
        {
            diagnostic = diagnostic.with_secondary(origin_span, "declared here");
        }
        self.report(diagnostic.with_help(
            "use a const item, a const parameter (`<const N: int = ...>`) or a literal",
        ));
    }
}

/// Names longer than this get no "did you mean": comparing them costs the product of
/// the lengths, and nobody mistypes a name that long.
pub(crate) const SUGGESTION_MAX_LENGTH: usize = 64;

/// The candidate closest to `name` by edit distance, if close enough to suggest.
pub(crate) fn closest<'n>(
    name: &str,
    candidates: impl Iterator<Item = &'n str>,
) -> Option<&'n str> {
    let length = name.chars().count();
    if length > SUGGESTION_MAX_LENGTH {
        return None;
    }
    let limit = (length / 3).max(1);
    candidates
        .filter(|candidate| *candidate != name)
        // The distance is at least the difference in length: skip what cannot be close
        // before paying for the quadratic comparison.
        .filter(|candidate| candidate.chars().count().abs_diff(length) <= limit)
        .map(|candidate| (strsim::levenshtein(name, candidate), candidate))
        .filter(|(distance, _)| *distance <= limit)
        // Of candidates equally close, one that differs only in case first
        // (`partition_s` is `partition_S`, not `partition_D`).
        .min_by_key(|(distance, candidate)| {
            (*distance, !candidate.eq_ignore_ascii_case(name), *candidate)
        })
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn suggestions_need_a_small_edit_distance() {
        let names = ["thread_idx", "block_idx", "make_layout"];
        assert_eq!(closest("thred_idx", names.into_iter()), Some("thread_idx"));
        assert_eq!(closest("blockidx", names.into_iter()), Some("block_idx"));
        assert_eq!(closest("zzz", names.into_iter()), None);
        let sides = ["partition_D", "partition_S"];
        assert_eq!(
            closest("partition_s", sides.into_iter()),
            Some("partition_S")
        );
        assert_eq!(
            closest("partition_d", sides.into_iter()),
            Some("partition_D")
        );
    }

    #[test]
    fn long_names_are_not_compared() {
        let long = "a".repeat(100_000);
        let other = format!("{long}b");
        assert_eq!(closest(&long, [other.as_str()].into_iter()), None);
        let near = "x".repeat(60);
        let candidates = [format!("{near}y"), "x".repeat(200)];
        let found = closest(&near, candidates.iter().map(String::as_str));
        assert_eq!(found, Some(candidates[0].as_str()));
    }
}
