//! The real ptxas, obtained the way a fresh machine gets it: from `--ptxas`-less
//! discovery over this process's environment, with `<workspace>/target/cukc-cache`
//! as the cache, so that on a machine with no CUDA the package
//! `nvidia-cuda-nvcc-cu12` is installed there with pip on first use. Hand-written
//! PTX is assembled for every target, and a broken kernel's errors must name its
//! PTX lines.

#[path = "../../tests/support/ptxas.rs"]
mod support_ptxas;

use backend_ptx::ptxas::{AssembleOptions, PtxasFailure, Severity, TARGETS};
use support_ptxas::ptxas;

/// A kernel that copies one f32 per thread through shared memory, with `.loc`
/// line information, for `target` at PTX ISA `version`.
fn copy_kernel(target: &str, version: &str) -> String {
    format!(
        r#".version {version}
.target {target}
.address_size 64

.file 1 "copy.cuk"

.visible .entry copy_f32(
    .param .u64 src,
    .param .u64 dst
)
{{
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    .reg .f32 %f<2>;
    .shared .align 16 .b8 tile[512];

    .loc 1 3 5
    ld.param.u64 %rd1, [src];
    ld.param.u64 %rd2, [dst];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    .loc 1 4 5
    ld.global.f32 %f1, [%rd4];
    mov.u64 %rd6, tile;
    add.s64 %rd7, %rd6, %rd3;
    st.shared.f32 [%rd7], %f1;
    bar.sync 0;
    ld.shared.f32 %f1, [%rd7];
    add.s64 %rd5, %rd2, %rd3;
    st.global.f32 [%rd5], %f1;
    ret;
}}
"#
    )
}

/// The PTX ISA each target needs: sm_100a arrived with ISA 8.6 (CUDA 12.7+).
fn isa(target: &str) -> &'static str {
    if target == "sm_100a" { "8.7" } else { "8.0" }
}

#[test]
fn every_target_assembles_a_copy_kernel() {
    let ptxas = ptxas();
    eprintln!(
        "ptxas {} at {} ({})",
        ptxas.version,
        ptxas.path.display(),
        ptxas.source
    );
    let options = AssembleOptions {
        line_info: true,
        verbose: true,
        ..AssembleOptions::default()
    };
    for (target, _) in TARGETS {
        assert!(
            ptxas.supports(target),
            "ptxas {} at {} cannot assemble {target}: set CUKC_PTXAS to a ptxas 12.8 or newer",
            ptxas.version,
            ptxas.path.display()
        );
        let assembled = ptxas
            .assemble(&copy_kernel(target, isa(target)), target, &options)
            .unwrap_or_else(|failure| panic!("{target}: {failure}"));
        assert_eq!(
            &assembled.cubin[..4],
            b"\x7fELF",
            "{target}: not an ELF cubin"
        );
        assert!(
            assembled.warnings.is_empty(),
            "{target}: {:?}",
            assembled.warnings
        );
        let kernel = assembled
            .resources
            .iter()
            .find(|function| function.name == "copy_f32")
            .unwrap_or_else(|| panic!("{target}: no resources in\n{}", assembled.log));
        assert!(kernel.is_entry);
        assert_eq!(kernel.shared, 512, "{target}");
        assert!(kernel.registers > 0, "{target}");
        assert!(kernel.uses_no_local_memory(), "{target}: {kernel:?}");
    }
}

#[test]
fn a_local_array_shows_up_as_stack_frame() {
    let ptx = r#".version 8.0
.target sm_80
.address_size 64

.visible .entry local_array(
    .param .u64 dst
)
{
    .local .align 4 .b8 buffer[256];
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    mov.u32 %r1, %tid.x;
    mov.u64 %rd1, buffer;
    and.b32 %r2, %r1, 63;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.local.u32 [%rd3], %r1;
    xor.b32 %r3, %r2, 7;
    mul.wide.u32 %rd4, %r3, 4;
    add.s64 %rd5, %rd1, %rd4;
    ld.local.u32 %r4, [%rd5];
    ld.param.u64 %rd6, [dst];
    st.global.u32 [%rd6], %r4;
    ret;
}
"#;
    let options = AssembleOptions {
        verbose: true,
        ..AssembleOptions::default()
    };
    let assembled = ptxas()
        .assemble(ptx, "sm_80", &options)
        .unwrap_or_else(|failure| panic!("{failure}"));
    let kernel = &assembled.resources[0];
    assert_eq!(kernel.name, "local_array");
    assert_eq!(kernel.stack_frame, 256);
    assert!(!kernel.uses_no_local_memory());
}

#[test]
fn errors_name_the_ptx_line() {
    let broken = ".version 8.0\n\
                  .target sm_80\n\
                  .address_size 64\n\
                  \n\
                  .visible .entry broken(\n\
                  \x20   .param .u64 src\n\
                  )\n\
                  {\n\
                  \x20   .reg .b32 %r<4>;\n\
                  \x20   mov.u32 %r1, %tid.x;\n\
                  \x20   add.u32 %r2, %r1, %r9;\n\
                  \x20   frobnicate.u32 %r3, %r1;\n\
                  \x20   ret;\n\
                  }\n";
    let failure = ptxas()
        .assemble(broken, "sm_90a", &AssembleOptions::default())
        .expect_err("the kernel is broken");
    assert!(
        matches!(failure, PtxasFailure::Rejected { .. }),
        "{failure}"
    );
    let errors: Vec<_> = failure
        .errors()
        .filter(|message| message.severity == Severity::Error)
        .map(|message| (message.line, message.message.as_str()))
        .collect();
    assert!(
        errors.contains(&(
            Some(12),
            "Not a name of any known instruction: 'frobnicate'"
        )),
        "{errors:?}"
    );
    assert!(
        errors.contains(&(Some(11), "Unknown symbol '%r9'")),
        "{errors:?}"
    );
    assert!(
        errors.iter().all(|(line, _)| matches!(line, Some(11 | 12))),
        "{errors:?}"
    );
    assert!(
        failure
            .to_string()
            .contains("PTX line 12: error: Not a name of any known instruction")
    );
}

#[test]
fn a_target_ptxas_does_not_know_is_rejected_with_its_words() {
    let failure = ptxas()
        .assemble(
            &copy_kernel("sm_80", "8.0"),
            "sm_99",
            &AssembleOptions::default(),
        )
        .expect_err("there is no sm_99");
    let fatal: Vec<_> = failure
        .errors()
        .filter(|message| message.severity == Severity::Fatal)
        .collect();
    assert_eq!(fatal.len(), 1, "{failure}");
    assert!(fatal[0].message.contains("sm_99"), "{failure}");
    assert_eq!(fatal[0].line, None);
}
