//! The verifier's rules for a warp atom's description ([`crate::warp`]): that its
//! layouts fit the instruction, so that whatever executes it (the emulator) can index
//! by them without checking again.
//!
//! Every layout has the warp's 32 threads and at most [`MAX_VALUES`] values per thread,
//! with elements below [`MAX_ELEMENTS`]. A copy has one side in memory (an address
//! operand named `src` or `dst`) and the other in registers (the list `src` or the
//! output `dst`), as many 32-bit words there as its values of `element` fill, and every
//! element its destination receives held by its source. An MMA reads the lists `a`,
//! `b` and `c` and defines `d`, each as many words as its layout's values fill, and its
//! layouts give each element of A, B and C to exactly one `(thread, value)`.

use super::VerifyError;
use crate::intrinsic::Scope;
use crate::ir::{Inst, Op, Ty};
use crate::warp::{TvLayout, WARP_LANES, WarpAtom};

/// The most values a thread may have in one warp atom.
pub const MAX_VALUES: u64 = 256;

/// The most elements a warp atom may address (`M x K` for an MMA, say).
pub const MAX_ELEMENTS: u64 = 1 << 16;

/// Checks `inst`'s warp description, if it has one.
pub(super) fn check_warp(inst: &Inst, valid: &mut Vec<WarpAtom>) -> Result<(), VerifyError> {
    let Op::Atom {
        operands,
        registers,
        output,
        warp: Some(warp),
        scope,
        ..
    } = &inst.op
    else {
        return Ok(());
    };
    if *scope != Scope::Warp {
        return Err(format!(
            "an atom with a warp description is a warp's (`atom.warp`), not a {}'s",
            scope.name()
        )
        .into());
    }
    let list = |name: &str| {
        registers
            .iter()
            .find(|(list, _)| list == name)
            .map(|(_, values)| values.len())
    };
    let address = |name: &str| operands.iter().any(|(operand, ..)| operand == name);
    let output_is = |name: &str| output.as_deref() == Some(name);
    let results = inst.results.len();
    match warp.as_ref() {
        WarpAtom::Copy { element, src, dst } => {
            let (src_words, dst_words) = (words(src, *element)?, words(dst, *element)?);
            let loads = address("src") && output_is("dst") && results == dst_words;
            let stores = address("dst") && list("src") == Some(src_words);
            if !(loads || stores) {
                return Err(format!(
                    "a warp copy moves between an address and {src_words} or {dst_words} register words: `src` and `dst` as an address operand and a register list or the output"
                ).into());
            }
            if !valid.contains(warp) {
                let mut held = vec![false; MAX_ELEMENTS as usize];
                for element in src.table() {
                    held[element as usize] = true;
                }
                if dst.table().iter().any(|element| !held[*element as usize]) {
                    return Err(
                        "a warp copy's destination receives an element its source does not hold"
                            .to_owned()
                            .into(),
                    );
                }
                valid.push(warp.as_ref().clone());
            }
            Ok(())
        }
        WarpAtom::Mma {
            shape: [m, n, k],
            types: [d_ty, a_ty, b_ty, c_ty],
            a,
            b,
            c,
        } => {
            let lists = [
                ("a", a, *a_ty, m * k),
                ("b", b, *b_ty, n * k),
                ("c", c, *c_ty, m * n),
            ];
            for (name, layout, element, size) in lists {
                if list(name) != Some(words(layout, element)?) {
                    return Err(format!(
                        "an MMA's register list `{name}` holds {} words of {}",
                        words(layout, element)?,
                        element.name()
                    )
                    .into());
                }
                if !valid.contains(warp) {
                    covers_once(layout, u64::from(size), name)?;
                }
            }
            if !output_is("d") || results != words(c, *d_ty)? {
                return Err(format!(
                    "an MMA defines `d`, {} words of {}",
                    words(c, *d_ty)?,
                    d_ty.name()
                )
                .into());
            }
            if !valid.contains(warp) {
                valid.push(warp.as_ref().clone());
            }
            Ok(())
        }
    }
}

/// The 32-bit words a thread's values of `element` fill, after checking `layout`'s
/// extents.
fn words(layout: &TvLayout, element: Ty) -> Result<usize, VerifyError> {
    if layout.threads() != u64::from(WARP_LANES) {
        return Err(format!(
            "a warp atom's layout `{layout}` has {} threads, not {WARP_LANES}",
            layout.threads()
        )
        .into());
    }
    if layout.values() == 0 || layout.values() > MAX_VALUES {
        return Err(format!(
            "a warp atom's layout `{layout}` has {} values per thread (1 to {MAX_VALUES})",
            layout.values()
        )
        .into());
    }
    let largest = [&layout.thread, &layout.value]
        .into_iter()
        .flatten()
        .map(|mode| u64::from(mode.extent.saturating_sub(1)) * u64::from(mode.stride))
        .fold(0u64, u64::saturating_add);
    if largest >= MAX_ELEMENTS {
        return Err(format!(
            "a warp atom's layout `{layout}` reaches element {largest} (at most {})",
            MAX_ELEMENTS - 1
        )
        .into());
    }
    let bits = layout.values() * u64::from(element.bits());
    if !matches!(element.bits(), 16 | 32) || !bits.is_multiple_of(32) {
        return Err(format!(
            "{} values of {} do not fill 32-bit words",
            layout.values(),
            element.name()
        )
        .into());
    }
    Ok((bits / 32) as usize)
}

/// Checks that `layout` gives each of `size` elements to exactly one place.
fn covers_once(layout: &TvLayout, size: u64, name: &str) -> Result<(), VerifyError> {
    let mut table = layout.table();
    table.sort_unstable();
    if table.iter().copied().eq(0..size) {
        Ok(())
    } else {
        Err(format!(
            "an MMA's layout `{name}` = `{layout}` does not give each of its {size} elements to one thread value"
        ).into())
    }
}
