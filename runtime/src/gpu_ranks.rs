//! Multi-rank blocks on GPUs (`test NAME ranks(N)`, `bench NAME ranks(N)`), in one
//! process: rank r's body runs on a thread of its own with GPU r ([`Gpu`], its context
//! and a stream of its own, `driver/peers.rs`), so its tensors live in GPU r's memory.
//! A launch of a kernel with `symmetric(...)` meets the other ranks' launches of it in
//! an [`Exchange`]: each rank offers its arguments (a symmetric tensor's address among
//! them) and, once every rank has, builds its hidden parameters from all the offers
//! (its rank, the world size, and per symmetric tensor a table of every rank's address
//! of it, the same tables the emulator builds, [`Hidden::tables`]), copies the tables
//! to its GPU, launches on its own stream and waits for its kernel under the kernel
//! time limit (`driver/watchdog.rs`): a rank that never gets a peer's signal is
//! reported by the watchdog, naming the kernel, instead of hanging the harness.
//!
//! Memory: before it offers, a rank waits for its stream, so its tensors' allocations
//! and copies are done before any peer can write them (cudarc allocates and copies
//! asynchronously on the stream). Its peer tables are freed once its launch is waited
//! for (only it reads them); its tensors once every rank's body has ended
//! (`harness/ranked.rs`), since a peer may still read them after this rank's kernel
//! is done.
//!
//! Ranks that disagree on a symmetric tensor's shape or dtype fail before anything is
//! launched, naming the parameter. A rank whose body ends (or fails) while others wait
//! at a launch fails theirs. A multi-process launch (a process per GPU under
//! `torch.distributed`, buffers from PyTorch's symmetric memory) is the Python
//! package's job; this one needs every GPU of the block in one process.

use std::fmt;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use crate::CompiledKernel;
use crate::driver::{Buffer, Gpu, GpuError};
use crate::marshal::LaunchPlan;
use crate::ranks::{Hidden, RanksError, agree};

/// What one rank brings to a symmetric launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Offer {
    /// The kernel instantiation's index in the harness's list.
    pub index: usize,
    /// Its arguments, as the bits each parameter holds.
    pub args: Vec<u64>,
    /// Each symmetric tensor's parameter name and what the rank passes for it
    /// (`bf16[4096]`).
    pub symmetric: Vec<(String, String)>,
}

struct State {
    offers: Vec<Option<Offer>>,
    departed: Vec<bool>,
    generation: u64,
    met: Arc<[Offer]>,
}

/// Where the ranks of a block on GPUs meet at each symmetric launch.
pub struct Exchange {
    world: u32,
    state: Mutex<State>,
    changed: Condvar,
}

/// A launch made on one rank's GPU: the plan as launched (hidden parameters filled in)
/// and the peer tables it reads, kept while the plan may be launched again (a bench).
pub struct Launched {
    /// The plan as launched.
    pub plan: LaunchPlan,
    /// The peer tables on this rank's GPU.
    _tables: Vec<Buffer>,
}

/// Why a rank's launch failed: the ranks did not launch together, or the GPU failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RankLaunchError {
    /// The ranks disagree, or one never launched.
    Ranks(RanksError),
    /// Loading, copying or running on this rank's GPU failed.
    Gpu(GpuError),
}

impl From<RanksError> for RankLaunchError {
    fn from(error: RanksError) -> RankLaunchError {
        RankLaunchError::Ranks(error)
    }
}

impl From<GpuError> for RankLaunchError {
    fn from(error: GpuError) -> RankLaunchError {
        RankLaunchError::Gpu(error)
    }
}

impl fmt::Display for RankLaunchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RankLaunchError::Ranks(error) => error.fmt(f),
            RankLaunchError::Gpu(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for RankLaunchError {}

impl Exchange {
    /// The exchange of `world` ranks.
    pub fn new(world: u32) -> Exchange {
        Exchange {
            world,
            state: Mutex::new(State {
                offers: (0..world).map(|_| None).collect(),
                departed: vec![false; world as usize],
                generation: 0,
                met: Arc::new([]),
            }),
            changed: Condvar::new(),
        }
    }

    /// How many ranks there are.
    pub fn world(&self) -> u32 {
        self.world
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Rank `rank` is done with its body: launches that wait for it fail.
    pub fn depart(&self, rank: u32) {
        self.lock().departed[rank as usize] = true;
        self.changed.notify_all();
    }

    /// Rank `rank` offers `offer` of kernel `name`; every rank's offer, rank by rank,
    /// once all have made one, or why they never will.
    pub fn meet(&self, rank: u32, offer: Offer, name: &str) -> Result<Arc<[Offer]>, RanksError> {
        let mut state = self.lock();
        state.offers[rank as usize] = Some(offer);
        let generation = state.generation;
        if state.offers.iter().all(Option::is_some) {
            state.met = state.offers.iter_mut().filter_map(Option::take).collect();
            state.generation += 1;
            self.changed.notify_all();
            return Ok(state.met.clone());
        }
        loop {
            if state.generation != generation {
                return Ok(state.met.clone());
            }
            let gone = (0..self.world as usize)
                .find(|other| state.departed[*other] && state.offers[*other].is_none());
            if let Some(gone) = gone {
                state.offers[rank as usize] = None;
                return Err(RanksError::Departed {
                    name: name.to_owned(),
                    gone,
                });
            }
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Rank `rank` launches kernel `index` on `gpu` as `plan` says and waits for it; a
    /// kernel with `symmetric(...)` (`hidden`) first meets every rank's launch of it.
    /// `symmetric` describes what this rank passes for each symmetric tensor, as
    /// [`Offer::symmetric`].
    pub fn launch(
        &self,
        gpu: &mut Gpu,
        rank: u32,
        (index, kernel): (usize, &CompiledKernel),
        plan: &LaunchPlan,
        hidden: Option<&Hidden>,
        symmetric: Vec<(String, String)>,
    ) -> Result<Launched, RankLaunchError> {
        let name = &kernel.signature.name;
        let function = gpu.load(index, kernel, plan.shared_bytes)?;
        let mut plan = plan.clone();
        let mut tables = Vec::new();
        if let Some(hidden) = hidden {
            // A peer may signal into this rank's memory as soon as it is launched: this
            // rank's tensors must be on its GPU before it offers them.
            gpu.settle(name)?;
            let offer = Offer {
                index,
                args: plan.emulated().args,
                symmetric,
            };
            let offers = self.meet(rank, offer, name)?;
            let launches: Vec<(usize, &[(String, String)])> = (offers.iter())
                .map(|offer| (offer.index, offer.symmetric.as_slice()))
                .collect();
            agree(&launches, name)?;
            let args: Vec<&[u64]> = offers.iter().map(|offer| offer.args.as_slice()).collect();
            let mut addresses = Vec::new();
            for (_, bytes) in hidden.tables(&args) {
                let table = gpu.upload(&bytes)?;
                addresses.push(gpu.address(&table));
                tables.push(table);
            }
            hidden.fill(&mut plan, rank, self.world, &addresses);
        }
        gpu.run(name, &function, &plan)?;
        Ok(Launched {
            plan,
            _tables: tables,
        })
    }
}

#[cfg(test)]
mod tests;
