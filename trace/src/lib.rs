//! What a kernel does at run time, as the checker found it: the input of lowering.
//!
//! The typechecker produces a [`KernelTrace`] per kernel instantiation; `lower` turns it
//! into KIR; [`to_text`] prints it (`cukc build --emit trace`).
//! For host code it hands over the file's `const` items as it evaluated them
//! ([`ConstBinding`]) and the const arguments of each kernel instantiation a launch
//! asks for ([`Instantiated`]), which the runtime's interpreter reads instead of
//! evaluating them again.
//!
//! Checking a kernel evaluates everything const; what remains for the GPU is a
//! residual program: a tree of [`Effect`]s in program order (copies, loads and
//! stores, barriers, and the run-time loops and branches that hold more effects) over
//! tensors whose layouts are already evaluated, and [`Term`]s for the run-time scalars
//! those effects compute. Every value that is not a pure function of others has an
//! identity: a load's [`LoadId`], a variable that a [`Effect::ReadCell`], a shuffle or
//! an atomic defines. Mutable locals that change under run-time control flow are
//! cells, written by [`Effect::WriteCell`] and read by [`Effect::ReadCell`]. A tensor
//! knows where its elements live ([`cute::Base`]), so lowering needs no names: an
//! element's address is its base plus its layout evaluated at a coordinate, an
//! expression in the kernel's run-time integers ([`SymInt`] variables: parameters,
//! `thread_idx.x`, `block_idx.y`, loop counters, cell reads).

mod asynchronous;
mod host;
mod kernel;
mod term;
mod text;

use std::sync::Arc;

use cute::{Atom, Dtype, Tensor};
use lang::Span;
use layout::SymInt;

/// One thing a kernel does at run time, in program order.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// `copy(atom?, src, dst, pred = ...)`: partitions already made, modes congruent.
    Copy {
        /// The atom, or `None` for an element-by-element copy.
        atom: Option<Arc<Atom>>,
        /// The source.
        source: Arc<Tensor>,
        /// The destination.
        destination: Arc<Tensor>,
        /// A bool tensor of the source's size: which values move.
        predicate: Option<Arc<Tensor>>,
        /// The call.
        span: Span,
    },
    /// `tensor[i]` read as a value, or `tensor.load()` (no index): the values are read
    /// here, in program order, whatever happens to the memory later;
    /// [`Term::Loaded`] refers to them.
    Load {
        /// Its identity.
        id: LoadId,
        /// The tensor.
        tensor: Arc<Tensor>,
        /// The layout's value of the element, or `None` for the whole fragment.
        index: Option<SymInt>,
        /// For an integer element: the [`SymInt`] variable that stands for it.
        variable: Option<String>,
        /// A bool: the load happens only where it is true (a load in the right operand
        /// of `&&` or `||`, which C evaluates only where the left one requires it);
        /// elsewhere its values are unspecified and unused.
        guard: Option<Arc<Term>>,
        /// The expression.
        span: Span,
    },
    /// `tensor[i] = value`.
    StoreElement {
        /// The tensor.
        tensor: Arc<Tensor>,
        /// The layout's value of the element.
        index: SymInt,
        /// What is stored.
        value: Arc<Term>,
        /// The assignment.
        span: Span,
    },
    /// `tensor.store(value)`, a fragment value element by element.
    StoreFragment {
        /// The tensor.
        tensor: Arc<Tensor>,
        /// What is stored: a term whose fragments have the tensor's size.
        value: Arc<Term>,
        /// The call.
        span: Span,
    },
    /// `syncthreads()`.
    Barrier(Span),
    /// `syncwarp()`.
    WarpBarrier(Span),
    /// `cp_async_commit_group()`.
    CpAsyncCommit(Span),
    /// `cp_async_wait_group(n)`.
    CpAsyncWait(i64, Span),
    /// A register fragment comes into being (its elements are zero until stored):
    /// a fragment allocated in a loop's body is new in each iteration.
    Registers(u32, Span),
    /// Names a run-time integer that symbolic arithmetic cannot express (`a & b`,
    /// `min(a, b)` of run-time values): the [`SymInt`] variable `variable` holds
    /// `value`, computed here.
    Define {
        /// The variable.
        variable: String,
        /// Its value.
        value: Arc<Term>,
        /// The expression.
        span: Span,
    },
    /// Sets a cell to a value.
    WriteCell {
        /// The cell.
        cell: CellId,
        /// The cell's type (integers are carried as `i64`).
        dtype: Dtype,
        /// The value.
        value: Arc<Term>,
        /// The assignment, or the control flow the cell enters.
        span: Span,
    },
    /// Reads a cell into a new variable (a [`SymInt`] variable for an integer cell, a
    /// [`Term::Variable`] otherwise).
    ReadCell {
        /// The cell.
        cell: CellId,
        /// Its type.
        dtype: Dtype,
        /// The variable defined.
        variable: String,
        /// Where.
        span: Span,
    },
    /// `for counter in start..end { body }` at run time.
    For {
        /// The counter's [`SymInt`] variable.
        counter: String,
        /// The first value.
        start: SymInt,
        /// One past the last.
        end: SymInt,
        /// What each iteration does.
        body: Vec<Effect>,
        /// The loop.
        span: Span,
    },
    /// `if condition { then } else { otherwise }` at run time.
    If {
        /// A bool.
        condition: Arc<Term>,
        /// Runs when it is true.
        then: Vec<Effect>,
        /// Runs when it is false.
        otherwise: Vec<Effect>,
        /// The `if`.
        span: Span,
    },
    /// A loop that runs `body`, then again while `condition` (computed by the body)
    /// holds: a `while` loop is one whose body tests its condition first.
    Loop {
        /// What each iteration does.
        body: Vec<Effect>,
        /// A bool computed in the body.
        condition: Arc<Term>,
        /// The loop.
        span: Span,
    },
    /// `gemm(tiled_mma, d, a, b, c)`: `d = a * b + c` over the thread's register
    /// fragments, one MMA atom instruction per (m, n, k) step.
    Gemm {
        /// The MMA atom.
        atom: Arc<Atom>,
        /// `(V, M, N)` results.
        d: Arc<Tensor>,
        /// `(V, M)` or `(V, M, K)`.
        a: Arc<Tensor>,
        /// `(V, N)` or `(V, N, K)`.
        b: Arc<Tensor>,
        /// `(V, M, N)` accumulators.
        c: Arc<Tensor>,
        /// `accumulate = ...`: a bool; when false the first k step ignores C
        /// (wgmma's scale-d), so no branch needs to zero the accumulators.
        accumulate: Option<Arc<Term>>,
        /// The call.
        span: Span,
    },
    /// A warp shuffle: every lane of the warp sends `value` and receives another
    /// lane's, defining `variable`.
    Shuffle {
        /// The pattern.
        mode: Shuffle,
        /// What is sent (32 bits).
        value: Arc<Term>,
        /// The delta, mask or source lane.
        lane: Arc<Term>,
        /// The value received.
        variable: String,
        /// Its type.
        dtype: Dtype,
        /// The call.
        span: Span,
    },
    /// `elect_one()`: every lane of the warp takes part; `variable`, a bool, is true in
    /// one of them.
    Elect {
        /// The bool defined.
        variable: String,
        /// The call.
        span: Span,
    },
    /// An atomic read-modify-write of one element of a global or shared tensor.
    Atomic {
        /// The operation.
        op: Atomic,
        /// The tensor.
        tensor: Arc<Tensor>,
        /// The layout's value of the element.
        index: SymInt,
        /// The operand.
        value: Arc<Term>,
        /// The variable that holds the old value, when it is used.
        old: Option<String>,
        /// The call.
        span: Span,
    },
    /// An mbarrier operation on one element of a shared `u64` tensor.
    Mbarrier {
        /// Which.
        action: Mbarrier,
        /// The tensor of barriers.
        tensor: Arc<Tensor>,
        /// The layout's value of the barrier.
        index: SymInt,
        /// The arrival count, the transaction bytes or the parity (an integer).
        operand: Option<Arc<Term>>,
        /// The call.
        span: Span,
    },
    /// A hardware instruction on one element of a global tensor (an ordered load, store
    /// or add): its first operand is the element's address, its second, if any, `value`
    /// converted to the element's type; `result`, when used, is the variable holding the
    /// element's type of word it defines.
    OnElement {
        /// The instruction.
        intrinsic: kir::Intrinsic,
        /// The tensor.
        tensor: Arc<Tensor>,
        /// The layout's value of the element.
        index: SymInt,
        /// The operand after the address.
        value: Option<Arc<Term>>,
        /// The variable defined by its result.
        result: Option<String>,
        /// The call.
        span: Span,
    },
    /// A hardware instruction that takes no operands, only constant parameters (a fence,
    /// a group commit or wait, `setmaxnreg`, a tcgen05 fence or wait): lowering issues
    /// it as it is.
    Intrinsic(kir::Intrinsic, Span),
    /// `print(format, values...)` or a line of `print_tensor(t)`: the thread writes one
    /// line, the format's text with each placeholder replaced by its value (compile-time
    /// values are already text in `format`).
    Print {
        /// The text and placeholders, ending with its newline.
        format: kir::Format,
        /// One per placeholder: a scalar's term, or a fragment value's term and the
        /// element (in its layout's coordinate order) that is written.
        values: Vec<(Arc<Term>, i64)>,
        /// The call.
        span: Span,
    },
    /// `named_barrier_sync(id, threads)` / `named_barrier_arrive(id, threads)`.
    NamedBarrier {
        /// Whether the thread only arrives (else it waits too).
        arrive: bool,
        /// The barrier, 0 to 15: an integer, constant or not (the same in a warp).
        id: Arc<Term>,
        /// The threads that take part, a multiple of 32.
        threads: i64,
        /// The call.
        span: Span,
    },
    /// `tcgen05_mma(taddr, a, b, accumulate)`: one thread issues `D += A Bᵀ` (kind::f16,
    /// f32 D in tensor memory at `taddr`; A `M x 16` and B `N x 16` shared tiles).
    Tcgen05Mma {
        /// Whether it is a CTA pair's (`cta_group::2`): M = 256, A's rows and half of
        /// B's in each block of the pair.
        pair: bool,
        /// D's tensor-memory address (an integer).
        taddr: Arc<Term>,
        /// A: a shared `(M, K)` tile or an address in tensor memory.
        a: UmmaA,
        /// B's shared tile, `(N, 16)`.
        b: Arc<Tensor>,
        /// Whether D is added to (else `D = A Bᵀ`), a boolean or integer.
        accumulate: Arc<Term>,
        /// The call.
        span: Span,
    },
    /// `tcgen05_ld_32x32b(fragment, taddr)` / `tcgen05_st_32x32b(taddr, fragment)` and
    /// the 16-lane shapes: the warp moves lanes of tensor memory and `fragment`'s values.
    TmemCopy {
        /// Whether it loads into the fragment (else stores from it).
        load: bool,
        /// The shape: `32x32b`, `16x64b`, `16x128b` or `16x256b`.
        shape: &'static str,
        /// The thread's register fragment of 32-bit values.
        fragment: Arc<Tensor>,
        /// The tensor-memory address of the warp's first lane and column.
        taddr: Arc<Term>,
        /// The call.
        span: Span,
    },
    /// A tensor-memory allocation or release of a constant number of columns.
    Tmem {
        /// Which.
        action: Tmem,
        /// Whether it is a CTA pair's (`cta_group::2`).
        pair: bool,
        /// The columns, a power of two from 32 to 512.
        columns: i64,
        /// The call.
        span: Span,
    },
    /// A TMA load of one box into shared memory, completing on an mbarrier.
    TmaLoad {
        /// The tensor-map parameter's index.
        map: usize,
        /// The box's first element's coordinates, in the map's order (innermost first).
        coords: Vec<SymInt>,
        /// The shared tile it fills (its first element is the destination).
        destination: Arc<Tensor>,
        /// The tensor of barriers.
        barriers: Arc<Tensor>,
        /// The layout's value of the barrier the bytes complete on.
        barrier: SymInt,
        /// The blocks of the cluster it goes to, a 16-bit mask of ranks (the same tile
        /// and barrier in each); `None`: this block.
        multicast: Option<Arc<Term>>,
        /// Whether it is a CTA pair's (`cta_group::2`): the box lands in this block and
        /// its bytes complete on the barrier's place in the pair's even block.
        pair: bool,
        /// The call.
        span: Span,
    },
    /// `prefetch_tma(tma)`: the tensor map brought into the cache before its first use.
    TmaPrefetch {
        /// The tensor-map parameter's index.
        map: usize,
        /// The call.
        span: Span,
    },
    /// A TMA store of a shared tile to one box, in the thread's bulk group; with `add`,
    /// each element added to the box's (a TMA reduce-add).
    TmaStore {
        /// The tensor-map parameter's index.
        map: usize,
        /// The box's first element's coordinates, in the map's order.
        coords: Vec<SymInt>,
        /// The shared tile it stores.
        source: Arc<Tensor>,
        /// Whether it adds to global memory rather than overwriting it.
        add: bool,
        /// The call.
        span: Span,
    },
    /// Something lowering cannot do yet, with what it is.
    Unsupported(String, Span),
}

/// `$effect`'s span field, by value or by reference as `$span` binds it.
macro_rules! span_of {
    ($effect:expr) => {
        match $effect {
            Effect::Copy { span, .. }
            | Effect::Load { span, .. }
            | Effect::StoreElement { span, .. }
            | Effect::StoreFragment { span, .. }
            | Effect::Barrier(span)
            | Effect::WarpBarrier(span)
            | Effect::CpAsyncCommit(span)
            | Effect::CpAsyncWait(_, span)
            | Effect::Registers(_, span)
            | Effect::Define { span, .. }
            | Effect::WriteCell { span, .. }
            | Effect::ReadCell { span, .. }
            | Effect::For { span, .. }
            | Effect::If { span, .. }
            | Effect::Loop { span, .. }
            | Effect::Shuffle { span, .. }
            | Effect::Elect { span, .. }
            | Effect::Gemm { span, .. }
            | Effect::Atomic { span, .. }
            | Effect::Mbarrier { span, .. }
            | Effect::Intrinsic(_, span)
            | Effect::OnElement { span, .. }
            | Effect::Print { span, .. }
            | Effect::NamedBarrier { span, .. }
            | Effect::Tmem { span, .. }
            | Effect::Tcgen05Mma { span, .. }
            | Effect::TmemCopy { span, .. }
            | Effect::TmaLoad { span, .. }
            | Effect::TmaStore { span, .. }
            | Effect::TmaPrefetch { span, .. }
            | Effect::Unsupported(_, span) => span,
        }
    };
}

/// Where an effect is in the source.
pub fn effect_span(effect: &Effect) -> Span {
    *span_of!(effect)
}

/// The span of an effect, to change it.
pub fn effect_span_mut(effect: &mut Effect) -> &mut Span {
    span_of!(effect)
}

pub use asynchronous::{Mbarrier, Tmem, UmmaA};
pub use host::{ConstBinding, HostConst, HostFacts, Instantiated, Unheld};
pub use kernel::{
    ConstArg, ElementRequirement, ElementRule, KernelTrace, TraceBuffer, TraceParam, TraceParamKind,
};
pub use term::{Atomic, CellId, LoadId, MathFn, Shuffle, Term};
pub use text::to_text;
