//! A block's barrier state: its mbarriers by shared address (arrivals and transaction
//! bytes still expected, the phase bit; HOPPER-BLACKWELL.md A.4) and the arrivals
//! counted at each of its 16 named barriers, with the thread count and the first
//! arrival of the round they belong to.
//!
//! Transaction bytes may complete before the arrival that expects them (a peer's
//! multicast load), so the count may go below zero while arrivals are pending; once
//! the phase has all its arrivals, more bytes than it expects can never be made up
//! (only an arrival sets expected bytes), an over-arrival.

use std::collections::HashMap;

use lang::Span;

use crate::fault::{FaultKind, Trap};
use crate::shared::SharedMemory;

/// One mbarrier's state.
#[derive(Clone, Copy, Debug)]
struct Mbarrier {
    expected: i64,
    pending: i64,
    tx: i64,
    phase: u32,
    /// Phases completed since the first `mbarrier.init` at its address.
    completed: u32,
}

/// The arrivals of a named barrier's round: how many, and the count, thread (linear
/// index) and instruction of its first.
#[derive(Clone, Copy, Debug, Default)]
struct Round {
    arrived: u32,
    opened: Option<(u32, u32, Span)>,
}

/// The block's mbarriers and named-barrier arrivals.
#[derive(Default)]
pub struct Barriers {
    mbarriers: HashMap<u32, Mbarrier>,
    named: [Round; 16],
}

impl Barriers {
    /// `mbarrier.init`: the mbarrier at `address` expects `count` arrivals a phase, in
    /// phase 0.
    pub(super) fn init(&mut self, address: u32, count: i64) {
        let completed = self.completed(address);
        let state = Mbarrier {
            expected: count,
            pending: count,
            tx: 0,
            phase: 0,
            completed,
        };
        self.mbarriers.insert(address, state);
    }

    /// Whether the mbarrier at `address` has been initialized.
    pub(super) fn initialized(&self, address: u32) -> bool {
        self.mbarriers.contains_key(&address)
    }

    /// Whether the phase of `parity` of the mbarrier at `address` has completed.
    pub fn passed(&self, address: u32, parity: u32) -> bool {
        self.mbarriers
            .get(&address)
            .is_some_and(|barrier| barrier.phase != parity & 1)
    }

    /// The phases the mbarrier at `address` has completed (0 before its init).
    pub fn completed(&self, address: u32) -> u32 {
        self.mbarriers
            .get(&address)
            .map_or(0, |barrier| barrier.completed)
    }

    /// Arrivals counted at named barrier `id`.
    pub fn named(&self, id: u32) -> u32 {
        self.named[id as usize % 16].arrived
    }

    /// Counts an arrival of thread `thread` (a linear index) at named barrier `id`,
    /// counting `count` threads; the count, thread and instruction of the round's first
    /// arrival when they count differently.
    pub fn arrive_named(
        &mut self,
        id: u32,
        count: u32,
        thread: u32,
        span: Span,
    ) -> Result<(), (u32, u32, Span)> {
        let round = &mut self.named[id as usize % 16];
        match round.opened {
            Some(opened @ (other, ..)) if other != count => return Err(opened),
            Some(_) => {}
            None => round.opened = Some((count, thread, span)),
        }
        round.arrived += 1;
        Ok(())
    }

    /// Releases a round of `count` arrivals at named barrier `id`.
    pub fn release_named(&mut self, id: u32, count: u32) {
        let round = &mut self.named[id as usize % 16];
        round.arrived -= count;
        if round.arrived == 0 {
            round.opened = None;
        }
    }

    /// What the phase of the mbarrier at `address` still expects, for a hang's report.
    pub fn describe(&self, address: u32) -> String {
        match self.mbarriers.get(&address) {
            None => format!("the mbarrier at shared address {address:#x}, never initialized"),
            Some(barrier) => format!(
                "the mbarrier at shared address {address:#x}, in phase {} (parity {}) with {} of its {} arrivals and {} transaction bytes still expected",
                barrier.completed, barrier.phase, barrier.pending, barrier.expected, barrier.tx
            ),
        }
    }

    /// Changes the mbarrier at `address` by `arrivals` and `bytes`; a phase that
    /// completes lands the TMA boxes in flight on it and ends the block's shared-memory
    /// epoch.
    pub(crate) fn advance(
        &mut self,
        shared: &mut SharedMemory,
        address: u32,
        arrivals: i64,
        bytes: i64,
    ) -> Result<(), Trap> {
        if self.update(address, arrivals, bytes)? {
            shared.phase_completed(address, self.completed(address));
            shared.barrier();
        }
        Ok(())
    }

    /// Changes the mbarrier at `address` by `arrivals` and `bytes`; whether a phase
    /// completed.
    pub(super) fn update(&mut self, address: u32, arrivals: i64, bytes: i64) -> Result<bool, Trap> {
        let fault = |what: String| Trap::Fault(FaultKind::Mbarrier(what));
        let Some(barrier) = self.mbarriers.get_mut(&address) else {
            return Err(fault(format!(
                "the mbarrier at shared address {address:#x} is used before `mbarrier_init`"
            )));
        };
        barrier.pending -= arrivals;
        barrier.tx += bytes;
        if barrier.pending < 0 {
            return Err(fault(format!(
                "the mbarrier at shared address {address:#x} gets more arrivals than the {} its phase expects",
                barrier.expected
            )));
        }
        if barrier.pending == 0 && barrier.tx < 0 {
            return Err(fault(format!(
                "the mbarrier at shared address {address:#x} gets {} more transaction bytes than its phase {} expects, after all {} arrivals: no arrival can expect them any more, so the phase never completes (an `mbarrier_arrive_expect_tx` byte count below the bytes its TMA loads deliver)",
                -barrier.tx, barrier.completed, barrier.expected
            )));
        }
        if barrier.pending == 0 && barrier.tx == 0 {
            barrier.phase ^= 1;
            barrier.completed += 1;
            barrier.pending = barrier.expected;
            return Ok(true);
        }
        Ok(false)
    }
}
