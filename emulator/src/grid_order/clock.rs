//! A thread's place in the order between the blocks of a launch ([`super`]): its block's
//! barrier epoch, its own count of releases, the cluster barrier phases it waited for,
//! and what it knows of other blocks' accesses (a vector clock, by block).
//!
//! What a thread knows of block A is a *prefix* of A's accesses: every access of A
//! before A's barrier epoch `epoch` (a `syncthreads()` of A came after it), and, for
//! some threads of A, every access of that thread before its release number `seq`.
//! A release (a fence, or an ordered store or add) hands over the thread's knowledge
//! and its own prefix; an acquire joins what was handed over into the thread's
//! knowledge; `syncthreads()` joins the knowledge of the block's threads (cumulativity).

use std::collections::HashMap;
use std::sync::Arc;

use super::Stamp;

/// What is known of one block's accesses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Known {
    /// Every access in a barrier epoch below this one.
    epoch: u32,
    /// Every access of the thread (a linear index) with a release number below its own.
    threads: Vec<(u32, u32)>,
}

/// What a thread knows, by block (linear index in the grid).
pub type Knowledge = HashMap<u32, Known>;

/// `into` knows what `from` knows too.
pub fn join(into: &mut Knowledge, from: &Knowledge) {
    for (block, known) in from {
        let mine = into.entry(*block).or_default();
        mine.epoch = mine.epoch.max(known.epoch);
        for (thread, seq) in &known.threads {
            match mine.threads.iter_mut().find(|(other, _)| other == thread) {
                Some((_, mine)) => *mine = (*mine).max(*seq),
                None => mine.threads.push((*thread, *seq)),
            }
        }
    }
}

/// One thread's clock.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    /// Its block's `syncthreads()` so far.
    epoch: u32,
    /// Its releases so far: the number its accesses are stamped with.
    seq: u32,
    /// Its arrivals at the cluster barrier.
    arrivals: u32,
    /// The cluster barrier phases it has waited for.
    waited: u32,
    /// What it knows of other blocks.
    knows: Arc<Knowledge>,
    /// What its relaxed atomics read that a fence after them would acquire.
    pending: Arc<Knowledge>,
    /// What its last fence released, for a relaxed atomic after it to hand over.
    fenced: Option<Arc<Knowledge>>,
}

impl Clock {
    /// Its epoch, release number and cluster barrier arrivals together: the point in
    /// the order that an access it makes now is stamped with.
    pub fn moment(&self) -> (u32, u32, u32) {
        (self.epoch, self.seq, self.arrivals)
    }

    /// The cluster barrier phases it waited for: every access of the cluster's threads
    /// before their arrival at each came before its accesses since.
    pub fn waited(&self) -> u32 {
        self.waited
    }

    /// It arrived at the cluster barrier.
    pub fn cluster_arrive(&mut self) {
        self.arrivals += 1;
    }

    /// It waited for the cluster barrier's phase of its own last arrival.
    pub fn cluster_wait(&mut self) {
        self.waited = self.arrivals;
    }

    /// Whether it knows the access `stamp` of another block.
    pub fn knows(&self, stamp: &Stamp) -> bool {
        self.knows.get(&stamp.block).is_some_and(|known| {
            known.epoch > stamp.epoch
                || (known.threads.iter())
                    .any(|(thread, seq)| *thread == stamp.thread && *seq > stamp.seq)
        })
    }

    /// A release by thread `thread` of block `block`: what it hands over (its knowledge
    /// and every access of its own so far, with those of its block before its epoch).
    pub fn release(&mut self, block: u32, thread: u32) -> Arc<Knowledge> {
        self.seq += 1;
        let mut handed = (*self.knows).clone();
        let own = handed.entry(block).or_default();
        own.epoch = own.epoch.max(self.epoch);
        match own.threads.iter_mut().find(|(other, _)| *other == thread) {
            Some((_, seq)) => *seq = self.seq,
            None => own.threads.push((thread, self.seq)),
        }
        Arc::new(handed)
    }

    /// An acquire of what releases handed over.
    pub fn acquire(&mut self, handed: &Knowledge) {
        if !handed.is_empty() {
            join(Arc::make_mut(&mut self.knows), handed);
        }
    }

    /// A relaxed atomic read what releases handed over: a fence after it acquires it.
    pub fn observe(&mut self, handed: &Knowledge) {
        if !handed.is_empty() {
            join(Arc::make_mut(&mut self.pending), handed);
        }
    }

    /// A fence at gpu or system scope: it acquires what the thread's relaxed atomics
    /// read, and releases what the thread knows and did, for its next relaxed atomic.
    pub fn fence(&mut self, block: u32, thread: u32) {
        let pending = std::mem::take(&mut self.pending);
        self.acquire(&pending);
        self.fenced = Some(self.release(block, thread));
    }

    /// What its last fence released, if it fenced.
    pub fn fenced(&self) -> Option<&Arc<Knowledge>> {
        self.fenced.as_ref()
    }
}

/// A `syncthreads()` of the block whose threads' clocks are `clocks`: they share what
/// they know ([`share`]), and a new epoch begins.
pub fn barrier(clocks: &mut [&mut Clock]) {
    share(clocks);
    for clock in clocks.iter_mut() {
        clock.epoch += 1;
    }
}

/// A barrier (`syncthreads()`, a named barrier) that the threads whose clocks are
/// `clocks` waited at: each knows what any of them knew. What their relaxed atomics read
/// and what their last fences released are shared too, for a fence or an atomic after
/// the barrier: the fences are `fence.sc`, which synchronize in their Fence-SC order,
/// and a fence before the barrier comes before one after it that some atomic links
/// them to (PTX: causality order, through the barrier and the atomic's observation).
pub fn share(clocks: &mut [&mut Clock]) {
    let pending = union(clocks.iter().map(|clock| &clock.pending));
    let fenced = union(clocks.iter().filter_map(|clock| clock.fenced.as_ref()));
    let knows = union(clocks.iter().map(|clock| &clock.knows));
    for clock in clocks.iter_mut() {
        if let Some(pending) = &pending {
            clock.pending = Arc::clone(pending);
        }
        if let Some(fenced) = &fenced {
            clock.fenced = Some(Arc::clone(fenced));
        }
        if let Some(knows) = &knows {
            clock.knows = Arc::clone(knows);
        }
    }
}

/// The union of `knowledge`, none when all are empty (one of them, when all are one).
fn union<'k>(knowledge: impl Iterator<Item = &'k Arc<Knowledge>>) -> Option<Arc<Knowledge>> {
    let mut union: Option<Arc<Knowledge>> = None;
    for known in knowledge.filter(|known| !known.is_empty()) {
        match &mut union {
            None => union = Some(Arc::clone(known)),
            Some(union) if Arc::ptr_eq(union, known) => {}
            Some(union) => join(Arc::make_mut(union), known),
        }
    }
    union
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::Access;

    fn stamp(block: u32, thread: u32, (epoch, seq, phase): (u32, u32, u32)) -> Stamp {
        Stamp {
            block,
            thread,
            epoch,
            seq,
            phase,
            access: Access::Store,
            strong: false,
            in_flight: false,
            issued: (epoch, seq, phase),
            mask: 0xF,
            span: lang::Span::default(),
        }
    }

    #[test]
    fn a_release_covers_its_threads_accesses_before_it_and_its_blocks_before_a_barrier() {
        let mut writer = Clock::default();
        let mut other = Clock::default();
        let before = stamp(1, 0, writer.moment());
        let other_before = stamp(1, 1, other.moment());
        barrier(&mut [&mut writer, &mut other]);
        let after_barrier = stamp(1, 1, other.moment());
        let handed = writer.release(1, 0);
        let after = stamp(1, 0, writer.moment());
        let mut reader = Clock::default();
        assert!(!reader.knows(&before));
        reader.acquire(&handed);
        assert!(reader.knows(&before));
        assert!(reader.knows(&other_before));
        assert!(!reader.knows(&after_barrier));
        assert!(!reader.knows(&after));
    }

    #[test]
    fn a_relaxed_atomic_acquires_only_at_a_later_fence() {
        let mut writer = Clock::default();
        let write = stamp(1, 0, writer.moment());
        writer.fence(1, 0);
        let handed = Arc::clone(writer.fenced().unwrap());
        let mut reader = Clock::default();
        reader.observe(&handed);
        assert!(!reader.knows(&write));
        reader.fence(2, 0);
        assert!(reader.knows(&write));
    }

    #[test]
    fn a_fence_after_a_barrier_acquires_what_another_thread_observed() {
        let mut writer = Clock::default();
        let write = stamp(1, 0, writer.moment());
        writer.fence(1, 0);
        let handed = Arc::clone(writer.fenced().unwrap());
        let (mut observer, mut reader) = (Clock::default(), Clock::default());
        observer.observe(&handed);
        barrier(&mut [&mut observer, &mut reader]);
        assert!(!reader.knows(&write));
        reader.fence(2, 1);
        assert!(reader.knows(&write));
    }

    #[test]
    fn an_atomic_after_a_barrier_hands_over_what_another_threads_fence_released() {
        let mut writer = Clock::default();
        let write = stamp(1, 0, writer.moment());
        writer.fence(1, 0);
        let mut ticket = Clock::default();
        assert!(ticket.fenced().is_none());
        share(&mut [&mut writer, &mut ticket]);
        let mut reader = Clock::default();
        reader.acquire(ticket.fenced().unwrap());
        assert!(reader.knows(&write));
    }

    #[test]
    fn a_barrier_shares_what_one_thread_acquired() {
        let mut writer = Clock::default();
        let write = stamp(1, 0, (0, 0, 0));
        let handed = writer.release(1, 0);
        let (mut acquirer, mut reader) = (Clock::default(), Clock::default());
        acquirer.acquire(&handed);
        assert!(!reader.knows(&write));
        barrier(&mut [&mut acquirer, &mut reader]);
        assert!(reader.knows(&write));
    }
}
