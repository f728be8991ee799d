//! The GPU's profile through Nsight Compute: the block runs under `ncu` once per kernel
//! of the file (`-k` the kernel's name, `-c 1`: its first launch, with `--set full` and
//! the `.cuk` source imported from the cubin's line info), and each report's source
//! page (`--page source --print-source cuda,sass --csv`) gives, per `.cuk` line, the
//! warp-stall samples (where the time goes), the warp-level instructions executed, the
//! stall reasons sampled there and the shared-memory wavefronts against the ideal.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use super::{Kind, ProfileArgs, busiest, source_line};
use crate::build::Compiled;
use crate::output::{errln, outln};

/// One `.cuk` line of a kernel's source page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line {
    /// Warp-stall samples taken at the line's instructions.
    pub samples: f64,
    /// Warp-level instructions executed.
    pub instructions: f64,
    /// Samples by stall reason (`long_sb`, `wait`, ...), issued or not.
    pub stalls: BTreeMap<String, f64>,
    /// Shared-memory wavefronts, and the ideal count.
    pub wavefronts: (f64, f64),
}

/// `ncu`: `--ncu PATH`, else the first executable `ncu` in an absolute folder of the
/// PATH (as cukc finds ptxas and python3), else the CUDA toolkit's; `None` when there
/// is none.
pub fn find(given: Option<&Path>) -> Option<PathBuf> {
    if let Some(path) = given {
        return Some(path.to_owned());
    }
    let path = std::env::var_os("PATH");
    backend_ptx::ptxas::resolve_program("ncu".as_ref(), path.as_deref()).or_else(|| {
        let toolkit = PathBuf::from("/usr/local/cuda/bin/ncu");
        toolkit.is_file().then_some(toolkit)
    })
}

/// Why a source page could not be read.
#[derive(Debug)]
pub enum PageError {
    /// Not CSV.
    Csv(csv::Error),
    /// No `Line No` header: no `.cuk` lines (no line info).
    NoLines,
}

impl std::fmt::Display for PageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PageError::Csv(error) => write!(f, "{error}"),
            PageError::NoLines => {
                write!(
                    f,
                    "no `Line No` header: was the cubin built with line info?"
                )
            }
        }
    }
}

/// Profiles each kernel of the file at its first launch in the block and prints a table
/// per kernel that ran.
pub fn profile(
    args: &ProfileArgs,
    compiled: &Compiled,
    kind: Kind,
    target: cute::Target,
    ncu: &Path,
) -> ExitCode {
    let Ok(cukc) = std::env::current_exe() else {
        errln!("error: cannot find cukc's own executable to run under ncu");
        return ExitCode::FAILURE;
    };
    let Ok(folder) = tempfile::tempdir() else {
        errln!("error: cannot make a temporary folder for ncu's reports");
        return ExitCode::FAILURE;
    };
    // One run per kernel name: instantiations share it, and ncu matches by name.
    let mut names: Vec<&str> = Vec::new();
    for kernel in &compiled.kernels {
        if !names.contains(&kernel.signature.name.as_str()) {
            names.push(&kernel.signature.name);
        }
    }
    let mut profiled = 0;
    for name in names {
        let report = folder.path().join(format!("{name}.ncu-rep"));
        let ran = Command::new(ncu)
            .args([
                "--import-source",
                "yes",
                "--set",
                "full",
                "-c",
                "1",
                "-f",
                "-k",
            ])
            .arg(kernel_filter(name))
            .arg("-o")
            .arg(&report)
            .arg(&cukc)
            .arg(if kind == Kind::Test { "test" } else { "bench" })
            .arg(&args.file)
            .args([
                "--exact",
                "--filter",
                &args.block,
                "--target",
                target.name(),
            ])
            .output();
        match ran {
            Ok(output) if report.is_file() => {
                errln!("cukc: profiled `{name}` ({})", last_line(&output.stderr));
            }
            Ok(_) => continue,
            Err(error) => {
                errln!("error: cannot run {}: {error}", ncu.display());
                return ExitCode::FAILURE;
            }
        }
        let page = Command::new(ncu)
            .arg("-i")
            .arg(&report)
            .args(["--page", "source", "--csv", "--print-source", "cuda,sass"])
            .output();
        let lines = match page {
            Ok(output) if output.status.success() => {
                parse_source_page(&output.stdout).map_err(|error| error.to_string())
            }
            Ok(output) => Err(format!("ncu -i failed: {}", last_line(&output.stderr))),
            Err(error) => Err(error.to_string()),
        };
        match lines {
            Ok(lines) => {
                outln!("kernel {name}:");
                outln!(
                    "{}",
                    table(&lines, args.top, |line| source_line(
                        &compiled.file,
                        line,
                        60
                    ))
                );
                profiled += 1;
            }
            Err(reason) => errln!("error: reading ncu's source page of `{name}`: {reason}"),
        }
    }
    if profiled == 0 {
        errln!(
            "error: `{}` launched none of the file's kernels under ncu",
            args.block
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// ncu's `-k` filter for every instantiation of the kernel `name`: its PTX entries are
/// the name alone (the defaults) or the name followed by `__PARAMETER_value` for each
/// const argument (`lower::entry_name`).
fn kernel_filter(name: &str) -> String {
    format!("regex:^{name}(__.*)?$")
}

fn last_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.lines()
        .rfind(|line| !line.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_owned()
}

/// The `.cuk` lines of a source page in `cuda,sass` form: after a header row starting
/// `Line No`, a row whose first field is a line number carries that line's sums (the
/// SASS rows under it carry each instruction's, and are skipped).
pub fn parse_source_page(csv: &[u8]) -> Result<BTreeMap<u32, Line>, PageError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(csv);
    let mut header: Vec<String> = Vec::new();
    let mut lines = BTreeMap::new();
    for record in reader.records() {
        let record = record.map_err(PageError::Csv)?;
        let fields: Vec<&str> = record.iter().collect();
        if fields.first() == Some(&"Line No") {
            header = fields.iter().map(|field| (*field).to_owned()).collect();
            continue;
        }
        let Some(number) = fields.first().and_then(|field| field.parse::<u32>().ok()) else {
            continue;
        };
        if header.is_empty() {
            return Err(PageError::NoLines);
        }
        let value = |index: usize| {
            (fields.get(index))
                .and_then(|field| field.replace(',', "").parse::<f64>().ok())
                .unwrap_or(0.0)
        };
        let column = |name: &str| header.iter().position(|field| field == name);
        let mut line = Line {
            samples: column("Warp Stall Sampling (All Samples)").map_or(0.0, value),
            instructions: column("Instructions Executed").map_or(0.0, value),
            wavefronts: (
                column("L1 Wavefronts Shared").map_or(0.0, value),
                column("L1 Wavefronts Shared Ideal").map_or(0.0, value),
            ),
            ..Line::default()
        };
        for (index, name) in header.iter().enumerate() {
            if let Some(reason) = name.strip_prefix("stall_")
                && !reason.ends_with("(Not Issued)")
            {
                line.stalls.insert(reason.to_owned(), value(index));
            }
        }
        lines.insert(number, line);
    }
    if header.is_empty() {
        return Err(PageError::NoLines);
    }
    Ok(lines)
}

/// The table: the share of samples, instructions, the top three stall reasons, the
/// shared wavefronts against the ideal, and the source; lines with neither samples nor
/// instructions are left out.
pub fn table(
    lines: &BTreeMap<u32, Line>,
    top: Option<usize>,
    source: impl Fn(u32) -> String,
) -> String {
    let total: f64 = lines.values().map(|line| line.samples).sum();
    let rows = busiest(
        (lines.iter())
            .filter(|(_, line)| line.samples > 0.0 || line.instructions > 0.0)
            .map(|(number, line)| (*number, line.clone()))
            .collect(),
        top,
        |line| line.samples,
    );
    let mut text = format!(
        "{:>5}  {:>7}  {:>12}  {:<44}  {:>9}  source\n",
        "line", "samples", "instructions", "stalls (share of the line's samples)", "conflicts"
    );
    for (number, line) in rows {
        let share = 100.0 * line.samples / total.max(1.0);
        let mut stalls: Vec<(&String, &f64)> =
            line.stalls.iter().filter(|(_, n)| **n > 0.0).collect();
        stalls.sort_by(|a, b| b.1.total_cmp(a.1));
        let stalls: Vec<String> = (stalls.iter().take(3))
            .map(|(reason, n)| format!("{reason} {:.0}%", 100.0 * **n / line.samples.max(1.0)))
            .collect();
        let conflicts = match line.wavefronts {
            (_, ideal) if ideal <= 0.0 => "-".to_owned(),
            (taken, ideal) => format!("{:.2}x", taken / ideal),
        };
        let _ = writeln!(
            text,
            "{number:>5}  {share:>6.1}%  {:>12.0}  {:<44}  {conflicts:>9}  {}",
            line.instructions,
            stalls.join(", "),
            source(number)
        );
    }
    let _ = write!(text, "{total:.0} warp-stall samples in all");
    text
}

#[cfg(test)]
mod tests {
    use super::{kernel_filter, parse_source_page, table};

    #[test]
    fn the_kernel_filter_matches_every_instantiation_and_no_other_kernel() {
        let filter = kernel_filter("basic");
        let pattern = regex::Regex::new(filter.strip_prefix("regex:").unwrap()).unwrap();
        for entry in ["basic", "basic__BM_128__BK_64", "basic__T_bf16__N_m4"] {
            assert!(pattern.is_match(entry), "{entry}");
        }
        for entry in ["basicf", "basic_bm", "copy_basic", "basicf__BM_32"] {
            assert!(!pattern.is_match(entry), "{entry}");
        }
    }

    /// The shape of ncu 2025.3's `--page source --print-source cuda,sass --csv` (the
    /// header abridged to the columns read, in their order there).
    const PAGE: &str = r##""File Path","/work/gemm.cuk"
"Function Name","gemm_tn"
"Line No","Source","Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)","# Samples","Instructions Executed","L1 Wavefronts Shared","L1 Wavefronts Shared Ideal","stall_long_sb","stall_wait","stall_long_sb (Not Issued)"
"76","let first = u / per_band;","-","-","30","10","30","1,104","0","0","20","10","5"
"","","0x7fa9137a0000","      IMAD R1, R2, R3","30","10","30","1104","0","0","20","10","5"
"80","sC[i] = x;","-","-","90","0","90","2000","64","16","0","90","0"
"81","// nothing ran","-","-","0","0","0","0","0","0","0","0","0"
"##;

    #[test]
    fn the_source_page_gives_each_lines_sums_and_the_table_ranks_them() {
        let lines = parse_source_page(PAGE.as_bytes()).unwrap();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[&76].samples, 30.0);
        assert_eq!(lines[&76].instructions, 1104.0);
        assert_eq!(lines[&76].stalls["long_sb"], 20.0);
        assert!(!lines[&76].stalls.contains_key("long_sb (Not Issued)"));
        assert_eq!(lines[&80].wavefronts, (64.0, 16.0));
        let text = table(&lines, None, |line| format!("source {line}"));
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows.len(), 4, "{text}");
        assert!(
            rows[1].contains(" 25.0%") && rows[1].contains("long_sb 67%, wait 33%"),
            "{text}"
        );
        assert!(
            rows[2].contains(" 75.0%") && rows[2].contains("4.00x"),
            "{text}"
        );
        assert_eq!(rows[3], "120 warp-stall samples in all");
        let top = table(&lines, Some(1), |line| format!("source {line}"));
        assert!(
            top.contains("source 80") && !top.contains("source 76"),
            "{top}"
        );
        assert!(parse_source_page(b"\"Address\",\"Source\"\n").is_err());
    }
}
