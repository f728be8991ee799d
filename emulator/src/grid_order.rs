//! The order of global memory between the blocks of one launch (PTX ISA, "Memory
//! Consistency Model", simplified and never more permissive): which accesses of one
//! block another block's access may conflict with, unordered (`E0429`).
//!
//! Two accesses to the same bytes by different blocks, at least one a write and not
//! both atomic (an `atom`, `red`, ordered access or TMA reduce-add), race unless the
//! earlier one (in the emulator's order) happens before the later. Only these make it
//! happen before ([`clock`]): a release by the accessing thread after the access (a
//! fence at gpu or system scope followed by an atomic on some word X, or a releasing
//! ordered access to X), or by any thread of its block after a `syncthreads()` that
//! followed it, then an acquire of what was released at X by the other thread (an
//! acquiring ordered access of X, or an atomic of X followed by such a fence), or by any
//! thread of its block before a `syncthreads()` that precedes the access; or, within a
//! cluster, a cluster barrier (every thread arrives after its earlier accesses and
//! waits before its later ones). A barrier (`syncthreads()` or a named barrier) also
//! carries its threads' fences and what their atomics read to the others, for a fence
//! or atomic after it: fences are `fence.sc`, ordered among themselves. An atomic that
//! reads and writes X extends what earlier releases left there (a release sequence); a
//! plain or ordered store replaces it. A TMA store's writes (or adds) are in flight,
//! ordered by no release, until the issuing thread's wait for their bulk group, and a
//! cp.async's reads until its copy lands; a TMA load's reads count at its issue. Accesses of one block
//! are not checked against each other here.
//!
//! Each allocation gets a shadow at its first access in the launch, cut in chunks of
//! [`CHUNK`] 32-bit words made as they are touched: each word keeps its last write and
//! its two latest reads by different blocks, each with the bytes of the word it touched.
//! That misses races only where a third block's read, or an earlier writer of other
//! bytes of the word, was forgotten. Different launches are ordered (the stream's
//! order): each launch has its own [`GridOrder`].
//!
//! Blocks that run in parallel ([`crate::run`]) have no atomics or ordered accesses, so
//! nothing orders them: any conflict is a race, but which access the emulator sees
//! second depends on timing. A parallel launch therefore keeps the bytes of each
//! allocation as they were before its first write; when a race shows, the launch is run
//! again from them one block at a time, which reports it the same way every time. (A
//! conflict is seen whichever access came second, the forgotten accesses above aside:
//! the second finds the first, or a third block's read that replaced it, which
//! conflicts with the second too.)

mod clock;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use lang::Span;

use crate::fault::Access;
use crate::global::GlobalMemory;
pub use clock::{Clock, barrier, share};

/// The 32-bit words of a chunk of shadow.
pub const CHUNK: usize = 1024;

/// No block: a word nothing accessed.
const NONE: u32 = u32::MAX;

/// One access, for the race checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// The block's linear index in the grid ([`NONE`] for no access).
    pub block: u32,
    /// The thread's linear index in its block.
    pub thread: u32,
    /// The block's barrier epoch then.
    pub epoch: u32,
    /// The thread's release number then.
    pub seq: u32,
    /// The thread's arrivals at the cluster barrier then.
    pub phase: u32,
    /// What it was.
    pub access: Access,
    /// Whether it was atomic (morally strong: an atomic, ordered access or TMA add).
    pub strong: bool,
    /// Whether it was an asynchronous write not waited for yet: no release orders it.
    pub in_flight: bool,
    /// The thread's barrier epoch, release number and cluster arrivals when it issued
    /// the access: for an asynchronous write completed by a wait, earlier than the rest.
    pub issued: (u32, u32, u32),
    /// The bytes of the word it touched, a bit each.
    pub mask: u8,
    /// The instruction.
    pub span: Span,
}

impl Default for Stamp {
    fn default() -> Self {
        Stamp {
            block: NONE,
            thread: 0,
            epoch: 0,
            seq: 0,
            phase: 0,
            access: Access::Load,
            strong: false,
            in_flight: false,
            issued: (0, 0, 0),
            mask: 0,
            span: Span::default(),
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Word {
    write: Stamp,
    read: Stamp,
    /// The latest read by a block other than `read`'s.
    other_read: Stamp,
}

/// An access, as the thread making it tells it.
pub struct Who<'c> {
    /// Its block's linear index.
    pub block: u32,
    /// Its linear index in the block.
    pub thread: u32,
    /// Its clock.
    pub clock: &'c Clock,
    /// What it does.
    pub access: Access,
    /// Whether it is atomic.
    pub strong: bool,
    /// Whether it is an asynchronous write not waited for yet, which no release orders.
    pub in_flight: bool,
    /// For an asynchronous write that a wait completes now: the thread's epoch, release
    /// number and cluster arrivals when it issued it (`None`: the access is issued now).
    pub issued: Option<(u32, u32, u32)>,
    /// The instruction.
    pub span: Span,
}

/// An access that races with an earlier one: the earlier one, and the word's address.
#[derive(Clone, Copy, Debug)]
pub struct Race {
    /// The first byte of the word both touch.
    pub address: u64,
    /// The earlier access.
    pub other: Stamp,
    /// Whether both are adds that the program orders (the later thread acquired what the
    /// earlier one released after issuing its add) while the earlier add was still in
    /// flight at that release, so the GPU may apply them in either order.
    pub unsettled: bool,
}

/// What an atomic or ordered access does to the order at its word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sync {
    /// A relaxed read-modify-write: it reads what earlier releases left (a fence after
    /// it acquires that), hands over its thread's last fence, and keeps the rest.
    Relaxed,
    /// A releasing add: hands over what the thread knows and did.
    AddRelease,
    /// An acquiring and releasing add.
    AddAcquireRelease,
    /// `ld.acquire`.
    LoadAcquire,
    /// `st.release`: what it hands over replaces what was there.
    StoreRelease,
    /// A plain store: what was released there is gone.
    Store,
}

/// [`CHUNK`] words of shadow, made at the first access to one of them.
type Chunk = OnceLock<Mutex<Box<[Word]>>>;

struct Shadow {
    chunks: Box<[Chunk]>,
    /// In a parallel launch, the allocation's bytes before its first write.
    original: OnceLock<Vec<u8>>,
}

/// The order of one launch's global memory between its blocks.
pub struct GridOrder {
    shadows: Vec<OnceLock<Shadow>>,
    released: Mutex<HashMap<u64, Arc<clock::Knowledge>>>,
    any_released: AtomicBool,
    /// Blocks per cluster, x y z, and clusters per grid along x and y, to tell whether
    /// two blocks share a cluster.
    cluster: [u32; 3],
    grid: [u32; 3],
    parallel: bool,
    raced: AtomicBool,
}

impl GridOrder {
    /// The order of a launch over `memory` on a grid of `grid` blocks in clusters of
    /// `cluster`, whose blocks run in parallel when `parallel`.
    pub fn new(memory: &GlobalMemory, grid: [u32; 3], cluster: [u32; 3], parallel: bool) -> Self {
        GridOrder {
            shadows: (0..memory.allocations()).map(|_| OnceLock::new()).collect(),
            released: Mutex::new(HashMap::new()),
            any_released: AtomicBool::new(false),
            cluster,
            grid,
            parallel,
            raced: AtomicBool::new(false),
        }
    }

    /// Whether its blocks run in parallel.
    pub fn parallel(&self) -> bool {
        self.parallel
    }

    /// Whether a parallel launch saw a race (and is to run again one block at a time).
    pub fn raced(&self) -> bool {
        self.raced.load(Ordering::Relaxed)
    }

    /// Puts back the bytes a parallel launch found at each allocation's first access.
    pub fn restore(self, memory: &mut GlobalMemory) {
        for (index, shadow) in self.shadows.into_iter().enumerate() {
            if let Some(original) = shadow
                .into_inner()
                .and_then(|shadow| shadow.original.into_inner())
            {
                memory.restore(index, &original);
            }
        }
    }

    /// Checks `who`'s access of `bytes` bytes at `address` against the earlier accesses
    /// of other blocks to those bytes, and records it. An address outside every
    /// allocation is left to the access itself to report.
    pub fn access(
        &self,
        memory: &GlobalMemory,
        who: &Who<'_>,
        address: u64,
        bytes: usize,
    ) -> Result<(), Race> {
        let Some((index, offset, size)) = memory.place(address) else {
            return Ok(());
        };
        let shadow = self.shadows[index].get_or_init(|| Shadow {
            chunks: (0..size.div_ceil(4 * CHUNK))
                .map(|_| OnceLock::new())
                .collect(),
            original: OnceLock::new(),
        });
        // Every write comes after its check: the copy is taken before any.
        if self.parallel && who.access.writes() {
            shadow.original.get_or_init(|| memory.bytes_of(index));
        }
        let (epoch, seq, phase) = who.clock.moment();
        let end = (offset + bytes.max(1)).min(size);
        let mut locked = None;
        for word in offset / 4..end.div_ceil(4) {
            let first = (word * 4).max(offset);
            let last = (word * 4 + 4).min(end);
            let mask = ((1u8 << (last - first)) - 1) << (first - word * 4);
            let stamp = Stamp {
                block: who.block,
                thread: who.thread,
                epoch,
                seq,
                phase,
                access: who.access,
                strong: who.strong,
                in_flight: who.in_flight,
                issued: who.issued.unwrap_or((epoch, seq, phase)),
                mask,
                span: who.span,
            };
            // An access of up to 16 aligned bytes stays in one chunk: one lock.
            let chunk = match &mut locked {
                Some((index, chunk)) if *index == word / CHUNK => chunk,
                _ => {
                    let chunk = shadow.chunks[word / CHUNK].get_or_init(|| {
                        Mutex::new(vec![Word::default(); CHUNK].into_boxed_slice())
                    });
                    let chunk = chunk.lock().unwrap_or_else(PoisonError::into_inner);
                    &mut locked.insert((word / CHUNK, chunk)).1
                }
            };
            let shadow = &mut chunk[word % CHUNK];
            if let Some(other) = self.conflict(shadow, &stamp, who.clock) {
                if self.parallel {
                    self.raced.store(true, Ordering::Relaxed);
                }
                let base = address - (offset as u64);
                return Err(Race {
                    address: base + (word * 4) as u64,
                    other,
                    unsettled: other.strong && stamp.strong,
                });
            }
            record(shadow, stamp);
        }
        Ok(())
    }

    /// The earlier access to the word that `stamp` races with, if any. Two atomic
    /// accesses never race, but an atomic write ordered after an add still in flight
    /// (a TMA reduce-add before its wait) is an order the GPU may not keep.
    fn conflict(&self, word: &Word, stamp: &Stamp, clock: &Clock) -> Option<Stamp> {
        let reads = [word.read, word.other_read];
        let earlier =
            std::iter::once(word.write).chain(reads.into_iter().filter(|_| stamp.access.writes()));
        earlier
            .filter(|other| {
                other.block != NONE && other.block != stamp.block && other.mask & stamp.mask != 0
            })
            .find(|other| match other.strong && stamp.strong {
                true => self.unsettled(other, stamp, clock),
                false => !self.ordered(other, stamp, clock),
            })
    }

    /// Whether `stamp`, an atomic write, comes after the issue of `other`, an add, in the
    /// program's order but not after its landing: the adds are meant to land in that
    /// order, but the release the second acquired came while the first was in flight.
    /// (A TMA reduce-add lands at its thread's wait; the emulator may run that wait
    /// before the other block's add, the GPU need not.)
    fn unsettled(&self, other: &Stamp, stamp: &Stamp, clock: &Clock) -> bool {
        let (epoch, seq, phase) = other.issued;
        let issue = Stamp {
            epoch,
            seq,
            phase,
            ..*other
        };
        other.access == Access::Atomic
            && stamp.access.writes()
            && self.after(&issue, stamp, clock)
            && !self.ordered(other, stamp, clock)
    }

    /// Whether the thread whose clock is `clock` knows `other`, the earlier access,
    /// before its own access `stamp`; a write still in flight is ordered by nothing.
    fn ordered(&self, other: &Stamp, stamp: &Stamp, clock: &Clock) -> bool {
        !other.in_flight && self.after(other, stamp, clock)
    }

    /// Whether the thread whose clock is `clock` knows what the thread of `other` had
    /// done when it made `other`: a release after it, acquired, or a cluster barrier.
    fn after(&self, other: &Stamp, stamp: &Stamp, clock: &Clock) -> bool {
        let clusters = |block: u32| {
            let at = crate::block::coordinates(u64::from(block), self.grid);
            std::array::from_fn::<u32, 3, _>(|d| at[d] / self.cluster[d])
        };
        let same_cluster =
            self.cluster != [1, 1, 1] && clusters(other.block) == clusters(stamp.block);
        (same_cluster && other.phase < clock.waited()) || clock.knows(other)
    }

    /// An atomic or ordered access by thread `thread` of block `block` to the word at
    /// `address`: what it hands over there and takes from there ([`Sync`]).
    pub fn sync(&self, address: u64, clock: &mut Clock, (block, thread): (u32, u32), sync: Sync) {
        let quiet = !self.any_released.load(Ordering::Relaxed);
        if quiet && (sync == Sync::Store || (sync == Sync::Relaxed && clock.fenced().is_none())) {
            return;
        }
        let mut released = self.released.lock().unwrap_or_else(PoisonError::into_inner);
        if matches!(
            sync,
            Sync::Relaxed | Sync::LoadAcquire | Sync::AddAcquireRelease
        ) && let Some(handed) = released.get(&address)
        {
            if sync == Sync::Relaxed {
                clock.observe(handed);
            } else {
                clock.acquire(handed);
            }
        }
        let handed = match sync {
            Sync::Relaxed => clock.fenced().cloned(),
            Sync::AddRelease | Sync::AddAcquireRelease | Sync::StoreRelease => {
                Some(clock.release(block, thread))
            }
            Sync::LoadAcquire | Sync::Store => None,
        };
        if matches!(sync, Sync::StoreRelease | Sync::Store) {
            released.remove(&address);
        }
        if let Some(handed) = handed {
            self.any_released.store(true, Ordering::Relaxed);
            let there = released.entry(address).or_default();
            clock::join(Arc::make_mut(there), &handed);
        }
    }
}

/// `stamp` becomes the word's last write or one of its latest reads.
fn record(word: &mut Word, stamp: Stamp) {
    if stamp.access.writes() {
        word.write = stamp;
        word.read = Stamp::default();
        word.other_read = Stamp::default();
    } else if word.read.block == stamp.block {
        word.read = stamp;
    } else {
        word.other_read = word.read;
        word.read = stamp;
    }
}

#[cfg(test)]
mod tests;
