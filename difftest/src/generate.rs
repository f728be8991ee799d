//! The seeded generator of random well-typed scalar kernels. Program `index` of seed
//! `seed` is the same on every machine. Every statement is tried on the reference
//! first and drawn again when some row would do what C leaves undefined (a division
//! by zero, an out-of-range shift, an unguarded out-of-bounds load), so every program
//! has one right answer.

use rand_core::{Rng, SeedableRng};
use rand_xorshift::XorShiftRng;

use crate::dtype::Dtype;
use crate::features::{Feature, Features};
use crate::program::{Input, Program, ROW_COUNT, ROWS, Source, THREAD, Var};
use crate::reference::Row;

mod expressions;
mod inputs;
mod statements;

/// Draws for a statement before it is left out.
const ATTEMPTS: usize = 40;

/// Program `index` of the run seeded `seed`.
pub fn generate(seed: u64, index: u64, features: &Features) -> Program {
    let mixed = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(index.wrapping_mul(0xD1B5_4A32_D192_ED03));
    let mut generator = Generator {
        rng: XorShiftRng::seed_from_u64(mixed),
        features,
        program: Program {
            name: format!("p{seed}_{index}"),
            vars: vec![
                Var {
                    name: "t".to_owned(),
                    dtype: Dtype::I32,
                },
                Var {
                    name: "n".to_owned(),
                    dtype: Dtype::I32,
                },
            ],
            inputs: Vec::new(),
            body: Vec::new(),
            outputs: Vec::new(),
            atomics: Vec::new(),
        },
        scope: vec![THREAD, ROW_COUNT],
        rows: Vec::new(),
    };
    generator.program_body();
    generator.program
}

struct Generator<'f> {
    rng: XorShiftRng,
    features: &'f Features,
    program: Program,
    /// Variables readable at this point.
    scope: Vec<usize>,
    /// The reference's state of every row after the statements so far.
    rows: Vec<Row>,
}

impl Generator<'_> {
    fn below(&mut self, bound: usize) -> usize {
        (self.rng.next_u64() % bound as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    fn has(&self, feature: Feature) -> bool {
        self.features.has(feature)
    }

    /// The dtypes values may have.
    fn dtypes(&self) -> Vec<Dtype> {
        let mut dtypes = vec![Dtype::I32, Dtype::I64, Dtype::F32, Dtype::F64];
        if self.has(Feature::Unsigned) {
            dtypes.extend([Dtype::U32, Dtype::U64]);
        }
        if self.has(Feature::SmallInts) {
            dtypes.extend([Dtype::I8, Dtype::I16]);
            if self.has(Feature::Unsigned) {
                dtypes.extend([Dtype::U8, Dtype::U16]);
            }
        }
        if self.has(Feature::HalfFloats) {
            dtypes.extend([Dtype::F16, Dtype::BF16]);
        }
        dtypes
    }

    /// Whether a tensor of `dtype` may be loaded from or stored to.
    fn in_memory(&self, dtype: Dtype) -> bool {
        dtype.element().is_some() && (!dtype.is_small_int() || self.has(Feature::SmallIntMemory))
    }

    fn program_body(&mut self) {
        let dtypes = self.dtypes();
        for _ in 0..2 + self.below(4) {
            let mut dtype = self.pick(&dtypes);
            if self.chance(8) {
                dtype = Dtype::Bool;
            }
            let argument = matches!(
                dtype,
                Dtype::I32
                    | Dtype::I64
                    | Dtype::U32
                    | Dtype::U64
                    | Dtype::F16
                    | Dtype::BF16
                    | Dtype::F32
                    | Dtype::F64
                    | Dtype::Bool
            );
            let source = if !self.in_memory(dtype) || (argument && self.chance(30)) {
                if !argument {
                    continue;
                }
                Source::Argument
            } else {
                Source::Tensor
            };
            let values = match source {
                Source::Argument => {
                    let value = self.argument_value(dtype);
                    vec![value; ROWS]
                }
                Source::Tensor => (0..ROWS).map(|_| self.input_value(dtype)).collect(),
            };
            let var = self.new_var("a", dtype);
            self.program.inputs.push(Input {
                var,
                source,
                values,
            });
            self.scope.push(var);
        }
        self.rows = (0..ROWS)
            .map(|row| Row::start(&self.program, row))
            .collect();
        for _ in 0..2 + self.below(5) {
            if self.has(Feature::Shuffles) && self.chance(20) {
                self.shuffle();
            }
            self.statement();
        }
        if self.has(Feature::Atomics) && self.chance(40) {
            self.atomic();
        }
        for _ in 0..1 + self.below(3) {
            self.output();
        }
        if self.program.outputs.is_empty() {
            // i32 is always reachable: `t` is one.
            self.store(Dtype::I32);
        }
    }

    fn new_var(&mut self, prefix: &str, dtype: Dtype) -> usize {
        let var = self.program.vars.len();
        self.program.vars.push(Var {
            name: format!("{prefix}{var}"),
            dtype,
        });
        var
    }
}
