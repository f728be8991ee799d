//! Blackwell's tcgen05 intrinsics under control flow: the warp's `.sync.aligned` ones
//! (tensor-memory allocation, the waits) need the whole warp, so under a branch that
//! splits a warp they are E0302 naming the intrinsic; one thread's (a commit, a fence)
//! may run in any lanes.

use cute::Target;

/// The diagnostics codes and messages of lowering `body` in an sm_100a kernel of 64
/// threads with a shared slot `slots` and an mbarrier `done`.
fn diagnostics(body: &str) -> Vec<(String, String)> {
    let source = format!(
        "kernel k(out: gmem u32[2:1]) launch grid(1) block(64) smem(auto) {{
    let slots = smem u32[2:1];
    let done = smem u64[1:1];
{body}
}}
"
    );
    let (module, errors) = grammar::parse(&source);
    assert!(errors.is_empty(), "{errors:?}");
    let lowered = typecheck::trace(&module, Target::Sm100a, |analysis, traces| {
        lower::lower_traces(analysis.diagnostics, &traces)
    });
    (lowered.diagnostics.iter())
        .map(|diagnostic| (diagnostic.code.to_owned(), diagnostic.message.clone()))
        .collect()
}

/// The E0302 messages of `body`.
fn split_warp_errors(body: &str) -> Vec<String> {
    (diagnostics(body).into_iter())
        .filter(|(code, _)| code == "E0302")
        .map(|(_, message)| message)
        .collect()
}

#[test]
fn the_warps_tcgen05_intrinsics_need_the_whole_warp() {
    let alloc = "    if thread_idx.x < 16 {
        tmem_alloc(slots, 0, 32);
        tmem_dealloc(slots[0], 32);
    }";
    let errors = split_warp_errors(alloc);
    assert!(
        errors
            .iter()
            .any(|message| message.contains("`tmem_alloc`"))
            && errors
                .iter()
                .any(|message| message.contains("`tmem_dealloc`")),
        "{errors:?}"
    );
    let wait = "    if thread_idx.x < 16 { tcgen05_wait_ld(); }";
    let errors = split_warp_errors(wait);
    assert!(
        errors
            .iter()
            .any(|message| message.contains("`tcgen05_wait_ld`")),
        "{errors:?}"
    );
    // A whole warp allocates and frees without complaint.
    let whole = "    if warp_idx == 1 {
        tmem_alloc(slots, 0, 32);
        tcgen05_fence_before_thread_sync();
        tmem_dealloc(slots[0], 32);
    }";
    assert_eq!(split_warp_errors(whole), Vec::<String>::new());
}

#[test]
fn one_threads_tcgen05_intrinsics_run_in_any_lanes() {
    let commit = "    if thread_idx.x == 0 {
        mbarrier_init(done, 0, 1);
        tcgen05_fence_after_thread_sync();
        tcgen05_commit(done, 0);
    }";
    assert_eq!(split_warp_errors(commit), Vec::<String>::new());
}
