//! Multi-rank tests on the emulator (`test NAME ranks(N) { ... }`): the body runs once
//! per rank, each on a thread of its own with its own interpreter, over one [`Hub`]:
//! one emulated global memory holding every rank's tensors, and a rendezvous where
//! the ranks' launches of a kernel with `symmetric(...)` meet. When every rank has
//! launched it, the last to arrive fills each launch's hidden parameters (its rank,
//! the world size, and per symmetric tensor the address of a table of every rank's
//! copy, allocated in the emulated memory) and runs them together
//! ([`emulator::run_ranks`]); each rank then goes on with the outcome. A kernel without
//! `symmetric(...)` runs on its rank alone. Ranks that launch different instantiations,
//! or pass different shapes or dtypes for a symmetric tensor, fail before it runs
//! ([`agree`], which the GPUs' exchange uses too). A rank whose body ends (or fails) while
//! others wait at a launch fails theirs: every rank must launch a symmetric kernel
//! together.

use std::fmt;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use emulator::{GlobalMemory, Launch, Options};
use lang::Span;

use crate::device::{Emulated, LaunchError};
use crate::marshal::LaunchPlan;
use crate::{CompiledKernel, Image};

/// Where a symmetric kernel's hidden parameters are, after its declared ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hidden {
    /// The `rank` parameter's index (`world_size` follows it).
    pub rank: usize,
    /// Each peer table parameter's index and its symmetric tensor parameter's.
    pub tables: Vec<(usize, usize)>,
}

impl Hidden {
    /// The hidden parameters of `kernel`, whose source declares `declared` parameters:
    /// `rank`, `world_size`, then `peers_t` for each symmetric tensor `t`; `None` for a
    /// kernel without them.
    pub fn of(kernel: &CompiledKernel, declared: usize) -> Option<Hidden> {
        let params = &kernel.signature.params;
        let names: Vec<&str> = params.iter().map(|param| param.name.as_str()).collect();
        if names.get(declared..declared + 2) != Some(&["rank", "world_size"][..]) {
            return None;
        }
        let tables = (declared + 2..params.len())
            .filter_map(|table| {
                let tensor = names[table].strip_prefix("peers_")?;
                Some((
                    table,
                    names[..declared].iter().position(|name| *name == tensor)?,
                ))
            })
            .collect();
        Some(Hidden {
            rank: declared,
            tables,
        })
    }

    /// Each peer table's parameter index and contents, for ranks whose arguments (as
    /// the bits each parameter holds) are `args`, rank by rank: entry r of a table, 8
    /// little-endian bytes, is the address rank r passes for the table's symmetric
    /// tensor. The emulator and the GPUs use the same tables.
    pub fn tables(&self, args: &[&[u64]]) -> Vec<(usize, Vec<u8>)> {
        (self.tables.iter())
            .map(|(table, tensor)| {
                let entries = args.iter().map(|args| args.get(*tensor).copied());
                let bytes = entries.flat_map(|address| address.unwrap_or(0).to_le_bytes());
                (*table, bytes.collect())
            })
            .collect()
    }

    /// Sets `plan`'s hidden arguments for rank `rank` of `world`: each parameter keeps
    /// the type the signature gave it, and the table parameters (in the order of
    /// [`Hidden::tables`]) get `tables`' addresses.
    pub fn fill(&self, plan: &mut LaunchPlan, rank: u32, world: u32, tables: &[u64]) {
        let values = [
            (self.rank, u64::from(rank)),
            (self.rank + 1, u64::from(world)),
        ];
        let tables =
            (self.tables.iter().zip(tables)).map(|((table, _), address)| (*table, *address));
        for (index, value) in values.into_iter().chain(tables) {
            if let Some(arg) = plan.args.get_mut(index) {
                *arg = arg.with_bits(value);
            }
        }
    }
}

/// One rank's launch waiting for the others.
struct Waiting {
    index: usize,
    launch: Launch,
    hidden: Hidden,
    /// What the rank passes for each symmetric tensor ([`agree`]).
    symmetric: Vec<(String, String)>,
}

struct State {
    memory: GlobalMemory,
    waiting: Vec<Option<Waiting>>,
    departed: Vec<bool>,
    generation: u64,
    outcome: Result<(), LaunchError>,
    work: Emulated,
    printed: String,
}

/// The emulated devices of a multi-rank test: their memory and their rendezvous.
pub struct Hub {
    world: u32,
    state: Mutex<State>,
    changed: Condvar,
}

impl Hub {
    /// The devices of `world` ranks.
    pub fn new(world: u32) -> Hub {
        Hub {
            world,
            state: Mutex::new(State {
                memory: GlobalMemory::new(),
                waiting: (0..world).map(|_| None).collect(),
                departed: vec![false; world as usize],
                generation: 0,
                outcome: Ok(()),
                work: Emulated::default(),
                printed: String::new(),
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

    /// A new allocation holding `bytes`; its address.
    pub fn upload(&self, bytes: &[u8]) -> u64 {
        self.lock().memory.allocate(bytes)
    }

    /// The bytes of the allocation at `address`, if there is one.
    pub fn download(&self, address: u64) -> Option<Vec<u8>> {
        let state = self.lock();
        let extent = state.memory.extent(address)?;
        state.memory.read(address, extent.bytes as usize).ok()
    }

    /// What the ranks' launches did so far.
    pub fn work(&self) -> Emulated {
        self.lock().work
    }

    /// What the ranks' launches printed since the last call.
    pub fn take_printed(&self) -> String {
        std::mem::take(&mut self.lock().printed)
    }

    /// Rank `rank` is done with its body: launches that wait for it fail.
    pub fn depart(&self, rank: u32) {
        self.lock().departed[rank as usize] = true;
        self.changed.notify_all();
    }

    /// Rank `rank` launches kernel `index` as `plan` says; `declared` is how many
    /// parameters its source declares, `symmetric` what it passes for each symmetric
    /// tensor ([`agree`]).
    pub fn launch(
        &self,
        rank: u32,
        (index, kernel): (usize, &CompiledKernel),
        plan: &LaunchPlan,
        (declared, symmetric): (usize, Vec<(String, String)>),
        call: Span,
    ) -> Result<(), LaunchError> {
        let name = &kernel.signature.name;
        let Image::Kir(code) = &kernel.image else {
            return Err((
                format!(
                    "`{name}` was compiled for the GPU, not for the emulator: on GPUs a multi-rank block runs one GPU per rank (`gpu_ranks.rs`)"
                ),
                None,
            ));
        };
        let launch = plan.emulated();
        let mut state = self.lock();
        let Some(hidden) = Hidden::of(kernel, declared) else {
            let started = Instant::now();
            let result = emulator::run(code, &launch, &mut state.memory, &Options::default());
            return record(&mut state, result, started, name, call);
        };
        state.waiting[rank as usize] = Some(Waiting {
            index,
            launch,
            hidden,
            symmetric,
        });
        let generation = state.generation;
        if state.waiting.iter().all(Option::is_some) {
            let launches: Vec<(usize, &[(String, String)])> = (state.waiting.iter().flatten())
                .map(|waiting| (waiting.index, waiting.symmetric.as_slice()))
                .collect();
            state.outcome = match agree(&launches, name) {
                Err(error) => {
                    state.waiting.iter_mut().for_each(|waiting| *waiting = None);
                    Err((error.to_string(), None))
                }
                Ok(()) => {
                    let started = Instant::now();
                    let result = self.run_together(&mut state, code);
                    record(&mut state, result, started, name, call)
                }
            };
            state.generation += 1;
            self.changed.notify_all();
            return state.outcome.clone();
        }
        loop {
            if state.generation != generation {
                return state.outcome.clone();
            }
            let gone = (0..self.world as usize)
                .find(|other| state.departed[*other] && state.waiting[*other].is_none());
            if let Some(gone) = gone {
                state.waiting[rank as usize] = None;
                let error = RanksError::Departed {
                    name: name.to_owned(),
                    gone,
                };
                return Err((error.to_string(), None));
            }
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Runs the waiting launches together, their hidden parameters filled in.
    fn run_together(
        &self,
        state: &mut State,
        code: &kir::Verified,
    ) -> Result<emulator::Stats, emulator::Fault> {
        let waiting: Vec<Waiting> = state.waiting.iter_mut().filter_map(Option::take).collect();
        let mut launches: Vec<Launch> = waiting.iter().map(|each| each.launch.clone()).collect();
        let hidden = &waiting[0].hidden;
        let args: Vec<&[u64]> = (waiting.iter())
            .map(|each| each.launch.args.as_slice())
            .collect();
        for (table, bytes) in hidden.tables(&args) {
            let address = state.memory.allocate(&bytes);
            for launch in &mut launches {
                launch.args[table] = address;
            }
        }
        for (rank, launch) in launches.iter_mut().enumerate() {
            launch.args[hidden.rank] = rank as u64;
            launch.args[hidden.rank + 1] = u64::from(self.world);
        }
        emulator::run_ranks(code, &launches, &mut state.memory, &Options::default())
    }
}

/// Why ranks launching kernel `name` together cannot: on GPUs and on the emulator alike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RanksError {
    /// Rank 0 and rank `rank` launch different instantiations.
    Instantiations { name: String, rank: usize },
    /// The symmetric tensor `parameter` is `first` (`dtype[shape]`) on rank 0 but
    /// `other` on rank `rank`.
    Symmetric {
        name: String,
        parameter: String,
        first: String,
        other: String,
        rank: usize,
    },
    /// Rank `gone`'s body ended without launching the kernel.
    Departed { name: String, gone: usize },
}

impl fmt::Display for RanksError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RanksError::Instantiations { name, rank } => write!(
                f,
                "ranks 0 and {rank} launch different instantiations of `{name}` together: every rank launches the same one"
            ),
            RanksError::Symmetric {
                name,
                parameter,
                first,
                other,
                rank,
            } => write!(
                f,
                "the symmetric tensor `{parameter}` of `{name}` is {first} on rank 0 but {other} on rank {rank}: every rank passes the same shape and dtype"
            ),
            RanksError::Departed { name, gone } => write!(
                f,
                "`{name}` waits for rank {gone}, whose test body ended without launching it: every rank launches a symmetric kernel together"
            ),
        }
    }
}

impl std::error::Error for RanksError {}

/// Checks that the ranks launching kernel `name` together, each as (the instantiation's
/// index, what it passes for each symmetric tensor: the parameter and `dtype[shape]`),
/// launch the same instantiation with the same shape and dtype for every symmetric
/// tensor, whose layout is the same on every rank: on GPUs and on the emulator alike.
pub fn agree(launches: &[(usize, &[(String, String)])], name: &str) -> Result<(), RanksError> {
    let Some((first_index, first)) = launches.first() else {
        return Ok(());
    };
    for (rank, (index, symmetric)) in launches.iter().enumerate().skip(1) {
        if index != first_index {
            return Err(RanksError::Instantiations {
                name: name.to_owned(),
                rank,
            });
        }
        for ((parameter, there), (_, here)) in first.iter().zip(symmetric.iter()) {
            if there != here {
                return Err(RanksError::Symmetric {
                    name: name.to_owned(),
                    parameter: parameter.clone(),
                    first: there.clone(),
                    other: here.clone(),
                    rank,
                });
            }
        }
    }
    Ok(())
}

/// The outcome of an emulated launch, counted in the hub's work.
fn record(
    state: &mut State,
    result: Result<emulator::Stats, emulator::Fault>,
    started: Instant,
    name: &str,
    call: Span,
) -> Result<(), LaunchError> {
    state.work.launches += 1;
    state.work.elapsed += started.elapsed();
    match result {
        Ok(stats) => {
            state.work.instructions += stats.instructions;
            state.printed.push_str(&stats.printed);
            Ok(())
        }
        Err(fault) => {
            let diagnostic = fault.to_diagnostic().with_secondary(call, "launched here");
            Err((
                format!(
                    "`{name}` on the emulator: error[{}]: {fault}",
                    fault.kind.code()
                ),
                Some(Box::new(diagnostic)),
            ))
        }
    }
}
