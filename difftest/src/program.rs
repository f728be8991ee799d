//! A generated program: one kernel whose every thread reads its row of the inputs
//! (kernel arguments and loaded tensor elements), runs scalar statements, and stores
//! its results to output tensors; and how it is written as CuK text.

use std::fmt::Write;

use crate::dtype::Dtype;

/// Threads in the block, and rows of every tensor.
pub const ROWS: usize = 32;

/// A scalar value of the reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// An integer of any integer dtype, in its range.
    Int(i128),
    /// A float the dtype represents exactly.
    Float(f64),
    /// A bool.
    Bool(bool),
}

/// Where an input comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A kernel argument, the same in every thread.
    Argument,
    /// An element of a tensor, the thread's row.
    Tensor,
}

/// A local, parameter or loop counter.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    /// Its name in the source.
    pub name: String,
    /// Its dtype.
    pub dtype: Dtype,
}

/// An input of the kernel: its variable and its value in each row.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// The variable that holds it (a parameter, or a local loaded from the tensor).
    pub var: usize,
    /// Argument or tensor.
    pub source: Source,
    /// One value per row (all equal for an argument).
    pub values: Vec<Value>,
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unary {
    /// `-x`.
    Neg,
    /// `!b`.
    Not,
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LogicAnd,
    LogicOr,
}

impl Binary {
    /// The operator's spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            Binary::Add => "+",
            Binary::Sub => "-",
            Binary::Mul => "*",
            Binary::Div => "/",
            Binary::Rem => "%",
            Binary::And => "&",
            Binary::Or => "|",
            Binary::Xor => "^",
            Binary::Shl => "<<",
            Binary::Shr => ">>",
            Binary::Eq => "==",
            Binary::Ne => "!=",
            Binary::Lt => "<",
            Binary::Le => "<=",
            Binary::Gt => ">",
            Binary::Ge => ">=",
            Binary::LogicAnd => "&&",
            Binary::LogicOr => "||",
        }
    }

    /// A comparison (its result is a bool).
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            Binary::Eq | Binary::Ne | Binary::Lt | Binary::Le | Binary::Gt | Binary::Ge
        )
    }
}

/// A scalar built-in function (docs/builtins.md and the math table of
/// docs/language.md) whose result IEEE or C determines exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `min(a, b)`.
    Min,
    /// `max(a, b)`.
    Max,
    /// `abs(x)` of a float.
    Abs,
    /// `sqrt(x)`, correctly rounded.
    Sqrt,
    /// `fma(a, b, c)`: one rounding (in f32 for 16-bit floats).
    Fma,
}

impl Builtin {
    /// The function's name.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Min => "min",
            Builtin::Max => "max",
            Builtin::Abs => "abs",
            Builtin::Sqrt => "sqrt",
            Builtin::Fma => "fma",
        }
    }
}

/// An expression and its dtype.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// The dtype of its value.
    pub dtype: Dtype,
    /// What it computes.
    pub kind: ExprKind,
}

/// What an expression computes.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A variable.
    Var(usize),
    /// A literal, written in the dtype's range.
    Literal(Value),
    /// A unary operator.
    Unary(Unary, Box<Expr>),
    /// A binary operator.
    Binary(Binary, Box<Expr>, Box<Expr>),
    /// A built-in call.
    Call(Builtin, Vec<Expr>),
    /// `x.to(dtype)`.
    To(Box<Expr>),
    /// `tensor[index]` of input `input` (a tensor), read at a run-time index.
    Load(usize, Box<Expr>),
}

/// A statement of the kernel's body.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `let [mut] name[: dtype] = value;`
    Let {
        /// The variable bound.
        var: usize,
        /// `let mut`.
        mutable: bool,
        /// Written with its dtype.
        typed: bool,
        /// Its value.
        value: Expr,
    },
    /// `name = value;`
    Assign {
        /// The variable assigned.
        var: usize,
        /// Its new value.
        value: Expr,
    },
    /// `if cond { .. } else { .. }` on a run-time condition.
    If {
        /// The condition.
        cond: Expr,
        /// Run when it holds.
        then: Vec<Stmt>,
        /// Run otherwise (no `else` when empty).
        otherwise: Vec<Stmt>,
    },
    /// `for counter in 0..trips { .. }` with a run-time trip count.
    For {
        /// The counter, an i32.
        counter: usize,
        /// The trip count, an i32 expression.
        trips: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `while cond { .. }`.
    While {
        /// Tested before each iteration.
        cond: Expr,
        /// The body.
        body: Vec<Stmt>,
    },
    /// `let var = shfl_KIND(source, lane);` at the kernel's top level, where every lane
    /// of the warp runs it.
    Shuffle {
        /// The variable bound.
        var: usize,
        /// Which shuffle.
        kind: Shuffle,
        /// The 32-bit variable exchanged.
        source: usize,
        /// The mask, delta or lane: an i32.
        lane: Expr,
    },
    /// `atomic_OP(acc, slot, value);` on atomic target `target`.
    Atomic {
        /// Which atomic target.
        target: usize,
        /// The element updated, an i32 in `0..8`.
        slot: Expr,
        /// The operand.
        value: Expr,
    },
    /// `out[t] = value;`
    Store {
        /// Which output.
        output: usize,
        /// The value stored.
        value: Expr,
    },
}

/// One generated kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// The kernel's name.
    pub name: String,
    /// Every variable; 0 is the thread index `t` and 1 the row count `n`.
    pub vars: Vec<Var>,
    /// The inputs, in parameter order.
    pub inputs: Vec<Input>,
    /// The body, after the inputs are read.
    pub body: Vec<Stmt>,
    /// The dtype of each output tensor.
    pub outputs: Vec<Dtype>,
    /// The tensors every thread updates atomically, with the operation of each.
    pub atomics: Vec<(Dtype, Atomic)>,
}

/// A warp shuffle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shuffle {
    /// `shfl_xor`: lane `lane ^ mask`.
    Xor,
    /// `shfl_down`: lane `lane + delta`, or the own value past lane 31.
    Down,
    /// `shfl_up`: lane `lane - delta`, or the own value below lane 0.
    Up,
    /// `shfl_idx`: the lane given.
    Idx,
}

impl Shuffle {
    /// The built-in's name.
    pub fn name(self) -> &'static str {
        match self {
            Shuffle::Xor => "shfl_xor",
            Shuffle::Down => "shfl_down",
            Shuffle::Up => "shfl_up",
            Shuffle::Idx => "shfl_idx",
        }
    }

    /// The lane whose value lane `lane` receives for argument `argument` (in `0..32`).
    pub fn source_lane(self, lane: usize, argument: usize) -> usize {
        match self {
            Shuffle::Xor => lane ^ argument,
            Shuffle::Down if lane + argument < ROWS => lane + argument,
            Shuffle::Up if lane >= argument => lane - argument,
            Shuffle::Down | Shuffle::Up => lane,
            Shuffle::Idx => argument,
        }
    }
}

/// An atomic read-modify-write whose result does not depend on the threads' order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Atomic {
    /// `atomic_add`, of integers (wrapping).
    Add,
    /// `atomic_max`.
    Max,
    /// `atomic_min`.
    Min,
}

impl Atomic {
    /// The built-in's name.
    pub fn name(self) -> &'static str {
        match self {
            Atomic::Add => "atomic_add",
            Atomic::Max => "atomic_max",
            Atomic::Min => "atomic_min",
        }
    }
}

/// The variable of the thread index.
pub const THREAD: usize = 0;
/// The variable of the row count.
pub const ROW_COUNT: usize = 1;

impl Program {
    /// The name of the tensor parameter of input `input`.
    pub fn tensor_name(&self, input: usize) -> String {
        format!("{}_mem", self.vars[self.inputs[input].var].name)
    }

    /// The kernel as CuK source.
    pub fn to_source(&self) -> String {
        let mut params = vec!["n: i32".to_owned()];
        for (index, input) in self.inputs.iter().enumerate() {
            let var = &self.vars[input.var];
            params.push(match input.source {
                Source::Argument => format!("{}: {}", var.name, var.dtype.name()),
                Source::Tensor => format!(
                    "{}: gmem {}[n:1]",
                    self.tensor_name(index),
                    var.dtype.name()
                ),
            });
        }
        for (index, dtype) in self.outputs.iter().enumerate() {
            params.push(format!("out{index}: gmem {}[n:1]", dtype.name()));
        }
        for (index, (dtype, _)) in self.atomics.iter().enumerate() {
            params.push(format!("acc{index}: gmem {}[n:1]", dtype.name()));
        }
        let mut text = format!(
            "kernel {}({}) launch grid(1) block({ROWS}) {{\n    let t = thread_idx.x;\n",
            self.name,
            params.join(", ")
        );
        for (index, input) in self.inputs.iter().enumerate() {
            if input.source == Source::Tensor {
                let _ = writeln!(
                    text,
                    "    let {} = {}[t];",
                    self.vars[input.var].name,
                    self.tensor_name(index)
                );
            }
        }
        for stmt in &self.body {
            self.write_stmt(&mut text, stmt, 1);
        }
        text.push_str("}\n");
        text
    }

    fn write_stmt(&self, text: &mut String, stmt: &Stmt, depth: usize) {
        let pad = "    ".repeat(depth);
        match stmt {
            Stmt::Let {
                var,
                mutable,
                typed,
                value,
            } => {
                let var = &self.vars[*var];
                let mutable = if *mutable { "mut " } else { "" };
                let typed = if *typed {
                    format!(": {}", var.dtype.name())
                } else {
                    String::new()
                };
                let value = self.expr(value);
                let _ = writeln!(text, "{pad}let {mutable}{}{typed} = {value};", var.name);
            }
            Stmt::Assign { var, value } => {
                let value = self.expr(value);
                let _ = writeln!(text, "{pad}{} = {value};", self.vars[*var].name);
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let _ = writeln!(text, "{pad}if {} {{", self.expr(cond));
                for stmt in then {
                    self.write_stmt(text, stmt, depth + 1);
                }
                if otherwise.is_empty() {
                    let _ = writeln!(text, "{pad}}}");
                } else {
                    let _ = writeln!(text, "{pad}}} else {{");
                    for stmt in otherwise {
                        self.write_stmt(text, stmt, depth + 1);
                    }
                    let _ = writeln!(text, "{pad}}}");
                }
            }
            Stmt::For {
                counter,
                trips,
                body,
            } => {
                let name = &self.vars[*counter].name;
                let _ = writeln!(text, "{pad}for {name} in 0..{} {{", self.expr(trips));
                for stmt in body {
                    self.write_stmt(text, stmt, depth + 1);
                }
                let _ = writeln!(text, "{pad}}}");
            }
            Stmt::While { cond, body } => {
                let _ = writeln!(text, "{pad}while {} {{", self.expr(cond));
                for stmt in body {
                    self.write_stmt(text, stmt, depth + 1);
                }
                let _ = writeln!(text, "{pad}}}");
            }
            Stmt::Store { output, value } => {
                let _ = writeln!(text, "{pad}out{output}[t] = {};", self.expr(value));
            }
            Stmt::Shuffle {
                var,
                kind,
                source,
                lane,
            } => {
                let (name, source) = (&self.vars[*var].name, &self.vars[*source].name);
                let call = format!("{}({source}, {})", kind.name(), self.expr(lane));
                let _ = writeln!(text, "{pad}let {name} = {call};");
            }
            Stmt::Atomic {
                target,
                slot,
                value,
            } => {
                let name = self.atomics[*target].1.name();
                let (slot, value) = (self.expr(slot), self.expr(value));
                let _ = writeln!(text, "{pad}{name}(acc{target}, {slot}, {value});");
            }
        }
    }

    /// An expression's text, parenthesized wherever it is not a name or call.
    pub fn expr(&self, expr: &Expr) -> String {
        match &expr.kind {
            ExprKind::Var(var) => self.vars[*var].name.clone(),
            ExprKind::Literal(value) => literal(*value),
            ExprKind::Unary(op, operand) => {
                let symbol = if *op == Unary::Neg { "-" } else { "!" };
                format!("({symbol}{})", self.expr(operand))
            }
            ExprKind::Binary(op, left, right) => {
                format!("({} {} {})", self.expr(left), op.symbol(), self.expr(right))
            }
            ExprKind::Call(builtin, args) => {
                let args: Vec<String> = args.iter().map(|arg| self.expr(arg)).collect();
                format!("{}({})", builtin.name(), args.join(", "))
            }
            ExprKind::To(operand) => {
                format!("{}.to({})", self.expr(operand), expr.dtype.name())
            }
            ExprKind::Load(input, index) => {
                format!("{}[{}]", self.tensor_name(*input), self.expr(index))
            }
        }
    }
}

/// A literal's text: integers in decimal (negative ones parenthesized), floats with a
/// fraction so they read as floats.
fn literal(value: Value) -> String {
    match value {
        Value::Int(value) if value < 0 => format!("(-{})", value.unsigned_abs()),
        Value::Int(value) => value.to_string(),
        Value::Float(value) => {
            let text = format!("{:?}", value.abs());
            let text = if text.contains('.') || text.contains('e') {
                text
            } else {
                format!("{text}.0")
            };
            if value < 0.0 {
                format!("(-{text})")
            } else {
                text
            }
        }
        Value::Bool(value) => value.to_string(),
    }
}
