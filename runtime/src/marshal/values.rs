//! One argument checked against its parameter and converted to the value the driver
//! passes: an integer's range, a float rounded once to its type, a bool as a 32-bit 0
//! or 1, and a tensor's dtype, shape, reach and (when the host knows them) strides
//! against the layout the kernel reads it through. Each parameter's [`Rule`] is worked
//! out once per signature; messages are formatted only for the error returned.

use kir::{Element, IntParam, ParamKind, ScalarParam};

use super::errors::ArgumentError;
use super::expr::Expr;
use super::{ArgValue, CallArg, Ints};
use crate::element::{decode, encode};

/// What a declared parameter takes.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Rule {
    /// An integer of this width.
    Int(IntParam),
    /// A float of this type, or a bool.
    Scalar(ScalarParam),
    /// A tensor of `dtype` read through the layout of these flattened modes.
    Tensor {
        dtype: Element,
        extents: Box<[Expr]>,
        strides: Box<[Expr]>,
    },
    /// A TMA tensor map, which is derived rather than passed.
    TensorMap,
}

impl Rule {
    /// The rule of a parameter of `kind`.
    pub(super) fn new(kind: &ParamKind) -> Rule {
        match kind {
            ParamKind::Int(width) => Rule::Int(*width),
            ParamKind::Scalar(scalar) => Rule::Scalar(*scalar),
            ParamKind::Tensor {
                dtype,
                shape,
                strides,
            } => Rule::Tensor {
                dtype: *dtype,
                extents: Expr::all(shape),
                strides: Expr::all(strides),
            },
            ParamKind::TensorMap(_) => Rule::TensorMap,
        }
    }

    /// What it takes, for messages: "an integer", "an f32", "a tensor".
    fn text(&self) -> String {
        match self {
            Rule::Int(_) => "an integer".to_owned(),
            Rule::Scalar(scalar) => {
                let name = scalar.name();
                let article = if name.starts_with('f') { "an" } else { "a" };
                format!("{article} {name}")
            }
            Rule::Tensor { .. } => "a tensor".to_owned(),
            Rule::TensorMap => "a TMA tensor map (derived, not passed)".to_owned(),
        }
    }
}

/// `arg` checked against the rule of parameter `name` and converted to its ABI value;
/// `ints` holds the call's integer arguments by parameter index.
pub(super) fn argument_value(
    kernel: &str,
    name: &str,
    rule: &Rule,
    arg: &CallArg<'_>,
    ints: &[i64],
) -> Result<ArgValue, ArgumentError> {
    match (rule, arg) {
        (Rule::Int(width), CallArg::Int(value)) => {
            let out_of_range = || ArgumentError::IntRange {
                kernel: kernel.to_owned(),
                name: name.to_owned(),
                value: *value,
                ty: width.name(),
            };
            Ok(match width {
                IntParam::I8 => {
                    ArgValue::I32(i8::try_from(*value).map_err(|_| out_of_range())?.into())
                }
                IntParam::U8 => {
                    ArgValue::U32(u8::try_from(*value).map_err(|_| out_of_range())?.into())
                }
                IntParam::I16 => {
                    ArgValue::I32(i16::try_from(*value).map_err(|_| out_of_range())?.into())
                }
                IntParam::U16 => {
                    ArgValue::U32(u16::try_from(*value).map_err(|_| out_of_range())?.into())
                }
                IntParam::I32 => ArgValue::I32(i32::try_from(*value).map_err(|_| out_of_range())?),
                IntParam::I64 => ArgValue::I64(*value),
                IntParam::U32 => ArgValue::U32(u32::try_from(*value).map_err(|_| out_of_range())?),
                IntParam::U64 => ArgValue::U64(u64::try_from(*value).map_err(|_| out_of_range())?),
            })
        }
        (
            Rule::Tensor {
                dtype,
                extents,
                strides,
            },
            CallArg::Tensor {
                dtype: given,
                shape,
                strides: given_strides,
                address,
            },
        ) => {
            if dtype != given {
                return Err(ArgumentError::Dtype {
                    kernel: kernel.to_owned(),
                    name: name.to_owned(),
                    expected: *dtype,
                    given: *given,
                });
            }
            let mut layout = Layout {
                extents: Ints::new(),
                strides: Ints::new(),
            };
            let what = || format!("the extent of `{name}`");
            evaluate_into(&mut layout.extents, kernel, extents, ints, &what)?;
            let what = || format!("a stride of `{name}`");
            evaluate_into(&mut layout.strides, kernel, strides, ints, &what)?;
            layout.check_tensor(kernel, name, shape, *given_strides)?;
            Ok(ArgValue::Address(*address))
        }
        (Rule::Scalar(ScalarParam::Bool), CallArg::Bool(value)) => {
            Ok(ArgValue::U32(u32::from(*value)))
        }
        (Rule::Scalar(scalar), CallArg::Float(value))
            if let Some(element) = float_element(*scalar) =>
        {
            float_arg(element, *value).ok_or_else(|| ArgumentError::FloatRange {
                kernel: kernel.to_owned(),
                name: name.to_owned(),
                value: *value,
                ty: scalar.name(),
            })
        }
        (rule, arg) => Err(ArgumentError::Kind {
            kernel: kernel.to_owned(),
            name: name.to_owned(),
            rule: rule.text(),
            given: arg_text(arg),
        }),
    }
}

/// The value of `expr` with the call's integers; `what` names it for the error,
/// formatted only when there is one.
#[inline]
pub(super) fn evaluate(
    kernel: &str,
    expr: &Expr,
    ints: &[i64],
    what: &dyn Fn() -> String,
) -> Result<i64, ArgumentError> {
    match expr.evaluate(ints) {
        Some(value) => Ok(value),
        None => Err(unevaluable(kernel, expr, what)),
    }
}

#[cold]
fn unevaluable(kernel: &str, expr: &Expr, what: &dyn Fn() -> String) -> ArgumentError {
    ArgumentError::Unevaluable {
        kernel: kernel.to_owned(),
        what: what(),
        expr: expr.to_string(),
    }
}

/// The values of `exprs`, as [`evaluate`] gives each, into `values` (empty).
#[inline]
fn evaluate_into(
    values: &mut Ints,
    kernel: &str,
    exprs: &[Expr],
    ints: &[i64],
    what: &dyn Fn() -> String,
) -> Result<(), ArgumentError> {
    for expr in exprs {
        values.push(evaluate(kernel, expr, ints, what)?);
    }
    Ok(())
}

/// A tensor parameter's layout evaluated for one call: its flattened modes' extents
/// and strides, in elements.
struct Layout {
    extents: Ints,
    strides: Ints,
}

impl Layout {
    /// Checks the tensor given for it: its shape fits the modes, the layout reaches no
    /// element past its end, and its strides (when known) are the layout's.
    fn check_tensor(
        &self,
        kernel: &str,
        name: &str,
        shape: &[usize],
        strides: Option<&[i64]>,
    ) -> Result<(), ArgumentError> {
        if !shape_fits(&self.extents, shape) {
            return Err(ArgumentError::Shape {
                kernel: kernel.to_owned(),
                name: name.to_owned(),
                extents: self.extents.to_vec(),
                shape: shape.to_vec(),
            });
        }
        let reach =
            (self.extents.iter().zip(&self.strides)).try_fold(1i64, |reach, (extent, stride)| {
                reach.checked_add((extent - 1).checked_mul((*stride).max(0))?)
            });
        let count: usize = shape.iter().product();
        // An empty tensor: the layout has an empty mode and reaches nothing.
        let empty = self.extents.contains(&0);
        if !empty && reach.is_none_or(|reach| reach > count as i64) {
            return Err(ArgumentError::Reach {
                kernel: kernel.to_owned(),
                name: name.to_owned(),
                count,
            });
        }
        match strides {
            Some(strides) => self.check_strides(kernel, name, shape, strides),
            None => Ok(()),
        }
    }

    /// Checks a tensor's strides against the layout's: a tensor dimension that covers
    /// several of the layout's modes must hold them first-mode-fastest, as CuTe flattens
    /// a coordinate. Extents of 1 have no stride to check.
    fn check_strides(
        &self,
        kernel: &str,
        name: &str,
        shape: &[usize],
        strides: &[i64],
    ) -> Result<(), ArgumentError> {
        let mut mode = 0;
        for (dim, (&extent, &stride)) in shape.iter().zip(strides).enumerate() {
            let mut covered: i64 = 1;
            while covered < extent as i64 && mode < self.extents.len() {
                if self.extents[mode] > 1 && self.strides[mode] != stride.saturating_mul(covered) {
                    return Err(ArgumentError::Strides {
                        kernel: kernel.to_owned(),
                        name: name.to_owned(),
                        given: strides.to_vec(),
                        expected: self.strides.to_vec(),
                        dimension: dim,
                    });
                }
                covered = covered.saturating_mul(self.extents[mode]);
                mode += 1;
            }
        }
        Ok(())
    }
}

/// The float type of a scalar parameter, as a tensor element type; `None` for a bool.
fn float_element(scalar: ScalarParam) -> Option<Element> {
    match scalar {
        ScalarParam::F16 => Some(Element::F16),
        ScalarParam::BF16 => Some(Element::BF16),
        ScalarParam::F32 => Some(Element::F32),
        ScalarParam::F64 => Some(Element::F64),
        ScalarParam::Bool => None,
    }
}

/// `value` rounded once to the float type `element`, as a tensor element of that type
/// is; `None` when a finite value overflows it.
fn float_arg(element: Element, value: f64) -> Option<ArgValue> {
    let mut buffer = [0u8; 8];
    let bytes = &mut buffer[..element.bytes()];
    encode(element, value, bytes);
    if value.is_finite() && !decode(element, bytes).is_finite() {
        return None;
    }
    let [b0, b1, b2, b3, ..] = buffer;
    Some(match element {
        Element::F16 => ArgValue::F16(u16::from_le_bytes([b0, b1])),
        Element::BF16 => ArgValue::BF16(u16::from_le_bytes([b0, b1])),
        Element::F32 => ArgValue::F32(f32::from_le_bytes([b0, b1, b2, b3])),
        _ => ArgValue::F64(value),
    })
}

/// What an argument is, for messages.
fn arg_text(arg: &CallArg<'_>) -> &'static str {
    match arg {
        CallArg::Int(_) => "an integer",
        CallArg::Float(_) => "a float",
        CallArg::Bool(_) => "a bool",
        CallArg::Tensor { .. } => "a tensor",
    }
}

/// Whether a row-major host shape fits the kernel's flattened extents: equal, or each
/// host extent the product of a run of consecutive kernel extents.
fn shape_fits(extents: &[i64], shape: &[usize]) -> bool {
    let mut kernel = extents.iter();
    for extent in shape {
        let wanted = *extent as i64;
        let mut product: i64 = 1;
        // Modes multiply up to the dimension: up to 0 for an empty one (0 < 1).
        while product != wanted {
            if wanted != 0 && product > wanted {
                return false;
            }
            let Some(next) = kernel.next() else {
                return false;
            };
            let Some(grown) = product.checked_mul(*next) else {
                return false;
            };
            product = grown;
        }
    }
    // Extents of 1 may remain; anything else is a mode the tensor does not have.
    kernel.all(|extent| *extent == 1)
}

#[cfg(test)]
mod tests {
    use super::shape_fits;

    #[test]
    fn shapes_fit_the_modes_they_multiply_to_empty_ones_included() {
        assert!(shape_fits(&[64, 256], &[64, 256]));
        assert!(shape_fits(&[8, 8, 256], &[64, 256]));
        assert!(shape_fits(&[0, 256], &[0, 256]));
        assert!(shape_fits(&[64, 0], &[64, 0]));
        assert!(shape_fits(&[1, 64, 1], &[64]));
        assert!(!shape_fits(&[64, 256], &[64, 128]));
        assert!(!shape_fits(&[0, 256], &[0, 128]));
        assert!(!shape_fits(&[64, 256], &[0, 256]));
        assert!(!shape_fits(&[3, 5], &[4, 4]));
    }
}
