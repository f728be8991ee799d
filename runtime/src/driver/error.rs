//! What went wrong on the GPU: a driver call's error or cuBLAS's status with what was
//! being done, or a refusal in words (no driver, a setting that cannot be used, an
//! image or argument refused before any call, a time limit passed). Its text is the
//! sentence users read; callers that speak in text take it with `to_string` or `?`.

use std::fmt;

use cudarc::cublas::result::CublasError;
use cudarc::driver::DriverError;

use crate::deadline::BadLimit;

/// Why the GPU could not do what was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuError {
    /// A driver call failed.
    Driver {
        /// What was being done, as the message opens (`cannot open GPU 0`).
        doing: String,
        /// The driver's error.
        error: DriverError,
        /// What the message adds after the error (the JIT's log, or what the failure
        /// means for later work); often empty.
        after: String,
    },
    /// A cuBLAS call failed.
    Blas {
        /// What was being done, as the message opens.
        doing: String,
        /// cuBLAS's status.
        error: CublasError,
    },
    /// Refused without an error code, in words.
    Refused(String),
}

impl GpuError {
    /// A failed driver call while `doing`, with nothing after the driver's error.
    pub(super) fn driver(doing: impl Into<String>, error: DriverError) -> GpuError {
        GpuError::Driver {
            doing: doing.into(),
            error,
            after: String::new(),
        }
    }
}

impl From<String> for GpuError {
    fn from(reason: String) -> GpuError {
        GpuError::Refused(reason)
    }
}

impl From<BadLimit> for GpuError {
    fn from(error: BadLimit) -> GpuError {
        GpuError::Refused(error.to_string())
    }
}

impl From<GpuError> for String {
    fn from(error: GpuError) -> String {
        error.to_string()
    }
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::Driver {
                doing,
                error,
                after,
            } => write!(f, "{doing}: {}{after}", describe(*error)),
            GpuError::Blas { doing, error } => write!(f, "{doing}: {error}"),
            GpuError::Refused(reason) => f.write_str(reason),
        }
    }
}

impl std::error::Error for GpuError {}

/// `CUDA_ERROR_NAME (the driver's sentence)`.
fn describe(error: DriverError) -> String {
    let name = error.error_name().map_or_else(
        |_| format!("{:?}", error.0),
        |name| name.to_string_lossy().into_owned(),
    );
    match error.error_string() {
        Ok(text) => format!("{name} ({})", text.to_string_lossy()),
        Err(_) => name,
    }
}

#[cfg(test)]
mod tests {
    use cudarc::cublas::sys::cublasStatus_t;

    use super::*;

    // Not a driver error: its text asks the driver library for the error's name,
    // which this machine may lack.
    #[test]
    fn the_text_is_the_reason_or_what_was_being_done_and_the_status() {
        let refused = GpuError::from("the cubin is not an ELF file".to_owned());
        assert_eq!(refused.to_string(), "the cubin is not an ELF file");
        let blas = GpuError::Blas {
            doing: "cuBLAS could not start".to_owned(),
            error: CublasError(cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED),
        };
        assert_eq!(
            String::from(blas),
            "cuBLAS could not start: CublasError(CUBLAS_STATUS_NOT_INITIALIZED)"
        );
    }
}
