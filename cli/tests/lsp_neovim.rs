//! A real client: headless Neovim opens a `.cuk` file with a mistake through
//! `cukc lsp` (`editors/nvim/test.sh`), and the diagnostics and hover it received
//! are checked here. When Neovim cannot be installed (not root, no apt-get) the
//! test says SKIP loudly and passes.

use std::path::Path;
use std::process::Command;

const EXAMPLE: &str = include_str!("../../cuk-examples/copy_vectorized.cuk");

#[test]
fn neovim_receives_the_diagnostics_and_hovers_of_cukc_lsp() {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let file = directory.path().join("broken.cuk");
    let broken = EXAMPLE.replace("partition_D(sA)", "partition_D(sAx)");
    std::fs::write(&file, &broken).expect("the test file is written");
    let out = directory.path().join("received.txt");
    let error_line = 1 + broken[..broken.find("sAx").unwrap_or(0)]
        .matches('\n')
        .count();
    let error_column = 1 + broken[..broken.find("sAx").unwrap_or(0)]
        .rsplit('\n')
        .next()
        .map_or(0, str::len);
    // Hover on the use of `tAgA` in `copy(tiled_copy, tAgA, tAsA)`.
    let use_offset = broken.match_indices("tAgA").nth(1).map_or(0, |(o, _)| o);
    let hover_line = broken[..use_offset].matches('\n').count();
    let hover_column = broken[..use_offset].rsplit('\n').next().map_or(0, str::len);

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../editors/nvim/test.sh");
    let status = Command::new("bash")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_cukc"))
        .arg(&file)
        .arg(&out)
        .arg(hover_line.to_string())
        .arg(hover_column.to_string())
        .status()
        .expect("bash runs editors/nvim/test.sh");
    if status.code() == Some(77) {
        eprintln!(
            "\n======================================================================\n\
             SKIP: neovim_receives_the_diagnostics_and_hovers_of_cukc_lsp: Neovim is not\n\
             installed and cannot be here (needs root and apt-get); see editors/nvim/test.sh\n\
             ======================================================================\n"
        );
        return;
    }
    assert!(status.success(), "editors/nvim/test.sh failed: {status:?}");
    let received = std::fs::read_to_string(&out).expect("Neovim wrote what it received");
    let mut lines = received.lines();
    let diagnostic = lines.next().unwrap_or_default();
    assert_eq!(
        diagnostic,
        format!(
            "{error_line}:{error_column}:E0201:cannot find `sAx` in this scope | help: did you mean `sA`?"
        ),
        "Neovim received:\n{received}"
    );
    assert_eq!(lines.next(), Some("hover:"), "Neovim received:\n{received}");
    let hover: Vec<&str> = lines.collect();
    assert!(
        hover.iter().any(|line| line
            .starts_with("let tAgA: gmem bf16 tensor = ((8,1),2,1):((1,0),16*k,0) @ offset ")),
        "Neovim received:\n{received}"
    );
}
