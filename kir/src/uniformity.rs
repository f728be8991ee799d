//! Which values and branches are the same for every thread of a warp.
//!
//! A value is *divergent* when two threads of one warp may hold different ones: the
//! thread index, what a thread loads (conservatively; for the collectives' checks and
//! the broadcasts, not for `bra.uni`, a global load at an address the same for every
//! thread, of a tensor parameter the kernel never writes, is taken to be the same
//! everywhere: `read_only.rs`), a shuffle's result (but a broadcast's: `shfl_idx` from a
//! lane the whole warp names alike), and anything computed from them,
//! except the thread index divided into whole warps
//! (`thread_idx.x >> 5` in a one-dimensional block). A region under a divergent
//! condition runs for some threads of a warp and not others, so the values it yields
//! are divergent too. One level finer, a value is the same for a whole warpgroup (128
//! threads, wgmma's unit) unless it depends on the thread index divided into less than
//! whole warpgroups (`thread_idx.x / 32` is per warp). The thread index moved by whole
//! warpgroups (`thread_idx.x - 128`) keeps these properties, and compared with a
//! boundary between warpgroups (`thread_idx.x >= 128`) or warps it is the same across
//! each. The analysis runs to a fixed point over loops' carried values.
//!
//! A value that becomes the same per warp here (`thread_idx.x / 128`), where control
//! keeps warps whole and the block is whole warps, is listed in
//! [`Kernel::broadcast`]: ptxas cannot see that it is uniform, and values it cannot
//! see as uniform (a warpgroup's wgmma descriptors) stay out of uniform registers.
//!
//! [`mark_uniform`] sets each region instruction's `uniform` flag (the emitter then
//! branches with `bra.uni`) and returns the warp-collective instructions (shuffles,
//! `bar.warp.sync`, `.aligned` and `.sync` atoms, intrinsics their row says are
//! convergent) that sit under divergent control, where some lanes of the warp would not
//! reach them, and the wgmma instructions and warpgroup-convergent intrinsics
//! (`setmaxnreg`) under control that may differ between the warps of a warpgroup.

use rustc_hash::FxHashMap;

use lang::Span;

use crate::intrinsic::Scope;
use crate::ir::{BinOp, CmpOp, Inst, Kernel, Op, ShuffleMode, Space, Special, ValueId};
use crate::read_only::ReadOnly;

/// What is known about a value across the threads of a warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// The same in every thread of the warpgroup (so of the warp).
    Uniform,
    /// The same in every thread of the warp, not necessarily of the warpgroup.
    Warp,
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
    /// Which threads must all reach it: `"warp"` or `"warpgroup"`.
    pub unit: &'static str,
}

/// The block's shape, as the analysis needs it.
#[derive(Clone, Copy, Debug)]
pub struct BlockShape {
    /// Only an x extent.
    pub one_dimensional: bool,
    /// A multiple of 32 threads, so every warp is full.
    pub whole_warps: bool,
}

/// Sets the `uniform` flags of `kernel`'s regions and its [`Kernel::broadcast`] list.
/// Returns the collectives under divergent control.
///
/// The collectives are judged, and the broadcasts chosen, trusting that a tensor the
/// kernel never writes does not change while it runs (`read_only.rs`): a warpgroup may
/// run its wgmmas in a loop over a packed sequence's tiles, and under a branch on such
/// a load `thread_idx.x / 128` is still broadcast (without it ptxas keeps a
/// warpgroup's wgmma descriptors per thread, and the varlen attention spilled). The
/// branches are marked `bra.uni` without that trust.
pub fn mark_uniform(kernel: &mut Kernel, block: BlockShape) -> Vec<Collective> {
    let mut constants = FxHashMap::default();
    collect_constants(&kernel.body, &mut constants);
    let read_only = ReadOnly::of(kernel);
    let trusting = analyse(kernel, block, &constants, Some(read_only));
    analyse(kernel, block, &constants, None);
    kernel.broadcast = trusting.broadcast;
    trusting.collectives
}

/// One run of the analysis to its fixed point, setting the regions' flags as it finds
/// them.
fn analyse(
    kernel: &mut Kernel,
    block: BlockShape,
    constants: &FxHashMap<ValueId, i64>,
    read_only: Option<ReadOnly>,
) -> Analysis {
    let mut analysis = Analysis {
        constants: constants.clone(),
        read_only,
        classes: vec![Class::Uniform; kernel.values.len()],
        one_dimensional: block.one_dimensional,
        whole_warps: block.whole_warps,
        changed: true,
        collectives: Vec::new(),
        broadcast: Vec::new(),
    };
    let mut body = std::mem::take(&mut kernel.body);
    let mut rounds = 0;
    while analysis.changed && rounds <= kernel.values.len() {
        analysis.changed = false;
        analysis.collectives.clear();
        analysis.broadcast.clear();
        analysis.block(&mut body, Class::Uniform);
        rounds += 1;
    }
    kernel.body = body;
    analysis.broadcast.sort();
    analysis.broadcast.dedup();
    analysis
}

/// The integer constants the body defines, by value.
fn collect_constants(body: &[Inst], constants: &mut FxHashMap<ValueId, i64>) {
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
    constants: FxHashMap<ValueId, i64>,
    /// The addresses into tensors the kernel only reads, when loads from them are
    /// trusted to be the same in every thread.
    read_only: Option<ReadOnly>,
    classes: Vec<Class>,
    one_dimensional: bool,
    whole_warps: bool,
    changed: bool,
    collectives: Vec<Collective>,
    broadcast: Vec<ValueId>,
}

impl Analysis {
    fn class(&self, value: ValueId) -> Class {
        self.classes
            .get(value.0 as usize)
            .copied()
            .unwrap_or(Class::Divergent)
    }

    fn divergent(&self, value: ValueId) -> bool {
        self.class(value).rank() >= Class::ThreadX.rank()
    }

    /// Raises `value` to at least `class` (uniform, then thread x, then divergent).
    fn set(&mut self, value: ValueId, class: Class) {
        let Some(slot) = self.classes.get_mut(value.0 as usize) else {
            return;
        };
        if class.rank() > slot.rank() {
            *slot = class;
            self.changed = true;
        }
    }

    /// The least class above all of `values`'.
    fn join(&self, values: &[ValueId]) -> Class {
        values.iter().fold(Class::Uniform, |class, value| {
            class.max_with(self.class(*value))
        })
    }

    fn block(&mut self, body: &mut [Inst], control: Class) {
        for inst in body {
            self.instruction(inst, control);
        }
    }

    fn instruction(&mut self, inst: &mut Inst, control: Class) {
        let operands = inst.op.operands();
        let class = match &mut inst.op {
            Op::Special(Special::ThreadIndex(0)) if self.one_dimensional => Class::ThreadX,
            Op::Load {
                space: Space::Global,
                address,
                ..
            } if (self.read_only.as_ref())
                .is_some_and(|read_only| read_only.unwritten(*address)) =>
            {
                self.join(&operands)
            }
            Op::Special(Special::ThreadIndex(_)) | Op::Load { .. } | Op::Atomic { .. } => {
                Class::Divergent
            }
            Op::Shuffle { mode, lane, .. } => {
                self.collective(inst.span, "a warp shuffle", control);
                // Every lane reading one lane (chosen alike across the warp) receives
                // the same value: a broadcast.
                let lane = self.class(*lane);
                if *mode == ShuffleMode::Index && matches!(lane, Class::Uniform | Class::Warp) {
                    Class::Warp
                } else {
                    Class::Divergent
                }
            }
            Op::WarpBarrier => {
                self.collective(inst.span, "`syncwarp`", control);
                Class::Uniform
            }
            Op::Intrinsic { intrinsic, .. } => {
                let row = intrinsic.row();
                let what = format!("`{}`", row.name);
                if row.convergent && row.scope == Scope::Warpgroup && control != Class::Uniform {
                    self.collectives.push(Collective {
                        span: inst.span,
                        what,
                        unit: "warpgroup",
                    });
                } else if row.convergent {
                    self.collective(inst.span, &what, control);
                }
                // What it defines may differ between lanes (`elect_one` is one lane's).
                if inst.results.is_empty() {
                    Class::Uniform
                } else {
                    Class::Divergent
                }
            }
            Op::Atom {
                template, scope, ..
            } => {
                let what = format!("`{}`", template.split_whitespace().next().unwrap_or(""));
                match scope {
                    Scope::Warpgroup if control != Class::Uniform => {
                        self.collectives.push(Collective {
                            span: inst.span,
                            what,
                            unit: "warpgroup",
                        });
                    }
                    Scope::Thread | Scope::Warpgroup => {}
                    _ => self.collective(inst.span, &what, control),
                }
                Class::Uniform
            }
            Op::Convert(a) => match self.class(*a) {
                Class::ThreadX => Class::ThreadX,
                other => other,
            },
            Op::Binary(op, a, b) => {
                let class = self.binary(*op, *a, *b);
                let per_warp = matches!(class, Class::Uniform | Class::Warp);
                if per_warp
                    && self.class(*a) == Class::ThreadX
                    && self.whole_warps
                    && !control.splits_warp()
                {
                    self.broadcast.extend(inst.results.iter().copied());
                }
                class
            }
            Op::Compare(op, a, b) => self.compare(*op, *a, *b),
            Op::For {
                start,
                end,
                inits,
                body,
                uniform,
            } => {
                let bounds = self.join(&[*start, *end]);
                *uniform = !bounds.splits_warp();
                let inner = control.max_with(bounds);
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
                let inner = control.max_with(self.class(*condition));
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
                let inner = control.max_with(self.class(*condition));
                self.block(&mut then.body, inner);
                self.block(&mut otherwise.body, inner);
                for (index, result) in inst.results.iter().enumerate() {
                    let yields: Vec<ValueId> = [&then.yields, &otherwise.yields]
                        .iter()
                        .filter_map(|yields| yields.get(index).copied())
                        .collect();
                    let class = self.join(&yields).max_with(inner.under_control());
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

    /// `thread_idx.x` divided into whole warpgroups is uniform, into whole warps the
    /// same per warp; moved by whole warpgroups (`thread_idx.x - 128`, a consumer's index
    /// in a warp-specialized kernel) it keeps those properties; otherwise the join.
    fn binary(&self, op: BinOp, a: ValueId, b: ValueId) -> Class {
        // An addition may come with its constant first (a constant the kernel computed
        // before, reused): it is the same sum.
        let (a, b) = match op {
            BinOp::Add if self.class(b) == Class::ThreadX && self.constants.contains_key(&a) => {
                (b, a)
            }
            _ => (a, b),
        };
        let whole_warpgroups = self.constants.get(&b).is_some_and(|moved| moved % 128 == 0);
        if self.class(a) == Class::ThreadX
            && matches!(op, BinOp::Add | BinOp::Sub)
            && whole_warpgroups
        {
            return Class::ThreadX;
        }
        if self.class(a) == Class::ThreadX {
            // A division by a multiple of 128 (32), a shift by 7 (5) or more.
            let threads = match (op, self.constants.get(&b)) {
                (BinOp::Div, Some(divisor)) if *divisor > 0 => *divisor,
                (BinOp::Shr, Some(shift)) if (0..63).contains(shift) => 1 << shift,
                _ => 1,
            };
            return match threads {
                threads if threads % 128 == 0 => Class::Uniform,
                threads if threads % 32 == 0 => Class::Warp,
                _ => Class::Divergent,
            };
        }
        self.join(&[a, b])
    }

    /// `thread_idx.x` compared with a boundary between warpgroups (`thread_idx.x >= 128`)
    /// is the same across each warpgroup, with one between warps the same per warp;
    /// otherwise the join.
    fn compare(&self, op: CmpOp, a: ValueId, b: ValueId) -> Class {
        let boundary = match (op, self.constants.get(&b)) {
            (CmpOp::Lt | CmpOp::Ge, Some(bound)) => Some(*bound),
            (CmpOp::Le | CmpOp::Gt, Some(bound)) => bound.checked_add(1),
            _ => None,
        };
        match boundary {
            Some(boundary) if self.class(a) == Class::ThreadX && boundary % 128 == 0 => {
                Class::Uniform
            }
            Some(boundary) if self.class(a) == Class::ThreadX && boundary % 32 == 0 => Class::Warp,
            _ => self.join(&[a, b]),
        }
    }

    /// A loop's carried values: each parameter joins its initial value and its yield
    /// (divergent under divergent control), and the results follow the parameters.
    fn carry(
        &mut self,
        inits: &[ValueId],
        body: &mut crate::ir::Region,
        results: &[ValueId],
        control: Class,
    ) {
        let carried = body.params.len().saturating_sub(inits.len());
        for (param, init) in body.params[carried..].iter().zip(inits) {
            self.set(*param, self.join(&[*init]));
        }
        self.block(&mut body.body, control);
        for (index, param) in body.params[carried..].iter().enumerate() {
            let yielded: Vec<ValueId> = body.yields.get(index).copied().into_iter().collect();
            let class = self.join(&yielded).max_with(control.under_control());
            self.set(*param, class);
            if let Some(result) = results.get(index) {
                self.set(*result, self.class(*param).max_with(class));
            }
        }
    }

    fn collective(&mut self, span: Span, what: &str, control: Class) {
        if control.splits_warp() {
            self.collectives.push(Collective {
                span,
                what: what.to_owned(),
                unit: "warp",
            });
        }
    }
}

impl Class {
    /// Its place in the order uniform, warp, thread x, divergent.
    fn rank(self) -> u8 {
        match self {
            Class::Uniform => 0,
            Class::Warp => 1,
            Class::ThreadX => 2,
            Class::Divergent => 3,
        }
    }

    /// The least class above both (a combination of thread x is divergent).
    fn max_with(self, other: Class) -> Class {
        match self.rank().max(other.rank()) {
            0 => Class::Uniform,
            1 => Class::Warp,
            _ => Class::Divergent,
        }
    }

    /// Whether control under a condition of this class may split a warp.
    fn splits_warp(self) -> bool {
        self.rank() >= Class::ThreadX.rank()
    }

    /// What a value yielded under control of this class is at least.
    fn under_control(self) -> Class {
        self.max_with(Class::Uniform)
    }
}
