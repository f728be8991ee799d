//! Test blocks appended to an example and run on the emulator: the bad-input tests of
//! the examples whose kernels check their data before a launch.

use crate::build::{cukc, root};

/// What a run printed: its exit code, standard output and standard error.
pub type Run = (Option<i32>, String, String);

/// The example `example` (a path from the repository's root) with `extra` appended,
/// tested on the emulator under the example's own file name, its blocks named `bad_*`
/// only.
pub fn run(example: &str, extra: &str) -> Run {
    let text = std::fs::read_to_string(root().join(example)).unwrap() + extra;
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join(file_name(example));
    std::fs::write(&file, text).unwrap();
    let output = cukc(&[
        "test",
        "--emulate",
        file.to_str().unwrap(),
        "--filter",
        "bad_",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), stdout, stderr)
}

/// Asserts that the run of `example` failed its one block with `error`, labelling line
/// `line` of the example, and saying `says`.
pub fn assert_refused(
    (code, stdout, stderr): Run,
    example: &str,
    error: &str,
    line: usize,
    says: &str,
) {
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!("error[{error}]")) || stderr.contains(&format!("[{error}] Error")),
        "{stdout}\n{stderr}"
    );
    assert!(
        stderr.contains(&format!("{}:{line}:", file_name(example)))
            || stderr.contains(&format!(" {line} │")),
        "line {line}:\n{stderr}"
    );
    assert!(
        stdout.contains(says) || stderr.contains(says),
        "{says}:\n{stdout}\n{stderr}"
    );
}

fn file_name(example: &str) -> &str {
    example.rsplit('/').next().unwrap_or(example)
}
