//! The values an operation reads, to look at ([`Op::operands`]) or to rewrite
//! ([`Op::operands_mut`]), and [`replace_uses`], which the passes use to replace one
//! value by another everywhere it is read.

use rustc_hash::FxHashMap;

use super::{Inst, Op, Region, ValueId};

/// The places of the values `op` reads (not those its regions read inside): `&ValueId`s
/// when `op` is an `&Op` and `iter` is `iter`, `&mut ValueId`s when it is an `&mut Op`
/// and `iter` is `iter_mut`. One match serves [`Op::operands`] and [`Op::operands_mut`],
/// so the two cannot disagree.
macro_rules! operand_places {
    ($op:expr, $iter:ident) => {
        match $op {
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
                .chain(values.$iter())
                .chain(predicate)
                .collect(),
            Op::Atom {
                operands,
                registers,
                predicate,
                ..
            } => operands
                .$iter()
                .map(|(_, value, _)| value)
                .chain(registers.$iter().flat_map(|(_, values)| values.$iter()))
                .chain(predicate)
                .collect(),
            Op::Intrinsic { operands, .. } => operands.$iter().map(|(value, _)| value).collect(),
            Op::Print { args, .. } => args.$iter().collect(),
            Op::For {
                start, end, inits, ..
            } => [start, end].into_iter().chain(inits.$iter()).collect(),
            Op::If { condition, .. } => vec![condition],
            Op::Loop { inits, .. } => inits.$iter().collect(),
        }
    };
}

impl Op {
    /// The values the operation reads (not those its regions read inside).
    pub fn operands(&self) -> Vec<ValueId> {
        let places: Vec<&ValueId> = operand_places!(self, iter);
        places.into_iter().copied().collect()
    }

    /// The places of the values the operation reads (not those its regions read
    /// inside), to rewrite them.
    pub fn operands_mut(&mut self) -> Vec<&mut ValueId> {
        operand_places!(self, iter_mut)
    }
}

/// The value `value` stands for after the replacements `replaced` (which may chain).
pub(crate) fn resolve(replaced: &FxHashMap<ValueId, ValueId>, mut value: ValueId) -> ValueId {
    while let Some(next) = replaced.get(&value) {
        value = *next;
    }
    value
}

/// Rewrites every read in `body` of a value `replaced` has (operands, yields, a loop's
/// condition) to the value it stands for.
pub(crate) fn replace_uses(body: &mut [Inst], replaced: &FxHashMap<ValueId, ValueId>) {
    for inst in body {
        for operand in inst.op.operands_mut() {
            *operand = resolve(replaced, *operand);
        }
        if let Op::Loop { condition, .. } = &mut inst.op {
            *condition = resolve(replaced, *condition);
        }
        for region in inst.op.regions_mut() {
            replace_in_region(region, replaced);
        }
    }
}

fn replace_in_region(region: &mut Region, replaced: &FxHashMap<ValueId, ValueId>) {
    replace_uses(&mut region.body, replaced);
    for value in &mut region.yields {
        *value = resolve(replaced, *value);
    }
}
