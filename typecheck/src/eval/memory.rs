//! Allocations: `smem T[layout]`, `rmem T[layout]`, `tmem T[layout]`, with the
//! shared buffer or register fragment they become.

use std::rc::Rc;

use cute::{Base, Codomain, Target, Tensor, TensorLayout};
use lang::Span;
use lang::ast::{Expr, MemorySpace, Name};
use layout::{Layout, SymInt};

use crate::check::{Checker, Context};
use crate::value::Value;

impl<'a> Checker<'a> {
    pub(crate) fn alloc(
        &mut self,
        space: MemorySpace,
        element: &Name,
        layout_expr: &'a Expr,
        span: Span,
    ) -> Value {
        let Some(dtype) = self.resolve_dtype(element) else {
            self.eval(layout_expr);
            return Value::Unknown;
        };
        if self.frame.context != Context::Device {
            self.eval(layout_expr);
            return self.error(
                "E0220",
                span,
                format!("`{}` memory is allocated in device code; tests create tensors with randn, zeros, empty, ...", space.keyword()),
                "not in device code",
            );
        }
        let what = match space {
            MemorySpace::Global => {
                self.eval(layout_expr);
                return self.error(
                    "E0216",
                    span,
                    "global memory is not allocated in a kernel; pass it as a tensor parameter"
                        .to_owned(),
                    "cannot allocate gmem here",
                );
            }
            MemorySpace::Shared => "a shared-memory layout",
            MemorySpace::Register => "a register layout",
            MemorySpace::Tensor => "a tensor-memory layout",
        };
        let value = self.eval(layout_expr);
        let (layout, codomain, cosize) = match value {
            Value::Unknown => return Value::Unknown,
            Value::Composed(composed) => {
                let domain = match Layout::column_major(composed.shape().clone()) {
                    Ok(domain) => domain,
                    Err(error) => return self.layout_error(layout_expr.span, what, &error),
                };
                let cosize = composed_cosize(&composed);
                (domain.to_symbolic(), Codomain::Swizzled(composed), cosize)
            }
            Value::Layout(layout) => {
                if let Some(origin) = self.dyn_origin(&Value::Layout(layout.clone())) {
                    self.require_const_failed(what, layout_expr.span, &origin);
                    return Value::Unknown;
                }
                let cosize = layout.cosize().ok().and_then(|cosize| cosize.as_constant());
                (layout, Codomain::Offsets, cosize)
            }
            other => {
                return self.error(
                    "E0216",
                    layout_expr.span,
                    format!("{what} must be a layout, not a {}", other.type_name()),
                    "not a layout",
                );
            }
        };
        let mut base = Base::Unknown;
        if space == MemorySpace::Shared
            && let Some(cosize) = cosize
        {
            self.frame.shared.push(crate::check::SharedBuffer {
                name: "buffer".to_owned(),
                span,
                bytes: cosize.saturating_mul(dtype.bits()) / 8,
            });
            base = Base::Shared(self.frame.shared.len() - 1);
        }
        if space == MemorySpace::Register {
            base = Base::Registers(self.next_fragment(span));
        }
        if space == MemorySpace::Tensor && self.target < Target::Sm100a {
            self.error(
                "E0212",
                span,
                format!(
                    "tensor memory exists from sm_100a on; this build is for {}",
                    self.target
                ),
                "needs sm_100a",
            );
        }
        Value::Tensor(Rc::new(Tensor {
            space,
            dtype: Some(dtype),
            layout: TensorLayout {
                layout,
                offset: SymInt::constant(0),
                codomain,
            },
            read_only: false,
            base,
        }))
    }
}

/// The extent of memory a swizzled layout touches: one past its largest offset.
/// The inner layout's offsets are walked like an odometer (an add per element), not
/// evaluated one by one: a pipelined GEMM's buffers hold tens of thousands.
pub(crate) fn composed_cosize(composed: &layout::ComposedLayout) -> Option<i64> {
    let inner = composed.inner().flatten();
    let (shapes, strides) = (inner.shape().leaves(), inner.stride().leaves());
    let size = shapes
        .iter()
        .try_fold(1_i64, |size, extent| size.checked_mul(*extent))?;
    if !(1..=1 << 20).contains(&size) {
        return None;
    }
    let swizzle = composed.swizzle();
    let mut counters = vec![0_i64; shapes.len()];
    let mut offset = composed.offset();
    let mut highest = i64::MIN;
    for _ in 0..size {
        highest = highest.max(swizzle.apply(offset));
        for (mode, counter) in counters.iter_mut().enumerate() {
            *counter += 1;
            offset = offset.checked_add(strides[mode])?;
            if *counter < shapes[mode] {
                break;
            }
            offset = offset.checked_sub(strides[mode].checked_mul(shapes[mode])?)?;
            *counter = 0;
        }
    }
    highest.checked_add(1)
}

#[cfg(test)]
mod tests {
    use layout::{ComposedLayout, Swizzle, parse_layout};

    use super::composed_cosize;

    /// The odometer's answer is the largest swizzled offset of the whole table.
    #[test]
    fn the_cosize_walk_matches_the_table() {
        let cases = [
            ((3, 3, 3), 0, "(128,64,3):(64,1,8192)"),
            ((3, 3, 3), 0, "(128,(64,4)):(64,(1,8192))"),
            ((2, 3, 3), 16, "((8,4),(8,2)):((8,256),(1,64))"),
            ((3, 4, 3), 0, "(5,7):(7,1)"),
        ];
        for ((bits, base, shift), offset, text) in cases {
            let inner = parse_layout::<i64>(text).unwrap();
            let swizzle = Swizzle::new(bits, base, shift).unwrap();
            let composed = ComposedLayout::new(swizzle, offset, inner);
            let table = composed.table(1 << 20).unwrap();
            let expected = table.iter().max().map(|max| max + 1);
            assert_eq!(composed_cosize(&composed), expected, "{text}");
        }
    }
}
