//! One kernel instantiation's trace ([`KernelTrace`]): its const arguments, run-time
//! parameters, launch, shared buffers and effects.

use cute::Dtype;
use lang::Span;
use layout::{Layout, SymInt};

use crate::Effect;

/// The value of a kernel's const parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstArg {
    /// An integer.
    Int(i64),
    /// A dtype.
    Dtype(Dtype),
}

/// A run-time parameter of a traced kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceParam {
    /// Its name.
    pub name: String,
    /// Its type.
    pub kind: TraceParamKind,
}

/// The type of a traced kernel's parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceParamKind {
    /// An integer; the variable that stands for it in [`SymInt`]s.
    Int(Dtype, String),
    /// A float or bool scalar.
    Scalar(Dtype),
    /// A global tensor with this element type and layout.
    Tensor(Dtype, Layout<SymInt>),
    /// A TMA tensor map the host encodes over the tensor parameter `tensor` (hidden:
    /// callers do not pass it), as `make_tma_load` found it.
    TensorMap {
        /// The tensor parameter's index.
        tensor: usize,
        /// The tensor's modes, innermost first.
        modes: Vec<usize>,
        /// The box's extent per map dimension.
        box_shape: Vec<u32>,
        /// The swizzle span in bytes (0: none).
        swizzle: u32,
    },
    /// A parameter whose type the checker could not establish.
    Unknown,
}

impl KernelTrace {
    /// The index of the integer parameter that `variable` stands for in [`SymInt`]s.
    pub fn int_param(&self, variable: &str) -> Option<usize> {
        self.params.iter().position(
            |param| matches!(&param.kind, TraceParamKind::Int(_, name) if name == variable),
        )
    }
}

/// A shared-memory buffer of a traced kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceBuffer {
    /// The `let` name, or `buffer`.
    pub name: String,
    /// The allocation.
    pub span: Span,
    /// Its size.
    pub bytes: i64,
    /// The alignment its start needs, in bytes (a power of two, at least 128).
    pub align: i64,
}

/// One kernel instantiation as the checker found it.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelTrace {
    /// The kernel's name.
    pub name: String,
    /// Its name's span.
    pub span: Span,
    /// Its const parameters' values, in declaration order; `None` for one that is
    /// neither an integer nor a dtype.
    pub const_args: Vec<(String, Option<ConstArg>)>,
    /// Its run-time parameters.
    pub params: Vec<TraceParam>,
    /// `grid(...)`, up to three extents over the integer parameters' variables.
    pub grid: Vec<SymInt>,
    /// `block(...)`, up to three constant extents.
    pub block: Vec<SymInt>,
    /// `cluster(...)`: blocks per cluster, x y z (`[1, 1, 1]` without a cluster).
    pub cluster: [u32; 3],
    /// The shared-memory buffers.
    pub shared: Vec<TraceBuffer>,
    /// `smem(N)`: the bytes of shared memory the block is launched with (at least
    /// what the buffers take); `None` for `smem(auto)` or no `smem` part, where the
    /// buffers decide.
    pub requested_shared: Option<i64>,
    /// What it does.
    pub effects: Vec<Effect>,
    /// Whether the checker found errors in this instantiation.
    pub has_errors: bool,
    /// Whether this is the kernel with its default const parameters (no const
    /// argument given).
    pub is_default: bool,
    /// For each peer view (`peer(t, r)`, a tensor whose base is `cute::Base::Peer`),
    /// the variable an [`crate::Effect::Define`] gives the address of its entry in the
    /// peer table: the table parameter plus 8 bytes per rank.
    pub peers: Vec<String>,
    /// For each cluster view (`cluster_view(s, r)`, a tensor whose base is
    /// `cute::Base::Cluster`), the variable an [`crate::Effect::Define`] gives the rank
    /// of its block in the cluster (an i32).
    pub cluster_ranks: Vec<String>,
    /// What the kernel requires of the values in its integer tensor arguments
    /// (`require_range`, `require_offsets`), which the host checks before each launch.
    pub element_requirements: Vec<ElementRequirement>,
}

/// A statement of what the elements of integer tensor parameter `param` hold, over the
/// integer parameters' variables.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementRequirement {
    /// The tensor parameter's index.
    pub param: usize,
    /// What its elements must satisfy.
    pub rule: ElementRule,
    /// The call.
    pub span: Span,
}

/// What the elements of an integer tensor parameter must satisfy.
#[derive(Clone, Debug, PartialEq)]
pub enum ElementRule {
    /// `require_range(tensor, low, high)`: every element lies in `low..high`.
    Range {
        /// The least value allowed.
        low: SymInt,
        /// One past the largest.
        high: SymInt,
    },
    /// `require_offsets(tensor, total, max_step?)`: the 1-D tensor is an offsets array
    /// (packed sequences' starts): it starts at 0, never decreases, ends at `total`,
    /// and no step between neighbours exceeds `max_step` when there is one.
    Offsets {
        /// What the last element equals.
        total: SymInt,
        /// The largest step allowed, if any.
        max_step: Option<SymInt>,
    },
}
