//! The thread slices of tiled copies and MMAs: `thr.partition_S(t)`, `partition_D`,
//! `retile_S`/`retile_D`, `partition_A`/`B`/`C` and `partition_fragment_*`, each the
//! `cute` partitioning of a tensor's layout for one thread; and the checks that the
//! partitioning fits: a tile dividing each static extent it splits (E0224) and a block
//! with the threads a slice needs (E0225).

use std::sync::Arc;

use cute::{Operand, Side, Tensor, TensorLayout, TiledCopy, TiledMma};
use lang::ast::Name;
use lang::{Diagnostic, Span};
use layout::SymInt;

use crate::builtins::Arg;
use crate::check::{Checker, Fragment};
use crate::value::Value;

impl<'a> Checker<'a> {
    pub(crate) fn thread_copy_method(
        &mut self,
        copy: &Arc<TiledCopy>,
        thread: &SymInt,
        name: &str,
        arg: &Arg,
        span: Span,
    ) -> Value {
        let Value::Tensor(tensor) = &arg.value else {
            return self.wrong_arg(arg, &format!("`{name}` takes a tensor"), "not a tensor");
        };
        if name.starts_with("retile") {
            return match copy.retile(&tensor.layout.layout) {
                Ok(layout) => Value::Tensor(Arc::new(Tensor {
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
        let tile: Vec<(String, i64)> = copy
            .tiler
            .modes()
            .iter()
            .enumerate()
            .filter_map(|(mode, extent)| Some((format!("mode {mode}"), extent.product().ok()?)))
            .collect();
        if !self.tile_divides(tensor, &tile, name, "tiled copy", span) {
            return Value::Unknown;
        }
        let side = if name == "partition_S" {
            Side::Source
        } else {
            Side::Destination
        };
        self.check_vector_access(copy, tensor, side, arg.span);
        let fragment = self.thread_value_fragment(copy, &tensor.layout.layout, side);
        match fragment.and_then(|fragment| cute::thread_slice(&fragment, thread)) {
            Ok((layout, offset)) => match tensor.relaid(layout, &offset) {
                Ok(partitioned) => Value::Tensor(Arc::new(partitioned)),
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

    /// `copy.thread_value_fragment(layout, side)`, computed once per checker (for
    /// every tiled copy that [partitions like](TiledCopy::partitions_like) this one).
    pub(crate) fn thread_value_fragment(
        &mut self,
        copy: &Arc<TiledCopy>,
        layout: &layout::Layout<SymInt>,
        side: Side,
    ) -> Fragment {
        let key = (layout.clone(), side);
        let known = (self.evaluated.fragments.get(&key))
            .and_then(|known| known.iter().find(|(other, _)| other.partitions_like(copy)));
        if let Some((_, fragment)) = known {
            return fragment.clone();
        }
        let fragment = copy.thread_value_fragment(layout, side);
        (self.evaluated.fragments.entry(key).or_default())
            .push((Arc::clone(copy), fragment.clone()));
        fragment
    }

    pub(crate) fn thread_mma_method(
        &mut self,
        mma: &Arc<TiledMma>,
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
            return self.wrong_arg(arg, &format!("`{name}` takes a tensor"), "not a tensor");
        };
        let dtype = mma.mma_atom().dtypes[match operand {
            Operand::A => 1,
            Operand::B => 2,
            Operand::C => 3,
        }];
        let origin = format!(
            "{dtype}: the {} operand type of `{}`",
            ["A", "B", "C"][operand as usize],
            mma.atom.display_name()
        );
        if name.starts_with("make_fragment") {
            let fragment = self.fragment_like(&arg.value, arg.span, Some(dtype));
            return self.fragment_from_mma(fragment, span, origin);
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
        let (first, second) = operand.modes();
        let tile: Vec<(String, i64)> = [first, second]
            .into_iter()
            .filter_map(|mode| Some((["M", "N", "K"][mode].to_owned(), mma.tile_size(mode).ok()?)))
            .collect();
        if !self.tile_divides(tensor, &tile, name, "tiled MMA", span) {
            return Value::Unknown;
        }
        let partitioned = match mma.partition(operand, &tensor.layout.layout, thread) {
            Ok((layout, offset)) => match tensor.relaid(layout, &offset) {
                Ok(partitioned) => Value::Tensor(Arc::new(partitioned)),
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
            let fragment = self.fragment_like(&partitioned, arg.span, Some(dtype));
            return self.fragment_from_mma(fragment, span, origin);
        }
        partitioned
    }

    /// Remembers that a fragment's element type is an MMA atom's choice, so that a copy
    /// of other elements into it can say so at the line that made it.
    fn fragment_from_mma(&mut self, fragment: Value, span: Span, origin: String) -> Value {
        if let Value::Tensor(tensor) = &fragment
            && let cute::Base::Registers(number) = tensor.base
        {
            self.tracing.fragment_origins.insert(number, (span, origin));
        }
        fragment
    }

    /// E0224: `true` unless a mode of `tensor` with a static extent is not a multiple
    /// of the tile's extent there (`tile` names each mode it covers and its extent);
    /// the partitioning would round the extent up and reach past the tensor. Run-time
    /// extents are left to predication.
    fn tile_divides(
        &mut self,
        tensor: &Tensor,
        tile: &[(String, i64)],
        method: &str,
        tiled: &str,
        span: Span,
    ) -> bool {
        let shape = tensor.layout.layout.shape().modes();
        for ((mode, step), extent) in tile.iter().zip(&shape) {
            let Some(extent) = extent.product().ok().and_then(|e| e.as_constant()) else {
                continue;
            };
            if *step <= 0 || extent % step == 0 {
                continue;
            }
            let covered = (extent / step + 1).saturating_mul(*step);
            self.report(
                Diagnostic::error(
                    "E0224",
                    format!(
                        "`{method}` splits {mode} of extent {extent} into the {tiled}'s tiles of {step}: \
                         {extent} is not a multiple of {step}, so the last tile reaches {covered}, past the tensor"
                    ),
                )
                .with_primary(span, format!("{mode}: {extent} is not a multiple of {step}"))
                .with_help(format!(
                    "pad the tensor's {mode} to a multiple of {step}, change the thread layout so \
                     the tile divides {extent}, or predicate the copy against an identity tensor"
                )),
            );
            return false;
        }
        true
    }

    /// E0225: `true` unless the kernel's static block has fewer threads than the
    /// `tiled` copy or MMA needs (`threads`), which would leave part of its tile unmoved.
    pub(crate) fn block_has_threads(&mut self, threads: i64, tiled: &str, span: Span) -> bool {
        let Some(block) = self.frame.block_threads else {
            return true;
        };
        if threads <= block {
            return true;
        }
        self.report(
            Diagnostic::error(
                "E0225",
                format!(
                    "this {tiled} needs {threads} threads, but the kernel's block has only {block}: \
                     the threads past {block} never run, so part of every tile is never touched"
                ),
            )
            .with_primary(span, format!("needs {threads} threads, the block has {block}"))
            .with_help(format!(
                "launch with `block({threads})`, or build the {tiled} with a thread layout of at most {block} threads"
            )),
        );
        false
    }
}
