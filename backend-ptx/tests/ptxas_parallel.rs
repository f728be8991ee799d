//! Assembling many PTX texts at once with the real ptxas: one process per text, the
//! results in the order given (a rejected text in the middle fails alone), the cache
//! answering the second time without running ptxas, and `-split-compile` making the
//! same cubin as one thread does.

#[path = "../../tests/support/ptxas.rs"]
mod support_ptxas;

use backend_ptx::ptxas::{AssembleOptions, AssemblyCache, PtxasFailure};
use support_ptxas::ptxas;

/// A kernel named `name` that stores `value` through its one parameter, with `words`
/// words of static shared memory (so each text's cubin and resources are its own).
fn store_kernel(name: &str, value: u32, words: u32) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n\
         .visible .entry {name}(.param .u64 dst)\n{{\n\
         \x20   .shared .align 4 .b32 scratch[{words}];\n\
         \x20   .reg .b32 %r<4>;\n\
         \x20   .reg .b64 %rd<4>;\n\
         \x20   mov.u32 %r1, {value};\n\
         \x20   st.shared.u32 [scratch], %r1;\n\
         \x20   ld.shared.u32 %r2, [scratch];\n\
         \x20   ld.param.u64 %rd1, [dst];\n\
         \x20   cvta.to.global.u64 %rd2, %rd1;\n\
         \x20   st.global.u32 [%rd2], %r2;\n\
         \x20   ret;\n}}\n"
    )
}

fn verbose() -> AssembleOptions {
    AssembleOptions {
        verbose: true,
        ..AssembleOptions::default()
    }
}

#[test]
fn many_texts_come_back_in_order_and_from_the_cache_the_second_time() {
    let texts: Vec<String> = (0..6)
        .map(|index| store_kernel(&format!("store_{index}"), index, 8 * (index + 1)))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let cache = AssemblyCache::in_cache_dir(dir.path());
    let first = ptxas().assemble_each(&texts, "sm_80", &verbose(), Some(&cache));
    let second = ptxas().assemble_each(&texts, "sm_80", &verbose(), Some(&cache));
    for (index, (made, again)) in first.iter().zip(&second).enumerate() {
        let made = made.as_ref().unwrap_or_else(|failure| panic!("{failure}"));
        let again = again.as_ref().unwrap_or_else(|failure| panic!("{failure}"));
        assert!(!made.cached && again.cached, "text {index}");
        assert_eq!(made.cubin, again.cubin, "text {index}");
        let resources = &again.resources[0];
        assert_eq!(resources.name, format!("store_{index}"));
        assert_eq!(resources.shared, 32 * (index as u64 + 1));
    }
    let entries = std::fs::read_dir(cache.dir()).unwrap().count();
    assert_eq!(entries, 2 * texts.len(), "a cubin and a log per text");
}

#[test]
fn a_rejected_text_fails_alone_and_is_not_cached() {
    let texts = [
        store_kernel("good_a", 1, 4),
        store_kernel("bad", 2, 4).replace("mov.u32 %r1", "frobnicate.u32 %r1"),
        store_kernel("good_b", 3, 4),
    ];
    let dir = tempfile::tempdir().unwrap();
    let cache = AssemblyCache::in_cache_dir(dir.path());
    let results = ptxas().assemble_each(&texts, "sm_80", &verbose(), Some(&cache));
    assert_eq!(results[0].as_ref().unwrap().resources[0].name, "good_a");
    assert!(matches!(results[1], Err(PtxasFailure::Rejected { .. })));
    assert_eq!(results[2].as_ref().unwrap().resources[0].name, "good_b");
    let again = ptxas().assemble_cached(&texts[1], "sm_80", &verbose(), Some(&cache));
    assert!(
        again.is_err(),
        "a failure is assembled again, not remembered"
    );
}

#[test]
fn split_compilation_makes_the_same_cubin() {
    let module: String = (0..3)
        .map(|index| {
            let kernel = store_kernel(&format!("split_{index}"), index, 4);
            kernel
                .split_once(".address_size 64\n")
                .unwrap()
                .1
                .to_owned()
        })
        .collect();
    let module = format!(".version 8.0\n.target sm_80\n.address_size 64\n{module}");
    let serial = ptxas()
        .assemble(&module, "sm_80", &AssembleOptions::default())
        .unwrap_or_else(|failure| panic!("{failure}"));
    let split = AssembleOptions {
        split_compile: Some(0),
        ..AssembleOptions::default()
    };
    let parallel = ptxas()
        .assemble(&module, "sm_80", &split)
        .unwrap_or_else(|failure| panic!("{failure}"));
    assert_eq!(serial.cubin, parallel.cubin);
}
