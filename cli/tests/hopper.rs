//! Hopper's asynchronous machinery (`tests/hopper/*.cuk`): the KIR of each file
//! (insta snapshots) with the instructions it must hold, its PTX assembled by the real
//! ptxas for sm_90a and sm_100a without local memory, and the diagnostics of an sm_80
//! build.

#[path = "support/build.rs"]
mod build;

use build::{assemble_without_local_memory, cukc, emit};

/// The files that build, with what their KIR must show.
const FILES: [(&str, &[&str]); 1] = [(
    "mbarrier_phases",
    &[
        "mbarrier.init.shared::cta.b64",
        "fence.mbarrier_init.release.cluster",
        "mbarrier.arrive.shared::cta.b64",
        "mbarrier.try_wait.parity.shared::cta.b64",
    ],
)];

#[test]
fn hopper_files_lower_to_ptx_that_ptxas_assembles() {
    for (name, expected) in FILES {
        let file = format!("tests/hopper/{name}.cuk");
        let kir = emit(&file, "sm_90a", "kir");
        for needle in expected {
            assert!(kir.contains(needle), "{file}: no `{needle}` in\n{kir}");
        }
        insta::assert_snapshot!(name, kir);
        for target in ["sm_90a", "sm_100a"] {
            let ptx = emit(&file, target, "ptx");
            assemble_without_local_memory(&ptx, target, &file);
        }
    }
}

#[test]
fn an_sm80_build_names_each_hopper_instruction_at_its_line() {
    let output = cukc(&[
        "build",
        "tests/hopper/mbarrier_phases.cuk",
        "--target",
        "sm_80",
        "--emit",
        "kir",
        "-o",
        "-",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    for (line, name) in [
        (12, "mbarrier_init"),
        (13, "fence_barrier_init"),
        (18, "mbarrier_arrive"),
    ] {
        assert!(
            stderr.contains(&format!("mbarrier_phases.cuk:{line}:")) && stderr.contains(name),
            "no E0212 for `{name}` at line {line}: {stderr}"
        );
    }
    assert!(stderr.contains("[E0212]"), "{stderr}");
}
