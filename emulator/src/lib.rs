//! A CPU emulator of verified KIR kernels, which runs a launch exactly (every thread of
//! every block) and stops at the first bug it can see.
//!
//! [`run`] executes a [`kir::Verified`] kernel for a [`Launch`] (grid, block, dynamic
//! shared bytes, argument bits) over a [`GlobalMemory`] of allocations the host adds and
//! reads back. Each block has its own shared memory; its threads are grouped in warps of
//! 32 by linear index (x + y·bx + z·bx·by); each thread interprets the structured KIR
//! with an explicit stack of frames (`thread.rs`), so it can wait at a barrier or a warp
//! collective (a shuffle, `bar.warp.sync`, a warp-collective atom) and resume, and the
//! block's scheduler (`block.rs`) releases it when the whole block (warp) is there. The
//! blocks of a cluster run under one scheduler (`cluster.rs`), which applies what each
//! block's threads do to the others (remote mbarrier arrivals, multicast TMA loads) and
//! releases the cluster barrier. Clusters (single blocks without `cluster(...)`) run in
//! parallel on every core unless the kernel has a global atomic (`launch.rs`).
//!
//! # Semantics
//! Each operation does what the PTX instruction `backend-ptx` emits for it does
//! (`arith.rs`): signed wrapping integer arithmetic, arithmetic right shifts, signed
//! `div`/`rem`/`min`/`max`; IEEE float arithmetic rounded to nearest even with
//! subnormals kept; ordered float comparisons; `cvt` rounding (`.rn` to floats, `.rzi`
//! saturating to integers, f32 to f16/bf16 to nearest even); loads and stores of 1, 2
//! or 4 little-endian words; shuffles by `shfl.sync`'s rules; atomics on global or
//! shared memory. Approximations, each within the hardware's documented error:
//! `ex2.approx.ftz.f32` is the exact 2^x rounded to f32, subnormal results flushed to
//! zero, `lg2.approx.f32` the exact log2,
//! `rsqrt.approx.f32` the exact 1/sqrt(x) (the hardware is within 2 ulp for ex2 and
//! 2^-22.9 relative for lg2 and rsqrt); an integer division by zero, which PTX leaves
//! unspecified, gives -1 (remainder: the dividend); a skipped predicated load leaves
//! zeros. Atom instructions run through a model of their PTX template (`atoms.rs`):
//! `cp.async`'s bytes land only at the wait for their group, so a read before it sees
//! the old data, as on hardware; `ldmatrix` and `stmatrix` move 16-bit elements between
//! shared memory and the warp's registers, and `mma.sync` computes `D = A·B + C` for the
//! warp, each as the thread-value layouts its instruction carries say
//! ([`kir::WarpAtom`]). An MMA's products of bf16 or f16 inputs are exact and each
//! element of D is C plus their sum rounded once to f32 (summed in f64); the tensor
//! cores add with at least f32 precision in an undocumented order, so they may differ
//! in the last bits. Hopper's instructions (`atoms/hopper.rs`, `thread/hopper.rs`,
//! `atoms/wgmma.rs`, `block/hopper.rs`): an mbarrier counts arrivals and transaction
//! bytes, and a completed phase flips its parity, wakes its waiters and ends the block's
//! shared-memory epoch for the race checks (what it orders is ordered; what it does not
//! is missed, not reported falsely); a TMA load reads its box at issue (zeros outside
//! the tensor, swizzled as its map says) and completes its bytes on its mbarrier, but the
//! box is in flight until the phase completes, lands then, and is visible only to the
//! threads that observed that phase (`shared/flight.rs`); a TMA store reads the tile and
//! writes the elements inside the tensor; a named barrier releases once its count of
//! threads has arrived (a new epoch too); a wgmma runs when the whole warpgroup is there,
//! reading A and B through its descriptors by the PTX ISA's formulas (written here apart
//! from the compiler's), and its accumulators stay in flight, its shared operands read,
//! until the wait for its group (`thread/wgmma.rs`). An atom without a model is an error
//! naming it.
//!
//! # Checks
//! Each a [`Fault`] at the instruction's span (the `.cuk` line), with the thread and
//! block and, for memory, the address: a global access outside every allocation (named
//! by the allocation it strayed from and the parameter pointing into it, `E0401`), a
//! shared access past the block's shared memory (`E0402`), a misaligned access
//! (`E0403`), a shared-memory data race (`E0404`, both lines named), a read of shared
//! memory nothing wrote (`E0405`), a `bar.sync` that not every thread reaches (`E0406`),
//! a shuffle, `bar.warp.sync` or warp-collective atom that not every lane reaches, or
//! that a short warp or a predicate true in some lanes only runs (`E0407`), an atom with no
//! model (`E0408`), an operation or launch the emulator cannot run (`E0409`), a
//! launch past its instruction budget (`E0410`), an mbarrier used before its init,
//! over-arrived (arrivals past its count, or transaction bytes past what its phase
//! expects once every arrival came), overrun (two phases completing while a thread
//! waits for the first), or waited on when no thread can complete its phase (`E0411`),
//! a loop spinning on memory nothing can change (`E0416`), one named barrier given two
//! thread counts in a round (`E0417`), a wgmma issued before any `wgmma.fence` by its
//! thread (`E0418`), a wgmma reading a register (A, or the accumulator it adds to) its
//! thread wrote after its last `wgmma.fence` (`E0419`, `thread/fence.rs`), a global access
//! conflicting with another block's that no release and acquire order (`E0429`,
//! `grid_order.rs`), and data
//! an asynchronous operation has not handed over (`E0415`: a TMA box read or overwritten
//! before the thread observed its phase, a wgmma's accumulators read before their
//! wait, a tcgen05.mma's tensor-memory accumulator touched before the thread observed
//! the phase of a commit after it, `tmem/flight.rs`); a wgmma some warp of its warpgroup does not reach is `E0407`. When no thread of
//! a cluster can make progress, the fault says why and lists every group of waiting
//! threads ([`FaultKind::Hang`], `hang.rs`). The first fault in block order stops
//! the launch; within a block, threads run round-robin in index order, so the same
//! launch always reports the same fault.
//!
//! **Invariants.** Nothing panics on a verified kernel and any launch; memory stays
//! bounded by the allocations, the shadow of the global words the launch touched, and one
//! block's registers and shared shadow per core; a launch ends, at the latest at its
//! instruction budget.

mod arith;
mod atoms;
mod block;
mod cluster;
mod fault;
mod global;
mod grid_order;
mod hang;
mod launch;
mod print;
mod profile;
mod ranks;
mod shared;
mod system;
mod thread;
mod tmem;

pub use fault::{Access, Elsewhere, Fault, FaultKind, Location, Other, Pending, Waiting};
pub use global::{Extent, FIRST_ADDRESS, GAP, GlobalMemory, OutOfBounds};
pub use launch::{Launch, MAX_BLOCK_THREADS, MAX_GRID, MAX_SHARED_BYTES, Options, Stats, run};
pub use print::MAX_PRINTED_BYTES;
pub use profile::{Counts, Profile};
pub use ranks::run_ranks;
