//! The words of a fault: its one-line message (`Display`), which names the thread, the
//! block, the address and the other thread involved, and its diagnostic, with a label
//! at each instruction involved and a note or help where one says what to do.

use std::fmt;

use lang::Diagnostic;

use super::{Access, Elsewhere, Fault, FaultKind, Pending};

impl Access {
    fn verb(self) -> &'static str {
        match self {
            Access::Load => "loads",
            Access::Store => "stores",
            Access::Atomic => "updates atomically",
            Access::AsyncRead => "copies (cp.async) from",
            Access::TmaRead => "loads with TMA from",
            Access::TmaStore => "stores with TMA into",
            Access::AsyncWrite => "copies (cp.async) into",
            Access::BulkRead => "stores with TMA from",
            Access::TmaWrite => "loads with TMA into",
            Access::WgmmaRead => "reads as an MMA operand (wgmma, tcgen05.mma)",
            Access::UmmaRead => "reads as a tcgen05.mma operand",
        }
    }

    /// What the access did, as a verb in the past tense (`wrote`, `read`).
    fn past(self) -> &'static str {
        match self {
            Access::Atomic => "updated atomically",
            Access::TmaStore => "stored with TMA",
            access if access.writes() => "wrote",
            _ => "read",
        }
    }

    pub(crate) fn writes(self) -> bool {
        !matches!(
            self,
            Access::Load
                | Access::AsyncRead
                | Access::TmaRead
                | Access::BulkRead
                | Access::WgmmaRead
                | Access::UmmaRead
        )
    }
}

/// What a race with an asynchronous reader of shared memory says: which operation
/// still reads, what wait is missing, the label at the operation, and the fix.
struct AsyncReader {
    /// The reading operation, as in "which a wgmma of thread ... may still be reading".
    operation: &'static str,
    /// Why it may still read.
    missing: &'static str,
    /// The label at the reading instruction, given the thread.
    label: fn(&str) -> String,
    /// What to do.
    help: &'static str,
}

impl AsyncReader {
    /// The reader behind `access`, when it is an asynchronous one.
    fn of(access: Access) -> Option<&'static AsyncReader> {
        match access {
            Access::UmmaRead => Some(&UMMA_READER),
            Access::WgmmaRead => Some(&WGMMA_READER),
            Access::BulkRead => Some(&TMA_STORE_READER),
            _ => None,
        }
    }
}

const UMMA_READER: AsyncReader = AsyncReader {
    operation: "a tcgen05.mma",
    missing: "the writer has not waited for the phase its commit completes",
    label: |thread| format!("a tcgen05.mma of thread {thread} reads it here"),
    help: "a tcgen05.mma reads its shared operands after it is issued, until the mbarrier its `tcgen05_commit` arrives on completes: wait on that barrier (the stage's `empty` one) before writing the tile again",
};

const WGMMA_READER: AsyncReader = AsyncReader {
    operation: "a wgmma",
    missing: "no `wgmma_wait_group` covering it lies between them",
    label: |thread| format!("a wgmma of thread {thread} reads it here"),
    help: "a wgmma reads its shared operands after it is issued: `wgmma_wait_group(n)` must complete its group before the tile is written again (a TMA load included)",
};

const TMA_STORE_READER: AsyncReader = AsyncReader {
    operation: "a TMA store",
    missing: "no wait for its bulk group lies between them",
    label: |thread| format!("thread {thread} stores from it with TMA here"),
    help: "the TMA store reads its shared tile after it is issued: before the tile is written again, the issuing thread waits for the store's bulk group (`tma_store_wait_group(n)`), then a barrier orders that wait before the other threads' writes",
};

fn triple(value: [u32; 3]) -> String {
    format!("({}, {}, {})", value[0], value[1], value[2])
}

fn size(bytes: u32) -> String {
    if bytes == 1 {
        "1 byte".to_owned()
    } else {
        format!("{bytes} bytes")
    }
}

fn straggler(at: Elsewhere) -> String {
    match at {
        Elsewhere::Exited => "never reaches: it has exited".to_owned(),
        Elsewhere::Waiting { what, .. } => {
            format!("does not reach: it waits at a {what} elsewhere")
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let who = match &self.location {
            Some(location) => format!(
                "thread {} of block {}",
                triple(location.thread),
                triple(location.block)
            ),
            None => "the launch".to_owned(),
        };
        match &self.kind {
            FaultKind::GlobalOutOfBounds {
                access,
                address,
                bytes,
                nearest,
            } => {
                write!(
                    f,
                    "{who} {} {} of global memory at {address:#x}, outside every allocation",
                    access.verb(),
                    size(*bytes)
                )?;
                if let Some((extent, param)) = nearest {
                    let name = param
                        .as_ref()
                        .map_or(String::new(), |name| format!("`{name}`, "));
                    let relation = if *address >= extent.base {
                        let past = address.saturating_add(u64::from(*bytes)) - extent.end();
                        format!("{past} bytes past its end")
                    } else {
                        format!("{} bytes before it", extent.base - address)
                    };
                    write!(
                        f,
                        " (the nearest is {name}{} bytes at {:#x}: {relation})",
                        extent.bytes, extent.base
                    )?;
                }
                Ok(())
            }
            FaultKind::SharedOutOfBounds {
                access,
                address,
                bytes,
                size: shared,
            } => write!(
                f,
                "{who} {} {} of shared memory at {address:#x}, past the block's {}",
                access.verb(),
                size(*bytes),
                size(*shared)
            ),
            FaultKind::Misaligned {
                access,
                space,
                address,
                bytes,
            } => write!(
                f,
                "{who} {} {} of {} memory at {address:#x}, which is not a multiple of {bytes}",
                access.verb(),
                size(*bytes),
                space.name()
            ),
            FaultKind::Early {
                access,
                address,
                pending,
                other,
                ..
            } => match pending {
                Pending::TmaInFlight => write!(
                    f,
                    "{who} {} byte {address:#x} of shared memory while a TMA load of thread {} is still writing it: the load's mbarrier phase has not completed",
                    access.verb(),
                    triple(*other)
                ),
                Pending::TmaUnobserved => write!(
                    f,
                    "{who} {} byte {address:#x} of shared memory, which a TMA load of thread {} wrote, without having waited for the mbarrier phase that delivers it",
                    access.verb(),
                    triple(*other)
                ),
                Pending::TmaOverwrite => write!(
                    f,
                    "{who} {} byte {address:#x} of shared memory, which an earlier TMA load of thread {} delivered, without having seen that delivery or the release of the threads that read it: nothing orders the two writes",
                    access.verb(),
                    triple(*other)
                ),
                Pending::ProxyFence => write!(
                    f,
                    "{who} {} byte {address:#x} of shared memory through the asynchronous proxy, which thread {} wrote through the generic proxy with no `fence.proxy.async` after the write",
                    access.verb(),
                    triple(*other)
                ),
                Pending::WarpgroupBarrier => write!(
                    f,
                    "{who} {} byte {address:#x} of shared memory for its warpgroup, which thread {} wrote with no barrier between the write and the other warps' issue of the wgmma",
                    access.verb(),
                    triple(*other)
                ),
                Pending::WgmmaAccumulator => write!(
                    f,
                    "{who} reads a wgmma's accumulator register before `wgmma_wait_group` completed its group"
                ),
                Pending::TmemAccumulator => write!(
                    f,
                    "{who} {} tensor memory at lane {}, column {}, which a tcgen05.mma of thread {} still writes: the thread has not observed the mbarrier phase of a `tcgen05_commit` after that MMA",
                    access.verb(),
                    address >> 16,
                    address & 0xFFFF,
                    triple(*other)
                ),
            },
            FaultKind::Race {
                access,
                address,
                other_access,
                other,
                ..
            } if let Some(reader) = AsyncReader::of(*other_access) => write!(
                f,
                "data race in shared memory: {who} {} byte {address:#x}, which {} of thread {} may still be reading: {}",
                access.verb(),
                reader.operation,
                triple(*other),
                reader.missing,
            ),
            FaultKind::Race {
                access,
                address,
                other_access,
                other,
                other_rank,
                cluster,
                ..
            } => write!(
                f,
                "data race in shared memory: {who} {} byte {address:#x}, which thread {}{} {} with no {}barrier between them",
                access.verb(),
                triple(*other),
                other_rank.map_or(String::new(), |rank| format!(
                    " of the cluster's block {rank}"
                )),
                if other_access.writes() {
                    "wrote"
                } else {
                    "read"
                },
                if *cluster { "cluster " } else { "" }
            ),
            FaultKind::Uninitialized { access, address } => write!(
                f,
                "{who} {} shared memory at {address:#x}, which nothing has written",
                access.verb()
            ),
            FaultKind::BarrierNotReached { other } => write!(
                f,
                "{who} waits at a barrier that thread {} {}",
                triple(other.thread),
                straggler(other.at)
            ),
            FaultKind::PartialWarp { what, other } => write!(
                f,
                "{who} waits at a {what} that lane {} of its warp {}",
                triple(other.thread),
                straggler(other.at)
            ),
            FaultKind::MissingLane { lane, lanes } => write!(
                f,
                "{who} shuffles from lane {lane}, but its warp has only {lanes} lanes"
            ),
            FaultKind::IncompleteWarp {
                template,
                lanes,
                predicated,
            } => {
                let opcode = template.split_whitespace().next().unwrap_or(template);
                let lanes = if *predicated {
                    format!("with its predicate true in only {lanes} of them")
                } else {
                    format!("in a warp of only {lanes} lanes")
                };
                write!(
                    f,
                    "{who} executes `{opcode}`, which needs all 32 lanes of its warp, {lanes}"
                )
            }
            FaultKind::UnmodeledAtom { template } => write!(
                f,
                "the emulator has no model of the atom instruction `{}` ({who})",
                template.split_whitespace().next().unwrap_or(template)
            ),
            FaultKind::Unsupported(what) => write!(f, "the emulator cannot run {what} ({who})"),
            FaultKind::StoreOutlivesBlock => write!(
                f,
                "a TMA store by {who} may still be reading shared memory when its block exits"
            ),
            FaultKind::Mbarrier(what) | FaultKind::Cluster(what) | FaultKind::Tmem(what) => {
                write!(f, "{what} ({who})")
            }
            FaultKind::Budget { instructions } => write!(
                f,
                "the launch ran more than {instructions} thread-instructions (an endless loop?); stopped at {who}"
            ),
            FaultKind::Spin => write!(
                f,
                "{who} loops forever on memory that nothing can change any more: an iteration of its loop wrote nothing and left the loop's values as they were (or as an earlier iteration since the last write left them: a cycle), and no other thread of its cluster can write, arrive or move"
            ),
            FaultKind::NamedBarrierCount {
                count,
                id,
                other_count,
                other,
                ..
            } => write!(
                f,
                "{who} arrives at named barrier {id} counting {count} threads, in a round that thread {} opened counting {other_count}: the threads of one barrier round must give one count",
                triple(*other)
            ),
            FaultKind::UnfencedWgmma => write!(
                f,
                "{who} issues a wgmma without a `wgmma_fence()` before it: the PTX ISA requires `wgmma.fence` before a warpgroup's first wgmma"
            ),
            FaultKind::UnfencedRegister { .. } => write!(
                f,
                "{who} issues a wgmma that reads a register (of its A fragment or accumulator) the thread wrote after its last `wgmma_fence()`"
            ),
            FaultKind::Hang { cause, waiting } => super::hang::display(f, self, cause, waiting),
            FaultKind::CrossRankRace {
                access,
                address,
                other_write,
                other_rank,
                other,
                ..
            } => write!(
                f,
                "cross-device race in global memory: {who} {} the word at {address:#x}, which thread {} of block {} on rank {other_rank} {} with no release and acquire at system scope ordering the two",
                access.verb(),
                triple(other.thread),
                triple(other.block),
                if *other_write { "wrote" } else { "read" },
            ),
            FaultKind::GlobalRace {
                access,
                address,
                other_access,
                other,
                ..
            } => write!(
                f,
                "data race in global memory: {who} {} the word at {address:#x}, which thread {} of block {} {}: no release and acquire order the two",
                access.verb(),
                triple(other.thread),
                triple(other.block),
                other_access.past(),
            ),
            FaultKind::UnsettledAdd { address, other, .. } => write!(
                f,
                "adds in an order the GPU may not keep: {who} adds to the word at {address:#x} after acquiring what thread {} of block {} released after its own add there, but that add was still in flight at the release, so the two may land in either order (float sums round differently in another order)",
                triple(other.thread),
                triple(other.block),
            ),
            FaultKind::OnRank { rank, world, fault } => {
                let inner = Fault {
                    kind: (**fault).clone(),
                    span: self.span,
                    location: self.location,
                };
                write!(f, "on rank {rank} of {world}: {inner}")
            }
        }
    }
}

impl Fault {
    /// The fault as a diagnostic: its code, the message, the instruction's span as the
    /// primary label, and another thread's instruction as a secondary one.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let kind = &self.kind;
        if let FaultKind::Hang { cause, waiting } = kind {
            return super::hang::diagnostic(self, cause, waiting);
        }
        if let FaultKind::OnRank { fault, .. } = kind {
            let inner = Fault {
                kind: (**fault).clone(),
                span: self.span,
                location: self.location,
            };
            let mut diagnostic = inner.to_diagnostic();
            diagnostic.message = self.to_string();
            return diagnostic;
        }
        let label = match kind {
            FaultKind::GlobalOutOfBounds { .. } | FaultKind::SharedOutOfBounds { .. } => {
                "out of bounds"
            }
            FaultKind::Misaligned { .. } => "misaligned",
            FaultKind::Race { access, .. } if access.writes() => "this write",
            FaultKind::Race { .. } => "this read",
            FaultKind::Uninitialized { .. } => "reads uninitialized shared memory",
            FaultKind::BarrierNotReached { .. } => "not every thread of the block gets here",
            FaultKind::PartialWarp { .. }
            | FaultKind::MissingLane { .. }
            | FaultKind::IncompleteWarp { .. } => "not every lane of the warp gets here",
            FaultKind::UnmodeledAtom { .. } | FaultKind::Unsupported(_) => "not emulated",
            FaultKind::Budget { .. } => "still running here",
            FaultKind::Mbarrier(_) => "this mbarrier operation",
            FaultKind::Cluster(_) => "this cluster operation",
            FaultKind::Tmem(_) => "this tensor-memory operation",
            FaultKind::StoreOutlivesBlock => "no wait covers this store",
            FaultKind::Early { .. } => "too early",
            FaultKind::Spin => "loops here forever",
            FaultKind::NamedBarrierCount { .. } => "this count",
            FaultKind::UnfencedWgmma => "no `wgmma_fence()` before this wgmma",
            FaultKind::UnfencedRegister { .. } => "reads a register written after the last fence",
            FaultKind::Hang { .. } => "no thread can make progress",
            FaultKind::CrossRankRace { access, .. } if access.writes() => "this write",
            FaultKind::CrossRankRace { .. } => "this read",
            FaultKind::GlobalRace { access, .. } if access.writes() => "this write",
            FaultKind::GlobalRace { .. } => "this read",
            FaultKind::UnsettledAdd { .. } => "this add",
            FaultKind::OnRank { .. } => "here",
        };
        let mut diagnostic =
            Diagnostic::error(kind.code(), self.to_string()).with_primary(self.span, label);
        match kind {
            FaultKind::Early {
                pending,
                other,
                other_span,
                ..
            } => {
                diagnostic = diagnostic
                    .with_secondary(
                        *other_span,
                        format!("thread {} {}", triple(*other), pending.issued()),
                    )
                    .with_help(pending.help());
            }
            FaultKind::CrossRankRace {
                other_write,
                other_rank,
                other,
                other_span,
                ..
            } => {
                let verb = if *other_write { "wrote" } else { "read" };
                diagnostic = diagnostic
                    .with_secondary(
                        *other_span,
                        format!(
                            "thread {} of block {} on rank {other_rank} {verb} it here",
                            triple(other.thread),
                            triple(other.block)
                        ),
                    )
                    .with_help("the writer releases at system scope after its writes (`store_release`, or `atomic_add(..., order = \"release\")`), and the reader acquires what it released (`load_acquire`) before its reads, each with `scope = \"sys\"`".to_owned());
            }
            FaultKind::UnsettledAdd {
                other, other_span, ..
            } => {
                diagnostic = diagnostic
                    .with_secondary(
                        *other_span,
                        format!(
                            "thread {} of block {} added here, and its add was still in flight at its release",
                            triple(other.thread),
                            triple(other.block)
                        ),
                    )
                    .with_help("a TMA reduce-add lands only once its thread's `tma_store_wait_all()` returns: wait for it, then `fence_proxy_async()`, before the release (the `atomic_add` or `store_release`) that orders the other block's adds after it".to_owned());
            }
            FaultKind::GlobalRace {
                other_access,
                other,
                other_span,
                ..
            } => {
                diagnostic = diagnostic
                    .with_secondary(
                        *other_span,
                        format!(
                            "thread {} of block {} {} it here",
                            triple(other.thread),
                            triple(other.block),
                            other_access.past()
                        ),
                    )
                    .with_help(match other_access {
                        Access::TmaStore => "a TMA store's writes are complete only once its thread's `tma_store_wait_all()` returns (`tma_store_wait_group(n)` waits for its reads of the tile): wait for them, then order them before the other block's access as any write (`threadfence()` and an atomic)",
                        _ => "order the write before the other block's access: `threadfence()` after the write and then an atomic (or an atomic with `order = \"release\"`) in the writing block, then in the other block an atomic on the same word followed by `threadfence()` (or `load_acquire`) before the access; a `syncthreads()` carries either side to the block's other threads",
                    }.to_owned());
            }
            FaultKind::Race {
                other_access,
                other,
                other_span,
                ..
            } if let Some(reader) = AsyncReader::of(*other_access) => {
                diagnostic = diagnostic
                    .with_secondary(*other_span, (reader.label)(&triple(*other)))
                    .with_help(reader.help);
            }
            FaultKind::Race {
                other_access,
                other,
                other_rank,
                cluster,
                other_span,
                ..
            } => {
                let verb = if other_access.writes() {
                    "wrote"
                } else {
                    "read"
                };
                let block = other_rank.map_or(String::new(), |rank| format!(" of block {rank}"));
                let help = if *cluster {
                    "order a peer block's access with the cluster barrier (`cluster_sync()`) between them: a block's own barriers do not order its peers"
                } else {
                    "order the two accesses with a barrier (`syncthreads()`) between them"
                };
                diagnostic = diagnostic
                    .with_secondary(
                        *other_span,
                        format!("thread {}{block} {verb} it here", triple(*other)),
                    )
                    .with_help(help);
            }
            FaultKind::BarrierNotReached { other } | FaultKind::PartialWarp { other, .. } => {
                if let Elsewhere::Waiting { span, .. } = other.at {
                    diagnostic = diagnostic.with_secondary(
                        span,
                        format!("thread {} waits here", triple(other.thread)),
                    );
                }
            }
            FaultKind::Uninitialized { .. } => {
                diagnostic = diagnostic.with_note(
                    "shared memory holds nothing defined until a thread of the block writes it: a store, or a cp.async copy once its group is waited for",
                );
            }
            FaultKind::UnmodeledAtom { template } => {
                diagnostic = diagnostic.with_note(format!("the atom's PTX: `{template}`"));
            }
            FaultKind::NamedBarrierCount {
                other,
                other_count,
                other_span,
                ..
            } => {
                diagnostic = diagnostic
                    .with_secondary(
                        *other_span,
                        format!(
                            "thread {} arrives here counting {other_count}",
                            triple(*other)
                        ),
                    )
                    .with_help(
                        "give each role its own barrier id, or make every `bar.sync`/`bar.arrive` of a round count the same threads (PTX: the count must be the same in all of them)",
                    );
            }
            FaultKind::UnfencedRegister { write } => {
                diagnostic = diagnostic
                    .with_secondary(*write, "written here, after the thread's last `wgmma_fence()`")
                    .with_help(
                        "the PTX ISA requires `wgmma.fence` between a thread's writes to a wgmma's accumulator or A registers and the wgmma that reads them: call `wgmma_fence()` after the last write (accumulators passed from one wgmma to the next need none)",
                    );
            }
            FaultKind::UnfencedWgmma => {
                diagnostic = diagnostic.with_help(
                    "call `wgmma_fence()` after writing the accumulators (or A's registers) and before the wgmma that reads them",
                );
            }
            FaultKind::Spin => {
                diagnostic = diagnostic.with_note(
                    "the emulator runs every thread of a cluster; blocks of other clusters are not guaranteed to run at the same time on a GPU, so a block waiting for another's write may wait forever there too",
                );
            }
            FaultKind::StoreOutlivesBlock => {
                diagnostic = diagnostic.with_help(
                    "the store reads its shared tile after it is issued, and the block's shared memory goes to the next block when it exits: the issuing thread waits for it first (`tma_store_wait_all()`)",
                );
            }
            _ => {}
        }
        diagnostic
    }
}
