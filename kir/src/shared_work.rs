//! Work branches share: a pure computation that two or more branches of a region do (the
//! two sides of one `if`, or sides of sibling `if`s), from values defined before them,
//! is done once, before the first of those `if`s.
//!
//! Translation evaluates a `let`'s value where it is first used, so a value defined
//! before an unrolled loop of `if`s and first used inside them is computed in every
//! branch that uses it: a mean used under each of 32 predicates was 32 additions chains
//! and 32 divisions. Value numbering cannot share them (a region sees its enclosing
//! regions' values, never a sibling's); this pass puts one copy in the enclosing region,
//! and the `values` pass after it makes the branches' copies that one.
//!
//! A computation is found in a branch's own body (not in regions nested inside it) and
//! is keyed by its operation and its operands, each either a value defined outside the
//! `if` or another such computation of the same branch, so that chains match whole. Only
//! what two branches share moves: work only one branch does stays where placement put
//! it (a rarely taken branch keeps its work out of the common path).

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ir::{Inst, Op, Region, Ty, ValueId};
use crate::pure_key::PureKey;

/// Computes once, before the first `if` that needs it, each pure computation that two
/// or more branches of a region do.
pub fn hoist_shared_branch_work(kernel: &mut crate::Kernel) {
    let mut body = std::mem::take(&mut kernel.body);
    hoist_in(&mut body, &mut kernel.values);
    kernel.body = body;
}

/// A computation's operand, as the key sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Operand {
    /// A value defined outside the `if`.
    Outside(ValueId),
    /// The computation of this index (see [`Shared::computations`]).
    Computed(usize),
}

/// The pure computations the branches of one region do, found in order.
#[derive(Default)]
struct Shared {
    /// Each computation: its instruction (operands as found), its operands as keyed,
    /// and its result's type.
    computations: Vec<(Inst, Vec<Operand>, Ty)>,
    /// Each computation's index, by its key.
    by_key: FxHashMap<(PureKey, Vec<Operand>, Ty), usize>,
    /// The branches (the `if`'s place in the region, then 0 or 1 for its side) that do
    /// each computation.
    branches: Vec<FxHashSet<(usize, usize)>>,
}

fn hoist_in(body: &mut Vec<Inst>, types: &mut Vec<Ty>) {
    for inst in body.iter_mut() {
        for region in inst.op.regions_mut() {
            hoist_in(&mut region.body, types);
        }
    }
    let mut shared = Shared::default();
    for (place, inst) in body.iter().enumerate() {
        if let Op::If {
            then, otherwise, ..
        } = &inst.op
        {
            let inside = defined_inside(inst);
            for (side, region) in [then, otherwise].into_iter().enumerate() {
                shared.find(region, &inside, (place, side), types);
            }
        }
    }
    let mut hoisted = shared.hoisted_before(types);
    if hoisted.is_empty() {
        return;
    }
    let mut kept = Vec::with_capacity(body.len() + hoisted.values().map(Vec::len).sum::<usize>());
    for (place, inst) in std::mem::take(body).into_iter().enumerate() {
        if let Some(before) = hoisted.remove(&place) {
            kept.extend(before);
        }
        kept.push(inst);
    }
    *body = kept;
}

/// The values an instruction's regions define (their parameters and every result in
/// them, however deep).
fn defined_inside(inst: &Inst) -> FxHashSet<ValueId> {
    let mut values = FxHashSet::default();
    for nested in inst.op.regions() {
        add_definitions(nested, &mut values);
    }
    values
}

fn add_definitions(region: &Region, into: &mut FxHashSet<ValueId>) {
    into.extend(region.params.iter().copied());
    for inst in &region.body {
        into.extend(inst.results.iter().copied());
        for nested in inst.op.regions() {
            add_definitions(nested, into);
        }
    }
}

impl Shared {
    /// Notes the pure computations of `region`'s own body that read only values defined
    /// outside the `if` or earlier such computations.
    fn find(
        &mut self,
        region: &Region,
        inside: &FxHashSet<ValueId>,
        branch: (usize, usize),
        types: &[Ty],
    ) {
        let mut found: FxHashMap<ValueId, usize> = FxHashMap::default();
        for inst in &region.body {
            let [result] = inst.results.as_slice() else {
                continue;
            };
            if inst.op.pure_key().is_none() {
                continue;
            }
            let operands: Option<Vec<Operand>> = (inst.op.operands().into_iter())
                .map(|operand| match found.get(&operand) {
                    Some(&index) => Some(Operand::Computed(index)),
                    None if inside.contains(&operand) => None,
                    None => Some(Operand::Outside(operand)),
                })
                .collect();
            let Some(operands) = operands else { continue };
            let Some(key) = keyed(&inst.op, &operands) else {
                continue;
            };
            let ty = types[result.0 as usize];
            let index = *(self.by_key)
                .entry((key, operands.clone(), ty))
                .or_insert_with(|| {
                    self.computations.push((inst.clone(), operands, ty));
                    self.branches.push(FxHashSet::default());
                    self.computations.len() - 1
                });
            self.branches[index].insert(branch);
            found.insert(*result, index);
        }
    }

    /// The copies to place before each `if` (by its place in the region): every
    /// computation two or more branches do, before the first `if` doing it, in the order
    /// found (an operand's computation comes before its reader's).
    fn hoisted_before(&self, types: &mut Vec<Ty>) -> FxHashMap<usize, Vec<Inst>> {
        let mut copies: FxHashMap<usize, ValueId> = FxHashMap::default();
        let mut before: FxHashMap<usize, Vec<Inst>> = FxHashMap::default();
        for (index, (inst, operands, ty)) in self.computations.iter().enumerate() {
            let branches = &self.branches[index];
            if branches.len() < 2 {
                continue;
            }
            let Some(first) = branches.iter().map(|&(place, _)| place).min() else {
                continue;
            };
            let result = ValueId(u32::try_from(types.len()).expect("fewer than 2^32 values"));
            types.push(*ty);
            let mut op = inst.op.clone();
            for (slot, operand) in op.operands_mut().into_iter().zip(operands) {
                *slot = match operand {
                    Operand::Outside(value) => *value,
                    Operand::Computed(index) => copies[index],
                };
            }
            copies.insert(index, result);
            before.entry(first).or_default().push(Inst {
                op,
                results: vec![result],
                span: inst.span,
            });
        }
        before
    }
}

/// The key of `op` with its operands replaced by `operands`: the computed ones stand in
/// as ids no value has (from the top of the id space down).
fn keyed(op: &Op, operands: &[Operand]) -> Option<PureKey> {
    let mut op = op.clone();
    for (slot, operand) in op.operands_mut().into_iter().zip(operands) {
        *slot = match operand {
            Operand::Outside(value) => *value,
            Operand::Computed(index) => ValueId(u32::MAX - u32::try_from(*index).ok()?),
        };
    }
    op.pure_key()
}

#[cfg(test)]
mod tests {
    use crate::{from_text, to_text};

    /// The text of `before` after this pass and then `values`, without source lines.
    fn shared(before: &str) -> String {
        let mut kernel = from_text(before).unwrap();
        super::hoist_shared_branch_work(&mut kernel);
        crate::verify(kernel.clone()).unwrap();
        crate::values::number_values(&mut kernel);
        crate::verify(kernel.clone()).unwrap();
        (to_text(&kernel, &|line| line).lines())
            .map(|line| line.split(" ; line").next().unwrap_or(line).trim_end())
            .collect::<Vec<_>>()
            .join("\n")
    }

    const HEAD: &str = "kernel k {\n  param 0 n: i32\n  param 1 out: tensor i32 shape(1) strides(1)\n  launch grid(1, 1, 1) block(32, 1, 1) smem(0 bytes)\n";

    #[test]
    fn a_chain_two_sibling_branches_compute_is_computed_once_before_them() {
        let text = format!(
            "{HEAD}  %0:i32 = param 0\n  %1:pred = cmp.lt %0, %0\n  %2:i32 = if %1 {{\n    %3:i32 = mul %0, %0\n    %4:i32 = div %3, %0\n    yield %4\n  }} else {{\n    yield %0\n  }}\n  %5:i32 = if %1 {{\n    %6:i32 = mul %0, %0\n    %7:i32 = div %6, %0\n    %8:i32 = add %7, %2\n    yield %8\n  }} else {{\n    yield %2\n  }}\n}}\n"
        );
        let after = shared(&text);
        assert_eq!(after.matches("mul").count(), 1, "{after}");
        assert_eq!(after.matches("div").count(), 1, "{after}");
        let mul = after.find("mul").unwrap();
        assert!(mul < after.find("if").unwrap(), "{after}");
        // What only the second branch does (it reads the first `if`'s result) stays there.
        let add = after.find("add").unwrap();
        assert!(add > after.rfind("if").unwrap(), "{after}");
    }

    #[test]
    fn work_one_branch_alone_does_stays_in_it() {
        let text = format!(
            "{HEAD}  %0:i32 = param 0\n  %1:pred = cmp.lt %0, %0\n  %2:i32 = if %1 {{\n    %3:i32 = mul %0, %0\n    yield %3\n  }} else {{\n    yield %0\n  }}\n}}\n"
        );
        let after = shared(&text);
        assert!(
            after.find("mul").unwrap() > after.find("if").unwrap(),
            "{after}"
        );
    }

    #[test]
    fn both_sides_of_one_if_share_their_work() {
        let text = format!(
            "{HEAD}  %0:i32 = param 0\n  %1:pred = cmp.lt %0, %0\n  %2:i32 = if %1 {{\n    %3:i32 = mul %0, %0\n    yield %3\n  }} else {{\n    %4:i32 = mul %0, %0\n    %5:i32 = add %4, %0\n    yield %5\n  }}\n}}\n"
        );
        let after = shared(&text);
        assert_eq!(after.matches("mul").count(), 1, "{after}");
        assert!(
            after.find("mul").unwrap() < after.find("if").unwrap(),
            "{after}"
        );
    }

    #[test]
    fn values_defined_inside_a_branch_keep_their_readers_there() {
        // Both branches multiply a value of their own: not the same computation.
        let text = format!(
            "{HEAD}  %0:i32 = param 0\n  %1:pred = cmp.lt %0, %0\n  %2:i32 = if %1 {{\n    %3:i32 = add %0, %0\n    %4:i32 = mul %3, %3\n    yield %4\n  }} else {{\n    yield %0\n  }}\n  %5:i32 = if %1 {{\n    %6:i32 = sub %0, %0\n    %7:i32 = mul %6, %6\n    yield %7\n  }} else {{\n    yield %0\n  }}\n}}\n"
        );
        let after = shared(&text);
        assert_eq!(after.matches("mul").count(), 2, "{after}");
    }
}
