//! Tensor-memory accumulators that are not yet the program's to read (PTX ISA,
//! `tcgen05.mma`, `tcgen05.commit` and the tcgen05 memory consistency model: an MMA
//! writes its accumulator asynchronously; `tcgen05.commit` makes an mbarrier track the
//! completion of every asynchronous tcgen05 operation its thread issued before it, and
//! a thread may read the accumulator once its wait observed that mbarrier's phase).
//!
//! An MMA's accumulator (its lanes and columns) is *in flight* from its issue: the
//! emulator computes it there, but a `tcgen05.ld`, a `tcgen05.st` or another MMA reading
//! it as A touches it only after the thread observed a phase a commit of the issuing
//! thread completes, the first phase of each mbarrier committed to after the MMA. The
//! MMAs one thread issues into one accumulator run in issue order (the PTX ISA's
//! pipelined pairs), so a later one replaces the earlier's entry: an accumulation chain
//! is never a fault, and what it waits for is its last MMA.

use lang::Span;

/// Who issued an MMA: the block rank of its thread in the cluster and the thread's
/// linear index in that block (a CTA pair's MMA writes the peer block's tensor memory
/// too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Issuer {
    /// The issuing block's rank in its cluster.
    pub rank: u32,
    /// The issuing thread's linear index in its block.
    pub thread: u32,
}

/// One accumulator in flight.
#[derive(Clone, Debug)]
pub struct Accumulator {
    /// Who issued its last MMA.
    pub issuer: Issuer,
    /// That MMA.
    pub span: Span,
    lanes: (u32, u32),
    columns: (u32, u32),
    /// The mbarriers committed to since the MMA, each with the phase (a count of
    /// completed phases) whose completion hands it over.
    commits: Vec<(u32, u32)>,
}

impl Accumulator {
    fn overlaps(&self, lanes: (u32, u32), columns: (u32, u32)) -> bool {
        let meet = |(a, b): (u32, u32), (c, d): (u32, u32)| a < d && c < b;
        meet(self.lanes, lanes) && meet(self.columns, columns)
    }
}

/// The block's accumulators in flight.
#[derive(Debug, Default)]
pub struct Accumulators {
    live: Vec<Accumulator>,
}

impl Accumulators {
    /// `issuer` issued the MMA at `span`, writing lanes and columns (first, one past
    /// the last): in flight until a commit's phase is observed.
    pub fn issue(&mut self, issuer: Issuer, span: Span, lanes: (u32, u32), columns: (u32, u32)) {
        let same = (self.live.iter_mut())
            .find(|live| live.issuer == issuer && live.lanes == lanes && live.columns == columns);
        match same {
            Some(live) => {
                live.span = span;
                live.commits.clear();
            }
            None => self.live.push(Accumulator {
                issuer,
                span,
                lanes,
                columns,
                commits: Vec::new(),
            }),
        }
    }

    /// `issuer` commits its MMAs so far to the mbarrier at `barrier`, whose completion
    /// of `phase` phases hands them over.
    pub fn commit(&mut self, issuer: Issuer, barrier: u32, phase: u32) {
        for live in self.live.iter_mut().filter(|live| live.issuer == issuer) {
            if !live.commits.iter().any(|(at, _)| *at == barrier) {
                live.commits.push((barrier, phase));
            }
        }
    }

    /// The accumulator in flight over lanes and columns (first, one past the last) that
    /// a thread observing phases as `observes` (mbarrier, phase) says has not been
    /// handed over to it, if any.
    pub fn pending(
        &self,
        lanes: (u32, u32),
        columns: (u32, u32),
        observes: impl Fn(u32, u32) -> bool,
    ) -> Option<&Accumulator> {
        self.live.iter().find(|live| {
            live.overlaps(lanes, columns)
                && !live
                    .commits
                    .iter()
                    .any(|&(barrier, phase)| observes(barrier, phase))
        })
    }

    /// Columns `first` to `first + columns` are freed: nothing there is in flight any
    /// more.
    pub fn free(&mut self, first: u32, columns: u32) {
        self.live
            .retain(|live| !live.overlaps((0, u32::MAX), (first, first + columns)));
    }

    /// Whether no accumulator is in flight.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISSUER: Issuer = Issuer { rank: 0, thread: 0 };

    #[test]
    fn an_accumulator_is_handed_over_by_an_observed_commit_and_a_chain_keeps_one_entry() {
        let mut accumulators = Accumulators::default();
        let span = Span::empty(0);
        accumulators.issue(ISSUER, span, (0, 128), (0, 64));
        accumulators.issue(ISSUER, Span::empty(5), (0, 128), (0, 64));
        assert_eq!(accumulators.live.len(), 1, "a chain into one accumulator");
        let never = |_, _| false;
        let pending = accumulators.pending((3, 4), (63, 64), never);
        assert_eq!(pending.map(|live| live.span), Some(Span::empty(5)));
        assert!(accumulators.pending((0, 128), (64, 96), never).is_none());
        accumulators.commit(ISSUER, 8, 1);
        accumulators.commit(ISSUER, 8, 2);
        accumulators.commit(ISSUER, 16, 4);
        // Observing a count of phases covers every smaller count.
        let sees_8 = |barrier, phase| barrier == 8 && phase <= 1;
        assert!(accumulators.pending((0, 1), (0, 1), sees_8).is_none());
        let early_16 = |barrier, phase| barrier == 16 && phase <= 3;
        assert!(accumulators.pending((0, 1), (0, 1), early_16).is_some());
        accumulators.free(0, 64);
        assert!(accumulators.is_empty());
    }
}
