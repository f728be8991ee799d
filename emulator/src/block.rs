//! One block: its threads, grouped in warps of 32 by linear index (x fastest), its
//! shared memory, and one pass of the scheduler that runs them ([`crate::cluster`]
//! repeats passes over a cluster's blocks).
//!
//! A pass runs every runnable thread in index order until it exits or waits,
//! then completes each warp collective that all lanes of its warp wait at (a shuffle
//! exchanges their values, `bar.warp.sync` starts a new warp epoch, an `ldmatrix`,
//! `stmatrix` or `mma.sync` runs for the 32 lanes at once, [`crate::atoms`]). When
//! nothing can move anywhere and the block is neither done nor at one `bar.sync`, some
//! thread waits for others that will never come: a fault at the first such thread, a
//! lane missing from a warp collective first, else a thread missing from a barrier
//! (exited, or waiting at another one). A thread whose loop spins
//! ([`Status::Spinning`]) runs again each pass and counts as moving only when it leaves
//! the loop or writes.

mod hopper;
mod tcgen05;

use std::sync::Mutex;
use std::sync::atomic::AtomicU64;

use kir::{Inst, Intrinsic, Kernel, Op, ShuffleMode};
use lang::Span;

use crate::atoms::hopper::Hopper;
use crate::atoms::wgmma::WgmmaShape;
use crate::atoms::{Model, Models};
use crate::cluster::Block;
use crate::fault::{Elsewhere, Fault, FaultKind, Location, Other, Trap};
use crate::global::GlobalMemory;
use crate::grid_order::GridOrder;
use crate::system::SystemOrder;
use crate::thread::{Context, Remote, Status, Thread};

/// What every block of a launch shares.
pub struct Grid<'a, 'k> {
    /// The kernel.
    pub kernel: &'k Kernel,
    /// Its atoms' models.
    pub models: &'a Models,
    /// Global memory.
    pub global: &'a GlobalMemory,
    /// The arguments' bits.
    pub args: &'a [u64],
    /// In a multi-rank launch, the cross-device order and this grid's rank.
    pub system: Option<(&'a Mutex<SystemOrder>, u32)>,
    /// In a launch on one device, the order of global memory between its blocks.
    pub order: Option<&'a GridOrder>,
    /// Blocks per grid, x y z.
    pub grid: [u32; 3],
    /// Threads per block, x y z.
    pub block: [u32; 3],
    /// Blocks per cluster, x y z (`[1, 1, 1]` without a cluster).
    pub cluster: [u32; 3],
    /// Shared bytes per block.
    pub shared_bytes: u32,
    /// Thread-instructions the launch may run.
    pub limit: u64,
    /// Bytes the launch's threads printed so far.
    pub printed: &'a AtomicU64,
    /// The launch's profile, when one is taken: each block adds its own when done.
    pub profile: Option<&'a Mutex<crate::profile::Profile>>,
}

/// The (x, y, z) of linear index `index` in a box of `dims` (x fastest).
pub fn coordinates(index: u64, dims: [u32; 3]) -> [u32; 3] {
    let (x, y) = (u64::from(dims[0]), u64::from(dims[1]));
    [
        (index % x) as u32,
        ((index / x) % y) as u32,
        (index / (x * y)) as u32,
    ]
}

impl<'k> Grid<'_, 'k> {
    /// One pass over `block`: runs its runnable threads until they exit or wait, wakes
    /// and runs what Hopper's instructions let move, and completes the warp collectives
    /// whose lanes are all there; whether anything moved, and the thread-instructions
    /// executed (at most `budget`). What its threads do to other blocks goes to `remote`.
    pub(crate) fn pass(
        &self,
        block: &mut Block<'k>,
        remote: &mut Vec<Remote>,
        budget: u64,
    ) -> Result<(bool, u64), Fault> {
        let at = block.coordinates;
        let mut context = Context {
            kernel: self.kernel,
            models: self.models,
            global: self.global,
            shared: &mut block.shared,
            barriers: &mut block.barriers,
            tmem: &mut block.tmem,
            args: self.args,
            system: self.system,
            order: self.order,
            block: at,
            block_dims: self.block,
            grid_dims: self.grid,
            cluster_dims: self.cluster,
            remote,
            warp_epoch: 0,
            budget,
            limit: self.limit,
            executed: 0,
            printed: self.printed,
            profile: block.profile.as_mut(),
        };
        let locate = |thread: [u32; 3]| Location { thread, block: at };
        let threads = &mut block.threads;
        let warp_epochs = &mut block.warp_epochs;
        let mut moved = false;
        for thread in threads.iter_mut() {
            let before = (thread.status, thread.effects());
            let spinning = matches!(before.0, Status::Spinning(_));
            if thread.status == Status::Runnable || spinning {
                context.warp_epoch = warp_epochs[thread.index as usize / 32];
                if let Err((span, trap)) = thread.run(&mut context) {
                    return Err(self.fault(trap, span, locate(thread.coordinates)));
                }
                // A spinning thread that spins again, having written nothing, has not
                // moved: its iteration saw what the last one saw.
                moved |= !spinning || (thread.status, thread.effects()) != before;
            }
        }
        moved |= self.hopper_waits(threads, warp_epochs, &mut context)?;
        for (warp, lanes) in threads.chunks_mut(32).enumerate() {
            let Status::Collective(inst) = lanes[0].status else {
                continue;
            };
            if wgmma(self.models, inst).is_some() {
                continue;
            }
            if lanes.iter().all(|lane| lane.status == lanes[0].status) {
                context.warp_epoch = warp_epochs[warp];
                let warp_model = matches!(self.models.get(inst), Some(Model::Tcgen05(_)));
                if matches!(inst.op, Op::Atom { .. }) || warp_model {
                    self.warp_atom(inst, lanes, &mut context)?;
                } else {
                    complete(inst, lanes, &mut warp_epochs[warp], at)?;
                }
                for lane in lanes {
                    lane.status = Status::Runnable;
                }
                moved = true;
            }
        }
        Ok((moved, context.executed))
    }

    /// Nothing can move and not every thread has exited: the fault, unless every
    /// thread waits at one barrier.
    pub(crate) fn stuck(&self, threads: &[Thread<'_>], block: [u32; 3]) -> Result<(), Fault> {
        let locate = |thread: &Thread<'_>| Location {
            thread: thread.coordinates,
            block,
        };
        for lanes in threads.chunks(32) {
            let Some(waiting) = lanes
                .iter()
                .find(|lane| matches!(lane.status, Status::Collective(_)))
            else {
                continue;
            };
            let Status::Collective(inst) = waiting.status else {
                continue;
            };
            if let Some(missing) = lanes.iter().find(|lane| lane.status != waiting.status) {
                let kind = FaultKind::PartialWarp {
                    what: collective_name(inst),
                    other: elsewhere(missing),
                };
                return Err(Fault {
                    kind,
                    span: inst.span,
                    location: Some(locate(waiting)),
                });
            }
        }
        self.hopper_stuck(threads, block)?;
        let waiting = threads
            .iter()
            .find(|thread| matches!(thread.status, Status::Barrier(_)));
        let Some((waiting, Status::Barrier(inst))) = waiting.map(|thread| (thread, thread.status))
        else {
            let kind = FaultKind::Unsupported("a block whose threads wait for nothing".to_owned());
            return Err(Fault {
                kind,
                span: self.kernel.span,
                location: None,
            });
        };
        match threads
            .iter()
            .find(|thread| thread.status != waiting.status)
        {
            None => Ok(()),
            Some(missing) => Err(Fault {
                kind: FaultKind::BarrierNotReached {
                    other: elsewhere(missing),
                },
                span: inst.span,
                location: Some(locate(waiting)),
            }),
        }
    }

    /// Executes the warp-collective atom (or tcgen05 intrinsic) `inst` that every lane
    /// of a warp waits at: all 32 lanes, with one predicate, or a fault.
    fn warp_atom(
        &self,
        inst: &'k Inst,
        lanes: &mut [Thread<'k>],
        context: &mut Context<'_, 'k>,
    ) -> Result<(), Fault> {
        let (template, predicate) = match &inst.op {
            Op::Atom {
                template,
                predicate,
                ..
            } => (template.as_str(), predicate),
            Op::Intrinsic { intrinsic, .. } => (intrinsic.row().name, &None),
            _ => return Ok(()),
        };
        let enabled = lanes
            .iter()
            .filter(|lane| predicate.is_none_or(|predicate| lane.get(predicate) != 0))
            .count() as u32;
        if enabled == 0 && predicate.is_some() {
            return Ok(());
        }
        if enabled < 32 {
            let kind = FaultKind::IncompleteWarp {
                template: template.to_owned(),
                lanes: enabled,
                predicated: lanes.len() == 32,
            };
            return Err(Fault {
                kind,
                span: inst.span,
                location: Some(Location {
                    thread: lanes[0].coordinates,
                    block: context.block,
                }),
            });
        }
        let models = context.models;
        match models.get(inst) {
            Some(Model::Matrix(copy)) => {
                copy.execute(inst, lanes, context).map_err(|(lane, trap)| {
                    let location = Location {
                        thread: lanes[lane].coordinates,
                        block: context.block,
                    };
                    self.fault(trap, inst.span, location)
                })
            }
            Some(Model::Mma(mma)) => {
                mma.execute(inst, lanes);
                Ok(())
            }
            Some(Model::Tcgen05(tcgen05)) => self.tcgen05_warp(tcgen05, inst, lanes, context),
            Some(Model::CpAsync(_) | Model::Hopper(_)) | None => Ok(()),
        }
    }

    /// A trap in a thread as a fault, with the other thread of a race located.
    pub(crate) fn fault(&self, trap: Trap, span: Span, location: Location) -> Fault {
        let kind = match trap {
            Trap::Fault(kind) => kind,
            Trap::Race {
                access,
                address,
                other_thread,
                other_span,
                other_access,
            } => {
                let (other_rank, other_thread) = match crate::shared::remote_origin(other_thread) {
                    Some((rank, thread)) => (Some(rank), thread),
                    None => (None, other_thread),
                };
                FaultKind::Race {
                    access,
                    address,
                    other_access,
                    other: coordinates(u64::from(other_thread), self.block),
                    other_rank,
                    cluster: other_rank.is_some(),
                    other_span,
                }
            }
            Trap::Early {
                access,
                address,
                pending,
                other_thread,
                other_span,
            } => FaultKind::Early {
                access,
                address,
                pending,
                other: coordinates(u64::from(other_thread), self.block),
                other_span,
            },
        };
        Fault {
            kind,
            span,
            location: Some(location),
        }
    }
}

/// The wgmma model of `inst`, if it is one.
fn wgmma(models: &Models, inst: &Inst) -> Option<WgmmaShape> {
    match models.get(inst) {
        Some(Model::Hopper(Hopper::Wgmma(shape))) => Some(*shape),
        _ => None,
    }
}

fn collective_name(inst: &Inst) -> &'static str {
    match inst.op {
        Op::Shuffle { .. } => "shuffle",
        Op::Barrier => "barrier",
        Op::Atom { .. } => "warp-collective atom",
        Op::Intrinsic { intrinsic, .. } => intrinsic.row().name,
        _ => "syncwarp",
    }
}

/// Where a thread that is not at a collective is.
fn elsewhere(thread: &Thread<'_>) -> Other {
    let at = match thread.status {
        Status::Barrier(inst)
        | Status::Collective(inst)
        | Status::Mbarrier(inst, ..)
        | Status::Named(inst, _)
        | Status::Cluster(inst, _)
        | Status::Remote(inst) => Elsewhere::Waiting {
            what: collective_name(inst),
            span: inst.span,
        },
        Status::Spinning(inst) => Elsewhere::Waiting {
            what: "loop that spins",
            span: inst.span,
        },
        Status::Runnable | Status::Exited => Elsewhere::Exited,
    };
    Other {
        thread: thread.coordinates,
        at,
    }
}

/// Completes the shuffle or warp barrier `inst` that every lane of a warp waits at.
fn complete(
    inst: &Inst,
    lanes: &mut [Thread<'_>],
    warp_epoch: &mut u32,
    block: [u32; 3],
) -> Result<(), Fault> {
    if let Op::Shuffle { mode, value, lane } = &inst.op {
        let values: Vec<u64> = lanes.iter().map(|thread| thread.get(*value)).collect();
        let count = lanes.len() as u32;
        for (index, thread) in lanes.iter_mut().enumerate() {
            let own = index as u32;
            // `shfl.sync` uses the low 5 bits of the lane operand; a source outside
            // the warp gives the lane its own value (the emitter's clamps: 0 going up,
            // 31 otherwise).
            let operand = thread.get(*lane) as u32 & 31;
            let source = match mode {
                ShuffleMode::Up => own.checked_sub(operand).unwrap_or(own),
                ShuffleMode::Down => Some(own + operand).filter(|lane| *lane < 32).unwrap_or(own),
                ShuffleMode::Xor => own ^ operand,
                ShuffleMode::Index => operand,
            };
            let Some(bits) = values.get(source as usize) else {
                return Err(Fault {
                    kind: FaultKind::MissingLane {
                        lane: source,
                        lanes: count,
                    },
                    span: inst.span,
                    location: Some(Location {
                        thread: thread.coordinates,
                        block,
                    }),
                });
            };
            thread.set(inst.results[0], *bits);
        }
    } else if let Op::Intrinsic {
        intrinsic: Intrinsic::Elect,
        ..
    } = &inst.op
    {
        // The PTX ISA leaves the leader to the hardware (the same lane each time): the
        // emulator elects the warp's last lane, so that code taking lane 0 for the
        // leader fails here. No memory ordering: the warp's epoch stays.
        let last = lanes.len() - 1;
        for (index, thread) in lanes.iter_mut().enumerate() {
            thread.set(inst.results[0], u64::from(index == last));
        }
    } else {
        *warp_epoch += 1;
    }
    Ok(())
}
