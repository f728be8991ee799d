//! ptxas's advice about wgmma, as warnings at the kernel (`W0301`). When code between
//! a wgmma and the wait that retires its group reads or writes the accumulators
//! (typically a branch inside the k-loop that zeroes or stores them), ptxas keeps the
//! kernel correct by waiting for every wgmma (`C7514`, "serialized"; `C7518` when the
//! wait it needs falls on a path that not every thread takes, `C7520` when a fence
//! does: an mbarrier wait between two wgmmas, say) or by inserting the waits
//! and fences itself (`C7517`, `C7519`); either way the tensor cores idle between
//! instructions, often at a fraction of their speed, and nothing else says so.

use kir::Verified;
use lang::Diagnostic;

/// The codes of ptxas's wgmma advice and what each means.
const ADVICE: [(&str, &str); 5] = [
    (
        "(C7514)",
        "ptxas runs its wgmmas one at a time (serialized)",
    ),
    (
        "(C7518)",
        "ptxas runs its wgmmas one at a time (serialized), for a wait it needed on a path not every thread takes",
    ),
    (
        "(C7520)",
        "ptxas runs its wgmmas one at a time (serialized), for a wgmma fence it needed on a path not every thread takes (an mbarrier wait or a branch between two wgmmas)",
    ),
    (
        "(C7517)",
        "ptxas inserted a wait for its wgmmas before registers they define are used",
    ),
    (
        "(C7519)",
        "ptxas inserted a wgmma fence before registers are used by a wgmma",
    ),
];

/// One `W0301` per kernel and kind of advice in ptxas's `log`.
pub fn warnings(log: &str, kernels: &[Verified]) -> Vec<Diagnostic> {
    let mut warnings: Vec<(String, &str)> = Vec::new();
    for line in log.lines() {
        let Some((_, meaning)) = ADVICE.iter().find(|(code, _)| line.contains(code)) else {
            continue;
        };
        let Some(entry) = line
            .rsplit_once("function '")
            .and_then(|(_, rest)| rest.split_once('\''))
            .map(|(entry, _)| entry.to_owned())
        else {
            continue;
        };
        if !warnings.contains(&(entry.clone(), meaning)) {
            warnings.push((entry, meaning));
        }
    }
    warnings
        .into_iter()
        .filter_map(|(entry, meaning)| {
            let kernel = kernels.iter().find(|kernel| kernel.signature.entry == entry)?;
            Some(
                Diagnostic::warning(
                    "W0301",
                    format!("kernel `{entry}`: {meaning}, so the tensor cores wait between them"),
                )
                .with_primary(kernel.span, "its wgmmas are slowed")
                .with_note("some code between a wgmma and the `wgmma_wait_group` that retires it reads or writes its accumulators (a branch inside the k-loop that zeroes or stores them, say), or code not every thread runs (an mbarrier wait) lies between two wgmmas")
                .with_help("keep the accumulators untouched until `wgmma_wait_group(0)` after the k-loop, and start a tile with `gemm(..., accumulate = false)` rather than zeroing them in the loop"),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advice_lines_name_their_function_and_repeat_once() {
        let log = "ptxas info    : (C7517) warpgroup.wait is injected in around line 823 by compiler to allow use of registers defined by GMMA in function 'k__N_64'\nptxas info    : (C7517) warpgroup.wait is injected in around line 900 by compiler to allow use of registers defined by GMMA in function 'k__N_64'\nptxas info    : (C7518) Potential Performance Loss: wgmma.mma_async instructions are serialized due to program dependence on compiler-inserted WG.DP in divergent path in the function 'attention'\nptxas info    : (C7520) Potential Performance Loss: wgmma.mma_async instructions are serialized due to program dependence on compiler-inserted WG.AR in divergent path in the function 'attention'\nptxas info    : 0 bytes gmem";
        let mut found = Vec::new();
        for line in log.lines() {
            if let Some((code, _)) = ADVICE.iter().find(|(code, _)| line.contains(code)) {
                found.push(*code);
            }
        }
        assert_eq!(found, ["(C7517)", "(C7517)", "(C7518)", "(C7520)"]);
        // No kernel of that entry: no warning (and nothing panics).
        assert!(warnings(log, &[]).is_empty());
    }
}
