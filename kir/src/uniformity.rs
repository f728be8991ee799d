//! Which values and branches are the same for every thread of a warp.
//!
//! A value is *divergent* when two threads of one warp may hold different ones: the
//! thread index, what a thread loads (conservatively), a shuffle's result, and
//! anything computed from them, except the thread index divided into whole warps
//! (`thread_idx.x >> 5` in a one-dimensional block). A region under a divergent
//! condition runs for some threads of a warp and not others, so the values it yields
//! are divergent too. The analysis runs to a fixed point over loops' carried values.
//!
//! [`mark_uniform`] sets each region instruction's `uniform` flag (the emitter then
//! branches with `bra.uni`) and returns the warp-collective instructions (shuffles,
//! `bar.warp.sync`, `.aligned` and `.sync` atoms) that sit under divergent control,
//! where some lanes of the warp would not reach them.

use std::collections::HashMap;

use lang::Span;

use crate::ir::{BinOp, Inst, Kernel, Op, Special, ValueId};

/// What is known about a value across the threads of a warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// The same in every thread of the warp.
    Uniform,
    /// `%tid.x` (or a widening of it) in a one-dimensional block.
    ThreadX,
    /// May differ between threads of the warp.
    Divergent,
}

/// A warp-collective instruction under divergent control: where, and what it is.
pub struct Collective {
    /// The instruction's source.
    pub span: Span,
    /// What it is, in words.
    pub what: String,
}

/// Sets the `uniform` flags of `kernel`'s regions; `one_dimensional` says whether
/// the block has only an x extent. Returns the collectives under divergent control.
pub fn mark_uniform(kernel: &mut Kernel, one_dimensional: bool) -> Vec<Collective> {
    let mut constants = HashMap::new();
    collect_constants(&kernel.body, &mut constants);
    let mut analysis = Analysis {
        constants,
        classes: vec![Class::Uniform; kernel.values.len()],
        one_dimensional,
        changed: true,
        collectives: Vec::new(),
    };
    let mut body = std::mem::take(&mut kernel.body);
    let mut rounds = 0;
    while analysis.changed && rounds <= kernel.values.len() {
        analysis.changed = false;
        analysis.collectives.clear();
        analysis.block(&mut body, false);
        rounds += 1;
    }
    kernel.body = body;
    analysis.collectives
}

/// The integer constants the body defines, by value.
fn collect_constants(body: &[Inst], constants: &mut HashMap<ValueId, i64>) {
    for inst in body {
        if let (Op::ConstInt(value), [result]) = (&inst.op, inst.results.as_slice()) {
            constants.insert(*result, *value);
        }
        for region in inst.op.regions() {
            collect_constants(&region.body, constants);
        }
    }
}

struct Analysis {
    /// Integer constants, to tell `thread_idx.x / 32` (whole warps) from `/ 2`.
    constants: HashMap<ValueId, i64>,
    classes: Vec<Class>,
    one_dimensional: bool,
    changed: bool,
    collectives: Vec<Collective>,
}

impl Analysis {
    fn class(&self, value: ValueId) -> Class {
        self.classes
            .get(value.0 as usize)
            .copied()
            .unwrap_or(Class::Divergent)
    }

    fn divergent(&self, value: ValueId) -> bool {
        self.class(value) != Class::Uniform
    }

    /// Raises `value` to at least `class` (uniform, then thread x, then divergent).
    fn set(&mut self, value: ValueId, class: Class) {
        let rank = |class: Class| match class {
            Class::Uniform => 0,
            Class::ThreadX => 1,
            Class::Divergent => 2,
        };
        let Some(slot) = self.classes.get_mut(value.0 as usize) else {
            return;
        };
        if rank(class) > rank(*slot) {
            *slot = class;
            self.changed = true;
        }
    }

    /// The least class above all of `values`'.
    fn join(&self, values: &[ValueId]) -> Class {
        if values.iter().any(|value| self.divergent(*value)) {
            Class::Divergent
        } else {
            Class::Uniform
        }
    }

    fn block(&mut self, body: &mut [Inst], divergent_control: bool) {
        for inst in body {
            self.instruction(inst, divergent_control);
        }
    }

    fn instruction(&mut self, inst: &mut Inst, divergent_control: bool) {
        let operands = inst.op.operands();
        let class = match &mut inst.op {
            Op::Special(Special::ThreadIndex(0)) if self.one_dimensional => Class::ThreadX,
            Op::Special(Special::ThreadIndex(_)) | Op::Load { .. } | Op::Atomic { .. } => {
                Class::Divergent
            }
            Op::Shuffle { .. } => {
                self.collective(inst.span, "a warp shuffle", divergent_control);
                Class::Divergent
            }
            Op::WarpBarrier => {
                self.collective(inst.span, "`syncwarp`", divergent_control);
                Class::Uniform
            }
            Op::Atom { template, .. } => {
                if template.contains(".aligned") || template.contains(".sync") {
                    let what = format!("`{}`", template.split_whitespace().next().unwrap_or(""));
                    self.collective(inst.span, &what, divergent_control);
                }
                Class::Uniform
            }
            Op::Convert(a) => match self.class(*a) {
                Class::ThreadX => Class::ThreadX,
                other => other,
            },
            Op::Binary(op, a, b) => self.binary(*op, *a, *b),
            Op::For {
                start,
                end,
                inits,
                body,
                uniform,
            } => {
                let bounds = self.join(&[*start, *end]);
                *uniform = bounds == Class::Uniform;
                let inner = divergent_control || !*uniform;
                if let Some(counter) = body.params.first() {
                    self.set(*counter, bounds);
                }
                self.carry(&inits.clone(), body, &inst.results, inner);
                return;
            }
            Op::Loop {
                inits,
                body,
                condition,
                uniform,
            } => {
                *uniform = !self.divergent(*condition);
                let inner = divergent_control || !*uniform;
                self.carry(&inits.clone(), body, &inst.results, inner);
                return;
            }
            Op::If {
                condition,
                then,
                otherwise,
                uniform,
            } => {
                *uniform = !self.divergent(*condition);
                let inner = divergent_control || !*uniform;
                self.block(&mut then.body, inner);
                self.block(&mut otherwise.body, inner);
                for (index, result) in inst.results.iter().enumerate() {
                    let yields: Vec<ValueId> = [&then.yields, &otherwise.yields]
                        .iter()
                        .filter_map(|yields| yields.get(index).copied())
                        .collect();
                    let class = if inner {
                        Class::Divergent
                    } else {
                        self.join(&yields)
                    };
                    self.set(*result, class);
                }
                return;
            }
            _ => self.join(&operands),
        };
        for result in &inst.results {
            self.set(*result, class);
        }
    }

    /// `thread_idx.x` divided into whole warps is uniform; otherwise the join.
    fn binary(&self, op: BinOp, a: ValueId, b: ValueId) -> Class {
        if self.class(a) == Class::ThreadX {
            // Whole warps: a division by a multiple of 32, a shift by 5 or more.
            let whole_warps = match (op, self.constants.get(&b)) {
                (BinOp::Div, Some(divisor)) => *divisor > 0 && divisor % 32 == 0,
                (BinOp::Shr, Some(shift)) => (5..64).contains(shift),
                _ => false,
            };
            return if whole_warps {
                Class::Uniform
            } else {
                Class::Divergent
            };
        }
        self.join(&[a, b])
    }

    /// A loop's carried values: each parameter joins its initial value and its yield
    /// (divergent under divergent control), and the results follow the parameters.
    fn carry(
        &mut self,
        inits: &[ValueId],
        body: &mut crate::ir::Region,
        results: &[ValueId],
        divergent_control: bool,
    ) {
        let carried = body.params.len().saturating_sub(inits.len());
        for (param, init) in body.params[carried..].iter().zip(inits) {
            self.set(*param, self.join(&[*init]));
        }
        self.block(&mut body.body, divergent_control);
        for (index, param) in body.params[carried..].iter().enumerate() {
            let yielded: Vec<ValueId> = body.yields.get(index).copied().into_iter().collect();
            let mut class = self.join(&yielded);
            if divergent_control {
                class = Class::Divergent;
            }
            self.set(*param, class);
            if let Some(result) = results.get(index) {
                self.set(*result, self.class(*param).max_with(class));
            }
        }
    }

    fn collective(&mut self, span: Span, what: &str, divergent_control: bool) {
        if divergent_control {
            self.collectives.push(Collective {
                span,
                what: what.to_owned(),
            });
        }
    }
}

impl Class {
    fn max_with(self, other: Class) -> Class {
        if self == Class::Divergent || other == Class::Divergent {
            Class::Divergent
        } else {
            Class::Uniform
        }
    }
}
