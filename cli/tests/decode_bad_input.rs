//! Bad input to `cuk-examples/attention_decode_sm90.cuk`'s paged decode, each refused
//! before a launch at the line that says why: a block-table entry past the cache or
//! negative, or a sequence longer than its row of the table holds (`require_range`,
//! E0428 from the host's check of the data), and a cache whose page size is not the
//! kernel's or a q whose head count is not kv_heads * GROUP (the parameters' layouts,
//! E0216), and for FP8 caches a cache of another dtype than KV or a scale given as a
//! tensor (the parameters' types, E0216); and for the MLA decode a block-table entry past
//! the cache (E0428) and a cache whose rows are not 576 values wide (E0216). Each case
//! is a test block appended to the example, run on the emulator.

#[path = "support/appended.rs"]
mod appended;
#[path = "support/build.rs"]
mod build;

use appended::Run;
use build::root;

const EXAMPLE: &str = "cuk-examples/attention_decode_sm90.cuk";

/// A block calling `paged_decode` on a batch of 4 with 2 key heads of 8 query heads,
/// pages of 16, 7 pages a sequence: `table` and `seqlens` are the expressions given.
fn block(name: &str, (q_heads, page): (i64, i64), table: &str, seqlens: &str) -> String {
    let caches = Caches {
        dtype: "bf16",
        k_dtype: "bf16",
        k_scale: "1.0",
    };
    caches.block(name, (q_heads, page), table, seqlens)
}

/// The caches of a block: `dtype` (KV), k_cache's `k_dtype`, and the `k_scale` given.
struct Caches<'a> {
    dtype: &'a str,
    k_dtype: &'a str,
    k_scale: &'a str,
}

impl Caches<'_> {
    fn block(&self, name: &str, (q_heads, page): (i64, i64), table: &str, seqlens: &str) -> String {
        let Caches {
            dtype,
            k_dtype,
            k_scale,
        } = self;
        format!(
            "
test {name} {{
    let q = randn(bf16, (4, {q_heads}, 128));
    let k_cache = randn({k_dtype}, (28, {page}, 2, 128));
    let v_cache = randn({dtype}, (28, {page}, 2, 128));
    let block_table = {table};
    let seqlens = {seqlens};
    let o_part = empty(f32, (4, 8, 1, 128));
    let lse_part = empty(f32, (4, 8, 1));
    paged_decode(4, 2, 28, 7, 1, q, k_cache, v_cache, block_table, seqlens, o_part, lse_part, 0.1, {k_scale}, 1.0, KV = {dtype}, PAGE = 16);
}}
"
        )
    }
}

const TABLE: &str = "permute(reshape(arange(i32, (28,)), (7, 4)), (1, 0))";

fn run(extra: &str) -> Run {
    appended::run(EXAMPLE, extra)
}

/// The 1-based line of the example that contains `text`.
fn line_of(text: &str) -> usize {
    line_after(text, "")
}

/// The 1-based line of the example that contains `text`, the first after the line that
/// contains `after`.
fn line_after(text: &str, after: &str) -> usize {
    let source = std::fs::read_to_string(root().join(EXAMPLE)).unwrap();
    let start = source
        .lines()
        .position(|line| line.contains(after))
        .unwrap();
    let found = source
        .lines()
        .skip(start)
        .position(|line| line.contains(text));
    1 + start + found.unwrap()
}

/// A block calling `mla_decode` on a batch of 4 with 16 heads, pages of 16 and 7 pages a
/// sequence: `cache` is the cache's shape and `table` the block table.
fn mla_block(name: &str, cache: &str, table: &str) -> String {
    format!(
        "
test {name} {{
    let q = randn(bf16, (4, 16, 576));
    let kv_cache = randn(bf16, {cache});
    let block_table = {table};
    let seqlens = full(i32, (4,), 100);
    let o_part = empty(f32, (4, 16, 1, 512));
    let lse_part = empty(f32, (4, 16, 1));
    mla_decode(4, 16, 28, 7, 1, q, kv_cache, block_table, seqlens, o_part, lse_part, 0.06, PAGE = 16);
}}
"
    )
}

fn assert_refused(run: Run, error: &str, line: usize, says: &str) {
    appended::assert_refused(run, EXAMPLE, error, line, says);
}

#[test]
fn a_block_table_entry_past_the_cache_or_negative_is_refused_before_the_launch() {
    let line = line_of("require_range(block_table, 0, num_pages)");
    let cases = [
        (
            "bad_past",
            "+ 1",
            "`block_table[3, 6]` = 28 is outside 0..28 (`0..num_pages`)",
        ),
        (
            "bad_negative",
            "- 1",
            "`block_table[0, 0]` = -1 is outside 0..28",
        ),
    ];
    for (name, shift, says) in cases {
        let table = format!("{TABLE} {shift}");
        let bad = block(name, (8, 16), &table, "full(i32, (4,), 100)");
        assert_refused(run(&bad), "E0428", line, says);
    }
}

#[test]
fn a_sequence_longer_than_its_pages_hold_is_refused_before_the_launch() {
    let line = line_of("require_range(seqlens, 0, max_pages * PAGE + 1)");
    let long = block(
        "bad_long",
        (8, 16),
        TABLE,
        "concat(full(i32, (3,), 100), full(i32, (1,), 113))",
    );
    assert_refused(
        run(&long),
        "E0428",
        line,
        "`seqlens[3]` = 113 is outside 0..113",
    );
}

#[test]
fn a_cache_of_another_page_size_or_q_of_other_heads_is_refused_at_the_parameter() {
    let cases = [
        (
            "bad_page_size",
            (8, 64),
            "    k_cache: gmem KV[",
            "`k_cache` needs a tensor of shape (28, 16, 2, 128)",
        ),
        (
            "bad_heads",
            (6, 16),
            "    q: gmem T[",
            "`q` needs a tensor of shape (4, 8, 128)",
        ),
    ];
    for (name, shapes, parameter, says) in cases {
        let bad = block(name, shapes, TABLE, "full(i32, (4,), 100)");
        assert_refused(run(&bad), "E0216", line_of(parameter), says);
    }
}

#[test]
fn an_fp8_cache_of_another_dtype_or_a_scale_tensor_is_refused_at_the_parameter() {
    let mixed = Caches {
        dtype: "e4m3",
        k_dtype: "bf16",
        k_scale: "0.5",
    };
    let tensor = Caches {
        dtype: "e4m3",
        k_dtype: "e4m3",
        k_scale: "full(f32, (2,), 0.5)",
    };
    let cases = [
        (
            mixed,
            "bad_cache_dtype",
            "    k_cache: gmem KV[",
            "`k_cache` holds e4m3, but this tensor holds bf16",
        ),
        (
            tensor,
            "bad_scale",
            "    k_scale: f32,",
            "`k_scale` is a f32, but this argument is a host f32 tensor",
        ),
    ];
    for (caches, name, parameter, says) in cases {
        let bad = caches.block(name, (8, 16), TABLE, "full(i32, (4,), 100)");
        assert_refused(run(&bad), "E0216", line_of(parameter), says);
    }
}

#[test]
fn mla_a_block_table_entry_past_the_cache_or_rows_of_another_width_are_refused() {
    let past = mla_block("bad_mla_past", "(28, 16, 1, 576)", &format!("{TABLE} + 1"));
    assert_refused(
        run(&past),
        "E0428",
        line_after(
            "require_range(block_table, 0, num_pages)",
            "kernel mla_decode<",
        ),
        "`block_table[3, 6]` = 28 is outside 0..28 (`0..num_pages`)",
    );
    let narrow = mla_block("bad_mla_width", "(28, 16, 1, 512)", TABLE);
    assert_refused(
        run(&narrow),
        "E0216",
        line_after("    kv_cache: gmem T[", "kernel mla_decode<"),
        "`kv_cache` needs a tensor of shape (28, 16, 1, 576)",
    );
}
