//! Anchors: the addresses computed at run time for families of swizzled shared
//! elements, which the family's other elements reach with an immediate (see
//! `swizzled.rs` for the split that finds them). An anchor is kept while the region
//! that computed it is open (`regions.rs` forgets it when that closes), and a wgmma's
//! descriptors keep un-swizzled anchors of their own (`gmma.rs`, element size 0).

use std::rc::Rc;

use cute::{Base, Tensor};
use kir::{BinOp, Ty, ValueId};
use layout::{ComposedLayout, SymInt};

use crate::builder::Builder;
use crate::swizzled::Split;

/// An address computed at run time for a family of elements: the swizzled element
/// offset of each thread of the block, and the 32-bit address holding it.
pub(crate) struct Anchor {
    pub(crate) per_thread: Rc<Vec<i64>>,
    pub(crate) address: ValueId,
}

/// A swizzled element's address in parts (see [`Builder::split_address`]).
pub(crate) struct SplitAddress {
    pub(crate) anchor: ValueId,
    pub(crate) anchor_offsets: Vec<i64>,
    pub(crate) rest: SymInt,
    pub(crate) offset: i64,
}

impl Builder<'_> {
    /// The element of a swizzled shared `tensor` at `index` as `anchor + rest * bytes +
    /// offset`, when the module's split applies: `rest` (elements) moves whole swizzle
    /// periods, and `anchor_offsets` are each thread's byte offsets of the anchor in
    /// its buffer.
    pub(crate) fn split_address(
        &mut self,
        tensor: &Tensor,
        index: &SymInt,
        composed: &ComposedLayout,
        bytes: i64,
    ) -> Option<SplitAddress> {
        let Base::Shared(buffer) = tensor.base else {
            return None;
        };
        let start = self.shared_offsets.get(buffer).copied().unwrap_or(0);
        let split = self.split(index, composed)?;
        let (anchor, delta) = self.anchor(buffer, bytes, &split, composed)?;
        let (rest, immediate) = split.rest.split_constant();
        let anchor_offsets = (split.per_thread.iter())
            .map(|offset| (offset - delta) * bytes)
            .collect();
        Some(SplitAddress {
            anchor,
            anchor_offsets,
            rest,
            offset: start + (delta + immediate) * bytes,
        })
    }

    /// The anchor address for `split` and the elements its offset adds: an existing
    /// anchor of the buffer that differs by the same amount for every thread, or a new
    /// one.
    fn anchor(
        &mut self,
        buffer: usize,
        bytes: i64,
        split: &Split,
        composed: &ComposedLayout,
    ) -> Option<(ValueId, i64)> {
        if let Some(known) = self.known_anchor((buffer, bytes), &split.per_thread) {
            return Some(known);
        }
        let unswizzled = self.unswizzled_index(composed, &split.thread_part)?;
        let address = self.swizzled_address(&unswizzled, composed, bytes)?;
        self.remember_anchor((buffer, bytes), split.per_thread.clone(), address);
        Some((address, 0))
    }

    /// An anchor kept under `key` (a buffer and element size) that every thread's
    /// `per_thread` value exceeds by the same amount, with that amount.
    pub(crate) fn known_anchor(
        &self,
        key: (usize, i64),
        per_thread: &[i64],
    ) -> Option<(ValueId, i64)> {
        self.reuse.anchors.get(&key)?.iter().find_map(|anchor| {
            constant_difference(per_thread, &anchor.per_thread)
                .map(|difference| (anchor.address, difference))
        })
    }

    /// Keeps `address`, whose value in each thread is `per_thread`, as an anchor under
    /// `key` while its region is open.
    pub(crate) fn remember_anchor(
        &mut self,
        key: (usize, i64),
        per_thread: Rc<Vec<i64>>,
        address: ValueId,
    ) {
        let anchors = self.reuse.anchors.entry(key).or_default();
        anchors.push(Anchor {
            per_thread,
            address,
        });
    }

    /// `base + rest * bytes`, 32-bit: a split address's run-time periods added to its
    /// anchor (or to a value derived from it).
    pub(crate) fn plus_rest(
        &mut self,
        base: ValueId,
        rest: &SymInt,
        bytes: i64,
    ) -> Option<ValueId> {
        if rest.as_constant() == Some(0) {
            return Some(base);
        }
        let rest = self.int(rest)?;
        let scaled = self.scale(rest, bytes);
        let narrow = self.convert(scaled, Ty::I32);
        Some(self.binary(BinOp::Add, base, narrow))
    }
}

/// `d` when `values[t] = anchor[t] + d` for every thread `t`.
pub(crate) fn constant_difference(values: &[i64], anchor: &[i64]) -> Option<i64> {
    let delta = values.first()? - anchor.first()?;
    let same = values.iter().zip(anchor).all(|(v, a)| v - a == delta);
    (same && values.len() == anchor.len()).then_some(delta)
}

#[cfg(test)]
mod tests {
    use super::constant_difference;

    #[test]
    fn a_constant_difference_must_hold_for_every_thread() {
        assert_eq!(constant_difference(&[5, 9, 13], &[1, 5, 9]), Some(4));
        assert_eq!(constant_difference(&[5, 9, 14], &[1, 5, 9]), None);
        assert_eq!(constant_difference(&[5, 9], &[1, 5, 9]), None);
    }
}
