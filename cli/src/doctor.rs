//! `cukc doctor`: what this machine offers cukc: the ptxas it would use (where it
//! came from, its release, the targets it assembles), cukc's cache directory, and
//! the NVIDIA driver and GPUs.
//!
//! Finding ptxas may install it (see `backend_ptx::ptxas::find`); pip's progress
//! goes to standard error. Exit code 0 when a ptxas was found, 2 when none could be
//! had (the reason and the ways to get one go to standard error).

use std::process::ExitCode;

use crate::output::{errln, outln};
use backend_ptx::ptxas::{self, Environment};

/// Arguments of `cukc doctor`.
#[derive(clap::Args)]
pub struct DoctorArgs {
    #[command(flatten)]
    ptxas: crate::assemble::PtxasArgs,
}

/// Runs `cukc doctor`.
pub fn run(args: &DoctorArgs) -> ExitCode {
    let env = Environment::from_process(args.ptxas.path.clone(), args.ptxas.offline);
    let found = ptxas::find(&env, &mut |progress| errln!("cukc: {progress}"));
    let code = match &found {
        Ok(ptxas) => {
            outln!(
                "ptxas:   {} (found via {})",
                ptxas.path.display(),
                ptxas.source
            );
            outln!("version: {}", ptxas.version);
            let targets: Vec<String> = ptxas
                .target_support()
                .into_iter()
                .map(|(target, ok)| format!("{target} {}", if ok { "yes" } else { "no" }))
                .collect();
            outln!("targets: {}", targets.join(", "));
            ExitCode::SUCCESS
        }
        Err(error) => {
            outln!("ptxas:   not found");
            errln!("error: {error}");
            ExitCode::from(2)
        }
    };
    match &env.cache_dir {
        Some(dir) => outln!("cache:   {}", dir.display()),
        None => outln!("cache:   none (set CUKC_CACHE_DIR, XDG_CACHE_HOME or HOME)"),
    }
    outln!("gpu:     {}", gpu_status());
    code
}

/// The CUDA driver and GPUs, as far as they can be seen without a GPU library:
/// the kernel module's version and each GPU's model from `/proc/driver/nvidia`.
/// The `runtime` crate will replace this with what the driver API reports.
fn gpu_status() -> String {
    let nvidia = std::path::Path::new("/proc/driver/nvidia");
    let Ok(version) = std::fs::read_to_string(nvidia.join("version")) else {
        return "no NVIDIA driver found (/proc/driver/nvidia/version is absent); \
                building needs none, running kernels does"
            .to_owned();
    };
    let driver = version
        .lines()
        .next()
        .and_then(|line| line.split("Kernel Module").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or("of unknown version");
    let mut models: Vec<String> = std::fs::read_dir(nvidia.join("gpus"))
        .into_iter()
        .flatten()
        .filter_map(|entry| std::fs::read_to_string(entry.ok()?.path().join("information")).ok())
        .filter_map(|info| {
            info.lines()
                .find_map(|line| line.strip_prefix("Model:"))
                .map(|model| model.trim().to_owned())
        })
        .collect();
    models.sort();
    let gpus = if models.is_empty() {
        "no GPU listed".to_owned()
    } else {
        models.join(", ")
    };
    format!("NVIDIA driver {driver}; {gpus} (CUDA itself is not probed: cukc has no runtime yet)")
}
