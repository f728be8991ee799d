//! Distributed shared memory: the accesses peer blocks of the cluster make to this
//! block's shared memory (`cluster_view`, `ld`/`st.shared::cluster`). Each peer thread
//! has a name of its own in the shadow ([`remote_thread`]), above every block's thread
//! indices, so the race checks tell it from this block's threads; such an access is
//! ordered with another only by the cluster barrier, which starts a new cluster epoch
//! in every block ([`SharedMemory::cluster_barrier`]).
//!
//! A block's shared memory goes away when it exits, so a peer's access must be
//! ordered before the exit by a cluster barrier the block waits at:
//! [`SharedMemory::unordered_remote`] is the latest access no such barrier orders.

use lang::Span;

use super::SharedMemory;

/// The bit that marks a peer's thread in the shadow.
const REMOTE: u32 = 1 << 31;
/// The bits of a thread's index within its block (at most 1024 threads).
const THREAD_BITS: u32 = 10;

/// The shadow's name for thread `thread` of the cluster's block `rank` when it reaches
/// into another block's shared memory.
pub fn remote_thread(rank: u32, thread: u32) -> u32 {
    REMOTE | rank << THREAD_BITS | thread
}

/// The block rank and thread index a peer thread's name stands for; `None` for a
/// thread of this block.
pub fn remote_origin(thread: u32) -> Option<(u32, u32)> {
    (thread & REMOTE != 0).then_some((
        (thread & !REMOTE) >> THREAD_BITS,
        thread & ((1 << THREAD_BITS) - 1),
    ))
}

/// An access by a peer block's thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemoteAccess {
    /// The peer's rank in the cluster.
    pub rank: u32,
    /// The thread's index in its block.
    pub thread: u32,
    /// The instruction.
    pub span: Span,
    /// The cluster epoch it happened in.
    cluster_epoch: u32,
}

impl SharedMemory {
    /// Every thread of the cluster passed a cluster barrier: a new epoch begins here,
    /// ordering peers' accesses too.
    pub fn cluster_barrier(&mut self) {
        self.epoch += 1;
        self.cluster_epoch += 1;
    }

    /// Records that thread `thread` of block `rank` accessed this memory at `span`.
    pub fn remote_access(&mut self, rank: u32, thread: u32, span: Span) {
        self.remote = Some(RemoteAccess {
            rank,
            thread,
            span,
            cluster_epoch: self.cluster_epoch,
        });
    }

    /// The latest peer access that no cluster barrier since orders (before the block's
    /// exit: the peer may reach the memory after it is gone).
    pub fn unordered_remote(&self) -> Option<RemoteAccess> {
        self.remote
            .filter(|access| access.cluster_epoch == self.cluster_epoch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::{Access, Trap};
    use crate::shared::Accessor;

    fn at(thread: u32, start: u32) -> Accessor {
        Accessor {
            thread,
            warp_epoch: 0,
            span: Span::new(start, start + 1),
        }
    }

    #[test]
    fn peer_names_round_trip_and_stay_apart_from_local_threads() {
        let name = remote_thread(3, 1023);
        assert_eq!(remote_origin(name), Some((3, 1023)));
        assert_eq!(remote_origin(1023), None);
        assert_ne!(remote_thread(0, 5) / 32, 5 / 32);
    }

    #[test]
    fn only_a_cluster_barrier_orders_a_peer_write_with_a_local_read() {
        let mut shared = SharedMemory::new(64);
        let peer = at(remote_thread(1, 0), 10);
        shared
            .write(&peer, 0, &[1, 2, 3, 4], Access::Store)
            .unwrap();
        // A block barrier does not order the peer's write.
        shared.barrier();
        let mut out = [0; 4];
        let race = shared.read(&at(0, 20), 0, &mut out);
        assert!(
            matches!(race, Err(Trap::Race { other_thread, .. }) if other_thread == peer.thread)
        );
        // After a cluster barrier, the write is visible.
        shared.cluster_barrier();
        shared.read(&at(0, 30), 0, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3, 4]);
    }

    #[test]
    fn a_peer_read_races_with_a_later_local_write_across_block_barriers() {
        let mut shared = SharedMemory::new(64);
        shared.write(&at(0, 1), 0, &[0; 4], Access::Store).unwrap();
        shared.cluster_barrier();
        let mut out = [0; 4];
        shared
            .read(&at(remote_thread(2, 7), 10), 0, &mut out)
            .unwrap();
        shared.barrier();
        let race = shared.write(&at(1, 20), 0, &[9; 4], Access::Store);
        assert!(matches!(race, Err(Trap::Race { .. })));
    }

    #[test]
    fn an_access_is_unordered_until_the_next_cluster_barrier() {
        let mut shared = SharedMemory::new(8);
        assert_eq!(shared.unordered_remote(), None);
        shared.remote_access(1, 4, Span::new(5, 6));
        assert_eq!(shared.unordered_remote().map(|access| access.rank), Some(1));
        shared.barrier();
        assert!(shared.unordered_remote().is_some());
        shared.cluster_barrier();
        assert_eq!(shared.unordered_remote(), None);
    }
}
