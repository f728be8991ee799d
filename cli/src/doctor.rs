//! `cukc doctor`: what this machine offers cukc: the ptxas it would use (where it
//! came from, its release, the targets it assembles), cukc's cache directory, the
//! NVIDIA driver and GPUs, and the first GPU as the CUDA driver API sees it.
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

/// The NVIDIA kernel module's version and each GPU's model from `/proc/driver/nvidia`,
/// then what the CUDA driver API says (through the runtime, as `cukc test` sees it).
fn gpu_status() -> String {
    let nvidia = std::path::Path::new("/proc/driver/nvidia");
    let cuda = match runtime::gpu_status() {
        Ok(info) => info.to_string(),
        Err(reason) => format!("CUDA unusable: {reason}"),
    };
    let Ok(version) = std::fs::read_to_string(nvidia.join("version")) else {
        return format!(
            "no NVIDIA driver found (/proc/driver/nvidia/version is absent); \
             building needs none, running kernels does ({cuda})"
        );
    };
    let driver = kernel_module_version(&version).unwrap_or("of unknown version");
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
    format!("NVIDIA driver {driver}; {gpus}; {cuda}")
}

/// The version in the first line of `/proc/driver/nvidia/version`: its first word of
/// dot-separated numbers (`580.95.05`), wherever the words before it put it.
fn kernel_module_version(text: &str) -> Option<&str> {
    text.lines().next()?.split_whitespace().find(|word| {
        let mut parts = word.split('.');
        let numeric =
            |part: &str| !part.is_empty() && part.bytes().all(|byte| byte.is_ascii_digit());
        word.contains('.') && parts.all(numeric)
    })
}

#[cfg(test)]
mod tests {
    use super::kernel_module_version;

    #[test]
    fn the_kernel_module_version_is_found_in_either_banner() {
        let open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  \
                    Release Build  (dvs-builder@U22-I3-AF03-09-1)  Tue Sep 23 09:34:12 UTC 2025\n\
                    GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n";
        assert_eq!(kernel_module_version(open), Some("580.95.05"));
        let older = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  \
                     Sat Aug 19 01:15:15 UTC 2023\n";
        assert_eq!(kernel_module_version(older), Some("535.104.05"));
        // As an H100 machine printed it, with a builder field that names no host.
        let seen = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  \
                    Release Build  (nixbld@)  \n";
        assert_eq!(kernel_module_version(seen), Some("580.159.04"));
        assert_eq!(kernel_module_version("NVRM version: something new\n"), None);
        assert_eq!(kernel_module_version(""), None);
    }
}
