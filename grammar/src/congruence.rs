//! The congruence check of layout literals: in `shape:stride` written with
//! literal tuples, both sides must have the same nesting profile.
//!
//! Only what is written out is compared: a name or a call (`(m, k):s`) may
//! stand for a tuple of any profile and is left to the type checker.

use lang::Diagnostic;
use lang::ast::{Expr, ExprKind};

/// The profile of a written expression, as far as the parser can see it.
enum Profile<'tree> {
    /// A tuple literal and its elements.
    Tuple(&'tree [Expr]),
    /// An integer literal: certainly a single integer.
    Integer,
    /// Anything else: its profile is unknown until types are known.
    Unknown,
}

fn profile(expr: &Expr) -> Profile<'_> {
    match &expr.kind {
        ExprKind::Tuple(elements) => Profile::Tuple(elements),
        ExprKind::Int(_) => Profile::Integer,
        _ => Profile::Unknown,
    }
}

/// A diagnostic if `shape` and `stride` are written with different profiles.
pub fn check_congruence(shape: &Expr, stride: &Expr) -> Option<Diagnostic> {
    let (mode_path, problem) = first_mismatch(shape, stride, &mut Vec::new())?;
    let place = if mode_path.is_empty() {
        String::new()
    } else {
        let modes: Vec<String> = mode_path.iter().map(usize::to_string).collect();
        format!(" in mode {}", modes.join("."))
    };
    Some(
        Diagnostic::error(
            "E0112",
            format!("layout shape and stride are not congruent{place}: {problem}"),
        )
        .with_primary(shape.span, "shape")
        .with_secondary(stride.span, "stride")
        .with_note("a stride must have the same nesting as its shape: one stride per shape mode"),
    )
}

/// The path of mode indices to the first mismatch and a description of it.
fn first_mismatch(
    shape: &Expr,
    stride: &Expr,
    path: &mut Vec<usize>,
) -> Option<(Vec<usize>, String)> {
    match (profile(shape), profile(stride)) {
        (Profile::Tuple(shape_modes), Profile::Tuple(stride_modes)) => {
            if shape_modes.len() != stride_modes.len() {
                return Some((
                    path.clone(),
                    format!(
                        "the shape has {} but the stride has {}",
                        modes(shape_modes.len()),
                        modes(stride_modes.len())
                    ),
                ));
            }
            for (index, (shape_mode, stride_mode)) in
                shape_modes.iter().zip(stride_modes).enumerate()
            {
                path.push(index);
                let found = first_mismatch(shape_mode, stride_mode, path);
                path.pop();
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        (Profile::Tuple(shape_modes), Profile::Integer) => Some((
            path.clone(),
            format!(
                "the shape is a tuple of {} but the stride is a single integer",
                modes(shape_modes.len())
            ),
        )),
        (Profile::Integer, Profile::Tuple(stride_modes)) => Some((
            path.clone(),
            format!(
                "the shape is a single integer but the stride is a tuple of {}",
                modes(stride_modes.len())
            ),
        )),
        _ => None,
    }
}

fn modes(count: usize) -> String {
    if count == 1 {
        "1 mode".to_owned()
    } else {
        format!("{count} modes")
    }
}
