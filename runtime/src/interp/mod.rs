//! The host interpreter: runs one `test` or `bench` body over the AST. The typechecker
//! has validated it, but nothing here relies on that for safety: anything unexpected is
//! an error naming the span, never a panic.
//!
//! Values are integers, floats, booleans, dtypes, tuples (shapes) and tensors; tensors
//! live in an arena ([`Interpreter::tensors`]) so kernel calls can write them. Module
//! `const` items and kernels' const parameters are not evaluated here: their values
//! are the checker's ([`trace::HostFacts`]). Statements are `let`,
//! assignment, expression statements, `for`, `while`, `if`, blocks, `return`, `break`,
//! `continue` and `report` (in benches), run in `statements.rs`.

mod arrays;
mod builtins;
mod call;
mod expr;
mod gemm;
mod references;
mod report;
mod row_major;
mod statements;
mod varlen;

pub(crate) use call::EMULATED_BENCH;

use std::collections::HashMap;

use kir::Element;
use lang::Span;
use lang::ast::{Block, Module};
use trace::{HostConst, HostFacts};

use crate::CompiledKernel;
use crate::device::Device;
use crate::harness::{BenchConfig, BenchResult, NoDevice};
use crate::tensor::Tensor;

/// How many statements and loop iterations one block may execute (fewer in unit tests,
/// which run into it on purpose).
const STEP_LIMIT: u64 = if cfg!(test) { 100_000 } else { 10_000_000 };

/// A value of host code.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `()`: what statements and `assert_close` give.
    Unit,
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A dtype such as `bf16`.
    Dtype(Element),
    /// A tuple, such as a shape.
    Tuple(Vec<Value>),
    /// A tensor: its index in the arena.
    Tensor(usize),
}

impl Value {
    /// The kind of value, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Unit => "()",
            Value::Int(_) => "integer",
            Value::Float(_) => "float",
            Value::Bool(_) => "bool",
            Value::Dtype(_) => "dtype",
            Value::Tuple(_) => "tuple",
            Value::Tensor(_) => "tensor",
        }
    }
}

/// Why a block stopped early.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    /// It failed: an `assert_close`, a CUDA error, an emulator fault, or a host-code
    /// error.
    Error {
        /// What went wrong.
        message: String,
        /// Where.
        span: Span,
        /// An emulator fault as a diagnostic (its code, the kernel's lines).
        diagnostic: Option<Box<lang::Diagnostic>>,
    },
    /// It cannot run here (no GPU).
    Skip(String),
}

impl Stop {
    pub(crate) fn error(span: Span, message: impl Into<String>) -> Stop {
        Stop::Error {
            message: message.into(),
            span,
            diagnostic: None,
        }
    }
}

type Eval<T> = Result<T, Stop>;

/// What a statement did to control flow.
enum Flow {
    Normal,
    Break,
    Continue,
    Return,
}

/// The state of one running block.
pub struct Interpreter<'m> {
    module: &'m Module,
    kernels: &'m [CompiledKernel],
    device: Result<Device<'m>, NoDevice>,
    /// Every tensor created so far.
    pub tensors: Vec<Tensor>,
    scopes: Vec<HashMap<String, Value>>,
    /// What the checker found for host code: the `const` items' values, and each
    /// kernel instantiation's const arguments.
    host: &'m HostFacts,
    seed: u64,
    created: u64,
    steps: u64,
    bench: Option<BenchState>,
}

struct BenchState {
    config: BenchConfig,
    kernel_ms: Vec<(String, f64)>,
    result: Option<BenchResult>,
}

impl<'m> Interpreter<'m> {
    /// An interpreter for one block of `module`, with what the checker found for its
    /// host code (`host`). `device` is where kernels run (the GPU or the emulator), or
    /// why there is none (a kernel call then skips the block). `seed` fixes the block's
    /// random data.
    pub fn new(
        module: &'m Module,
        host: &'m HostFacts,
        kernels: &'m [CompiledKernel],
        device: Result<Device<'m>, NoDevice>,
        seed: u64,
        bench: Option<BenchConfig>,
    ) -> Self {
        Interpreter {
            module,
            kernels,
            device,
            tensors: Vec::new(),
            scopes: vec![HashMap::new()],
            host,
            seed,
            created: 0,
            steps: 0,
            bench: bench.map(|config| BenchState {
                config,
                kernel_ms: Vec::new(),
                result: None,
            }),
        }
    }

    /// What the emulator ran for this block, when its kernels run there.
    pub fn emulated(&self) -> Option<crate::Emulated> {
        self.device.as_ref().ok().and_then(Device::emulated)
    }

    /// What the block's emulated kernels printed so far, taken.
    pub fn take_printed(&mut self) -> String {
        self.device
            .as_mut()
            .map_or(String::new(), Device::take_printed)
    }

    /// What each source span of the block's emulated kernels did, when profiled.
    pub fn take_profile(&mut self) -> Option<emulator::Profile> {
        match &mut self.device {
            Ok(Device::Emulator(emulator)) => emulator.profile.take(),
            _ => None,
        }
    }

    /// Runs a block body; for a bench, returns what it measured.
    pub fn run(&mut self, body: &Block) -> Eval<Option<BenchResult>> {
        self.block(body)?;
        Ok(self.bench.as_mut().map(|bench| {
            bench.result.take().unwrap_or_else(|| BenchResult {
                kernel_ms: bench.kernel_ms.iter().map(|(_, ms)| ms).sum(),
                metric: None,
                also: None,
                reference: None,
                note: Some("no `report` statement".to_owned()),
            })
        }))
    }

    /// A variable's value, if bound.
    pub fn variable(&self, name: &str) -> Option<&Value> {
        self.scopes.iter().rev().find_map(|scope| scope.get(name))
    }

    fn step(&mut self, span: Span) -> Eval<()> {
        self.steps += 1;
        if self.steps > STEP_LIMIT {
            return Err(Stop::error(
                span,
                format!("host code ran more than {STEP_LIMIT} steps"),
            ));
        }
        Ok(())
    }

    fn condition(&mut self, expr: &lang::ast::Expr) -> Eval<bool> {
        match self.expr(expr)? {
            Value::Bool(value) => Ok(value),
            other => Err(Stop::error(
                expr.span,
                format!("a condition is a bool, not a {}", other.kind()),
            )),
        }
    }

    fn int(&mut self, expr: &lang::ast::Expr) -> Eval<i64> {
        match self.expr(expr)? {
            Value::Int(value) => Ok(value),
            other => Err(Stop::error(
                expr.span,
                format!("expected an integer, found a {}", other.kind()),
            )),
        }
    }

    /// The value of module const `name`, as the checker evaluated it.
    fn module_const(&self, name: &str, span: Span) -> Eval<Option<Value>> {
        let Some(binding) = (self.host.consts.iter()).find(|binding| binding.name == name) else {
            return Ok(None);
        };
        let cannot = |why: &dyn std::fmt::Display| {
            Stop::error(
                span,
                format!("const `{name}` cannot be used in host code: {why}"),
            )
        };
        match &binding.value {
            Ok(value) => host_value(value)
                .map(Some)
                .ok_or_else(|| cannot(&"its dtype has no host representation")),
            Err(why) => Err(cannot(why)),
        }
    }
}

/// A const's value as host code holds it; `None` for a dtype the runtime lacks.
fn host_value(value: &HostConst) -> Option<Value> {
    Some(match value {
        HostConst::Int(value) => Value::Int(*value),
        HostConst::Float(value) => Value::Float(*value),
        HostConst::Bool(value) => Value::Bool(*value),
        HostConst::Dtype(dtype) => Value::Dtype(Element::from_name(dtype.name())?),
        HostConst::Tuple(items) => {
            Value::Tuple(items.iter().map(host_value).collect::<Option<_>>()?)
        }
    })
}

#[cfg(test)]
mod tests;
