//! The text form of Blackwell's (sm_100a) effects: tensor-memory allocations, tcgen05
//! MMAs, tensor-memory moves, commits, each with `, pair = true` for a CTA pair's
//! (`cta_group::2`), as the source writes them.

use cute::Tensor;
use layout::SymInt;

use super::{tensor, term};
use crate::{Effect, Term, Tmem, UmmaA};

/// A tcgen05 MMA, a tensor-memory move or a tensor-memory allocation or release.
pub(super) fn header(effect: &Effect) -> String {
    match effect {
        Effect::Tcgen05Mma {
            pair,
            taddr,
            a,
            b,
            accumulate,
            ..
        } => format!(
            "tcgen05_mma({}, {}, {}, {}{})",
            term(taddr),
            match a {
                UmmaA::Shared(a) => tensor(a),
                UmmaA::Tmem(address) => format!("tmem {}", term(address)),
            },
            tensor(b),
            term(accumulate),
            pair_text(*pair)
        ),
        Effect::TmemCopy {
            load: true,
            shape,
            fragment,
            taddr,
            ..
        } => format!("tcgen05_ld_{shape}({}, {})", tensor(fragment), term(taddr)),
        Effect::TmemCopy {
            shape,
            fragment,
            taddr,
            ..
        } => format!("tcgen05_st_{shape}({}, {})", term(taddr), tensor(fragment)),
        Effect::Tmem {
            action: Tmem::Alloc { slot, index },
            pair,
            columns,
            ..
        } => format!(
            "tmem_alloc({}[{index}], {columns}{})",
            tensor(slot),
            pair_text(*pair)
        ),
        Effect::Tmem {
            action: Tmem::Dealloc { address },
            pair,
            columns,
            ..
        } => format!(
            "tmem_dealloc({}, {columns}{})",
            term(address),
            pair_text(*pair)
        ),
        _ => String::new(),
    }
}

/// `tcgen05_commit(barriers[index], multicast = mask, pair = true)`.
pub(super) fn commit(
    (barriers, index): (&Tensor, &SymInt),
    mask: Option<&Term>,
    pair: bool,
) -> String {
    let mask = mask.map_or(String::new(), |mask| {
        format!(", multicast = {}", term(mask))
    });
    format!(
        "tcgen05_commit({}[{index}]{mask}{})",
        tensor(barriers),
        pair_text(pair)
    )
}

/// `, pair = true` for a CTA pair's instruction, nothing otherwise.
pub(super) fn pair_text(pair: bool) -> &'static str {
    if pair { ", pair = true" } else { "" }
}
