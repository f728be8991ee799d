//! Value numbering: a pure instruction that computes what an earlier one in scope
//! already did (the same operation on the same values, with results of the same types)
//! is that instruction's results, and conversions that change nothing are folded.
//!
//! Translation computes every value where it needs it and leaves sharing to this pass:
//! a symbolic integer lowered twice, a constant asked for by every address, a word
//! unpacked by each reader. The pass walks the kernel in order with a table of what
//! each open region has computed (a region sees its enclosing regions' values, never a
//! sibling's), rewrites each instruction's operands to the values kept, and drops the
//! instruction when its key is known. Before looking an instruction up it folds a
//! conversion of an integer constant to another integer type into the constant (when
//! the value survives: any 64-bit target, or a value that fits 32 bits), and a
//! narrowing of a widened 32-bit integer back to its own type into that integer.
//! Constants live in the kernel's body, as translation puts them: a conversion folded
//! inside a branch or loop moves out, before the instruction that holds it.

use rustc_hash::FxHashMap;

use crate::ir::{Inst, Op, Region, Ty, ValueId, resolve};
use crate::pure_key::PureKey;

/// Replaces every pure instruction whose results an earlier one in scope already
/// computed by that one's results.
pub fn number_values(kernel: &mut crate::Kernel) {
    let mut numbering = Numbering {
        types: &kernel.values,
        scopes: vec![FxHashMap::default()],
        replaced: FxHashMap::default(),
        constants: FxHashMap::default(),
        widened: FxHashMap::default(),
        hoisted: Vec::new(),
    };
    numbering.body(&mut kernel.body);
}

/// What an instruction computes, whatever values it defines.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// A pure operation with one result.
    Single(PureKey, Ty),
    /// A word's two halves, of these types.
    Unpack(ValueId, Ty, Ty),
}

struct Numbering<'k> {
    types: &'k [Ty],
    /// What each open region computed, the kernel's body first.
    scopes: Vec<FxHashMap<Key, Vec<ValueId>>>,
    /// The values dropped, each with the value that stands for it.
    replaced: FxHashMap<ValueId, ValueId>,
    /// The integer constants, by value.
    constants: FxHashMap<ValueId, i64>,
    /// Each 32-bit integer widened to 64 bits, by the widened value.
    widened: FxHashMap<ValueId, ValueId>,
    /// Constants folded inside a region, to go before the body's instruction that
    /// holds it.
    hoisted: Vec<Inst>,
}

impl Numbering<'_> {
    fn ty(&self, value: ValueId) -> Ty {
        self.types[value.0 as usize]
    }

    fn body(&mut self, body: &mut Vec<Inst>) {
        let mut kept = Vec::with_capacity(body.len());
        for mut inst in std::mem::take(body) {
            for operand in inst.op.operands_mut() {
                *operand = resolve(&self.replaced, *operand);
            }
            if self.fold_conversion(&mut inst) {
                continue;
            }
            let Some(key) = self.key(&inst) else {
                for region in inst.op.regions_mut() {
                    self.region(region);
                }
                if let Op::Loop { condition, .. } = &mut inst.op {
                    *condition = resolve(&self.replaced, *condition);
                }
                if self.scopes.len() == 1 {
                    kept.append(&mut self.hoisted);
                }
                kept.push(inst);
                continue;
            };
            if let Some(known) = self.known(&key) {
                for (result, earlier) in inst.results.iter().zip(known) {
                    self.replaced.insert(*result, earlier);
                }
                continue;
            }
            self.remember(&inst);
            let nested = self.scopes.len() > 1;
            let scope = match inst.op {
                Op::ConstInt(_) => 0,
                _ => self.scopes.len() - 1,
            };
            self.scopes[scope].insert(key, inst.results.clone());
            if nested && scope == 0 {
                self.hoisted.push(inst);
            } else {
                kept.push(inst);
            }
        }
        *body = kept;
    }

    fn region(&mut self, region: &mut Region) {
        self.scopes.push(FxHashMap::default());
        self.body(&mut region.body);
        for value in &mut region.yields {
            *value = resolve(&self.replaced, *value);
        }
        self.scopes.pop();
    }

    /// Folds a conversion that changes nothing: to its operand's own type, of a widened
    /// 32-bit integer back to that integer (both dropped, whether the instruction went),
    /// or of an integer constant into the constant (rewritten in place).
    fn fold_conversion(&mut self, inst: &mut Inst) -> bool {
        let (Op::Convert(from), [result]) = (&inst.op, inst.results.as_slice()) else {
            return false;
        };
        let (from, result) = (*from, *result);
        let ty = self.ty(result);
        let narrow = self.widened.get(&from).copied();
        let same = match narrow {
            _ if self.ty(from) == ty => Some(from),
            Some(narrow) if self.ty(narrow) == ty => Some(narrow),
            _ => None,
        };
        if let Some(same) = same {
            self.replaced.insert(result, same);
            return true;
        }
        if let Some(&constant) = self.constants.get(&from)
            && ty.is_integer()
            && (ty == Ty::I64 || i32::try_from(constant).is_ok())
        {
            inst.op = Op::ConstInt(constant);
        }
        false
    }

    fn key(&self, inst: &Inst) -> Option<Key> {
        match (&inst.op, inst.results.as_slice()) {
            (Op::Unpack(word), [low, high]) => {
                Some(Key::Unpack(*word, self.ty(*low), self.ty(*high)))
            }
            (op, [result]) => Some(Key::Single(op.pure_key()?, self.ty(*result))),
            _ => None,
        }
    }

    fn known(&self, key: &Key) -> Option<Vec<ValueId>> {
        self.scopes
            .iter()
            .rev()
            .find_map(|scope| scope.get(key).cloned())
    }

    /// Notes what later folds need of a kept instruction: the constant it is, or the
    /// 32-bit integer it widens.
    fn remember(&mut self, inst: &Inst) {
        match (&inst.op, inst.results.as_slice()) {
            (Op::ConstInt(value), [result]) => {
                self.constants.insert(*result, *value);
            }
            (Op::Convert(from), [result])
                if self.ty(*result) == Ty::I64 && matches!(self.ty(*from), Ty::I32 | Ty::U32) =>
            {
                self.widened.insert(*result, *from);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{from_text, to_text};

    /// The text of `before` after the pass, and that of `after` as read and printed,
    /// without the source lines (the instructions' lines in their texts).
    fn numbered(before: &str, after: &str) -> (String, String) {
        let mut kernel = from_text(before).unwrap();
        super::number_values(&mut kernel);
        crate::verify(kernel.clone()).unwrap();
        let text = |kernel: &crate::Kernel| {
            (to_text(kernel, &|line| line).lines())
                .map(|line| line.split(" ; line").next().unwrap_or(line).trim_end())
                .collect::<Vec<_>>()
                .join("\n")
        };
        (text(&kernel), text(&from_text(after).unwrap()))
    }

    const HEAD: &str = "kernel k {\n  param 0 n: i32\n  param 1 out: tensor i32 shape(1) strides(1)\n  launch grid(1, 1, 1) block(32, 1, 1) smem(0 bytes)\n";

    fn kernel(body: &str) -> String {
        format!("{HEAD}{body}}}\n")
    }

    #[test]
    fn a_computation_in_scope_is_reused_and_a_sibling_branchs_is_not() {
        let before = kernel(
            "  %0:i32 = param 0
  %1:i32 = add %0, %0
  %2:i32 = add %0, %0
  %3:pred = cmp.lt %1, %2
  %4:i64 = param 1
  if %3 {
    %5:i32 = mul %2, %0
    %6:i32 = add %0, %0
    store.global [%4+0], %5
    store.global [%4+0], %6
    yield
  } else {
    %7:i32 = mul %1, %0
    store.global [%4+0], %7
    yield
  }
  %8:i32 = mul %1, %0
  store.global [%4+0], %8
",
        );
        let after = kernel(
            "  %0:i32 = param 0
  %1:i32 = add %0, %0
  %3:pred = cmp.lt %1, %1
  %4:i64 = param 1
  if %3 {
    %5:i32 = mul %1, %0
    store.global [%4+0], %5
    store.global [%4+0], %1
    yield
  } else {
    %7:i32 = mul %1, %0
    store.global [%4+0], %7
    yield
  }
  %8:i32 = mul %1, %0
  store.global [%4+0], %8
",
        );
        let (got, expected) = numbered(&before, &after);
        assert_eq!(got, expected);
    }

    #[test]
    fn conversions_that_change_nothing_are_folded_and_constants_leave_branches() {
        let before = kernel(
            "  %0:i32 = param 0
  %1:i64 = convert %0
  %2:i32 = convert %1
  %3:i32 = convert %0
  %4:pred = cmp.lt %2, %3
  %5:i64 = param 1
  %6:i64 = const 7
  %7:i64 = const 4294967295
  if %4 {
    %8:i32 = convert %6
    %9:u32 = convert %7
    %10:i32 = const 7
    store.global [%5+0], %8
    store.global [%5+0], %9
    store.global [%5+0], %10
    yield
  } else {
    yield
  }
",
        );
        // The constant 7 as an i32 moves before the branch; 2^32 - 1 does not fit 32
        // signed bits, and stays a conversion.
        let after = kernel(
            "  %0:i32 = param 0
  %1:i64 = convert %0
  %4:pred = cmp.lt %0, %0
  %5:i64 = param 1
  %6:i64 = const 7
  %7:i64 = const 4294967295
  %8:i32 = const 7
  if %4 {
    %9:u32 = convert %7
    store.global [%5+0], %8
    store.global [%5+0], %9
    store.global [%5+0], %8
    yield
  } else {
    yield
  }
",
        );
        let (got, expected) = numbered(&before, &after);
        assert_eq!(got, expected);
    }

    #[test]
    fn a_word_is_unpacked_once_for_each_element_type() {
        let before = kernel(
            "  %0:i32 = param 0
  %1:b32 = convert %0
  %2:bf16, %3:bf16 = unpack %1
  %4:bf16, %5:bf16 = unpack %1
  %6:f16, %7:f16 = unpack %1
  %8:b32 = pack %4, %7
",
        );
        let after = kernel(
            "  %0:i32 = param 0
  %1:b32 = convert %0
  %2:bf16, %3:bf16 = unpack %1
  %6:f16, %7:f16 = unpack %1
  %8:b32 = pack %2, %7
",
        );
        let (got, expected) = numbered(&before, &after);
        assert_eq!(got, expected);
    }
}
