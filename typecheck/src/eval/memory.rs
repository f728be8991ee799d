//! Allocations: `smem T[layout]`, `rmem T[layout]`, `tmem T[layout]`, with the
//! shared buffer or register fragment they become.

use std::sync::Arc;

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
                // A swizzle moves offsets only within its aligned blocks: past the
                // walk's limit (2^20 elements), the unswizzled cosize stands in, so a
                // huge swizzled buffer still meets the shared-memory budget (E0207).
                let cosize = self.composed_cosize(&composed).or_else(|| {
                    composed
                        .inner()
                        .cosize()
                        .ok()
                        .map(|inner| inner.saturating_add(composed.offset()))
                });
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
                return self.wrong_type(
                    layout_expr.span,
                    &other,
                    &format!("{what} must be a layout"),
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
                align: 128,
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
        Value::Tensor(Arc::new(Tensor {
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

impl Checker<'_> {
    /// The extent of memory a swizzled layout touches: one past its largest offset,
    /// computed once per layout.
    pub(crate) fn composed_cosize(&mut self, composed: &layout::ComposedLayout) -> Option<i64> {
        if let Some(known) = self.evaluated.cosizes.get(composed) {
            return *known;
        }
        let cosize = composed.cosize(1 << 20).ok().flatten();
        (self.evaluated.cosizes).insert(composed.clone(), cosize);
        cosize
    }
}
