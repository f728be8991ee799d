//! Tiled copies and MMAs as built-ins: `make_tiled_copy*` and `make_tiled_mma`, and
//! `copy` with its atom, space and shape checks.

use std::sync::Arc;

use cute::{Atom, Dtype, Operand, SpaceRule, Tensor, TiledCopy, TiledMma};
use lang::{Diagnostic, Span};
use layout::{IntTuple, SymInt, Tiler};

use crate::builtins::operands::static_tuple;
use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::trace::Effect;
use crate::value::Value;

impl<'a> Checker<'a> {
    pub(crate) fn make_tiled_copy(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let Some(atom) = self.atom_argument(p[0]) else {
            return Value::Unknown;
        };
        let built = match name {
            "make_tiled_copy" => {
                let (Some(threads), Some(values)) = (
                    self.static_layout(p[1], "a thread layout"),
                    self.static_layout(p[2], "a value layout"),
                ) else {
                    return Value::Unknown;
                };
                match layout::make_layout_tv(&threads, &values) {
                    Ok((tiler, layout_tv)) => TiledCopy::new(atom, layout_tv, tiler),
                    Err(error) => {
                        return self.layout_error(args.call_span, "make_tiled_copy", &error);
                    }
                }
            }
            "make_tiled_copy_tv" => {
                let Some(layout_tv) = self.static_layout(p[1], "a thread-value layout") else {
                    return Value::Unknown;
                };
                let Some(tile) = self.int_tuple(&p[2].value, p[2].span, "a tile shape") else {
                    return Value::Unknown;
                };
                let Some(tile) = static_tuple(&tile) else {
                    let origin = self.dyn_origin(&p[2].value);
                    if let Some(origin) = origin {
                        self.require_const_failed("a tiled copy's tile", p[2].span, &origin);
                    }
                    return Value::Unknown;
                };
                let tile_size = tile.product().unwrap_or(0);
                if layout_tv.cosize().is_ok_and(|cosize| cosize > tile_size) {
                    return self.error(
                        "E0205",
                        args.call_span,
                        format!("the thread-value layout {layout_tv} reaches index {}, past the {tile_size} elements of tile {tile}", layout_tv.cosize().unwrap_or(0) - 1),
                        "does not fit the tile",
                    );
                }
                TiledCopy::new(atom, layout_tv, tile)
            }
            _ => {
                let Value::TiledMma(mma) = &p[1].value else {
                    return self.wrong_arg(
                        p[1],
                        &format!("{name} takes a tiled MMA second"),
                        "not a tiled MMA",
                    );
                };
                let operand = if name.ends_with("_A") {
                    Operand::A
                } else {
                    Operand::B
                };
                match mma.operand_layout_tv(operand) {
                    Ok((layout_tv, tile)) => TiledCopy::new(atom, layout_tv, tile),
                    Err(error) => return self.layout_error(args.call_span, name, &error),
                }
            }
        };
        match built {
            Ok(tiled) => Value::TiledCopy(Arc::new(tiled)),
            Err(message) => self.error(
                "E0210",
                args.call_span,
                format!("this tiled copy does not fit its atom: {message}"),
                "atom and partition disagree",
            ),
        }
    }

    pub(crate) fn make_tiled_mma(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let Some(atom) = self.atom_argument(p[0]) else {
            return Value::Unknown;
        };
        let Some(atom_layout) = self.static_layout(p[1], "an atom layout") else {
            return Value::Unknown;
        };
        let mut permutation = [Tiler::Keep, Tiler::Keep, Tiler::Keep];
        if let Some(arg) = p.get(2) {
            let Some(tiler) = self.tiler(arg, true) else {
                return Value::Unknown;
            };
            let modes =
                match tiler {
                    Tiler::Modes(modes) if modes.len() <= 3 => modes,
                    _ => return self.error(
                        "E0216",
                        arg.span,
                        "a permutation is a tuple of up to three tilers, one each for M, N and K"
                            .to_owned(),
                        "not a permutation",
                    ),
                };
            for (slot, mode) in permutation.iter_mut().zip(modes) {
                *slot = match mode {
                    Tiler::Extent(extent) => Tiler::Extent(extent.as_constant().unwrap_or(1)),
                    Tiler::Layout(layout) => match layout.to_static() {
                        Ok(layout) => Tiler::Layout(layout),
                        Err(_) => Tiler::Keep,
                    },
                    Tiler::Keep | Tiler::Modes(_) => Tiler::Keep,
                };
            }
        }
        match TiledMma::new(atom, &atom_layout, permutation) {
            Ok(tiled) => Value::TiledMma(Arc::new(tiled)),
            Err(message) => self.error(
                "E0205",
                args.call_span,
                format!("this tiled MMA is not valid: {message}"),
                "rejected here",
            ),
        }
    }

    /// `copy([atom or tiled copy,] src, dst [, pred = p])`.
    pub(crate) fn copy(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let (atom, src, dst) = match p.as_slice() {
            [src, dst] => (None, *src, *dst),
            [how, src, dst] => {
                let atom = match &how.value {
                    Value::TiledCopy(copy) => copy.atom.clone(),
                    Value::Atom(atom) => atom.clone(),
                    other => {
                        self.wrong_type(
                            how.span,
                            other,
                            "copy takes a tiled copy or copy atom first",
                            "not a copy",
                        );
                        return Value::Unit;
                    }
                };
                (Some(atom), *src, *dst)
            }
            _ => return Value::Unit,
        };
        let (Value::Tensor(source), Value::Tensor(destination)) = (&src.value, &dst.value) else {
            for arg in [src, dst] {
                if !matches!(arg.value, Value::Tensor(_)) {
                    self.error(
                        "E0216",
                        arg.span,
                        format!("copy moves tensors; this is a {}", arg.value.type_name()),
                        "not a tensor",
                    );
                }
            }
            return Value::Unit;
        };
        if destination.read_only {
            self.read_only_error(destination, dst.span);
            return Value::Unit;
        }
        if source.dtype != destination.dtype {
            let mut diagnostic = Diagnostic::error(
                "E0211",
                format!(
                    "copy moves elements unchanged, but it reads {} and writes {}",
                    source.element_name(),
                    destination.element_name()
                ),
            )
            .with_primary(dst.span, format!("{} elements", destination.element_name()))
            .with_secondary(src.span, format!("{} elements", source.element_name()));
            let chosen_by_mma =
                [destination, source]
                    .into_iter()
                    .find_map(|tensor| match tensor.base {
                        cute::Base::Registers(number) => {
                            self.tracing.fragment_origins.get(&number).cloned()
                        }
                        _ => None,
                    });
            diagnostic = match chosen_by_mma {
                Some((span, origin)) => diagnostic
                    .with_secondary(span, origin)
                    .with_help("choose the MMA atom for the data's element type (its `T`)"),
                None => {
                    diagnostic.with_help("convert in registers: `dst.store(src.load().to(...))`")
                }
            };
            self.report(diagnostic);
            return Value::Unit;
        }
        if let Some(atom) = &atom {
            self.check_copy_atom_operands(atom, src, source, dst, destination);
        }
        let agree = if atom.is_some() {
            modes_agree(source.shape(), destination.shape())
        } else {
            source.layout.layout.size().ok() == destination.layout.layout.size().ok()
        };
        if !agree {
            self.incongruent("copy", src, source, dst, destination, args.call_span);
            return Value::Unit;
        }
        let mut predicate = None;
        if let Some(pred) = args.named("pred") {
            match &pred.value {
                Value::Tensor(mask) if mask.dtype == Some(Dtype::Bool) => {
                    if mask.layout.layout.size().ok() != source.layout.layout.size().ok() {
                        self.incongruent(
                            "copy's predicate",
                            pred,
                            mask,
                            src,
                            source,
                            args.call_span,
                        );
                        return Value::Unit;
                    }
                    predicate = Some(mask.clone());
                }
                Value::Unknown => return Value::Unit,
                other => {
                    self.wrong_type(
                        pred.span,
                        other,
                        "`pred` is a tensor of bool",
                        "not a bool tensor",
                    );
                    return Value::Unit;
                }
            }
        }
        self.emit(Effect::Copy {
            atom,
            source: source.clone(),
            destination: destination.clone(),
            predicate,
            span: args.call_span,
        });
        Value::Unit
    }

    pub(crate) fn check_copy_atom_operands(
        &mut self,
        atom: &Atom,
        src: &Arg,
        source: &Tensor,
        dst: &Arg,
        destination: &Tensor,
    ) {
        let Some(facts) = atom.as_copy() else {
            self.error(
                "E0211",
                src.span,
                format!(
                    "`{}` is an MMA atom; copy needs a copy atom",
                    atom.display_name()
                ),
                "not a copy atom",
            );
            return;
        };
        for (arg, tensor, dtype, rule, role) in [
            (src, source, facts.dtypes.0, facts.spaces.0, "source"),
            (
                dst,
                destination,
                facts.dtypes.1,
                facts.spaces.1,
                "destination",
            ),
        ] {
            if tensor.dtype.is_some_and(|element| element != dtype) {
                self.report(
                    Diagnostic::error(
                        "E0211",
                        format!(
                            "`{}` copies {dtype}, but the {role} holds {}",
                            atom.display_name(),
                            tensor.element_name()
                        ),
                    )
                    .with_primary(arg.span, format!("{} elements", tensor.element_name()))
                    .with_help(format!(
                        "instantiate the atom for {}: `T = {}`",
                        tensor.element_name(),
                        tensor.element_name()
                    )),
                );
            }
            if !rule.allows(tensor.space.keyword()) {
                let SpaceRule::Only(expected) = rule else {
                    continue;
                };
                self.report(
                    Diagnostic::error(
                        "E0211",
                        format!(
                            "`{}` reads from {} and writes to {}; this {role} is in {}",
                            atom.display_name(),
                            space_of(facts.spaces.0),
                            space_of(facts.spaces.1),
                            tensor.space.keyword()
                        ),
                    )
                    .with_primary(
                        arg.span,
                        format!("{} tensor, expected {expected}", tensor.space.keyword()),
                    ),
                );
            }
        }
    }

    pub(crate) fn incongruent(
        &mut self,
        what: &str,
        first: &Arg,
        first_tensor: &Tensor,
        second: &Arg,
        second_tensor: &Tensor,
        span: Span,
    ) {
        let left = first_tensor.layout.layout.to_string();
        let right = second_tensor.layout.layout.to_string();
        let width = left.len().max(right.len());
        self.report(
            Diagnostic::error(
                "E0206",
                format!(
                    "{what}: the shapes {} and {} do not match",
                    first_tensor.shape(),
                    second_tensor.shape()
                ),
            )
            .with_primary(span, "shapes differ")
            .with_secondary(first.span, format!("shape {}", first_tensor.shape()))
            .with_secondary(second.span, format!("shape {}", second_tensor.shape()))
            .with_note(format!(
                "first:  {left:<width$}  ({} elements)",
                size_text(first_tensor)
            ))
            .with_note(format!(
                "second: {right:<width$}  ({} elements)",
                size_text(second_tensor)
            )),
        );
    }
}

/// Whether two shapes have the same rank and the same size in each top-level mode.
pub(crate) fn modes_agree(left: &IntTuple<SymInt>, right: &IntTuple<SymInt>) -> bool {
    let (left_modes, right_modes) = (left.modes(), right.modes());
    left_modes.len() == right_modes.len()
        && left_modes
            .iter()
            .zip(&right_modes)
            .all(|(a, b)| a.product().ok() == b.product().ok())
}

pub(crate) fn size_text(tensor: &Tensor) -> String {
    tensor
        .layout
        .layout
        .size()
        .map_or("?".to_owned(), |size| size.to_string())
}

pub(crate) fn space_of(rule: SpaceRule) -> &'static str {
    match rule {
        SpaceRule::Any => "any memory",
        SpaceRule::Only(space) => space,
    }
}
