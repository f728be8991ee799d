//! Distributed shared memory between the blocks of a cluster: a thread's load, store
//! or atomic add in a peer's shared memory ([`RemoteKind::Load`], [`RemoteKind::Store`],
//! [`RemoteKind::Add`]),
//! applied there under the thread's peer name ([`remote_thread`]) so the peer's race
//! checks see it, a load's word then written into the waiting thread's register; and
//! where the shadow names a peer's thread, the thread and block it stands for.

use kir::{AtomicOp, Ty};

use crate::block::{Grid, coordinates};
use crate::cluster::Block;
use crate::fault::{Access, FaultKind, Location, Trap};
use crate::shared::{Accessor, remote_origin, remote_thread};
use crate::thread::{Remote, RemoteKind, Status};

impl Grid<'_, '_> {
    /// Applies the load or store `effect` to the block of its rank (which has not
    /// exited); the load's word goes to the issuing thread, which runs on.
    pub(crate) fn apply_dsmem(&self, effect: Remote, blocks: &mut [Block<'_>]) -> Result<(), Trap> {
        let who = Accessor {
            thread: remote_thread(effect.from, effect.index),
            warp_epoch: 0,
            span: effect.span,
        };
        let target = (blocks.get_mut(effect.rank as usize)).ok_or_else(|| missing(effect.rank))?;
        let loaded = match effect.kind {
            RemoteKind::Store { address, bytes } => {
                (target.shared).write(&who, address, &bytes, Access::Store)?;
                None
            }
            RemoteKind::Add {
                address,
                value,
                float,
            } => {
                (target.shared).atomic(&who, address, 4, |old| add_word(old, value, float))?;
                None
            }
            RemoteKind::Load { address, result } => {
                let mut bytes = [0; 4];
                target.shared.read(&who, address, &mut bytes)?;
                Some((result, u32::from_le_bytes(bytes)))
            }
            _ => return Ok(()),
        };
        (target.shared).remote_access(effect.from, effect.index, effect.span);
        if let Some((result, word)) = loaded {
            let thread = (blocks.get_mut(effect.from as usize))
                .and_then(|block| block.threads.get_mut(effect.index as usize))
                .ok_or_else(|| missing(effect.from))?;
            thread.set(result, u64::from(word));
            thread.status = Status::Runnable;
        }
        Ok(())
    }

    /// Where thread `thread` of the shadow of `block`'s shared memory is: one of its
    /// own, or a peer's ([`remote_origin`]).
    pub(crate) fn shadow_location(&self, block: &Block<'_>, thread: u32) -> Location {
        match remote_origin(thread) {
            Some((rank, thread)) => Location {
                thread: coordinates(u64::from(thread), self.block),
                block: self.cluster_block(block.coordinates, rank),
            },
            None => Location {
                thread: coordinates(u64::from(thread), self.block),
                block: block.coordinates,
            },
        }
    }

    /// The coordinates of block `rank` of the cluster that the block at `coordinates`
    /// belongs to.
    pub(crate) fn cluster_block(&self, coordinates: [u32; 3], rank: u32) -> [u32; 3] {
        let place = crate::block::coordinates(u64::from(rank), self.cluster);
        std::array::from_fn(|d| coordinates[d] / self.cluster[d] * self.cluster[d] + place[d])
    }
}

/// The word `old` (4 bytes, little-endian) plus `value`, as `red.add.f32` (rounded,
/// subnormals flushed) or `red.add.u32` adds them.
pub(crate) fn add_word(old: &[u8], value: u32, float: bool) -> Vec<u8> {
    let ty = if float { Ty::F32 } else { Ty::U32 };
    let old = u64::from(u32::from_le_bytes(old.try_into().unwrap_or_default()));
    let sum = crate::arith::atomic(AtomicOp::Add, ty, old, u64::from(value)).unwrap_or(old);
    (sum as u32).to_le_bytes().to_vec()
}

/// A block the cluster lacks (ruled out when the access was issued).
fn missing(rank: u32) -> Trap {
    Trap::Fault(FaultKind::Cluster(format!("block {rank} of the cluster")))
}

#[cfg(test)]
mod tests {
    use super::add_word;

    #[test]
    fn a_remote_add_is_an_f32_or_a_wrapping_u32_add() {
        let sum = add_word(&1.5f32.to_le_bytes(), 2.25f32.to_bits(), true);
        assert_eq!(sum, 3.75f32.to_le_bytes());
        let wrapped = add_word(&u32::MAX.to_le_bytes(), 2, false);
        assert_eq!(wrapped, 1u32.to_le_bytes());
        // Subnormal inputs flush to zero, as `red.add.f32` does.
        let tiny = f32::from_bits(1);
        let flushed = add_word(&tiny.to_le_bytes(), 0f32.to_bits(), true);
        assert_eq!(flushed, 0f32.to_le_bytes());
    }
}
