//! The instructions: a kernel body is a list of instructions over typed values, each
//! value defined once, each instruction carrying the span of the source that produced
//! it. Control flow is structured: a loop or a branch is one instruction holding
//! [`Region`]s, and the values that change across it (a loop counter, an
//! accumulator, a stage index) are the region's parameters, yielded at its end and
//! returned as the instruction's results, as in MLIR's `scf` dialect.

mod arith;
mod operands;
mod types;

pub use arith::{ArithRow, BinOp, TypeRule, UnOp};
pub(crate) use operands::{replace_uses, resolve};
pub use types::{Narrow, Space, Special, Ty};

use lang::Span;

use crate::format::Format;
use crate::intrinsic::{Intrinsic, Scope};
use crate::signature::Signature;
use crate::warp::WarpAtom;

/// A value: the result of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

/// A warp shuffle's pattern (`shfl.sync`'s mode).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShuffleMode {
    /// From lane `lane - delta`; lanes below `delta` keep their own value.
    Up,
    /// From lane `lane + delta`; lanes at or beyond `32 - delta` keep their own value.
    Down,
    /// From lane `lane ^ mask`.
    Xor,
    /// From lane `source`.
    Index,
}

impl ShuffleMode {
    /// The name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            ShuffleMode::Up => "up",
            ShuffleMode::Down => "down",
            ShuffleMode::Xor => "xor",
            ShuffleMode::Index => "idx",
        }
    }
}

/// A read-modify-write of memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `*address += value`.
    Add,
    /// `*address = max(*address, value)`.
    Max,
    /// `*address = min(*address, value)`.
    Min,
}

impl AtomicOp {
    /// The name in the text form and in PTX.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Max => "max",
            AtomicOp::Min => "min",
        }
    }
}

/// A nested list of instructions: its parameters (defined on entry), its body, and
/// the values it yields on exit (to its next iteration or to its instruction's
/// results). Values defined inside are visible only inside.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Region {
    /// The values defined on entry.
    pub params: Vec<ValueId>,
    /// The instructions.
    pub body: Vec<Inst>,
    /// The values handed on at the end.
    pub yields: Vec<ValueId>,
}

/// An atom's address operand: its placeholder's name, a value and a byte offset.
pub type AddressOperand = (String, ValueId, i64);

/// An atom's register-list operand: its placeholder's name and 32-bit values.
pub type RegisterList = (String, Vec<ValueId>);

/// What an instruction does.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// An integer constant of the result's type.
    ConstInt(i64),
    /// A float constant of the result's type.
    ConstFloat(f64),
    /// The kernel's parameter at this index: an integer, a float, a bool's 32-bit 0 or
    /// 1, or a tensor's address.
    Param(usize),
    /// A hardware register.
    Special(Special),
    /// The shared-memory address of the kernel's dynamic shared memory.
    SharedBase,
    /// `op a`.
    Unary(UnOp, ValueId),
    /// `a op b`, both of the result's type.
    Binary(BinOp, ValueId, ValueId),
    /// `a * b + c` rounded once, all of the result's (float) type.
    Fma(ValueId, ValueId, ValueId),
    /// `a cmp b`, a predicate.
    Compare(CmpOp, ValueId, ValueId),
    /// `condition ? a : b`, `a` and `b` of the result's type.
    Select(ValueId, ValueId, ValueId),
    /// A conversion (or reinterpretation of raw bits) to the result's type.
    Convert(ValueId),
    /// Two 16-bit values packed into 32 bits, the first in the low half.
    Pack(ValueId, ValueId),
    /// The two 16-bit halves of 32 bits, low first: two results.
    Unpack(ValueId),
    /// Loads one result per word from `address + offset` bytes (a vector load when
    /// there are 2 or 4 results), skipped where `predicate` is false. With `narrow`,
    /// each word is that many bits in memory, extended into its 32-bit result as its
    /// signedness says.
    Load {
        /// The memory space.
        space: Space,
        /// The base address.
        address: ValueId,
        /// A byte offset folded into the instruction.
        offset: i64,
        /// The width in memory of each word, where narrower than its register.
        narrow: Option<Narrow>,
        /// Whether to load at all.
        predicate: Option<ValueId>,
    },
    /// Stores `values` (one word each, a vector store for 2 or 4) at
    /// `address + offset` bytes, skipped where `predicate` is false. With `narrow`,
    /// each word's low bits of that width.
    Store {
        /// The memory space.
        space: Space,
        /// The base address.
        address: ValueId,
        /// A byte offset folded into the instruction.
        offset: i64,
        /// The width in memory of each word, where narrower than its register.
        narrow: Option<Narrow>,
        /// The words.
        values: Vec<ValueId>,
        /// Whether to store at all.
        predicate: Option<ValueId>,
    },
    /// An atom's instruction: its PTX template, with `{name}` placeholders replaced
    /// by address operands (`register+offset`) and `{{name}}` by register lists
    /// (`{%r1, %r2}`), one of which may be the instruction's results.
    Atom {
        /// The template, as the stdlib writes it.
        template: String,
        /// The address operands by placeholder name: a value and a byte offset.
        operands: Vec<AddressOperand>,
        /// The register-list operands by placeholder name (32-bit values).
        registers: Vec<RegisterList>,
        /// The register-list placeholder the instruction's results fill, if any.
        output: Option<String>,
        /// For a warp-collective atom, how it moves or combines the warp's values
        /// (its stdlib atom's thread-value layouts).
        warp: Option<Box<WarpAtom>>,
        /// Whether to issue it at all.
        predicate: Option<ValueId>,
        /// The threads that execute it together (its stdlib atom's `threads`): each
        /// thread alone, a warp or a warpgroup, converged.
        scope: Scope,
    },
    /// A hardware instruction described by its [`crate::intrinsic::Row`]: its operands
    /// in the row's order, each a value and a byte offset (nonzero only for an address
    /// role); its results are the instruction's.
    Intrinsic {
        /// The instruction and its parameters.
        intrinsic: Intrinsic,
        /// The operands.
        operands: Vec<(ValueId, i64)>,
    },
    /// `printf`: the thread writes `format` with `args` (i32, u32, i64, u64, f32 or
    /// f64, one per placeholder) as one line of the launch's output.
    Print {
        /// The text and placeholders.
        format: Format,
        /// The values, in placeholder order.
        args: Vec<ValueId>,
    },
    /// `bar.sync 0`: every thread of the block.
    Barrier,
    /// `bar.warp.sync`: every thread of the warp.
    WarpBarrier,
    /// `cp.async.commit_group`.
    CpAsyncCommit,
    /// `cp.async.wait_group n`.
    CpAsyncWait(i64),
    /// `shfl.sync` over the whole warp: the value of another lane, chosen by `lane`
    /// (a delta, a mask or a lane index, an i32). Every lane of the warp executes it.
    Shuffle {
        /// The pattern.
        mode: ShuffleMode,
        /// The value sent (32 bits).
        value: ValueId,
        /// The delta, mask or source lane.
        lane: ValueId,
    },
    /// An atomic read-modify-write of `address + offset` bytes: `red` without a
    /// result, `atom` (the old value) with one.
    Atomic {
        /// The operation.
        op: AtomicOp,
        /// The memory space.
        space: Space,
        /// The base address.
        address: ValueId,
        /// A byte offset folded into the instruction.
        offset: i64,
        /// The operand.
        value: ValueId,
    },
    /// `for counter in start..end`: `body.params` are the counter (the type of
    /// `start` and `end`) and then one per carried value, initialised from `inits`;
    /// `body.yields` carry them to the next iteration; the results are their values
    /// after the last (the inits when there is none).
    For {
        /// The first counter value.
        start: ValueId,
        /// One past the last.
        end: ValueId,
        /// The carried values' initial values.
        inits: Vec<ValueId>,
        /// The body.
        body: Region,
        /// Whether every thread of a warp runs the same iterations (`bra.uni`).
        uniform: bool,
    },
    /// `if condition { then } else { otherwise }`: neither region has parameters; each
    /// yields one value per result.
    If {
        /// A pred.
        condition: ValueId,
        /// Runs when it is true.
        then: Region,
        /// Runs when it is false.
        otherwise: Region,
        /// Whether every thread of a warp takes the same side (`bra.uni`).
        uniform: bool,
    },
    /// A do-while loop: `body.params` are the carried values, initialised from
    /// `inits`; the body runs, then runs again with its yields while `condition` (a
    /// pred the body defines) is true; the results are the last yields.
    Loop {
        /// The carried values' initial values.
        inits: Vec<ValueId>,
        /// The body.
        body: Region,
        /// Defined in the body: whether to go round again.
        condition: ValueId,
        /// Whether every thread of a warp goes round the same number of times.
        uniform: bool,
    },
}

/// An instruction: what it does, what it defines, where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// The operation.
    pub op: Op,
    /// The values it defines.
    pub results: Vec<ValueId>,
    /// The source that produced it.
    pub span: Span,
}

/// A kernel in KIR.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// How the host calls it.
    pub signature: Signature,
    /// The type of each value, indexed by [`ValueId`].
    pub values: Vec<Ty>,
    /// The instructions, in order.
    pub body: Vec<Inst>,
    /// Where the kernel is declared.
    pub span: Span,
    /// Values computed from the thread index that are the same across each warp
    /// (`thread_idx.x / 128`), under control that keeps warps whole: the emitter
    /// broadcasts lane 0's, so that ptxas knows them to be uniform (an emission hint,
    /// not part of the text form; set by [`crate::mark_uniform`]).
    pub broadcast: Vec<ValueId>,
}

impl Kernel {
    /// An empty kernel.
    pub fn new(signature: Signature, span: Span) -> Kernel {
        Kernel {
            signature,
            values: Vec::new(),
            body: Vec::new(),
            span,
            broadcast: Vec::new(),
        }
    }

    /// The type of `value`.
    pub fn ty(&self, value: ValueId) -> Ty {
        self.values[value.0 as usize]
    }

    /// Appends an instruction defining one value of type `ty`.
    pub fn push(&mut self, op: Op, ty: Ty, span: Span) -> ValueId {
        self.push_many(op, &[ty], span)[0]
    }

    /// Appends an instruction defining one value of each of `tys`.
    pub fn push_many(&mut self, op: Op, tys: &[Ty], span: Span) -> Vec<ValueId> {
        let results: Vec<ValueId> = tys.iter().map(|ty| self.new_value(*ty)).collect();
        self.body.push(Inst {
            op,
            results: results.clone(),
            span,
        });
        results
    }

    /// Appends an instruction that defines nothing.
    pub fn push_effect(&mut self, op: Op, span: Span) {
        self.body.push(Inst {
            op,
            results: Vec::new(),
            span,
        });
    }

    /// A new value of type `ty` that no instruction in the body defines yet: a
    /// region's parameter, or the result of an instruction built elsewhere.
    pub fn new_value(&mut self, ty: Ty) -> ValueId {
        self.values.push(ty);
        ValueId(u32::try_from(self.values.len() - 1).unwrap_or(u32::MAX))
    }
}

/// The regions `op` holds, in execution order: `&Region`s for an `&Op`, `&mut Region`s
/// for an `&mut Op` (one match for [`Op::regions`] and [`Op::regions_mut`]).
macro_rules! regions_of {
    ($op:expr) => {
        match $op {
            Op::For { body, .. } | Op::Loop { body, .. } => vec![body],
            Op::If {
                then, otherwise, ..
            } => vec![then, otherwise],
            _ => Vec::new(),
        }
    };
}

impl Op {
    /// Whether the operation only computes its results (no memory, no barrier, no
    /// communication with other threads, no region): unread, it can go.
    pub fn is_pure(&self) -> bool {
        matches!(
            self,
            Op::ConstInt(_)
                | Op::ConstFloat(_)
                | Op::Param(_)
                | Op::Special(_)
                | Op::SharedBase
                | Op::Unary(..)
                | Op::Binary(..)
                | Op::Fma(..)
                | Op::Compare(..)
                | Op::Select(..)
                | Op::Convert(_)
                | Op::Pack(..)
                | Op::Unpack(_)
        )
    }

    /// An atom's address operands and register lists; `None` for another operation.
    pub fn atom_operands(&self) -> Option<(&[AddressOperand], &[RegisterList])> {
        match self {
            Op::Atom {
                operands,
                registers,
                ..
            } => Some((operands, registers)),
            _ => None,
        }
    }

    /// The operation in a few words, for errors that name an instruction: a region
    /// instruction's keyword (`for`, `if`, `loop`), whose regions would not fit on a
    /// line, and any other operation as it is written in Rust.
    pub fn summary(&self) -> String {
        match self {
            Op::For { .. } => "for".to_owned(),
            Op::If { .. } => "if".to_owned(),
            Op::Loop { .. } => "loop".to_owned(),
            other => format!("{other:?}"),
        }
    }

    /// The regions the instruction holds, mutably, in execution order.
    pub fn regions_mut(&mut self) -> Vec<&mut Region> {
        regions_of!(self)
    }

    /// The regions the instruction holds, in execution order.
    pub fn regions(&self) -> Vec<&Region> {
        regions_of!(self)
    }
}
