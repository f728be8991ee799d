//! The shared tiles that asynchronous operations still read. A `cp.async.bulk.tensor`
//! store reads its tile some time after it is issued, until the issuing thread's wait
//! covers the store's bulk group (`cp.async.bulk.wait_group.read n` leaves only its n
//! latest groups pending); a wgmma reads its shared operands until `wgmma.wait_group`
//! completes its wgmma group. The emulator reads at issue, so a write to the tile
//! before that wait would go unnoticed: each read's bytes stay here, as the issuing
//! thread's (a warpgroup's first thread for a wgmma), until then, and a write to any of
//! them is a race.

use lang::Span;

/// What reads asynchronously.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    /// A TMA store (bulk groups).
    TmaStore,
    /// A wgmma (wgmma groups).
    Wgmma,
    /// A tcgen05.mma (its thread's commits): read until its commit's mbarrier phase
    /// completes, for a writer that observed that phase.
    Umma,
}

/// One read's tile: bytes `start..end`, read for `thread`'s group `group` (its count of
/// commits when it issued the read) of `reader`'s kind.
#[derive(Clone, Debug)]
struct BulkRead {
    reader: Reader,
    /// For a tcgen05.mma, the commits after it: each an mbarrier and the count of its
    /// completed phases whose observer may write the bytes again (one per mbarrier).
    until: Vec<(u32, u32)>,
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

/// A pending read's kind, thread and instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PendingStore {
    /// What reads.
    pub reader: Reader,
    /// Where it is in the list ([`BulkReads::ended_for`], [`BulkReads::end`]).
    pub position: usize,
    /// The issuing thread's linear index.
    pub thread: u32,
    /// The store.
    pub span: Span,
}

impl BulkReads {
    /// `thread`'s `reader` (at `span`) reads `len` bytes from `start` for its group
    /// `group`.
    pub(super) fn start(
        &mut self,
        (reader, thread, group): (Reader, u32, u32),
        start: u32,
        len: u32,
        span: Span,
    ) {
        if reader == Reader::Umma {
            // A later read of the same bytes ends after the earlier: it stands for both.
            self.pending.retain(|read| {
                (read.reader, read.thread, read.start, read.end)
                    != (reader, thread, start, start + len)
            });
        }
        self.pending.push(BulkRead {
            reader,
            until: Vec::new(),
            thread,
            group,
            start,
            end: start + len,
            span,
        });
    }

    /// `thread`'s groups of `reader`'s kind before `group` are complete: their reads
    /// are over.
    pub(super) fn complete(&mut self, reader: Reader, thread: u32, group: u32) {
        self.pending
            .retain(|read| read.reader != reader || read.thread != thread || read.group >= group);
    }

    /// `thread`'s tcgen05.mma reads so far are committed to the mbarrier at `barrier`,
    /// whose `phase`-th completion ends them.
    pub(super) fn commit(&mut self, thread: u32, (barrier, phase): (u32, u32)) {
        for read in &mut self.pending {
            if read.reader == Reader::Umma
                && read.thread == thread
                && !read.until.iter().any(|(at, _)| *at == barrier)
            {
                read.until.push((barrier, phase));
            }
        }
    }

    /// Whether the read at `position` is over for a writer that `observes` one of the
    /// phases its commits complete.
    pub(super) fn ended_for(&self, position: usize, observes: impl Fn(u32, u32) -> bool) -> bool {
        (self.pending[position].until.iter()).any(|(barrier, phase)| observes(*barrier, *phase))
    }

    /// Ends the read at `position` (a writer observed its commit's phase).
    pub(super) fn end(&mut self, position: usize) {
        self.pending.remove(position);
    }

    /// The pending read of byte `index`, if any.
    pub(super) fn reading(&self, index: u32) -> Option<PendingStore> {
        (self.pending.iter().enumerate())
            .find(|(_, read)| (read.start..read.end).contains(&index))
            .map(|(position, read)| PendingStore {
                reader: read.reader,
                position,
                thread: read.thread,
                span: read.span,
            })
    }

    /// A TMA store still pending, if any (at the block's end, one no wait covered).
    pub(super) fn any(&self) -> Option<PendingStore> {
        let mut stores = self
            .pending
            .iter()
            .filter(|read| read.reader == Reader::TmaStore);
        stores.next().map(|read| PendingStore {
            reader: read.reader,
            position: 0,
            thread: read.thread,
            span: read.span,
        })
    }

    /// Whether a pending read covers any of bytes `start..end`.
    pub(super) fn overlaps(&self, start: u32, end: u32) -> bool {
        (self.pending.iter()).any(|read| read.start < end && start < read.end)
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
        let store = Reader::TmaStore;
        reads.start((store, 0, 0), 0, 64, span);
        reads.start((store, 0, 1), 64, 64, span);
        reads.start((store, 1, 0), 128, 64, span);
        reads.start((Reader::Wgmma, 0, 0), 256, 64, span);
        assert_eq!(reads.reading(100).map(|store| store.thread), Some(0));
        // Thread 0 waits with one group left pending: group 0's tile is free, but not
        // its wgmma's operands.
        reads.complete(store, 0, 1);
        assert_eq!(reads.reading(10), None);
        assert!(reads.reading(64).is_some() && reads.reading(256).is_some());
        // Another thread's wait frees nothing of thread 0's.
        reads.complete(store, 1, 1);
        assert!(reads.reading(64).is_some() && reads.reading(128).is_none());
        reads.complete(store, 0, 2);
        // A pending wgmma is not a store the block's end must wait for.
        assert!(reads.any().is_none() && !reads.is_empty());
        reads.complete(Reader::Wgmma, 0, 1);
        assert!(reads.is_empty());
    }
}
