//! The rows of the ordered accesses to one 32-bit word of global memory: `ld.acquire`,
//! `st.release`, `red.release ... add` and `atom.acq_rel ... add`, each at one of the
//! four scopes (`cta`, `cluster`, `gpu`, `sys`), so sixteen rows. Facts are the PTX
//! ISA's (`ld`, `st`, `red`, `atom`: `.acquire`/`.release`/`.acq_rel` with a `.scope`
//! from PTX 6.0 on sm_70; `.cluster` from PTX 7.8 on sm_90). Each thread executes them
//! on its own; the word read is a result of any 32-bit type.

use super::{NO_EFFECTS, SM80, SM90, plain};
use crate::intrinsic::{Effects, Intrinsic, MemoryScope, Ordered, Role, RoleKind, Row};
use crate::ir::Space;

/// The address of the word.
const ADDR: Role = Role {
    name: "addr",
    kind: RoleKind::Address(Space::Global),
};
/// The word stored or added.
const VALUE: Role = Role {
    name: "value",
    kind: RoleKind::Word,
};

/// The row of `access` at `scope`, named `name`.
pub(super) const fn row(name: &'static str, access: Ordered, scope: MemoryScope) -> Row {
    let (operands, result_words, writes): (&'static [Role], bool, &'static [Space]) = match access {
        Ordered::LoadAcquire => (&[ADDR], true, &[]),
        Ordered::StoreRelease | Ordered::AddRelease => (&[ADDR, VALUE], false, &[Space::Global]),
        Ordered::FetchAddAcqRel => (&[ADDR, VALUE], true, &[Space::Global]),
    };
    let target = match scope {
        MemoryScope::Cluster => SM90,
        _ => SM80,
    };
    Row {
        operands,
        result_words,
        effects: Effects {
            reads: &[Space::Global],
            writes,
            orders: true,
            ..NO_EFFECTS
        },
        target,
        ..plain(name, builder(access, scope))
    }
}

/// The `build` of the row of `access` at `scope`: no numbers.
const fn builder(access: Ordered, scope: MemoryScope) -> fn(&[u32]) -> Option<Intrinsic> {
    macro_rules! build {
        ($access:ident, $scope:ident) => {
            |numbers: &[u32]| {
                numbers.is_empty().then_some(Intrinsic::Ordered {
                    access: Ordered::$access,
                    scope: MemoryScope::$scope,
                })
            }
        };
    }
    macro_rules! scopes {
        ($access:ident) => {
            match scope {
                MemoryScope::Cta => build!($access, Cta),
                MemoryScope::Cluster => build!($access, Cluster),
                MemoryScope::Gpu => build!($access, Gpu),
                MemoryScope::System => build!($access, System),
            }
        };
    }
    match access {
        Ordered::LoadAcquire => scopes!(LoadAcquire),
        Ordered::StoreRelease => scopes!(StoreRelease),
        Ordered::AddRelease => scopes!(AddRelease),
        Ordered::FetchAddAcqRel => scopes!(FetchAddAcqRel),
    }
}
