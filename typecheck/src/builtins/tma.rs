//! TMA loads (sm_90): `make_tma_load(tensor, tile)` describes a box of a global tensor
//! parameter and the shared tile it fills, adding a hidden tensor-map parameter that
//! the host encodes; `tma_load(tma, coords, tile, barriers, coord)` copies the box
//! whose first element is `coords`' into `tile`, its bytes completing on the mbarrier
//! `barriers[coord]`. `tma.bytes` is what one copy moves, for
//! `mbarrier_arrive_expect_tx`. With `multicast = mask` the box goes to the same tile of
//! every block of the cluster the mask names; `prefetch_tma(tma)` brings a map into the
//! cache.
//!
//! The checks, each at the argument's line (E0227 unless said): the tensor is a whole
//! global tensor parameter with a stride-1 mode; the tile is shared memory that one
//! box writes exactly (`cute::TmaBox`: box extents, 16-byte inner rows, the swizzle);
//! `coords` is a tile of an identity tensor with the box's shape and unit strides in
//! mode order; each destination tile has the first one's layout and starts at a
//! multiple of the swizzle's period, and its buffer is aligned to that period
//! (`tma_tiles.rs`); a multicast mask names blocks of the cluster.

use std::sync::Arc;

use cute::{Base, Codomain, MemorySpace, TmaBox};
use layout::SymInt;

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::trace::{Effect, TraceParam, TraceParamKind};
use crate::value::{TmaCopy, Value};

impl<'a> Checker<'a> {
    /// `make_tma_load(tensor, tile)` and `make_tma_store(tensor, tile)`.
    pub(crate) fn make_tma(&mut self, name: &'static str, args: &Args) -> Value {
        if !self.require_arch(name, 90, args.call_span) {
            return Value::Unknown;
        }
        let p = args.positional();
        let (Value::Tensor(global), Value::Tensor(tile)) = (&p[0].value, &p[1].value) else {
            for arg in &p[..2] {
                if !matches!(arg.value, Value::Tensor(_) | Value::Unknown) {
                    self.wrong_arg(arg, &format!("`{name}` takes tensors"), "not a tensor");
                }
            }
            return Value::Unknown;
        };
        let Base::Param(tensor) = global.base else {
            return self.error(
                "E0227",
                p[0].span,
                format!(
                    "a tensor map describes a kernel's global tensor parameter; this is a {}",
                    global.type_name()
                ),
                "not a tensor parameter",
            );
        };
        if global.layout.offset.as_constant() != Some(0) {
            return self.error(
                "E0227",
                p[0].span,
                "a tensor map describes the whole tensor parameter, not a tile of it (tile the coordinates given to each copy instead)".to_owned(),
                "a tile of the parameter",
            );
        }
        if tile.space != MemorySpace::Shared {
            return self.error(
                "E0227",
                p[1].span,
                format!(
                    "TMA copies between global and shared memory; this tile is a {}",
                    tile.type_name()
                ),
                "not shared memory",
            );
        }
        let boxed = match TmaBox::new(global, tile) {
            Ok(boxed) => boxed,
            Err(error) => {
                return self.error(
                    "E0227",
                    p[1].span,
                    format!("{error}: the tile is {}", tile.layout),
                    "no TMA box writes this tile",
                );
            }
        };
        self.align_buffer(tile, boxed.alignment());
        let map = self.tracing.trace.as_mut().map(|trace| {
            let name = format!("{}_tma{}", trace.params[tensor].name, trace.params.len());
            trace.params.push(TraceParam {
                name,
                kind: TraceParamKind::TensorMap {
                    tensor,
                    modes: boxed.modes.clone(),
                    box_shape: boxed.box_shape(),
                    swizzle: boxed.swizzle,
                },
            });
            trace.params.len() - 1
        });
        Value::Tma(Arc::new(TmaCopy {
            store: name == "make_tma_store",
            boxed,
            tensor,
            map,
        }))
    }

    /// `tma_load(tma, coords, tile, barriers, coord)`.
    pub(crate) fn tma_load(&mut self, args: &Args) -> Value {
        if !self.require_arch("tma_load", 90, args.call_span) {
            return Value::Unit;
        }
        let p = args.positional();
        let Some(tma) = self.tma_copy("tma_load", p[0], false) else {
            return Value::Unit;
        };
        let Some(coords) = self.box_origin(&tma.boxed, p[1]) else {
            return Value::Unit;
        };
        let Some(destination) = self.tma_tile(&tma.boxed, p[2]) else {
            return Value::Unit;
        };
        let Some(barrier) = self.barrier_element("tma_load", p[3], p[4]) else {
            return Value::Unit;
        };
        let multicast = match args.named("multicast") {
            Some(mask) => match self.multicast_mask(mask) {
                Some(mask) => Some(mask),
                None => return Value::Unit,
            },
            None => None,
        };
        let Some(pair) = self.pair_flag("tma_load", args) else {
            return Value::Unit;
        };
        if pair && multicast.is_some() {
            return self.error(
                "E0227",
                args.call_span,
                "a CTA pair's `tma_load` lands in its own block: it takes no multicast mask"
                    .to_owned(),
                "pair and multicast",
            );
        }
        if let (Some(map), Value::Tensor(barriers)) = (tma.map, &p[3].value) {
            self.emit(Effect::TmaLoad {
                map,
                coords,
                destination,
                barriers: barriers.clone(),
                barrier,
                multicast,
                pair,
                span: args.call_span,
            });
        }
        Value::Unit
    }

    /// A multicast's mask of the cluster's blocks: an integer, naming at least one
    /// block and none outside the cluster when constant (E0227; a kernel without
    /// `cluster(...)` is a cluster of one block).
    fn multicast_mask(&mut self, mask: &Arg) -> Option<Arc<crate::trace::Term>> {
        let value = self.expect_int(&mask.value, mask.span, "a multicast mask")?;
        let blocks: u32 = self.frame.cluster.iter().product();
        if let Some(bits) = value.as_constant()
            && (bits <= 0 || bits >> blocks != 0)
        {
            self.error(
                "E0227",
                mask.span,
                format!(
                    "the multicast mask {bits:#b} names no block or one outside the cluster of {} (bits 0 to {})",
                    crate::builtins::hopper::cluster_size(blocks),
                    blocks - 1
                ),
                "not blocks of the cluster",
            );
            return None;
        }
        crate::trace::term_of(&mask.value)
    }

    /// `prefetch_tma(tma)`: a load's or a store's tensor map into the cache.
    pub(crate) fn prefetch_tma(&mut self, args: &Args) -> Value {
        if !self.require_arch("prefetch_tma", 90, args.call_span) {
            return Value::Unit;
        }
        let p = args.positional();
        let Value::Tma(tma) = &p[0].value else {
            if !matches!(p[0].value, Value::Unknown) {
                self.wrong_arg(
                    p[0],
                    "`prefetch_tma` takes `make_tma_load`'s or `make_tma_store`'s result",
                    "not a TMA copy",
                );
            }
            return Value::Unit;
        };
        if let Some(map) = tma.map {
            self.emit(Effect::TmaPrefetch {
                map,
                span: args.call_span,
            });
        }
        Value::Unit
    }

    /// `tma_store(tma, tile, coords)`: one thread stores the shared `tile` to the box
    /// whose first element's coordinates `coords` gives (elements outside the tensor
    /// are not written).
    /// `tma_store(tma, tile, coords)`, and `tma_reduce_add` with the same arguments,
    /// whose tensor is f32, i32 or u32 (E0227 at the copy otherwise).
    pub(crate) fn tma_store(&mut self, name: &'static str, args: &Args) -> Value {
        if !self.require_arch(name, 90, args.call_span) {
            return Value::Unit;
        }
        let p = args.positional();
        let Some(tma) = self.tma_copy(name, p[0], true) else {
            return Value::Unit;
        };
        let add = name == "tma_reduce_add";
        let adds = kir::Element::from_name(tma.boxed.dtype.name())
            .and_then(kir::Element::tma_reduce_add_type)
            .is_some();
        if add && !adds {
            self.error(
                "E0227",
                p[0].span,
                format!(
                    "`tma_reduce_add` adds f32, i32 or u32 elements; this copy's tensor is {}",
                    tma.boxed.dtype
                ),
                "a tensor of another type",
            );
            return Value::Unit;
        }
        let Some(source) = self.tma_tile(&tma.boxed, p[1]) else {
            return Value::Unit;
        };
        let Some(coords) = self.box_origin(&tma.boxed, p[2]) else {
            return Value::Unit;
        };
        if let Some(map) = tma.map {
            self.emit(Effect::TmaStore {
                map,
                coords,
                source,
                add,
                span: args.call_span,
            });
        }
        Value::Unit
    }

    /// The TMA copy `arg` given to `name`, which stores when `store` (else loads): E0216
    /// for another value, E0227 for a copy the other way.
    fn tma_copy(&mut self, name: &str, arg: &Arg, store: bool) -> Option<Arc<TmaCopy>> {
        let (maker, other) = if store {
            ("make_tma_store", "make_tma_load")
        } else {
            ("make_tma_load", "make_tma_store")
        };
        let Value::Tma(tma) = &arg.value else {
            if !matches!(arg.value, Value::Unknown) {
                self.wrong_arg(
                    arg,
                    &format!("`{name}` takes `{maker}`'s result"),
                    "not a TMA copy",
                );
            }
            return None;
        };
        if tma.store != store {
            let (way, wrong) = if store {
                ("loads", "a load")
            } else {
                ("stores", "a store")
            };
            self.error(
                "E0227",
                arg.span,
                format!("this TMA copy {way} (`{other}`); `{name}` needs one from `{maker}`"),
                wrong,
            );
            return None;
        }
        Some(tma.clone())
    }

    /// The coordinates of the first element of `arg`, a tile of an identity tensor
    /// shaped like the box with unit strides in mode order, in the map's dimension order.
    fn box_origin(&mut self, boxed: &TmaBox, arg: &Arg) -> Option<Vec<SymInt>> {
        let not_a_box = |checker: &mut Self, why: String| {
            checker.error(
                "E0227",
                arg.span,
                format!("a TMA copy moves the box whose coordinates this tile of an identity tensor gives; {why}"),
                "not the box's coordinates",
            );
            None
        };
        let Value::Tensor(tensor) = &arg.value else {
            if matches!(arg.value, Value::Unknown) {
                return None;
            }
            return not_a_box(self, format!("this is a {}", arg.value.type_name()));
        };
        let Codomain::Coordinates(identity) = &tensor.layout.codomain else {
            return not_a_box(self, format!("this is a {}", tensor.type_name()));
        };
        let layout = &tensor.layout.layout;
        let rank = boxed.extents.len();
        if layout.rank() != rank || identity.codomain().rank() != rank {
            return not_a_box(
                self,
                format!("it needs {rank} modes, one per mode of the tensor"),
            );
        }
        for (mode, extent) in boxed.extents.iter().enumerate() {
            let size = layout.mode(mode).and_then(|mode| mode.size()).ok();
            let stride = layout.mode(mode).ok().and_then(|mode| {
                let stride = mode.stride().as_int()?.clone();
                identity.coordinate_of(&stride).ok()
            });
            // A mode of one coordinate takes no step: its stride says nothing.
            let unit = *extent == 1
                || stride.is_some_and(|stride| {
                    (stride.leaves().iter().enumerate())
                        .all(|(axis, step)| step.as_constant() == Some(i64::from(axis == mode)))
                });
            if size.and_then(|size| size.as_constant()) != Some(*extent) || !unit {
                return not_a_box(
                    self,
                    format!(
                        "its mode {mode} must be {extent} consecutive coordinates along mode {mode}"
                    ),
                );
            }
        }
        match identity.coordinate_of(&tensor.layout.offset) {
            Ok(origin) => {
                let origin = origin.leaves();
                Some(
                    boxed
                        .modes
                        .iter()
                        .map(|mode| origin[*mode].clone())
                        .collect(),
                )
            }
            Err(error) => not_a_box(self, error.to_string()),
        }
    }
}
