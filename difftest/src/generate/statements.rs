//! Statements: lets, cells assigned under run-time branches, loops with run-time
//! trip counts, guarded loads, and the stores of the outputs; each drawn again until
//! the reference runs it without undefined behaviour in every row.

use super::expressions::{binary, literal, unary, var_expr};
use super::{ATTEMPTS, Generator};
use crate::dtype::Dtype;
use crate::features::Feature;
use crate::program::{
    Atomic, Binary, Expr, ExprKind, ROW_COUNT, Shuffle, Source, Stmt, THREAD, Unary, Value,
};
use crate::reference;

impl Generator<'_> {
    /// Adds a statement that every row runs without undefined behaviour, if one is
    /// found in a few draws.
    pub(super) fn statement(&mut self) {
        self.statement_with(Generator::draw_statement);
    }

    /// Adds the statements `draw` makes, drawn again until every row runs them without
    /// undefined behaviour; false when no draw did.
    pub(super) fn statement_with(
        &mut self,
        mut draw: impl FnMut(&mut Self) -> (Vec<Stmt>, Vec<usize>),
    ) -> bool {
        for _ in 0..ATTEMPTS {
            let vars = self.program.vars.len();
            let (stmts, bound) = draw(self);
            let mut rows = self.rows.clone();
            for row in &mut rows {
                row.values.resize(self.program.vars.len(), None);
                row.stored.resize(self.program.outputs.len(), None);
            }
            let defined = reference::run_in_step(&mut rows, &self.program, &stmts).is_ok()
                && rows.iter().all(|row| {
                    (!row.signed_overflow || self.features.has(Feature::SignedWrap))
                        && !row.zero_sign_open
                        && !row.index_taken_non_negative
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
    pub(super) fn draw_statement(&mut self) -> (Vec<Stmt>, Vec<usize>) {
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
        // `let mut c = 0.0;`: an untyped literal whose dtype the cell's later
        // assignments give (f32 and i32, the defaults of float and int literals).
        let untyped = matches!(dtype, Dtype::F32 | Dtype::I32)
            && self.has(Feature::UntypedCells)
            && self.chance(30);
        let init = Stmt::Let {
            var,
            mutable: true,
            typed: !untyped,
            value: if untyped {
                let value = self.literal_value(dtype);
                literal(value, dtype)
            } else {
                self.operand(dtype, 2)
            },
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
    pub(super) fn output(&mut self) {
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
    pub(super) fn store(&mut self, dtype: Dtype) {
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

    /// An atomic target and the statement that updates it: a slot of `0..8` each
    /// thread picks, sometimes under a branch.
    pub(super) fn atomic(&mut self) {
        let mut dtypes = vec![Dtype::I32, Dtype::I64];
        if self.has(Feature::Unsigned) {
            dtypes.extend([Dtype::U32, Dtype::U64]);
        }
        let dtype = self.pick(&dtypes);
        let op = self.pick(&[Atomic::Add, Atomic::Max, Atomic::Min]);
        self.program.atomics.push((dtype, op));
        let target = self.program.atomics.len() - 1;
        let added = self.statement_with(|generator| {
            let slot = binary(
                Binary::And,
                generator.expr(Dtype::I32, 1),
                literal(Value::Int(7), Dtype::I32),
                Dtype::I32,
            );
            let value = generator.expr(dtype, 2);
            let update = Stmt::Atomic {
                target,
                slot,
                value,
            };
            let stmt = if generator.has(Feature::Branches) && generator.chance(40) {
                Stmt::If {
                    cond: generator.condition(2),
                    then: vec![update],
                    otherwise: Vec::new(),
                }
            } else {
                update
            };
            (vec![stmt], Vec::new())
        });
        if !added {
            self.program.atomics.pop();
        }
    }

    /// `let v = shfl_KIND(x, lane);` of a 32-bit variable, at the top level.
    pub(super) fn shuffle(&mut self) {
        self.statement_with(|generator| {
            let mut dtypes = vec![Dtype::I32, Dtype::F32];
            if generator.has(Feature::Unsigned) {
                dtypes.push(Dtype::U32);
            }
            let dtype = generator.pick(&dtypes);
            let sources = generator.vars_of(dtype);
            let kind = generator.pick(&[Shuffle::Xor, Shuffle::Down, Shuffle::Up, Shuffle::Idx]);
            let lane = if generator.chance(50) {
                literal(Value::Int(generator.below(32) as i128), Dtype::I32)
            } else {
                let lane = generator.expr(Dtype::I32, 1);
                binary(
                    Binary::And,
                    lane,
                    literal(Value::Int(31), Dtype::I32),
                    Dtype::I32,
                )
            };
            let Some(&source) = sources.first() else {
                return (Vec::new(), Vec::new());
            };
            let var = generator.new_var("s", dtype);
            let stmt = Stmt::Shuffle {
                var,
                kind,
                source,
                lane,
            };
            (vec![stmt], vec![var])
        });
    }
}
