//! The table of built-in functions: one row per built-in with its name, where it
//! may be called, its arity and named arguments, its parameters, one line of meaning
//! and the function that evaluates it.
//!
//! The checker dispatches calls through it (`super::Checker::call_builtin`), the
//! language server completes and hovers from it, and [`reference`] renders it as
//! `docs/builtins.md` (kept current by `typecheck/tests/builtins_reference.rs`).

use std::fmt;

use kir::{Fence, Intrinsic};

use crate::builtins::Args;
use crate::check::Checker;
use crate::value::Value;
use Arity::{Any, Between};

/// Where a built-in may be called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// In const code, device code and tests alike.
    Anywhere,
    /// In kernels and device functions only.
    Device,
    /// In `test` and `bench` blocks only.
    Host,
    /// In device code, and on host tensors in `test` and `bench` blocks (math).
    DeviceOrHost,
}

impl Place {
    /// Where, in words, for the reference.
    pub fn words(self) -> &'static str {
        match self {
            Place::Anywhere => "anywhere",
            Place::Device => "device code",
            Place::Host => "tests and benches",
            Place::DeviceOrHost => "device code; host tensors in tests and benches",
        }
    }
}

/// How many positional arguments a built-in takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    /// From the first to the second, inclusive; named arguments only those listed.
    Between(usize, usize),
    /// Any arguments, named or not, even ones that failed to evaluate (`const_print`).
    Any,
}

/// What evaluates a built-in once its arguments passed the row's checks: the checker,
/// the name it was called by, the arguments.
pub(crate) type Eval = for<'a, 'c> fn(&'c mut Checker<'a>, &'static str, &Args) -> Value;

/// One built-in function.
pub struct Builtin {
    /// The name it is called by, CuTe's where CuTe has one.
    pub name: &'static str,
    /// The reference's section: `Layouts`, `Tensors`, ...
    pub section: &'static str,
    /// Where it may be called.
    pub place: Place,
    /// How many positional arguments it takes.
    pub arity: Arity,
    /// The named arguments it accepts.
    pub named: &'static [&'static str],
    /// Whether it is a statement, giving no value (`copy`, `syncthreads`).
    pub statement: bool,
    /// Its parameters as the reference writes them: `tensor, tiler, coord, projection?`.
    pub parameters: &'static str,
    /// One line of meaning.
    pub doc: &'static str,
    /// What evaluates it.
    pub(crate) eval: Eval,
}

impl Builtin {
    /// `local_tile(tensor, tiler, coord, projection?)`.
    pub fn signature(&self) -> String {
        format!("{}({})", self.name, self.parameters)
    }
}

impl PartialEq for Builtin {
    fn eq(&self, other: &Builtin) -> bool {
        self.name == other.name
    }
}

impl fmt::Debug for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builtin")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// The evaluator of a row: a method of the checker, given the name it was called by
/// when the row says `(name)`.
macro_rules! evaluator {
    ($method:ident) => {
        |checker, _, args| checker.$method(args)
    };
    ($method:ident(name)) => {
        |checker, name, args| checker.$method(name, args)
    };
    ($method:ident[$intrinsic:expr]) => {
        |checker, name, args| checker.$method(name, args, $intrinsic)
    };
}

/// The table, written one row per built-in under its section:
/// `name, place, arity, [named], statement, parameters, doc => evaluator;`, where the
/// evaluator is a checker method called with the arguments (`method`), with the name
/// too (`method(name)`), or with the name and a value (`intrinsic[Intrinsic::X]`: a
/// built-in that is one operand-free hardware instruction).
macro_rules! builtins {
    ($($section:literal {
        $($name:literal, $place:ident, $arity:expr, [$($named:literal),*], $statement:literal,
            $parameters:literal, $doc:literal => $method:ident $(($with:ident))? $([$value:expr])?;)*
    })*) => {
        /// Every built-in function, in the reference's order.
        pub static BUILTINS: &[Builtin] = &[$($(Builtin {
            name: $name,
            section: $section,
            place: Place::$place,
            arity: $arity,
            named: &[$($named),*],
            statement: $statement,
            parameters: $parameters,
            doc: $doc,
            eval: evaluator!($method $(($with))? $([$value])?),
        },)*)*];
    };
}

#[rustfmt::skip]
builtins! {
    "Layouts" {
        "make_layout", Anywhere, Between(1, 2), [], false, "shape, stride?",
            "A layout of `shape` with `stride`; column-major (`LayoutLeft`) when the stride is left out." => make_layout;
        "row_major", Anywhere, Between(1, 8), [], false, "shape...",
            "A compact layout of `shape` whose last mode has stride 1 (`LayoutRight`)." => major_layout(name);
        "col_major", Anywhere, Between(1, 8), [], false, "shape...",
            "A compact layout of `shape` whose first mode has stride 1 (`LayoutLeft`)." => major_layout(name);
        "make_ordered_layout", Anywhere, Between(2, 2), [], false, "shape, order",
            "A compact layout of `shape` whose strides grow in the given `order` of the modes." => make_ordered_layout(name);
        "size", Anywhere, Between(1, 1), [], false, "x",
            "The number of elements of a layout, shape or tensor (its domain)." => measure_call(name);
        "rank", Anywhere, Between(1, 1), [], false, "x",
            "The number of top-level modes." => measure_call(name);
        "depth", Anywhere, Between(1, 1), [], false, "x",
            "How deeply the shape nests: 0 for an integer." => measure_call(name);
        "cosize", Anywhere, Between(1, 1), [], false, "layout",
            "One more than the largest value the layout takes (the size of its codomain)." => measure_call(name);
        "shape", Anywhere, Between(1, 1), [], false, "x",
            "The shape of a layout, tensor or host tensor." => shape_or_stride(name);
        "stride", Anywhere, Between(1, 1), [], false, "layout",
            "The strides of a layout." => shape_or_stride(name);
        "get", Anywhere, Between(2, 8), [], false, "x, index...",
            "The mode at `index` (again for each further index) of a layout, tuple or tensor." => get_mode;
        "mode", Anywhere, Between(2, 8), [], false, "x, index...",
            "The same as `get`: the mode at `index` of a layout, tuple or tensor." => get_mode;
        "select", Anywhere, Between(2, 2), [], false, "layout, indices",
            "The layout made of the modes at `indices`, in that order." => select(name);
        "group_modes", Anywhere, Between(3, 3), [], false, "layout, begin, end",
            "The layout with modes `begin..end` grouped into one." => group_modes(name);
        "append", Anywhere, Between(2, 2), [], false, "layout, other",
            "The layout with `other` added as its last mode." => append_prepend(name);
        "prepend", Anywhere, Between(2, 2), [], false, "layout, other",
            "The layout with `other` added as its first mode." => append_prepend(name);
        "flatten", Anywhere, Between(1, 1), [], false, "x",
            "The layout or tuple with all nesting removed." => flatten(name);
        "coalesce", Anywhere, Between(1, 2), [], false, "layout, profile?",
            "The same function with the fewest modes; with a profile, coalesced within each of its modes." => coalesce(name);
        "filter_zeros", Anywhere, Between(1, 1), [], false, "layout",
            "The layout with the modes of stride 0 replaced by size 1." => filter(name);
        "filter", Anywhere, Between(1, 1), [], false, "layout",
            "The layout without its stride-0 and size-1 modes, coalesced." => filter(name);
        "composition", Anywhere, Between(2, 2), [], false, "a, b",
            "`a o b`: the layout that maps `c` to `a(b(c))`; `b` may be a tiler." => composition_call;
        "complement", Anywhere, Between(1, 2), [], false, "layout, cotarget?",
            "The layout of the elements of `cotarget` that `layout` does not reach, in order." => complement(name);
        "right_inverse", Anywhere, Between(1, 1), [], false, "layout",
            "A layout `r` with `layout(r(i)) == i` over the largest prefix it can." => inverse(name);
        "left_inverse", Anywhere, Between(1, 1), [], false, "layout",
            "A layout `l` with `l(layout(c)) == c`." => inverse(name);
        "logical_divide", Anywhere, Between(2, 2), [], false, "x, tiler",
            "`x` split by `tiler` into (tile, rest) per mode." => divide(name);
        "zipped_divide", Anywhere, Between(2, 2), [], false, "x, tiler",
            "`logical_divide` with the tile modes gathered first: ((tiles), (rests))." => divide(name);
        "tiled_divide", Anywhere, Between(2, 2), [], false, "x, tiler",
            "`zipped_divide` with the rest modes unpacked: ((tiles), rest0, rest1, ...)." => divide(name);
        "flat_divide", Anywhere, Between(2, 2), [], false, "x, tiler",
            "`zipped_divide` with both tile and rest modes unpacked." => divide(name);
        "logical_product", Anywhere, Between(2, 2), [], false, "block, tiler",
            "`block` repeated over the layout `tiler`: (block, repeats)." => product(name);
        "blocked_product", Anywhere, Between(2, 2), [], false, "block, tiler",
            "`block` repeated over `tiler`, mode by mode, the block's elements first." => product(name);
        "raked_product", Anywhere, Between(2, 2), [], false, "block, tiler",
            "`block` interleaved over `tiler`, mode by mode, the repeats first." => product(name);
        "zipped_product", Anywhere, Between(2, 2), [], false, "block, tiler",
            "`logical_product` with the block modes gathered first." => product(name);
        "tiled_product", Anywhere, Between(2, 2), [], false, "block, tiler",
            "`zipped_product` with the repeat modes unpacked." => product(name);
        "make_layout_tv", Anywhere, Between(2, 2), [], false, "threads, values",
            "The (tiler, thread-value layout) of `threads` each holding `values` (CuTe's `make_layout_tv`)." => make_layout_tv;
        "ceil_div", Anywhere, Between(2, 2), [], false, "a, b",
            "`a / b` rounded up, on integers or element-wise on tuples." => divide_shapes(name);
        "shape_div", Anywhere, Between(2, 2), [], false, "a, b",
            "CuTe's `shape_div`: `a / b`, or `1` where `b` is the larger (on integers or tuples)." => divide_shapes(name);
        "swizzle", Anywhere, Between(3, 3), [], false, "bits, base, shift",
            "CuTe's `Swizzle<B, M, S>`: XORs `bits` bits at `base + shift` into those at `base`." => swizzle;
        "upcast", Anywhere, Between(2, 2), [], false, "layout, factor",
            "The layout over elements `factor` times wider (CuTe's `upcast`)." => recast(name);
        "downcast", Anywhere, Between(2, 2), [], false, "layout, factor",
            "The layout over elements `factor` times narrower (CuTe's `downcast`)." => recast(name);
        "elem_less", Anywhere, Between(2, 2), [], false, "coord, shape",
            "Whether `coord` is inside `shape`, mode by mode (CuTe's `elem_less`)." => elem_less(name);
        "bits", Anywhere, Between(1, 1), [], false, "dtype",
            "The width of `dtype` in bits." => bits;
        "shared_memory_limit", Anywhere, Between(0, 0), [], false, "",
            "The bytes of shared memory a block may have on the build target (163 KiB on sm_80, 227 KiB on sm_90a and sm_100a), as E0207 counts them: for a kernel's `static_assert` on its buffers." => shared_memory_limit;
        "max_value", Anywhere, Between(1, 1), [], false, "dtype",
            "The largest finite value of `dtype` (`std::numeric_limits<T>::max()`)." => dtype_limit(name);
        "min_value", Anywhere, Between(1, 1), [], false, "dtype",
            "The most negative finite value of `dtype` (`std::numeric_limits<T>::lowest()`)." => dtype_limit(name);
        "min", Anywhere, Between(1, 2), [], false, "a, b",
            "The smaller of two integers or floats; of a host tensor `a`, its smallest values along dimension `b` (the last by default), which disappears (`maximum`/`minimum` compare two tensors)." => min_max_call(name);
        "max", Anywhere, Between(1, 2), [], false, "a, b",
            "The larger of two integers or floats; of a host tensor `a`, its largest values along dimension `b` (the last by default), which disappears." => min_max_call(name);
        "print", Device, Between(1, 64), [], true, "format, x...",
            "The thread writes one line: `format` with each `{}` (`{:x}` hexadecimal, `{:.N}` N decimals) replaced by the next value, compile-time values as their text (`print(\"{} at {}\", layout, i)`); `print(x)` writes one value. Through `vprintf` on the GPU; `cukc test` shows the emulator's lines by block, thread and program order." => print;
        "print_tensor", Device, Between(1, 1), [], true, "tensor",
            "The thread writes a tensor's memory, element type and layout on one line, then its elements (at most 1024, a shape known at compile time) a row of mode 0 a line." => print_tensor;
        "const_print", Anywhere, Any, [], false, "x...",
            "Prints each const argument's type and value as a note (N0201) when checking." => const_print;
        "require_range", Device, Between(3, 3), [], true, "tensor, low, high",
            "States that every element of the integer tensor parameter `tensor` lies in `low..high` (integers over the kernel's integer parameters), as code indexing with them needs (a block table's page indices below the number of pages): nothing runs on the GPU; the host checks each argument's elements before every launch, and a value outside is an error (E0428) naming the parameter, the element and this line." => require_range;
        "require_offsets", Device, Between(2, 3), [], true, "tensor, total, max_step?",
            "States that the 1-D integer tensor parameter `tensor` is an offsets array, as packed sequences' starts (`cu_seqlens`) are: its first element is 0 (E0424), no element is less than the one before (E0425), its last element is `total` (E0426), and when `max_step` is given no step from one element to the next exceeds it (E0427, the longest sequence), `total` and `max_step` integers over the kernel's integer parameters. Nothing runs on the GPU; the host checks each argument's elements before every launch, and an error names the parameter, the element and this line." => require_offsets;
        "static_assert", Anywhere, Between(1, 2), [], false, "condition, message?",
            "An error (E0228) at the call when the const `condition` is false, saying the string `message`: a kernel states what its const parameters must satisfy, and why." => static_assert;
    }
    "Tensors" {
        "make_tensor", Anywhere, Between(2, 2), [], false, "pointer, layout",
            "A tensor over `pointer` (`t.iterator`) with `layout`; a swizzled layout views a shared buffer from its start." => make_tensor;
        "make_identity_tensor", Anywhere, Between(1, 1), [], false, "shape",
            "A tensor whose elements are their own coordinates in `shape`, for predication." => make_identity_tensor;
        "local_tile", Anywhere, Between(3, 4), [], false, "tensor, tiler, coord, projection?",
            "The tile at `coord` of `tensor` divided by `tiler`; a projection keeps the modes it does not mark `_`." => local_tile;
        "domain_offset", Anywhere, Between(2, 2), [], false, "coord, tensor",
            "`tensor` starting at its element `coord` (CuTe's `domain_offset`), its shape kept: a packed sequence's rows from a run-time offset (`domain_offset((start, 0, 0), q)`), or an identity tensor whose coordinates start there, for a TMA box at any row." => domain_offset;
        "local_partition", Anywhere, Between(3, 3), [], false, "tensor, threads, index",
            "The elements of every tile that thread `index` of the layout `threads` owns." => local_partition;
        "fragment_like", Device, Between(1, 1), [], false, "tensor",
            "A register tensor of the same shape and element type (CuTe's `make_fragment_like`)." => fragment_like_call;
        "make_fragment_like", Device, Between(1, 1), [], false, "tensor",
            "The same as `fragment_like`." => fragment_like_call;
    }
    "Copies and MMAs" {
        "make_tiled_copy", Anywhere, Between(3, 3), [], false, "atom, threads, values",
            "A tiled copy: `atom` repeated over `threads` each moving `values`." => make_tiled_copy(name);
        "make_tiled_copy_tv", Anywhere, Between(3, 3), [], false, "atom, layout_tv, tile",
            "A tiled copy from a thread-value layout over `tile`." => make_tiled_copy(name);
        "make_tiled_copy_A", Anywhere, Between(2, 2), [], false, "atom, tiled_mma",
            "A tiled copy that fills `tiled_mma`'s A fragments." => make_tiled_copy(name);
        "make_tiled_copy_B", Anywhere, Between(2, 2), [], false, "atom, tiled_mma",
            "A tiled copy that fills `tiled_mma`'s B fragments." => make_tiled_copy(name);
        "make_tiled_mma", Anywhere, Between(2, 3), [], false, "atom, atom_layout, permutation?",
            "A tiled MMA: `atom` repeated over `atom_layout` of (M, N, K), with an optional permutation." => make_tiled_mma;
        "copy", Device, Between(2, 3), ["pred"], true, "copy?, src, dst, pred = mask",
            "Copies `src` to `dst` (partitions of one shape), with an atom or tiled copy, under a predicate." => copy;
        "gemm", Device, Between(5, 5), ["accumulate"], true, "tiled_mma, d, a, b, c, accumulate = true",
            "`d = a * b + c` over a thread's MMA fragments; with `accumulate = false` (an atom with a scale-d operand: wgmma) `d = a * b`." => gemm;
    }
    "Synchronisation" {
        "syncthreads", Device, Between(0, 0), [], true, "",
            "Waits for every thread of the block (`__syncthreads()`)." => barrier(name);
        "syncwarp", Device, Between(0, 0), [], true, "",
            "Waits for every thread of the warp (`__syncwarp()`)." => barrier(name);
        "threadfence", Device, Between(0, 0), [], true, "",
            "Every thread of the GPU observes this thread's memory accesses before the call before those after it (`__threadfence()`, `fence.sc.gpu`): a write, the fence, then a flag another block reads." => intrinsic[Intrinsic::Fence(Fence::Device)];
        "threadfence_system", Device, Between(0, 0), [], true, "",
            "As `threadfence`, for the host and other GPUs too (`__threadfence_system()`, `fence.sc.sys`)." => intrinsic[Intrinsic::Fence(Fence::System)];
        "cp_async_commit_group", Device, Between(0, 0), [], true, "",
            "Closes the group of `cp.async` copies issued so far (`cp_async_fence`)." => barrier(name);
        "cp_async_wait_group", Device, Between(1, 1), [], true, "n",
            "Waits until at most `n` committed `cp.async` groups are in flight (`cp_async_wait<N>`)." => cp_async_wait_group;
        "mbarrier_init", Device, Between(3, 3), [], true, "barriers, coord, count",
            "One thread makes `barriers[coord]` (shared `u64`) an mbarrier expecting `count` arrivals per phase (sm_90)." => mbarrier(name);
        "mbarrier_arrive", Device, Between(2, 2), ["cta"], true, "barriers, coord, cta = this block",
            "Arrives once on the mbarrier `barriers[coord]`; with `cta = rank`, on the same barrier in block `rank` of the cluster (`mapa`; sm_90)." => mbarrier(name);
        "mbarrier_arrive_expect_tx", Device, Between(3, 3), [], true, "barriers, coord, bytes",
            "Adds `bytes` of expected asynchronous transactions (TMA) to the mbarrier's phase, then arrives (sm_90)." => mbarrier(name);
        "mbarrier_wait", Device, Between(3, 3), [], true, "barriers, coord, parity",
            "Waits until the mbarrier's phase of parity `parity` (0 or 1) has completed (`try_wait.parity` in a loop; sm_90)." => mbarrier(name);
        "fence_barrier_init", Device, Between(0, 0), [], true, "",
            "Makes the mbarrier inits before it visible to asynchronous copies and the cluster (`fence.mbarrier_init`; sm_90)." => intrinsic[Intrinsic::Fence(Fence::BarrierInit)];
        "fence_proxy_async", Device, Between(0, 0), [], true, "",
            "Makes this thread's shared-memory writes visible to TMA and wgmma (`fence.proxy.async.shared::cta`; sm_90)." => intrinsic[Intrinsic::Fence(Fence::ProxyAsync)];
        "wgmma_fence", Device, Between(0, 0), [], true, "",
            "Orders register accesses before the wgmmas after it (`wgmma.fence`; sm_90a)." => async_sync(name);
        "wgmma_commit_group", Device, Between(0, 0), [], true, "",
            "Closes the group of wgmmas issued so far (`wgmma.commit_group`; sm_90a)." => async_sync(name);
        "setmaxnreg_inc", Device, Between(1, 1), [], true, "n",
            "The warpgroup's threads wait for and take `n` registers each (24 to 256, steps of 8; `setmaxnreg.inc`, sm_90)." => setmaxnreg(name);
        "setmaxnreg_dec", Device, Between(1, 1), [], true, "n",
            "The warpgroup's threads keep `n` registers each and release the rest (`setmaxnreg.dec`, sm_90)." => setmaxnreg(name);
        "cluster_sync", Device, Between(0, 0), [], true, "",
            "Waits for every thread of every block of the cluster (`barrier.cluster.arrive` then `.wait`; sm_90): peers' shared memory and barriers are ready, or no longer used." => async_sync(name);
        "cluster_arrive", Device, Between(0, 0), [], true, "",
            "Arrives at the cluster barrier without waiting (`barrier.cluster.arrive.release`; sm_90); `cluster_wait` waits." => intrinsic[Intrinsic::ClusterArrive];
        "cluster_wait", Device, Between(0, 0), [], true, "",
            "Waits until every thread of the cluster has arrived at the cluster barrier as often as this one (`barrier.cluster.wait.acquire`; sm_90)." => intrinsic[Intrinsic::ClusterWait];
        "cluster_view", Device, Between(2, 2), [], false, "smem, rank",
            "The shared tensor `smem` (one of the kernel's buffers, or a part; 32-bit elements) as it lies in block `rank` of the cluster: the same layout, read and written element by element over distributed shared memory (`mapa`, `ld`/`st.shared::cluster`; sm_90), and `atomic_add` to (`red.shared::cluster.add`). Order the blocks' accesses with `cluster_sync()`." => cluster_view(name);
        "named_barrier_sync", Device, Between(2, 2), [], true, "id, threads",
            "Waits at named barrier `id` (0 to 15; a constant, or a run-time integer the same in every thread of a warp) until `threads` threads (whole warps) have arrived (`bar.sync id, threads`)." => named_barrier(name);
        "named_barrier_arrive", Device, Between(2, 2), [], true, "id, threads",
            "Arrives at named barrier `id` without waiting (`bar.arrive id, threads`)." => named_barrier(name);
        "make_tma_load", Device, Between(2, 2), [], false, "tensor, tile",
            "A TMA copy of boxes of the global tensor parameter `tensor` into shared tiles laid out as `tile` (a hidden tensor-map parameter the host encodes; sm_90). `.bytes` is one box's bytes." => make_tma(name);
        "make_tma_store", Device, Between(2, 2), [], false, "tensor, tile",
            "A TMA copy of shared tiles laid out as `tile` into boxes of the global tensor parameter `tensor` (sm_90)." => make_tma(name);
        "tma_store", Device, Between(3, 3), [], true, "tma, tile, coords",
            "One thread stores the shared `tile` to the box whose first element's coordinates `coords` gives; elements outside the tensor are not written (sm_90). Fence the tile's writes first (`fence_proxy_async`, then a barrier)." => tma_store(name);
        "tma_reduce_add", Device, Between(3, 3), [], true, "tma, tile, coords",
            "As `tma_store`, but adds each element of the shared `tile` to the box's, atomically per element (`cp.reduce.async.bulk.tensor .add`; sm_90): f32 (rounded to nearest, subnormals flushed to zero, as `atomic_add`), i32 or u32 tensors. Several blocks may add to the same box; the sums land by `tma_store_wait_all()`." => tma_store(name);
        "tma_store_commit_group", Device, Between(0, 0), [], true, "",
            "Closes this thread's group of TMA stores (`cp.async.bulk.commit_group`; sm_90)." => intrinsic[Intrinsic::BulkCommit];
        "tma_store_wait_group", Device, Between(1, 1), [], true, "n",
            "Waits until at most `n` of this thread's TMA store groups still read shared memory (`cp.async.bulk.wait_group.read`; sm_90)." => async_sync(name);
        "tma_store_wait_all", Device, Between(0, 0), [], true, "",
            "Waits until this thread's TMA stores are complete and visible in global memory, as needed before the kernel ends (`cp.async.bulk.wait_group 0`; sm_90)." => intrinsic[Intrinsic::BulkWait { read: false, pending: 0 }];
        "prefetch_tma", Device, Between(1, 1), [], true, "tma",
            "Brings `tma`'s tensor map into the cache ahead of its first copy (`prefetch.tensormap`; sm_90); one thread, once." => prefetch_tma;
        "tma_load", Device, Between(5, 5), ["multicast", "pair"], true, "tma, coords, tile, barriers, coord, multicast = mask, pair = false",
            "One thread copies the box whose first element's coordinates `coords` (a tile of an identity tensor) gives into `tile`, completing `tma.bytes` on the mbarrier `barriers[coord]`; with `multicast = mask`, into the same tile of every block of the cluster whose rank's bit is set, completing on each one's barrier (sm_90); with `pair = true` (sm_100a, a cluster of even x extent), the box lands in this block and completes on the barrier's place in the even block of its CTA pair (`.cta_group::2`)." => tma_load;
        "wgmma_wait_group", Device, Between(1, 1), [], true, "n",
            "Waits until at most `n` committed wgmma groups are in flight (`wgmma.wait_group`; sm_90a)." => async_sync(name);
        "tmem_alloc", Device, Between(3, 3), ["pair"], true, "slots, coord, columns, pair = false",
            "A whole warp allocates `columns` (a power of two, 32 to 512) of the block's tensor memory and writes their address to the shared `u32` `slots[coord]` (`tcgen05.alloc`; sm_100a). Free them with `tmem_dealloc` before the block exits. Every tcgen05 instruction of a kernel is of one `cta_group`: `pair = true` everywhere for CTA pairs (`cta_group::2`)." => tmem(name);
        "tmem_dealloc", Device, Between(2, 2), ["pair"], true, "address, columns, pair = false",
            "A whole warp frees the `columns` of tensor memory at `address` (`tcgen05.dealloc`; sm_100a)." => tmem(name);
        "tmem_relinquish_alloc_permit", Device, Between(0, 0), ["pair"], true, "pair = false",
            "A whole warp gives up the block's right to allocate tensor memory; a later `tmem_alloc` is an error (`tcgen05.relinquish_alloc_permit`; sm_100a)." => tmem_relinquish(name);
        "tcgen05_fence_before_thread_sync", Device, Between(0, 0), [], true, "",
            "Orders this thread's tcgen05 operations before the thread synchronization that follows (a barrier, an mbarrier arrival; sm_100a)." => intrinsic[Intrinsic::Tcgen05Fence { after: false }];
        "tcgen05_fence_after_thread_sync", Device, Between(0, 0), [], true, "",
            "Orders this thread's tcgen05 operations after the thread synchronization before it (sm_100a)." => intrinsic[Intrinsic::Tcgen05Fence { after: true }];
        "tcgen05_commit", Device, Between(2, 2), ["pair", "multicast"], true, "barriers, coord, pair = false, multicast = mask",
            "One arrival on the mbarrier `barriers[coord]` once this thread's earlier tcgen05 MMAs have completed (`tcgen05.commit`; sm_100a): it frees a pipeline stage or says an accumulator is ready. With `multicast = mask`, on the barrier at the same place in each block of the cluster whose rank's bit is set; `pair = true` for a CTA pair's MMAs (`cta_group::2`)." => tcgen05_commit(name);
        "tcgen05_wait_ld", Device, Between(0, 0), [], true, "",
            "Waits until the warp's tensor-memory loads have completed; their registers are valid after it (`tcgen05.wait::ld`; sm_100a)." => intrinsic[Intrinsic::Tcgen05Wait { store: false }];
        "tcgen05_mma", Device, Between(4, 4), ["pair"], true, "taddr, a, b, accumulate, pair = false",
            "One thread issues `D += A Bᵀ` (`D = A Bᵀ` when `accumulate` is false): D is 128 x N f32 in tensor memory at `taddr` (row m in lane m), A a shared (128, 16) and B a shared (N, 16) tile of bf16 or f16 (`kind::f16`), (128, 8) and (N, 8) K-major tiles of f32 read as tf32 (`kind::tf32`), or (128, 32) and (N, 32) K-major tiles of e4m3 or e5m2, in any pairing (`kind::f8f6f4`), N 16 to 256 in steps of 16, read through descriptors computed from their layouts (`tcgen05.mma.cta_group::1`; sm_100a); or A an integer, its address in tensor memory, 128 lanes of B's type with K packed into 32-bit columns from the address's (as `tcgen05_st_32x32b` of a 16-bit fragment leaves them). Asynchronous: `tcgen05_commit` says when it is done. With `pair = true` (`cta_group::2`, a cluster of even x extent), the even block of a pair issues D (256 x N) for both: A's 128 rows and B's N / 2 rows in each block at the same shared offsets, D's rows 0-127 in its tensor memory and 128-255 in the odd block's." => tcgen05_mma(name);
        "tcgen05_ld_32x32b", Device, Between(2, 2), [], true, "fragment, taddr",
            "The warp loads 32 lanes of tensor memory from `taddr`: thread i lane `lane(taddr) + i`, value j of its 32-bit register `fragment` (1 to 128 values) column `column(taddr) + j`; warp w may touch lanes 32 (w % 4) to 32 (w % 4) + 31. Valid after `tcgen05_wait_ld()` (`tcgen05.ld.32x32b`; sm_100a)." => tmem_copy(name);
        "tcgen05_st_32x32b", Device, Between(2, 2), [], true, "taddr, fragment",
            "The warp stores its register fragments to 32 lanes of tensor memory at `taddr`, as `tcgen05_ld_32x32b` loads them, or a fragment of 16-bit values packed in pairs into its registers, the first in the low half (`tcgen05.st.32x32b`; sm_100a); `tcgen05_wait_st()` before an MMA reads them." => tmem_copy(name);
        "tcgen05_ld_16x64b", Device, Between(2, 2), [], true, "fragment, taddr",
            "The warp loads 16 lanes of tensor memory from `taddr`, 64 bits each per repetition: thread l's register r is lane `lane(taddr) + 8 (l % 2) + l / 4`, column `column(taddr) + (l / 2) % 2 + 2 r` (CuTe's SM100_TMEM_LOAD_16dp64b; sm_100a)." => tmem_copy(name);
        "tcgen05_st_16x64b", Device, Between(2, 2), [], true, "taddr, fragment",
            "The warp stores to 16 lanes of tensor memory as `tcgen05_ld_16x64b` loads them (sm_100a)." => tmem_copy(name);
        "tcgen05_ld_16x128b", Device, Between(2, 2), [], true, "fragment, taddr",
            "The warp loads 16 lanes of tensor memory from `taddr`, 128 bits each per repetition: thread l's register r is lane `lane(taddr) + l / 4 + 8 (r % 2)`, column `column(taddr) + l % 4 + 4 (r / 2)` (CuTe's SM100_TMEM_LOAD_16dp128b; sm_100a)." => tmem_copy(name);
        "tcgen05_st_16x128b", Device, Between(2, 2), [], true, "taddr, fragment",
            "The warp stores to 16 lanes of tensor memory as `tcgen05_ld_16x128b` loads them (sm_100a)." => tmem_copy(name);
        "tcgen05_ld_16x256b", Device, Between(2, 2), [], true, "fragment, taddr",
            "The warp loads 16 lanes of tensor memory from `taddr`, 256 bits each per repetition: thread l's register r is lane `lane(taddr) + l / 4 + 8 ((r / 2) % 2)`, column `column(taddr) + 2 (l % 4) + r % 2 + 8 (r / 4)` (CuTe's SM100_TMEM_LOAD_16dp256b; sm_100a)." => tmem_copy(name);
        "tcgen05_st_16x256b", Device, Between(2, 2), [], true, "taddr, fragment",
            "The warp stores to 16 lanes of tensor memory as `tcgen05_ld_16x256b` loads them (sm_100a)." => tmem_copy(name);
        "tcgen05_wait_st", Device, Between(0, 0), [], true, "",
            "Waits until the warp's tensor-memory stores have completed (`tcgen05.wait::st`; sm_100a)." => intrinsic[Intrinsic::Tcgen05Wait { store: true }];
    }
    "Math" {
        "exp", DeviceOrHost, Between(1, 1), [], false, "x",
            "`e` to the power `x`. On the GPU; of a host tensor, elementwise (in f64, rounded once)." => math(name);
        "exp2", Device, Between(1, 1), [], false, "x",
            "2 to the power `x`. On the GPU." => math(name);
        "log", DeviceOrHost, Between(1, 1), [], false, "x",
            "The natural logarithm of `x`. On the GPU; of a host tensor, elementwise (in f64, rounded once)." => math(name);
        "log2", Device, Between(1, 1), [], false, "x",
            "The base-2 logarithm of `x`. On the GPU." => math(name);
        "sqrt", DeviceOrHost, Between(1, 1), [], false, "x",
            "The square root of `x`. On the GPU; of a host tensor, elementwise (in f64, rounded once)." => math(name);
        "rsqrt", Device, Between(1, 1), [], false, "x",
            "One over the square root of `x`. On the GPU." => math(name);
        "abs", DeviceOrHost, Between(1, 1), [], false, "x",
            "The absolute value of `x`. On the GPU; of a host tensor, elementwise (in f64, rounded once)." => math(name);
        "fma", Device, Between(3, 3), [], false, "a, b, c",
            "`a * b + c` with one rounding. On the GPU." => fma;
    }
    "Warps and atomics" {
        "shfl_xor", Device, Between(2, 2), [], false, "value, mask",
            "The 32-bit `value` of lane `lane_idx ^ mask` of the warp (`__shfl_xor_sync`); every lane must call it." => shuffle(name);
        "shfl_down", Device, Between(2, 2), [], false, "value, delta",
            "The `value` of lane `lane_idx + delta`, or the lane's own past the warp's end (`__shfl_down_sync`)." => shuffle(name);
        "shfl_up", Device, Between(2, 2), [], false, "value, delta",
            "The `value` of lane `lane_idx - delta`, or the lane's own below lane `delta` (`__shfl_up_sync`)." => shuffle(name);
        "shfl_idx", Device, Between(2, 2), [], false, "value, lane",
            "The `value` of lane `lane` (`__shfl_sync`)." => shuffle(name);
        "elect_one", Device, Between(0, 0), [], false, "",
            "True in one lane of the warp, the same one each call, and false in the others (`elect.sync`; sm_90); every lane must call it. Which lane the hardware picks is not said: the emulator picks the last." => elect_one(name);
        "atomic_add", Device, Between(3, 3), ["order", "scope"], true, "tensor, coord, value, order = relaxed, scope = \"sys\"",
            "Adds `value` to `tensor[coord]` (global or shared) atomically; with `order = \"release\"` (a global i32 or u32), a release at `scope` (`red.release.sys.global.add`): what this thread wrote, and observed, before it is visible to whoever acquires the sum." => atomic(name);
        "atomic_max", Device, Between(3, 3), [], true, "tensor, coord, value",
            "Sets `tensor[coord]` to the larger of it and `value` atomically." => atomic(name);
        "atomic_min", Device, Between(3, 3), [], true, "tensor, coord, value",
            "Sets `tensor[coord]` to the smaller of it and `value` atomically." => atomic(name);
        "atomic_fetch_add", Device, Between(3, 3), ["order", "scope"], false, "tensor, coord, value, order = relaxed, scope = \"sys\"",
            "`atomic_add`, returning the element's value before it; `order = \"acq_rel\"` makes it both a release and an acquire at `scope` (`atom.acq_rel.sys.global.add`)." => atomic(name);
        "this_rank", Anywhere, Between(0, 0), [], false, "",
            "In a kernel with `symmetric(...)`, the rank it runs on (a hidden parameter the harness passes); in a `test ... ranks(N)` block, the rank running the body." => rank_builtin(name);
        "world_size", Anywhere, Between(0, 0), [], false, "",
            "The number of ranks: in a kernel with `symmetric(...)`, a hidden parameter; in a `test ... ranks(N)` block, N." => rank_builtin(name);
        "peer", Device, Between(2, 2), [], false, "tensor, rank",
            "Rank `rank`'s copy of a tensor the launch clause names `symmetric(...)` (or a part of one): the same layout, on that GPU, read and written over NVLink." => peer(name);
        "load_acquire", Device, Between(2, 2), ["scope"], false, "tensor, coord, scope = \"sys\"",
            "Reads the global i32 or u32 `tensor[coord]` with acquire order at `scope` (`\"cta\"`, `\"cluster\"`, `\"gpu\"`, `\"sys\"`; `ld.acquire.sys.global`): what the thread that released the value wrote before is visible after it. A peer's tensor needs `\"sys\"`." => ordered(name);
        "store_release", Device, Between(3, 3), ["scope"], true, "tensor, coord, value, scope = \"sys\"",
            "Writes `value` to the global i32 or u32 `tensor[coord]` with release order at `scope` (`st.release.sys.global`): what this thread wrote, and observed, before it is visible to a thread that acquires the value." => ordered(name);
        "atomic_fetch_max", Device, Between(3, 3), [], false, "tensor, coord, value",
            "`atomic_max`, returning the element's value before it." => atomic(name);
        "atomic_fetch_min", Device, Between(3, 3), [], false, "tensor, coord, value",
            "`atomic_min`, returning the element's value before it." => atomic(name);
    }
    "Tests and benches" {
        "randn", Host, Between(2, 2), [], false, "dtype, shape",
            "A host tensor of normally distributed values." => host_tensor_call(name);
        "rand", Host, Between(2, 2), [], false, "dtype, shape",
            "A host tensor of values uniform in [0, 1)." => host_tensor_call(name);
        "zeros", Host, Between(2, 2), [], false, "dtype, shape",
            "A host tensor of zeros." => host_tensor_call(name);
        "ones", Host, Between(2, 2), [], false, "dtype, shape",
            "A host tensor of ones." => host_tensor_call(name);
        "empty", Host, Between(2, 2), [], false, "dtype, shape",
            "A host tensor left uninitialised." => host_tensor_call(name);
        "arange", Host, Between(2, 2), [], false, "dtype, shape",
            "A host tensor of 0, 1, 2, ... in row-major order." => host_tensor_call(name);
        "full", Host, Between(3, 3), [], false, "dtype, shape, value",
            "A host tensor with every element `value`." => host_tensor_call(name);
        "tensor", Host, Between(2, 2), [], false, "dtype, values",
            "A host vector of the listed numbers (a tuple), each rounded to `dtype`: `tensor(i32, (0, 1, 18, 145))`, a packed batch's `cu_seqlens`." => listed_tensor;
        "matmul", Host, Between(2, 2), [], false, "a, b",
            "The matrix product of two host matrices (the reference for a GEMM), rounded once to their dtype: through cuBLAS when the block has a GPU (f32 sums for 16-bit floats, f64 otherwise), else on every CPU core." => matmul;
        "transpose", Host, Between(1, 1), [], false, "a",
            "A host matrix transposed." => transpose;
        "reshape", Host, Between(2, 2), [], false, "a, shape",
            "The elements of host tensor `a`, in row-major order, as a tensor of `shape` (as many elements): `reshape(x, (m, k / 128, 128))` splits the rows of x into blocks of 128." => reshape;
        "attention", Host, Between(3, 3), ["causal"], false, "q, k, v, causal = false",
            "`softmax(q kᵀ / sqrt(d)) v` over the last two dimensions of q (queries, d), k (keys, d) and v (keys, dv), for each index of the leading ones (batch, heads); k and v may have fewer heads (their last leading extent), dividing q's, each shared by a group of query heads (grouped-query attention); with `causal = true`, query i sees keys up to i + keys - queries. Computed in f64 on every CPU core, rounded once to q's dtype." => attention_reference;
        "attention_lse", Host, Between(2, 2), ["causal"], false, "q, k, causal = false",
            "The log-sum-exp of each row of `attention`'s scaled scores, `ln(sum_j exp(q kᵀ / sqrt(d)))` over the keys each query sees: f32 of shape (..., queries)." => attention_reference;
        "attention_backward", Host, Between(4, 4), ["causal"], false, "q, k, v, do, causal = false",
            "The gradients `(dq, dk, dv)` of `sum(attention(q, k, v, causal) · do)`, do shaped as attention's output (..., queries, dv): `ds = p ∘ (do vᵀ - rowsum(do ∘ o))` for the softmax weights p and output o, `dq = ds k / sqrt(d)`, `dk = dsᵀ q / sqrt(d)`, `dv = pᵀ do`. With grouped-query k and v, a key head's dk and dv sum over its group. Computed in f64 on every CPU core, each rounded once to q's dtype and shaped as q, k and v." => attention_reference;
        "paged_attention", Host, Between(5, 5), [], false, "q, k_cache, v_cache, block_table, seqlens",
            "Decode attention over a paged KV cache: for q (batch, heads, d), `attention` of each sequence's one query per head against its first `seqlens[b]` tokens, token t being slot `t % page_size` of page `block_table[b, t / page_size]` of k_cache (num_pages, page_size, kv_heads, d) and v_cache (num_pages, page_size, kv_heads, dv), gathered into dense keys and values (grouped-query heads as `attention`'s; MLA's values, the first 512 columns of its 576-wide rows, are `slice(kv_cache, 3, 0, 512)`). (batch, heads, dv) of q's dtype; a sequence of no tokens gives zeros." => paged_attention_reference;
        "attention_varlen", Host, Between(5, 5), ["causal"], false, "q, k, v, cu_seqlens_q, cu_seqlens_k, causal = false",
            "`attention` of a packed (variable-length) batch, as FlashAttention's varlen functions take it: q (total_q, heads, d), k (total_k, kv_heads, d) and v (total_k, kv_heads, dv), sequence b being rows `cu_seqlens_q[b]..cu_seqlens_q[b + 1]` of q and `cu_seqlens_k[b]..cu_seqlens_k[b + 1]` of k and v (i32 or i64 offsets from 0 to the token counts, never decreasing: anything else fails the block). Each sequence is `attention` of its own rows (causal aligned to its bottom right; a query that sees no key gives 0); packed as q with v's last extent." => attention_varlen_reference(name);
        "attention_varlen_lse", Host, Between(4, 4), ["causal"], false, "q, k, cu_seqlens_q, cu_seqlens_k, causal = false",
            "`attention_lse` of each sequence of a packed batch (as `attention_varlen`): f32 of shape (heads, total_q), -inf for a query that sees no key." => attention_varlen_reference(name);
        "attention_varlen_backward", Host, Between(6, 6), ["causal"], false, "q, k, v, do, cu_seqlens_q, cu_seqlens_k, causal = false",
            "`attention_backward` of each sequence of a packed batch (as `attention_varlen`): `(dq, dk, dv)` packed as q, k and v (dk and dv summed over each key head's group)." => attention_varlen_reference(name);
        "tanh", Host, Between(1, 1), [], false, "a",
            "The hyperbolic tangent of each element of a float host tensor." => host_math(name);
        "erf", Host, Between(1, 1), [], false, "a",
            "The error function of each element of a float host tensor." => host_math(name);
        "gelu", Host, Between(1, 1), [], false, "a",
            "GELU of each element of a float host tensor, exactly: `x (1 + erf(x / sqrt(2))) / 2` (torch's default, not its tanh approximation)." => host_math(name);
        "maximum", Host, Between(2, 2), [], false, "a, b",
            "The larger of each pair of elements of two host tensors of one dtype, broadcast as NumPy broadcasts; NaN where either is." => host_extreme(name);
        "minimum", Host, Between(2, 2), [], false, "a, b",
            "The smaller of each pair of elements, as `maximum`." => host_extreme(name);
        "if_else", Host, Between(3, 3), [], false, "mask, a, b",
            "`a` where the host tensor `mask` is not 0, else `b` (NumPy's `where`, a keyword here): `a` and `b` host tensors of one dtype, or one of them a number, the three broadcast together; `if_else(x > 0.0, x, 0.0)` is a ReLU." => host_select;
        "mean", Host, Between(1, 2), [], false, "a, dim?",
            "The mean along `dim` (the last by default), which is removed." => host_reduction(name);
        "argmax", Host, Between(1, 2), [], false, "a, dim?",
            "The index of the first largest value along `dim` (the last by default; of the first NaN if there is one), as an i64 tensor without that dimension." => host_reduction(name);
        "cumsum", Host, Between(1, 2), [], false, "a, dim?",
            "The running sums along `dim` (the last by default), the shape kept." => host_reduction(name);
        "permute", Host, Between(2, 2), [], false, "a, order",
            "`a` with its dimensions reordered: dimension d of the result is a's `order[d]` (`permute(x, (1, 0, 2))`; NumPy's `transpose(a, axes)`)." => permute;
        "slice", Host, Between(4, 4), [], false, "a, dim, start, end",
            "Elements `start` to `end - 1` of `a` along `dim` (NumPy's `a[:, start:end]` for dim 1)." => slice;
        "concat", Host, Between(2, 3), [], false, "a, b, dim?",
            "`a` followed by `b` along `dim` (the last by default); their other extents agree." => concat;
        "softmax", Host, Between(1, 2), [], false, "a, dim?",
            "Softmax along `dim` (the last by default)." => host_reduction(name);
        "sum", Host, Between(1, 2), [], false, "a, dim?",
            "The sum along `dim` (the last by default), which is removed." => host_reduction(name);
        "softmax_backward", Host, Between(2, 2), [], false, "y, dy",
            "The gradient of `sum(softmax(x) · dy)` along the last dimension, given `y = softmax(x)`: `y (dy - sum(dy y))`, in f64 rounded once to y's dtype." => training_reference(name);
        "rms_norm", Host, Between(3, 3), [], false, "x, w, eps",
            "RMSNorm over the last dimension: `x / sqrt(mean(x²) + eps) · w`, w a vector of x's last extent and of its dtype, in f64 rounded once." => training_reference(name);
        "rms_norm_backward", Host, Between(4, 4), [], false, "x, w, dy, eps",
            "The gradients `(dx, dw)` of `sum(rms_norm(x, w, eps) · dy)`, in f64 rounded once (dw sums over every row)." => training_reference(name);
        "layer_norm", Host, Between(4, 4), [], false, "x, w, b, eps",
            "LayerNorm over the last dimension: `(x - mean(x)) / sqrt(var(x) + eps) · w + b` with the biased variance, w and b vectors of x's last extent, in f64 rounded once." => training_reference(name);
        "layer_norm_backward", Host, Between(4, 4), [], false, "x, w, dy, eps",
            "The gradients `(dx, dw, db)` of `sum(layer_norm(x, w, b, eps) · dy)` (none depends on b), in f64 rounded once." => training_reference(name);
        "cross_entropy", Host, Between(4, 4), [], false, "logits, labels, ignore_index, smoothing",
            "Per row of logits (rows, classes) and its integer label, `(loss, dlogits)`: the target puts `1 - smoothing` on the label and `smoothing / classes` on every class, the loss (f32) is `lse - (1 - smoothing) x[label] - smoothing mean(x)` and dlogits `softmax(x) - target` (logits' dtype); a row labelled `ignore_index` gives 0 and zeros." => training_reference(name);
        "assert_close", Host, Between(2, 2), ["rtol", "atol"], true, "actual, expected, rtol = r, atol = a",
            "Fails the test unless the tensors agree within the tolerances." => assert_close;
        "gpu_only", Host, Between(0, 0), [], true, "",
            "Skips the block, as a skip and not a failure, unless its kernels run on a GPU: for a test too large for the emulator (attention at seqlen 8192, say), which `cukc test` then runs only where there is a GPU." => gpu_only;
    }
}

/// The built-in called `name`, if there is one.
pub(crate) fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|builtin| builtin.name == name)
}

/// `docs/builtins.md`: every built-in with its signature, where it may be called and
/// its meaning, section by section.
pub fn reference() -> String {
    let mut out = String::from(
        "# Built-in functions\n\n\
         Generated from the table in `typecheck/src/builtins/table.rs`; do not edit by hand.\n\
         After changing the table, run\n\
         `CUK_BLESS=1 cargo test -p typecheck --test builtins_reference` to regenerate it.\n\n\
         `x?` is an optional argument, `x...` one or more, `name = x` a named argument.\n\
         Statements (marked *statement*) give no value.\n",
    );
    let mut section = "";
    for builtin in BUILTINS {
        if builtin.section != section {
            section = builtin.section;
            out.push_str(&format!(
                "\n## {section}\n\n| built-in | where | meaning |\n| --- | --- | --- |\n"
            ));
        }
        let statement = if builtin.statement {
            " *statement*"
        } else {
            ""
        };
        out.push_str(&format!(
            "| `{}`{statement} | {} | {} |\n",
            builtin.signature(),
            builtin.place.words(),
            builtin.doc
        ));
    }
    out
}
