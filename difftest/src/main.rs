//! `cuk-difftest`: runs generated programs against the C reference on the emulator or
//! the GPU and prints every disagreement (seed, program, values, minimised program).
//! Exits with failure when any program disagrees.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use difftest::harness::{Backend, Runner};
use difftest::{Feature, Features, RunConfig};

/// Differential testing of CuK's scalar semantics against C's.
#[derive(Parser)]
#[command(name = "cuk-difftest")]
struct Args {
    /// The run's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How many programs.
    #[arg(long, default_value_t = 1000)]
    count: u64,
    /// The first program's index (to rerun one: `--first I --count 1`).
    #[arg(long, default_value_t = 0)]
    first: u64,
    /// Run on GPU 0 (PTX the driver compiles).
    #[arg(long, conflicts_with = "emulate")]
    gpu: bool,
    /// Run on the CPU emulator (the default).
    #[arg(long)]
    emulate: bool,
    /// The GPU's target.
    #[arg(long, default_value = "sm_90a")]
    target: String,
    /// A feature the generator leaves out (repeatable): unsigned, small-ints,
    /// small-int-memory, half-floats, narrowing, float-to-int, int-to-half, double-to-half,
    /// short-circuit, branches, loops, float-ne, math, untyped-cells, shuffles, atomics, big-literals, pow2-division, signed-wrap.
    #[arg(long = "disable")]
    disabled: Vec<String>,
    /// Use every feature, also those the compiler is known to get wrong (without it,
    /// `difftest::features::KNOWN_FAILING` are left out, as in CI).
    #[arg(long)]
    all_features: bool,
    /// List the features and which are left out by default, with why.
    #[arg(long)]
    list_features: bool,
    /// Programs compiled together in one module.
    #[arg(long, default_value_t = 50)]
    batch: usize,
    /// Disagreements minimised per class.
    #[arg(long, default_value_t = 3)]
    minimise: usize,
    /// Disagreements printed in full.
    #[arg(long, default_value_t = 10)]
    show: usize,
    /// Print each program's source (with its inputs) instead of running them.
    #[arg(long)]
    print: bool,
    /// A folder for the minimised programs (`seed-index.cuk`).
    #[arg(long)]
    out: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.list_features {
        for feature in Feature::ALL {
            let why = (difftest::features::KNOWN_FAILING.iter())
                .find(|(failing, _)| *failing == feature)
                .map_or(String::new(), |(_, why)| {
                    format!(" (off by default: {why})")
                });
            println!("{feature}{why}");
        }
        return ExitCode::SUCCESS;
    }
    let mut disabled = Vec::new();
    for name in &args.disabled {
        match Feature::parse(name) {
            Some(feature) => disabled.push(feature),
            None => {
                eprintln!("cuk-difftest: no feature `{name}`");
                return ExitCode::from(2);
            }
        }
    }
    let config = RunConfig {
        seed: args.seed,
        first: args.first,
        count: args.count,
        features: if args.all_features {
            Features::all()
        } else {
            Features::working()
        }
        .without(&disabled),
        batch: args.batch.max(1),
        minimise_per_class: args.minimise,
    };
    if args.print {
        let mut out = std::io::stdout().lock();
        for index in args.first..args.first + args.count {
            let program = difftest::generate::generate(args.seed, index, &config.features);
            // A closed pipe (`| head`) ends the listing.
            if writeln!(out, "{}", difftest::with_inputs(&program)).is_err() {
                break;
            }
        }
        return ExitCode::SUCCESS;
    }
    let mut gpu;
    let backend = if args.gpu {
        let target = match args.target.parse::<cute::Target>() {
            Ok(target) => target,
            Err(_) => {
                eprintln!("cuk-difftest: unknown target `{}`", args.target);
                return ExitCode::from(2);
            }
        };
        gpu = match runtime::Gpu::open() {
            Ok(gpu) => gpu,
            Err(message) => {
                eprintln!("cuk-difftest: {message}");
                return ExitCode::from(2);
            }
        };
        Backend::Gpu(&mut gpu, target)
    } else {
        Backend::Emulator
    };
    let device = if args.gpu { "GPU" } else { "emulator" };
    let mut runner = Runner::new(backend);
    let started = std::time::Instant::now();
    let summary = difftest::run(&mut runner, &config, |summary| {
        if summary.programs % 1000 < config.batch as u64 {
            eprintln!(
                "cuk-difftest: {} programs, {} agree ({:.0} s)",
                summary.programs,
                summary.agreements,
                started.elapsed().as_secs_f64()
            );
        }
    });
    for failure in summary.failures.iter().take(args.show) {
        println!("{}", difftest::describe(args.seed, failure));
    }
    if let Some(folder) = &args.out {
        let _ = std::fs::create_dir_all(folder);
        for failure in &summary.failures {
            if let Some((program, verdict)) = &failure.minimised {
                let text = format!(
                    "// {}\n{}",
                    difftest::verdict_text(verdict),
                    difftest::with_inputs(program)
                );
                let path = folder.join(format!("{}-{}.cuk", args.seed, failure.index));
                if let Err(error) = std::fs::write(&path, text) {
                    eprintln!("cuk-difftest: cannot write {}: {error}", path.display());
                }
            }
        }
    }
    println!(
        "cuk-difftest: seed {}, programs {}..{} on the {device}: {} run, {} agree, {} disagree ({:.1} s)",
        args.seed,
        args.first,
        args.first + args.count,
        summary.programs,
        summary.agreements,
        summary.programs - summary.agreements,
        started.elapsed().as_secs_f64()
    );
    for (class, count) in &summary.classes {
        println!("  {class}: {count}");
    }
    if summary.agreements == summary.programs {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
