//! `cukc profile FILE BLOCK`: where a test's or bench's kernels spend their work, line
//! by line of the `.cuk` file.
//!
//! On a machine with a GPU and Nsight Compute (`ncu`), the block runs under `ncu --set
//! full --import-source yes` once per kernel of the file (its first launch profiled;
//! `cukc test` and `bench` build with line info), and each kernel's source page becomes
//! a table per line (`ncu.rs`). Without them, or with `--emulate`, a test block runs on
//! the emulator with its profile on, and the table counts per line what the emulator
//! saw (`emulated.rs`). Either way the table is printed and kept nowhere else.

mod emulated;
mod ncu;

use std::path::PathBuf;
use std::process::ExitCode;

use lang::ast::ItemKind;
use lang::{Diagnostic, SourceFile};

use crate::assemble::PtxasArgs;
use crate::build;
use crate::output::errln;

/// `cukc profile`'s arguments.
#[derive(clap::Args)]
pub struct ProfileArgs {
    /// The `.cuk` file.
    file: PathBuf,
    /// The test or bench block to profile (its whole name).
    block: String,
    /// Profile on the CPU emulator even when a GPU and `ncu` are there (a test block).
    #[arg(long)]
    emulate: bool,
    /// The architecture to build for; by default the GPU's, else the file's.
    #[arg(long, value_parser = crate::check::parse_target)]
    target: Option<cute::Target>,
    /// Nsight Compute's command line (default: `ncu` on the PATH, else
    /// `/usr/local/cuda/bin/ncu`).
    #[arg(long, value_name = "PATH")]
    ncu: Option<PathBuf>,
    /// Show only the N lines with the most work (default: every line that ran, in
    /// source order).
    #[arg(long, value_name = "N")]
    top: Option<usize>,
    #[command(flatten)]
    ptxas: PtxasArgs,
}

/// Whether the block profiled is a test or a bench.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Test,
    Bench,
}

/// Runs `cukc profile`.
pub fn run(args: &ProfileArgs) -> ExitCode {
    let gpu = if args.emulate {
        Err("--emulate".to_owned())
    } else {
        runtime::gpu_status().map_err(String::from)
    };
    let target = args.target.unwrap_or_else(|| match &gpu {
        Ok(info) => autotune::winners::target_of(info),
        Err(_) => crate::check::declared_target(&args.file),
    });
    let compiled = build::compile(&args.file, target);
    build::report(&compiled.file, &compiled.diagnostics);
    if compiled.diagnostics.iter().any(Diagnostic::is_error) {
        return ExitCode::FAILURE;
    }
    let Some(kind) = block_kind(&compiled.module, &args.block) else {
        errln!(
            "error: {} has no test or bench `{}`; its blocks: {}",
            args.file.display(),
            args.block,
            block_names(&compiled.module).join(", ")
        );
        return ExitCode::from(2);
    };
    let ncu = match &gpu {
        Ok(_) => ncu::find(args.ncu.as_deref()).ok_or_else(|| {
            "no Nsight Compute (`ncu` is not on the PATH or in /usr/local/cuda/bin)".to_owned()
        }),
        Err(reason) => Err(format!("no GPU ({reason})")),
    };
    match ncu {
        Ok(ncu) => ncu::profile(args, &compiled, kind, target, &ncu),
        Err(reason) => {
            errln!("cukc: {reason}: profiling on the CPU emulator");
            emulated::profile(args, &compiled, kind)
        }
    }
}

/// Whether `name` is a test or a bench of `module`.
fn block_kind(module: &lang::ast::Module, name: &str) -> Option<Kind> {
    module.items.iter().find_map(|item| match &item.kind {
        ItemKind::Test(block) if block.name.text == name => Some(Kind::Test),
        ItemKind::Bench(block) if block.name.text == name => Some(Kind::Bench),
        _ => None,
    })
}

/// The module's test and bench names, of `kind` when given.
fn block_names(module: &lang::ast::Module) -> Vec<String> {
    (module.items.iter())
        .filter_map(|item| match &item.kind {
            ItemKind::Test(block) => Some(format!("test {}", block.name.text)),
            ItemKind::Bench(block) => Some(format!("bench {}", block.name.text)),
            _ => None,
        })
        .collect()
}

/// Line `line` (1-based) of `file`, trimmed and cut to `width` characters.
fn source_line(file: &SourceFile, line: u32, width: usize) -> String {
    let text = file
        .text()
        .lines()
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("");
    let text = text.trim();
    if text.chars().count() <= width {
        return text.to_owned();
    }
    let cut: String = text.chars().take(width.saturating_sub(3)).collect();
    format!("{cut}...")
}

/// Keeps the `top` rows with the largest `weight` (all when `None`), in line order.
fn busiest<T>(
    mut rows: Vec<(u32, T)>,
    top: Option<usize>,
    weight: impl Fn(&T) -> f64,
) -> Vec<(u32, T)> {
    if let Some(top) = top {
        rows.sort_by(|a, b| weight(&b.1).total_cmp(&weight(&a.1)));
        rows.truncate(top);
    }
    rows.sort_by_key(|(line, _)| *line);
    rows
}
