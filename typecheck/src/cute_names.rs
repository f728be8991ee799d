//! The names of CuTe C++, the CuTe Python DSL and CUDA C++ beside CuK's, as data: a
//! name from one of them typed in CuK is answered with CuK's spelling (E0201 for a
//! free name, E0202 for a `cute::` path, E0217 for a method), and [`guide_table`]
//! renders the table for `docs/guide/cute-names.md` (kept current by
//! `typecheck/tests/builtins_reference.rs`).

/// Where a name comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// CUDA C++.
    Cuda,
    /// CuTe C++ (`cute::`, CUTLASS).
    CuteCpp,
    /// The CuTe Python DSL (`cute.`, `cute.arch.`, `cpasync.`).
    CuteDsl,
}

impl Origin {
    fn words(self) -> &'static str {
        match self {
            Cuda => "CUDA C++",
            CuteCpp => "CuTe C++",
            CuteDsl => "the CuTe DSL",
        }
    }
}

/// One foreign name and how CuK says it.
pub struct ForeignName {
    /// The name as the other language spells it (its last path segment).
    pub name: &'static str,
    /// Where it comes from.
    pub origin: Origin,
    /// CuK's spelling.
    pub cuk: &'static str,
}

const fn name(name: &'static str, origin: Origin, cuk: &'static str) -> ForeignName {
    ForeignName { name, origin, cuk }
}

use Origin::{Cuda, CuteCpp, CuteDsl};

/// Every foreign name CuK answers, by origin.
pub const FOREIGN_NAMES: &[ForeignName] = &[
    name("threadIdx", Cuda, "`thread_idx` (`.x`, `.y`, `.z`)"),
    name("blockIdx", Cuda, "`block_idx`"),
    name("blockDim", Cuda, "`block_dim`"),
    name("gridDim", Cuda, "`grid_dim`"),
    name("__syncthreads", Cuda, "`syncthreads()`"),
    name("__syncwarp", Cuda, "`syncwarp()`"),
    name("__threadfence", Cuda, "`threadfence()`"),
    name("__threadfence_system", Cuda, "`threadfence_system()`"),
    name(
        "__shfl_xor_sync",
        Cuda,
        "`shfl_xor(value, mask)` (every lane takes part)",
    ),
    name("__shfl_down_sync", Cuda, "`shfl_down(value, delta)`"),
    name("__shfl_up_sync", Cuda, "`shfl_up(value, delta)`"),
    name("__shfl_sync", Cuda, "`shfl_idx(value, lane)`"),
    name("atomicAdd", Cuda, "`atomic_add(tensor, coord, value)`"),
    name("atomicMax", Cuda, "`atomic_max(tensor, coord, value)`"),
    name("atomicMin", Cuda, "`atomic_min(tensor, coord, value)`"),
    name("expf", Cuda, "`exp`"),
    name("__expf", Cuda, "`exp`"),
    name("exp2f", Cuda, "`exp2`"),
    name("logf", Cuda, "`log`"),
    name("sqrtf", Cuda, "`sqrt`"),
    name("rsqrtf", Cuda, "`rsqrt`"),
    name("fabsf", Cuda, "`abs`"),
    name("fmaf", Cuda, "`fma`"),
    name("fmaxf", Cuda, "`max`"),
    name("fminf", Cuda, "`min`"),
    name("printf", Cuda, "`print(\"{} {}\", a, b)`"),
    name("make_shape", CuteCpp, "a tuple: `(4, 8)`"),
    name(
        "make_stride",
        CuteCpp,
        "a tuple: `(8, 1)`, or a layout literal `(4, 8):(8, 1)`",
    ),
    name("make_coord", CuteCpp, "a tuple: `(i, j)`"),
    name(
        "make_tma_copy",
        CuteCpp,
        "`make_tma_load` (or `make_tma_store`)",
    ),
    name(
        "make_tma_atom",
        CuteCpp,
        "`make_tma_load` (or `make_tma_store`)",
    ),
    name("cp_async_fence", CuteCpp, "`cp_async_commit_group()`"),
    name("cp_async_wait", CuteCpp, "`cp_async_wait_group(n)`"),
    name("warpgroup_arrive", CuteCpp, "`wgmma_fence()`"),
    name("warpgroup_commit_batch", CuteCpp, "`wgmma_commit_group()`"),
    name("warpgroup_wait", CuteCpp, "`wgmma_wait_group(n)`"),
    name("fence_view_async_shared", CuteCpp, "`fence_proxy_async()`"),
    name("elect_one_sync", CuteCpp, "`elect_one()`"),
    name("cluster_arrive_relaxed", CuteCpp, "`cluster_arrive()`"),
    name(
        "print_layout",
        CuteCpp,
        "`cukc layout show '<layout>'`, or `print(\"{}\", layout)` in a kernel",
    ),
    name(
        "partition_fragment_A",
        CuteCpp,
        "`thr_mma.partition_fragment_A(t)`, a method of a thread MMA",
    ),
    name(
        "partition_fragment_B",
        CuteCpp,
        "`thr_mma.partition_fragment_B(t)`, a method of a thread MMA",
    ),
    name(
        "partition_fragment_C",
        CuteCpp,
        "`thr_mma.partition_fragment_C(t)`, a method of a thread MMA",
    ),
    name(
        "get_slice",
        CuteCpp,
        "`tiled.slice(thread_idx.x)` (or `get_slice`), a method of a tiled copy or MMA",
    ),
    name("None", CuteDsl, "`_`, a whole mode in a slice: `t[i, _]`"),
    name(
        "make_tiled_tma_atom",
        CuteDsl,
        "`make_tma_load` (or `make_tma_store`)",
    ),
    name(
        "make_rmem_tensor",
        CuteDsl,
        "a register tensor: `rmem f32[layout]`",
    ),
    name(
        "make_fragment",
        CuteDsl,
        "a register tensor: `rmem f32[layout]`, or `make_fragment_like(t)`",
    ),
    name("sync_threads", CuteDsl, "`syncthreads()`"),
    name(
        "barrier",
        CuteDsl,
        "`syncthreads()`, or `named_barrier_sync(id, threads)`",
    ),
    name("warpgroup_reg_alloc", CuteDsl, "`setmaxnreg_inc(n)`"),
    name("warpgroup_reg_dealloc", CuteDsl, "`setmaxnreg_dec(n)`"),
    name(
        "mbarrier_arrive_and_expect_tx",
        CuteDsl,
        "`mbarrier_arrive_expect_tx(bar, bytes)`",
    ),
    name("mbarrier_try_wait", CuteDsl, "`mbarrier_wait(bar, phase)`"),
];

/// The module names of CuTe and CUTLASS, in C++ paths (`cute::`) or DSL attributes
/// (`cute.arch.`), which CuK does not have: its built-ins need no prefix.
pub const FOREIGN_MODULES: &[&str] = &["cute", "cutlass", "cpasync", "nvgpu", "arch", "warpgroup"];

/// The help for `name` when it is a foreign name or module.
pub fn help(name: &str) -> Option<String> {
    if FOREIGN_MODULES.contains(&name) {
        return Some(format!(
            "CuK has no `{name}` module: CuTe's functions are CuK built-ins without a prefix (`cute.arch.mbarrier_wait` and `cute::gemm` are `mbarrier_wait` and `gemm`); docs/guide/cute-names.md lists the names that differ"
        ));
    }
    let found = FOREIGN_NAMES.iter().find(|foreign| foreign.name == name)?;
    Some(format!(
        "`{name}` is {}'s name; CuK's is {}",
        found.origin.words(),
        found.cuk
    ))
}

/// `docs/guide/cute-names.md`: the table, by origin.
pub fn guide_table() -> String {
    let mut out = String::from(
        "# CuTe, CuTe DSL and CUDA names in CuK\n\n\
         Generated from `typecheck/src/cute_names.rs`; do not edit by hand (run\n\
         `CUK_BLESS=1 cargo test -p typecheck --test builtins_reference`). Typed in a `.cuk`\n\
         file, each name on the left is answered with its CuK spelling. Names that CuK\n\
         shares with CuTe (`make_layout`, `local_tile`, `zipped_divide`, `partition_S`, ...)\n\
         are not listed: docs/builtins.md has them all.\n",
    );
    for origin in [Cuda, CuteCpp, CuteDsl] {
        out.push_str(&format!(
            "\n## {}\n\n| name | in CuK |\n| --- | --- |\n",
            origin.words()
        ));
        for foreign in FOREIGN_NAMES
            .iter()
            .filter(|foreign| foreign.origin == origin)
        {
            out.push_str(&format!("| `{}` | {} |\n", foreign.name, foreign.cuk));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_listed_once_and_answered() {
        for (index, foreign) in FOREIGN_NAMES.iter().enumerate() {
            assert!(
                FOREIGN_NAMES[..index]
                    .iter()
                    .all(|other| other.name != foreign.name),
                "{} twice",
                foreign.name
            );
            assert!(help(foreign.name).unwrap().contains(foreign.cuk));
        }
        assert!(help("cute").unwrap().contains("no `cute` module"));
        assert_eq!(help("make_layout"), None);
    }
}
