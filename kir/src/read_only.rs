//! Which global tensor parameters a kernel only reads, and which addresses point into
//! them: what lets the uniformity analysis take a load of such a tensor at an address
//! every thread of a warpgroup computes alike (a packed batch's offset,
//! `cu_seqlens[block_idx.z]`) to give every thread the same value.
//!
//! That holds when the tensor does not change while the kernel runs: nothing in the
//! kernel writes it, and the launch's other tensors do not overlap it (CUDA C's
//! `const __restrict__`, which `__ldg` and `ld.global.nc` rest on too). The first is
//! what this module proves; the second is the caller's to keep (docs/language.md,
//! "Warps").
//!
//! A value *points into* tensor parameter `i` when it is that parameter's address, or
//! an offset of one (integer arithmetic with other operands that point nowhere). The
//! tensor is *written* (conservatively, may be) when a value pointing into it reaches
//! any instruction other than integer arithmetic and a load's address: a store, an
//! atomic, an atom or intrinsic (a TMA copy names its tensor map, which counts as the
//! tensor), a branch's or loop's carried values, or arithmetic mixing two tensors.

use rustc_hash::FxHashMap;

use crate::ir::{Inst, Kernel, Op, ValueId};
use crate::signature::ParamKind;

/// The addresses that point into a tensor parameter the kernel never writes.
pub(crate) struct ReadOnly {
    /// The tensor parameter each pointer value points into.
    bases: FxHashMap<ValueId, usize>,
    /// Per parameter: whether the kernel may write it.
    written: Vec<bool>,
}

impl ReadOnly {
    pub(crate) fn of(kernel: &Kernel) -> ReadOnly {
        let mut read_only = ReadOnly {
            bases: FxHashMap::default(),
            written: vec![false; kernel.signature.params.len()],
        };
        read_only.block(kernel, &kernel.body);
        read_only
    }

    /// Whether `address` points into a tensor parameter the kernel never writes.
    pub(crate) fn unwritten(&self, address: ValueId) -> bool {
        self.bases
            .get(&address)
            .is_some_and(|param| !self.written[*param])
    }

    fn block(&mut self, kernel: &Kernel, body: &[Inst]) {
        for inst in body {
            self.instruction(kernel, inst);
            for region in inst.op.regions() {
                self.block(kernel, &region.body);
                self.escape(region.yields.iter());
            }
        }
    }

    fn instruction(&mut self, kernel: &Kernel, inst: &Inst) {
        match &inst.op {
            Op::Param(index) => {
                let tensor = match kernel.signature.params.get(*index).map(|param| &param.kind) {
                    Some(ParamKind::Tensor { .. }) => Some(*index),
                    Some(ParamKind::TensorMap(map)) => Some(map.tensor),
                    _ => None,
                };
                if let (Some(tensor), [result]) = (tensor, inst.results.as_slice()) {
                    self.bases.insert(*result, tensor);
                }
            }
            Op::Load { address, .. } => {
                let others = inst.op.operands();
                self.escape(others.iter().filter(|operand| *operand != address));
            }
            Op::Unary(..) | Op::Binary(..) | Op::Convert(_) => {
                let operands = inst.op.operands();
                let mut pointed: Vec<usize> = operands
                    .iter()
                    .filter_map(|operand| self.bases.get(operand).copied())
                    .collect();
                pointed.dedup();
                match (pointed.as_slice(), inst.results.as_slice()) {
                    ([], _) => {}
                    ([tensor], [result]) => {
                        self.bases.insert(*result, *tensor);
                    }
                    _ => self.escape(operands.iter()),
                }
            }
            _ => self.escape(inst.op.operands().iter()),
        }
    }

    /// Marks the tensors `values` point into as (perhaps) written.
    fn escape<'v>(&mut self, values: impl Iterator<Item = &'v ValueId>) {
        for value in values {
            if let Some(tensor) = self.bases.get(value) {
                self.written[*tensor] = true;
            }
        }
    }
}
