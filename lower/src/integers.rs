//! Run-time integers: constants, pure instructions computed once, and symbolic
//! integers (`SymInt`) as sums of products of variables, each term computed once.

use cute::Dtype;
use kir::{BinOp, Op, Special, Ty, UnOp, ValueId};
use layout::{SymFactor, SymInt};
use trace::TraceParamKind;

use crate::builder::Builder;

impl Builder<'_> {
    /// A zero of type `ty`, the value of a slot never written.
    pub(crate) fn zero(&mut self, ty: Ty) -> ValueId {
        match ty {
            Ty::F32 | Ty::F64 => self.pure(Op::ConstFloat(0.0), ty),
            Ty::F16 | Ty::BF16 => {
                let zero = self.pure(Op::ConstFloat(0.0), Ty::F32);
                self.convert(zero, ty)
            }
            _ => self.constant(0, ty),
        }
    }

    /// An integer constant, defined in the kernel's body (the `values` pass keeps one
    /// of each).
    pub(crate) fn constant(&mut self, value: i64, ty: Ty) -> ValueId {
        self.define_at(0, Op::ConstInt(value), &[ty])[0]
    }

    /// Emits a pure instruction in the outermost open region where its operands are
    /// defined (see [`Builder::hoisting_depth`]); the `values` pass keeps the first of
    /// those that compute the same.
    pub(crate) fn pure(&mut self, op: Op, ty: Ty) -> ValueId {
        let depth = self.hoisting_depth(&op);
        self.define_at(depth, op, &[ty])[0]
    }

    /// Emits a pure instruction with several results, in the outermost open region
    /// where its operands are defined.
    pub(crate) fn pure_many(&mut self, op: Op, tys: &[Ty]) -> Vec<ValueId> {
        let depth = self.hoisting_depth(&op);
        self.define_at(depth, op, tys)
    }

    pub(crate) fn binary(&mut self, op: BinOp, a: ValueId, b: ValueId) -> ValueId {
        let ty = self.kernel.ty(a);
        self.pure(Op::Binary(op, a, b), ty)
    }

    /// `value` as `ty`: a conversion, unless it already is one (the `values` pass folds
    /// those of constants and of widened 32-bit integers).
    pub(crate) fn convert(&mut self, value: ValueId, ty: Ty) -> ValueId {
        if self.kernel.ty(value) == ty {
            return value;
        }
        self.pure(Op::Convert(value), ty)
    }

    /// A symbolic integer as a 64-bit value. Each term is computed once, and a sum
    /// starts with the terms computed before, so expressions that differ in one term
    /// (the addresses of one thread's elements) share everything else.
    pub(crate) fn int(&mut self, value: &SymInt) -> Option<ValueId> {
        if let Some(constant) = value.as_constant() {
            return Some(self.constant(constant, Ty::I64));
        }
        if let Some(known) = self.evaluated.ints.get(value) {
            return Some(*known);
        }
        let mut terms = value.split_terms();
        let next = self.reuse.term_order.len();
        terms.sort_by_key(|term| self.reuse.term_order.get(term).copied().unwrap_or(next));
        let mut sum: Option<ValueId> = None;
        for term in terms {
            let order = self.reuse.term_order.len();
            self.reuse.term_order.entry(term.clone()).or_insert(order);
            let Some((coefficient, factors)) = term.terms().pop() else {
                continue;
            };
            let mut product: Option<ValueId> = None;
            for factor in factors {
                let operand = self.factor(factor)?;
                product = Some(match product {
                    None => operand,
                    Some(product) => self.binary(BinOp::Mul, product, operand),
                });
            }
            let computed = match product {
                None => self.constant(coefficient, Ty::I64),
                Some(product) => self.scale(product, coefficient),
            };
            let total = match sum {
                None => computed,
                Some(sum) => self.binary(BinOp::Add, sum, computed),
            };
            sum = Some(total);
        }
        let result = match sum {
            Some(sum) => sum,
            None => self.constant(0, Ty::I64),
        };
        self.evaluated.ints.insert(value.clone(), result);
        Some(result)
    }

    /// `value * coefficient`, a shift for powers of two, a negation for -1.
    pub(crate) fn scale(&mut self, value: ValueId, coefficient: i64) -> ValueId {
        match coefficient {
            1 => value,
            // `neg`, not `mul` by -1: ptxas (CUDA 13) computed `max(-n, max(a, b * -1))`
            // of sign-extended 16-bit values wrongly from the multiplications
            // (tests/control/signed_wrap.cuk, `negations_in_nested_max`).
            -1 => {
                let ty = self.kernel.ty(value);
                self.pure(Op::Unary(UnOp::Neg, value), ty)
            }
            c if c > 0 && (c as u64).is_power_of_two() => {
                let shift = self.constant(i64::from(c.trailing_zeros()), Ty::I64);
                self.binary(BinOp::Shl, value, shift)
            }
            c => {
                let c = self.constant(c, Ty::I64);
                self.binary(BinOp::Mul, value, c)
            }
        }
    }

    fn factor(&mut self, factor: SymFactor<'_>) -> Option<ValueId> {
        match factor {
            SymFactor::Variable(name) => self.variable(name),
            SymFactor::Div(a, b) | SymFactor::CeilDiv(a, b) | SymFactor::Mod(a, b) => {
                let (a, b) = (&self.exact_value(a), &self.exact_value(b));
                let divisor = b.as_constant();
                let numerator = match factor {
                    SymFactor::CeilDiv(..) => {
                        let bump = layout::Int::sub(b, &SymInt::constant(1)).ok()?;
                        layout::Int::add(a, &bump).ok()?
                    }
                    _ => a.clone(),
                };
                let a = self.int(&numerator)?;
                // A value that may be negative: one with a variable that may be (a
                // signed parameter that is no tensor's extent, a loaded or computed
                // value) or that subtracts a variable, unless its bounds say otherwise
                // (`max(j - 1, 0)`). A hardware index less a constant is not: `(t - 128)
                // / 128` under `t >= 128` stays a shift (docs/language.md).
                let signed = ((numerator.variables().iter())
                    .any(|name| self.variables.signed.contains(name))
                    || subtracts_a_variable(&numerator))
                    && self.range(&numerator).is_none_or(|range| range.lo < 0);
                // Indices and extents are non-negative, so a power of two divides by a
                // shift and reduces by a mask; a value that may be negative divides as
                // C does (toward zero), as the checker's constants do.
                match (factor, divisor) {
                    (SymFactor::Mod(..), Some(d))
                        if !signed && d > 0 && (d as u64).is_power_of_two() =>
                    {
                        let mask = self.constant(d - 1, Ty::I64);
                        Some(self.binary(BinOp::And, a, mask))
                    }
                    (_, Some(d))
                        if !signed
                            && d > 0
                            && (d as u64).is_power_of_two()
                            && !matches!(factor, SymFactor::Mod(..)) =>
                    {
                        let shift = self.constant(i64::from(d.trailing_zeros()), Ty::I64);
                        Some(self.binary(BinOp::Shr, a, shift))
                    }
                    // A value that may be negative by a power of two: C truncates toward
                    // zero, so a negative numerator is biased by d - 1 before the shift
                    // (the remainder is what the quotient leaves), as compilers do.
                    (_, Some(d)) if signed && d > 1 && (d as u64).is_power_of_two() => {
                        let shift = self.constant(i64::from(d.trailing_zeros()), Ty::I64);
                        let sign_bits = self.constant(63, Ty::I64);
                        let sign = self.binary(BinOp::Shr, a, sign_bits);
                        let mask = self.constant(d - 1, Ty::I64);
                        let bias = self.binary(BinOp::And, sign, mask);
                        let biased = self.binary(BinOp::Add, a, bias);
                        let quotient = self.binary(BinOp::Shr, biased, shift);
                        if !matches!(factor, SymFactor::Mod(..)) {
                            return Some(quotient);
                        }
                        let multiple = self.binary(BinOp::Shl, quotient, shift);
                        Some(self.binary(BinOp::Sub, a, multiple))
                    }
                    _ => {
                        let op = if matches!(factor, SymFactor::Mod(..)) {
                            BinOp::Rem
                        } else {
                            BinOp::Div
                        };
                        let divisor = self.int(b)?;
                        if !self.divides_in_32_bits(&numerator, b) {
                            return Some(self.binary(op, a, divisor));
                        }
                        let a = self.convert(a, Ty::I32);
                        let divisor = self.convert(divisor, Ty::I32);
                        let result = self.binary(op, a, divisor);
                        Some(self.convert(result, Ty::I64))
                    }
                }
            }
        }
    }

    /// `value`, or the exact integer it stands for where it is one variable that holds
    /// an integer its type proved to fit (see `Builder::exact_values`).
    fn exact_value(&self, value: &SymInt) -> SymInt {
        let variables = value.variables();
        match variables.as_slice() {
            [name] if *value == SymInt::variable(name) => {
                (self.variables.exact.get(name).cloned()).unwrap_or_else(|| value.clone())
            }
            _ => value.clone(),
        }
    }

    /// A run-time variable: a hardware index or an integer parameter, as 64 bits.
    fn variable(&mut self, name: &str) -> Option<ValueId> {
        if let Some(known) = self.variables.values.get(name) {
            return Some(*known);
        }
        let value = if let Some(lane) = ["lane_idx", "warp_idx"].iter().position(|n| *n == name) {
            let linear = self.linear_thread_index()?;
            if lane == 0 {
                let mask = self.constant(31, Ty::I64);
                self.binary(BinOp::And, linear, mask)
            } else {
                let shift = self.constant(5, Ty::I64);
                self.binary(BinOp::Shr, linear, shift)
            }
        } else if let Some(special) = special(name) {
            let raw = self.pure(Op::Special(special), Ty::I32);
            self.convert(raw, Ty::I64)
        } else if let Some(index) = self.trace.int_param(name) {
            let ty = match &self.trace.params[index].kind {
                TraceParamKind::Int(Dtype::I64, _) => Ty::I64,
                TraceParamKind::Int(Dtype::U64, _) => Ty::U64,
                TraceParamKind::Int(Dtype::U32, _) => Ty::U32,
                _ => Ty::I32,
            };
            let raw = self.pure(Op::Param(index), ty);
            if !ty.is_unsigned() && !self.is_extent(name) {
                self.variables.signed.insert(name.to_owned());
            }
            self.convert(raw, Ty::I64)
        } else {
            self.unsupported(format!(
                "the run-time value `{name}` is neither a parameter nor a thread or block index (values loaded from memory or changed in run-time control flow cannot index tensors yet)"
            ));
            return None;
        };
        self.variables.values.insert(name.to_owned(), value);
        Some(value)
    }
}

impl Builder<'_> {
    /// The thread's index in its block, counting along x, then y, then z, as the
    /// hardware groups threads into warps.
    fn linear_thread_index(&mut self) -> Option<ValueId> {
        let extents: Vec<i64> = (self.trace.block.iter())
            .map(|extent| extent.as_constant().unwrap_or(1))
            .collect();
        let mut index = SymInt::variable("thread_idx.x");
        let mut stride = 1;
        for (axis, name) in ["thread_idx.y", "thread_idx.z"].into_iter().enumerate() {
            stride *= extents.get(axis).copied().unwrap_or(1);
            if extents.get(axis + 1).copied().unwrap_or(1) > 1 {
                let term =
                    layout::Int::mul(&SymInt::variable(name), &SymInt::constant(stride)).ok()?;
                index = layout::Int::add(&index, &term).ok()?;
            }
        }
        self.int(&index)
    }
}

/// Whether `value` subtracts a term with a variable, at its top or inside a quotient or
/// remainder (`(-n) / 3`), or divides by a negative constant (`t / -2`): such a value
/// may be negative whatever its variables are.
fn subtracts_a_variable(value: &SymInt) -> bool {
    let negative = |divisor: &SymInt| divisor.as_constant().is_some_and(|d| d < 0);
    value.terms().iter().any(|(coefficient, factors)| {
        (*coefficient < 0 && !factors.is_empty())
            || factors.iter().any(|factor| match factor {
                SymFactor::Variable(_) => false,
                // `t / -2` is at most zero; a remainder takes the dividend's sign.
                SymFactor::Div(a, b) | SymFactor::CeilDiv(a, b) => {
                    negative(b) || subtracts_a_variable(a) || subtracts_a_variable(b)
                }
                SymFactor::Mod(a, _) => subtracts_a_variable(a),
            })
    })
}

fn special(name: &str) -> Option<Special> {
    if name == "block_rank_in_cluster" {
        return Some(Special::BlockRankInCluster);
    }
    let (base, axis) = name.split_once('.')?;
    let axis = match axis {
        "x" => 0,
        "y" => 1,
        "z" => 2,
        _ => return None,
    };
    Some(match base {
        "thread_idx" => Special::ThreadIndex(axis),
        "block_idx" => Special::BlockIndex(axis),
        "block_dim" => Special::BlockDim(axis),
        "grid_dim" => Special::GridDim(axis),
        "cluster_idx" => Special::ClusterIndex(axis),
        "block_idx_in_cluster" => Special::BlockInCluster(axis),
        _ => return None,
    })
}
