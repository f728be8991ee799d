//! `cukc test --emulate` on every file whose tests must pass (every example, the guide's
//! steps in `docs/guide/`, `tests/control/`, `tests/miscompiles/`, `tests/hopper/` and
//! `tests/blackwell/`, each for the target its first line names): every block runs its
//! kernels on the CPU emulator and passes, so CI, which has no GPU, runs them all (a file
//! without test blocks, such as `tests/control/integers.cuk`, is checked by
//! `emulator/tests/control.rs` against a Rust reference instead). And the planted bugs
//! of `tests/emulator/` fail with the diagnostic their first line expects.

#[path = "support/build.rs"]
mod build;

use std::path::Path;

use build::{cukc, root};

/// The `.cuk` files of `folder`, sorted, but those named in `except`.
fn cuk_files(folder: &str, except: &[&str]) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(root().join(folder))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".cuk") && !except.contains(&name.as_str()))
        .map(|name| format!("{folder}/{name}"))
        .collect();
    files.sort();
    files
}

/// The target line `line` of a file's text names (`// target: sm_100a`), sm_90a (the
/// default) without one.
fn header_target(text: &str, line: usize) -> &str {
    text.lines()
        .nth(line)
        .and_then(|line| line.strip_prefix("// target: "))
        .map_or("sm_90a", str::trim)
}

#[test]
fn every_test_block_passes_on_the_emulator() {
    let mut files = cuk_files("cuk-examples", &[]);
    files.extend(cuk_files("docs/guide", &[]));
    // The divergent shuffle is a build error by design (cli/tests/control_flow.rs).
    files.extend(cuk_files("tests/control", &["divergent_shuffle.cuk"]));
    files.extend(cuk_files("tests/miscompiles", &[]));
    // Hopper's machinery (sm_90a, the default target); the split warpgroup is a build
    // error by design and the serialized wgmma a warning with no tests
    // (cli/tests/hopper.rs).
    files.extend(cuk_files(
        "tests/hopper",
        &["wgmma_split_warpgroup.cuk", "wgmma_serialized.cuk"],
    ));
    // Blackwell's (sm_100a); the planted bugs are in tests/emulator, and a register read
    // before its load's wait and the tensor-memory breaches are build errors by design
    // (cli/tests/blackwell.rs).
    files.extend(cuk_files(
        "tests/blackwell",
        &["tmem_read_before_wait.cuk", "tmem_breaches.cuk"],
    ));
    let mut blocks = 0;
    for file in &files {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        let output = cukc(&[
            "test",
            "--emulate",
            file,
            "--target",
            header_target(&text, 0),
        ]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{file}:\n{stdout}\n{stderr}");
        assert!(
            stderr.contains("--emulate: kernels run on the CPU emulator")
                || stderr.contains("no GPU"),
            "{stderr}"
        );
        let lines: Vec<&str> = stdout
            .lines()
            .filter(|line| line.starts_with("test "))
            .collect();
        // A test too large to emulate says so (`gpu_only()`) and is skipped.
        let gpu_only = "skipped: gpu_only(): the block runs only on a GPU";
        let skipped = lines.iter().filter(|line| line.ends_with(gpu_only)).count();
        for line in &lines {
            assert!(
                (line.contains(" ... ok (") && line.contains("emulated: "))
                    || line.ends_with(gpu_only),
                "{file}: {line}"
            );
        }
        let passed = lines.len() - skipped;
        let summary = match skipped {
            0 => format!("{passed} passed, 0 failed"),
            _ => format!("{passed} passed, 0 failed, {skipped} skipped"),
        };
        assert!(stdout.contains(&summary), "{file}:\n{stdout}");
        blocks += passed;
    }
    assert!(blocks >= 33, "only {blocks} test blocks ran");
}

#[test]
fn planted_bugs_fail_with_the_expected_diagnostic() {
    for file in cuk_files("tests/emulator", &["cp_async_stale_data.cuk"]) {
        let text = std::fs::read_to_string(root().join(&file)).unwrap();
        let header = text.lines().next().unwrap();
        let code = &header.split_once("error[").unwrap().1[..5];
        let lines: Vec<&str> = header
            .split("line ")
            .skip(1)
            .map(|rest| rest.split(|c: char| !c.is_ascii_digit()).next().unwrap())
            .collect();
        // A second header line may name the target (`// target: sm_100a`).
        let output = cukc(&[
            "test",
            "--emulate",
            &file,
            "--target",
            header_target(&text, 1),
        ]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{file}:\n{stdout}\n{stderr}");
        assert!(
            stdout.contains(&format!("error[{code}]")),
            "{file}:\n{stdout}"
        );
        assert!(stdout.contains("1 failed"), "{file}:\n{stdout}");
        // The rendered diagnostic labels each line the file names.
        assert!(
            stderr.contains(&format!("[{code}] Error")),
            "{file}:\n{stderr}"
        );
        let name = Path::new(&file)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for line in lines {
            assert!(
                stderr.contains(&format!("{name}:{line}:"))
                    || stderr.contains(&format!(" {line} │")),
                "{file}: line {line}\n{stderr}"
            );
        }
    }
    let output = cukc(&[
        "test",
        "--emulate",
        "tests/emulator/cp_async_stale_data.cuk",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("FAILED") && stdout.contains("assert_close"),
        "{stdout}"
    );
}

/// `cukc test --emulate` on `tests/hopper/wgmma_tile.cuk` changed by `edit`: its output.
fn wgmma_tile_edited(name: &str, edit: impl Fn(&str) -> String) -> (bool, String) {
    let text = std::fs::read_to_string(root().join("tests/hopper/wgmma_tile.cuk")).unwrap();
    let folder = std::env::temp_dir().join(format!("cuk-fence-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("wgmma_tile.cuk");
    std::fs::write(&path, edit(&text)).unwrap();
    let output = cukc(&["test", "--emulate", path.to_str().unwrap()]);
    std::fs::remove_dir_all(&folder).ok();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

#[test]
fn accumulators_chained_through_a_loop_need_one_fence_and_a_write_after_it_is_e0419() {
    // The fence before the k-loop only: each wgmma reads the accumulators the last one
    // wrote, carried by the loop, which the PTX ISA orders without a fence.
    let (passed, output) = wgmma_tile_edited("hoisted", |text| {
        text.replacen("        wgmma_fence();\n", "", 1).replacen(
            "    for kt in",
            "    wgmma_fence();\n    for kt in",
            1,
        )
    });
    assert!(passed, "{output}");
    // A write to the accumulators after the fence, before the wgmma that adds to them.
    let (passed, output) = wgmma_tile_edited("scaled", |text| {
        text.replacen(
            "        wgmma_fence();\n",
            "        wgmma_fence();\n        acc[0] = acc[0] * 2.0;\n",
            1,
        )
    });
    assert!(!passed && output.contains("error[E0419]"), "{output}");
}

#[test]
fn emulate_and_gpu_exclude_each_other() {
    let output = cukc(&["test", "--emulate", "--gpu", "cuk-examples/axpy.cuk"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_tensor_read_through_another_layout_than_its_own_is_refused() {
    let output = cukc(&[
        "test",
        "--emulate",
        "tests/harness/column_major_parameter.cuk",
    ]);
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{text}");
    assert!(
        text.contains("`a` is read through the layout (64, 8):(1, 64), but the test's tensors are dense and row-major, so this one of shape (64, 8) is (64, 8):(8, 1)"),
        "{text}"
    );
}
