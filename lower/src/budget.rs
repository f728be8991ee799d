//! The code-size budget: how many values a kernel may expand to before lowering
//! refuses it.
//!
//! Checking a kernel is symbolic, so a copy of a million-element fragment or a copy
//! under a 4,096-iteration `static` loop checks in milliseconds; lowering expands each
//! copied or stored value into instructions, and ptxas then takes minutes on the result.
//! Before expanding anything, lowering adds up what each effect would expand to (a
//! run-time loop's body counts once: it is emitted once) and stops at the first that
//! passes [`MAX_EXPANDED_VALUES`], with `E0222` at its line.

use cute::Tensor;
use lang::Diagnostic;
use trace::{Effect, KernelTrace, effect_span};

/// Most values (elements copied or stored, one per barrier or other effect) one
/// kernel instantiation may expand to.
pub const MAX_EXPANDED_VALUES: u64 = 65_536;

/// `E0222` at the first effect that takes the kernel past [`MAX_EXPANDED_VALUES`].
pub(crate) fn check(trace: &KernelTrace) -> Result<(), Vec<Diagnostic>> {
    let mut total: u64 = 0;
    let mut effects: Vec<&Effect> = Vec::new();
    flatten(&trace.effects, &mut effects);
    for effect in effects {
        let values = expanded_values(effect);
        total = total.saturating_add(values);
        if total > MAX_EXPANDED_VALUES {
            return Err(vec![
                Diagnostic::error(
                    "E0222",
                    format!(
                        "kernel `{}` is too large to build: it would expand to more than \
                     {MAX_EXPANDED_VALUES} moved or stored values",
                        trace.name
                    ),
                )
                .with_primary(
                    effect_span(effect),
                    format!("this expands to {values} values, reaching {total}"),
                )
                .with_note(
                    "each element a copy or store moves becomes instructions; unrolled `static` \
                 loops repeat them",
                )
                .with_help("copy a smaller tile per thread, or loop at run time"),
            ]);
        }
    }
    Ok(())
}

/// The effects in program order, the bodies of regions in place of the regions.
pub(crate) fn flatten<'t>(effects: &'t [Effect], out: &mut Vec<&'t Effect>) {
    for effect in effects {
        match effect {
            Effect::For { body, .. } | Effect::Loop { body, .. } => flatten(body, out),
            Effect::If {
                then, otherwise, ..
            } => {
                flatten(then, out);
                flatten(otherwise, out);
            }
            other => out.push(other),
        }
    }
}

/// How many values `effect` expands to: a copy or whole-fragment load or store one per element, any
/// other effect one.
fn expanded_values(effect: &Effect) -> u64 {
    match effect {
        Effect::Copy { source: tensor, .. }
        | Effect::StoreFragment { tensor, .. }
        | Effect::Load {
            tensor,
            index: None,
            ..
        } => static_size(tensor),
        _ => 1,
    }
}

/// The tensor's number of elements when it is known while compiling; a run-time size
/// counts as one (lowering rejects it on its own).
fn static_size(tensor: &Tensor) -> u64 {
    tensor
        .layout
        .layout
        .size()
        .ok()
        .and_then(|size| size.as_constant())
        .and_then(|size| u64::try_from(size).ok())
        .unwrap_or(1)
}
