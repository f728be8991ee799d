//! Tensor built-ins: `make_tensor`, `make_identity_tensor`, `local_tile`,
//! `domain_offset`, `local_partition` and `make_fragment_like`, over the layout arithmetic in `cute`.

use std::sync::Arc;

use cute::{Atom, Dtype, MemorySpace, Tensor, TensorLayout, local_partition, tile_coordinate};
use lang::Span;
use layout::{Coord, Layout, SymInt, Tiler, zipped_divide};

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::value::Value;

impl<'a> Checker<'a> {
    pub(crate) fn make_tensor(&mut self, args: &Args) -> Value {
        let positional = args.positional();
        let Value::Pointer(pointer) = &positional[0].value else {
            return self.wrong_arg(
                positional[0],
                "make_tensor takes a pointer (`t.iterator`) first",
                "not a pointer",
            );
        };
        if let Value::Composed(composed) = &positional[1].value {
            return self.make_swizzled_tensor(pointer, composed, positional[1].span);
        }
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
        Value::Tensor(Arc::new(Tensor {
            layout: TensorLayout {
                layout,
                ..pointer.layout.clone()
            },
            ..(**pointer).clone()
        }))
    }

    /// `make_tensor(buffer.iterator, swizzled_layout)`: a shared buffer seen through
    /// another swizzled layout (an epilogue staging its tile in a main loop's buffers).
    fn make_swizzled_tensor(
        &mut self,
        pointer: &Tensor,
        composed: &layout::ComposedLayout,
        span: Span,
    ) -> Value {
        let cute::Base::Shared(buffer) = pointer.base else {
            return self.error(
                "E0216",
                span,
                "a swizzled layout applies to shared memory; this pointer is not to a shared buffer"
                    .to_owned(),
                "needs a shared buffer",
            );
        };
        if pointer.layout.offset.as_constant() != Some(0) {
            return self.error(
                "E0216",
                span,
                format!(
                    "a swizzled layout starts at its buffer's first element; this pointer is at `{}`",
                    pointer.layout.offset
                ),
                "not the start of a buffer",
            );
        }
        let bits = pointer.dtype.map_or(8, Dtype::bits);
        let needed = self
            .composed_cosize(composed)
            .map(|cosize| cosize * bits / 8);
        let available = self.frame.shared.get(buffer).map(|shared| shared.bytes);
        if let (Some(needed), Some(available)) = (needed, available)
            && needed > available
        {
            return self.error(
                "E0216",
                span,
                format!("this layout reaches {needed} bytes, past the buffer's {available}"),
                "larger than the buffer",
            );
        }
        let domain = match Layout::column_major(composed.shape().clone()) {
            Ok(domain) => domain,
            Err(error) => return self.layout_error(span, "make_tensor", &error),
        };
        Value::Tensor(Arc::new(Tensor {
            layout: TensorLayout {
                layout: domain.to_symbolic(),
                offset: SymInt::constant(0),
                codomain: cute::Codomain::Swizzled(composed.clone()),
            },
            ..pointer.clone()
        }))
    }

    pub(crate) fn make_identity_tensor(&mut self, args: &Args) -> Value {
        let arg = &args.items[0];
        let Some(shape) = self.int_tuple(&arg.value, arg.span, "a shape") else {
            return Value::Unknown;
        };
        match Tensor::identity(&shape) {
            Ok(tensor) => Value::Tensor(Arc::new(tensor)),
            Err(error) => self.layout_error(args.call_span, "make_identity_tensor", &error),
        }
    }

    /// CuTe's `local_tile(tensor, tiler, coord[, projection])`: the tile at `coord` of
    /// `tensor` divided by `tiler`, keeping the tile modes and any rest mode `coord`
    /// leaves as `_`.
    pub(crate) fn local_tile(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let Value::Tensor(tensor) = &p[0].value else {
            return self.wrong_arg(p[0], "local_tile takes a tensor", "not a tensor");
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

    /// CuTe's `domain_offset(coord, tensor)`: the same tensor starting at `coord`, its
    /// element there becoming its first and its shape kept (what lies past the
    /// original's end is the caller's to mask). A run-time coordinate moves a global or
    /// shared tensor, or an identity tensor's coordinates; a register fragment's
    /// registers are chosen while compiling, so its coordinate must be const (E0204).
    pub(crate) fn domain_offset(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let Value::Tensor(tensor) = &p[1].value else {
            return self.wrong_arg(
                p[1],
                "domain_offset takes a coordinate, then a tensor",
                "not a tensor",
            );
        };
        if tensor.space == MemorySpace::Register
            && tensor.base != cute::Base::Coordinates
            && let Some(origin) = self.dyn_origin(&p[0].value)
        {
            self.require_const_failed(
                "the coordinate a register fragment is offset by",
                p[0].span,
                &origin,
            );
            return Value::Unknown;
        }
        let Some(coord) = self.coordinate(&p[0].value, p[0].span) else {
            return Value::Unknown;
        };
        if coord.has_free() {
            return self.error(
                "E0209",
                p[0].span,
                "domain_offset moves a tensor to one element: its coordinate has no `_`".to_owned(),
                "a slice, not an element",
            );
        }
        let offset = match tensor.layout.layout.evaluate(&coord.with_free_as_zero()) {
            Ok(offset) => offset,
            Err(error) => return self.layout_error(p[0].span, "domain_offset", &error),
        };
        match tensor.relaid(tensor.layout.layout.clone(), &offset) {
            Ok(moved) => Value::Tensor(Arc::new(moved)),
            Err(error) => self.layout_error(args.call_span, "domain_offset", &error),
        }
    }

    /// CuTe's `local_partition(tensor, thread_layout, index)`: the elements of each
    /// tile that thread `index` of `thread_layout` owns.
    pub(crate) fn local_partition(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let Value::Tensor(tensor) = &p[0].value else {
            return self.wrong_arg(p[0], "local_partition takes a tensor", "not a tensor");
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
    pub(crate) fn slice_tensor(
        &mut self,
        tensor: &Tensor,
        layout: &Layout<SymInt>,
        coord: &Coord<SymInt>,
        span: Span,
    ) -> Value {
        match tensor.sliced(layout, coord) {
            Ok(sliced) => Value::Tensor(Arc::new(sliced)),
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
            return self.wrong_type(
                span,
                value,
                "a fragment is made like a tensor",
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
        match tensor.fragment_like(dtype, || self.next_fragment(span)) {
            Ok(fragment) => Value::Tensor(Arc::new(fragment)),
            Err(error) => self.layout_error(span, "this fragment", &error),
        }
    }

    /// `fragment_like`, `make_fragment_like`, once its row of the table has checked the
    /// arguments.
    pub(crate) fn fragment_like_call(&mut self, args: &Args) -> Value {
        let p = args.positional();
        self.fragment_like(&p[0].value, p[0].span, None)
    }

    /// A static layout argument, with the right diagnostics when it is not one.
    pub(crate) fn static_layout(&mut self, arg: &Arg, what: &str) -> Option<Layout<i64>> {
        if let Some(origin) = self.dyn_origin(&arg.value) {
            self.require_const_failed(what, arg.span, &origin);
            return None;
        }
        self.expect_layout(&arg.value, arg.span)?.to_static().ok()
    }

    pub(crate) fn atom_argument(&mut self, arg: &Arg) -> Option<Arc<Atom>> {
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
}
