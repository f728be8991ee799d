//! TMA boxes that are not yet the program's to read (PTX ISA, memory consistency model
//! and `mbarrier`: a `cp.async.bulk` write is performed by the asynchronous proxy, and
//! its completion is made visible only through the mbarrier's `complete_tx` and a
//! waiting thread's `mbarrier.try_wait`, which has acquire semantics).
//!
//! A TMA load's box is *in flight* from its issue until its mbarrier's phase completes:
//! it lands then, as late as the model allows, all at once. Landed, its bytes are
//! visible only to a thread that has *observed* that phase: its own wait on the mbarrier
//! passed after it, or a release-acquire chain from such a thread reached it (an
//! arrival on an mbarrier the thread then waited on, or a `bar.sync` or named barrier
//! they both took part in). Observations are counts of completed phases per mbarrier,
//! so a later phase observed covers an earlier one.

use lang::Span;

/// One TMA box.
#[derive(Debug)]
pub(super) struct Landing {
    /// Its first shared byte.
    pub start: u32,
    /// Its bytes, until it lands.
    pub image: Vec<u8>,
    /// The mbarrier (a shared address) its bytes complete on.
    pub barrier: u32,
    /// The issuing thread's linear index.
    pub thread: u32,
    /// The TMA load.
    pub span: Span,
    /// The count of the mbarrier's completed phases once it landed (None: in flight).
    pub phase: Option<u32>,
}

/// Phases observed: (mbarrier, completed phases seen), at most one entry per mbarrier.
type Seen = Vec<(u32, u32)>;

/// The block's TMA boxes and what each thread has observed.
#[derive(Debug, Default)]
pub(super) struct Flights {
    landings: Vec<Landing>,
    in_flight: Vec<usize>,
    observed: Vec<Seen>,
    /// What every thread has observed (a `bar.sync` shared it).
    common: Seen,
    /// What arrivals released into each mbarrier, for the threads that wait on it.
    released: Vec<(u32, Seen)>,
}

/// `into` now also covers `from`.
fn merge(into: &mut Seen, from: &[(u32, u32)]) {
    for &(barrier, phase) in from {
        match into.iter_mut().find(|(seen, _)| *seen == barrier) {
            Some((_, seen)) => *seen = (*seen).max(phase),
            None => into.push((barrier, phase)),
        }
    }
}

impl Flights {
    /// Starts a landing; its number (never 0).
    pub(super) fn issue(&mut self, landing: Landing) -> u32 {
        self.in_flight.push(self.landings.len());
        self.landings.push(landing);
        self.landings.len() as u32
    }

    /// Landing `number`.
    pub(super) fn get(&self, number: u32) -> &Landing {
        &self.landings[number as usize - 1]
    }

    /// The landings waiting for the mbarrier at `barrier`, which has now completed
    /// `phase` phases: each marked landed, its first byte and image returned.
    pub(super) fn land(&mut self, barrier: u32, phase: u32) -> Vec<(u32, Vec<u8>)> {
        let landings = &mut self.landings;
        let mut landed = Vec::new();
        self.in_flight.retain(|index| {
            let landing = &mut landings[*index];
            if landing.barrier != barrier {
                return true;
            }
            landing.phase = Some(phase);
            landed.push((landing.start, std::mem::take(&mut landing.image)));
            false
        });
        landed
    }

    fn seen(&mut self, thread: u32) -> &mut Seen {
        let index = thread as usize;
        if self.observed.len() <= index {
            self.observed.resize_with(index + 1, Vec::new);
        }
        &mut self.observed[index]
    }

    /// Whether `thread` has observed the mbarrier at `barrier` complete `phase` phases.
    pub(super) fn observes(&self, thread: u32, barrier: u32, phase: u32) -> bool {
        let covers = |seen: &Seen| {
            seen.iter()
                .any(|(seen, count)| *seen == barrier && *count >= phase)
        };
        covers(&self.common) || self.observed.get(thread as usize).is_some_and(covers)
    }

    /// `thread`'s wait passed the mbarrier at `barrier` after `phase` completed phases:
    /// it observes them and what arrivals released into the barrier.
    pub(super) fn acquire(&mut self, thread: u32, barrier: u32, phase: u32) {
        let released = (self.released.iter())
            .find(|(at, _)| *at == barrier)
            .map(|(_, seen)| seen.clone())
            .unwrap_or_default();
        let seen = self.seen(thread);
        merge(seen, &[(barrier, phase)]);
        merge(seen, &released);
    }

    /// `thread` arrives on the mbarrier at `barrier`: what it has observed, its waiters
    /// observe.
    pub(super) fn release(&mut self, thread: u32, barrier: u32) {
        let Some(seen) = self.observed.get(thread as usize) else {
            return;
        };
        if seen.is_empty() {
            return;
        }
        match self.released.iter_mut().find(|(at, _)| *at == barrier) {
            Some((_, into)) => merge(into, seen),
            None => self.released.push((barrier, seen.clone())),
        }
    }

    /// Every thread of the block met at a barrier: each observes what any did.
    pub(super) fn share_all(&mut self) {
        for seen in &mut self.observed {
            merge(&mut self.common, seen);
            seen.clear();
        }
    }

    /// `threads` met at a named barrier: each observes what any of them did.
    pub(super) fn share(&mut self, threads: &[u32]) {
        let mut union = Seen::new();
        for thread in threads {
            if let Some(seen) = self.observed.get(*thread as usize) {
                merge(&mut union, seen);
            }
        }
        if union.is_empty() {
            return;
        }
        for thread in threads {
            self.seen(*thread).clone_from(&union);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn landing(barrier: u32) -> Landing {
        Landing {
            start: 0,
            image: vec![1, 2],
            barrier,
            thread: 0,
            span: Span::empty(0),
            phase: None,
        }
    }

    #[test]
    fn a_box_lands_when_its_own_barrier_completes_and_only_observers_see_it() {
        let mut flights = Flights::default();
        let first = flights.issue(landing(8));
        flights.issue(landing(16));
        assert!(flights.land(24, 1).is_empty());
        assert_eq!(flights.land(8, 1), vec![(0, vec![1, 2])]);
        assert_eq!(flights.get(first).phase, Some(1));
        assert!(!flights.observes(3, 8, 1));
        flights.acquire(3, 8, 1);
        assert!(flights.observes(3, 8, 1) && !flights.observes(3, 8, 2));
        assert!(!flights.observes(4, 8, 1));
    }

    #[test]
    fn observations_pass_through_arrivals_and_barriers() {
        let mut flights = Flights::default();
        flights.acquire(0, 8, 3);
        // Thread 0 arrives on barrier 16; thread 1's wait there acquires its view.
        flights.release(0, 16);
        flights.acquire(1, 16, 1);
        assert!(flights.observes(1, 8, 3));
        // A named barrier of threads 1 and 2 shares it; thread 5 was not there.
        flights.share(&[1, 2]);
        assert!(flights.observes(2, 8, 3) && !flights.observes(5, 8, 1));
        flights.share_all();
        assert!(flights.observes(5, 8, 3));
    }
}
