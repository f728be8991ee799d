//! The shared tiles TMA copies write and read: laid out as the tensor map's box says and
//! starting at a multiple of the swizzle's period (E0227 at the tile otherwise), their
//! buffers aligned to it. A swizzled tile's start is an index into its allocation's
//! inner layout; it is proved aligned through the layout's modes, so a run-time stage
//! index works when its stride moves whole periods.

use std::sync::Arc;

use cute::{Base, Codomain, MemorySpace, Tensor, TmaBox};
use layout::{Layout, SymInt};

use crate::builtins::Arg;
use crate::check::Checker;
use crate::value::Value;

impl<'a> Checker<'a> {
    /// The shared tile `arg` after checking that it is laid out as the box's tile and
    /// starts at a multiple of the swizzle's period.
    pub(crate) fn tma_tile(&mut self, boxed: &TmaBox, arg: &Arg) -> Option<Arc<Tensor>> {
        let Value::Tensor(tile) = &arg.value else {
            if !matches!(arg.value, Value::Unknown) {
                self.wrong_arg(arg, "`tma_load` fills a shared tile", "not a tensor");
            }
            return None;
        };
        if tile.space != MemorySpace::Shared || !boxed.fits(tile) {
            self.error(
                "E0227",
                arg.span,
                format!(
                    "the tensor map writes tiles laid out as {}; this is a {} laid out as {}",
                    boxed.tile_layout(),
                    tile.type_name(),
                    tile.layout
                ),
                "not the tensor map's tile",
            );
            return None;
        }
        let elements = boxed.alignment() / (boxed.dtype.bits() / 8);
        let start = &tile.layout.offset;
        let aligned = match &tile.layout.codomain {
            Codomain::Swizzled(composed) => {
                composed.offset() % elements == 0
                    && index_lands_aligned(composed.inner(), start, elements)
            }
            _ => match start.as_constant() {
                Some(offset) => offset % elements == 0,
                None => start.provable_divisor(&|_| false) % elements.unsigned_abs() == 0,
            },
        };
        if !aligned {
            self.error(
                "E0227",
                arg.span,
                format!(
                    "TMA writes a tile at a multiple of {} bytes ({elements} {} elements); this tile starts at {} {start}",
                    boxed.alignment(),
                    boxed.dtype,
                    if matches!(tile.layout.codomain, Codomain::Swizzled(_)) {
                        "index"
                    } else {
                        "element"
                    },
                ),
                "misaligned destination",
            );
            return None;
        }
        self.align_buffer(tile, boxed.alignment());
        Some(tile.clone())
    }

    /// Raises the alignment of the shared buffer `tensor` lives in to `bytes`.
    pub(crate) fn align_buffer(&mut self, tensor: &Tensor, bytes: i64) {
        if let Base::Shared(buffer) = tensor.base
            && let Some(buffer) = self.frame.shared.get_mut(buffer)
        {
            buffer.align = buffer.align.max(bytes);
        }
    }
}

/// Whether `inner(index)` is a multiple of `elements` for every value of `index`'s
/// variables (taken as non-negative). With `index = c + v`, where `v` is a multiple of
/// a product `P` of the leading extents of `inner`: `inner(index) = inner(c mod P) +
/// (the modes from P on)((index - c mod P) / P)`, a multiple of `elements` when the first
/// term is and every stride from P on is.
fn index_lands_aligned(inner: &Layout<i64>, index: &SymInt, elements: i64) -> bool {
    let (variable, constant) = index.split_constant();
    let divisor = variable.provable_divisor(&|_| false) as i64;
    let flat = inner.flatten();
    let (shapes, strides) = (flat.shape().leaves(), flat.stride().leaves());
    let mut boundary = 1_i64;
    for mode in 0..=shapes.len() {
        let variable_fits = divisor == 0 || divisor % boundary == 0;
        if variable_fits && strides[mode..].iter().all(|stride| stride % elements == 0) {
            let low = constant.rem_euclid(boundary);
            return inner
                .evaluate_index(&low)
                .is_ok_and(|offset| offset % elements == 0);
        }
        let Some(next) = shapes
            .get(mode)
            .and_then(|extent| boundary.checked_mul(*extent))
        else {
            return false;
        };
        boundary = next;
    }
    false
}
