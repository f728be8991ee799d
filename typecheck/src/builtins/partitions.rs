//! The thread slices of tiled copies and MMAs: `thr.partition_S(t)`, `partition_D`,
//! `retile_S`/`retile_D`, `partition_A`/`B`/`C` and `partition_fragment_*`, each the
//! `cute` partitioning of a tensor's layout for one thread.

use std::rc::Rc;

use cute::{Operand, Side, Tensor, TensorLayout, TiledCopy, TiledMma};
use lang::Span;
use lang::ast::Name;
use layout::{Int, SymInt};

use crate::builtins::Arg;
use crate::check::Checker;
use crate::value::Value;

impl<'a> Checker<'a> {
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
}
