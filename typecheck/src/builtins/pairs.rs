//! CTA pairs for tcgen05 (sm_100a, `cta_group::2`): `pair = true` on `tmem_alloc`,
//! `tmem_dealloc`, `tmem_relinquish_alloc_permit`, `tcgen05_mma` and `tcgen05_commit`
//! makes the instruction its `cta_group::2` form, where two blocks of a cluster (ranks
//! 2i and 2i + 1) act as one: an MMA issued by the even one reads both blocks' shared
//! tiles and writes both blocks' tensor memory.
//!
//! The checks: `pair` is a constant boolean (E0216); a pair needs a kernel whose
//! cluster has an even x extent (E0227); and every tcgen05 instruction of a kernel uses
//! one `cta_group` (the PTX ISA requires it and ptxas does not check it): the first
//! such instruction fixes it, and one of the other form is E0227 at its call.

use lang::{Diagnostic, Span};

use crate::builtins::Args;
use crate::check::Checker;
use crate::value::{Known, Value};

impl<'a> Checker<'a> {
    /// Whether the tcgen05 instruction `name` at `args` is a CTA pair's
    /// (`cta_group::2`), after the checks; `None` after an error.
    pub(crate) fn cta_group_pair(&mut self, name: &str, args: &Args) -> Option<bool> {
        let pair = self.pair_flag(name, args)?;
        self.same_cta_group(name, pair, args.call_span)
            .then_some(pair)
    }

    /// `args`' `pair` flag (false without one), checked to be constant and to have a
    /// pair in the kernel's cluster; `None` after an error.
    pub(crate) fn pair_flag(&mut self, name: &str, args: &Args) -> Option<bool> {
        let pair = match args.named("pair") {
            None => false,
            Some(arg) => match arg.value {
                Value::Bool(Known::Const(pair)) => pair,
                _ => {
                    self.error(
                        "E0216",
                        arg.span,
                        format!("`{name}`'s `pair` is a constant boolean"),
                        "not a constant boolean",
                    );
                    return None;
                }
            },
        };
        if pair && !self.frame.cluster[0].is_multiple_of(2) {
            self.error(
                "E0227",
                args.call_span,
                format!(
                    "`{name}(..., pair = true)` acts for two blocks of a cluster, but this kernel's cluster has x extent {}; declare `cluster(2, ...)` (an even x extent)",
                    self.frame.cluster[0]
                ),
                "no CTA pair",
            );
            return None;
        }
        Some(pair)
    }

    /// Whether the instruction at `span` uses the kernel's one `cta_group` (the first
    /// one seen fixes it); E0227 if not.
    fn same_cta_group(&mut self, name: &str, pair: bool, span: Span) -> bool {
        let group = |pair: bool| if pair { "cta_group::2" } else { "cta_group::1" };
        match self.tracing.cta_group {
            None => {
                self.tracing.cta_group = Some((pair, span));
                true
            }
            Some((first, _)) if first == pair => true,
            Some((first, at)) => {
                self.report(
                    Diagnostic::error(
                        "E0227",
                        format!(
                            "`{name}` is {} but the kernel's tcgen05 instructions are {}: a kernel uses one cta_group",
                            group(pair),
                            group(first)
                        ),
                    )
                    .with_primary(span, group(pair))
                    .with_secondary(at, format!("{} here", group(first))),
                );
                false
            }
        }
    }
}
