//! `print`: a trace's print becomes one [`Op::Print`] of the values its placeholders
//! write, each lowered from its term (a fragment value's element by its index).

use std::sync::Arc;

use kir::{Format, Op};
use trace::Term;

use crate::builder::Builder;

impl Builder<'_> {
    /// The thread writes `format` with `values`, one line.
    pub(crate) fn print(&mut self, format: &Format, values: &[(Arc<Term>, i64)]) {
        let mut args = Vec::with_capacity(values.len());
        for (term, element) in values {
            let Some(value) = self.term(term, *element) else {
                return;
            };
            args.push(value);
        }
        self.push_effect(Op::Print {
            format: format.clone(),
            args,
        });
    }
}
