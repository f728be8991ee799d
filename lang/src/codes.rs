//! The registry of diagnostic codes, one line of description each.
//!
//! Every code a stage emits is listed here, so that the codes stay unique, a
//! reader can look one up, and the diagnostics test corpus can check that each
//! code has at least one input file in `tests/diagnostics/`. Ranges:
//!
//! | range | stage |
//! | --- | --- |
//! | `E0001`-`E0099`, `W0001`-`W0099` | the file as a whole (`lang::source`) |
//! | `E0100`-`E0199` | lexing and parsing (`grammar`) |
//! | `E0200`-`E0299`, `N0201`, `W0201` | the typechecker (`typecheck`) |
//! | `E0300`-`E0399`, `W0301` | lowering and PTX (`lower`, `backend-ptx`, `cukc build`) |
//! | `E0400`-`E0499` | running kernels on the emulator (`emulator`, `cukc test`) |
//! | `E0590`-`E0599` | the typechecker, continued (distributed shared memory) |
//! | `N0001` | the renderings and the language server (`lang::render::capped`) |
//!
//! Later stages take the next hundreds. `N` codes are notes: information, not
//! problems (`const_print`).

/// A registered diagnostic code and what it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeInfo {
    /// The code as it appears in renderings, such as `"E0101"`.
    pub code: &'static str,
    /// One line saying what the code reports.
    pub summary: &'static str,
}

const fn entry(code: &'static str, summary: &'static str) -> CodeInfo {
    CodeInfo { code, summary }
}

/// Every registered code, sorted by code.
pub const REGISTRY: &[CodeInfo] = &[
    entry("E0001", "the file could not be read"),
    entry("E0002", "the file is not valid UTF-8"),
    entry("E0003", "the file is binary (it contains NUL bytes)"),
    entry(
        "E0004",
        "the file is larger than 4 GiB, the most a span can address",
    ),
    entry(
        "E0101",
        "unexpected character (stray, or non-ASCII outside names, strings and comments)",
    ),
    entry("E0102", "unterminated block comment"),
    entry("E0103", "unterminated string literal"),
    entry("E0104", "unknown escape sequence in a string literal"),
    entry(
        "E0105",
        "integer literal too large for a signed 64-bit integer",
    ),
    entry(
        "E0106",
        "malformed number literal (float out of range, `0x` without digits, ...)",
    ),
    entry("E0107", "unexpected token"),
    entry("E0108", "unexpected end of file"),
    entry("E0109", "keyword used as a name"),
    entry(
        "E0110",
        "nesting too deep (over 256 levels of brackets, or too long an operator chain)",
    ),
    entry(
        "E0111",
        "unbalanced bracket: unclosed or mismatched `(`, `[` or `{`",
    ),
    entry(
        "E0112",
        "layout literal whose shape and stride are not congruent",
    ),
    entry("E0113", "missing `:` between a layout's shape and stride"),
    entry("E0114", "kernel without a launch clause"),
    entry(
        "E0115",
        "malformed launch clause (unknown or missing part, duplicate or out of order)",
    ),
    entry(
        "E0116",
        "too many lexical errors: the lexer stopped reading the file",
    ),
    entry(
        "E0117",
        "too many tokens (over 2^20): the lexer stopped reading the file",
    ),
    entry("E0201", "unknown name or type"),
    entry(
        "E0202",
        "unknown stdlib module or module item, or a malformed `use`",
    ),
    entry("E0203", "a name defined twice"),
    entry(
        "E0204",
        "a run-time (dyn) value where a compile-time (const) one is required",
    ),
    entry(
        "E0205",
        "a layout-algebra operation whose preconditions fail (divisibility, injectivity, ...)",
    ),
    entry(
        "E0206",
        "shapes that do not match in copy, gemm, store or a comparison",
    ),
    entry(
        "E0207",
        "shared memory over the target's per-block limit (or buffers over `smem(N)`)",
    ),
    entry("E0208", "a const coordinate or mode index out of range"),
    entry("E0209", "a coordinate, slice or tiler of the wrong rank"),
    entry(
        "E0210",
        "a vector copy whose per-thread values are not contiguous or not aligned",
    ),
    entry(
        "E0211",
        "an atom or copy operand of the wrong dtype or memory space",
    ),
    entry("E0212", "an atom or feature newer than the build target"),
    entry("E0213", "a write through a read-only tensor"),
    entry(
        "E0214",
        "arithmetic or a store mixing dtypes without a conversion",
    ),
    entry("E0215", "wrong number or names of arguments"),
    entry("E0216", "a value of the wrong type"),
    entry("E0217", "unknown field or method"),
    entry(
        "E0218",
        "a malformed atom, or an atom used outside its requirements",
    ),
    entry("E0219", "assignment to a binding that is not `mut`"),
    entry(
        "E0220",
        "a statement or call in the wrong place (device code in a test, `break` outside a loop, ...)",
    ),
    entry(
        "E0221",
        "recursion: a const, function or atom that depends on itself",
    ),
    entry(
        "E0222",
        "compile-time evaluation too large (a static loop, inlining, nesting, symbolic arithmetic or a kernel's expansion beyond the limits)",
    ),
    entry(
        "E0223",
        "compile-time arithmetic that overflows or divides by zero",
    ),
    entry(
        "E0224",
        "a tiled copy's or MMA's tile that does not divide the static extent it partitions",
    ),
    entry(
        "E0225",
        "a tiled copy or MMA that needs more threads than the kernel's block has",
    ),
    entry(
        "E0226",
        "a local that is not a scalar (a tensor, a layout) changed by run-time control flow",
    ),
    entry(
        "E0227",
        "an mbarrier, TMA or wgmma use that breaks a hardware rule (a count, a box, a swizzle, a group count)",
    ),
    entry(
        "E0228",
        "a `static_assert` whose condition is false for the const arguments",
    ),
    entry(
        "E0229",
        "work the right operand of `&&` or `||` cannot skip (a shuffle, an atomic's result, a barrier)",
    ),
    entry(
        "E0230",
        "a malformed `print` format string (a lone brace, an unknown placeholder such as `{:y}`)",
    ),
    entry(
        "E0231",
        "a `print` whose placeholders and values differ in number, or that writes more than 32 run-time values",
    ),
    entry(
        "E0232",
        "a value `print` or `print_tensor` cannot write: a tensor or fragment given to `print`, a placeholder for another type (`{:x}` of a float), a layout with run-time extents, a tensor of run-time shape",
    ),
    entry(
        "E0233",
        "a `tune` block names a kernel, a bench or a const parameter the file does not have (or a parameter twice)",
    ),
    entry(
        "E0234",
        "a `tune` value of the wrong kind for its parameter (an `int` parameter given `bf16`)",
    ),
    entry(
        "E0235",
        "a `tune` block's `where` condition names something other than its parameters, or is not a `bool`",
    ),
    entry(
        "E0236",
        "a `tune` space with no valid point (an empty list, conditions no point meets) or too many points",
    ),
    entry(
        "E0240",
        "an ordered access (`load_acquire`, `store_release`, an atomic's `order`) with an order or memory scope that is not one it has",
    ),
    entry(
        "E0241",
        "an ordered access to a peer's tensor (`peer(t, r)`) with a scope narrower than `\"sys\"`, which other GPUs do not observe",
    ),
    entry(
        "E0242",
        "an ordered access to something other than one element of a global `i32` or `u32` tensor",
    ),
    entry(
        "E0243",
        "`symmetric(...)` naming something other than the kernel's global tensor parameters, or `peer` of a tensor that is not one of them",
    ),
    entry(
        "E0244",
        "a test's `ranks` clause that is not `ranks(N)` with an integer literal N from 1 to 8",
    ),
    entry(
        "E0245",
        "`this_rank()` or `world_size()` outside a kernel with `symmetric(...)` and a `test ... ranks(N)` block, or a kernel with `symmetric(...)` launched outside such a block",
    ),
    entry(
        "E0301",
        "a construct lowering does not handle yet (`gemm`, `break`, ...)",
    ),
    entry(
        "E0302",
        "a warp-collective instruction (shuffle, `syncwarp`, `.aligned` atom) under control flow that may diverge within a warp, or a wgmma under control flow that may differ within a warpgroup",
    ),
    entry(
        "E0303",
        "ptxas rejected the generated PTX, or could not be run",
    ),
    entry(
        "E0399",
        "an internal compiler error: lowering produced code its own verifier refuses (a bug in cukc: please report it)",
    ),
    entry(
        "E0401",
        "a global-memory access outside every allocation (out of bounds), found by the emulator",
    ),
    entry(
        "E0402",
        "a shared-memory access past the block's shared memory, found by the emulator",
    ),
    entry(
        "E0403",
        "a memory access whose address is not a multiple of its size, found by the emulator",
    ),
    entry(
        "E0404",
        "a shared-memory data race: two threads, one writing, no barrier between them",
    ),
    entry("E0405", "a read of shared memory that nothing has written"),
    entry(
        "E0406",
        "a barrier (`syncthreads`) that not every thread of the block reaches",
    ),
    entry(
        "E0407",
        "a warp collective (shuffle, `syncwarp`, `ldmatrix`, `mma`) that not every lane of the warp reaches",
    ),
    entry(
        "E0408",
        "an atom instruction the emulator has no model of (`wgmma`, TMA, ...)",
    ),
    entry("E0409", "an operation or launch the emulator cannot run"),
    entry(
        "E0410",
        "a launch that ran past the emulator's instruction budget (an endless loop?)",
    ),
    entry(
        "E0411",
        "an mbarrier misused on the emulator: not initialized, over-arrived (more arrivals than its count, or more transaction bytes than its phase expects once every arrival came), a phase overrun (two phases completing while a thread waits for the first), or waited on when no thread can complete its phase (a hang, reported with every waiting group of threads)",
    ),
    entry(
        "E0412",
        "a cluster misused on the emulator: a block rank or multicast mask outside the cluster, or a cluster barrier some thread never reaches",
    ),
    entry(
        "E0413",
        "tensor memory misused on the emulator: an allocation after the permit was relinquished or beyond 512 columns, a release of what is not one allocation, a block exiting with columns allocated, an access outside the allocations or the warp's lanes, or a register of tcgen05.ld read before tcgen05.wait::ld",
    ),
    entry(
        "E0414",
        "a block exiting while a TMA store still reads its shared memory: no `tma_store_wait_group` or `tma_store_wait_all` covered the store, found by the emulator",
    ),
    entry(
        "E0415",
        "data an asynchronous operation has not handed over yet, found by the emulator: a TMA box read or overwritten before its mbarrier phase completed and the thread observed it, a wgmma's accumulators read before `wgmma_wait_group` completed their group, or a tcgen05.mma's tensor-memory accumulator touched before the thread observed the phase of a `tcgen05_commit` after it",
    ),
    entry(
        "E0416",
        "a thread that loops forever on memory nothing can change any more (an iteration wrote nothing and left its loop's values as they were or as an earlier such iteration left them, and no other thread can move), found by the emulator as soon as no thread can make progress",
    ),
    entry(
        "E0417",
        "two threads arriving at one named barrier in one round with different thread counts (`named_barrier_sync`/`named_barrier_arrive`), found by the emulator at both lines",
    ),
    entry(
        "E0418",
        "a wgmma issued by a thread with no `wgmma_fence()` before it (the PTX ISA requires `wgmma.fence` before a warpgroup's first wgmma), found by the emulator",
    ),
    entry(
        "E0419",
        "a wgmma reading a register (of its A fragment, or the accumulator it adds to) that its thread wrote after its last `wgmma_fence()` (the PTX ISA requires `wgmma.fence` between the two), found by the emulator at both lines",
    ),
    entry(
        "E0423",
        "a cross-device race: a global access conflicting with another rank's access that no release and acquire at system scope order (the emulator's multi-rank launches)",
    ),
    entry(
        "E0424",
        "an offsets array (`require_offsets`) whose first element is not 0, or that has no elements, found before the launch",
    ),
    entry(
        "E0425",
        "an offsets array (`require_offsets`) with an element less than the one before it, found before the launch",
    ),
    entry(
        "E0426",
        "an offsets array (`require_offsets`) whose last element is not the total its kernel states (the packed tokens), or whose total cannot be computed, found before the launch",
    ),
    entry(
        "E0427",
        "an offsets array (`require_offsets`) with a step from one element to the next larger than the kernel's largest (a sequence longer than max_seqlen), found before the launch",
    ),
    entry(
        "E0428",
        "an element of an integer tensor argument outside the range its kernel's `require_range` states (a page index past the cache), found before the launch",
    ),
    entry(
        "E0429",
        "a data race in global memory between blocks of one launch: an access conflicting with another block's (one of them a write, not both atomic) that no release and acquire (a `threadfence()` before and after an atomic on one word, an ordered access, a cluster barrier) order, found by the emulator at both lines",
    ),
    entry(
        "E0590",
        "`cluster_view` of something other than a shared buffer (or a part of one) of 32-bit elements",
    ),
    entry(
        "N0001",
        "more diagnostics than are shown for one file (`render::MAX_DIAGNOSTICS`)",
    ),
    entry("N0201", "the value printed by `const_print`"),
    entry(
        "W0001",
        "the file is empty: no items (blank, or only comments)",
    ),
    entry(
        "W0201",
        "a kernel never built: a const parameter has no default and no launch or host request gives it a value",
    ),
    entry(
        "W0301",
        "ptxas serializes a kernel's wgmmas or inserts waits for them (its accumulators touched while a group is in flight)",
    ),
];

/// The one-line summary of `code`, or `None` when it is not registered.
pub fn summary(code: &str) -> Option<&'static str> {
    REGISTRY
        .iter()
        .find(|info| info.code == code)
        .map(|info| info.summary)
}

#[cfg(test)]
mod tests {
    use super::{REGISTRY, summary};

    #[test]
    fn codes_are_well_formed_sorted_and_unique() {
        for info in REGISTRY {
            let (letter, digits) = info.code.split_at(1);
            assert!(
                matches!(letter, "E" | "N" | "W"),
                "{} has a bad prefix",
                info.code
            );
            assert!(digits.len() == 4 && digits.bytes().all(|byte| byte.is_ascii_digit()));
            assert!(!info.summary.is_empty());
        }
        for pair in REGISTRY.windows(2) {
            assert!(
                pair[0].code < pair[1].code,
                "{} is out of order",
                pair[1].code
            );
        }
    }

    #[test]
    fn summary_finds_registered_codes_only() {
        assert_eq!(summary("E0002"), Some("the file is not valid UTF-8"));
        assert_eq!(summary("E9999"), None);
    }
}
