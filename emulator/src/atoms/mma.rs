//! `mma.sync.aligned` with 16-bit inputs (bf16 or f16) and f32 accumulators, such as
//! `m16n8k16` and `m16n8k8`: the warp computes `D = A·B + C` on one `M x N x K` tile.
//!
//! Which lane holds which element of A, B, C and D is the instruction's
//! [`kir::WarpAtom::Mma`], the stdlib atom's `layout_a/b/c`, each lane's values packed
//! in its register lists `a`, `b`, `c` and results `d` (lowest value in the lowest
//! bits). Arithmetic: each product of two 16-bit inputs is exact (as on the tensor
//! cores); each element of D is its element of C plus the K products, summed in f64 and
//! rounded once to f32 (nearest even). The hardware adds the products with at least
//! f32 precision but in an order and with truncation it does not document, so its
//! result may differ from this one in the last bits of the f32; sums whose terms span
//! more than about 29 binades also lose bits below f64's precision here. Inputs that
//! are NaN or infinite propagate as IEEE arithmetic does.

use kir::{Inst, Op, TvLayout, Ty, ValueId};

use crate::atoms::{pack, unpack};
use crate::thread::Thread;

/// A planned `mma.sync`: its shape, input type and layouts as tables, `lane · values +
/// value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mma {
    shape: [usize; 3],
    /// The element type of A and B.
    input: Ty,
    /// `(lane, value) -> m + M·k`, `n + N·k` and `m + M·n`.
    tables: [Vec<usize>; 3],
}

/// The plan of `template` on `shape` with `types` (D, A, B, C) and `layouts` (A, B,
/// C), when it is an `mma.sync` this model computes.
pub fn plan(
    template: &str,
    shape: [u32; 3],
    types: [Ty; 4],
    layouts: [&TvLayout; 3],
) -> Option<Mma> {
    if !template.trim_start().starts_with("mma.sync.aligned.") {
        return None;
    }
    let [d, a, b, c] = types;
    let inputs_ok = a == b && matches!(a, Ty::BF16 | Ty::F16);
    if !inputs_ok || d != Ty::F32 || c != Ty::F32 {
        return None;
    }
    let table = |layout: &TvLayout| layout.table().into_iter().map(|e| e as usize).collect();
    Some(Mma {
        shape: shape.map(|extent| extent as usize),
        input: a,
        tables: layouts.map(table),
    })
}

impl Mma {
    /// Executes `inst` for the 32 `lanes` of a warp.
    pub fn execute(&self, inst: &Inst, lanes: &mut [Thread<'_>]) {
        let Op::Atom { registers, .. } = &inst.op else {
            return;
        };
        let list = |name: &str| -> &[ValueId] {
            registers
                .iter()
                .find(|(list, _)| list == name)
                .map_or(&[], |(_, values)| values.as_slice())
        };
        let [m, n, k] = self.shape;
        let input = |bits: u64| match self.input {
            Ty::BF16 => f64::from(f32::from_bits((bits as u32) << 16)),
            _ => f64::from(half::f16::from_bits(bits as u16).to_f32()),
        };
        let f32_of = |bits: u64| f64::from(f32::from_bits(bits as u32));
        let a = self.gather(lanes, list("a"), 0, m * k, 16, input);
        let b = self.gather(lanes, list("b"), 1, n * k, 16, input);
        let c = self.gather(lanes, list("c"), 2, m * n, 32, f32_of);
        let mut d = vec![0f32; m * n];
        for column in 0..n {
            for row in 0..m {
                let products = (0..k).map(|step| a[row + m * step] * b[column + n * step]);
                d[row + m * column] = (c[row + m * column] + products.sum::<f64>()) as f32;
            }
        }
        let values = self.tables[2].len() / lanes.len().max(1);
        let mut words = vec![0u64; inst.results.len()];
        for (index, lane) in lanes.iter_mut().enumerate() {
            for value in 0..values {
                let element = d[self.tables[2][index * values + value]];
                pack(&mut words, value, 32, u64::from(element.to_bits()));
            }
            for (result, word) in inst.results.iter().zip(&words) {
                lane.set(*result, *word);
            }
        }
    }

    /// The `size` elements of operand `operand` from the lanes' register list `words`
    /// of `bits`-wide values, decoded by `decode`.
    fn gather(
        &self,
        lanes: &[Thread<'_>],
        words: &[ValueId],
        operand: usize,
        size: usize,
        bits: u32,
        decode: impl Fn(u64) -> f64,
    ) -> Vec<f64> {
        let table = &self.tables[operand];
        let values = table.len() / lanes.len().max(1);
        let mut elements = vec![0f64; size];
        let mut bits_of = vec![0u64; words.len()];
        for (index, lane) in lanes.iter().enumerate() {
            for (word, value) in bits_of.iter_mut().zip(words) {
                *word = lane.get(*value);
            }
            for value in 0..values {
                elements[table[index * values + value]] = decode(unpack(&bits_of, value, bits));
            }
        }
        elements
    }
}
