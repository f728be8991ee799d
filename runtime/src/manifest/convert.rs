//! Between the compiler's [`Signature`] and a manifest's [`KernelEntry`], both ways.

use kir::{
    Alignment, Assumption, ConstValue, Element, ElementRequirement, ElementRule, HostExpr,
    IntParam, Launch, Param, ParamKind, ScalarParam, Signature, TensorMap,
};

use super::{
    AssumptionEntry, ConstArg, ConstArgValue, EntryProblem, Expr, KernelEntry, LaunchEntry,
    ManifestError, ParamEntry,
};

impl KernelEntry {
    /// The entry for one compiled instantiation.
    pub(crate) fn new(signature: &Signature) -> KernelEntry {
        let name_of = |index: usize| {
            signature
                .params
                .get(index)
                .map_or_else(|| format!("%{index}"), |param| param.name.clone())
        };
        let exprs = |list: &[HostExpr]| -> Vec<Expr> {
            list.iter()
                .map(|expr| Expr::from_host(expr, &name_of))
                .collect()
        };
        let dims = |list: &[HostExpr; 3]| list.clone().map(|expr| Expr::from_host(&expr, &name_of));
        let params = signature
            .params
            .iter()
            .map(|param| match &param.kind {
                ParamKind::Int(width) => ParamEntry::Int {
                    name: param.name.clone(),
                    dtype: width.name().to_owned(),
                },
                ParamKind::Scalar(scalar) => ParamEntry::Scalar {
                    name: param.name.clone(),
                    dtype: scalar.name().to_owned(),
                },
                ParamKind::Tensor {
                    dtype,
                    shape,
                    strides,
                } => ParamEntry::Tensor {
                    name: param.name.clone(),
                    dtype: dtype.name().to_owned(),
                    shape: exprs(shape),
                    strides: exprs(strides),
                },
                ParamKind::TensorMap(map) => ParamEntry::TensorMap {
                    name: param.name.clone(),
                    tensor: name_of(map.tensor),
                    modes: map.modes.clone(),
                    box_shape: map.box_shape.clone(),
                    swizzle: map.swizzle,
                },
            })
            .collect();
        let multiples =
            signature
                .assumptions
                .iter()
                .map(|assumption| AssumptionEntry::MultipleOf {
                    param: name_of(assumption.param),
                    value: assumption.multiple,
                    reason: assumption.reason.clone(),
                });
        let alignments = signature
            .alignments
            .iter()
            .map(|alignment| AssumptionEntry::Aligned {
                param: name_of(alignment.param),
                bytes: alignment.bytes,
                reason: alignment.reason.clone(),
            });
        let elements = signature.element_requirements.iter().map(|requirement| {
            let param = name_of(requirement.param);
            let span = [requirement.span.start, requirement.span.end];
            match &requirement.rule {
                ElementRule::Range { low, high } => AssumptionEntry::ElementsIn {
                    param,
                    low: Expr::from_host(low, &name_of),
                    high: Expr::from_host(high, &name_of),
                    span,
                },
                ElementRule::Offsets { total, max_step } => AssumptionEntry::Offsets {
                    param,
                    total: Expr::from_host(total, &name_of),
                    max_step: max_step
                        .as_ref()
                        .map(|max_step| Expr::from_host(max_step, &name_of)),
                    span,
                },
            }
        });
        KernelEntry {
            name: signature.name.clone(),
            entry: signature.entry.clone(),
            const_args: signature
                .const_args
                .iter()
                .map(|(name, value)| ConstArg {
                    name: name.clone(),
                    value: match value {
                        ConstValue::Int(value) => ConstArgValue::Int(*value),
                        ConstValue::Dtype(name) => ConstArgValue::Dtype(name.clone()),
                    },
                })
                .collect(),
            params,
            launch: LaunchEntry {
                grid: dims(&signature.launch.grid),
                block: dims(&signature.launch.block),
                cluster: signature.launch.cluster,
                shared_bytes: signature.launch.shared_bytes,
            },
            assumptions: multiples.chain(alignments).chain(elements).collect(),
        }
    }

    /// The signature this entry describes; an error names the kernel and the problem.
    pub(crate) fn signature(&self) -> Result<Signature, ManifestError> {
        let fail = |problem: EntryProblem| ManifestError::Kernel {
            kernel: self.name.clone(),
            problem,
        };
        let index_of = |name: &str| self.params.iter().position(|param| param.name() == name);
        let int_index_of = |name: &str| {
            index_of(name).filter(|index| matches!(self.params[*index], ParamEntry::Int { .. }))
        };
        let host = |expr: &Expr| expr.to_host(&int_index_of).map_err(fail);
        let hosts = |list: &[Expr]| list.iter().map(host).collect::<Result<Vec<_>, _>>();
        let dims = |list: &[Expr; 3]| -> Result<[HostExpr; 3], ManifestError> {
            let [x, y, z] = list;
            Ok([host(x)?, host(y)?, host(z)?])
        };
        let mut params = Vec::with_capacity(self.params.len());
        for param in &self.params {
            let kind = match param {
                ParamEntry::Int { dtype, .. } => ParamKind::Int(
                    IntParam::from_name(dtype)
                        .ok_or_else(|| fail(EntryProblem::IntDtype(dtype.clone())))?,
                ),
                ParamEntry::Scalar { dtype, .. } => ParamKind::Scalar(
                    ScalarParam::from_name(dtype)
                        .ok_or_else(|| fail(EntryProblem::ScalarDtype(dtype.clone())))?,
                ),
                ParamEntry::Tensor {
                    dtype,
                    shape,
                    strides,
                    ..
                } => {
                    if shape.len() != strides.len() {
                        return Err(fail(EntryProblem::Modes {
                            param: param.name().to_owned(),
                            extents: shape.len(),
                            strides: strides.len(),
                        }));
                    }
                    ParamKind::Tensor {
                        dtype: Element::from_name(dtype)
                            .ok_or_else(|| fail(EntryProblem::TensorDtype(dtype.clone())))?,
                        shape: hosts(shape)?,
                        strides: hosts(strides)?,
                    }
                }
                ParamEntry::TensorMap {
                    tensor,
                    modes,
                    box_shape,
                    swizzle,
                    ..
                } => ParamKind::TensorMap(TensorMap {
                    tensor: index_of(tensor)
                        .filter(|index| matches!(self.params[*index], ParamEntry::Tensor { .. }))
                        .ok_or_else(|| fail(EntryProblem::NotTensor(tensor.clone())))?,
                    modes: modes.clone(),
                    box_shape: box_shape.clone(),
                    swizzle: *swizzle,
                }),
            };
            params.push(Param {
                name: param.name().to_owned(),
                kind,
            });
        }
        let mut assumptions = Vec::new();
        let mut alignments = Vec::new();
        let mut element_requirements = Vec::new();
        let tensor_index_of = |param: &str| {
            index_of(param)
                .filter(|index| matches!(self.params[*index], ParamEntry::Tensor { .. }))
                .ok_or_else(|| fail(EntryProblem::NotTensor(param.to_owned())))
        };
        let span_of = |&[start, end]: &[u32; 2]| lang::Span::new(start, end.max(start));
        for assumption in &self.assumptions {
            match assumption {
                AssumptionEntry::MultipleOf {
                    param,
                    value,
                    reason,
                } => assumptions.push(Assumption {
                    param: int_index_of(param)
                        .ok_or_else(|| fail(EntryProblem::NotInt(param.clone())))?,
                    multiple: *value,
                    reason: reason.clone(),
                }),
                AssumptionEntry::Aligned {
                    param,
                    bytes,
                    reason,
                } => alignments.push(Alignment {
                    param: tensor_index_of(param)?,
                    bytes: *bytes,
                    reason: reason.clone(),
                }),
                AssumptionEntry::ElementsIn {
                    param,
                    low,
                    high,
                    span,
                } => element_requirements.push(ElementRequirement {
                    param: tensor_index_of(param)?,
                    rule: ElementRule::Range {
                        low: host(low)?,
                        high: host(high)?,
                    },
                    span: span_of(span),
                }),
                AssumptionEntry::Offsets {
                    param,
                    total,
                    max_step,
                    span,
                } => element_requirements.push(ElementRequirement {
                    param: tensor_index_of(param)?,
                    rule: ElementRule::Offsets {
                        total: host(total)?,
                        max_step: max_step.as_ref().map(host).transpose()?,
                    },
                    span: span_of(span),
                }),
            }
        }
        Ok(Signature {
            name: self.name.clone(),
            entry: self.entry.clone(),
            const_args: self
                .const_args
                .iter()
                .map(|arg| {
                    let value = match &arg.value {
                        ConstArgValue::Int(value) => ConstValue::Int(*value),
                        ConstArgValue::Dtype(name) => ConstValue::Dtype(name.clone()),
                    };
                    (arg.name.clone(), value)
                })
                .collect(),
            params,
            launch: Launch {
                grid: dims(&self.launch.grid)?,
                block: dims(&self.launch.block)?,
                cluster: self.launch.cluster,
                shared_bytes: self.launch.shared_bytes,
            },
            assumptions,
            alignments,
            element_requirements,
        })
    }
}

impl ParamEntry {
    /// The parameter's name.
    pub fn name(&self) -> &str {
        match self {
            ParamEntry::Int { name, .. }
            | ParamEntry::Scalar { name, .. }
            | ParamEntry::Tensor { name, .. }
            | ParamEntry::TensorMap { name, .. } => name,
        }
    }
}
