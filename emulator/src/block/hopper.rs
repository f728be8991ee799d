//! The block's side of Hopper's instructions: waking threads whose mbarrier phase has
//! completed, releasing named barriers whose count is met (a new shared-memory epoch for
//! the race checks), running a wgmma once all 128 threads of its warpgroup are there,
//! and the faults when nothing can move: a wgmma some warp of the warpgroup does not
//! reach (E0407), an mbarrier wait no thread can complete (E0411), a named barrier that
//! too few threads reach (E0406).

use super::{Grid, elsewhere, wgmma};
use crate::atoms::Model;
use crate::atoms::hopper::Hopper;
use crate::atoms::wgmma::execute;
use crate::fault::{Fault, FaultKind, Location};
use crate::shared::Reader;
use crate::thread::{Context, Status, Thread};

impl Grid<'_, '_> {
    /// Wakes, releases and runs what Hopper's instructions let move; whether anything did.
    pub(super) fn hopper_waits<'k>(
        &self,
        threads: &mut [Thread<'k>],
        warp_epochs: &[u32],
        context: &mut Context<'_, 'k>,
    ) -> Result<bool, Fault> {
        let mut moved = false;
        for thread in threads.iter_mut() {
            let Status::Mbarrier(inst, address, parity, completed) = thread.status else {
                continue;
            };
            let now = context.barriers.completed(address);
            if now >= completed + 2 {
                let kind = FaultKind::Mbarrier(format!(
                    "a wait for phase {completed} (parity {parity}) of the mbarrier at shared address {address:#x}, which completed phases {completed} to {} before the waiting thread could observe the first: a wait by parity cannot tell them apart, so on a GPU it may wait forever (a phase overrun: the barrier's arrivals do not wait for its waiters)",
                    now - 1
                ));
                let location = Location {
                    thread: thread.coordinates,
                    block: context.block,
                };
                return Err(Fault {
                    kind,
                    span: inst.span,
                    location: Some(location),
                });
            }
            if context.barriers.passed(address, parity) {
                thread.status = Status::Runnable;
                moved = true;
            }
        }
        for id in 0..16 {
            let waiting = threads.iter().find_map(|thread| match thread.status {
                Status::Named(inst, at) if at == id => match self.models.get(inst) {
                    Some(Model::Hopper(Hopper::NamedBarrier { threads, .. })) => Some(*threads),
                    _ => None,
                },
                _ => None,
            });
            let Some(count) = waiting else { continue };
            if context.barriers.named(id) < count {
                continue;
            }
            context.barriers.release_named(id, count);
            let met: Vec<u32> = (threads.iter())
                .filter(|thread| matches!(thread.status, Status::Named(_, at) if at == id))
                .map(|thread| thread.index)
                .collect();
            context.shared.share(&met);
            let mut clocks: Vec<_> = (threads.iter_mut())
                .filter(|thread| matches!(thread.status, Status::Named(_, at) if at == id))
                .map(|thread| &mut thread.clock)
                .collect();
            crate::grid_order::share(&mut clocks);
            for thread in threads.iter_mut() {
                if let Status::Named(_, at) = thread.status
                    && at == id
                {
                    thread.status = Status::Runnable;
                }
            }
            context.shared.barrier();
            moved = true;
        }
        for lanes in threads.chunks_mut(128) {
            let Status::Collective(inst) = lanes[0].status else {
                continue;
            };
            let Some(shape) = wgmma(self.models, inst) else {
                continue;
            };
            if lanes.len() < 128 || lanes.iter().any(|lane| lane.status != lanes[0].status) {
                continue;
            }
            let issuers: Vec<(u32, u32)> = (lanes.iter().step_by(32))
                .map(|lane| (lane.index, warp_epochs[lane.index as usize / 32]))
                .collect();
            (context.shared).read_for_warpgroup(&issuers);
            execute(inst, lanes, context.shared, shape).map_err(|trap| {
                let location = Location {
                    thread: lanes[0].coordinates,
                    block: context.block,
                };
                self.fault(trap, inst.span, location)
            })?;
            // Its shared operands are read, and its accumulators written, until the
            // warpgroup's wait for its group.
            for (first, last) in context.shared.peeked() {
                let group = (Reader::Wgmma, lanes[0].index, lanes[0].wgmma_groups());
                (context.shared).async_read(group, first, last - first + 1, inst.span);
            }
            for lane in lanes.iter_mut() {
                lane.wgmma_issued(&inst.results, inst.span);
                lane.mark_wgmma_results(&inst.results);
                lane.status = Status::Runnable;
            }
            moved = true;
        }
        Ok(moved)
    }

    /// When nothing can move: a fault for a wgmma, an mbarrier wait or a named barrier
    /// that will never complete.
    pub(super) fn hopper_stuck(
        &self,
        threads: &[Thread<'_>],
        block: [u32; 3],
    ) -> Result<(), Fault> {
        let locate = |thread: &Thread<'_>| Location {
            thread: thread.coordinates,
            block,
        };
        for lanes in threads.chunks(128) {
            let waiting = lanes.iter().find(|lane| {
                matches!(lane.status, Status::Collective(inst) if wgmma(self.models, inst).is_some())
            });
            let Some(waiting) = waiting else { continue };
            let Status::Collective(inst) = waiting.status else {
                continue;
            };
            let missing = lanes.iter().find(|lane| lane.status != waiting.status);
            let kind = match missing {
                Some(missing) => FaultKind::PartialWarp {
                    what: "wgmma (a warpgroup's 128 threads)",
                    other: elsewhere(missing),
                },
                None => FaultKind::Unsupported(format!(
                    "a wgmma in a warpgroup of {} threads",
                    lanes.len()
                )),
            };
            return Err(Fault {
                kind,
                span: inst.span,
                location: Some(locate(waiting)),
            });
        }
        if let Some(thread) = threads
            .iter()
            .find(|thread| matches!(thread.status, Status::Mbarrier(..)))
        {
            let Status::Mbarrier(inst, address, parity, _) = thread.status else {
                return Ok(());
            };
            let kind = FaultKind::Mbarrier(format!(
                "a wait for phase parity {parity} of the mbarrier at shared address {address:#x}, which no thread of the block can complete any more: every other thread waits or has exited"
            ));
            return Err(Fault {
                kind,
                span: inst.span,
                location: Some(locate(thread)),
            });
        }
        if let Some(thread) = threads
            .iter()
            .find(|thread| matches!(thread.status, Status::Named(..)))
        {
            let Status::Named(inst, _) = thread.status else {
                return Ok(());
            };
            let missing = threads.iter().find(|other| other.status != thread.status);
            let kind = match missing {
                Some(missing) => FaultKind::BarrierNotReached {
                    other: elsewhere(missing),
                },
                None => FaultKind::Unsupported(
                    "a named barrier counting more threads than wait at it".to_owned(),
                ),
            };
            return Err(Fault {
                kind,
                span: inst.span,
                location: Some(locate(thread)),
            });
        }
        Ok(())
    }
}
