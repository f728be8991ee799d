//! A launch: the grid's clusters run (a block is its own cluster without
//! `cluster(...)`), on every core when they are independent, and the first fault in
//! cluster order is the launch's.
//!
//! Clusters share nothing but global memory, so they run in parallel (rayon) unless the
//! kernel has a global atomic, whose read-modify-write needs them to run one at a time
//! (as does the order between blocks that atomics and ordered accesses make,
//! [`crate::grid_order`]); a parallel launch in which blocks race runs again one cluster
//! at a time, from the bytes it started with, to report the race the same way each time.
//! A cluster past the lowest one that faulted so far is not started; every cluster below
//! it runs to the end, so the fault reported is always that of the lowest faulting
//! cluster, whatever the interleaving.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use kir::{Inst, Intrinsic, Op, Space, Verified};
use rayon::prelude::*;

use crate::atoms::Models;
use crate::block::Grid;
use crate::fault::{Fault, FaultKind};
use crate::global::GlobalMemory;
use crate::grid_order::GridOrder;
use crate::profile::Profile;

/// The most threads a block may have (every target's limit).
pub const MAX_BLOCK_THREADS: u64 = 1024;

/// The most shared memory a block may have (sm_90's 227 KiB).
pub const MAX_SHARED_BYTES: u32 = 227 * 1024;

/// The most blocks a grid may have along x, y and z (every target's limits).
pub const MAX_GRID: [u32; 3] = [(1 << 31) - 1, 65535, 65535];

/// How a kernel is launched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Blocks per grid, x y z.
    pub grid: [u32; 3],
    /// Threads per block, x y z.
    pub block: [u32; 3],
    /// Blocks per cluster, x y z (`[1, 1, 1]`: no cluster); the grid is a multiple of it.
    pub cluster: [u32; 3],
    /// Bytes of dynamic shared memory per block.
    pub shared_bytes: u32,
    /// Each parameter's value as the bits passed (an integer sign- or zero-extended, a
    /// float's bits, a tensor's global address); `param i` reads the low bits of its
    /// type's width.
    pub args: Vec<u64>,
}

/// How to emulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Thread-instructions the launch may run before it is stopped (`E0410`).
    pub max_instructions: u64,
    /// Whether independent blocks may run on several cores.
    pub parallel: bool,
    /// Whether to count what each source span did (`profile.rs`, `cukc profile`).
    pub profile: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_instructions: 1 << 34,
            parallel: true,
            profile: false,
        }
    }
}

/// What a launch did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Thread-instructions executed (each instruction once per thread that ran it).
    pub instructions: u64,
    /// Whether blocks ran in parallel.
    pub parallel: bool,
    /// What its threads printed: by block, then by thread, each in program order
    /// (`print.rs`).
    pub printed: String,
    /// What each source span did, when [`Options::profile`] asked.
    pub profile: Option<Profile>,
}

/// Runs `kernel` on the emulated device holding `memory`.
pub fn run(
    kernel: &Verified,
    launch: &Launch,
    memory: &mut GlobalMemory,
    options: &Options,
) -> Result<Stats, Fault> {
    check(kernel, launch)?;
    if options.parallel && clusters(launch) > 1 && !has_global_atomic(&kernel.body) {
        let order = GridOrder::new(memory, launch.grid, launch.cluster, true);
        let ran = run_clusters(kernel, launch, memory, options, &order);
        if !order.raced() {
            return ran;
        }
        // Blocks raced: run again from the bytes they found, one at a time, so that
        // the race is reported the same way every time.
        order.restore(memory);
    }
    let order = GridOrder::new(memory, launch.grid, launch.cluster, false);
    run_clusters(kernel, launch, memory, options, &order)
}

/// Runs the launch's clusters in `order`'s mode (in parallel, or one at a time).
fn run_clusters(
    kernel: &Verified,
    launch: &Launch,
    memory: &GlobalMemory,
    options: &Options,
    order: &GridOrder,
) -> Result<Stats, Fault> {
    let models = Models::of(kernel);
    let printed_bytes = AtomicU64::new(0);
    let profile = options.profile.then(|| Mutex::new(Profile::default()));
    let grid = Grid {
        kernel,
        models: &models,
        global: memory,
        args: &launch.args,
        system: None,
        order: Some(order),
        grid: launch.grid,
        block: launch.block,
        cluster: launch.cluster,
        shared_bytes: launch.shared_bytes,
        limit: options.max_instructions,
        printed: &printed_bytes,
        profile: profile.as_ref(),
    };
    let clusters = clusters(launch);
    let parallel = order.parallel();
    let executed = AtomicU64::new(0);
    let lowest_fault = AtomicU64::new(u64::MAX);
    let faults = Mutex::new(Vec::new());
    let printed = Mutex::new(Vec::new());
    let run_cluster = |index: u64| {
        if index > lowest_fault.load(Ordering::Relaxed) {
            return;
        }
        let budget = options
            .max_instructions
            .saturating_sub(executed.load(Ordering::Relaxed));
        match grid.run_cluster(index, budget) {
            Ok((count, text)) => {
                executed.fetch_add(count, Ordering::Relaxed);
                if !text.is_empty()
                    && let Ok(mut printed) = printed.lock()
                {
                    printed.push((index, text));
                }
            }
            Err(fault) => {
                lowest_fault.fetch_min(index, Ordering::Relaxed);
                if let Ok(mut faults) = faults.lock() {
                    faults.push((index, fault));
                }
            }
        }
    };
    if parallel {
        (0..clusters).into_par_iter().for_each(run_cluster);
    } else {
        (0..clusters).for_each(run_cluster);
    }
    let faults = faults.into_inner().unwrap_or_default();
    if let Some((_, fault)) = faults.into_iter().min_by_key(|(index, _)| *index) {
        return Err(fault);
    }
    let mut printed = printed.into_inner().unwrap_or_default();
    printed.sort_unstable_by_key(|(index, _)| *index);
    Ok(Stats {
        instructions: executed.into_inner(),
        parallel,
        printed: printed.into_iter().map(|(_, text)| text).collect(),
        profile: profile.and_then(|profile| profile.into_inner().ok()),
    })
}

/// The launch's clusters (its blocks, without `cluster(...)`).
fn clusters(launch: &Launch) -> u64 {
    let blocks: u64 = launch.grid.iter().map(|dim| u64::from(*dim)).product();
    blocks
        / launch
            .cluster
            .iter()
            .map(|dim| u64::from(*dim))
            .product::<u64>()
}

/// A fault for what the emulator does not model, at the kernel's declaration.
pub(crate) fn unsupported(kernel: &Verified, what: String) -> Fault {
    Fault {
        kind: FaultKind::Unsupported(what),
        span: kernel.span,
        location: None,
    }
}

/// The launch's shape and arguments against the kernel's signature.
pub(crate) fn check(kernel: &Verified, launch: &Launch) -> Result<(), Fault> {
    shape_problem(kernel, launch).map_or(Ok(()), |what| Err(unsupported(kernel, what)))
}

/// What is wrong with the launch's shape and arguments, if anything.
fn shape_problem(kernel: &Verified, launch: &Launch) -> Option<String> {
    let params = kernel.signature.params.len();
    if launch.args.len() != params {
        return Some(format!(
            "a launch with {} arguments of a kernel with {params} parameters",
            launch.args.len()
        ));
    }
    if launch.grid.contains(&0) || launch.block.contains(&0) {
        return Some("a launch with an extent of 0".to_owned());
    }
    if launch
        .grid
        .iter()
        .zip(MAX_GRID)
        .any(|(dim, most)| *dim > most)
    {
        return Some(format!(
            "a grid of {:?} blocks (at most {MAX_GRID:?})",
            launch.grid
        ));
    }
    let threads = launch
        .block
        .iter()
        .try_fold(1u64, |product, dim| product.checked_mul(u64::from(*dim)))
        .unwrap_or(u64::MAX);
    if threads > MAX_BLOCK_THREADS {
        return Some(format!(
            "a block of {threads} threads (at most {MAX_BLOCK_THREADS})"
        ));
    }
    if launch.cluster.contains(&0)
        || launch.cluster.iter().product::<u32>() > kir::MAX_CLUSTER_BLOCKS
        || (launch.grid.iter().zip(launch.cluster)).any(|(grid, cluster)| grid % cluster != 0)
    {
        return Some(format!(
            "a grid of {:?} blocks in clusters of {:?} (a whole number of clusters, each of 1 to {} blocks)",
            launch.grid,
            launch.cluster,
            kir::MAX_CLUSTER_BLOCKS
        ));
    }
    if launch.shared_bytes > MAX_SHARED_BYTES {
        return Some(format!(
            "a block with {} bytes of shared memory (at most {MAX_SHARED_BYTES})",
            launch.shared_bytes
        ));
    }
    None
}

/// Whether `body` has an atomic on global memory (an ordered access or a TMA reduce-add
/// among them), anywhere: what may order blocks ([`crate::grid_order`]) or needs them to
/// run one at a time.
fn has_global_atomic(body: &[Inst]) -> bool {
    body.iter().any(|inst| {
        matches!(
            inst.op,
            Op::Atomic {
                space: Space::Global,
                ..
            } | Op::Intrinsic {
                intrinsic: Intrinsic::Ordered { .. } | Intrinsic::TmaStore { add: true, .. },
                ..
            }
        ) || inst
            .op
            .regions()
            .iter()
            .any(|region| has_global_atomic(&region.body))
    })
}
