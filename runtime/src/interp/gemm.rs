//! GEMMs of host code: `matmul` on the GPU through cuBLAS when the block has a GPU and
//! cuBLAS is there (on every CPU core otherwise, with a line on stderr when that will
//! take a while), and the reference of a bench's `against cublas(a, b)`.
//!
//! `matmul` keeps the CPU reference's meaning on the GPU: the result has `a`'s dtype,
//! rounded once. `f16` and `bf16` operands are multiplied as they are stored, with `f32`
//! accumulation into an `f32` result that the host rounds; `f32` and `f64` operands are
//! multiplied in `f64`, so an `f32` reference stays more accurate than the kernels it
//! checks; integers stay on the CPU, where `f64` sums are exact.
//!
//! `against cublas(a, b)` times cuBLAS computing what `matmul(a, b)` means, on the
//! bench's own tensors: an operand written `transpose(x)` is `x` as stored, read
//! transposed by cuBLAS (`cublas(a, transpose(b))` is the "TN" GEMM of two K-major
//! operands), and `C` is a scratch tensor of the operands' dtype.

use std::fmt;
use std::io::Write;

use kir::Element;
use lang::Span;
use lang::ast::{Argument, Expr, ExprKind};
use rayon::prelude::*;

use super::call::upload;
use super::{Eval, Interpreter, Stop, Value};
use crate::device::{Device, DeviceBuffer, TransferError};
use crate::driver::{Gemm, GpuError};
use crate::element::{decode, encode};
use crate::harness::NoDevice;
use crate::harness::Reference;
use crate::ops;
use crate::tensor::Tensor;

/// A CPU matmul expected to take longer than this many seconds says so on stderr first.
const ANNOUNCE_AFTER_SECONDS: f64 = 2.0;

/// Why a `matmul` runs on the CPU rather than through cuBLAS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum OnCpu {
    /// Operands of two dtypes.
    MixedDtypes,
    /// Integer operands, whose `f64` sums are exact on the CPU.
    Integers,
    /// Kernels run on the emulator.
    Emulated,
    /// The block has no device.
    NoDevice(NoDevice),
    /// The block's device is no GPU.
    NoGpu,
    /// cuBLAS could not be opened.
    Blas(GpuError),
}

impl fmt::Display for OnCpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OnCpu::MixedDtypes => f.write_str("mixed dtypes"),
            OnCpu::Integers => f.write_str("integers are exact on the CPU"),
            OnCpu::Emulated => f.write_str("the block runs on the emulator"),
            OnCpu::NoDevice(reason) => reason.fmt(f),
            OnCpu::NoGpu => f.write_str("no GPU"),
            OnCpu::Blas(error) => error.fmt(f),
        }
    }
}

impl Interpreter<'_> {
    /// `matmul(a, b)`.
    pub(super) fn matmul(&mut self, a: &Expr, b: &Expr, span: Span) -> Eval<Value> {
        let a_index = self.tensor_index(a)?;
        let b_index = self.tensor_index(b)?;
        let extents =
            ops::matmul_extents(&self.tensors[a_index].shape, &self.tensors[b_index].shape)
                .map_err(|error| Stop::error(span, error.to_string()))?;
        let why_not_gpu = match self.gpu_matmul(a_index, b_index, extents, span)? {
            Ok(tensor) => return Ok(self.new_tensor(tensor)),
            Err(reason) => reason,
        };
        let seconds = ops::cpu_seconds(extents);
        if seconds > ANNOUNCE_AFTER_SECONDS {
            let [m, k, n] = extents;
            let _ = writeln!(
                std::io::stderr(),
                "  matmul of ({m}, {k}) by ({k}, {n}) on {} CPU threads, about {seconds:.0} s (not on the GPU: {why_not_gpu})",
                rayon::current_num_threads()
            );
        }
        let a = self.dense(a_index, a.span)?;
        let b = self.dense(b_index, b.span)?;
        let product = ops::matmul(&a, &b).map_err(|error| Stop::error(span, error.to_string()))?;
        Ok(self.new_tensor(Tensor::from_dense(&product)))
    }

    /// The product through cuBLAS, or why it runs on the CPU instead.
    fn gpu_matmul(
        &mut self,
        a: usize,
        b: usize,
        [m, k, n]: [usize; 3],
        span: Span,
    ) -> Eval<Result<Tensor, OnCpu>> {
        let dtype = self.tensors[a].dtype;
        if self.tensors[b].dtype != dtype {
            return Ok(Err(OnCpu::MixedDtypes));
        }
        let (input, output) = match dtype {
            Element::F16 | Element::BF16 => (dtype, Element::F32),
            Element::F32 | Element::F64 | Element::E4M3 | Element::E5M2 => {
                (Element::F64, Element::F64)
            }
            _ => return Ok(Err(OnCpu::Integers)),
        };
        if let Err(reason) = self.open_blas() {
            return Ok(Err(reason));
        }
        // Operands already in `input` are used where they are; others are widened to f64.
        let widened = if input == dtype {
            None
        } else {
            Some((self.widened(a, span)?, self.widened(b, span)?))
        };
        let failed = |error: TransferError| Stop::error(span, error.to_string());
        let Ok(device) = &mut self.device else {
            return Ok(Err(OnCpu::NoGpu));
        };
        let uploaded: [DeviceBuffer; 2];
        let operands = match widened {
            Some((a_bytes, b_bytes)) => {
                uploaded = [
                    device.upload(&a_bytes).map_err(failed)?,
                    device.upload(&b_bytes).map_err(failed)?,
                ];
                (Some(&uploaded[0]), Some(&uploaded[1]))
            }
            None => {
                upload(device, &mut self.tensors[a], span)?;
                upload(device, &mut self.tensors[b], span)?;
                (
                    self.tensors[a].device.as_ref(),
                    self.tensors[b].device.as_ref(),
                )
            }
        };
        let (
            Ok(Device::Gpu(gpu) | Device::GpuRank(gpu, ..)),
            (Some(DeviceBuffer::Gpu(a_buffer)), Some(DeviceBuffer::Gpu(b_buffer))),
        ) = (&mut self.device, operands)
        else {
            return Err(Stop::error(span, "a matmul operand did not reach the GPU"));
        };
        let gemm = Gemm {
            m,
            n,
            k,
            a_transposed: false,
            b_transposed: false,
            input,
            output,
        };
        let bytes = (gpu.gemm(&gemm, a_buffer, b_buffer))
            .map_err(|error| Stop::error(span, error.to_string()))?;
        let width = dtype.bytes();
        let mut rounded = vec![0u8; m * n * width];
        rounded
            .par_chunks_mut(width)
            .zip(bytes.par_chunks(output.bytes()))
            .for_each(|(out, element)| encode(dtype, decode(output, element), out));
        Ok(Ok(Tensor {
            dtype,
            shape: vec![m, n],
            host: Some(rounded),
            device: None,
        }))
    }

    /// Opens cuBLAS on the block's GPU, or says why it cannot be had.
    fn open_blas(&mut self) -> Result<(), OnCpu> {
        match &mut self.device {
            Ok(Device::Gpu(gpu) | Device::GpuRank(gpu, ..)) => gpu.blas().map_err(OnCpu::Blas),
            Ok(Device::Emulator(_) | Device::Rank(..)) => Err(OnCpu::Emulated),
            Err(reason) => Err(OnCpu::NoDevice(reason.clone())),
        }
    }

    /// Tensor `index`'s values as `f64` bytes.
    fn widened(&mut self, index: usize, span: Span) -> Eval<Vec<u8>> {
        let dense = self.dense(index, span)?;
        Ok(dense
            .values
            .iter()
            .flat_map(|value| value.to_le_bytes())
            .collect())
    }

    /// `against cublas(a, b)`: cuBLAS's time for the GEMM, and a note when it cannot be
    /// had or does other work than reported.
    pub(super) fn cublas_reference(
        &mut self,
        args: &[Argument],
        reported_flops: u64,
        span: Span,
    ) -> Eval<(Option<Reference>, Option<String>)> {
        let [a_arg, b_arg] = args else {
            return Err(Stop::error(
                span,
                format!("`cublas` takes the GEMM's two operands, not {}", args.len()),
            ));
        };
        let (a, a_transposed) = self.gemm_operand(a_arg)?;
        let (b, b_transposed) = self.gemm_operand(b_arg)?;
        let stored = |index: usize| &self.tensors[index].shape;
        let logical = |shape: &[usize], transposed: bool| match shape {
            [rows, columns] if transposed => vec![*columns, *rows],
            other => other.to_vec(),
        };
        let a_shape = logical(stored(a), a_transposed);
        let b_shape = logical(stored(b), b_transposed);
        let [m, k, n] = ops::matmul_extents(&a_shape, &b_shape)
            .map_err(|error| Stop::error(span, error.to_string()))?;
        let dtype = self.tensors[a].dtype;
        if self.tensors[b].dtype != dtype || !Gemm::supported(dtype, dtype) {
            return Err(Stop::error(
                span,
                format!(
                    "cuBLAS multiplies two f16, bf16, f32 or f64 matrices, not {} by {}",
                    self.tensors[a].dtype.name(),
                    self.tensors[b].dtype.name()
                ),
            ));
        }
        let gemm = Gemm {
            m,
            n,
            k,
            a_transposed,
            b_transposed,
            input: dtype,
            output: dtype,
        };
        let Some(bench) = &self.bench else {
            return Err(Stop::error(span, "`report` belongs in a `bench` block"));
        };
        let config = bench.config;
        if let Err(reason) = self.open_blas() {
            return match &self.device {
                Ok(Device::Gpu(_) | Device::GpuRank(..)) => Ok((None, Some(reason.to_string()))),
                _ => Err(Stop::Skip(reason.to_string())),
            };
        }
        let Ok(device) = &mut self.device else {
            return Err(Stop::Skip("no GPU for the cuBLAS reference".to_owned()));
        };
        upload(device, &mut self.tensors[a], span)?;
        upload(device, &mut self.tensors[b], span)?;
        let (
            Ok(Device::Gpu(gpu) | Device::GpuRank(gpu, ..)),
            Some(DeviceBuffer::Gpu(a_buffer)),
            Some(DeviceBuffer::Gpu(b_buffer)),
        ) = (
            &mut self.device,
            &self.tensors[a].device,
            &self.tensors[b].device,
        )
        else {
            return Err(Stop::error(span, "a cuBLAS operand did not reach the GPU"));
        };
        let ms = gpu
            .time_gemm(&gemm, a_buffer, b_buffer, config.warmup, config.runs)
            .map_err(|error| Stop::error(span, error.to_string()))?;
        let note = (gemm.flops() != u128::from(reported_flops)).then(|| {
            format!(
                "cuBLAS's GEMM {} does {} flops, not the {reported_flops} reported",
                gemm.describe(),
                gemm.flops()
            )
        });
        let reference = Reference {
            name: "cuBLAS".to_owned(),
            ms,
        };
        Ok((Some(reference), note))
    }

    /// An operand of `cublas(..)`: a tensor, or `transpose` of one; its index and whether
    /// it is read transposed.
    fn gemm_operand(&mut self, arg: &Argument) -> Eval<(usize, bool)> {
        if arg.name.is_some() {
            return Err(Stop::error(arg.span, "`cublas` takes no named arguments"));
        }
        if let ExprKind::Call { callee, args } = &arg.value.kind
            && let ExprKind::Path(path) = &callee.kind
            && let [name] = path.segments.as_slice()
            && name.text == "transpose"
        {
            let [inner] = args.as_slice() else {
                return Err(Stop::error(arg.span, "`transpose` takes one tensor"));
            };
            return Ok((self.tensor_index(&inner.value)?, true));
        }
        Ok((self.tensor_index(&arg.value)?, false))
    }

    /// The arena index of the tensor `expr` evaluates to.
    fn tensor_index(&mut self, expr: &Expr) -> Eval<usize> {
        match self.expr(expr)? {
            Value::Tensor(index) if index < self.tensors.len() => Ok(index),
            Value::Tensor(_) => Err(Stop::error(expr.span, "this tensor no longer exists")),
            other => Err(Stop::error(
                expr.span,
                format!("expected a tensor, found a {}", other.kind()),
            )),
        }
    }
}
