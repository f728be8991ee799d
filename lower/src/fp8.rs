//! FP8 elements (e4m3, e5m2) in registers, decoded where they are read.
//!
//! They enter registers by a copy from memory of whole 32-bit words (a 128-bit load
//! carries 16): element j of a word (its byte j) goes to a fragment element whose index
//! is j modulo 4, and each of the four keeps the whole word. Reading one decodes its
//! byte to the f32 it equals, next to the read, so a fragment of loaded words costs a
//! register a word until it is used, and `.to(f32)` (or to bf16, f16) is exact: each
//! half of the word is decoded as a pair to the two f16 it equals (KIR's
//! `e4m3x2_to_f16x2`, `e5m2x2_to_f16x2`; one instruction from sm_89), each f16 then
//! widened. A constant that an FP8 value holds exactly (a fill with zeros) is stored as
//! its byte in all four places, and so is a computed value converted to FP8
//! (`store.rs`, which also stores registers back to memory). An FP8 element of memory
//! is loaded or stored as a byte. Arithmetic on FP8 values is refused.
mod store;

use cute::{Base, Dtype, Tensor};
use kir::{Narrow, Op, Ty, UnOp, ValueId};
use layout::SymInt;

use crate::builder::Builder;
use crate::memory::Place;

/// Whether `dtype` is an 8-bit float.
pub(crate) fn is_fp8(dtype: Dtype) -> bool {
    matches!(dtype, Dtype::E4m3 | Dtype::E5m2)
}

/// The FP8 format's mantissa bits and exponent bias.
fn format(dtype: Dtype) -> Option<(u32, i32)> {
    match dtype {
        Dtype::E4m3 => Some((3, 7)),
        Dtype::E5m2 => Some((2, 15)),
        _ => None,
    }
}

/// The value of FP8 `byte` of `dtype` (finite ones; e4m3's 0x7f and e5m2's top
/// exponent are NaN or infinite, which no constant encodes to).
fn decode(dtype: Dtype, byte: u8) -> Option<f64> {
    let (mantissa, bias) = format(dtype)?;
    let field = i32::from(byte & 0x7f) >> mantissa;
    let fraction = f64::from(byte & ((1 << mantissa) - 1)) / f64::from(1 << mantissa);
    let magnitude = match field {
        0 => fraction * 2f64.powi(1 - bias),
        _ => (1.0 + fraction) * 2f64.powi(field - bias),
    };
    Some(if byte & 0x80 != 0 {
        -magnitude
    } else {
        magnitude
    })
}

/// The byte of `dtype` that is exactly `value`, if one is.
pub(crate) fn encode(dtype: Dtype, value: f64) -> Option<u8> {
    let (mantissa, bias) = format(dtype)?;
    let sign = if value.is_sign_negative() { 0x80 } else { 0 };
    let magnitude = value.abs();
    if !magnitude.is_finite() {
        return None;
    }
    // The exponent field whose scale holds the value, then the mantissa at that scale.
    let field = if magnitude < 2f64.powi(1 - bias) {
        0
    } else {
        magnitude.log2().floor() as i32 + bias
    };
    let lsb = 2f64.powi(field.max(1) - bias - mantissa as i32);
    let steps = magnitude / lsb;
    let bits = if field == 0 {
        steps
    } else {
        steps - f64::from(1 << mantissa)
    };
    if !(0.0..f64::from(1 << mantissa)).contains(&bits) || field >= 1 << (7 - mantissa) {
        return None;
    }
    let byte = sign | ((field as u8) << mantissa) | bits as u8;
    (decode(dtype, byte) == Some(value) && finite_byte(dtype, byte)).then_some(byte)
}

/// Whether `byte` is a finite value of `dtype`.
fn finite_byte(dtype: Dtype, byte: u8) -> bool {
    match dtype {
        Dtype::E4m3 => byte & 0x7f != 0x7f,
        _ => byte & 0x7c != 0x7c,
    }
}

impl Builder<'_> {
    /// Copies FP8 elements between memory and registers, as whole 32-bit words of 4, 8
    /// or 16 consecutive bytes (one load or store), guarded registers keeping their
    /// words where `guard` is false.
    pub(crate) fn move_fp8(
        &mut self,
        source: &Tensor,
        destination: &Tensor,
        indices: &[(SymInt, SymInt)],
        contiguous: bool,
        guard: Option<ValueId>,
    ) {
        let dtype = source.dtype.or(destination.dtype).unwrap_or(Dtype::E4m3);
        let in_registers = |tensor: &Tensor| matches!(tensor.base, Base::Registers(_));
        let width = indices.len();
        if in_registers(source) == in_registers(destination)
            || destination.dtype != source.dtype
            || !contiguous
            || !matches!(width, 4 | 8 | 16)
        {
            self.unsupported(format!(
                "a copy of {dtype} elements other than 4, 8 or 16 consecutive ones between memory and registers"
            ));
            return;
        }
        if in_registers(source) {
            self.store_fp8_registers(source, destination, indices, guard);
            return;
        }
        let tys = vec![Ty::B32; width / 4];
        let Some(words) = self.load_at(source, &indices[0].0, width as i64, &tys, None, guard)
        else {
            return;
        };
        for (word, group) in words.into_iter().zip(indices.chunks(4)) {
            let word = self.convert(word, Ty::I32);
            for (byte, (_, index)) in group.iter().enumerate() {
                self.write_fp8_register(destination, index, byte, word, guard);
            }
        }
    }

    /// Stores `word`, whose byte `byte` is the element, into the FP8 register
    /// `tensor[index]` (or keeps its word where `predicate` is false).
    fn write_fp8_register(
        &mut self,
        tensor: &Tensor,
        index: &SymInt,
        byte: usize,
        word: ValueId,
        predicate: Option<ValueId>,
    ) {
        let Some(Place::Register { fragment, index }) = self.place(tensor, index) else {
            return;
        };
        if index.rem_euclid(4) as usize != byte {
            self.unsupported(format!(
                "{} elements copied into register {index}, not one a multiple of 4 from the word's first",
                tensor.element_name()
            ));
            return;
        }
        let word = match predicate {
            None => word,
            Some(predicate) => {
                let previous = self.register(fragment, index, Ty::I32);
                self.pure(Op::Select(predicate, word, previous), Ty::I32)
            }
        };
        self.write_register(fragment, index, word);
    }

    /// Stores `value` into an FP8 element: a word holding the element in every place
    /// (a constant's, from [`Builder::fp8_word`], or a conversion's), or a number,
    /// rounded to the element's type (an FP8 element read elsewhere, decoded).
    pub(crate) fn write_fp8_element(
        &mut self,
        tensor: &Tensor,
        index: &SymInt,
        value: ValueId,
        predicate: Option<ValueId>,
    ) {
        let (Some(dtype), Some(place)) = (tensor.dtype, self.place(tensor, index)) else {
            return;
        };
        let Place::Register { index: at, .. } = place else {
            self.store_fp8_byte(place, value, dtype, predicate);
            return;
        };
        let word = match self.kernel.ty(value) {
            Ty::I32 => value,
            _ => self.fp8_word_of(value, dtype),
        };
        let byte = at.rem_euclid(4) as usize;
        self.write_fp8_register(tensor, index, byte, word, predicate);
    }

    /// The f32 value of FP8 element `tensor[index]`: a register's byte decoded, or a
    /// byte loaded from memory (where `predicate` is true) and decoded.
    pub(crate) fn read_fp8_element(
        &mut self,
        tensor: &Tensor,
        index: &SymInt,
        predicate: Option<ValueId>,
    ) -> Option<ValueId> {
        let dtype = tensor.dtype?;
        let (word, byte) = match self.place(tensor, index)? {
            Place::Register { fragment, index } => {
                (self.register(fragment, index, Ty::I32), index.rem_euclid(4))
            }
            Place::Memory {
                space,
                address,
                offset,
            } => {
                let load = Op::Load {
                    space,
                    address,
                    offset,
                    narrow: Some(Narrow::U8),
                    predicate,
                };
                (self.push(load, Ty::I32), 0)
            }
        };
        Some(self.decode_fp8(word, byte, dtype))
    }

    /// An FP8 constant (`0.0.to(e4m3)`, a fill's value) as the word of its byte in all
    /// four places: the byte itself when `value` is exactly an FP8 value, else the f32
    /// constant converted at run time, as a computed value is.
    pub(crate) fn fp8_word(&mut self, dtype: Dtype, value: f64) -> ValueId {
        let Some(byte) = encode(dtype, value) else {
            let single = self.pure(Op::ConstFloat(value), Ty::F32);
            return self.fp8_word_of(single, dtype);
        };
        self.constant(
            i64::from(u32::from(byte) * 0x0101_0101) as i32 as i64,
            Ty::I32,
        )
    }

    /// The FP8 value of `dtype` in byte `byte` of `word`, as f32: its half of the word
    /// decoded as a pair to two f16 (one instruction for both, which value numbering
    /// shares between the pair's reads), then its f16 widened.
    fn decode_fp8(&mut self, word: ValueId, byte: i64, dtype: Dtype) -> ValueId {
        let word = self.convert(word, Ty::B32);
        let high = byte >= 2;
        let decode = match dtype {
            Dtype::E5m2 => UnOp::E5m2x2ToF16x2 { high },
            _ => UnOp::E4m3x2ToF16x2 { high },
        };
        let pair = self.pure(Op::Unary(decode, word), Ty::B32);
        let halves = self.pure_many(Op::Unpack(pair), &[Ty::F16, Ty::F16]);
        self.convert(halves[(byte % 2) as usize], Ty::F32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finite_byte_encodes_back_to_itself() {
        for dtype in [Dtype::E4m3, Dtype::E5m2] {
            for byte in (0..=255u8).filter(|byte| finite_byte(dtype, *byte)) {
                let value = decode(dtype, byte).unwrap();
                // Negative zero compares equal to zero, and encodes as its own byte.
                assert_eq!(encode(dtype, value), Some(byte), "{dtype} {byte:#x}");
            }
        }
    }

    #[test]
    fn values_between_or_beyond_fp8_values_have_no_byte() {
        assert_eq!(encode(Dtype::E4m3, 448.0), Some(0x7e));
        assert_eq!(encode(Dtype::E4m3, 2f64.powi(-9)), Some(0x01));
        for value in [
            449.0,
            480.0,
            1.0625,
            2f64.powi(-10),
            f64::NAN,
            f64::INFINITY,
        ] {
            assert_eq!(encode(Dtype::E4m3, value), None, "{value}");
        }
        assert_eq!(encode(Dtype::E5m2, 57344.0), Some(0x7b));
        assert_eq!(encode(Dtype::E5m2, 1.125), None);
        assert_eq!(encode(Dtype::Bf16, 1.0), None);
    }
}
