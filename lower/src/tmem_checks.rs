//! Tensor memory's rules that a trace shows before anything runs (PTX ISA,
//! `tcgen05` "Tensor Memory", and HOPPER-BLACKWELL.md D.3), each E0227 at the line:
//!
//! - **Quadrants.** Warp `w` may move only lanes `32 (w % 4)` to `32 (w % 4) + 31`,
//!   and a `.sync.aligned` move takes one address for the whole warp. A move's address
//!   is evaluated for every thread of the block when it is a function of the thread's
//!   indices and of addresses `tmem_alloc` wrote (an allocation's lane is 0; its column
//!   does not reach the lane bits); the branches around the move are evaluated the same
//!   way, and a thread counts only where they are known to let it through. A move whose
//!   address needs anything else (a loop counter, a parameter) is left to the emulator.
//! - **Freeing.** Every allocation needs a `tmem_dealloc` of as many columns in the
//!   kernel: a block must free its tensor memory before it exits. Which path frees it
//!   is the emulator's to check; an allocation no call frees at all is an error here.

use std::collections::HashSet;

use lang::{Diagnostic, Span};
use layout::SymInt;
use trace::{Effect, KernelTrace, Term, Tmem};

use crate::known::truth;

/// E0227 for each tensor-memory move outside its warp's quadrant, or not one address
/// for the warp, and each allocation the kernel never frees.
pub(crate) fn tmem_breaches(trace: &KernelTrace) -> Vec<Diagnostic> {
    let Some(threads) = block_threads(trace) else {
        return Vec::new();
    };
    let mut walk = Walk {
        kernel: &trace.name,
        threads,
        slots: Vec::new(),
        bases: HashSet::new(),
        allocations: Vec::new(),
        frees: Vec::new(),
        reported: HashSet::new(),
        diagnostics: Vec::new(),
    };
    walk.effects(&trace.effects, &mut Vec::new());
    walk.unfreed();
    walk.diagnostics
}

/// Every thread's `(x, y, z)` index, in linear order, when the block's extents are
/// constants.
fn block_threads(trace: &KernelTrace) -> Option<Vec<[i64; 3]>> {
    let mut extents = [1; 3];
    for (extent, given) in extents.iter_mut().zip(&trace.block) {
        *extent = given.as_constant()?;
    }
    let [x, y, z] = extents;
    Some(
        (0..z)
            .flat_map(|k| (0..y).flat_map(move |j| (0..x).map(move |i| [i, j, k])))
            .collect(),
    )
}

/// The state of one walk over a kernel's effects.
struct Walk<'t> {
    kernel: &'t str,
    threads: Vec<[i64; 3]>,
    /// Where allocations write their addresses: a shared tensor and a layout value.
    slots: Vec<(&'t cute::Tensor, &'t SymInt)>,
    /// The variables that hold a load of an allocation's address.
    bases: HashSet<&'t str>,
    /// Each allocation's columns and call.
    allocations: Vec<(i64, Span)>,
    /// Each release's columns.
    frees: Vec<i64>,
    reported: HashSet<Span>,
    diagnostics: Vec<Diagnostic>,
}

impl<'t> Walk<'t> {
    /// Walks `effects` under the branch `conditions` (each with the side taken).
    fn effects(&mut self, effects: &'t [Effect], conditions: &mut Vec<(&'t Term, bool)>) {
        for effect in effects {
            match effect {
                Effect::Tmem {
                    action,
                    columns,
                    span,
                    ..
                } => match action {
                    Tmem::Alloc { slot, index } => {
                        self.slots.push((slot, index));
                        self.allocations.push((*columns, *span));
                    }
                    Tmem::Dealloc { .. } => self.frees.push(*columns),
                },
                Effect::Load {
                    tensor,
                    index: Some(index),
                    variable: Some(variable),
                    ..
                } if (self.slots.iter()).any(|(slot, at)| **slot == **tensor && *at == index) => {
                    self.bases.insert(variable);
                }
                // `slot[0].to(i32)`: an allocation's address (below 2^31) converted.
                Effect::Define {
                    variable, value, ..
                } if matches!(value.as_ref(), Term::Convert(_, operand)
                    if matches!(operand.as_ref(), Term::Int(base, _)
                        if base.variables().iter().all(|name| self.bases.contains(name.as_str()))
                            && base.split_constant() == (base.clone(), 0)
                            && !base.variables().is_empty())) =>
                {
                    self.bases.insert(variable);
                }
                Effect::TmemCopy {
                    shape, taddr, span, ..
                } => self.check_move(shape, taddr, *span, conditions),
                Effect::If {
                    condition,
                    then,
                    otherwise,
                    ..
                } => {
                    for (side, body) in [(true, then), (false, otherwise)] {
                        conditions.push((condition, side));
                        self.effects(body, conditions);
                        conditions.pop();
                    }
                }
                Effect::For { body, .. } | Effect::Loop { body, .. } => {
                    self.effects(body, conditions);
                }
                _ => {}
            }
        }
    }

    /// Checks a move of `shape` at `taddr` for every warp known to run it.
    fn check_move(&mut self, shape: &str, taddr: &Term, span: Span, conditions: &[(&Term, bool)]) {
        let Term::Int(address, _) = taddr else {
            return;
        };
        let known = |name: &str| thread_variable(name).is_some() || self.bases.contains(name);
        if self.reported.contains(&span) || !address.variables().iter().all(|v| known(v)) {
            return;
        }
        let count = if shape == "32x32b" { 32 } else { 16 };
        for (warp, lanes) in self.threads.chunks(32).enumerate() {
            let mut addresses = Vec::new();
            for (lane, thread) in (0..).zip(lanes) {
                let value_of = |name: &str| match thread_variable(name) {
                    Some(axis @ 0..=2) => Some(thread[axis]),
                    Some(3) => Some(lane),
                    Some(_) => Some(warp as i64),
                    // An allocation's address: lane 0, and its column stays in bits 0-15.
                    None => self.bases.contains(name).then_some(0),
                };
                let runs = conditions
                    .iter()
                    .map(|(condition, side)| truth(condition, &value_of).map(|t| t == *side))
                    .try_fold(true, |all, runs| runs.map(|runs| all && runs));
                match runs {
                    Some(true) => addresses.push(address.evaluate(&value_of)),
                    Some(false) => {}
                    None => return,
                }
            }
            if addresses.is_empty() {
                continue;
            }
            let Some(breach) = warp_breach(warp as i64, &addresses, count) else {
                continue;
            };
            self.reported.insert(span);
            self.diagnostics.push(
                Diagnostic::error(
                    "E0227",
                    format!(
                        "kernel `{}`: {breach}",
                        self.kernel
                    ),
                )
                .with_primary(span, "this tensor-memory move")
                .with_help("add 32 (warp_idx % 4) lanes, `(32 * (warp_idx % 4)) * 65536`, to the allocation's address"),
            );
            return;
        }
    }

    /// E0227 at each allocation that no release of as many columns matches.
    fn unfreed(&mut self) {
        for (columns, span) in std::mem::take(&mut self.allocations) {
            if let Some(at) = self.frees.iter().position(|freed| *freed == columns) {
                self.frees.swap_remove(at);
                continue;
            }
            self.diagnostics.push(
                Diagnostic::error(
                    "E0227",
                    format!(
                        "kernel `{}` allocates {columns} columns of tensor memory and never frees them",
                        self.kernel
                    ),
                )
                .with_primary(span, "allocated here")
                .with_help(format!("the allocating warp must call `tmem_dealloc(address, {columns})` before the block exits")),
            );
        }
    }
}

/// What is wrong with warp `warp`'s `addresses` (its running lanes') for a move of
/// `count` lanes, if anything; an address that did not evaluate is none.
fn warp_breach(warp: i64, addresses: &[Option<i64>], count: i64) -> Option<String> {
    let first = addresses[0]?;
    if let Some(other) = addresses.iter().flatten().find(|a| **a != first) {
        return Some(format!(
            "the lanes of warp {warp} give one tensor-memory move different addresses ({first:#x} and {other:#x}); the warp moves with one address"
        ));
    }
    let lane = (first as u32 >> 16) as i64;
    let quadrant = 32 * (warp % 4);
    (lane < quadrant || lane + count > quadrant + 32).then(|| {
        format!(
            "warp {warp} moves tensor-memory lanes {lane} to {}, but warp w may reach only lanes 32 (w % 4) to 32 (w % 4) + 31: {quadrant} to {}",
            lane + count - 1,
            quadrant + 31
        )
    })
}

/// The axis of a thread-index variable: 0-2 for `thread_idx`, 3 for `lane_idx`, 4 for
/// `warp_idx`.
fn thread_variable(name: &str) -> Option<usize> {
    [
        "thread_idx.x",
        "thread_idx.y",
        "thread_idx.z",
        "lane_idx",
        "warp_idx",
    ]
    .iter()
    .position(|known| *known == name)
}

#[cfg(test)]
mod tests {
    use super::warp_breach;

    #[test]
    fn a_warp_moves_within_its_quadrant_with_one_address() {
        let lane = |lane: i64| Some(lane << 16);
        // Warp 5's quadrant is lanes 32 to 63: 16 lanes from 48 fit, from 49 do not.
        assert_eq!(warp_breach(5, &[lane(48), lane(48)], 16), None);
        let past = warp_breach(5, &[lane(49)], 16).unwrap();
        assert!(
            past.contains("lanes 49 to 64") && past.contains("32 to 63"),
            "{past}"
        );
        assert!(
            warp_breach(2, &[lane(32)], 32)
                .unwrap()
                .contains("64 to 95")
        );
        // The column does not matter; an address below the allocation's wraps far away.
        assert_eq!(warp_breach(0, &[Some(511)], 32), None);
        assert!(warp_breach(0, &[Some(-1)], 32).is_some());
        let split = warp_breach(0, &[lane(0), lane(1)], 32).unwrap();
        assert!(
            split.contains("different addresses (0x0 and 0x10000)"),
            "{split}"
        );
        // Addresses that did not evaluate are no evidence.
        assert_eq!(warp_breach(1, &[None, lane(0)], 32), None);
    }
}
