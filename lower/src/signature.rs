//! The kernel's signature for the host: parameters in order (integers, float and bool
//! scalars, tensors), the launch clause as expressions over the integer parameters,
//! and the shared-memory layout's size.

use std::fmt;

use cute::Dtype;
use kir::{
    ConstValue, Element, ElementRequirement, ElementRule, HostExpr, IntParam, Launch, Param,
    ParamKind, ScalarParam, Signature,
};
use layout::{IntTuple, SymFactor, SymInt};
use trace::{ConstArg, KernelTrace, TraceParamKind};

/// Shared buffers start at multiples of this many bytes.
pub(crate) const SHARED_ALIGNMENT: i64 = 128;

/// The PTX entry name of an instantiation: the kernel's name, followed by its const
/// arguments when any is given (`copy_swizzled_smem__SWIZZLE_BITS_0`).
pub fn entry_name(name: &str, const_args: &[(String, ConstValue)], is_default: bool) -> String {
    if is_default || const_args.is_empty() {
        return name.to_owned();
    }
    let mut entry = name.to_owned();
    for (parameter, value) in const_args {
        let value = match value {
            ConstValue::Int(value) if *value < 0 => format!("m{}", value.unsigned_abs()),
            other => other.to_string(),
        };
        entry.push_str(&format!("__{parameter}_{value}"));
    }
    entry
}

/// Byte offsets of the shared buffers and the total.
pub(crate) fn shared_layout(trace: &KernelTrace) -> (Vec<i64>, i64) {
    let mut offsets = Vec::with_capacity(trace.shared.len());
    let mut next = 0i64;
    for buffer in &trace.shared {
        let align = buffer.align.max(SHARED_ALIGNMENT);
        let start = (next + align - 1) / align * align;
        offsets.push(start);
        next = start.saturating_add(buffer.bytes);
    }
    (offsets, next)
}

/// Why a kernel cannot be passed from the host; its words finish `E0301`'s sentence
/// ("kernel `k` cannot be built yet: ...").
#[derive(Debug)]
pub(crate) enum Unpassable {
    /// A const parameter's value is neither an integer nor a dtype.
    ConstArg(String),
    /// An integer parameter of another type than the host's integers.
    IntParam { name: String, dtype: Dtype },
    /// A tensor whose elements the host cannot name.
    TensorElement(Dtype),
    /// A float or bool parameter of another type than the host's.
    ScalarParam { name: String, dtype: Dtype },
    /// A parameter without a type.
    Untyped(String),
    /// A quantity the host computes (`what`) that depends on more than the integer
    /// parameters.
    NotHostExpr { what: &'static str, value: SymInt },
    /// A launch extent (`grid` or `block`) of more than three dimensions.
    Extents(&'static str),
    /// The shared-memory size does not fit in 32 bits.
    SharedBytes,
}

impl fmt::Display for Unpassable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unpassable::ConstArg(name) => write!(
                f,
                "the const parameter `{name}` is neither an integer nor a dtype, so the host cannot name this instantiation"
            ),
            Unpassable::IntParam { name, dtype } => write!(
                f,
                "the parameter `{name}` is a {dtype}; integer parameters are i8, u8, i16, u16, i32, i64, u32 or u64"
            ),
            Unpassable::TensorElement(dtype) => {
                write!(f, "tensors of {dtype} cannot be passed to a kernel yet")
            }
            Unpassable::ScalarParam { name, dtype } => write!(
                f,
                "the parameter `{name}` is a {dtype}; scalar parameters are f16, bf16, f32, f64 or bool"
            ),
            Unpassable::Untyped(name) => write!(f, "the parameter `{name}` has no type"),
            Unpassable::NotHostExpr { what, value } => write!(
                f,
                "{what} `{value}` depends on more than the kernel's integer parameters"
            ),
            Unpassable::Extents(what) => write!(f, "`{what}` has at most three extents"),
            Unpassable::SharedBytes => write!(f, "the shared memory does not fit in 32 bits"),
        }
    }
}

/// The signature of a traced kernel, or why it cannot be passed from the host.
pub(crate) fn signature(trace: &KernelTrace) -> Result<Signature, Unpassable> {
    let const_args: Vec<(String, ConstValue)> = trace
        .const_args
        .iter()
        .map(|(name, value)| match value {
            Some(ConstArg::Int(value)) => Ok((name.clone(), ConstValue::Int(*value))),
            Some(ConstArg::Dtype(dtype)) => {
                Ok((name.clone(), ConstValue::Dtype(dtype.name().to_owned())))
            }
            None => Err(Unpassable::ConstArg(name.clone())),
        })
        .collect::<Result<_, _>>()?;
    let variable_param = |variable: &str| trace.int_param(variable);
    let host = |value: &SymInt, what: &'static str| {
        host_expr(value, &variable_param).ok_or_else(|| Unpassable::NotHostExpr {
            what,
            value: value.clone(),
        })
    };
    let hosts = |tuple: &IntTuple<SymInt>, what: &'static str| {
        (tuple.leaves().iter())
            .map(|leaf| host(leaf, what))
            .collect::<Result<Vec<_>, _>>()
    };
    let mut params = Vec::with_capacity(trace.params.len());
    for param in &trace.params {
        let kind = match &param.kind {
            TraceParamKind::Int(dtype, _) => {
                ParamKind::Int(int_param(*dtype).ok_or_else(|| Unpassable::IntParam {
                    name: param.name.clone(),
                    dtype: *dtype,
                })?)
            }
            TraceParamKind::Tensor(dtype, layout) => ParamKind::Tensor {
                dtype: element(*dtype).ok_or(Unpassable::TensorElement(*dtype))?,
                shape: hosts(layout.shape(), "the extent")?,
                strides: hosts(layout.stride(), "the stride")?,
            },
            TraceParamKind::Scalar(dtype) => {
                ParamKind::Scalar(scalar_param(*dtype).ok_or_else(|| Unpassable::ScalarParam {
                    name: param.name.clone(),
                    dtype: *dtype,
                })?)
            }
            TraceParamKind::TensorMap {
                tensor,
                modes,
                box_shape,
                swizzle,
            } => ParamKind::TensorMap(kir::TensorMap {
                tensor: *tensor,
                modes: modes.clone(),
                box_shape: box_shape.clone(),
                swizzle: *swizzle,
            }),
            TraceParamKind::Unknown => {
                return Err(Unpassable::Untyped(param.name.clone()));
            }
        };
        params.push(Param {
            name: param.name.clone(),
            kind,
        });
    }
    let dims = |extents: &[SymInt], what: &'static str| -> Result<[HostExpr; 3], Unpassable> {
        let mut dims = [HostExpr::Const(1), HostExpr::Const(1), HostExpr::Const(1)];
        if extents.len() > 3 {
            return Err(Unpassable::Extents(what));
        }
        for (dim, extent) in dims.iter_mut().zip(extents) {
            *dim = host(extent, what)?;
        }
        Ok(dims)
    };
    // `smem(N)` launches with N bytes; the checker made sure the buffers fit in them.
    let (_, buffers_bytes) = shared_layout(trace);
    let shared_bytes = trace
        .requested_shared
        .unwrap_or(buffers_bytes)
        .max(buffers_bytes);
    let mut element_requirements = Vec::with_capacity(trace.element_requirements.len());
    for requirement in &trace.element_requirements {
        let rule = match &requirement.rule {
            trace::ElementRule::Range { low, high } => ElementRule::Range {
                low: host(low, "the range's bound")?,
                high: host(high, "the range's bound")?,
            },
            trace::ElementRule::Offsets { total, max_step } => ElementRule::Offsets {
                total: host(total, "the offsets' total")?,
                max_step: match max_step {
                    Some(max_step) => Some(host(max_step, "the offsets' largest step")?),
                    None => None,
                },
            },
        };
        element_requirements.push(ElementRequirement {
            param: requirement.param,
            rule,
            span: requirement.span,
        });
    }
    let is_default = trace.is_default;
    Ok(Signature {
        name: trace.name.clone(),
        entry: entry_name(&trace.name, &const_args, is_default),
        const_args,
        params,
        launch: Launch {
            grid: dims(&trace.grid, "grid")?,
            block: dims(&trace.block, "block")?,
            cluster: trace.cluster,
            shared_bytes: u32::try_from(shared_bytes).map_err(|_| Unpassable::SharedBytes)?,
        },
        assumptions: Vec::new(),
        alignments: Vec::new(),
        element_requirements,
    })
}

/// `value` as a host expression, when its variables are integer parameters.
fn host_expr(value: &SymInt, param_of: &dyn Fn(&str) -> Option<usize>) -> Option<HostExpr> {
    let mut sum: Option<HostExpr> = None;
    for (coefficient, factors) in value.terms() {
        let mut product = HostExpr::Const(coefficient);
        for factor in factors {
            let operand = match factor {
                SymFactor::Variable(name) => HostExpr::Param(param_of(name)?),
                SymFactor::CeilDiv(a, b) => HostExpr::CeilDiv(
                    Box::new(host_expr(a, param_of)?),
                    Box::new(host_expr(b, param_of)?),
                ),
                SymFactor::Div(a, b) => HostExpr::Div(
                    Box::new(host_expr(a, param_of)?),
                    Box::new(host_expr(b, param_of)?),
                ),
                SymFactor::Mod(a, b) => HostExpr::Rem(
                    Box::new(host_expr(a, param_of)?),
                    Box::new(host_expr(b, param_of)?),
                ),
            };
            product = match product {
                HostExpr::Const(1) => operand,
                other => HostExpr::Mul(Box::new(other), Box::new(operand)),
            };
        }
        sum = Some(match sum {
            None => product,
            Some(sum) => HostExpr::Add(Box::new(sum), Box::new(product)),
        });
    }
    Some(sum.unwrap_or(HostExpr::Const(0)))
}

fn int_param(dtype: Dtype) -> Option<IntParam> {
    match dtype {
        Dtype::I8 => Some(IntParam::I8),
        Dtype::U8 => Some(IntParam::U8),
        Dtype::I16 => Some(IntParam::I16),
        Dtype::U16 => Some(IntParam::U16),
        Dtype::I32 => Some(IntParam::I32),
        Dtype::I64 => Some(IntParam::I64),
        Dtype::U32 => Some(IntParam::U32),
        Dtype::U64 => Some(IntParam::U64),
        _ => None,
    }
}

/// The type of a float or bool parameter, as the host passes it.
fn scalar_param(dtype: Dtype) -> Option<ScalarParam> {
    Some(match dtype {
        Dtype::F16 => ScalarParam::F16,
        Dtype::Bf16 => ScalarParam::BF16,
        Dtype::F32 => ScalarParam::F32,
        Dtype::F64 => ScalarParam::F64,
        Dtype::Bool => ScalarParam::Bool,
        _ => return None,
    })
}

/// The element type of a global tensor, as the host knows it.
pub(crate) fn element(dtype: Dtype) -> Option<Element> {
    Some(match dtype {
        Dtype::F16 => Element::F16,
        Dtype::Bf16 => Element::BF16,
        Dtype::F32 => Element::F32,
        Dtype::F64 => Element::F64,
        Dtype::E4m3 => Element::E4M3,
        Dtype::E5m2 => Element::E5M2,
        Dtype::I8 => Element::I8,
        Dtype::U8 => Element::U8,
        Dtype::I16 => Element::I16,
        Dtype::U16 => Element::U16,
        Dtype::I32 => Element::I32,
        Dtype::U32 => Element::U32,
        Dtype::I64 => Element::I64,
        Dtype::U64 => Element::U64,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_spell_the_const_arguments() {
        let args = vec![("SWIZZLE_BITS".to_owned(), ConstValue::Int(0))];
        assert_eq!(entry_name("copy", &args, true), "copy");
        assert_eq!(entry_name("copy", &args, false), "copy__SWIZZLE_BITS_0");
        assert_eq!(
            entry_name("copy", &[("N".to_owned(), ConstValue::Int(-2))], false),
            "copy__N_m2"
        );
        let dtype = [("T".to_owned(), ConstValue::Dtype("bf16".to_owned()))];
        assert_eq!(entry_name("fill", &dtype, false), "fill__T_bf16");
    }

    #[test]
    fn launch_extents_become_host_expressions() {
        let m = SymInt::variable("m");
        let grid = layout::Int::div(&m, &SymInt::constant(128)).unwrap();
        let expr = host_expr(&grid, &|name| (name == "m").then_some(0)).unwrap();
        assert_eq!(expr.evaluate(&[1024]), Some(8));
        let ceil = layout::Int::ceil_div(&m, &SymInt::constant(16)).unwrap();
        let expr = host_expr(&ceil, &|name| (name == "m").then_some(0)).unwrap();
        assert_eq!(expr.evaluate(&[1000]), Some(63));
        assert!(host_expr(&SymInt::variable("thread_idx.x"), &|_| None).is_none());
    }
}
