//! The reference of a bench's `report`: `against memcpy` beside `bytes`, and
//! `against cublas(a, b)` beside `flops`, whose operands are the GEMM the kernel computes
//! as `matmul` takes them: two matrices of the bench, each written as it is or as
//! `transpose(x)` (which tells cuBLAS to read `x` transposed), of one floating-point
//! dtype cuBLAS multiplies, with matching inner extents.

use cute::Dtype;
use lang::Diagnostic;
use lang::ast::{Argument, Expr, ExprKind};

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::host_tensors::shape_text;

/// How to write the GEMM's operands, for diagnostics.
const CUBLAS_FORM: &str = "write the product the kernel computes as `matmul` takes it: `against cublas(a, transpose(b))` is C = A · Bᵀ with A stored (M, K) and B stored (N, K)";

impl<'a> Checker<'a> {
    /// `against REFERENCE` in a `report` that also gives `metrics` (their names).
    pub(crate) fn check_reference(&mut self, reference: &'a Expr, metrics: &[&str]) {
        let (name, args) = match &reference.kind {
            ExprKind::Call { callee, args } => (single_name(callee), Some(args)),
            _ => (single_name(reference), None),
        };
        let metric = match (name, args) {
            (Some("memcpy"), None) => "bytes",
            (Some("cublas"), Some(args)) => {
                self.check_cublas_operands(args, reference);
                "flops"
            }
            (Some("cublas"), None) => {
                self.report(
                    Diagnostic::error("E0216", "`against cublas` needs the GEMM's operands")
                        .with_primary(reference.span, "which product?")
                        .with_help(CUBLAS_FORM),
                );
                "flops"
            }
            _ => {
                self.report(
                    Diagnostic::error(
                        "E0216",
                        "a bench is measured against `memcpy` (bandwidth) or `cublas(a, b)` (GEMM)",
                    )
                    .with_primary(reference.span, "unknown reference"),
                );
                return;
            }
        };
        if !metrics.contains(&metric) {
            self.report(
                Diagnostic::error(
                    "E0216",
                    format!(
                        "this reference is compared by `{metric}`, which the report does not give"
                    ),
                )
                .with_primary(reference.span, format!("needs `{metric} = ...`"))
                .with_note("`memcpy` goes with `bytes`, `cublas(a, b)` with `flops`"),
            );
        }
    }

    /// `cublas(a, b)`: two operands, each a tensor of the bench or `transpose` of one,
    /// that `matmul` would multiply, in a dtype cuBLAS takes.
    fn check_cublas_operands(&mut self, args: &'a [Argument], reference: &'a Expr) {
        let mut evaluated = Vec::with_capacity(args.len());
        for arg in args {
            if arg.name.is_none() && !is_stored_operand(&arg.value) {
                self.report(
                    Diagnostic::error(
                        "E0216",
                        "an operand of `cublas` is a tensor of the bench, or `transpose` of one",
                    )
                    .with_primary(arg.value.span, "not a tensor variable")
                    .with_note("cuBLAS runs on the bench's own tensors, as they are stored"),
                );
                return;
            }
            evaluated.push(Arg {
                name: arg.name.clone(),
                value: self.eval(&arg.value),
                span: arg.value.span,
            });
        }
        let args = Args {
            items: evaluated,
            call_span: reference.span,
        };
        if !self.arity("cublas", &args, 2..=2, &[]) {
            return;
        }
        let positional = args.positional();
        if let Some((dtype, _)) = self.host_tensor(positional[0])
            && !matches!(dtype, Dtype::F16 | Dtype::Bf16 | Dtype::F32 | Dtype::F64)
        {
            self.error(
                "E0216",
                positional[0].span,
                format!("cuBLAS multiplies f16, bf16, f32 or f64 matrices, not {dtype}"),
                format!("{dtype} tensor").as_str(),
            );
            return;
        }
        if let (Some((_, a)), Some((_, b))) = (
            self.host_tensor(positional[0]),
            self.host_tensor(positional[1]),
        ) && let ([_, Some(a_columns)], [Some(b_rows), Some(b_columns)]) =
            (a.as_slice(), b.as_slice())
            && a_columns != b_rows
            && a_columns == b_columns
        {
            self.report(
                Diagnostic::error(
                    "E0206",
                    format!(
                        "`cublas(a, b)` multiplies as `matmul` does, so A's columns must equal B's rows: {} and {}",
                        shape_text(&a),
                        shape_text(&b)
                    ),
                )
                .with_primary(reference.span, "shapes differ")
                .with_secondary(positional[0].span, format!("shape {}", shape_text(&a)))
                .with_secondary(positional[1].span, format!("shape {}", shape_text(&b)))
                .with_help("for C = A · Bᵀ with B stored (N, K), the \"TN\" GEMM, write `cublas(a, transpose(b))`"),
            );
            return;
        }
        // The rest is `matmul`'s check: one dtype, two matrices, matching inner extents.
        self.matmul(&args);
    }
}

/// `x` or `transpose(x)`, with `x` a name.
fn is_stored_operand(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Call { callee, args } => {
            single_name(callee) == Some("transpose")
                && matches!(args.as_slice(), [inner] if inner.name.is_none() && single_name(&inner.value).is_some())
        }
        _ => single_name(expr).is_some(),
    }
}

/// The name a one-segment path expression spells.
fn single_name(expr: &Expr) -> Option<&str> {
    match &expr.kind {
        ExprKind::Path(path) => match path.segments.as_slice() {
            [name] => Some(name.text.as_str()),
            _ => None,
        },
        _ => None,
    }
}
