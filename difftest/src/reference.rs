//! The reference: what each thread of a program computes under C's rules (CUDA C's
//! for what C leaves to the implementation), written from those rules and
//! docs/language.md, not from the compiler.
//!
//! - Integers: C's integer promotions: an operator on 8- or 16-bit values computes in
//!   `int` (exactly, since the operands fit; a result past `int` is C's signed overflow),
//!   and the value is wrapped to its dtype where it is held (a variable, a store, a
//!   `.to()`), though CuK gives `i8 + i8` the dtype i8. i32 and i64 wrap as CuK
//!   documents, u32 and u64 modulo their width. Unsigned and signed division,
//!   remainder, right shift and comparison are told apart by the dtype. What C leaves
//!   undefined is never generated: division by zero, `MIN / -1` at 32 and 64 bits,
//!   shift counts outside `0..bits` (32 for the promoted types), signed overflow.
//! - Floats: IEEE 754 to nearest even in the operands' format (16-bit formats
//!   computed exactly and rounded once, which double rounding through f32 cannot
//!   change for `+ - * /` and `sqrt`); comparisons with a NaN are false but `!=`,
//!   which is true; `min`/`max` return the other operand when one is NaN, as
//!   `fminf` does; `fma` of 16-bit floats is computed in f32 and rounded again, as
//!   docs/language.md says.
//! - Conversions: int to int wraps; int to float rounds once to nearest even; float to
//!   float rounds to nearest even; float to int truncates toward zero and saturates
//!   out-of-range values to the dtype's range with NaN giving 0 (PTX `cvt.rzi`).
//! - Shuffles (`__shfl_*_sync` over the whole warp): a lane receives the value its
//!   source lane held at that statement; `down` and `up` past the warp's ends keep the
//!   lane's own value. The rows run each top-level statement in step for this.
//! - Atomics: integer `atomic_add` (wrapping), `atomic_max` and `atomic_min` commute, so
//!   the threads' order does not matter.
//! - `&&` and `||` evaluate their right operand only when the left one requires it:
//!   a load behind a false guard is never made.

use crate::dtype::Dtype;
use crate::program::{
    Binary, Builtin, Expr, ExprKind, Program, ROW_COUNT, ROWS, Stmt, THREAD, Unary, Value,
};

/// Iterations a row may run in all its loops before the program is refused.
const LOOP_BUDGET: usize = 10_000;

/// Why a row's computation is not defined, so the generator never emits it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Undefined {
    /// Division or remainder by zero.
    DivisionByZero,
    /// `MIN / -1` or `MIN % -1` in 32 or 64 bits.
    DivisionOverflow,
    /// A shift count outside `0..bits`.
    ShiftCount,
    /// A load outside its tensor.
    OutOfBounds,
    /// A loop that ran past the budget.
    EndlessLoop,
    /// A variable read before it was assigned.
    Unassigned,
    /// A shuffle where not every lane runs it.
    DivergentShuffle,
}

/// One row's state: the variables' values.
#[derive(Clone, Debug)]
pub struct Row {
    /// The value of each variable, once assigned.
    pub values: Vec<Option<Value>>,
    /// Loaded tensors' values (by input), for run-time indexed loads.
    tensors: Vec<Option<Vec<Value>>>,
    /// A `min` or `max` compared zeros of both signs: the sign of a zero result is
    /// not determined (PTX and C leave it open).
    pub zero_sign_open: bool,
    loop_budget: usize,
    /// An i32 or i64 operation overflowed (undefined in C, wrapping in CuK).
    pub signed_overflow: bool,
    /// A negative index expression was divided by a power of two: docs/language.md
    /// ("Division") lists that CuK takes `t - 128` of a hardware index or extent as
    /// non-negative there, where C truncates toward zero.
    pub index_taken_non_negative: bool,
    /// What the row stored to each output.
    pub stored: Vec<Option<Value>>,
    /// The row's atomic updates: target, slot and operand.
    pub updates: Vec<(usize, usize, Value)>,
}

impl Row {
    /// Row `row` of `program` before its body runs: the inputs read.
    pub fn start(program: &Program, row: usize) -> Row {
        let mut values = vec![None; program.vars.len()];
        values[THREAD] = Some(Value::Int(row as i128));
        values[ROW_COUNT] = Some(Value::Int(ROWS as i128));
        let mut tensors = Vec::new();
        for input in &program.inputs {
            values[input.var] = Some(input.values[row]);
            tensors.push(Some(input.values.clone()));
        }
        Row {
            values,
            tensors,
            zero_sign_open: false,
            loop_budget: LOOP_BUDGET,
            signed_overflow: false,
            index_taken_non_negative: false,
            stored: vec![None; program.outputs.len()],
            updates: Vec::new(),
        }
    }

    /// Runs statements, in order.
    pub fn run(&mut self, program: &Program, stmts: &[Stmt]) -> Result<(), Undefined> {
        for stmt in stmts {
            self.run_one(program, stmt)?;
        }
        Ok(())
    }

    fn run_one(&mut self, program: &Program, stmt: &Stmt) -> Result<(), Undefined> {
        match stmt {
            Stmt::Let { var, value, .. } | Stmt::Assign { var, value } => {
                let dtype = value.dtype;
                let value = match self.eval(value)? {
                    Value::Int(value) => Value::Int(dtype.wrap(value)),
                    other => other,
                };
                self.values[*var] = Some(value);
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                if self.eval(cond)? == Value::Bool(true) {
                    self.run(program, then)?;
                } else {
                    self.run(program, otherwise)?;
                }
            }
            Stmt::For {
                counter,
                trips,
                body,
            } => {
                let Value::Int(trips) = self.eval(trips)? else {
                    unreachable!("a trip count is an integer")
                };
                let mut k = 0;
                while k < trips {
                    self.spend()?;
                    self.values[*counter] = Some(Value::Int(k));
                    self.run(program, body)?;
                    k += 1;
                }
            }
            Stmt::While { cond, body } => {
                while self.eval(cond)? == Value::Bool(true) {
                    self.spend()?;
                    self.run(program, body)?;
                }
            }
            Stmt::Store { output, value } => {
                // Assignment to an 8- or 16-bit element keeps the low bits of the
                // promoted value (C's conversion to the element type).
                let dtype = value.dtype;
                let value = match self.eval(value)? {
                    Value::Int(value) => Value::Int(dtype.wrap(value)),
                    other => other,
                };
                self.stored[*output] = Some(value);
            }
            Stmt::Shuffle { .. } => return Err(Undefined::DivergentShuffle),
            Stmt::Atomic {
                target,
                slot,
                value,
            } => {
                let slot = self.row_index(slot)?;
                let value = self.eval(value)?;
                self.updates.push((*target, slot, value));
            }
        }
        Ok(())
    }

    fn spend(&mut self) -> Result<(), Undefined> {
        self.loop_budget = self
            .loop_budget
            .checked_sub(1)
            .ok_or(Undefined::EndlessLoop)?;
        Ok(())
    }

    /// `expr`, an integer (a slot or a lane), as the index of a row: out of bounds
    /// outside `0..ROWS`.
    fn row_index(&mut self, expr: &Expr) -> Result<usize, Undefined> {
        let Value::Int(index) = self.eval(expr)? else {
            unreachable!("a row index is an integer")
        };
        usize::try_from(index)
            .ok()
            .filter(|index| *index < ROWS)
            .ok_or(Undefined::OutOfBounds)
    }

    /// The value of `expr` in this row.
    pub fn eval(&mut self, expr: &Expr) -> Result<Value, Undefined> {
        let dtype = expr.dtype;
        Ok(match &expr.kind {
            ExprKind::Var(var) => self.values[*var].ok_or(Undefined::Unassigned)?,
            ExprKind::Literal(value) => *value,
            ExprKind::Unary(Unary::Not, operand) => Value::Bool(!bool_of(self.eval(operand)?)),
            ExprKind::Unary(Unary::Neg, operand) => match self.eval(operand)? {
                Value::Int(value) => Value::Int(self.wrap(dtype, -value)),
                Value::Float(value) => Value::Float(-value),
                Value::Bool(_) => unreachable!("`-` of a bool is refused"),
            },
            ExprKind::Binary(Binary::LogicAnd, left, right) => {
                Value::Bool(bool_of(self.eval(left)?) && bool_of(self.eval(right)?))
            }
            ExprKind::Binary(Binary::LogicOr, left, right) => {
                Value::Bool(bool_of(self.eval(left)?) || bool_of(self.eval(right)?))
            }
            ExprKind::Binary(op, left_expr, right) => {
                let operands = left_expr.dtype;
                let left = self.eval(left_expr)?;
                let right = self.eval(right)?;
                if matches!(op, Binary::Div | Binary::Rem)
                    && matches!((left, right), (Value::Int(a), Value::Int(b))
                        if a < 0 && b > 1 && (b as u128).is_power_of_two())
                    && taken_as_non_negative(left_expr)
                {
                    self.index_taken_non_negative = true;
                }
                let (value, overflowed) = binary(*op, operands, left, right)?;
                self.signed_overflow |= overflowed;
                value
            }
            ExprKind::Call(builtin, args) => {
                let mut values = Vec::with_capacity(args.len());
                for arg in args {
                    values.push(self.eval(arg)?);
                }
                self.call(*builtin, dtype, &values)
            }
            ExprKind::To(operand) => convert(self.eval(operand)?, dtype),
            ExprKind::Load(input, index) => {
                let Value::Int(index) = self.eval(index)? else {
                    unreachable!("an index is an integer")
                };
                let tensor = self.tensors[*input]
                    .as_ref()
                    .ok_or(Undefined::OutOfBounds)?;
                let index = usize::try_from(index).map_err(|_| Undefined::OutOfBounds)?;
                *tensor.get(index).ok_or(Undefined::OutOfBounds)?
            }
        })
    }

    /// An operation's exact result wrapped to `dtype` (or for an 8- or 16-bit dtype, to
    /// C's `int`, which it is promoted to), noting a signed overflow.
    fn wrap(&mut self, dtype: Dtype, exact: i128) -> i128 {
        let held = promoted(dtype);
        let wrapped = held.wrap(exact);
        self.signed_overflow |= wrapped != exact && held.is_signed();
        wrapped
    }

    fn call(&mut self, builtin: Builtin, dtype: Dtype, values: &[Value]) -> Value {
        match (builtin, values) {
            (Builtin::Min | Builtin::Max, [Value::Int(a), Value::Int(b)]) => {
                Value::Int(if builtin == Builtin::Min {
                    *a.min(b)
                } else {
                    *a.max(b)
                })
            }
            (Builtin::Min | Builtin::Max, [Value::Float(a), Value::Float(b)]) => {
                let (a, b) = (*a, *b);
                if a == 0.0 && b == 0.0 && a.is_sign_negative() != b.is_sign_negative() {
                    self.zero_sign_open = true;
                }
                let keep_a = b.is_nan() || (!a.is_nan() && (builtin == Builtin::Min) == (a < b));
                Value::Float(if keep_a { a } else { b })
            }
            (Builtin::Abs, [Value::Float(a)]) => Value::Float(a.abs()),
            (Builtin::Sqrt, [Value::Float(a)]) => Value::Float(round(dtype, a.sqrt())),
            (Builtin::Fma, [Value::Float(a), Value::Float(b), Value::Float(c)]) => {
                Value::Float(match dtype {
                    Dtype::F64 => a.mul_add(*b, *c),
                    _ => {
                        let single = (*a as f32).mul_add(*b as f32, *c as f32);
                        round(dtype, f64::from(single))
                    }
                })
            }
            _ => unreachable!("{builtin:?} of {values:?}"),
        }
    }
}

/// Whether the compiler takes `expr` as non-negative where it divides by a power of
/// two (docs/language.md, "Division"): the hardware index `t` and the extent `n`,
/// summed, scaled by non-negative constants, less a constant.
fn taken_as_non_negative(expr: &Expr) -> bool {
    let literal = |expr: &Expr, non_negative: bool| match expr.kind {
        ExprKind::Literal(Value::Int(value)) => !non_negative || value >= 0,
        _ => false,
    };
    match &expr.kind {
        ExprKind::Var(var) => *var == THREAD || *var == ROW_COUNT,
        ExprKind::Binary(Binary::Add, left, right) => {
            (taken_as_non_negative(left) || literal(left, false))
                && (taken_as_non_negative(right) || literal(right, false))
        }
        ExprKind::Binary(Binary::Sub, left, right) => {
            taken_as_non_negative(left) && literal(right, false)
        }
        ExprKind::Binary(Binary::Mul, left, right) => {
            (taken_as_non_negative(left) || literal(left, true))
                && (taken_as_non_negative(right) || literal(right, true))
        }
        _ => false,
    }
}

fn bool_of(value: Value) -> bool {
    match value {
        Value::Bool(value) => value,
        _ => unreachable!("a condition is a bool"),
    }
}

/// A float result rounded to `dtype` (f32 through Rust's own f32 arithmetic).
fn round(dtype: Dtype, value: f64) -> f64 {
    dtype.format().round(value)
}

/// `left op right` on operands of dtype `operands`, and whether it is an i32 or i64
/// operation that overflowed.
fn binary(
    op: Binary,
    operands: Dtype,
    left: Value,
    right: Value,
) -> Result<(Value, bool), Undefined> {
    Ok((
        match (left, right) {
            (Value::Int(a), Value::Int(b)) => {
                if op.is_comparison() {
                    return Ok((Value::Bool(compare(op, a.cmp(&b))), false));
                }
                let held = promoted(operands);
                let bits = i128::from(held.bits());
                let exact = match op {
                    Binary::Add => a + b,
                    Binary::Sub => a - b,
                    // modulo 2^128, which keeps the low 64 bits exact
                    Binary::Mul => a.wrapping_mul(b),
                    Binary::Div | Binary::Rem => {
                        if b == 0 {
                            return Err(Undefined::DivisionByZero);
                        }
                        if !operands.is_small_int() && a == operands.int_min() && b == -1 {
                            return Err(Undefined::DivisionOverflow);
                        }
                        // Rust's i128 `/` and `%` truncate toward zero, as C's do.
                        if op == Binary::Div { a / b } else { a % b }
                    }
                    Binary::And => a & b,
                    Binary::Or => a | b,
                    Binary::Xor => a ^ b,
                    Binary::Shl | Binary::Shr => {
                        if b < 0 || b >= bits {
                            return Err(Undefined::ShiftCount);
                        }
                        // Arithmetic for signed values (C's implementation-defined choice
                        // that CUDA makes), logical for unsigned ones: both are `>>` of
                        // the exact value, which is in the dtype's range.
                        if op == Binary::Shl { a << b } else { a >> b }
                    }
                    _ => unreachable!("{op:?} of integers"),
                };
                let wrapped = held.wrap(exact);
                // A left shift's overflow is undefined for signed values in C too.
                let overflowed = wrapped != exact && held.is_signed();
                return Ok((Value::Int(wrapped), overflowed));
            }
            (Value::Float(a), Value::Float(b)) => {
                if op.is_comparison() {
                    let holds = match a.partial_cmp(&b) {
                        None => op == Binary::Ne,
                        Some(order) => compare(op, order),
                    };
                    return Ok((Value::Bool(holds), false));
                }
                Value::Float(float_arithmetic(op, operands, a, b))
            }
            (Value::Bool(a), Value::Bool(b)) => Value::Bool(match op {
                Binary::Eq => a == b,
                Binary::Ne => a != b,
                _ => unreachable!("{op:?} of bools"),
            }),
            _ => unreachable!("{op:?} of {left:?} and {right:?}"),
        },
        false,
    ))
}

fn compare(op: Binary, order: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    match op {
        Binary::Eq => order == Equal,
        Binary::Ne => order != Equal,
        Binary::Lt => order == Less,
        Binary::Le => order != Greater,
        Binary::Gt => order == Greater,
        Binary::Ge => order != Less,
        _ => unreachable!("{op:?} is not a comparison"),
    }
}

fn float_arithmetic(op: Binary, dtype: Dtype, a: f64, b: f64) -> f64 {
    if dtype == Dtype::F32 {
        let (a, b) = (a as f32, b as f32);
        return f64::from(match op {
            Binary::Add => a + b,
            Binary::Sub => a - b,
            Binary::Mul => a * b,
            Binary::Div => a / b,
            _ => unreachable!("{op:?} of floats"),
        });
    }
    let exact = match op {
        Binary::Add => a + b,
        Binary::Sub => a - b,
        Binary::Mul => a * b,
        Binary::Div => a / b,
        _ => unreachable!("{op:?} of floats"),
    };
    if dtype == Dtype::F64 {
        exact
    } else {
        round(dtype, exact)
    }
}

/// `value.to(dtype)`.
pub fn convert(value: Value, dtype: Dtype) -> Value {
    // docs/language.md: an integer or an f64 becomes an f16 or bf16 through f32, rounded
    // twice (exact for f32, f16 and bf16 sources, whose values f32 holds).
    let half = matches!(dtype, Dtype::F16 | Dtype::BF16);
    match value {
        Value::Int(value) if dtype.is_int() => Value::Int(dtype.wrap(value)),
        Value::Int(value) if half => {
            Value::Float(round(dtype, Dtype::F32.format().round_int(value)))
        }
        Value::Int(value) => Value::Float(dtype.format().round_int(value)),
        Value::Float(value) if half => Value::Float(round(dtype, round(Dtype::F32, value))),
        Value::Float(value) if dtype.is_float() => Value::Float(round(dtype, value)),
        Value::Float(value) => Value::Int(if value.is_nan() {
            0
        } else if value >= dtype.int_max() as f64 {
            dtype.int_max()
        } else if value <= dtype.int_min() as f64 {
            dtype.int_min()
        } else {
            value.trunc() as i128
        }),
        Value::Bool(_) => unreachable!("a bool has no `.to`"),
    }
}

/// What the atomic targets of `program` hold once every row has updated them, each
/// starting as all-ones bytes (-1, or the largest unsigned value) as the harness fills
/// it: the operations commute, so the threads' order does not matter.
pub fn atomic_results(program: &Program, rows: &[Row]) -> Vec<Vec<Value>> {
    let mut results: Vec<Vec<Value>> = (program.atomics.iter())
        .map(|(dtype, _)| vec![Value::Int(dtype.wrap(-1)); ROWS])
        .collect();
    for row in rows {
        for (target, slot, value) in &row.updates {
            let (dtype, op) = program.atomics[*target];
            let (Value::Int(old), Value::Int(value)) = (results[*target][*slot], *value) else {
                unreachable!("atomics are of integers")
            };
            results[*target][*slot] = Value::Int(match op {
                crate::program::Atomic::Add => dtype.wrap(old + value),
                crate::program::Atomic::Max => old.max(value),
                crate::program::Atomic::Min => old.min(value),
            });
        }
    }
    results
}

/// Runs top-level statements in every row, in step: each statement in all rows before
/// the next, so a shuffle reads the other lanes' values of its moment.
pub fn run_in_step(rows: &mut [Row], program: &Program, stmts: &[Stmt]) -> Result<(), Undefined> {
    for stmt in stmts {
        if let Stmt::Shuffle {
            var,
            kind,
            source,
            lane,
        } = stmt
        {
            let mut received = Vec::with_capacity(rows.len());
            for (index, row) in rows.iter_mut().enumerate() {
                let argument = row.row_index(lane)?;
                received.push(kind.source_lane(index, argument));
            }
            let values: Vec<Option<Value>> = (received.iter())
                .map(|from| rows[*from].values[*source])
                .collect();
            for (row, value) in rows.iter_mut().zip(values) {
                row.values[*var] = Some(value.ok_or(Undefined::Unassigned)?);
            }
        } else {
            for row in rows.iter_mut() {
                row.run(program, std::slice::from_ref(stmt))?;
            }
        }
    }
    Ok(())
}

/// What every row of `program` stores, or why a row is undefined.
pub fn evaluate(program: &Program) -> Result<Vec<Row>, Undefined> {
    let mut rows: Vec<Row> = (0..ROWS).map(|row| Row::start(program, row)).collect();
    run_in_step(&mut rows, program, &program.body)?;
    Ok(rows)
}

/// The dtype C computes an operator on `dtype` in: `int` for the 8- and 16-bit
/// integers (the integer promotions), the dtype itself otherwise.
fn promoted(dtype: Dtype) -> Dtype {
    if dtype.is_small_int() {
        Dtype::I32
    } else {
        dtype
    }
}
