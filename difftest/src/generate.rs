//! The seeded generator of random well-typed scalar kernels. Program `index` of seed
//! `seed` is the same on every machine. Every statement is tried on the reference
//! first and drawn again when some row would do what C leaves undefined (a division
//! by zero, an out-of-range shift, an unguarded out-of-bounds load), so every program
//! has one right answer.

use rand_core::{Rng, SeedableRng};
use rand_xorshift::XorShiftRng;

use crate::dtype::Dtype;
use crate::features::{Feature, Features};
use crate::program::{
    Binary, Builtin, Expr, ExprKind, Input, Program, ROW_COUNT, ROWS, Source, Stmt, THREAD, Unary,
    Value, Var,
};
use crate::reference::Row;

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
            self.statement();
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

    /// A value for a tensor element: edge values half of the time.
    fn input_value(&mut self, dtype: Dtype) -> Value {
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
    fn argument_value(&mut self, dtype: Dtype) -> Value {
        match self.input_value(dtype) {
            Value::Int(value) if dtype == Dtype::U64 => Value::Int(value & i128::from(i64::MAX)),
            value => value,
        }
    }

    /// Variables of `dtype` in scope, the newest first.
    fn vars_of(&self, dtype: Dtype) -> Vec<usize> {
        (self.scope.iter().rev())
            .copied()
            .filter(|var| self.program.vars[*var].dtype == dtype)
            .collect()
    }

    /// Whether `.to(to)` of a `from` value may be generated.
    fn converts(&self, from: Dtype, to: Dtype) -> bool {
        if from == to || from == Dtype::Bool || to == Dtype::Bool {
            return false;
        }
        match (from.is_int(), to.is_int()) {
            (true, true) => to.bits() >= from.bits() || self.has(Feature::Narrowing),
            (false, true) => self.has(Feature::FloatToInt),
            (true, false) => {
                !matches!(to, Dtype::F16 | Dtype::BF16) || self.has(Feature::IntToHalf)
            }
            (false, false) => {
                from != Dtype::F64
                    || !matches!(to, Dtype::F16 | Dtype::BF16)
                    || self.has(Feature::DoubleToHalf)
            }
        }
    }

    /// Whether a value of `dtype` can be made from the variables in scope.
    fn reachable(&self, dtype: Dtype) -> bool {
        (self.scope.iter()).any(|var| {
            let from = self.program.vars[*var].dtype;
            from == dtype || self.converts(from, dtype)
        })
    }

    /// A run-time expression of `dtype` (never a lone literal, so it has that dtype
    /// rather than adapting), `depth` levels deep at most.
    fn expr(&mut self, dtype: Dtype, depth: usize) -> Expr {
        if dtype == Dtype::Bool {
            return self.condition(depth);
        }
        let vars = self.vars_of(dtype);
        let sources: Vec<usize> = (self.scope.iter())
            .copied()
            .filter(|var| self.converts(self.program.vars[*var].dtype, dtype))
            .collect();
        if depth == 0 || self.chance(20) {
            if !vars.is_empty() && (sources.is_empty() || self.chance(75)) {
                let var = vars[self.below(vars.len()).min(self.below(vars.len()))];
                return var_expr(var, dtype);
            }
            if !sources.is_empty() {
                let var = self.pick(&sources);
                let from = self.program.vars[var].dtype;
                return to(var_expr(var, from), dtype);
            }
        }
        let depth = depth.saturating_sub(1);
        let choice = self.below(10);
        if choice < 2 {
            let from: Vec<Dtype> = (self.dtypes().into_iter())
                .filter(|from| self.converts(*from, dtype) && self.reachable(*from))
                .collect();
            if !from.is_empty() {
                let from = self.pick(&from);
                let operand = self.expr(from, depth);
                return to(operand, dtype);
            }
        }
        if choice == 2 && (dtype.is_signed() || dtype.is_float() || self.chance(30)) {
            let operand = self.expr(dtype, depth);
            return unary(Unary::Neg, operand, dtype);
        }
        if choice == 3 {
            let builtin = if dtype.is_float() && self.has(Feature::Math) {
                self.pick(&[
                    Builtin::Min,
                    Builtin::Max,
                    Builtin::Abs,
                    Builtin::Sqrt,
                    Builtin::Fma,
                ])
            } else {
                self.pick(&[Builtin::Min, Builtin::Max])
            };
            let arity = match builtin {
                Builtin::Abs | Builtin::Sqrt => 1,
                Builtin::Fma => 3,
                _ => 2,
            };
            let mut args = vec![self.expr(dtype, depth)];
            for _ in 1..arity {
                args.push(self.operand(dtype, depth));
            }
            return Expr {
                dtype,
                kind: ExprKind::Call(builtin, args),
            };
        }
        let ops: &[Binary] = if dtype.is_int() {
            &[
                Binary::Add,
                Binary::Sub,
                Binary::Mul,
                Binary::Div,
                Binary::Rem,
                Binary::And,
                Binary::Or,
                Binary::Xor,
                Binary::Shl,
                Binary::Shr,
            ]
        } else {
            &[Binary::Add, Binary::Sub, Binary::Mul, Binary::Div]
        };
        let op = self.pick(ops);
        let left = self.expr(dtype, depth);
        let right = if matches!(op, Binary::Shl | Binary::Shr) {
            let count = self.operand(dtype, depth);
            let mask = literal(Value::Int(i128::from(dtype.bits()) - 1), dtype);
            binary(Binary::And, count, mask, dtype)
        } else {
            self.operand(dtype, depth)
        };
        // `x - x`, `x * 0` and the like fold to constants the compiler knows, which
        // it may then refuse to divide by; C only divides by what runs.
        let folds = (right == left
            && matches!(op, Binary::Sub | Binary::Xor | Binary::Div | Binary::Rem))
            || (matches!(right.kind, ExprKind::Literal(Value::Int(0)))
                && matches!(op, Binary::Mul | Binary::And | Binary::Div | Binary::Rem))
            || (matches!(right.kind, ExprKind::Literal(Value::Float(zero)) if zero == 0.0)
                && matches!(op, Binary::Mul | Binary::Div));
        let right = if folds {
            let one = if dtype.is_int() {
                Value::Int(1)
            } else {
                Value::Float(1.0)
            };
            literal(one, dtype)
        } else {
            right
        };
        binary(op, left, right, dtype)
    }

    /// A right operand: a literal a third of the time.
    fn operand(&mut self, dtype: Dtype, depth: usize) -> Expr {
        if self.chance(33) {
            let value = self.literal_value(dtype);
            literal(value, dtype)
        } else {
            self.expr(dtype, depth)
        }
    }

    fn literal_value(&mut self, dtype: Dtype) -> Value {
        if dtype.is_float() {
            let values = [
                0.0, 1.0, -1.0, 0.5, 2.0, -2.5, 3.0, 0.25, 100.0, -8.0, 1024.0,
            ];
            return Value::Float(self.pick(&values));
        }
        let value = if self.chance(70) {
            self.below(17) as i128 - 8
        } else {
            let max = dtype.int_max().min(i128::from(i64::MAX));
            let min = dtype.int_min().max(-i128::from(i64::MAX));
            self.pick(&[max, min, max / 2 + 1, 3, 1000, 65_535, 1 << 31])
        };
        Value::Int(dtype.wrap(value).clamp(
            dtype.int_min().max(-i128::from(i64::MAX)),
            dtype.int_max().min(i128::from(i64::MAX)),
        ))
    }

    /// A run-time bool.
    fn condition(&mut self, depth: usize) -> Expr {
        let bools = self.vars_of(Dtype::Bool);
        if (depth == 0 || self.chance(15)) && !bools.is_empty() {
            let var = self.pick(&bools);
            return var_expr(var, Dtype::Bool);
        }
        let depth = depth.saturating_sub(1);
        match self.below(10) {
            0 if depth > 0 => {
                let operand = self.condition(depth);
                unary(Unary::Not, operand, Dtype::Bool)
            }
            1 | 2 if depth > 0 => {
                let op = self.pick(&[Binary::LogicAnd, Binary::LogicOr]);
                let left = self.condition(depth);
                let right = self.condition(depth);
                binary(op, left, right, Dtype::Bool)
            }
            _ => {
                let dtypes: Vec<Dtype> = (self.dtypes().into_iter())
                    .filter(|dtype| self.reachable(*dtype))
                    .collect();
                let dtype = self.pick(&dtypes);
                let mut ops = vec![Binary::Eq, Binary::Lt, Binary::Le, Binary::Gt, Binary::Ge];
                if dtype.is_int() || self.has(Feature::FloatNotEqual) {
                    ops.push(Binary::Ne);
                }
                let op = self.pick(&ops);
                let left = self.expr(dtype, depth);
                let right = self.operand(dtype, depth);
                binary(op, left, right, Dtype::Bool)
            }
        }
    }

    /// Adds a statement that every row runs without undefined behaviour, if one is
    /// found in a few draws.
    fn statement(&mut self) {
        self.statement_with(Generator::draw_statement);
    }

    /// Adds the statements `draw` makes, drawn again until every row runs them without
    /// undefined behaviour; false when no draw did.
    fn statement_with(
        &mut self,
        mut draw: impl FnMut(&mut Self) -> (Vec<Stmt>, Vec<usize>),
    ) -> bool {
        for _ in 0..ATTEMPTS {
            let vars = self.program.vars.len();
            let (stmts, bound) = draw(self);
            let mut rows = self.rows.clone();
            let defined = rows.iter_mut().all(|row| {
                row.values.resize(self.program.vars.len(), None);
                row.stored.resize(self.program.outputs.len(), None);
                row.run(&self.program, &stmts).is_ok()
                    && (!row.signed_overflow || self.features.has(Feature::SignedWrap))
            });
            if defined {
                self.rows = rows;
                self.program.body.extend(stmts);
                self.scope.extend(bound);
                return true;
            }
            self.program.vars.truncate(vars);
        }
        false
    }

    /// A statement and the variables it leaves in scope.
    fn draw_statement(&mut self) -> (Vec<Stmt>, Vec<usize>) {
        let dtypes: Vec<Dtype> = (self.dtypes().into_iter())
            .filter(|dtype| self.reachable(*dtype))
            .collect();
        let mut dtype = self.pick(&dtypes);
        let kind = self.below(10);
        if kind < 4 || (kind < 6 && !self.has(Feature::Branches)) {
            if self.chance(10) {
                dtype = Dtype::Bool;
            }
            let value = self.expr(dtype, 3);
            let var = self.new_var("v", dtype);
            let typed = self.chance(50);
            return (
                vec![Stmt::Let {
                    var,
                    mutable: false,
                    typed,
                    value,
                }],
                vec![var],
            );
        }
        let var = self.new_var("c", dtype);
        let init = Stmt::Let {
            var,
            mutable: true,
            typed: true,
            value: self.operand(dtype, 2),
        };
        let assign = if kind < 6 {
            self.branch(var, dtype)
        } else if kind < 8 && self.has(Feature::Loops) {
            self.loop_stmt(var, dtype)
        } else if self.has(Feature::ShortCircuit) {
            self.guarded(var, dtype)
        } else {
            self.branch(var, dtype)
        };
        (vec![init, assign], vec![var])
    }

    /// `if cond { cell = .. } [else { cell = .. }]`.
    fn branch(&mut self, cell: usize, dtype: Dtype) -> Stmt {
        let cond = self.condition(2);
        let then = vec![Stmt::Assign {
            var: cell,
            value: self.expr(dtype, 2),
        }];
        let otherwise = if self.chance(50) {
            vec![Stmt::Assign {
                var: cell,
                value: self.expr(dtype, 2),
            }]
        } else {
            Vec::new()
        };
        Stmt::If {
            cond,
            then,
            otherwise,
        }
    }

    /// A loop with a run-time trip count of 0 to 7 that updates the cell from itself.
    fn loop_stmt(&mut self, cell: usize, dtype: Dtype) -> Stmt {
        let trips = binary(
            Binary::And,
            self.expr(Dtype::I32, 1),
            literal(Value::Int(7), Dtype::I32),
            Dtype::I32,
        );
        let counter = self.new_var("k", Dtype::I32);
        self.scope.push(counter);
        let update = self.update(cell, dtype);
        self.scope.pop();
        if self.chance(50) {
            return Stmt::For {
                counter,
                trips,
                body: vec![update],
            };
        }
        // `while counter < trips { ..; counter = counter + 1; }`, the counter a cell.
        let count = var_expr(counter, Dtype::I32);
        let step = binary(
            Binary::Add,
            count.clone(),
            literal(Value::Int(1), Dtype::I32),
            Dtype::I32,
        );
        Stmt::If {
            cond: binary(
                Binary::Ge,
                trips.clone(),
                literal(Value::Int(0), Dtype::I32),
                Dtype::Bool,
            ),
            then: vec![
                Stmt::Let {
                    var: counter,
                    mutable: true,
                    typed: true,
                    value: literal(Value::Int(0), Dtype::I32),
                },
                Stmt::While {
                    cond: binary(Binary::Lt, count, trips, Dtype::Bool),
                    body: vec![
                        update,
                        Stmt::Assign {
                            var: counter,
                            value: step,
                        },
                    ],
                },
            ],
            otherwise: Vec::new(),
        }
    }

    /// `cell = cell op expr` (or `cell = expr`), the loop counter in scope.
    fn update(&mut self, cell: usize, dtype: Dtype) -> Stmt {
        let ops: &[Binary] = if dtype.is_int() {
            &[
                Binary::Add,
                Binary::Sub,
                Binary::Mul,
                Binary::Xor,
                Binary::Or,
            ]
        } else {
            &[Binary::Add, Binary::Sub, Binary::Mul]
        };
        let value = if dtype == Dtype::Bool {
            self.condition(2)
        } else {
            let op = self.pick(ops);
            let right = self.expr(dtype, 2);
            binary(op, var_expr(cell, dtype), right, dtype)
        };
        Stmt::Assign { var: cell, value }
    }

    /// `if (t + c) < n && x[t + c] > lit { cell = .. }`: the load is out of bounds in
    /// the last rows, where C never makes it.
    fn guarded(&mut self, cell: usize, dtype: Dtype) -> Stmt {
        let tensors: Vec<usize> = (0..self.program.inputs.len())
            .filter(|input| {
                let input = &self.program.inputs[*input];
                input.source == Source::Tensor
            })
            .collect();
        if tensors.is_empty() {
            return self.branch(cell, dtype);
        }
        let input = self.pick(&tensors);
        let element = self.program.vars[self.program.inputs[input].var].dtype;
        let offset = literal(Value::Int(1 + self.below(8) as i128), Dtype::I32);
        let index = binary(
            Binary::Add,
            var_expr(THREAD, Dtype::I32),
            offset,
            Dtype::I32,
        );
        let in_bounds = binary(
            Binary::Lt,
            index.clone(),
            var_expr(ROW_COUNT, Dtype::I32),
            Dtype::Bool,
        );
        let load = Expr {
            dtype: element,
            kind: ExprKind::Load(input, Box::new(index)),
        };
        let test = if element == Dtype::Bool {
            load
        } else {
            let value = self.literal_value(element);
            binary(
                self.pick(&[Binary::Gt, Binary::Le, Binary::Eq]),
                load,
                literal(value, element),
                Dtype::Bool,
            )
        };
        let op = self.pick(&[Binary::LogicAnd, Binary::LogicOr]);
        let cond = if op == Binary::LogicAnd {
            binary(op, in_bounds, test, Dtype::Bool)
        } else {
            // `!(in bounds) || test`: the load only where the index is in bounds.
            binary(
                op,
                unary(Unary::Not, in_bounds, Dtype::Bool),
                test,
                Dtype::Bool,
            )
        };
        Stmt::If {
            cond,
            then: vec![Stmt::Assign {
                var: cell,
                value: self.expr(dtype, 2),
            }],
            otherwise: Vec::new(),
        }
    }

    /// Stores a value of a dtype that memory holds to a new output.
    fn output(&mut self) {
        let dtypes: Vec<Dtype> = (self.dtypes().into_iter())
            .filter(|dtype| self.in_memory(*dtype) && self.reachable(*dtype))
            .collect();
        if self.has(Feature::Branches) && self.chance(25) {
            // A bool result, through an i32 cell.
            self.statement_with(|generator| {
                let var = generator.new_var("b", Dtype::I32);
                let cond = generator.condition(3);
                let stmts = vec![
                    Stmt::Let {
                        var,
                        mutable: true,
                        typed: true,
                        value: literal(Value::Int(0), Dtype::I32),
                    },
                    Stmt::If {
                        cond,
                        then: vec![Stmt::Assign {
                            var,
                            value: literal(Value::Int(1), Dtype::I32),
                        }],
                        otherwise: Vec::new(),
                    },
                ];
                (stmts, vec![var])
            });
            if let Some(var) = self.vars_of(Dtype::I32).first().copied()
                && self.program.vars[var].name.starts_with('b')
            {
                self.program.outputs.push(Dtype::I32);
                let output = self.program.outputs.len() - 1;
                self.program.body.push(Stmt::Store {
                    output,
                    value: var_expr(var, Dtype::I32),
                });
                return;
            }
        }
        let dtype = self.pick(&dtypes);
        self.store(dtype);
    }

    /// Stores an expression of `dtype` to a new output.
    fn store(&mut self, dtype: Dtype) {
        self.program.outputs.push(dtype);
        let output = self.program.outputs.len() - 1;
        let stored = self.statement_with(|generator| {
            let value = generator.expr(dtype, 3);
            (vec![Stmt::Store { output, value }], Vec::new())
        });
        if !stored {
            // Some variable of the dtype, or a conversion of one, is always defined.
            let value = self.expr(dtype, 0);
            self.statement_with(|_| {
                (
                    vec![Stmt::Store {
                        output,
                        value: value.clone(),
                    }],
                    Vec::new(),
                )
            });
        }
    }
}

fn var_expr(var: usize, dtype: Dtype) -> Expr {
    Expr {
        dtype,
        kind: ExprKind::Var(var),
    }
}

fn literal(value: Value, dtype: Dtype) -> Expr {
    Expr {
        dtype,
        kind: ExprKind::Literal(value),
    }
}

fn to(operand: Expr, dtype: Dtype) -> Expr {
    Expr {
        dtype,
        kind: ExprKind::To(Box::new(operand)),
    }
}

fn unary(op: Unary, operand: Expr, dtype: Dtype) -> Expr {
    Expr {
        dtype,
        kind: ExprKind::Unary(op, Box::new(operand)),
    }
}

fn binary(op: Binary, left: Expr, right: Expr, dtype: Dtype) -> Expr {
    Expr {
        dtype,
        kind: ExprKind::Binary(op, Box::new(left), Box::new(right)),
    }
}
