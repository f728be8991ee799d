//! A pure operation with one result as a hash key ([`PureKey`]): `Op` itself holds an
//! `f64` and so is neither `Eq` nor `Hash`. The `values` pass (`values.rs`) keeps one
//! instruction of each key in scope.

use crate::ir::{BinOp, CmpOp, Op, Special, UnOp, ValueId};

/// A pure single-result [`Op`], with its float constant as bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PureKey {
    /// [`Op::ConstInt`].
    Int(i64),
    /// [`Op::ConstFloat`], its bits.
    Float(u64),
    /// [`Op::Param`].
    Param(usize),
    /// [`Op::Special`].
    Special(Special),
    /// [`Op::SharedBase`].
    SharedBase,
    /// [`Op::Unary`].
    Unary(UnOp, ValueId),
    /// [`Op::Binary`].
    Binary(BinOp, ValueId, ValueId),
    /// [`Op::Fma`].
    Fma(ValueId, ValueId, ValueId),
    /// [`Op::Compare`].
    Compare(CmpOp, ValueId, ValueId),
    /// [`Op::Select`].
    Select(ValueId, ValueId, ValueId),
    /// [`Op::Convert`].
    Convert(ValueId),
    /// [`Op::Pack`].
    Pack(ValueId, ValueId),
}

impl Op {
    /// The key of a pure operation with one result; `None` for one with effects, regions
    /// or several results ([`Op::Unpack`]).
    pub fn pure_key(&self) -> Option<PureKey> {
        Some(match *self {
            Op::ConstInt(value) => PureKey::Int(value),
            Op::ConstFloat(value) => PureKey::Float(value.to_bits()),
            Op::Param(index) => PureKey::Param(index),
            Op::Special(special) => PureKey::Special(special),
            Op::SharedBase => PureKey::SharedBase,
            Op::Unary(op, a) => PureKey::Unary(op, a),
            Op::Binary(op, a, b) => PureKey::Binary(op, a, b),
            Op::Fma(a, b, c) => PureKey::Fma(a, b, c),
            Op::Compare(op, a, b) => PureKey::Compare(op, a, b),
            Op::Select(condition, a, b) => PureKey::Select(condition, a, b),
            Op::Convert(a) => PureKey::Convert(a),
            Op::Pack(low, high) => PureKey::Pack(low, high),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pure_single_result_operation_has_a_key() {
        let (a, b) = (ValueId(1), ValueId(2));
        let keyed = [
            Op::ConstInt(3),
            Op::ConstFloat(0.5),
            Op::Param(0),
            Op::SharedBase,
            Op::Binary(BinOp::Add, a, b),
            Op::Fma(a, b, a),
            Op::Select(a, b, a),
            Op::Convert(a),
            Op::Pack(a, b),
        ];
        for op in keyed {
            assert!(op.is_pure() && op.pure_key().is_some(), "{op:?}");
        }
        // Two results: no single value to reuse.
        assert!(Op::Unpack(a).is_pure() && Op::Unpack(a).pure_key().is_none());
        assert_ne!(
            Op::ConstFloat(0.0).pure_key(),
            Op::ConstFloat(-0.0).pure_key()
        );
    }
}
