//! cuBLAS through cudarc, loaded at run time (`libcublas.so`) like the driver: the GEMM
//! a bench's `against cublas(a, b)` times, and the GPU `matmul` of host code.
//!
//! A [`Gemm`] speaks the harness's language: row-major tensors, `C (m, n) = A · B`,
//! each operand either as stored or transposed (`transpose(x)` in the source), which
//! here only picks cuBLAS's operation flag: nothing is copied. cuBLAS is column-major,
//! and a row-major matrix read column-major is its transpose, so `C = A · B` is handed
//! to cuBLAS as `Cᵀ = Bᵀ · Aᵀ`, with the operands swapped.
//!
//! A missing `libcublas` is an `Err` from [`Gpu::blas`], said once and remembered, never
//! a panic. The `unsafe` code is two small functions: asking whether the library exists,
//! and the GEMM call itself.

use std::ffi::c_void;

use cudarc::cublas::CudaBlas;
use cudarc::cublas::sys::{cublasComputeType_t, cublasGemmAlgo_t, cublasOperation_t, cudaDataType};
use kir::Element;

use super::{Buffer, Gpu, GpuError};

/// One GEMM on row-major tensors: `C (m, n) = op(A) · op(B)`, where `A` is stored
/// `(m, k)`, or `(k, m)` when `a_transposed`, and `B` is stored `(k, n)`, or `(n, k)`
/// when `b_transposed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gemm {
    /// Rows of `C`.
    pub m: usize,
    /// Columns of `C`.
    pub n: usize,
    /// The inner extent.
    pub k: usize,
    /// `A` is stored `(k, m)`.
    pub a_transposed: bool,
    /// `B` is stored `(n, k)`: with `A` not transposed, the "TN" GEMM whose operands
    /// are both K-major.
    pub b_transposed: bool,
    /// The element type of `A` and `B`.
    pub input: Element,
    /// The element type of `C`.
    pub output: Element,
}

impl Gemm {
    /// Whether cuBLAS multiplies these element types: 16-bit floats and `f32` with `f32`
    /// accumulation into the same type or `f32`, `f64` with `f64` accumulation.
    pub fn supported(input: Element, output: Element) -> bool {
        match input {
            Element::F16 | Element::BF16 => matches!(output, Element::F32) || output == input,
            Element::F32 => output == Element::F32,
            Element::F64 => output == Element::F64,
            _ => false,
        }
    }

    /// `2 · m · n · k`: the floating-point operations of one run.
    pub fn flops(&self) -> u128 {
        2 * self.m as u128 * self.n as u128 * self.k as u128
    }

    /// `(M, K) x (K, N)`, with a `ᵀ` on a transposed operand's stored shape.
    pub fn describe(&self) -> String {
        let (a, b) = (self.stored_a(), self.stored_b());
        format!(
            "{} ({}, {}){} x ({}, {}){} -> {}",
            self.input.name(),
            a.0,
            a.1,
            if self.a_transposed { "ᵀ" } else { "" },
            b.0,
            b.1,
            if self.b_transposed { "ᵀ" } else { "" },
            self.output.name()
        )
    }

    fn stored_a(&self) -> (usize, usize) {
        if self.a_transposed {
            (self.k, self.m)
        } else {
            (self.m, self.k)
        }
    }

    fn stored_b(&self) -> (usize, usize) {
        if self.b_transposed {
            (self.n, self.k)
        } else {
            (self.k, self.n)
        }
    }
}

/// An open cuBLAS handle on the harness's stream.
pub(super) struct Blas(CudaBlas);

impl Gpu {
    /// cuBLAS on this GPU, opened on first use; `Err` says why it cannot be had
    /// ("cuBLAS not found: ..."), the same each time.
    pub fn blas(&mut self) -> Result<(), GpuError> {
        if self.blas.is_none() {
            self.blas = Some(open(self));
        }
        match &self.blas {
            Some(Ok(_)) => Ok(()),
            Some(Err(reason)) => Err(reason.clone()),
            None => Err(GpuError::Refused("cuBLAS was not opened".to_owned())),
        }
    }

    /// The median time in milliseconds of `gemm` on `a` and `b` into a scratch output,
    /// measured like [`Gpu::time_kernel`].
    pub fn time_gemm(
        &mut self,
        gemm: &Gemm,
        a: &Buffer,
        b: &Buffer,
        warmup: u32,
        runs: u32,
    ) -> Result<f64, GpuError> {
        let c = self.scratch(gemm)?;
        let what = format!("the cuBLAS GEMM {}", gemm.describe());
        self.time(&what, warmup, runs, None, || {
            self.enqueue_gemm(gemm, a, b, &c)
        })
    }

    /// `gemm` on `a` and `b`, waited for; the bytes of `C`.
    pub fn gemm(&mut self, gemm: &Gemm, a: &Buffer, b: &Buffer) -> Result<Vec<u8>, GpuError> {
        let c = self.scratch(gemm)?;
        self.enqueue_gemm(gemm, a, b, &c)?;
        self.wait(&format!("the cuBLAS GEMM {}", gemm.describe()), &[])?;
        self.download(&c)
    }

    /// A zeroed device buffer for `C`.
    fn scratch(&mut self, gemm: &Gemm) -> Result<Buffer, GpuError> {
        self.blas()?;
        let bytes = gemm
            .m
            .checked_mul(gemm.n)
            .and_then(|count| count.checked_mul(gemm.output.bytes()))
            .ok_or_else(|| {
                GpuError::Refused(format!(
                    "the output of the GEMM {} is too large",
                    gemm.describe()
                ))
            })?;
        self.stream
            .alloc_zeros::<u8>(bytes)
            .map(Buffer)
            .map_err(|error| {
                GpuError::driver(
                    format!(
                        "cannot allocate {bytes} bytes on the GPU for the output of the GEMM {}",
                        gemm.describe()
                    ),
                    error,
                )
            })
    }

    /// Queues `gemm` on the handle's stream.
    #[allow(unsafe_code)]
    fn enqueue_gemm(
        &self,
        gemm: &Gemm,
        a: &Buffer,
        b: &Buffer,
        c: &Buffer,
    ) -> Result<(), GpuError> {
        let doing = || format!("the cuBLAS GEMM {} failed", gemm.describe());
        let failed = |why: String| GpuError::Refused(format!("{}: {why}", doing()));
        let Some(Ok(Blas(blas))) = &self.blas else {
            return Err(failed("cuBLAS is not open".to_owned()));
        };
        let (Some(input), Some(output)) = (data_type(gemm.input), data_type(gemm.output)) else {
            return Err(failed(
                "cuBLAS multiplies f16, bf16, f32 and f64".to_owned(),
            ));
        };
        if !Gemm::supported(gemm.input, gemm.output) {
            return Err(failed(format!(
                "{} inputs do not give {} here",
                gemm.input.name(),
                gemm.output.name()
            )));
        }
        let extent = |value: usize| {
            i32::try_from(value)
                .map_err(|_| failed(format!("extent {value} is beyond cuBLAS's 32-bit sizes")))
        };
        let (m, n, k) = (extent(gemm.m)?, extent(gemm.n)?, extent(gemm.k)?);
        let stored_a = gemm.stored_a();
        let stored_b = gemm.stored_b();
        let fits = |stored: (usize, usize), buffer: &Buffer, element: Element| {
            stored.0 * stored.1 * element.bytes() <= buffer.0.len()
        };
        if !fits(stored_a, a, gemm.input)
            || !fits(stored_b, b, gemm.input)
            || !fits((gemm.m, gemm.n), c, gemm.output)
        {
            return Err(failed(
                "an operand's buffer is smaller than its shape".to_owned(),
            ));
        }
        let operation = |transposed: bool| {
            if transposed {
                cublasOperation_t::CUBLAS_OP_T
            } else {
                cublasOperation_t::CUBLAS_OP_N
            }
        };
        // Row-major `C = A · B` is column-major `Cᵀ = Bᵀ · Aᵀ`: cuBLAS's first operand is B.
        // A row-major buffer's leading dimension is its stored row length.
        let (lda, ldb, ldc) = (extent(stored_b.1)?, extent(stored_a.1)?, n);
        let (one_f32, zero_f32, one_f64, zero_f64) = (1f32, 0f32, 1f64, 0f64);
        let (compute, alpha, beta): (_, *const c_void, *const c_void) =
            if gemm.input == Element::F64 {
                (
                    cublasComputeType_t::CUBLAS_COMPUTE_64F,
                    (&raw const one_f64).cast(),
                    (&raw const zero_f64).cast(),
                )
            } else {
                (
                    cublasComputeType_t::CUBLAS_COMPUTE_32F,
                    (&raw const one_f32).cast(),
                    (&raw const zero_f32).cast(),
                )
            };
        let address = |buffer: &Buffer| self.address(buffer) as *const c_void;
        let (a, b, c) = (address(a), address(b), address(c));
        // SAFETY: the handle is open on the harness's stream and context. `a`, `b` and `c` are
        // live device buffers, checked above to hold the stored shapes that `m`, `n`, `k` and
        // the leading dimensions describe, in the element types passed beside them; the
        // buffers outlive the call because the caller synchronizes before dropping them.
        // `alpha` and `beta` point at host scalars of the compute type (f64 for
        // CUBLAS_COMPUTE_64F, f32 for CUBLAS_COMPUTE_32F), alive for the call, which reads
        // them before it returns (the handle keeps its default host pointer mode).
        unsafe {
            cudarc::cublas::result::gemm_ex(
                *blas.handle(),
                operation(gemm.b_transposed),
                operation(gemm.a_transposed),
                n,
                m,
                k,
                alpha,
                b,
                input,
                lda,
                a,
                input,
                ldb,
                beta,
                c.cast_mut(),
                output,
                ldc,
                compute,
                cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .map_err(|error| GpuError::Blas {
            doing: doing(),
            error,
        })
    }
}

fn open(gpu: &Gpu) -> Result<Blas, GpuError> {
    if !library_present() {
        return Err(GpuError::Refused("cuBLAS not found: no libcublas.so on the library path (it ships with the CUDA toolkit; add its lib64 folder to LD_LIBRARY_PATH)".to_owned()));
    }
    CudaBlas::new(gpu.stream.clone())
        .map(Blas)
        .map_err(|error| GpuError::Blas {
            doing: "cuBLAS could not start".to_owned(),
            error,
        })
}

#[allow(unsafe_code)]
fn library_present() -> bool {
    // SAFETY: loading libcublas runs its initialisers, as every program linking cuBLAS
    // does; the function has no other precondition.
    unsafe { cudarc::cublas::sys::is_culib_present() }
}

/// The cuBLAS name of an element type.
fn data_type(element: Element) -> Option<cudaDataType> {
    match element {
        Element::F16 => Some(cudaDataType::CUDA_R_16F),
        Element::BF16 => Some(cudaDataType::CUDA_R_16BF),
        Element::F32 => Some(cudaDataType::CUDA_R_32F),
        Element::F64 => Some(cudaDataType::CUDA_R_64F),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
