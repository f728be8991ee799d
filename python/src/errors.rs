//! The exceptions the package raises, and the `.cuk` locations their messages start
//! with.
//!
//! A file with errors is a [`CompileError`] whose message is the rendered diagnostics,
//! as `cukc check` prints them without colour; its `codes` attribute lists their codes
//! (`["E0203"]`). A call the kernel cannot take is a `ValueError` (a wrong value: dtype,
//! shape, strides, device, alignment, an assumption) or a `TypeError` (a wrong number of
//! arguments, an unknown name), whose message starts `path:line:` at the parameter's
//! declaration when there is one.

use lang::{Diagnostic, SourceFile, render};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    _cuk,
    CompileError,
    PyException,
    "A `.cuk` source with errors. The message is the rendered diagnostics; `codes` lists their codes."
);

/// The `CompileError` for `diagnostics` (only the errors among them make it one).
pub fn compile_error(py: Python<'_>, file: &SourceFile, diagnostics: &[Diagnostic]) -> PyErr {
    let text = render::human(diagnostics, file, render::Style::Plain);
    let codes: Vec<String> = diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.is_error())
        .map(|diagnostic| diagnostic.code.to_string())
        .collect();
    let error = CompileError::new_err(text.trim_end().to_owned());
    // Setting an attribute on a fresh exception object cannot fail but for memory.
    let _ = error.value(py).setattr("codes", codes);
    error
}

/// `path:line: message`, the line of byte offset `offset` in `file`.
pub fn at(file: &SourceFile, offset: u32, message: &str) -> String {
    format!(
        "{}:{}: {message}",
        file.path(),
        file.line_column(offset).line
    )
}
