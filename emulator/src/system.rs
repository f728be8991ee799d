//! The memory model between devices of a multi-rank launch ([`crate::run_ranks`]): which
//! global writes of one rank another rank's thread may read, and which of its reads a
//! write may not overwrite, by what the PTX ISA's release and acquire patterns order
//! ("Memory Consistency Model": causality order through morally strong release and
//! acquire operations, and `bar.sync`, whose participants' earlier accesses are
//! ordered before their later ones).
//!
//! Every thread has a clock and the clocks of other threads it has observed (its
//! *knowledge*, a vector clock). A global access is stamped with its thread's clock. A
//! release (`st.release`, `red.release`, `atom.acq_rel`) attaches the thread's
//! knowledge and clock to the word it writes, then advances the clock; an acquire
//! (`ld.acquire`, `atom.acq_rel`) of a word joins what was released there into the
//! thread's knowledge, from another rank only when both sides have system scope (a
//! `gpu` order does not reach another device); a block's `syncthreads()` joins its
//! threads' knowledge and advances their clocks. A plain access that conflicts with an
//! access of another rank (one of them a write) is a cross-device race (`E0423`) unless
//! the thread knows the other access: whatever the order in which the emulator ran the
//! two, nothing forces a GPU to see them in that order. Accesses of one rank are not
//! checked against each other (as on one device), nor are atomics and ordered accesses,
//! which are morally strong. An add (`red`, `atom`) extends what earlier releases left
//! on the word (a release sequence); a store replaces it.
//!
//! What is not modelled: named barriers, `syncwarp()`, mbarriers and fences order
//! nothing here (a kernel that orders a cross-device access only through them is
//! reported), and each word keeps the [`MOST_READS`] latest reads of other threads.

use std::collections::HashMap;
use std::sync::Arc;

use lang::Span;

/// A thread of the multi-rank launch: its rank, and its block's linear index times the
/// block's threads plus its own index.
pub type ThreadId = (u32, u64);

/// The clocks a thread has observed, by thread.
type Knowledge = HashMap<ThreadId, u32>;

/// The most reads of one word kept for the race checks.
pub const MOST_READS: usize = 64;

/// One access, for the race checks.
#[derive(Clone, Copy, Debug)]
pub struct Stamp {
    /// Who.
    pub thread: ThreadId,
    /// Its clock then.
    pub clock: u32,
    /// The instruction.
    pub span: Span,
    /// Whether it wrote.
    pub write: bool,
}

#[derive(Default)]
struct Word {
    write: Option<Stamp>,
    reads: Vec<Stamp>,
}

/// A thread's clock and knowledge.
#[derive(Default)]
struct Clock {
    clock: u32,
    knows: Arc<Knowledge>,
}

/// What releases left on a signal word: by the releasing rank and whether at system
/// scope, the knowledge handed over.
type Released = Vec<(u32, bool, Knowledge)>;

/// The cross-device order of one multi-rank launch.
#[derive(Default)]
pub struct SystemOrder {
    threads: HashMap<ThreadId, Clock>,
    words: HashMap<u64, Word>,
    released: HashMap<u64, Released>,
}

impl SystemOrder {
    /// Whether `thread` observed `stamp`.
    fn knows(&self, thread: ThreadId, stamp: &Stamp) -> bool {
        if stamp.thread == thread {
            return true;
        }
        (self.threads.get(&thread))
            .and_then(|clock| clock.knows.get(&stamp.thread))
            .is_some_and(|known| *known >= stamp.clock)
    }

    /// A plain access of `bytes` bytes at `address` by `thread`: the access of another
    /// rank it conflicts with unordered, if any.
    pub fn access(
        &mut self,
        thread: ThreadId,
        address: u64,
        bytes: usize,
        write: bool,
        span: Span,
    ) -> Option<(u64, Stamp)> {
        let clock = self.threads.get(&thread).map_or(0, |clock| clock.clock);
        let stamp = Stamp {
            thread,
            clock,
            span,
            write,
        };
        let first = address / 4;
        let last = (address + bytes.max(1) as u64 - 1) / 4;
        for word in first..=last {
            let shadow = self.words.entry(word).or_default();
            let earlier = shadow
                .write
                .iter()
                .chain(if write { &shadow.reads[..] } else { &[] });
            let conflict = earlier
                .filter(|other| other.thread.0 != thread.0)
                .copied()
                .collect::<Vec<_>>();
            if let Some(other) = conflict
                .into_iter()
                .find(|other| !self.knows(thread, other))
            {
                return Some((word * 4, other));
            }
            let shadow = self.words.entry(word).or_default();
            if write {
                shadow.write = Some(stamp);
                shadow.reads.clear();
            } else {
                shadow.reads.retain(|read| read.thread != thread);
                if shadow.reads.len() == MOST_READS {
                    shadow.reads.remove(0);
                }
                shadow.reads.push(stamp);
            }
        }
        None
    }

    /// `thread`'s release at `address` (system scope when `system`): its knowledge and
    /// clock attached to the word, added to what is there (`add`) or replacing it.
    pub fn release(&mut self, thread: ThreadId, address: u64, system: bool, add: bool) {
        let clock = self.threads.entry(thread).or_default();
        let mut knowledge = (*clock.knows).clone();
        knowledge.insert(thread, clock.clock);
        clock.clock += 1;
        let released = self.released.entry(address).or_default();
        if !add {
            released.clear();
        }
        match (released.iter_mut()).find(|(rank, scope, _)| *rank == thread.0 && *scope == system) {
            Some((_, _, known)) => join(known, &knowledge),
            None => released.push((thread.0, system, knowledge)),
        }
    }

    /// `thread`'s acquire at `address` (system scope when `system`): what releases of
    /// its rank, or of any rank at system scope when it is too, left there.
    pub fn acquire(&mut self, thread: ThreadId, address: u64, system: bool) {
        let Some(released) = self.released.get(&address) else {
            return;
        };
        let mut gained = Knowledge::new();
        for (rank, scope, known) in released {
            if *rank == thread.0 || (*scope && system) {
                join(&mut gained, known);
            }
        }
        let clock = self.threads.entry(thread).or_default();
        join(Arc::make_mut(&mut clock.knows), &gained);
    }

    /// `syncthreads()` of a block whose threads are `threads`: each knows what any of
    /// them knew and did, and their clocks advance.
    pub fn barrier(&mut self, threads: impl Iterator<Item = ThreadId> + Clone) {
        let mut union = Knowledge::new();
        for thread in threads.clone() {
            let clock = self.threads.entry(thread).or_default();
            join(&mut union, &clock.knows);
            union.insert(thread, clock.clock);
        }
        let union = Arc::new(union);
        for thread in threads {
            let clock = self.threads.entry(thread).or_default();
            clock.clock += 1;
            clock.knows = Arc::clone(&union);
        }
    }
}

/// `into` knows what `from` knows too.
fn join(into: &mut Knowledge, from: &Knowledge) {
    for (thread, clock) in from {
        let known = into.entry(*thread).or_insert(*clock);
        *known = (*known).max(*clock);
    }
}
