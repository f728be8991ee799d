//! Blackwell's tensor memory and tcgen05 synchronization (sm_100a), each traced as an
//! effect in program order.
//!
//! Tensor memory (TMEM) is 128 lanes of 512 32-bit columns per block. A whole warp
//! allocates columns with `tmem_alloc(slots, coord, columns)`, which writes their
//! address (lane 0, first column) to the shared `u32` `slots[coord]`, and frees them
//! with `tmem_dealloc(address, columns)` before the block exits. The checks: the
//! target has tcgen05 (E0212); `columns` is a constant power of two from 32 to 512,
//! and the kernel's allocations together hold at most the 512 columns a block has
//! (E0227); the slot is one element of a shared `u32` tensor (E0216). The fences, the
//! waits for tensor-memory loads and stores, and `tcgen05_commit` (one arrival on an
//! mbarrier once the thread's earlier tcgen05 MMAs complete) need sm_100a too.

use cute::Dtype;

use crate::builtins::Args;
use crate::builtins::hopper::SharedWord;
use crate::check::Checker;
use kir::Intrinsic;

use crate::trace::{Effect, Mbarrier, Tmem, term_of};
use crate::value::Value;

/// The 32-bit columns of a block's tensor memory (each of its 128 lanes).
pub(crate) const TMEM_COLUMNS: i64 = 512;

/// The architecture with tcgen05 and tensor memory.
const BLACKWELL: u32 = 100;

impl<'a> Checker<'a> {
    /// `tmem_alloc(slots, coord, columns)` and `tmem_dealloc(address, columns)`.
    pub(crate) fn tmem(&mut self, name: &'static str, args: &Args) -> Value {
        if !self.require_arch(name, BLACKWELL, args.call_span) {
            return Value::Unit;
        }
        let Some(pair) = self.cta_group_pair(name, args) else {
            return Value::Unit;
        };
        let p = args.positional();
        let Some(columns) = self.tmem_columns(name, p[p.len() - 1]) else {
            return Value::Unit;
        };
        let action = if name == "tmem_alloc" {
            let slot = SharedWord {
                dtype: Dtype::U32,
                what: "a tensor-memory address is 4 bytes of shared memory",
                plural: "addresses",
            };
            let Some(index) = self.shared_word(name, slot, p[0], p[1]) else {
                return Value::Unit;
            };
            if !self.count_allocated_columns(columns, p[2].span) {
                return Value::Unit;
            }
            let Value::Tensor(slot) = &p[0].value else {
                return Value::Unit;
            };
            Tmem::Alloc {
                slot: slot.clone(),
                index,
            }
        } else {
            if self
                .expect_int(&p[0].value, p[0].span, "a tensor-memory address")
                .is_none()
            {
                return Value::Unit;
            }
            let Some(address) = term_of(&p[0].value) else {
                return Value::Unit;
            };
            Tmem::Dealloc { address }
        };
        if self.tracing_kernel() {
            self.emit(Effect::Tmem {
                action,
                pair,
                columns,
                span: args.call_span,
            });
        }
        Value::Unit
    }

    /// `tcgen05_commit(barriers, coord)`: one arrival on the mbarrier once this
    /// thread's earlier tcgen05 MMAs have completed.
    pub(crate) fn tcgen05_commit(&mut self, name: &'static str, args: &Args) -> Value {
        if !self.require_arch(name, BLACKWELL, args.call_span) {
            return Value::Unit;
        }
        let Some(pair) = self.cta_group_pair(name, args) else {
            return Value::Unit;
        };
        let p = args.positional();
        let Some(index) = self.barrier_element(name, p[0], p[1]) else {
            return Value::Unit;
        };
        let mask = match args.named("multicast") {
            Some(arg) => {
                match self.expect_int(&arg.value, arg.span, "a mask of the cluster's blocks") {
                    Some(_) => term_of(&arg.value),
                    None => return Value::Unit,
                }
            }
            None => None,
        };
        if self.tracing_kernel()
            && let Value::Tensor(tensor) = &p[0].value
        {
            self.emit(Effect::Mbarrier {
                action: Mbarrier::Tcgen05Commit { pair },
                tensor: tensor.clone(),
                index,
                operand: mask,
                span: args.call_span,
            });
        }
        Value::Unit
    }

    /// `tmem_relinquish_alloc_permit()`.
    pub(crate) fn tmem_relinquish(&mut self, name: &'static str, args: &Args) -> Value {
        if !self.require_arch(name, BLACKWELL, args.call_span) {
            return Value::Unit;
        }
        if let Some(pair) = self.cta_group_pair(name, args) {
            let intrinsic = Intrinsic::TmemRelinquish { pair };
            self.emit(Effect::Intrinsic(intrinsic, args.call_span));
        }
        Value::Unit
    }

    /// The constant column count `arg` of `name`: a power of two from 32 to 512.
    fn tmem_columns(&mut self, name: &str, arg: &crate::builtins::Arg) -> Option<i64> {
        let what = "the tensor-memory columns";
        let columns = self.expect_const_int(&arg.value, arg.span, what)?;
        let power_of_two = columns > 0 && columns & (columns - 1) == 0;
        if !power_of_two || !(32..=TMEM_COLUMNS).contains(&columns) {
            self.error(
                "E0227",
                arg.span,
                format!("`{name}` takes a power of two from 32 to 512 columns, not {columns}"),
                "not a tensor-memory allocation size",
            );
            return None;
        }
        Some(columns)
    }

    /// Adds `columns` to the kernel's allocations; false (E0227 at `span`) when they
    /// would hold more than a block's tensor memory.
    fn count_allocated_columns(&mut self, columns: i64, span: lang::Span) -> bool {
        let total = self.tracing.tmem_columns + columns;
        if total > TMEM_COLUMNS {
            self.error(
                "E0227",
                span,
                format!(
                    "the kernel's `tmem_alloc`s take {total} columns of tensor memory; a block has {TMEM_COLUMNS}"
                ),
                "more tensor memory than a block has",
            );
            return false;
        }
        self.tracing.tmem_columns = total;
        true
    }
}
