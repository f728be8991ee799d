//! The rows of the TMA copies (`cp.async.bulk.tensor`, sm_90; PTX ISA "Data Movement
//! and Conversion Instructions: cp.async.bulk.tensor"): a load of a box into this
//! block's shared memory, to every block of a cluster mask, or a CTA pair's (sm_100a),
//! completing on an mbarrier; and a store of a shared tile in the thread's bulk group,
//! overwriting the box or adding to it (`cp.reduce.async.bulk.tensor`).
//! Each takes the box's coordinates as a list of operands, one per dimension.

use super::{BAR, SM100A, plain, value};
use crate::intrinsic::{Effects, Intrinsic, Role, RoleKind, Row, TmaReach};
use crate::ir::{Space, Ty};

pub(super) const LOAD: Row = tma_load_row("tma_load", &[DST, MAP, BAR], TmaReach::Block);
pub(super) const LOAD_MULTICAST: Row = tma_load_row(
    "tma_load_multicast",
    &[DST, MAP, BAR, value("mask")],
    TmaReach::Multicast,
);
// `mapa` takes the barrier's address in a register, without an offset.
pub(super) const LOAD_PAIR: Row = Row {
    target: SM100A,
    ..tma_load_row("tma_load_pair", &[DST, MAP, value("bar")], TmaReach::Pair)
};
pub(super) const STORE: Row = tma_store_row("tma_store", |n| tma_store(false, n));
pub(super) const STORE_ADD: Row = tma_store_row("tma_reduce_add", |n| tma_store(true, n));

impl crate::Element {
    /// The type a TMA reduce-add of these elements adds in, for the kinds CuK allows
    /// (`cp.reduce.async.bulk.tensor .add` has f32 (flushing subnormals), s32 and u32
    /// among its forms); `None` for the others. The checker refuses those at the call,
    /// and the emulator adds in this type.
    pub fn tma_reduce_add_type(self) -> Option<Ty> {
        match self {
            crate::Element::F32 => Some(Ty::F32),
            crate::Element::I32 => Some(Ty::I32),
            crate::Element::U32 => Some(Ty::U32),
            _ => None,
        }
    }
}

/// A TMA store's row (`cp.async.bulk.tensor`, or `cp.reduce.async.bulk.tensor .add`):
/// the map, the source tile and then the coordinates.
const fn tma_store_row(name: &'static str, build: fn(&[u32]) -> Option<Intrinsic>) -> Row {
    Row {
        numbers: &["rank"],
        operands: &[MAP, SRC],
        list: Some(COORD),
        effects: Effects {
            reads: &[Space::Shared],
            writes: &[Space::Global],
            async_proxy: true,
            orders: false,
        },
        ..plain(name, build)
    }
}

/// A TMA store of a box of 1 to 5 dimensions, adding when `add`.
fn tma_store(add: bool, numbers: &[u32]) -> Option<Intrinsic> {
    match *numbers {
        [rank] if (1..=5).contains(&rank) => Some(Intrinsic::TmaStore { rank, add }),
        _ => None,
    }
}

/// A TMA copy's tensor map, a generic address.
const MAP: Role = Role {
    name: "map",
    kind: RoleKind::Value(Ty::I64),
};
/// A TMA load's destination tile.
const DST: Role = Role {
    name: "dst",
    kind: RoleKind::Address(Space::Shared),
};
/// A TMA store's source tile.
const SRC: Role = Role {
    name: "src",
    kind: RoleKind::Address(Space::Shared),
};
/// A TMA box's coordinate in one dimension.
const COORD: Role = value("coords");

/// A TMA load's row, of `reach`, on `operands` and then its coordinates.
const fn tma_load_row(name: &'static str, operands: &'static [Role], reach: TmaReach) -> Row {
    let build: fn(&[u32]) -> Option<Intrinsic> = match reach {
        TmaReach::Block => |n| tma_load(TmaReach::Block, n),
        TmaReach::Multicast => |n| tma_load(TmaReach::Multicast, n),
        TmaReach::Pair => |n| tma_load(TmaReach::Pair, n),
    };
    Row {
        numbers: &["rank"],
        operands,
        list: Some(COORD),
        effects: Effects {
            reads: &[Space::Global],
            writes: &[Space::Shared],
            async_proxy: true,
            orders: false,
        },
        ..plain(name, build)
    }
}

/// A TMA load of a box of 1 to 5 dimensions.
fn tma_load(reach: TmaReach, numbers: &[u32]) -> Option<Intrinsic> {
    match *numbers {
        [rank] if (1..=5).contains(&rank) => Some(Intrinsic::TmaLoad { rank, reach }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::Element;
    use crate::ir::Ty;

    #[test]
    fn a_tma_reduce_add_adds_f32_i32_and_u32_in_their_own_types_only() {
        let adding: Vec<(Element, Ty)> = (Element::ALL.iter())
            .filter_map(|element| Some((*element, element.tma_reduce_add_type()?)))
            .collect();
        assert_eq!(
            adding,
            [
                (Element::F32, Ty::F32),
                (Element::I32, Ty::I32),
                (Element::U32, Ty::U32)
            ]
        );
    }
}
