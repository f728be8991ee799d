//! Differential test of `cukc layout --batch` against NVIDIA's pycute.
//!
//! A seeded corpus from `tests/layout-oracle/gen_queries.py` (every op of
//! LAYOUT-QUERIES.md) is answered by `tests/layout-oracle/pycute_answer.py` and by
//! `cukc layout --batch`; the answers are compared one by one. pycute is found via
//! `CUK_PYCUTE_DIR`, else `<workspace>/target/pycute`, and installed there with pip
//! (`nvidia-cutlass==4.2.0.0`, which ships the `pycute` package) when missing.
//!
//! Each answer pair is one of: agreement (the same result as pycute's own, or both
//! errors); a documented exception, where pycute is known to differ from C++ CuTe, the
//! answerer substituted the C++ answer computed from pycute's primitives (tagged
//! `"exception"`, see `tests/layout-oracle/cpp_semantics.py`), and ours equals that;
//! or a mismatch. The test prints a per-op table and requires every op exercised, zero
//! mismatches, at least 99% agreement with the reference (agreements plus verified
//! exceptions), and at least `MIN_PLAIN_AGREEMENT` of the answers equal to pycute's
//! own, so that the substituted C++ answers stay a minority of the oracle.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

#[path = "support/layout_ops.rs"]
mod layout_ops;

use layout_ops::OPS;

/// Corpus: `QUERIES_PER_SEED` queries for each seed, ops taken in turn.
const SEEDS: [u64; 2] = [20_261_121, 7];
const QUERIES_PER_SEED: usize = OPS.len() * 70;

/// The least fraction of answers that must agree with the reference: pycute's own
/// answer, or the C++ answer where pycute documentedly differs (every mismatch fails
/// the test anyway, so this guards the classification itself).
const MIN_AGREEMENT: f64 = 0.99;

/// The least fraction of answers that must equal pycute's own answer, so that the
/// C++ answers substituted by `cpp_semantics.py` stay a minority of the oracle. About
/// 5% of the corpus hits a documented pycute-vs-C++ difference (rank-1 rest modes of
/// the tiled divides and products, `coalesce_x` in composition, compact strides of
/// extent-1 modes, composition's dropped modes, the inverses, ...).
const MIN_PLAIN_AGREEMENT: f64 = 0.9;

/// The most mismatches printed in full.
const MISMATCHES_SHOWN: usize = 40;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(command: &mut Command, what: &str) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|error| panic!("cannot run {what}: {error}"));
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The directory holding the `pycute` package, installing it when absent.
fn pycute_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CUK_PYCUTE_DIR") {
        let dir = PathBuf::from(dir);
        assert!(
            dir.join("pycute").is_dir(),
            "CUK_PYCUTE_DIR={} holds no pycute/",
            dir.display()
        );
        return dir;
    }
    let dir = workspace_root().join("target").join("pycute");
    if !dir.join("pycute").join("__init__.py").is_file() {
        run(
            Command::new("python3")
                .args(["-m", "pip", "install", "--no-deps", "--quiet", "--target"])
                .arg(&dir)
                .arg("nvidia-cutlass==4.2.0.0"),
            "`python3 -m pip install nvidia-cutlass==4.2.0.0` (python3 and pip are needed to fetch the pycute oracle)",
        );
    }
    dir
}

fn lines(output: &Output) -> Vec<Value> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|error| panic!("answer {line:?} is not JSON: {error}"))
        })
        .collect()
}

/// Answers of `pycute_answer.py` and `cukc layout --batch` to the corpus file.
fn answers(corpus: &Path) -> (Vec<Value>, Vec<Value>) {
    let oracle = workspace_root().join("tests").join("layout-oracle");
    let pycute = run(
        Command::new("python3")
            .arg(oracle.join("pycute_answer.py"))
            .env("PYTHONPATH", pycute_dir())
            .stdin(Stdio::from(
                File::open(corpus).expect("corpus was just written"),
            )),
        "pycute_answer.py",
    );
    let ours = run(
        Command::new(env!("CARGO_BIN_EXE_cukc"))
            .args(["layout", "--batch"])
            .stdin(Stdio::from(
                File::open(corpus).expect("corpus was just written"),
            )),
        "cukc layout --batch",
    );
    (lines(&pycute), lines(&ours))
}

fn corpus() -> (PathBuf, Vec<Value>) {
    let generator = workspace_root()
        .join("tests")
        .join("layout-oracle")
        .join("gen_queries.py");
    let mut text = String::new();
    for seed in SEEDS {
        let output = run(
            Command::new("python3").arg(&generator).args([
                "--seed",
                &seed.to_string(),
                "--count",
                &QUERIES_PER_SEED.to_string(),
            ]),
            "gen_queries.py",
        );
        text.push_str(&String::from_utf8_lossy(&output.stdout));
    }
    // Ids restart with each seed; renumber so that every line's default id is its id.
    let queries: Vec<Value> = text
        .lines()
        .enumerate()
        .map(|(line_number, line)| {
            let mut query: Value = serde_json::from_str(line).expect("the generator writes JSON");
            query["id"] = Value::from(line_number);
            query
        })
        .collect();
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("pycute-differential-corpus.jsonl");
    let body: String = queries.iter().map(|query| format!("{query}\n")).collect();
    std::fs::write(&path, body).expect("cannot write the corpus");
    (path, queries)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Agree,
    Exception,
    Mismatch,
}

/// Whether two answers say the same: equal results (and offsets), or both errors.
fn same_answer(pycute: &Value, ours: &Value) -> bool {
    match (pycute.get("error"), ours.get("error")) {
        (Some(_), Some(_)) => true,
        (None, None) => {
            pycute.get("result") == ours.get("result")
                && pycute.get("offset") == ours.get("offset")
                && pycute.get("result").is_some()
        }
        _ => false,
    }
}

fn verdict(pycute: &Value, ours: &Value) -> Verdict {
    let same_id = pycute.get("id") == ours.get("id") && pycute.get("op") == ours.get("op");
    match (
        same_id && same_answer(pycute, ours),
        pycute.get("exception").is_some(),
    ) {
        (false, _) => Verdict::Mismatch,
        (true, true) => Verdict::Exception,
        (true, false) => Verdict::Agree,
    }
}

#[derive(Default)]
struct Tally {
    agree: usize,
    exception: usize,
    mismatch: usize,
}

impl Tally {
    fn total(&self) -> usize {
        self.agree + self.exception + self.mismatch
    }

    fn count(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Agree => self.agree += 1,
            Verdict::Exception => self.exception += 1,
            Verdict::Mismatch => self.mismatch += 1,
        }
    }
}

fn print_table(per_op: &BTreeMap<&str, Tally>, overall: &Tally) {
    println!(
        "{:<16} {:>6} {:>9} {:>8} {:>6}",
        "op", "agree", "exception", "mismatch", "total"
    );
    for op in OPS {
        let tally = &per_op[op];
        println!(
            "{op:<16} {:>6} {:>9} {:>8} {:>6}",
            tally.agree,
            tally.exception,
            tally.mismatch,
            tally.total()
        );
    }
    println!(
        "{:<16} {:>6} {:>9} {:>8} {:>6}",
        "all",
        overall.agree,
        overall.exception,
        overall.mismatch,
        overall.total()
    );
}

#[test]
fn batch_answers_agree_with_pycute() {
    let (path, queries) = corpus();
    let (pycute, ours) = answers(&path);
    assert_eq!(
        pycute.len(),
        queries.len(),
        "pycute_answer.py must answer every line"
    );
    assert_eq!(
        ours.len(),
        queries.len(),
        "cukc layout --batch must answer every line"
    );

    let mut per_op: BTreeMap<&str, Tally> = OPS.iter().map(|&op| (op, Tally::default())).collect();
    let mut overall = Tally::default();
    let mut shown = 0;
    for ((query, pycute), ours) in queries.iter().zip(&pycute).zip(&ours) {
        let op = query["op"].as_str().expect("the generator writes an op");
        let verdict = verdict(pycute, ours);
        per_op
            .get_mut(op)
            .unwrap_or_else(|| panic!("the generator wrote op {op:?}, not in the table"))
            .count(verdict);
        overall.count(verdict);
        if verdict == Verdict::Mismatch && shown < MISMATCHES_SHOWN {
            shown += 1;
            println!("MISMATCH {query}\n  pycute: {pycute}\n  cukc:   {ours}");
        }
    }
    print_table(&per_op, &overall);

    let unexercised: Vec<&str> = OPS
        .iter()
        .copied()
        .filter(|op| per_op[op].total() == 0)
        .collect();
    assert!(
        unexercised.is_empty(),
        "ops never exercised: {unexercised:?}"
    );
    assert_eq!(
        overall.mismatch, 0,
        "undocumented mismatches with pycute (listed above)"
    );
    let total = overall.total() as f64;
    let agreement = (overall.agree + overall.exception) as f64 / total;
    let plain_agreement = overall.agree as f64 / total;
    println!(
        "agreement with the reference: {:.2}%, with pycute's own answers: {:.2}%",
        agreement * 100.0,
        plain_agreement * 100.0
    );
    assert!(
        agreement >= MIN_AGREEMENT,
        "agreement {:.2}% is below 99%",
        agreement * 100.0
    );
    assert!(
        plain_agreement >= MIN_PLAIN_AGREEMENT,
        "agreement with pycute's own answers {:.2}% is below {:.0}%",
        plain_agreement * 100.0,
        MIN_PLAIN_AGREEMENT * 100.0
    );
}
