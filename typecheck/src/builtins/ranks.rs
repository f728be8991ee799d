//! Several GPUs: a kernel's `symmetric(a, b)` launch part, its rank and world size,
//! `peer(t, r)`, and a test's `ranks(N)`.
//!
//! A kernel with `symmetric(...)` runs on every rank of a multi-rank test. It takes,
//! after its declared parameters, hidden ones the harness passes: `rank` (i32),
//! `world_size` (i32) and for each symmetric tensor `t` `peers_t` (u64), the address of
//! a global array of `world_size` u64 base addresses, rank r's copy of `t` at index r.
//! `this_rank()` and `world_size()` read the first two; `peer(t, r)` is `t` based at entry
//! r of its table (`cute::Base::Peer`), whose address the trace defines as a variable.
//! In a test, `ranks(N)` runs the body once per rank, `this_rank()` giving the rank and
//! `world_size()` N.
//!
//! Checked at the line: `symmetric` naming anything but the kernel's global tensor
//! parameters, and `peer` of a tensor that is not one of them (E0243); a `ranks` clause
//! that is not `ranks(N)` with an integer literal N of 1 to 8 (E0244); `this_rank()` or
//! `world_size()` where there is none (E0245).

use std::sync::Arc;

use cute::{Base, MemorySpace, Tensor};
use lang::Span;
use lang::ast::{ExprKind, Kernel, LaunchKind, Ranks};
use layout::{Int, SymInt};

use crate::builtins::Args;
use crate::check::{Checker, Context};
use crate::trace::{Effect, KernelTrace, Term, TraceParam, TraceParamKind};
use crate::value::{IntType, Origin, Value};
use cute::Dtype;

/// The most ranks a test may have (the GPUs of one node).
pub const MAX_RANKS: i64 = 8;

/// A symmetric kernel's hidden parameters, as the variables that stand for them.
#[derive(Debug)]
pub(crate) struct RankVars {
    /// The kernel's rank.
    rank: SymInt,
    /// The number of ranks.
    world: SymInt,
    /// Each symmetric tensor parameter's index and its peer table's variable and
    /// parameter name (`peers_t`).
    tables: Vec<(usize, SymInt, String)>,
}

impl<'a> Checker<'a> {
    /// Checks `kernel`'s `symmetric(...)` part and makes its hidden parameters the
    /// frame's.
    pub(crate) fn check_symmetric(&mut self, kernel: &'a Kernel) {
        self.frame.ranks = None;
        let Some(part) = (kernel.launch.iter()).find(|part| part.kind == LaunchKind::Symmetric)
        else {
            return;
        };
        let origin = |reason: String| Origin {
            reason,
            span: Some(part.span),
            term: None,
        };
        let mut tables: Vec<(usize, SymInt, String)> = Vec::new();
        for arg in &part.args {
            let name = match &arg.kind {
                ExprKind::Path(path) if path.segments.len() == 1 => &path.segments[0].text,
                _ => {
                    self.symmetric_error(arg.span, "this is not a parameter's name".to_owned());
                    continue;
                }
            };
            let index = kernel
                .params
                .iter()
                .position(|param| param.name.text == *name);
            let is_global_tensor = self.lookup_local(name).is_some_and(|local| {
                matches!(&local.value, Value::Tensor(tensor) if tensor.space == MemorySpace::Global)
            });
            match index {
                Some(index) if is_global_tensor => {
                    if tables.iter().any(|(known, _, _)| *known == index) {
                        self.symmetric_error(arg.span, format!("`{name}` is named twice"));
                        continue;
                    }
                    let reason = format!(
                        "`peers_{name}` is the table of `{name}`'s base address on each rank"
                    );
                    let table = self.fresh_variable(&format!("peers_{name}"), origin(reason));
                    tables.push((index, table, format!("peers_{name}")));
                }
                _ => self.symmetric_error(
                    arg.span,
                    format!("`{name}` is not one of the kernel's global tensor parameters"),
                ),
            }
        }
        let rank = self.fresh_variable(
            "rank",
            origin("`this_rank()` is the kernel's rank".to_owned()),
        );
        let world = self.fresh_variable(
            "world_size",
            origin("`world_size()` is the number of ranks".to_owned()),
        );
        self.frame.ranks = Some(Arc::new(RankVars {
            rank,
            world,
            tables,
        }));
    }

    fn symmetric_error(&mut self, span: Span, why: String) {
        let message = format!("`symmetric` names the kernel's global tensor parameters: {why}");
        self.error("E0243", span, message, "not a symmetric tensor parameter");
    }

    /// The hidden parameters of a kernel with `symmetric(...)`, after its declared ones.
    pub(crate) fn hidden_rank_params(&self) -> Vec<TraceParam> {
        let Some(ranks) = &self.frame.ranks else {
            return Vec::new();
        };
        let int = |name: &str, dtype: Dtype, variable: &SymInt| TraceParam {
            name: name.to_owned(),
            kind: match variable.variables().as_slice() {
                [variable] => TraceParamKind::Int(dtype, variable.clone()),
                _ => TraceParamKind::Unknown,
            },
        };
        let mut params = vec![
            int("rank", Dtype::I32, &ranks.rank),
            int("world_size", Dtype::I32, &ranks.world),
        ];
        for (_, table, name) in &ranks.tables {
            params.push(int(name, Dtype::U64, table));
        }
        params
    }

    /// Checks a test's `ranks(N)`; N.
    pub(crate) fn check_ranks(&mut self, ranks: &'a Ranks) -> Option<i64> {
        if ranks.keyword.text != "ranks" {
            let message = format!(
                "a test block takes `ranks(N)` after its name, not `{}`",
                ranks.keyword.text
            );
            self.error("E0244", ranks.keyword.span, message, "expected `ranks`");
            return None;
        }
        let ExprKind::Int(count) = ranks.count.kind else {
            let message = "`ranks(N)` takes an integer literal".to_owned();
            self.error("E0244", ranks.count.span, message, "not an integer literal");
            return None;
        };
        if !(1..=MAX_RANKS).contains(&count) {
            let message = format!("a test runs on 1 to {MAX_RANKS} ranks, not {count}");
            self.error(
                "E0244",
                ranks.count.span,
                message,
                "no such number of ranks",
            );
            return None;
        }
        Some(count)
    }

    /// `this_rank()` and `world_size()`: in a kernel with `symmetric(...)`, its hidden
    /// parameters; in a test with `ranks(N)`, the rank running the body and N.
    pub(crate) fn rank_builtin(&mut self, name: &'static str, args: &Args) -> Value {
        let span = args.call_span;
        let int = |value: SymInt| Value::Int {
            ty: IntType::Sized(Dtype::I32),
            value,
        };
        match self.frame.context {
            Context::Device => match &self.frame.ranks {
                Some(ranks) if name == "this_rank" => int(ranks.rank.clone()),
                Some(ranks) => int(ranks.world.clone()),
                None => self.rank_error(name, span, "a kernel without `symmetric(...)`"),
            },
            // On the host, an `int` as `let n = 4096;` is (and host tensors scale by).
            Context::Host => match self.frame.world {
                Some(world) if name == "world_size" => Value::int(world),
                Some(_) => {
                    let origin = Origin {
                        reason: "`this_rank()` is the rank running the test's body".to_owned(),
                        span: Some(span),
                        term: None,
                    };
                    Value::Int {
                        ty: IntType::Int,
                        value: self.fresh_variable("rank", origin),
                    }
                }
                None => self.rank_error(name, span, "a test without `ranks(N)`"),
            },
            _ => self.rank_error(name, span, "const code"),
        }
    }

    fn rank_error(&mut self, name: &str, span: Span, place: &str) -> Value {
        let message = format!("`{name}()` has no value in {place}");
        self.error("E0245", span, message, "no rank here")
    }

    /// `peer(t, r)`: rank r's copy of the symmetric tensor `t`.
    pub(crate) fn peer(&mut self, _name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let what = "`peer` takes a symmetric tensor";
        let Some(tensor) = self.expect_tensor(&p[0].value, p[0].span, "E0243", what) else {
            return Value::Unknown;
        };
        let table = match (&tensor.base, &self.frame.ranks) {
            (Base::Param(param), Some(ranks)) => (ranks.tables.iter())
                .find(|(index, _, _)| index == param)
                .map(|(_, table, _)| (*param, table.clone())),
            _ => None,
        };
        let Some((param, table)) = table else {
            let message = "`peer` takes a tensor the kernel's launch clause names `symmetric(...)` (or a part of one): only those exist on every rank with the same layout".to_owned();
            return self.error("E0243", p[0].span, message, "not a symmetric tensor");
        };
        let Some(rank) = self.expect_int(&p[1].value, p[1].span, "a rank") else {
            return Value::Unknown;
        };
        let address = rank
            .mul(&SymInt::constant(8))
            .and_then(|offset| table.add(&offset));
        let Ok(address) = address else {
            let message = "this rank's table entry overflows 64 bits".to_owned();
            return self.error("E0243", p[1].span, message, "rank too large");
        };
        let origin = Origin {
            reason: "a peer table entry's address".to_owned(),
            span: Some(args.call_span),
            term: None,
        };
        let entry = self.fresh_variable("peer_entry", origin);
        let variable = entry.variables().first().cloned().unwrap_or_default();
        let term = Term::Int(address, Dtype::I64);
        let entry =
            self.define_view_entry(variable, term, args.call_span, |trace| &mut trace.peers);
        Value::Tensor(Arc::new(Tensor {
            base: Base::Peer { param, entry },
            ..(*tensor).clone()
        }))
    }

    /// Defines `variable` as `term` where a view of another rank's or block's memory
    /// is made (at `span`) and, in a kernel, lists it in the trace (`list`: the peer
    /// table entries, or the cluster views' ranks), so that lowering reads it where the
    /// view is indexed; its index in that list, which the view's base names (0 outside
    /// a kernel).
    pub(crate) fn define_view_entry(
        &mut self,
        variable: String,
        term: Term,
        span: Span,
        list: fn(&mut KernelTrace) -> &mut Vec<String>,
    ) -> u32 {
        let index = match &mut self.tracing.trace {
            Some(trace) if self.frame.context == Context::Device => {
                let list = list(trace);
                list.push(variable.clone());
                list.len() as u32 - 1
            }
            _ => 0,
        };
        self.emit(Effect::Define {
            variable,
            value: Arc::new(term),
            span,
        });
        index
    }
}
