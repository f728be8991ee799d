//! The rows of Hopper's (sm_90a) wgmma group instructions: the fence before a
//! warpgroup's wgmmas, the commit of its issued wgmmas as a group, and the wait for all
//! but its latest groups. Facts are the PTX ISA's (`wgmma.fence`,
//! `wgmma.commit_group`, `wgmma.wait_group`): each is `.sync.aligned`, executed by the
//! whole warpgroup converged. The wgmma itself is a stdlib atom (`stdlib/sm90.cuk`).

use super::{ORDERS, SM90A, only, plain};
use crate::intrinsic::{Effects, Intrinsic, Row, Scope};

/// A wgmma group instruction's row: the warpgroup's, converged, ordering its wgmmas.
const fn warpgroup_row(
    name: &'static str,
    numbers: &'static [&'static str],
    build: fn(&[u32]) -> Option<Intrinsic>,
) -> Row {
    Row {
        numbers,
        scope: Scope::Warpgroup,
        convergent: true,
        effects: Effects {
            async_proxy: true,
            ..ORDERS
        },
        target: SM90A,
        ..plain(name, build)
    }
}

pub(super) const FENCE: Row = warpgroup_row("wgmma_fence", &[], |n| only(n, Intrinsic::WgmmaFence));
pub(super) const COMMIT: Row =
    warpgroup_row("wgmma_commit", &[], |n| only(n, Intrinsic::WgmmaCommit));
/// Up to 7 groups may stay pending (`wait_group`'s immediate, as CUTLASS's `warpgroup_wait<N>` uses).
pub(super) const WAIT: Row = warpgroup_row("wgmma_wait", &["pending"], |n| match *n {
    [pending] if pending < 8 => Some(Intrinsic::WgmmaWait { pending }),
    _ => None,
});
