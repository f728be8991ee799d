//! The shared tiles that TMA stores still read. A `cp.async.bulk.tensor` store reads its
//! tile some time after it is issued, until the issuing thread's wait covers the store's
//! bulk group (`cp.async.bulk.wait_group.read n` leaves only its n latest groups
//! pending). The emulator copies the tile at issue, so a write to the tile before that
//! wait would go unnoticed: each store's bytes stay here, as the issuing thread's, until
//! then, and a write to any of them is a race.

use lang::Span;

/// One store's tile: bytes `start..end`, read for `thread`'s bulk group `group` (its
/// count of commits when it issued the store).
#[derive(Clone, Copy, Debug)]
struct BulkRead {
    thread: u32,
    group: u32,
    start: u32,
    end: u32,
    span: Span,
}

/// The tiles of the block's TMA stores that no wait has covered yet.
#[derive(Debug, Default)]
pub(super) struct BulkReads {
    pending: Vec<BulkRead>,
}

/// A pending store's thread and instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PendingStore {
    /// The issuing thread's linear index.
    pub thread: u32,
    /// The store.
    pub span: Span,
}

impl BulkReads {
    /// `thread`'s store (at `span`) reads `len` bytes from `start` for its bulk group
    /// `group`.
    pub(super) fn start(&mut self, thread: u32, group: u32, start: u32, len: u32, span: Span) {
        self.pending.push(BulkRead {
            thread,
            group,
            start,
            end: start + len,
            span,
        });
    }

    /// `thread`'s bulk groups before `group` are complete: their stores read no more.
    pub(super) fn complete(&mut self, thread: u32, group: u32) {
        self.pending
            .retain(|read| read.thread != thread || read.group >= group);
    }

    /// The pending store that reads byte `index`, if any.
    pub(super) fn reading(&self, index: u32) -> Option<PendingStore> {
        (self.pending.iter())
            .find(|read| (read.start..read.end).contains(&index))
            .map(|read| PendingStore {
                thread: read.thread,
                span: read.span,
            })
    }

    /// A store still pending, if any (at the block's end, one no wait covered).
    pub(super) fn any(&self) -> Option<PendingStore> {
        self.pending.first().map(|read| PendingStore {
            thread: read.thread,
            span: read.span,
        })
    }

    /// Whether no store is pending.
    pub(super) fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_completes_only_the_groups_before_the_ones_it_leaves_pending() {
        let mut reads = BulkReads::default();
        let span = Span::empty(0);
        reads.start(0, 0, 0, 64, span);
        reads.start(0, 1, 64, 64, span);
        reads.start(1, 0, 128, 64, span);
        assert_eq!(reads.reading(100).map(|store| store.thread), Some(0));
        // Thread 0 waits with one group left pending: group 0's tile is free.
        reads.complete(0, 1);
        assert_eq!(reads.reading(10), None);
        assert!(reads.reading(64).is_some());
        // Another thread's wait frees nothing of thread 0's.
        reads.complete(1, 1);
        assert!(reads.reading(64).is_some() && reads.reading(128).is_none());
        reads.complete(0, 2);
        assert!(reads.is_empty() && reads.any().is_none());
    }
}
