//! What the emulator's tests share: kernels lowered from `.cuk` files or read from
//! `.kir` text, an emulated device holding host data, launches whose grid and block
//! come from the kernel's signature (as the runtime evaluates them), seeded data and a
//! tolerance check.

// Each test binary uses part of it.
#![allow(dead_code)]

pub mod planted;

use std::path::PathBuf;

use emulator::{Fault, GlobalMemory, Launch, Options, Stats};
use kir::Verified;

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every kernel instantiation `.cuk` text lowers to, for the target a `// target: `
/// line of its header comment names (sm_90a without one); panics on a diagnostic.
pub fn lower_source(source: &str) -> Vec<Verified> {
    let (module, errors) = grammar::parse(source);
    assert!(errors.is_empty(), "{errors:?}");
    let lowered = typecheck::trace(&module, target_of(source), |analysis, traces| {
        lower::lower_traces(analysis.diagnostics, &traces)
    });
    assert!(!lowered.has_errors(), "{:?}", lowered.diagnostics);
    lowered.kernels
}

/// The target a `// target: ` line among the leading comment lines of `source` names,
/// sm_90a without one.
pub fn target_of(source: &str) -> cute::Target {
    source
        .lines()
        .take_while(|line| line.starts_with("//"))
        .find_map(|line| line.strip_prefix("// target: "))
        .map_or(cute::Target::Sm90a, |name| name.trim().parse().unwrap())
}

/// The kernels of the `.cuk` file at `path` (from the repository's root).
pub fn lower_file(path: &str) -> Vec<Verified> {
    let source = std::fs::read_to_string(root().join(path)).unwrap();
    lower_source(&source)
}

/// The 1-based line of byte `offset` in the file at `path`.
pub fn line_of(path: &str, offset: u32) -> usize {
    let source = std::fs::read_to_string(root().join(path)).unwrap();
    1 + source[..offset as usize].matches('\n').count()
}

/// The kernel read from KIR text, verified.
pub fn from_kir(text: &str) -> Verified {
    kir::verify(kir::from_text(text).unwrap()).unwrap()
}

/// The instantiation of `name` with these const arguments (the others at their
/// defaults, as the test blocks pick them).
pub fn pick<'k>(kernels: &'k [Verified], name: &str, consts: &[(&str, &str)]) -> &'k Verified {
    kernels
        .iter()
        .find(|kernel| {
            kernel.signature.name == name
                && consts.iter().all(|(wanted, value)| {
                    kernel
                        .signature
                        .const_args
                        .iter()
                        .any(|(param, given)| param == wanted && given.to_string() == *value)
                })
                && (!consts.is_empty() || kernel.signature.entry == name)
        })
        .unwrap_or_else(|| panic!("no instantiation of `{name}` with {consts:?}"))
}

/// A kernel argument.
#[derive(Clone, Copy, Debug)]
pub enum Arg {
    /// An integer.
    Int(i64),
    /// An f32 scalar.
    F32(f32),
    /// A tensor's address.
    Tensor(u64),
}

/// An emulated device and the data on it.
#[derive(Default)]
pub struct Device {
    /// Its global memory.
    pub memory: GlobalMemory,
    /// Thread-instructions run so far.
    pub instructions: u64,
}

impl Device {
    /// A tensor of `values`, each stored as `bytes_of` gives it.
    fn tensor<T, const N: usize>(&mut self, values: &[T], bytes_of: impl Fn(&T) -> [u8; N]) -> u64 {
        let bytes: Vec<u8> = values.iter().flat_map(bytes_of).collect();
        self.memory.allocate(&bytes)
    }

    /// A tensor of f32s.
    pub fn f32s(&mut self, values: &[f32]) -> u64 {
        self.tensor(values, |value| value.to_le_bytes())
    }

    /// A tensor of bf16s (the values rounded to nearest even).
    pub fn bf16s(&mut self, values: &[f32]) -> u64 {
        self.tensor(values, |value| half::bf16::from_f32(*value).to_le_bytes())
    }

    /// A tensor of f16s (the values rounded to nearest even).
    pub fn f16s(&mut self, values: &[f32]) -> u64 {
        self.tensor(values, |value| half::f16::from_f32(*value).to_le_bytes())
    }

    /// A tensor of i32s.
    pub fn i32s(&mut self, values: &[i32]) -> u64 {
        self.tensor(values, |value| value.to_le_bytes())
    }

    /// `bytes` bytes of all-ones poison (NaN in every float type), as `empty` makes.
    pub fn empty(&mut self, bytes: usize) -> u64 {
        self.memory.allocate(&vec![0xFF; bytes])
    }

    /// `count` values of `N` bytes each at `address`, each read by `value_of`.
    fn read<T, const N: usize>(
        &self,
        address: u64,
        count: usize,
        value_of: impl Fn([u8; N]) -> T,
    ) -> Vec<T> {
        let bytes = self.memory.read(address, count * N).unwrap();
        (bytes.chunks(N))
            .map(|chunk| value_of(chunk.try_into().unwrap()))
            .collect()
    }

    /// `count` f32s at `address`.
    pub fn read_f32(&self, address: u64, count: usize) -> Vec<f32> {
        self.read(address, count, f32::from_le_bytes)
    }

    /// `count` bf16s at `address`, widened to f32.
    pub fn read_bf16(&self, address: u64, count: usize) -> Vec<f32> {
        self.read(address, count, |bytes| {
            half::bf16::from_le_bytes(bytes).to_f32()
        })
    }

    /// `count` i32s at `address`.
    pub fn read_i32(&self, address: u64, count: usize) -> Vec<i32> {
        self.read(address, count, i32::from_le_bytes)
    }

    /// Launches `kernel` with `args`, its grid and block evaluated from its signature.
    pub fn launch(&mut self, kernel: &Verified, args: &[Arg]) -> Result<Stats, Fault> {
        let launch = launch_of(kernel, args);
        let stats = emulator::run(kernel, &launch, &mut self.memory, &Options::default())?;
        self.instructions += stats.instructions;
        Ok(stats)
    }

    /// Launches `kernel`, which must not fault.
    pub fn run(&mut self, kernel: &Verified, args: &[Arg]) -> Stats {
        self.launch(kernel, args)
            .unwrap_or_else(|fault| panic!("{}: {fault}", kernel.signature.entry))
    }
}

/// The launch of `kernel` with `args`: grid and block from the signature's expressions.
pub fn launch_of(kernel: &Verified, args: &[Arg]) -> Launch {
    let ints: Vec<i64> = args
        .iter()
        .map(|arg| match arg {
            Arg::Int(value) => *value,
            _ => 0,
        })
        .collect();
    let dims = |exprs: &[kir::HostExpr; 3]| {
        exprs
            .clone()
            .map(|expr| u32::try_from(expr.evaluate(&ints).unwrap()).unwrap())
    };
    let launch = &kernel.signature.launch;
    Launch {
        grid: dims(&launch.grid),
        block: dims(&launch.block),
        cluster: launch.cluster,
        shared_bytes: launch.shared_bytes,
        args: args
            .iter()
            .map(|arg| match arg {
                Arg::Int(value) => *value as u64,
                Arg::F32(value) => u64::from(value.to_bits()),
                Arg::Tensor(address) => *address,
            })
            .collect(),
    }
}

/// `count` seeded values, roughly normal (the sum of four uniforms, scaled).
pub fn randn(count: usize, seed: u64) -> Vec<f32> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..count)
        .map(|_| {
            let sum: f64 = (0..4).map(|_| uniform()).sum();
            ((sum - 2.0) * 3f64.sqrt()) as f32
        })
        .collect()
}

/// `values` rounded to bf16 and back.
pub fn bf16_rounded(values: &[f32]) -> Vec<f32> {
    values
        .iter()
        .map(|value| half::bf16::from_f32(*value).to_f32())
        .collect()
}

/// Every `got[i]` within `atol + rtol * |want[i]|` of `want[i]`.
pub fn assert_close(got: &[f32], want: &[f32], rtol: f64, atol: f64) {
    assert_eq!(got.len(), want.len());
    for (index, (got, want)) in got.iter().zip(want).enumerate() {
        let (got, want) = (f64::from(*got), f64::from(*want));
        assert!(
            (got - want).abs() <= atol + rtol * want.abs(),
            "element {index}: got {got}, want {want}"
        );
    }
}

/// Asserts that the fault's message holds each of `parts`.
pub fn assert_says(fault: &Fault, parts: &[&str]) {
    let message = fault.to_string();
    for part in parts {
        assert!(message.contains(part), "no `{part}` in: {message}");
    }
}

/// Asserts that the fault's message starts with `start`.
pub fn assert_starts(fault: &Fault, start: &str) {
    let message = fault.to_string();
    assert!(message.starts_with(start), "{message}");
}
