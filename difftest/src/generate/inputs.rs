//! The inputs' values: edge values of each dtype (0, -1, the extremes, 2^31, NaN,
//! infinities, subnormals) half of the time, small and random-bit values otherwise.

use rand_core::Rng;

use super::Generator;
use crate::dtype::Dtype;
use crate::program::Value;

impl Generator<'_> {
    /// A value for a tensor element: edge values half of the time.
    pub(super) fn input_value(&mut self, dtype: Dtype) -> Value {
        if dtype == Dtype::Bool {
            return Value::Bool(self.chance(50));
        }
        if dtype.is_int() {
            let (min, max) = (dtype.int_min(), dtype.int_max());
            let edges = [
                0,
                1,
                -1,
                2,
                min,
                max,
                min + 1,
                max - 1,
                1 << 31,
                (1 << 31) - 1,
                -(1 << 31),
                1 << 15,
                255,
                128,
                127,
                -128,
                7,
                -7,
                100,
                1 << 32,
            ];
            let value = if self.chance(50) {
                self.pick(&edges)
            } else if self.chance(50) {
                self.below(33) as i128 - 16
            } else {
                i128::from(self.rng.next_u64())
            };
            return Value::Int(dtype.wrap(value));
        }
        let format = dtype.format();
        let edges = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.0,
            -3.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            // the smallest and largest subnormal, the smallest normal, the largest finite
            format.decode(1),
            format.decode(0x3ff),
            format.decode(0x400),
            format.decode(0x7bff),
            2f64.powi(31),
            -(2f64.powi(31)),
            2f64.powi(63),
            2f64.powi(64),
            4_294_967_295.0,
            -2_147_483_649.0,
            1e10,
            65504.0,
            255.5,
            -128.7,
        ];
        let value = if self.chance(50) {
            format.round(self.pick(&edges))
        } else if self.chance(50) {
            (self.below(2001) as f64 - 1000.0) / 8.0
        } else {
            let bits = self.rng.next_u64();
            let value = match dtype {
                Dtype::F64 => f64::from_bits(bits),
                _ => format.decode(bits),
            };
            if value.is_nan() { f64::NAN } else { value }
        };
        Value::Float(format.round(value))
    }

    /// A value for a kernel argument: what the runtime passes exactly.
    pub(super) fn argument_value(&mut self, dtype: Dtype) -> Value {
        match self.input_value(dtype) {
            Value::Int(value) if dtype == Dtype::U64 => Value::Int(value & i128::from(i64::MAX)),
            value => value,
        }
    }
}
