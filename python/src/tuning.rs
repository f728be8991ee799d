//! `cuk.autotune(path, tune=...)`, `cukc tune` from Python with the same meaning (the
//! `autotune` crate does the work for both): every point of the file's `tune` blocks
//! compiled on every core, the failing ones rejected, the rest timed on the first GPU
//! (a survey, then each bench's fastest again with warm-up, L2 flushes and the
//! median), the table saved (`<stem>.<block>.tune.txt` in the current folder, or
//! `report=`), and each bench's winner stored in cukc's cache directory, where
//! `cukc bench` and `cuk.load` find it.
//!
//! Without a GPU it raises `RuntimeError` at once, unless `dry_run=True`, which
//! compiles and reports as `cukc tune --dry-run` does. Each block becomes a dict (the
//! Python side, `cuk/tuning.py`, makes it a `TuneResult`); a block with no valid point
//! is a `CompileError` (E0236) once every block is done.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use autotune::timing::Measured;
use autotune::{Compiler, GpuTimer, Progress, Timer, Tuned};
use backend_ptx::ptxas::{AssemblyCache, Environment};
use cute::Target;
use lang::Diagnostic;
use lang::ast::{ItemKind, TuneBlock};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::module::{first_gpu, read_source};
use crate::{compile, errors, tuned};

/// Tunes the `tune` blocks of the `.cuk` file at `path` (only block `tune` when given).
#[pyfunction(name = "autotune")]
#[pyo3(signature = (path, *, tune = None, target = None, report = None, dry_run = false, kernel_timeout = None))]
pub fn autotune_file<'py>(
    py: Python<'py>,
    path: PathBuf,
    tune: Option<String>,
    target: Option<String>,
    report: Option<PathBuf>,
    dry_run: bool,
    kernel_timeout: Option<f64>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let gpu = match (dry_run, first_gpu()) {
        (true, _) => None,
        (false, Some(info)) => Some(info),
        (false, None) => {
            let reason = (runtime::gpu_status().err()).map_or_else(String::new, String::from);
            return Err(PyRuntimeError::new_err(format!(
                "cuk.autotune: no GPU to time on ({reason}); dry_run=True compiles every point and reports which are valid, timing nothing"
            )));
        }
    };
    let source = read_source(&path)?;
    let target = match (target, gpu) {
        (Some(name), _) => name
            .parse()
            .map_err(|unknown: cute::UnknownTarget| PyValueError::new_err(unknown.to_string()))?,
        (None, Some(info)) => autotune::winners::target_of(info),
        (None, None) => Target::declared_in(&source).unwrap_or(Target::Sm90a),
    };
    let name = path.display().to_string();
    let parsed = compile::parse(&name, &source)
        .map_err(|rejected| errors::compile_error(py, &rejected.0, &rejected.1))?;
    let checked =
        py.detach(|| autotune::check_and_lower(&parsed.file, parsed.module.clone(), target));
    if checked.diagnostics.iter().any(Diagnostic::is_error) {
        return Err(errors::compile_error(
            py,
            &parsed.file,
            &checked.diagnostics,
        ));
    }
    let blocks: Vec<&TuneBlock> = (parsed.module.items.iter())
        .filter_map(|item| match &item.kind {
            ItemKind::Tune(block) => Some(block),
            _ => None,
        })
        .filter(|block| tune.as_ref().is_none_or(|only| block.name.text == *only))
        .collect();
    if blocks.is_empty() {
        return Err(PyValueError::new_err(match &tune {
            Some(only) => format!("{name} has no tune block `{only}`"),
            None => format!("{name} has no tune block"),
        }));
    }
    let ptxas = compile::find_ptxas().map_err(|none| PyRuntimeError::new_err(none.to_string()))?;
    let cache = (std::env::var_os("CUKC_NO_CACHE").is_none())
        .then(|| Environment::from_process(None, true).cache_dir)
        .flatten()
        .map(|dir| AssemblyCache::in_cache_dir(&dir));
    let mut timer = gpu.map(|_| GpuTimer::new(kernel_timeout.map(Duration::from_secs_f64)));
    let mut results = Vec::new();
    let mut invalid = Vec::new();
    for block in blocks {
        let compiler = Compiler {
            front_end: &autotune::check_and_lower,
            file: &parsed.file,
            module: &parsed.module,
            block,
            target,
            ptxas: &ptxas,
            cache: cache.as_ref(),
            timeout: None,
        };
        let timer = timer.as_mut().map(|timer| timer as &mut dyn Timer);
        let Some(tuned) = py.detach(|| autotune::tune(&compiler, timer, &mut say_progress(block)))
        else {
            invalid.push(autotune::no_valid_point(block));
            continue;
        };
        let report =
            (report.clone()).unwrap_or_else(|| autotune::report::default_path(&path, block));
        let saved = match std::fs::write(&report, &tuned.table) {
            Ok(()) => Some(report),
            Err(error) => {
                say(&format!("cannot write {}: {error}", report.display()));
                None
            }
        };
        if tuned.ready() == 0 {
            invalid.push(autotune::no_valid_point(block));
        }
        let gpu_name = gpu.map(|info| info.name.as_str());
        results.push(block_result(
            py,
            &parsed.file,
            block,
            &tuned,
            gpu_name,
            target,
            saved,
        )?);
    }
    if !invalid.is_empty() {
        return Err(errors::compile_error(py, &parsed.file, &invalid));
    }
    Ok(results)
}

/// Writes `cuk: <line>` to standard error (a closed one loses it quietly).
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "cuk: {line}");
}

/// The progress lines of tuning `block`, as `cukc tune` prints them.
fn say_progress(block: &TuneBlock) -> impl FnMut(Progress) + '_ {
    move |progress| match progress {
        Progress::Compiled {
            kept,
            total,
            ready,
            elapsed,
        } => say(&format!(
            "`{}`: {kept} of {total} points kept by the conditions, {ready} compiled within the limits, in {:.2} s",
            block.name.text,
            elapsed.as_secs_f64()
        )),
        Progress::Surveyed {
            timed,
            ready,
            elapsed,
        } => say(&format!(
            "surveyed {timed} of {ready} points ({:.1} s)",
            elapsed.as_secs_f64()
        )),
        Progress::Finalists { count, elapsed } => say(&format!(
            "timed {count} finalists again carefully ({:.1} s in all)",
            elapsed.as_secs_f64()
        )),
    }
}

/// One block's result: its rows, its winners (stored), the table and where it went.
fn block_result<'py>(
    py: Python<'py>,
    file: &lang::SourceFile,
    block: &TuneBlock,
    tuned: &Tuned,
    gpu: Option<&str>,
    target: Target,
    report: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let result = PyDict::new(py);
    result.set_item("tune", &block.name.text)?;
    result.set_item("kernel", &block.kernel.text)?;
    result.set_item("benches", &tuned.benches)?;
    result.set_item("target", target.name())?;
    result.set_item("gpu", gpu)?;
    result.set_item("table", &tuned.table)?;
    result.set_item(
        "report",
        report
            .as_deref()
            .map(Path::display)
            .map(|path| path.to_string()),
    )?;
    let rows = (tuned.built.iter().zip(&tuned.timings.measured).enumerate())
        .map(|(index, (built, measured))| {
            let row = PyDict::new(py);
            row.set_item("index", index + 1)?;
            row.set_item("configuration", built.point.to_string())?;
            let values = PyDict::new(py);
            for (name, value) in built.point.values() {
                values.set_item(name, tuned::const_value(py, value)?)?;
            }
            row.set_item("values", values)?;
            let ready = built.outcome.as_ref().ok();
            row.set_item("registers", ready.map(|ready| ready.registers))?;
            row.set_item("shared_bytes", ready.map(|ready| ready.shared_bytes))?;
            row.set_item("spilled_bytes", ready.map(|ready| ready.spilled_bytes))?;
            let rejected = built.outcome.as_ref().err().map(|rejected| &rejected.0);
            row.set_item("rejected", rejected)?;
            let times = match measured {
                Some(measured) => Some(times(py, &tuned.benches, measured)?),
                None => None,
            };
            row.set_item("times", times)?;
            Ok(row)
        })
        .collect::<PyResult<Vec<_>>>()?;
    result.set_item("rows", rows)?;
    let winners = PyDict::new(py);
    if let (Some(gpu), Some(won)) = (gpu, tuned.winners()) {
        for (bench, winner) in tuned.benches.iter().zip(won) {
            let Some((index, timed)) = winner else {
                say(&format!("bench {bench}: no point was timed"));
                continue;
            };
            let point = &tuned.built[index].point;
            say(&format!(
                "bench {bench}: fastest {point} ({:.4} ms)",
                timed.kernel_ms
            ));
            let stored =
                match autotune::winners::store(file, block, bench, gpu, point, timed.kernel_ms) {
                    Ok(path) => Some(path.display().to_string()),
                    Err(error) => {
                        say(&format!("cannot store the winner of `{bench}`: {error}"));
                        None
                    }
                };
            let winner = PyDict::new(py);
            winner.set_item("row", index + 1)?;
            winner.set_item("configuration", point.to_string())?;
            winner.set_item("kernel_ms", timed.kernel_ms)?;
            winner.set_item("stored", stored)?;
            winners.set_item(bench, winner)?;
        }
    }
    result.set_item("winners", winners)?;
    Ok(result)
}

/// Each bench's measurement at a point: `{"kernel_ms", "rate", "unit"}`, or
/// `{"failed": reason}`.
fn times<'py>(
    py: Python<'py>,
    benches: &[String],
    measured: &[Measured],
) -> PyResult<Bound<'py, PyDict>> {
    let times = PyDict::new(py);
    for (bench, result) in benches.iter().zip(measured) {
        let time = PyDict::new(py);
        match result {
            Measured::Timed(timed) => {
                time.set_item("kernel_ms", timed.kernel_ms)?;
                let metric = timed.metric;
                time.set_item("rate", metric.map(|metric| metric.rate(timed.kernel_ms)))?;
                time.set_item("unit", metric.map(|metric| metric.unit()))?;
            }
            Measured::Failed(reason) => time.set_item("failed", reason)?,
        }
        times.set_item(bench, time)?;
    }
    Ok(times)
}
