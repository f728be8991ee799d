//! KIR, the kernel IR: what is left of a kernel once everything const has been folded.
//!
//! A [`Kernel`] is its [`Signature`] (how the host calls it) and a list of
//! instructions over typed values ([`ir`]): integer and float arithmetic on what is
//! only known at run time (thread and block indices, parameters), loads and stores
//! with their memory space, vector width and a byte offset folded in, atom
//! instructions from the stdlib's PTX templates (a warp-collective one with its
//! thread-value layouts, [`warp`]), hardware instructions as typed data, each described
//! once by a static row ([`intrinsic`]), warp shuffles, atomics, barriers. Values live in one
//! arena indexed by [`ValueId`]; every instruction carries the span of the source that
//! produced it. Control flow is structured: a loop or branch is one instruction
//! holding regions with parameters and yields ([`Region`]). [`verify`] checks the
//! invariants; [`to_text`] prints a kernel and [`from_text`] reads it back.

mod dead;
pub mod format;
pub mod intrinsic;
pub mod ir;
mod packs;
pub mod passes;
mod pure_key;
mod read;
mod read_only;
mod select;
mod shared_work;
pub mod signature;
mod text;
mod uniformity;
mod values;
mod verify;
pub mod warp;
mod wraps;

pub use dead::remove_dead_values;
pub use format::{Format, FormatError, Piece, Style};
pub use intrinsic::{
    Effects, Fence, Intrinsic, MemoryScope, MmaKind, Ordered, Role, RoleKind, Row, RowMismatch,
    Scope, Target, TmaReach, TmemShape,
};
pub use ir::{
    AtomicOp, BinOp, CmpOp, Inst, Kernel, Narrow, Op, Region, ShuffleMode, Space, Special, Ty,
    UnOp, ValueId,
};
pub use pure_key::PureKey;
pub use read::{ReadError, from_text};
pub use select::branches_to_selects;
pub use shared_work::hoist_shared_branch_work;
pub use signature::{
    Alignment, Assumption, ConstValue, Element, ElementRequirement, ElementRule, HostExpr,
    IntParam, Launch, Param, ParamKind, ScalarParam, Signature, TensorMap,
};
pub use text::{compare_name, to_text};
pub use uniformity::{BlockShape, Collective, mark_uniform};
pub use verify::{MAX_CLUSTER_BLOCKS, Verified, VerifyError, operands, verify};
pub use warp::{Mode, TvLayout, WARP_LANES, WarpAtom};
