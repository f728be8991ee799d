//! A row: the static description of one kind of intrinsic, with the roles of its
//! operands, the threads that execute it, its memory effects and its least target.

use super::Intrinsic;
use crate::ir::{Space, Ty};

/// The static description of one kind of [`Intrinsic`].
#[derive(Debug)]
pub struct Row {
    /// The name in KIR's text form.
    pub name: &'static str,
    /// The names of its integer parameters, in [`Intrinsic::numbers`]' order.
    pub numbers: &'static [&'static str],
    /// Its operands, in order.
    pub operands: &'static [Role],
    /// Then as many operands of this role as [`Intrinsic::list_len`] says (a TMA's
    /// coordinates, one per dimension).
    pub list: Option<Role>,
    /// The types of its results.
    pub results: &'static [Ty],
    /// Whether [`Intrinsic::list_len`] more results follow, each 32 bits of any type
    /// (the registers a tensor-memory load fills).
    pub result_words: bool,
    /// The threads that execute it together.
    pub scope: Scope,
    /// Whether every thread of its scope (at least of its warp) must execute it
    /// converged: under control that may differ within the scope it is an error.
    pub convergent: bool,
    /// What it does to memory.
    pub effects: Effects,
    /// The least target that has it.
    pub target: Target,
    /// Makes the instruction from its numbers, if they are a form the hardware has.
    pub build: fn(&[u32]) -> Option<Intrinsic>,
}

/// An operand's name (for the text form and readers) and what it must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Role {
    /// Its name.
    pub name: &'static str,
    /// What it is.
    pub kind: RoleKind,
}

/// What an operand must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoleKind {
    /// An address in this space (a register of its address type), with a byte offset
    /// folded into the instruction.
    Address(Space),
    /// A value of this type, in a register; no offset.
    Value(Ty),
    /// A 32-bit value of any type (`b32`, `i32`, `u32` or `f32`), in a register; no
    /// offset.
    Word,
}

/// Which threads execute an instruction together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// Each thread on its own.
    Thread,
    /// The threads of a warp.
    Warp,
    /// The four warps of a warpgroup.
    Warpgroup,
    /// Threads of the block (a named barrier's count of them).
    Block,
    /// The threads of every block of the cluster.
    Cluster,
    /// Every thread of the grid and the host.
    System,
}

impl Scope {
    /// Its name in words (`"warpgroup"`).
    pub fn name(self) -> &'static str {
        match self {
            Scope::Thread => "thread",
            Scope::Warp => "warp",
            Scope::Warpgroup => "warpgroup",
            Scope::Block => "block",
            Scope::Cluster => "cluster",
            Scope::System => "system",
        }
    }
}

/// What an instruction does to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Effects {
    /// The spaces it reads.
    pub reads: &'static [Space],
    /// The spaces it writes.
    pub writes: &'static [Space],
    /// Whether it involves the asynchronous proxy (TMA, wgmma, tcgen05).
    pub async_proxy: bool,
    /// Whether it orders other threads' or proxies' memory accesses (a fence or a
    /// barrier): no access moves across it.
    pub orders: bool,
}

/// The least target an instruction needs: `sm_{sm}`, with `a` when `arch_specific`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The compute capability times ten (90: sm_90).
    pub sm: u32,
    /// Whether only the architecture-specific target has it (sm_90a, not sm_90).
    pub arch_specific: bool,
}
