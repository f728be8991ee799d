//! `elect_one()` is a warp collective whose result differs between lanes: under a branch
//! that splits a warp it is E0302, and a value computed from it is divergent (a branch on
//! it is no `bra.uni`).

#[path = "support/lower.rs"]
mod support;

use support::{kir_text, lowered};

const SOURCE: &str = "kernel k(out: gmem i32[64:1]) launch grid(1) block(64) {
    if CONDITION {
        if elect_one() {
            out[thread_idx.x] = 1;
        }
    }
}
";

#[test]
fn elect_one_needs_its_whole_warp() {
    let split = SOURCE.replace("CONDITION", "thread_idx.x < 16");
    let lowered = lowered(&split);
    let e0302 = (lowered.diagnostics.iter())
        .find(|diagnostic| diagnostic.code == "E0302")
        .unwrap_or_else(|| panic!("{:#?}", lowered.diagnostics));
    assert!(e0302.message.contains("`elect_one`"), "{}", e0302.message);
    // Whole warps are fine, and the branch on the elected lane is divergent.
    let text = kir_text(&SOURCE.replace("CONDITION", "thread_idx.x < 32"));
    let elected = (text.lines())
        .find(|line| line.contains(":pred = elect_one "))
        .and_then(|line| line.split(':').next())
        .map(|value| value.trim().to_owned());
    let elected = elected.unwrap_or_else(|| panic!("no elect_one in\n{text}"));
    let branch = text
        .lines()
        .find(|line| line.trim().starts_with(&format!("if {elected} ")));
    let branch = branch.unwrap_or_else(|| panic!("no branch on {elected} in\n{text}"));
    assert!(!branch.contains("uniform"), "{branch}");
}
