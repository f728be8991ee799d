//! Compiles generated programs in-process (parse, typecheck, lower: what `cukc build`
//! runs), launches each on the emulator or the GPU through the runtime's device, and
//! compares every stored value with the reference's, bit for bit (any NaN matches any
//! NaN, whose payload IEEE leaves open, and a zero's sign is open after a `min` or
//! `max` of zeros of both signs).

use std::panic::{AssertUnwindSafe, catch_unwind};

use kir::Verified;
use runtime::marshal::CallArg;
use runtime::{CompiledKernel, Device, Image};

use crate::dtype::Dtype;
use crate::program::{Program, ROWS, Source, Value};
use crate::reference::{self, Row};

/// What one program did against the reference.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Every stored value is the reference's.
    Agree,
    /// A stored value differs.
    Wrong {
        /// The tensor (`out0`, `acc1`).
        tensor: String,
        /// The row (thread).
        row: usize,
        /// What the kernel stored.
        got: String,
        /// What C computes.
        want: String,
    },
    /// `check` or lowering refused it (a well-typed program must build).
    Refused {
        /// The diagnostic's code.
        code: String,
        /// Its message.
        message: String,
    },
    /// The compiler panicked.
    Panicked(String),
    /// The launch failed (an emulator fault, or a driver error).
    Faulted {
        /// The emulator's code (`E0401`), or `driver`.
        code: String,
        /// The message.
        message: String,
    },
}

impl Verdict {
    /// The kind of disagreement, to count and to keep while minimising.
    pub fn class(&self) -> String {
        match self {
            Verdict::Agree => "agree".to_owned(),
            Verdict::Wrong { .. } => "wrong value".to_owned(),
            Verdict::Refused { code, .. } => format!("refused {code}"),
            Verdict::Panicked(_) => "compiler panic".to_owned(),
            Verdict::Faulted { code, .. } => format!("launch failed {code}"),
        }
    }
}

/// Where kernels run.
pub enum Backend<'g> {
    /// The CPU emulator, on KIR.
    Emulator,
    /// The GPU, on PTX the driver compiles for `target`.
    Gpu(&'g mut runtime::Gpu, cute::Target),
}

/// Kernels compiled from a source, or the first error.
fn compile(source: &str, target: cute::Target) -> Result<Vec<Verified>, Verdict> {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let (module, errors) = grammar::parse(source);
        if let Some(error) = errors.first() {
            return Err(Verdict::Refused {
                code: error.code.to_owned(),
                message: error.message.clone(),
            });
        }
        let lowered = typecheck::trace(&module, target, |analysis, traces| {
            lower::lower_traces(analysis.diagnostics, &traces)
        });
        match lowered.diagnostics.iter().find(|d| d.is_error()) {
            Some(error) => Err(Verdict::Refused {
                code: error.code.to_owned(),
                message: error.message.clone(),
            }),
            None => Ok(lowered.kernels),
        }
    }));
    result.unwrap_or_else(|panic| Err(Verdict::Panicked(panic_text(&*panic))))
}

/// The code of the first error compiling `source` reports, `None` when it builds.
pub fn refusal(source: &str) -> Option<String> {
    match compile(source, cute::Target::Sm90a) {
        Ok(_) => None,
        Err(Verdict::Refused { code, .. }) => Some(code),
        Err(verdict) => Some(verdict.class()),
    }
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    (panic.downcast_ref::<String>().cloned())
        .or_else(|| panic.downcast_ref::<&str>().map(|text| (*text).to_owned()))
        .unwrap_or_else(|| "a panic".to_owned())
}

/// Runs programs, compiled together in one module where they all build.
pub struct Runner<'g> {
    backend: Backend<'g>,
    target: cute::Target,
    /// A unique index per loaded kernel (the GPU caches functions by it).
    launched: usize,
}

impl<'g> Runner<'g> {
    /// A runner on `backend`.
    pub fn new(backend: Backend<'g>) -> Runner<'g> {
        let target = match &backend {
            Backend::Emulator => cute::Target::Sm90a,
            Backend::Gpu(_, target) => *target,
        };
        Runner {
            backend,
            target,
            launched: 0,
        }
    }

    /// The verdict on each of `programs`.
    pub fn run(&mut self, programs: &[Program]) -> Vec<Verdict> {
        let source: String = programs.iter().map(Program::to_source).collect();
        match compile(&source, self.target) {
            Ok(kernels) => self.run_compiled(programs, &kernels),
            // One program spoils the module: compile each alone.
            Err(_) if programs.len() > 1 => (programs.iter())
                .flat_map(|program| self.run(std::slice::from_ref(program)))
                .collect(),
            Err(verdict) => vec![verdict],
        }
    }

    fn run_compiled(&mut self, programs: &[Program], kernels: &[Verified]) -> Vec<Verdict> {
        let image = match &self.backend {
            Backend::Emulator => None,
            Backend::Gpu(_, target) => {
                let emitted = catch_unwind(|| {
                    backend_ptx::emit_module(kernels, *target, &Default::default())
                });
                match emitted {
                    Ok(Ok(ptx)) => Some(Image::Ptx(ptx)),
                    Ok(Err(error)) => {
                        let verdict = Verdict::Refused {
                            code: "ptx".to_owned(),
                            message: error.to_string(),
                        };
                        return vec![verdict; programs.len()];
                    }
                    Err(panic) => {
                        return vec![Verdict::Panicked(panic_text(&*panic)); programs.len()];
                    }
                }
            }
        };
        let mut emulator = Device::Emulator(Box::default());
        let mut verdicts = Vec::with_capacity(programs.len());
        for program in programs {
            let Some(kernel) = kernels.iter().find(|k| k.signature.name == program.name) else {
                verdicts.push(Verdict::Refused {
                    code: "missing".to_owned(),
                    message: format!("no kernel `{}` was compiled", program.name),
                });
                continue;
            };
            let compiled = CompiledKernel {
                signature: kernel.signature.clone(),
                image: image
                    .clone()
                    .unwrap_or_else(|| Image::Kir(Box::new(kernel.clone()))),
            };
            self.launched += 1;
            let index = self.launched;
            verdicts.push(match &mut self.backend {
                Backend::Emulator => launch(&mut emulator, index, &compiled, program),
                Backend::Gpu(gpu, _) => launch(&mut Device::Gpu(gpu), index, &compiled, program),
            });
        }
        verdicts
    }
}

/// The bytes of a column of values of `dtype`.
fn column_bytes(dtype: Dtype, values: &[Value]) -> Vec<u8> {
    let width = (dtype.bits() / 8) as usize;
    let mut bytes = Vec::with_capacity(values.len() * width);
    for value in values {
        let bits = match *value {
            Value::Int(value) => value as u64,
            Value::Float(value) => dtype.format().encode(value),
            Value::Bool(value) => u64::from(value),
        };
        bytes.extend_from_slice(&bits.to_le_bytes()[..width]);
    }
    bytes
}

/// The value of `dtype` these little-endian bytes hold.
fn value_of(dtype: Dtype, bytes: &[u8]) -> Value {
    let mut bits = [0u8; 8];
    bits[..bytes.len()].copy_from_slice(bytes);
    let bits = u64::from_le_bytes(bits);
    if dtype.is_float() {
        let value = match dtype {
            Dtype::F64 => f64::from_bits(bits),
            _ => dtype.format().decode(bits),
        };
        Value::Float(value)
    } else {
        Value::Int(dtype.wrap(i128::from(bits)))
    }
}

fn launch(
    device: &mut Device<'_>,
    index: usize,
    kernel: &CompiledKernel,
    program: &Program,
) -> Verdict {
    let rows = match reference::evaluate(program) {
        Ok(rows) => rows,
        Err(undefined) => unreachable!("the generator made an undefined program: {undefined:?}"),
    };
    let fault = |message: String| Verdict::Faulted {
        code: "driver".to_owned(),
        message,
    };
    let shape = [ROWS];
    let mut buffers = Vec::new();
    for input in &program.inputs {
        if input.source == Source::Tensor {
            let dtype = program.vars[input.var].dtype;
            match device.upload(&column_bytes(dtype, &input.values)) {
                Ok(buffer) => buffers.push((dtype, buffer)),
                Err(error) => return fault(error.to_string()),
            }
        }
    }
    let inputs = buffers.len();
    let memory_outputs = program
        .outputs
        .iter()
        .chain(program.atomics.iter().map(|(dtype, _)| dtype));
    for dtype in memory_outputs {
        let bytes = vec![0xFF; ROWS * (dtype.bits() / 8) as usize];
        match device.upload(&bytes) {
            Ok(buffer) => buffers.push((*dtype, buffer)),
            Err(error) => return fault(error.to_string()),
        }
    }
    let mut addresses = Vec::new();
    for (_, buffer) in &buffers {
        match device.address(buffer) {
            Ok(address) => addresses.push(address),
            Err(error) => return fault(error.to_string()),
        }
    }
    let tensor = |slot: usize| CallArg::Tensor {
        dtype: buffers[slot].0.element().expect("tensors have elements"),
        shape: &shape,
        strides: None,
        address: addresses[slot],
    };
    let mut args = vec![CallArg::Int(ROWS as i64)];
    let mut slot = 0;
    for input in &program.inputs {
        args.push(match (input.source, input.values[0]) {
            (Source::Tensor, _) => {
                slot += 1;
                tensor(slot - 1)
            }
            (Source::Argument, Value::Int(value)) => CallArg::Int(value as i64),
            (Source::Argument, Value::Float(value)) => CallArg::Float(value),
            (Source::Argument, Value::Bool(value)) => CallArg::Bool(value),
        });
    }
    for output in 0..program.outputs.len() + program.atomics.len() {
        args.push(tensor(inputs + output));
    }
    let plan = match runtime::marshal::plan(&kernel.signature, &args) {
        Ok(plan) => plan,
        Err(error) => return fault(error.message),
    };
    if let Err((message, diagnostic)) = device.launch(index, kernel, &plan, lang::Span::empty(0)) {
        let code = diagnostic.map_or("driver", |diagnostic| diagnostic.code);
        return Verdict::Faulted {
            code: code.to_owned(),
            message,
        };
    }
    for (output, dtype) in program.outputs.iter().enumerate() {
        let bytes = match device.download(&buffers[inputs + output].1) {
            Ok(bytes) => bytes,
            Err(error) => return fault(error.to_string()),
        };
        let width = (dtype.bits() / 8) as usize;
        for (row, state) in rows.iter().enumerate() {
            let got = value_of(*dtype, &bytes[row * width..(row + 1) * width]);
            let want = state.stored[output].expect("every output is stored");
            if !same(got, want, state) {
                return Verdict::Wrong {
                    tensor: format!("out{output}"),
                    row,
                    got: show(got, *dtype),
                    want: show(want, *dtype),
                };
            }
        }
    }
    let results = reference::atomic_results(program, &rows);
    for (target, want) in results.iter().enumerate() {
        let dtype = program.atomics[target].0;
        let slot = inputs + program.outputs.len() + target;
        let bytes = match device.download(&buffers[slot].1) {
            Ok(bytes) => bytes,
            Err(error) => return fault(error.to_string()),
        };
        let width = (dtype.bits() / 8) as usize;
        for (row, want) in want.iter().enumerate() {
            let got = value_of(dtype, &bytes[row * width..(row + 1) * width]);
            if got != *want {
                return Verdict::Wrong {
                    tensor: format!("acc{target}"),
                    row,
                    got: show(got, dtype),
                    want: show(*want, dtype),
                };
            }
        }
    }
    Verdict::Agree
}

/// Whether a stored value is the reference's.
fn same(got: Value, want: Value, row: &Row) -> bool {
    match (got, want) {
        (Value::Float(got), Value::Float(want)) => {
            (got.is_nan() && want.is_nan())
                || got.to_bits() == want.to_bits()
                || (row.zero_sign_open && got == 0.0 && want == 0.0)
        }
        _ => got == want,
    }
}

/// A value with its bits.
pub fn show(value: Value, dtype: Dtype) -> String {
    match value {
        Value::Int(value) => value.to_string(),
        Value::Float(value) => format!("{value:?} ({:#x})", dtype.format().encode(value)),
        Value::Bool(value) => value.to_string(),
    }
}
