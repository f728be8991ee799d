//! Printing from kernels: `print(format, values...)` and `print_tensor(t)`.
//!
//! A format's placeholders are checked against its values here, at the call: a
//! malformed format is `E0230`, a count that differs (or more run-time values than
//! `printf` takes) `E0231`, a value a placeholder cannot write `E0232`. Compile-time
//! values (a const integer written by `{}`, a layout, a shape, a string, a dtype) become
//! text of the format; run-time scalars are the trace's values, which the GPU writes
//! through `vprintf` and the emulator as C's `printf` would. Every print is one line:
//! the format gets a newline at its end.

use std::sync::Arc;

use cute::{Dtype, Tensor};
use kir::{Format, Piece, Style};
use lang::{Diagnostic, Span};

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::trace::{Effect, Term, term_of};
use crate::value::{Known, Value};

/// The most run-time values one `printf` takes (CUDA's limit).
const MAX_PRINT_VALUES: usize = 32;

/// The most elements `print_tensor` writes.
const MAX_PRINTED_ELEMENTS: i64 = 1024;

/// The most values `print_tensor` writes on one line.
const ROW_VALUES: i64 = 16;

/// What a placeholder writes: compile-time text, or a run-time value (its term, when
/// the GPU can compute it and a kernel is being traced).
enum Written {
    Text(String),
    Value(Option<Arc<Term>>),
}

impl<'a> Checker<'a> {
    /// `print(format, values...)`, or `print(value)` for `print("{}", value)`.
    pub(crate) fn print(&mut self, args: &Args) -> Value {
        let positional = args.positional();
        let (format, values) = match positional.split_first() {
            Some((first, rest)) => match &first.value {
                Value::Str(text) => match Format::parse(text) {
                    Ok(format) => (format, rest.to_vec()),
                    Err(error) => {
                        return self.error(
                            "E0230",
                            first.span,
                            format!(
                                "a malformed format string: {} (at character {})",
                                error.problem, error.at
                            ),
                            "this format",
                        );
                    }
                },
                Value::Unknown => return Value::Unit,
                _ => {
                    let placeholders = vec!["{}"; positional.len()].join(" ");
                    let format = Format::parse(&placeholders).unwrap_or_default();
                    (format, positional.clone())
                }
            },
            None => return Value::Unit,
        };
        let styles: Vec<Style> = format.styles().collect();
        if styles.len() != values.len() {
            return self.error(
                "E0231",
                args.call_span,
                format!(
                    "the format has {} placeholder{} but {} value{} follow{} it",
                    styles.len(),
                    plural(styles.len()),
                    values.len(),
                    plural(values.len()),
                    if values.len() == 1 { "s" } else { "" }
                ),
                "placeholders and values differ",
            );
        }
        let mut written = Vec::with_capacity(values.len());
        for (style, value) in styles.iter().zip(&values) {
            match self.written(*style, value) {
                Some(one) => written.push(one),
                None => return Value::Unit,
            }
        }
        let mut placed = written.into_iter();
        let mut terms = Vec::new();
        let mut pieces = Vec::new();
        for piece in format.pieces() {
            let Piece::Value(style) = piece else {
                pieces.push(piece.clone());
                continue;
            };
            match placed.next() {
                Some(Written::Text(text)) => pieces.push(Piece::Text(text)),
                Some(Written::Value(term)) => {
                    pieces.push(Piece::Value(*style));
                    terms.push(term.map(|term| (term, 0)));
                }
                None => {}
            }
        }
        if terms.len() > MAX_PRINT_VALUES {
            return self.error(
                "E0231",
                args.call_span,
                format!(
                    "a print writes at most {MAX_PRINT_VALUES} run-time values (`printf`'s limit on the GPU); this one writes {}",
                    terms.len()
                ),
                "too many values",
            );
        }
        pieces.push(Piece::Text("\n".to_owned()));
        self.emit(match terms.into_iter().collect() {
            Some(values) => Effect::Print {
                format: Format::from_pieces(pieces),
                values,
                span: args.call_span,
            },
            None => Effect::Unsupported("printing this value".to_owned(), args.call_span),
        });
        Value::Unit
    }

    /// What `style` writes for `arg`: text when it is known now, else its run-time
    /// term; `None` after a diagnostic (or for a value that already failed).
    fn written(&mut self, style: Style, arg: &Arg) -> Option<Written> {
        let value = &arg.value;
        let kind = match value {
            Value::Unknown => return None,
            Value::Int { .. } => "integer",
            Value::Float { .. } => "float",
            Value::Bool(_) => "bool",
            Value::Tensor(_) | Value::Pointer(_) => {
                return self.unprintable(arg, "a tensor's elements are printed by `print_tensor(t)`; its layout by `print(t.layout)`", "a tensor");
            }
            Value::Vector { .. } => {
                return self.unprintable(arg, "a fragment's values are printed by `print_tensor` of the tensor they are stored in", "a fragment value");
            }
            _ => "",
        };
        let fits = matches!(
            (kind, style),
            (_, Style::Plain) | ("integer", Style::Hex) | ("float", Style::Fixed(_))
        );
        if !fits {
            let wants = match style {
                Style::Hex => "an integer",
                _ => "a float",
            };
            self.report(
                Diagnostic::error(
                    "E0232",
                    format!(
                        "`{}` writes {wants}, but this value is of type {}",
                        style.source(),
                        value.type_name()
                    ),
                )
                .with_primary(arg.span, format!("of type {}", value.type_name())),
            );
            return None;
        }
        if kind.is_empty() {
            if let Some(origin) = self.dyn_origin(value) {
                self.report(
                    Diagnostic::error(
                        "E0232",
                        format!(
                            "a {} is printed as compile-time text, but this one is only known at run time: {}",
                            value.type_name(),
                            origin.reason
                        ),
                    )
                    .with_primary(arg.span, "run-time parts")
                    .with_help("print its run-time extents or strides as values: `print(\"{}\", n)`"),
                );
                return None;
            }
            let text = match value {
                Value::Str(text) => text.clone(),
                other => other.to_string(),
            };
            return Some(Written::Text(text));
        }
        if let (Value::Int { value, .. }, Style::Plain) = (value, style)
            && let Some(constant) = value.as_constant()
        {
            return Some(Written::Text(constant.to_string()));
        }
        let term = term_of(value).map(|term| printable(term, scalar_dtype(value)));
        Some(Written::Value(term))
    }

    /// E0232 at `arg`: it is no value `print` writes.
    fn unprintable(&mut self, arg: &Arg, help: &str, what: &str) -> Option<Written> {
        self.report(
            Diagnostic::error("E0232", format!("`print` does not write {what}"))
                .with_primary(arg.span, what.to_owned())
                .with_help(help.to_owned()),
        );
        None
    }

    /// `print_tensor(t)`: a line naming the tensor's memory, element type and layout,
    /// then its elements by rows of mode 0 (column by column along the rest), at most
    /// [`ROW_VALUES`] a line.
    pub(crate) fn print_tensor(&mut self, args: &Args) -> Value {
        let arg = args.positional()[0];
        let tensor = match &arg.value {
            Value::Tensor(tensor) => tensor.clone(),
            Value::Unknown => return Value::Unit,
            other => {
                return self.error(
                    "E0232",
                    arg.span,
                    format!(
                        "`print_tensor` prints a tensor, but this value is of type {}",
                        other.type_name()
                    ),
                    "not a tensor",
                );
            }
        };
        let Some(dtype) = tensor.dtype else {
            return self.error(
                "E0232",
                arg.span,
                "a coordinate tensor has no elements to print; print its layout".to_owned(),
                "coordinates",
            );
        };
        let Some((rows, size)) = self.printed_extents(&tensor, arg.span) else {
            return Value::Unit;
        };
        let header = format!(
            "{} {dtype} {}:\n",
            tensor.space.keyword(),
            tensor.layout.layout
        );
        self.emit(Effect::Print {
            format: Format::from_pieces([Piece::Text(header)]),
            values: Vec::new(),
            span: args.call_span,
        });
        let Some(loaded) = self.record_load(&tensor, None, None, args.call_span) else {
            return Value::Unit;
        };
        let term = printable(Arc::new(loaded), Some(dtype));
        let columns = size / rows;
        for row in 0..rows {
            for first in (0..columns).step_by(ROW_VALUES as usize) {
                let last = (first + ROW_VALUES).min(columns);
                let mut pieces = vec![Piece::Text("  ".to_owned())];
                let mut values = Vec::new();
                for column in first..last {
                    if column > first {
                        pieces.push(Piece::Text(" ".to_owned()));
                    }
                    pieces.push(Piece::Value(Style::Plain));
                    values.push((term.clone(), row + rows * column));
                }
                pieces.push(Piece::Text("\n".to_owned()));
                self.emit(Effect::Print {
                    format: Format::from_pieces(pieces),
                    values,
                    span: args.call_span,
                });
            }
        }
        Value::Unit
    }

    /// The rows (mode 0's size) and elements of a tensor `print_tensor` prints: both
    /// known now, at most [`MAX_PRINTED_ELEMENTS`]; E0232 at `span` otherwise.
    fn printed_extents(&mut self, tensor: &Tensor, span: Span) -> Option<(i64, i64)> {
        let layout = &tensor.layout.layout;
        let size = layout.size().ok().and_then(|size| size.as_constant());
        let rows = (layout.shape().modes().first())
            .and_then(|mode| mode.product().ok())
            .map_or(Some(1), |rows| rows.as_constant());
        match (size, rows) {
            (Some(size), Some(rows)) if size <= MAX_PRINTED_ELEMENTS && rows > 0 => {
                Some((rows, size))
            }
            (Some(size), Some(_)) => {
                self.error(
                    "E0232",
                    span,
                    format!("`print_tensor` prints at most {MAX_PRINTED_ELEMENTS} elements; this tensor has {size}: print a tile of it"),
                    "too many elements",
                );
                None
            }
            _ => {
                self.error(
                    "E0232",
                    span,
                    format!("`print_tensor` prints a tensor whose shape is known at compile time, not {}", layout.shape()),
                    "a run-time shape",
                );
                None
            }
        }
    }
}

/// The dtype of a scalar value, where it has one.
fn scalar_dtype(value: &Value) -> Option<Dtype> {
    match value {
        Value::Float { dtype, .. } => Some(dtype.unwrap_or(Dtype::F32)),
        Value::Bool(Known::Dyn(_)) => Some(Dtype::Bool),
        _ => None,
    }
}

/// `term` as a value `printf` takes: halves widened to f32, narrow integers to i32
/// (bools are printed as they are, `true` or `false`).
fn printable(term: Arc<Term>, dtype: Option<Dtype>) -> Arc<Term> {
    let widened = match dtype {
        Some(Dtype::F16 | Dtype::Bf16 | Dtype::Tf32 | Dtype::E4m3 | Dtype::E5m2) => Dtype::F32,
        Some(Dtype::I8 | Dtype::I16 | Dtype::U8 | Dtype::U16) => Dtype::I32,
        _ => return term,
    };
    Arc::new(Term::Convert(widened, term))
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}
