//! The values an operation reads, to look at ([`Op::operands`]) or to rewrite
//! ([`Op::operands_mut`], which the passes use to replace one value by another).

use super::{Op, ValueId};

impl Op {
    /// The values the operation reads (not those its regions read inside).
    pub fn operands(&self) -> Vec<ValueId> {
        match self {
            Op::ConstInt(_)
            | Op::ConstFloat(_)
            | Op::Param(_)
            | Op::Special(_)
            | Op::SharedBase
            | Op::Barrier
            | Op::WarpBarrier
            | Op::CpAsyncCommit
            | Op::CpAsyncWait(_) => Vec::new(),
            Op::Unary(_, a) | Op::Convert(a) | Op::Unpack(a) => vec![*a],
            Op::Binary(_, a, b)
            | Op::Compare(_, a, b)
            | Op::Pack(a, b)
            | Op::Shuffle {
                value: a, lane: b, ..
            }
            | Op::Atomic {
                address: a,
                value: b,
                ..
            } => vec![*a, *b],
            Op::Select(c, a, b) | Op::Fma(a, b, c) => vec![*a, *b, *c],
            Op::Load {
                address, predicate, ..
            } => std::iter::once(*address).chain(*predicate).collect(),
            Op::Store {
                address,
                values,
                predicate,
                ..
            } => std::iter::once(*address)
                .chain(values.iter().copied())
                .chain(*predicate)
                .collect(),
            Op::Atom {
                operands,
                registers,
                predicate,
                ..
            } => operands
                .iter()
                .map(|(_, value, _)| *value)
                .chain(
                    registers
                        .iter()
                        .flat_map(|(_, values)| values.iter().copied()),
                )
                .chain(*predicate)
                .collect(),
            Op::Intrinsic { operands, .. } => operands.iter().map(|(value, _)| *value).collect(),
            Op::For {
                start, end, inits, ..
            } => [*start, *end]
                .into_iter()
                .chain(inits.iter().copied())
                .collect(),
            Op::If { condition, .. } => vec![*condition],
            Op::Loop { inits, .. } => inits.clone(),
        }
    }

    /// The places of the values the operation reads (not those its regions read
    /// inside), to rewrite them.
    pub fn operands_mut(&mut self) -> Vec<&mut ValueId> {
        match self {
            Op::ConstInt(_)
            | Op::ConstFloat(_)
            | Op::Param(_)
            | Op::Special(_)
            | Op::SharedBase
            | Op::Barrier
            | Op::WarpBarrier
            | Op::CpAsyncCommit
            | Op::CpAsyncWait(_) => Vec::new(),
            Op::Unary(_, a) | Op::Convert(a) | Op::Unpack(a) => vec![a],
            Op::Binary(_, a, b)
            | Op::Compare(_, a, b)
            | Op::Pack(a, b)
            | Op::Shuffle {
                value: a, lane: b, ..
            }
            | Op::Atomic {
                address: a,
                value: b,
                ..
            } => vec![a, b],
            Op::Select(c, a, b) | Op::Fma(a, b, c) => vec![a, b, c],
            Op::Load {
                address, predicate, ..
            } => std::iter::once(address).chain(predicate).collect(),
            Op::Store {
                address,
                values,
                predicate,
                ..
            } => std::iter::once(address)
                .chain(values.iter_mut())
                .chain(predicate)
                .collect(),
            Op::Atom {
                operands,
                registers,
                predicate,
                ..
            } => operands
                .iter_mut()
                .map(|(_, value, _)| value)
                .chain(
                    registers
                        .iter_mut()
                        .flat_map(|(_, values)| values.iter_mut()),
                )
                .chain(predicate)
                .collect(),
            Op::Intrinsic { operands, .. } => operands.iter_mut().map(|(value, _)| value).collect(),
            Op::For {
                start, end, inits, ..
            } => [start, end].into_iter().chain(inits.iter_mut()).collect(),
            Op::If { condition, .. } => vec![condition],
            Op::Loop { inits, .. } => inits.iter_mut().collect(),
        }
    }
}
