//! A block's shared memory, and the shadow state that finds races and reads of bytes
//! nothing wrote.
//!
//! Time in a block is cut into barrier epochs: `bar.sync` ends one for every thread
//! at once (the scheduler releases a barrier only when the whole block waits there), and
//! `bar.warp.sync` orders the lanes of one warp within an epoch. Two accesses to a byte
//! by different threads, at least one a write, are a race unless a barrier lies between
//! them: an earlier epoch, or the same warp and an earlier warp epoch. Atomics do not
//! race with each other, only with plain accesses.
//!
//! Each byte keeps its last write and its two latest reads by different threads, which
//! is exact without warp barriers (any earlier read by a third thread in the epoch was
//! concurrent with the same later writes) and misses only some races between threads
//! a warp barrier partly orders.
//!
//! A read of a byte nothing has written is not a fault at once: it is remembered, and
//! when another thread writes the byte later in the same epoch the two are a race
//! (as a transpose without its barrier is: the reader merely ran first); only when the
//! epoch ends without such a write is it a read of uninitialized memory.
//!
//! A peer block of the cluster reaches into this shared memory (`cluster_view`,
//! [`cluster`]) under a name of its own for each of its threads ([`remote_thread`]):
//! only the cluster barrier orders such an access with another (a block's `bar.sync`
//! does not), so two accesses of which one is a peer's race unless a cluster barrier
//! (a new cluster epoch) lies between them.
//!
//! Asynchronous operations stretch over time: a TMA load's box is the program's only
//! once its mbarrier phase completed and the reader observed it ([`flight`]), and a TMA
//! store's or a wgmma's shared operands are read until the issuing thread's wait for
//! their group ([`bulk`]).

mod asynchronous;
mod bulk;
mod cluster;
mod flight;

use std::cell::RefCell;

use lang::Span;

use crate::fault::{Access, FaultKind, Trap};
use bulk::BulkReads;
pub use bulk::{PendingStore, Reader};
pub use cluster::{RemoteAccess, remote_origin, remote_thread};
use flight::Flights;

/// One access as the shadow remembers it. `epoch` 0 means none.
#[derive(Clone, Copy, Debug, Default)]
struct Record {
    epoch: u32,
    warp_epoch: u32,
    thread: u32,
    access: Option<Access>,
    span: Span,
    /// The thread's `fence.proxy.async`s before the access.
    fences: u32,
    /// The cluster epoch of the access (see [`cluster`]).
    cluster_epoch: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct Shadow {
    write: Record,
    read: Record,
    /// The latest read by a thread other than `read`'s.
    other_read: Record,
    /// The TMA box that last wrote the byte, if that was the last write ([`flight`]).
    landing: u32,
}

impl Record {
    fn is_atomic(&self) -> bool {
        self.access == Some(Access::Atomic)
    }
}

/// Who accesses shared memory, and from where.
#[derive(Clone, Copy, Debug)]
pub struct Accessor {
    /// The thread's linear index in its block.
    pub thread: u32,
    /// Its warp's current warp epoch.
    pub warp_epoch: u32,
    /// The instruction.
    pub span: Span,
}

/// The first read, in the current epoch, of a byte nothing has written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnwrittenRead {
    /// The reading thread's linear index.
    pub thread: u32,
    /// The read's instruction.
    pub span: Span,
    /// What the read was.
    pub access: Access,
    /// The byte.
    pub address: u32,
}

/// One block's shared memory.
pub struct SharedMemory {
    bytes: Vec<u8>,
    shadow: Vec<Shadow>,
    epoch: u32,
    /// The cluster barriers passed, plus one.
    cluster_epoch: u32,
    /// The latest access by a peer block of the cluster ([`cluster`]).
    remote: Option<RemoteAccess>,
    unwritten_read: Option<UnwrittenRead>,
    bulk_reads: BulkReads,
    flights: Flights,
    /// The threads on whose behalf the asynchronous proxy reads ([`Self::peek`]).
    readers: Vec<u32>,
    /// A wgmma's warps, first lane and warp epoch each ([`Self::read_for_warpgroup`]).
    issuers: Vec<(u32, u32)>,
    /// Each thread's `fence.proxy.async`s so far (by linear index).
    fences: Vec<u32>,
    /// The bytes [`Self::peek`] read since [`Self::read_for`], first and last of each
    /// operand ([`Self::next_operand`]).
    peeked: RefCell<Vec<(u32, u32)>>,
    /// The CTA pair's TMA boxes that landed here (the odd block) and that no pair MMA
    /// has read yet: first byte, one past the last, issuing thread, load.
    unread_pair_boxes: Vec<(u32, u32, u32, Span)>,
}

impl SharedMemory {
    /// `size` bytes, none written yet.
    pub fn new(size: u32) -> Self {
        SharedMemory {
            bytes: vec![0; size as usize],
            shadow: vec![Shadow::default(); size as usize],
            epoch: 1,
            cluster_epoch: 1,
            remote: None,
            unwritten_read: None,
            bulk_reads: BulkReads::default(),
            flights: Flights::default(),
            readers: Vec::new(),
            issuers: Vec::new(),
            fences: Vec::new(),
            peeked: RefCell::new(Vec::new()),
            unread_pair_boxes: Vec::new(),
        }
    }

    /// Its size in bytes.
    pub fn size(&self) -> u32 {
        self.bytes.len() as u32
    }

    /// Every thread passed a barrier: a new epoch begins.
    pub fn barrier(&mut self) {
        self.epoch += 1;
    }

    /// The first read of an unwritten byte in this epoch, which no other thread's write
    /// in the epoch turned into a race: taken when the epoch ends (at a barrier or the
    /// block's end), so that a read racing with a later write is reported as the race.
    pub fn unwritten_read(&mut self) -> Option<UnwrittenRead> {
        self.unwritten_read.take()
    }

    /// Checks an access of `len` bytes at `address` for bounds and alignment.
    pub fn check(&self, address: u32, len: usize, access: Access) -> Result<(), Trap> {
        self.range(address, len, access).map(|_| ())
    }

    /// The index of an access's first byte, checked for bounds and alignment.
    fn range(&self, address: u32, len: usize, access: Access) -> Result<usize, Trap> {
        let end = u64::from(address) + len as u64;
        if end > self.bytes.len() as u64 {
            return Err(Trap::Fault(FaultKind::SharedOutOfBounds {
                access,
                address: u64::from(address),
                bytes: len as u32,
                size: self.size(),
            }));
        }
        if !(address as usize).is_multiple_of(len) {
            return Err(Trap::Fault(FaultKind::Misaligned {
                access,
                space: kir::Space::Shared,
                address: u64::from(address),
                bytes: len as u32,
            }));
        }
        Ok(address as usize)
    }

    /// Whether an earlier access `record` and one by `who` now may happen in either order.
    fn concurrent(&self, record: &Record, who: &Accessor) -> bool {
        if record.epoch != 0
            && record.thread != who.thread
            && (remote_origin(record.thread).is_some() || remote_origin(who.thread).is_some())
        {
            return record.cluster_epoch == self.cluster_epoch;
        }
        record.epoch == self.epoch
            && record.thread != who.thread
            && (record.thread / 32 != who.thread / 32 || record.warp_epoch == who.warp_epoch)
    }

    fn record(&self, who: &Accessor, access: Access) -> Record {
        Record {
            epoch: self.epoch,
            warp_epoch: who.warp_epoch,
            thread: who.thread,
            access: Some(access),
            span: who.span,
            fences: self.fences.get(who.thread as usize).copied().unwrap_or(0),
            cluster_epoch: self.cluster_epoch,
        }
    }

    fn race(access: Access, index: usize, other: &Record) -> Trap {
        Trap::Race {
            access,
            address: index as u32,
            other_thread: other.thread,
            other_span: other.span,
            other_access: other.access.unwrap_or(Access::Store),
        }
    }

    /// Reads `out.len()` bytes at `address` (a load: checked for races with writes and
    /// for bytes never written).
    pub fn read(&mut self, who: &Accessor, address: u32, out: &mut [u8]) -> Result<(), Trap> {
        let start = self.range(address, out.len(), Access::Load)?;
        for offset in 0..out.len() {
            self.observe(who, start + offset, Access::Load)?;
        }
        out.copy_from_slice(&self.bytes[start..start + out.len()]);
        Ok(())
    }

    /// Checks a read of byte `index` and records it.
    fn observe(&mut self, who: &Accessor, index: usize, access: Access) -> Result<(), Trap> {
        let shadow = self.shadow[index];
        if shadow.landing != 0 {
            self.landed(who.thread, shadow.landing, access, index)?;
        }
        if shadow.write.epoch == 0 && self.unwritten_read.is_none() {
            self.unwritten_read = Some(UnwrittenRead {
                thread: who.thread,
                span: who.span,
                access,
                address: index as u32,
            });
        }
        let atomic = access == Access::Atomic;
        if self.concurrent(&shadow.write, who) && !(atomic && shadow.write.is_atomic()) {
            return Err(Self::race(access, index, &shadow.write));
        }
        if !atomic {
            let record = self.record(who, access);
            let shadow = &mut self.shadow[index];
            // A peer's read stays until a cluster barrier orders it, whatever the
            // block's own barriers.
            let live = shadow.read.epoch == record.epoch
                || (remote_origin(shadow.read.thread).is_some()
                    && shadow.read.cluster_epoch == record.cluster_epoch);
            if live && shadow.read.thread != who.thread {
                shadow.other_read = shadow.read;
            }
            shadow.read = record;
        }
        Ok(())
    }

    /// Writes `bytes` at `address` (a store, or a cp.async landing: checked for races).
    pub fn write(
        &mut self,
        who: &Accessor,
        address: u32,
        bytes: &[u8],
        access: Access,
    ) -> Result<(), Trap> {
        let start = self.range(address, bytes.len(), access)?;
        for offset in 0..bytes.len() {
            self.claim(who, start + offset, access)?;
        }
        self.bytes[start..start + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    /// `thread`'s `reader` (at `span`) reads `len` bytes from `address` for its group
    /// `group`, until its wait for that group ([`Self::groups_complete`]).
    pub fn async_read(
        &mut self,
        (reader, thread, group): (Reader, u32, u32),
        address: u32,
        len: u32,
        span: Span,
    ) {
        (self.bulk_reads).start((reader, thread, group), address, len, span);
    }

    /// `thread`'s groups of `reader`'s kind before `group` are complete: their tiles may
    /// be written again.
    pub fn groups_complete(&mut self, reader: Reader, thread: u32, group: u32) {
        self.bulk_reads.complete(reader, thread, group);
    }

    /// A TMA store that no wait has covered (at the block's end, its tile is about to
    /// go away).
    pub fn pending_store(&self) -> Option<PendingStore> {
        self.bulk_reads.any()
    }

    /// Checks a write of byte `index` and records it.
    fn claim(&mut self, who: &Accessor, index: usize, access: Access) -> Result<(), Trap> {
        self.claim_read(who, index, access, true)
    }

    /// [`Self::claim`], checking the pending asynchronous reads only if `reads` (a
    /// caller that found none over a whole range passes false).
    fn claim_read(
        &mut self,
        who: &Accessor,
        index: usize,
        access: Access,
        reads: bool,
    ) -> Result<(), Trap> {
        while reads
            && !self.bulk_reads.is_empty()
            && let Some(store) = self.bulk_reads.reading(index as u32)
        {
            let flights = &self.flights;
            let observes = |barrier, phase| flights.observes(who.thread, barrier, phase);
            if self.bulk_reads.ended_for(store.position, observes) {
                self.bulk_reads.end(store.position);
                continue;
            }
            return Err(Trap::Race {
                access,
                address: index as u32,
                other_thread: store.thread,
                other_span: store.span,
                other_access: match store.reader {
                    Reader::TmaStore => Access::BulkRead,
                    Reader::Wgmma => Access::WgmmaRead,
                    Reader::Umma => Access::UmmaRead,
                },
            });
        }
        let shadow = self.shadow[index];
        if shadow.landing != 0 {
            self.landed(who.thread, shadow.landing, access, index)?;
            self.shadow[index].landing = 0;
        }
        let atomic = access == Access::Atomic;
        let write_races =
            self.concurrent(&shadow.write, who) && !(atomic && shadow.write.is_atomic());
        let read_races = [shadow.read, shadow.other_read]
            .into_iter()
            .find(|read| self.concurrent(read, who));
        if let Some(other) = write_races.then_some(shadow.write).or(read_races) {
            return Err(Self::race(access, index, &other));
        }
        self.shadow[index].write = self.record(who, access);
        Ok(())
    }

    /// An atomic read-modify-write of `len` bytes at `address`: `update` gets the old
    /// bytes and returns the new ones.
    pub fn atomic(
        &mut self,
        who: &Accessor,
        address: u32,
        len: usize,
        update: impl FnOnce(&[u8]) -> Vec<u8>,
    ) -> Result<Vec<u8>, Trap> {
        let start = self.range(address, len, Access::Atomic)?;
        for offset in 0..len {
            self.observe(who, start + offset, Access::Atomic)?;
            self.claim(who, start + offset, Access::Atomic)?;
        }
        let old = self.bytes[start..start + len].to_vec();
        let new = update(&old);
        self.bytes[start..start + len].copy_from_slice(&new);
        Ok(old)
    }
}

#[cfg(test)]
mod tests;
