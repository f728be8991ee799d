//! Addresses in swizzled shared memory, computed once per thread where the algebra
//! allows it.
//!
//! An element of a swizzled buffer lives at `swizzle(inner(i) + offset)`, where `i`
//! is its index into the inner layout's domain. Evaluating that at run time costs a
//! division and remainder per mode and then the swizzle's mask, shift and xor: a
//! dozen instructions for every `ldmatrix` of a GEMM's k-loop. CuTe's kernels avoid
//! it because most of `i` is known per thread, and what varies in the loop (the
//! pipeline stage) moves whole swizzle periods. This module finds that structure:
//!
//! - `i` splits into its thread part `a` (every term over `thread_idx` and the
//!   constant) and the rest `r`. When every thread's `a` lies below a boundary `P`
//!   of the inner layout's modes (a product of its leading extents) and `P` divides
//!   `r`, then `inner(a + r) = inner(a) + suffix(r / P)`, with `suffix` the modes
//!   from the boundary on.
//! - When `suffix`'s strides are multiples of the swizzle's period, it passes
//!   through the swizzle: `swizzle(x + suffix) = swizzle(x) + suffix`.
//! - What is left, `swizzle(inner(a) + offset)`, is known for every thread of the
//!   block: the compiler evaluates it for each, and when it differs from an address
//!   already computed by the same constant for all of them, the element is that
//!   address plus an immediate. Only the first of each family, its anchor
//!   (`anchors.rs`), is computed at run time, once per thread.
//!
//! Anything else takes the general path: the inner layout and the swizzle evaluated
//! on the run-time index.

use std::rc::Rc;
use std::sync::{Arc, PoisonError};

use cute::{Base, Tensor};
use kir::{BinOp, Ty, ValueId};
use layout::{ComposedLayout, Int, IntTuple, Layout, SymFactor, SymInt};

use crate::builder::Builder;
use crate::memory::Place;

/// Most threads of a block whose addresses the compiler evaluates one by one.
const MAX_ENUMERATED_THREADS: i64 = 1024;

/// An index without its constant, split into its terms over thread indices and the
/// rest, with the largest number the rest is provably a multiple of.
pub(crate) struct ThreadSplit {
    thread_terms: SymInt,
    rest: SymInt,
    divisor: i64,
}

/// A swizzled element split into its per-thread offset and its run-time rest.
pub(crate) struct Split {
    /// The thread part of the index, constant included.
    pub(crate) thread_part: SymInt,
    /// `swizzle(inner(thread_part) + offset)` for each thread of the block.
    pub(crate) per_thread: Rc<Vec<i64>>,
    /// The elements the run-time rest adds after the swizzle.
    pub(crate) rest: SymInt,
}

impl Builder<'_> {
    /// Where element `index` of a swizzled shared tensor is.
    pub(crate) fn swizzled_place(
        &mut self,
        tensor: &Tensor,
        index: &SymInt,
        composed: &ComposedLayout,
        bytes: i64,
    ) -> Option<Place> {
        let Base::Shared(buffer) = tensor.base else {
            self.unsupported("a swizzled layout outside shared memory".to_owned());
            return None;
        };
        let start = self.shared_offsets.get(buffer).copied().unwrap_or(0);
        // A constant index is a constant element: the buffer's base and an immediate.
        if let Some(constant) = index.as_constant()
            && let Ok(inner_offset) = composed.inner().evaluate_index(&constant)
            && let Some(element) = inner_offset.checked_add(composed.offset())
            && let Some(offset) = composed.swizzle().apply(element).checked_mul(bytes)
        {
            let base = self.shared_base();
            return Some(shared(base, start + offset));
        }
        let Some(split) = self.split_address(tensor, index, composed, bytes) else {
            let unswizzled = self.unswizzled(tensor, index)?;
            let address = self.swizzled_address(&unswizzled, composed, bytes)?;
            return Some(shared(address, start));
        };
        let address = self.plus_rest(split.anchor, &split.rest, bytes)?;
        Some(shared(address, split.offset))
    }

    /// `index` split as the module's documentation describes, if it can be. The
    /// constant term goes to the thread part modulo the boundary, the rest of it to
    /// the run-time part (where it becomes an immediate offset).
    pub(crate) fn split(&mut self, index: &SymInt, composed: &ComposedLayout) -> Option<Split> {
        let (variable, constant) = index.split_constant();
        let parts = self.thread_split(variable)?;
        let (thread_terms, rest, divisor) = (&parts.thread_terms, &parts.rest, parts.divisor);
        let thread_values = self.thread_values(thread_terms)?;
        let inner = composed.inner().flatten();
        let (shapes, strides) = (inner.shape().leaves(), inner.stride().leaves());
        let period = composed.swizzle().size();
        let mut boundary = 1_i64;
        let mut chosen = None;
        for mode in 0..shapes.len() {
            let low = constant.rem_euclid(boundary);
            let fits = thread_values
                .iter()
                .all(|value| (0..boundary).contains(&(value + low)));
            let passes = strides[mode..].iter().all(|stride| stride % period == 0);
            if fits && passes && divisor % boundary == 0 {
                chosen = Some((mode, boundary, low));
                break;
            }
            boundary = boundary.checked_mul(shapes[mode])?;
        }
        let (firsts, rest) = match chosen {
            Some((mode, boundary, low)) => {
                let suffix = Layout::new(
                    IntTuple::Tuple(shapes[mode..].iter().map(|s| IntTuple::Int(*s)).collect()),
                    IntTuple::Tuple(strides[mode..].iter().map(|s| IntTuple::Int(*s)).collect()),
                )
                .ok()?
                .to_symbolic();
                let high = Int::add(rest, &SymInt::constant(constant - low)).ok()?;
                let quotient = Int::div(&high, &SymInt::constant(boundary)).ok()?;
                let firsts: Vec<i64> = thread_values.iter().map(|value| value + low).collect();
                (firsts, suffix.evaluate_index(&quotient).ok()?)
            }
            // Without run-time terms the whole index is the thread part.
            None if divisor == 0 => {
                let firsts = thread_values.iter().map(|value| value + constant).collect();
                (firsts, SymInt::constant(0))
            }
            None => return None,
        };
        if firsts.iter().any(|first| *first < 0) {
            return None;
        }
        let shift = firsts[0] - thread_values[0];
        let thread_part = Int::add(thread_terms, &SymInt::constant(shift)).ok()?;
        // The elements of a tile share their thread terms and, mostly, the shift: the
        // offsets of every thread are computed once for each.
        let key = (thread_terms.clone(), shift, composed.clone());
        let per_thread = match self.tables.per_thread_offsets.get(&key) {
            Some(known) => known.clone()?,
            None => {
                let offsets = self
                    .swizzled_offsets(&firsts, composed, &inner)
                    .map(Rc::new);
                self.tables.per_thread_offsets.insert(key, offsets.clone());
                offsets?
            }
        };
        Some(Split {
            thread_part,
            per_thread,
            rest,
        })
    }

    /// `variable` (an index without its constant) as its terms over thread indices
    /// alone and the rest, computed once per expression: the elements of a tile
    /// differ only in their constants.
    fn thread_split(&mut self, variable: SymInt) -> Option<Rc<ThreadSplit>> {
        if let Some(known) = self.tables.thread_splits.get(&variable) {
            return known.clone();
        }
        let split = (|| {
            let mut thread_terms = SymInt::constant(0);
            for (coefficient, factors) in variable.terms() {
                if factors.iter().all(|factor| mentions_only_threads(*factor)) {
                    let term = term_value(coefficient, &factors)?;
                    thread_terms = Int::add(&thread_terms, &term).ok()?;
                }
            }
            let rest = Int::sub(&variable, &thread_terms).ok()?;
            let divisor = i64::try_from(rest.provable_divisor(&|_| false)).ok()?;
            Some(Rc::new(ThreadSplit {
                thread_terms,
                rest,
                divisor,
            }))
        })();
        self.tables.thread_splits.insert(variable, split.clone());
        split
    }

    /// The value of `terms` (over thread indices) in each thread of the block, computed
    /// once per expression.
    fn thread_values(&mut self, terms: &SymInt) -> Option<Rc<Vec<i64>>> {
        if let Some(known) = self.tables.thread_values.get(terms) {
            return known.clone();
        }
        let values = self.block_threads().and_then(|threads| {
            let values: Option<Vec<i64>> = threads
                .iter()
                .map(|thread| terms.evaluate(&|name| thread_value(name, *thread)))
                .collect();
            values.map(Rc::new)
        });
        self.tables
            .thread_values
            .insert(terms.clone(), values.clone());
        values
    }

    /// `swizzle(inner(first) + offset)` for each thread's first element, `inner` the
    /// flattened inner layout.
    fn swizzled_offsets(
        &mut self,
        firsts: &[i64],
        composed: &ComposedLayout,
        inner: &Layout<i64>,
    ) -> Option<Vec<i64>> {
        let swizzle = composed.swizzle();
        let table = self.inner_table(composed);
        (firsts.iter())
            .map(|first| {
                let inner_offset = inner_offset(inner, table.as_deref(), *first)?;
                Some(swizzle.apply(inner_offset.checked_add(composed.offset())?))
            })
            .collect()
    }

    /// The inner layout's offsets of a swizzled allocation, tabulated once.
    pub(crate) fn inner_table(&self, composed: &ComposedLayout) -> Option<Arc<Vec<i64>>> {
        let mut tables = (self.tables.inner.lock()).unwrap_or_else(PoisonError::into_inner);
        tables
            .entry(composed.clone())
            .or_insert_with(|| composed.inner().table(1 << 16).ok().map(Arc::new))
            .clone()
    }

    /// The (x, y, z) index of every thread of the block, when the block's extents are
    /// constants and not too many.
    fn block_threads(&self) -> Option<Vec<[i64; 3]>> {
        let mut extents = [1_i64; 3];
        for (extent, traced) in extents.iter_mut().zip(&self.trace.block) {
            *extent = traced.as_constant()?;
        }
        let total = extents.iter().try_fold(1_i64, |n, e| n.checked_mul(*e))?;
        if !(1..=MAX_ENUMERATED_THREADS).contains(&total) {
            return None;
        }
        let mut threads = Vec::new();
        for z in 0..extents[2] {
            for y in 0..extents[1] {
                for x in 0..extents[0] {
                    threads.push([x, y, z]);
                }
            }
        }
        Some(threads)
    }

    /// The 32-bit shared address of `swizzle(unswizzled)` in elements of `bytes`,
    /// relative to the buffer's start: the swizzle's mask, shift and xor at run time.
    pub(crate) fn swizzled_address(
        &mut self,
        unswizzled: &SymInt,
        composed: &ComposedLayout,
        bytes: i64,
    ) -> Option<ValueId> {
        let swizzle = composed.swizzle();
        let x = self.int(unswizzled)?;
        let mask = self.constant(swizzle.yyy_mask(), Ty::I64);
        let selected = self.binary(BinOp::And, x, mask);
        let shift = swizzle.shift();
        let amount = self.constant(i64::from(shift.unsigned_abs()), Ty::I64);
        let moved = if shift >= 0 {
            self.binary(BinOp::Shr, selected, amount)
        } else {
            self.binary(BinOp::Shl, selected, amount)
        };
        let element = self.binary(BinOp::Xor, x, moved);
        let scaled = self.scale(element, bytes);
        let narrow = self.convert(scaled, Ty::I32);
        let base = self.shared_base();
        Some(self.binary(BinOp::Add, base, narrow))
    }
}

fn shared(address: ValueId, offset: i64) -> Place {
    Place::Memory {
        space: kir::Space::Shared,
        address,
        offset,
    }
}

fn is_thread_variable(name: &str) -> bool {
    name.starts_with("thread_idx.")
}

/// Whether a factor's variables are all thread indices.
fn mentions_only_threads(factor: SymFactor<'_>) -> bool {
    match factor {
        SymFactor::Variable(name) => is_thread_variable(name),
        SymFactor::CeilDiv(a, b) | SymFactor::Div(a, b) | SymFactor::Mod(a, b) => {
            [a, b].iter().all(|operand| {
                operand
                    .variables()
                    .iter()
                    .all(|name| is_thread_variable(name))
            })
        }
    }
}

/// `coefficient * factors...` as a symbolic integer.
fn term_value(coefficient: i64, factors: &[SymFactor<'_>]) -> Option<SymInt> {
    let mut product = SymInt::constant(coefficient);
    for factor in factors {
        let value = match *factor {
            SymFactor::Variable(name) => SymInt::variable(name),
            SymFactor::CeilDiv(a, b) => a.ceil_div(b).ok()?,
            SymFactor::Div(a, b) => Int::div(a, b).ok()?,
            SymFactor::Mod(a, b) => Int::rem(a, b).ok()?,
        };
        product = Int::mul(&product, &value).ok()?;
    }
    Some(product)
}

fn thread_value(name: &str, [x, y, z]: [i64; 3]) -> Option<i64> {
    match name {
        "thread_idx.x" => Some(x),
        "thread_idx.y" => Some(y),
        "thread_idx.z" => Some(z),
        _ => None,
    }
}

/// The offset of a swizzled allocation's inner layout at `index`: read from `table`
/// (the layout's offsets, [`Builder::inner_table`]) where it covers `index`, evaluated
/// otherwise.
pub(crate) fn inner_offset(
    inner: &Layout<i64>,
    table: Option<&Vec<i64>>,
    index: i64,
) -> Option<i64> {
    let tabulated = table.and_then(|table| table.get(usize::try_from(index).ok()?).copied());
    match tabulated {
        Some(offset) => Some(offset),
        None => inner.evaluate_index(&index).ok(),
    }
}
