//! Tensor construction and the algorithms on tensors: `local_tile`, fragments, tiled
//! copies and MMAs and their partitions, `copy`, `gemm`, and the checks that go with
//! them (congruent shapes, vector width and alignment, operand dtypes and memory
//! spaces, the shared-memory budget).

use std::rc::Rc;

use cute::{
    Atom, Codomain, Dtype, MemorySpace, Operand, Side, SpaceRule, Tensor, TensorLayout, TiledCopy,
    TiledMma, local_partition, tile_coordinate,
};
use lang::ast::{Kernel, Name};
use lang::{Diagnostic, Span};
use layout::{Coord, Int, IntTuple, Layout, SymInt, Tiler, zipped_divide};

use crate::builtins::{Arg, Args, static_tuple};
use crate::check::{Checker, SharedBuffer};
use crate::trace::Effect;
use crate::value::Value;

impl<'a> Checker<'a> {
    pub(crate) fn make_tensor(&mut self, args: &Args) -> Value {
        if !self.arity("make_tensor", args, 2..=2, &[]) {
            return Value::Unknown;
        }
        let positional = args.positional();
        let Value::Pointer(pointer) = &positional[0].value else {
            return self.error(
                "E0216",
                positional[0].span,
                format!(
                    "make_tensor takes a pointer (`t.iterator`) first, not a {}",
                    positional[0].value.type_name()
                ),
                "not a pointer",
            );
        };
        let Some(layout) = self.expect_layout(&positional[1].value, positional[1].span) else {
            return Value::Unknown;
        };
        if pointer.space != MemorySpace::Global
            && let Some(origin) = self.dyn_origin(&positional[1].value)
        {
            self.require_const_failed(
                "the layout of a shared or register tensor",
                positional[1].span,
                &origin,
            );
            return Value::Unknown;
        }
        Value::Tensor(Rc::new(Tensor {
            layout: TensorLayout {
                layout,
                ..pointer.layout.clone()
            },
            ..(**pointer).clone()
        }))
    }

    pub(crate) fn make_identity_tensor(&mut self, args: &Args) -> Value {
        if !self.arity("make_identity_tensor", args, 1..=1, &[]) {
            return Value::Unknown;
        }
        let arg = &args.items[0];
        let Some(shape) = self.int_tuple(&arg.value, arg.span, "a shape") else {
            return Value::Unknown;
        };
        match Tensor::identity(&shape) {
            Ok(tensor) => Value::Tensor(Rc::new(tensor)),
            Err(error) => self.layout_error(args.call_span, "make_identity_tensor", &error),
        }
    }

    /// CuTe's `local_tile(tensor, tiler, coord[, projection])`: the tile at `coord` of
    /// `tensor` divided by `tiler`, keeping the tile modes and any rest mode `coord`
    /// leaves as `_`.
    pub(crate) fn local_tile(&mut self, args: &Args) -> Value {
        if !self.arity("local_tile", args, 3..=4, &[]) {
            return Value::Unknown;
        }
        let p = args.positional();
        let Value::Tensor(tensor) = &p[0].value else {
            return self.error(
                "E0216",
                p[0].span,
                format!(
                    "local_tile takes a tensor, not a {}",
                    p[0].value.type_name()
                ),
                "not a tensor",
            );
        };
        let (mut tiler_value, mut coord_value) = (p[1].value.clone(), p[2].value.clone());
        if let Some(projection) = p.get(3) {
            let (Value::Tuple(tiler_items), Value::Tuple(coord_items), Value::Tuple(keep)) =
                (&tiler_value, &coord_value, &projection.value)
            else {
                return self.error(
                    "E0216",
                    projection.span,
                    "a projection, its tiler and its coordinate are tuples of the same rank"
                        .to_owned(),
                    "not tuples",
                );
            };
            if tiler_items.len() != keep.len() || coord_items.len() != keep.len() {
                return self.error(
                    "E0209",
                    projection.span,
                    format!(
                        "the projection has {} modes, the tiler {} and the coordinate {}",
                        keep.len(),
                        tiler_items.len(),
                        coord_items.len()
                    ),
                    "ranks differ",
                );
            }
            let kept = |items: &[Value]| -> Value {
                Value::Tuple(
                    items
                        .iter()
                        .zip(keep)
                        .filter(|(_, keep)| !matches!(keep, Value::Wildcard))
                        .map(|(item, _)| item.clone())
                        .collect(),
                )
            };
            (tiler_value, coord_value) = (kept(tiler_items), kept(coord_items));
        }
        let tiler_arg = Arg {
            name: None,
            value: tiler_value,
            span: p[1].span,
        };
        let Some(tiler) = self.tiler(&tiler_arg, true) else {
            return Value::Unknown;
        };
        let tile_rank = match &tiler {
            Tiler::Modes(modes) => modes.len(),
            _ => 1,
        };
        if tile_rank > tensor.layout.layout.rank() {
            return self.error(
                "E0209",
                p[1].span,
                format!(
                    "the tiler has {tile_rank} modes but the tensor has {} ({})",
                    tensor.layout.layout.rank(),
                    tensor.shape()
                ),
                "too many modes",
            );
        }
        let divided = match zipped_divide(&tensor.layout.layout, &tiler) {
            Ok(divided) => divided,
            Err(error) => return self.layout_error(args.call_span, "local_tile", &error),
        };
        let Some(coord) = self.coordinate(&coord_value, p[2].span) else {
            return Value::Unknown;
        };
        match tile_coordinate(&divided, tile_rank, coord) {
            Ok(coord) => self.slice_tensor(tensor, &divided, &coord, args.call_span),
            Err(error) => self.error("E0209", p[2].span, error.to_string(), "too many modes"),
        }
    }

    /// CuTe's `local_partition(tensor, thread_layout, index)`: the elements of each
    /// tile that thread `index` of `thread_layout` owns.
    pub(crate) fn local_partition(&mut self, args: &Args) -> Value {
        if !self.arity("local_partition", args, 3..=3, &[]) {
            return Value::Unknown;
        }
        let p = args.positional();
        let Value::Tensor(tensor) = &p[0].value else {
            return self.error(
                "E0216",
                p[0].span,
                format!(
                    "local_partition takes a tensor, not a {}",
                    p[0].value.type_name()
                ),
                "not a tensor",
            );
        };
        let Some(threads) = self.expect_layout(&p[1].value, p[1].span) else {
            return Value::Unknown;
        };
        let Some(index) = self.expect_int(&p[2].value, p[2].span, "a thread index") else {
            return Value::Unknown;
        };
        match local_partition(&tensor.layout.layout, &threads, &index) {
            Ok((divided, coord)) => self.slice_tensor(tensor, &divided, &coord, args.call_span),
            Err(error) => self.layout_error(args.call_span, "local_partition", &error),
        }
    }

    /// `tensor` with `layout` (a rearrangement of its layout) sliced at `coord`.
    fn slice_tensor(
        &mut self,
        tensor: &Tensor,
        layout: &Layout<SymInt>,
        coord: &Coord<SymInt>,
        span: Span,
    ) -> Value {
        match tensor.sliced(layout, coord) {
            Ok(sliced) => Value::Tensor(Rc::new(sliced)),
            Err(error) => self.layout_error(span, "this tile", &error),
        }
    }

    /// A register fragment shaped like `value` (a tensor), of `dtype` or its element type.
    pub(crate) fn fragment_like(
        &mut self,
        value: &Value,
        span: Span,
        dtype: Option<Dtype>,
    ) -> Value {
        let Value::Tensor(tensor) = value else {
            return self.error(
                "E0216",
                span,
                format!(
                    "a fragment is made like a tensor, not a {}",
                    value.type_name()
                ),
                "not a tensor",
            );
        };
        let Some(dtype) = dtype.or(tensor.dtype) else {
            return self.error(
                "E0216",
                span,
                "a coordinate tensor has no element type to make a fragment of".to_owned(),
                "coordinates",
            );
        };
        if let Some(origin) = tensor
            .shape()
            .leaves()
            .iter()
            .find_map(|leaf| self.symbolic_origin(leaf))
        {
            self.require_const_failed("a register fragment's shape", span, &origin);
            return Value::Unknown;
        }
        match tensor.fragment_like(dtype, || self.next_fragment()) {
            Ok(fragment) => Value::Tensor(Rc::new(fragment)),
            Err(error) => self.layout_error(span, "this fragment", &error),
        }
    }

    /// A static layout argument, with the right diagnostics when it is not one.
    fn static_layout(&mut self, arg: &Arg, what: &str) -> Option<Layout<i64>> {
        if let Some(origin) = self.dyn_origin(&arg.value) {
            self.require_const_failed(what, arg.span, &origin);
            return None;
        }
        self.expect_layout(&arg.value, arg.span)?.to_static().ok()
    }

    fn atom_argument(&mut self, arg: &Arg) -> Option<Rc<Atom>> {
        match &arg.value {
            Value::Atom(atom) => Some(atom.clone()),
            Value::Unknown => None,
            other => {
                self.error(
                    "E0216",
                    arg.span,
                    format!("expected an atom, found a {}", other.type_name()),
                    "not an atom",
                );
                None
            }
        }
    }

    pub(crate) fn make_tiled_copy(&mut self, name: &str, args: &Args) -> Value {
        let from_mma = name.ends_with("_A") || name.ends_with("_B");
        let count = if from_mma { 2 } else { 3 };
        if !self.arity(name, args, count..=count, &[]) {
            return Value::Unknown;
        }
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
                    return self.error(
                        "E0216",
                        p[1].span,
                        format!(
                            "{name} takes a tiled MMA second, not a {}",
                            p[1].value.type_name()
                        ),
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
            Ok(tiled) => Value::TiledCopy(Rc::new(tiled)),
            Err(message) => self.error(
                "E0210",
                args.call_span,
                format!("this tiled copy does not fit its atom: {message}"),
                "atom and partition disagree",
            ),
        }
    }

    pub(crate) fn make_tiled_mma(&mut self, args: &Args) -> Value {
        if !self.arity("make_tiled_mma", args, 2..=3, &[]) {
            return Value::Unknown;
        }
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
            Ok(tiled) => Value::TiledMma(Rc::new(tiled)),
            Err(message) => self.error(
                "E0205",
                args.call_span,
                format!("this tiled MMA is not valid: {message}"),
                "rejected here",
            ),
        }
    }

    pub(crate) fn thread_copy_method(
        &mut self,
        copy: &Rc<TiledCopy>,
        thread: &SymInt,
        name: &str,
        arg: &Arg,
        span: Span,
    ) -> Value {
        let Value::Tensor(tensor) = &arg.value else {
            return self.error(
                "E0216",
                arg.span,
                format!("`{name}` takes a tensor, not a {}", arg.value.type_name()),
                "not a tensor",
            );
        };
        if name.starts_with("retile") {
            return match copy.retile(&tensor.layout.layout) {
                Ok(layout) => Value::Tensor(Rc::new(Tensor {
                    layout: TensorLayout {
                        layout,
                        ..tensor.layout.clone()
                    },
                    ..(**tensor).clone()
                })),
                Err(error) => self.layout_error(
                    span,
                    &format!("`{name}` of {}", tensor.layout.layout),
                    &error,
                ),
            };
        }
        let tiler_rank = copy.tiler.rank();
        if tensor.layout.layout.rank() < tiler_rank {
            return self.error(
                "E0209",
                arg.span,
                format!("the tiled copy covers a tile of rank {tiler_rank} ({}), but this tensor has rank {} ({})", copy.tiler, tensor.layout.layout.rank(), tensor.shape()),
                "rank too small",
            );
        }
        let side = if name == "partition_S" {
            Side::Source
        } else {
            Side::Destination
        };
        self.check_vector_access(copy, tensor, side, arg.span);
        match copy.partition(&tensor.layout.layout, side, thread) {
            Ok((layout, offset)) => match tensor.layout.offset.add(&offset) {
                Ok(offset) => Value::Tensor(Rc::new(Tensor {
                    layout: TensorLayout {
                        layout,
                        offset,
                        codomain: tensor.layout.codomain.clone(),
                    },
                    ..(**tensor).clone()
                })),
                Err(error) => self.layout_error(span, name, &error),
            },
            Err(error) => self.layout_error(
                span,
                &format!(
                    "`{name}` of {} by the tiled copy's tile {}",
                    tensor.layout.layout, copy.tiler
                ),
                &error,
            ),
        }
    }

    pub(crate) fn thread_mma_method(
        &mut self,
        mma: &Rc<TiledMma>,
        thread: &SymInt,
        method: &Name,
        arg: &Arg,
        span: Span,
    ) -> Value {
        let name = method.text.as_str();
        let operand = match name.chars().last() {
            Some('A') => Operand::A,
            Some('B') => Operand::B,
            Some('C') => Operand::C,
            _ => {
                return self.error(
                    "E0217",
                    method.span,
                    format!("a thread MMA has no method `{name}`"),
                    "unknown method",
                );
            }
        };
        let Value::Tensor(tensor) = &arg.value else {
            return self.error(
                "E0216",
                arg.span,
                format!("`{name}` takes a tensor, not a {}", arg.value.type_name()),
                "not a tensor",
            );
        };
        let dtype = mma.mma_atom().dtypes[match operand {
            Operand::A => 1,
            Operand::B => 2,
            Operand::C => 3,
        }];
        if name.starts_with("make_fragment") {
            return self.fragment_like(&arg.value, arg.span, Some(dtype));
        }
        if tensor.layout.layout.rank() < 2 {
            return self.error(
                "E0209",
                arg.span,
                format!(
                    "`{name}` takes a tensor of rank 2 or more, not {}",
                    tensor.shape()
                ),
                "rank too small",
            );
        }
        let partitioned = match mma.partition(operand, &tensor.layout.layout, thread) {
            Ok((layout, offset)) => match tensor.layout.offset.add(&offset) {
                Ok(offset) => Value::Tensor(Rc::new(Tensor {
                    layout: TensorLayout {
                        layout,
                        offset,
                        codomain: tensor.layout.codomain.clone(),
                    },
                    ..(**tensor).clone()
                })),
                Err(error) => return self.layout_error(span, name, &error),
            },
            Err(error) => {
                return self.layout_error(
                    span,
                    &format!("`{name}` of {} by the tiled MMA", tensor.layout.layout),
                    &error,
                );
            }
        };
        if name.starts_with("partition_fragment") {
            return self.fragment_like(&partitioned, arg.span, Some(dtype));
        }
        partitioned
    }

    /// `copy([atom or tiled copy,] src, dst [, pred = p])`.
    pub(crate) fn copy(&mut self, args: &Args) -> Value {
        if !self.arity("copy", args, 2..=3, &["pred"]) {
            return Value::Unit;
        }
        let p = args.positional();
        let (atom, src, dst) = match p.as_slice() {
            [src, dst] => (None, *src, *dst),
            [how, src, dst] => {
                let atom = match &how.value {
                    Value::TiledCopy(copy) => copy.atom.clone(),
                    Value::Atom(atom) => atom.clone(),
                    other => {
                        self.error(
                            "E0216",
                            how.span,
                            format!(
                                "copy takes a tiled copy or copy atom first, not a {}",
                                other.type_name()
                            ),
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
            self.report(
                Diagnostic::error(
                    "E0211",
                    format!(
                        "copy moves elements unchanged, but it reads {} and writes {}",
                        source.element_name(),
                        destination.element_name()
                    ),
                )
                .with_primary(dst.span, format!("{} elements", destination.element_name()))
                .with_secondary(src.span, format!("{} elements", source.element_name()))
                .with_help("convert in registers: `dst.store(src.load().to(...))`"),
            );
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
                    self.error(
                        "E0216",
                        pred.span,
                        format!("`pred` is a tensor of bool, not a {}", other.type_name()),
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

    fn check_copy_atom_operands(
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

    fn incongruent(
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

    /// `gemm(tiled_mma, d, a, b, c)`: `d = a * b + c` over the thread's fragments.
    pub(crate) fn gemm(&mut self, args: &Args) -> Value {
        if !self.arity("gemm", args, 5..=5, &[]) {
            return Value::Unit;
        }
        self.emit(Effect::Unsupported(
            "`gemm` (MMA atoms are not lowered yet)".to_owned(),
            args.call_span,
        ));
        let p = args.positional();
        let Value::TiledMma(mma) = &p[0].value else {
            self.error(
                "E0216",
                p[0].span,
                format!(
                    "gemm takes a tiled MMA first, not a {}",
                    p[0].value.type_name()
                ),
                "not a tiled MMA",
            );
            return Value::Unit;
        };
        let mut tensors = Vec::new();
        for arg in &p[1..] {
            match &arg.value {
                Value::Tensor(tensor) => tensors.push((*arg, tensor.clone())),
                other => {
                    self.error(
                        "E0216",
                        arg.span,
                        format!(
                            "gemm's operands are register tensors, not a {}",
                            other.type_name()
                        ),
                        "not a tensor",
                    );
                    return Value::Unit;
                }
            }
        }
        let atom = mma.mma_atom();
        let names = ["D", "A", "B", "C"];
        for (index, (arg, tensor)) in tensors.iter().enumerate() {
            if tensor.dtype != Some(atom.dtypes[index]) {
                self.report(
                    Diagnostic::error(
                        "E0211",
                        format!(
                            "`{}` takes {} as {}, but this tensor holds {}",
                            mma.atom.display_name(),
                            atom.dtypes[index],
                            names[index],
                            tensor.element_name()
                        ),
                    )
                    .with_primary(
                        arg.span,
                        format!("{} {}", names[index], tensor.element_name()),
                    ),
                );
                return Value::Unit;
            }
        }
        if tensors[0].1.read_only {
            self.read_only_error(&tensors[0].1, tensors[0].0.span);
        }
        let shape = |index: usize| tensors[index].1.shape().clone();
        let mode_size = |index: usize, mode: usize| {
            shape(index)
                .get(mode)
                .ok()
                .and_then(|mode| mode.product().ok())
        };
        let mut problems = Vec::new();
        if shape(0) != shape(3) {
            problems.push((0, 3, "D and C have the same shape".to_owned()));
        }
        for (left, right, left_mode, right_mode, what) in
            [(1, 3, 1, 1, "M"), (2, 3, 1, 2, "N"), (1, 2, 2, 2, "K")]
        {
            if mode_size(left, left_mode) != mode_size(right, right_mode) {
                problems.push((
                    left,
                    right,
                    format!("{} and {} agree on {what}", names[left], names[right]),
                ));
            }
        }
        if let Some((left, right, rule)) = problems.into_iter().next() {
            let (left_arg, left_tensor) = tensors[left].clone();
            let (right_arg, right_tensor) = tensors[right].clone();
            self.incongruent(
                &format!("gemm needs {rule}"),
                left_arg,
                &left_tensor,
                right_arg,
                &right_tensor,
                args.call_span,
            );
        }
        Value::Unit
    }

    /// `tensor.store(vector)`.
    pub(crate) fn store_vector(&mut self, tensor: &Rc<Tensor>, arg: &Arg, span: Span) {
        match &arg.value {
            Value::Vector { dtype, shape, term } => {
                self.emit(match term {
                    Some(term) => Effect::StoreFragment {
                        tensor: tensor.clone(),
                        value: term.clone(),
                        span,
                    },
                    None => Effect::Unsupported("storing this fragment value".to_owned(), arg.span),
                });
                if Some(*dtype) != tensor.dtype {
                    self.report(
                        Diagnostic::error(
                            "E0214",
                            format!("this stores {dtype} values into a {}", tensor.type_name()),
                        )
                        .with_primary(arg.span, format!("{dtype} values"))
                        .with_help(format!("convert first: `.to({})`", tensor.element_name())),
                    );
                } else if shape.product().ok() != tensor.layout.layout.size().ok() {
                    self.report(
                        Diagnostic::error(
                            "E0206",
                            format!(
                                "store: {} values do not fill a tensor of shape {}",
                                shape,
                                tensor.shape()
                            ),
                        )
                        .with_primary(span, "sizes differ"),
                    );
                }
            }
            other => {
                self.error(
                    "E0216",
                    arg.span,
                    format!(
                        "`store` takes a fragment value (from `.load()`), not a {}",
                        other.type_name()
                    ),
                    "not a fragment value",
                );
            }
        }
    }

    /// A vectorized copy atom needs each thread's values contiguous and aligned to the
    /// vector: the atom's value mode must be `V:1` and every other stride (and the
    /// start) a multiple of `V`. Run-time extents are assumed to be multiples of `V`;
    /// the runtime checks them when it launches the kernel.
    fn check_vector_access(&mut self, copy: &TiledCopy, tensor: &Tensor, side: Side, span: Span) {
        let Some(dtype) = tensor.dtype else { return };
        let Ok(vector) = copy.copy_atom().values_per_thread() else {
            return;
        };
        if vector <= 1 {
            return;
        }
        let Ok(fragment) = copy.thread_value_fragment(&tensor.layout.layout, side) else {
            return;
        };
        let (fragment, offset, swizzle) = match &tensor.layout.codomain {
            Codomain::Offsets => (fragment, Some(tensor.layout.offset.clone()), None),
            Codomain::Coordinates(_) => return,
            Codomain::Swizzled(composed) => {
                let inner = composed.inner().to_symbolic();
                let Ok(physical) = layout::composition(&inner, &fragment) else {
                    return;
                };
                let offset = tensor
                    .layout
                    .offset
                    .as_constant()
                    .and_then(|index| composed.inner().evaluate_index(&index).ok())
                    .map(|offset| SymInt::constant(offset + composed.offset()));
                (physical, offset, Some(composed.swizzle()))
            }
        };
        let bits = vector * dtype.bits();
        let access = format!(
            "`{}` moves {vector} {dtype} ({bits} bits) per thread at once",
            copy.atom.display_name()
        );
        let Ok(values) = fragment
            .mode(1)
            .and_then(|values| values.mode(0))
            .and_then(|values| layout::coalesce(&values))
        else {
            return;
        };
        let contiguous = values.size().ok().and_then(|size| size.as_constant()) == Some(vector)
            && matches!(values.stride(), IntTuple::Int(stride) if stride.as_constant() == Some(1));
        if !contiguous {
            self.report(
                Diagnostic::error("E0210", format!("{access}, but each thread's {vector} values here are not contiguous"))
                    .with_primary(span, format!("values at {values}"))
                    .with_note(format!("the thread's values of one access are laid out {values} in this tensor; a vector access needs {vector}:1"))
                    .with_help("partition along the tensor's stride-1 mode, or use a narrower atom (`BITS = ...`)"),
            );
            return;
        }
        if let Some(swizzle) = swizzle
            && !swizzle.is_identity()
            && (1i64 << swizzle.base()) < vector
        {
            self.report(
                Diagnostic::error("E0210", format!("{access}, but the swizzle {swizzle} moves groups of {} elements, splitting the vector", 1i64 << swizzle.base()))
                    .with_primary(span, "swizzle breaks the vector")
                    .with_help(format!("use a swizzle whose base (M) is at least log2({vector})")),
            );
            return;
        }
        let assumed = |name: &str| self.is_extent_variable(name);
        let multiple = |value: &SymInt| {
            let divisor = value.provable_divisor(&assumed);
            divisor == 0 || divisor.is_multiple_of(vector.unsigned_abs())
        };
        let mut misaligned = None;
        for (index, mode) in fragment.modes().iter().enumerate() {
            let submodes = if index == 1 {
                mode.modes().into_iter().skip(1).collect()
            } else {
                vec![mode.clone()]
            };
            for submode in submodes {
                for (extent, stride) in submode
                    .shape()
                    .leaves()
                    .iter()
                    .zip(submode.stride().leaves())
                {
                    if !extent.is_static(1) && !multiple(&stride) {
                        misaligned.get_or_insert(format!("stride {stride}"));
                    }
                }
            }
        }
        if let Some(offset) = &offset
            && !multiple(offset)
        {
            misaligned.get_or_insert(format!("start offset {offset}"));
        }
        if let Some(culprit) = misaligned {
            self.report(
                Diagnostic::error("E0210", format!("{access}, but the {culprit} is not a multiple of {vector}, so some accesses are not {}-byte aligned", bits / 8))
                    .with_primary(span, format!("{culprit} breaks the alignment"))
                    .with_note(format!("thread, value and repeat modes of this partition: {fragment}")),
            );
        }
    }

    /// Rejects a kernel whose shared memory exceeds the target's per-block limit.
    pub(crate) fn check_shared_budget(&mut self, kernel: &Kernel, buffers: &[SharedBuffer]) {
        let mut seen = std::collections::HashSet::new();
        let buffers: Vec<&SharedBuffer> = buffers
            .iter()
            .filter(|buffer| seen.insert(buffer.span))
            .collect();
        let total: i64 = buffers.iter().map(|buffer| buffer.bytes).sum();
        let limit = self.target.shared_memory_limit();
        if total <= limit {
            return;
        }
        let mut diagnostic = Diagnostic::error(
            "E0207",
            format!(
                "kernel `{}` uses {} of shared memory, over the {} a block may have on {}",
                kernel.name.text,
                kib(total),
                kib(limit),
                self.target
            ),
        )
        .with_primary(
            kernel.name.span,
            format!("{} in {} buffer(s)", kib(total), buffers.len()),
        );
        for buffer in &buffers {
            diagnostic = diagnostic.with_secondary(
                buffer.span,
                format!("{}: {}", buffer.name, kib(buffer.bytes)),
            );
            diagnostic = diagnostic.with_note(format!(
                "{}: {} bytes ({})",
                buffer.name,
                buffer.bytes,
                kib(buffer.bytes)
            ));
        }
        self.report(diagnostic.with_help("use fewer pipeline stages or smaller tiles, or build for a target with more shared memory"));
    }
}

/// Whether two shapes have the same rank and the same size in each top-level mode.
fn modes_agree(left: &IntTuple<SymInt>, right: &IntTuple<SymInt>) -> bool {
    let (left_modes, right_modes) = (left.modes(), right.modes());
    left_modes.len() == right_modes.len()
        && left_modes
            .iter()
            .zip(&right_modes)
            .all(|(a, b)| a.product().ok() == b.product().ok())
}

fn size_text(tensor: &Tensor) -> String {
    tensor
        .layout
        .layout
        .size()
        .map_or("?".to_owned(), |size| size.to_string())
}

fn space_of(rule: SpaceRule) -> &'static str {
    match rule {
        SpaceRule::Any => "any memory",
        SpaceRule::Only(space) => space,
    }
}

/// Bytes as KiB with one decimal.
fn kib(bytes: i64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let kib = bytes as f64 / 1024.0;
    format!("{kib:.1} KiB")
}
