//! Run-time expressions of a dtype: variables, conversions, operators, built-ins
//! and literals, each well typed under docs/language.md (both operands of one dtype,
//! a literal only beside a run-time operand, so it adapts to that dtype).

use super::Generator;
use crate::dtype::Dtype;
use crate::features::Feature;
use crate::program::{Binary, Builtin, Expr, ExprKind, Unary, Value};

impl Generator<'_> {
    /// Variables of `dtype` in scope, the newest first.
    pub(super) fn vars_of(&self, dtype: Dtype) -> Vec<usize> {
        (self.scope.iter().rev())
            .copied()
            .filter(|var| self.program.vars[*var].dtype == dtype)
            .collect()
    }

    /// Whether `.to(to)` of a `from` value may be generated.
    pub(super) fn converts(&self, from: Dtype, to: Dtype) -> bool {
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
    pub(super) fn reachable(&self, dtype: Dtype) -> bool {
        (self.scope.iter()).any(|var| {
            let from = self.program.vars[*var].dtype;
            from == dtype || self.converts(from, dtype)
        })
    }

    /// A run-time expression of `dtype` (never a lone literal, so it has that dtype
    /// rather than adapting), `depth` levels deep at most.
    pub(super) fn expr(&mut self, dtype: Dtype, depth: usize) -> Expr {
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
        } else if matches!(op, Binary::Div | Binary::Rem) && dtype.is_int() && self.chance(60) {
            // A run-time divisor no folding can make zero: `(y | 1)`.
            let divisor = self.expr(dtype, depth);
            binary(Binary::Or, divisor, literal(Value::Int(1), dtype), dtype)
        } else {
            self.operand(dtype, depth)
        };
        // `x - x`, `x * 0`, `x % 1` and the like fold to constants the compiler knows,
        // which it refuses to divide by even where the division never runs (E0223);
        // C only divides by what runs. A power-of-two divisor is a feature of its own.
        let literal_int = match right.kind {
            ExprKind::Literal(Value::Int(value)) => Some(value),
            _ => None,
        };
        let dividing = matches!(op, Binary::Div | Binary::Rem);
        // A run-time divisor that is not `(y | 1)` may fold to zero.
        let dividing_by_run_time = dividing
            && dtype.is_int()
            && literal_int.is_none()
            && !matches!(right.kind, ExprKind::Binary(Binary::Or, _, _));
        let folds = dividing_by_run_time
            || (right == left
                && matches!(op, Binary::Sub | Binary::Xor | Binary::Div | Binary::Rem))
            || (literal_int == Some(0) && matches!(op, Binary::Mul | Binary::And))
            || (dividing && matches!(literal_int, Some(-1..=1)))
            || (dividing
                && !self.has(Feature::PowerOfTwoDivision)
                && literal_int.is_some_and(|value| value.unsigned_abs().is_power_of_two()))
            || (matches!(right.kind, ExprKind::Literal(Value::Float(zero)) if zero == 0.0)
                && matches!(op, Binary::Mul | Binary::Div));
        let right = if folds {
            let other = if dtype.is_int() {
                Value::Int(3)
            } else {
                Value::Float(1.0)
            };
            literal(other, dtype)
        } else {
            right
        };
        binary(op, left, right, dtype)
    }

    /// A right operand: a literal a third of the time.
    pub(super) fn operand(&mut self, dtype: Dtype, depth: usize) -> Expr {
        if self.chance(33) {
            let value = self.literal_value(dtype);
            literal(value, dtype)
        } else {
            self.expr(dtype, depth)
        }
    }

    pub(super) fn literal_value(&mut self, dtype: Dtype) -> Value {
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
        let value = if value.unsigned_abs() > 1 << 32 && !self.has(Feature::BigLiterals) {
            value.signum() * 1_000_000_007
        } else {
            value
        };
        Value::Int(dtype.wrap(value).clamp(
            dtype.int_min().max(-i128::from(i64::MAX)),
            dtype.int_max().min(i128::from(i64::MAX)),
        ))
    }

    /// A run-time bool.
    pub(super) fn condition(&mut self, depth: usize) -> Expr {
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
}

pub(super) fn var_expr(var: usize, dtype: Dtype) -> Expr {
    Expr {
        dtype,
        kind: ExprKind::Var(var),
    }
}

pub(super) fn literal(value: Value, dtype: Dtype) -> Expr {
    Expr {
        dtype,
        kind: ExprKind::Literal(value),
    }
}

pub(super) fn to(operand: Expr, dtype: Dtype) -> Expr {
    Expr {
        dtype,
        kind: ExprKind::To(Box::new(operand)),
    }
}

pub(super) fn unary(op: Unary, operand: Expr, dtype: Dtype) -> Expr {
    Expr {
        dtype,
        kind: ExprKind::Unary(op, Box::new(operand)),
    }
}

pub(super) fn binary(op: Binary, left: Expr, right: Expr, dtype: Dtype) -> Expr {
    Expr {
        dtype,
        kind: ExprKind::Binary(op, Box::new(left), Box::new(right)),
    }
}
