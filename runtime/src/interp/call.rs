//! Kernel calls: the instantiation picked by const arguments, tensors uploaded when a
//! kernel first needs them, arguments checked and marshalled, the launch on the GPU or
//! the emulator (timed, in a bench, on the GPU only), and the device data downloaded
//! again only when the host reads it; and tensor creation, which a GPU that keeps
//! created tensors serves from its copies. A bench's `report` is in `report.rs`.

use kir::{ConstValue, Element};
use lang::Span;
use lang::ast::{Argument, Kernel};
use trace::ConstArg;

use super::{Eval, Interpreter, Stop, Value};
use crate::device::{Device, DeviceBuffer};
use crate::marshal::{self, CallArg};
use crate::ranks::Hidden;
use crate::tensor::{Creation, Dense, ShapeError, Tensor, element_count};

impl Interpreter<'_> {
    /// Tensor `index`'s values, downloading them if a kernel wrote it last.
    pub(super) fn dense(&mut self, index: usize, span: Span) -> Eval<Dense> {
        let Some(tensor) = self.tensors.get_mut(index) else {
            return Err(Stop::error(span, "this tensor no longer exists"));
        };
        if tensor.host.is_none() {
            let (Ok(device), Some(buffer)) = (&self.device, &tensor.device) else {
                return Err(Stop::error(
                    span,
                    "this tensor has no data on the host or the device",
                ));
            };
            tensor.host = Some(
                device
                    .download(buffer)
                    .map_err(|error| Stop::error(span, error.to_string()))?,
            );
        }
        tensor
            .dense()
            .ok_or_else(|| Stop::error(span, "this tensor has no data on the host"))
    }

    pub(super) fn call_kernel(
        &mut self,
        kernel: &Kernel,
        args: &[Argument],
        span: Span,
    ) -> Eval<Value> {
        let name = &kernel.name.text;
        let consts = self.const_arguments(kernel, args, span)?;
        let mut values = Vec::new();
        for arg in args.iter().filter(|arg| arg.name.is_none()) {
            values.push((self.expr(&arg.value)?, arg.value.span));
        }
        let index = marshal::select(self.kernels, name, &consts)
            .map_err(|error| Stop::error(span, error.to_string()))?;
        self.check_elements(index, &values, span)?;
        let compiled = &self.kernels[index];
        let device = match &mut self.device {
            Ok(device) => device,
            Err(reason) => return Err(Stop::Skip(reason.to_string())),
        };
        for (value, arg_span) in &values {
            if let Value::Tensor(tensor) = value {
                let tensor = self
                    .tensors
                    .get_mut(*tensor)
                    .ok_or_else(|| Stop::error(*arg_span, "this tensor no longer exists"))?;
                upload(device, tensor, *arg_span)?;
            }
        }
        let mut call_args = Vec::with_capacity(values.len() + 4);
        for (value, arg_span) in &values {
            call_args.push(match value {
                Value::Int(value) => CallArg::Int(*value),
                Value::Float(value) => CallArg::Float(*value),
                Value::Bool(value) => CallArg::Bool(*value),
                Value::Tensor(tensor) => {
                    let tensor = &self.tensors[*tensor];
                    let Some(buffer) = &tensor.device else {
                        return Err(Stop::error(*arg_span, "this tensor was not uploaded"));
                    };
                    CallArg::Tensor {
                        dtype: tensor.dtype,
                        shape: &tensor.shape,
                        strides: None,
                        address: device
                            .address(buffer)
                            .map_err(|error| Stop::error(*arg_span, error.to_string()))?,
                    }
                }
                other => {
                    return Err(Stop::error(
                        *arg_span,
                        format!(
                            "a kernel takes integers, floats, bools and tensors, not a {}",
                            other.kind()
                        ),
                    ));
                }
            });
        }
        // A symmetric kernel's hidden parameters (rank, world size, peer tables) are
        // zeros here; the launch on every rank fills them in (`ranks.rs`).
        let declared = call_args.len();
        let hidden = Hidden::of(compiled, declared);
        if let Some(hidden) = &hidden {
            let count = 2 + hidden.tables.len();
            call_args.extend(std::iter::repeat_n(CallArg::Int(0), count));
        }
        let plan = marshal::plan(&compiled.signature, &call_args)
            .map_err(|error| Stop::error(span, error.message))?;
        super::row_major::check(&compiled.signature, &call_args)
            .map_err(|error| Stop::error(span, error.to_string()))?;
        // On GPUs a rank's launch is the plan with its hidden parameters filled in,
        // which a bench times again.
        let mut launched_plan = None;
        let symmetric = symmetric_tensors(compiled, hidden.as_ref(), &call_args);
        let launched = match &mut *device {
            Device::Rank(hub, rank) => {
                let described = (declared, symmetric);
                hub.launch(*rank, (index, compiled), &plan, described, span)
            }
            Device::GpuRank(gpu, exchange, rank) => (exchange.launch(
                gpu,
                *rank,
                (index, compiled),
                &plan,
                hidden.as_ref(),
                symmetric,
            ))
            .map(|launched| launched_plan = Some(launched))
            .map_err(|error| (error.to_string(), None)),
            _ if hidden.is_some() => Err((
                format!(
                    "`{name}` has `symmetric(...)` tensors: it runs in a `test ... ranks(N)` block"
                ),
                None,
            )),
            _ => device.launch(index, compiled, &plan, span),
        };
        launched.map_err(|(message, diagnostic)| Stop::Error {
            message,
            span,
            diagnostic,
        })?;
        if let Some(bench) = &mut self.bench {
            let Some(gpu) = device.gpu() else {
                return Err(Stop::Skip(EMULATED_BENCH.to_owned()));
            };
            let plan = launched_plan
                .as_ref()
                .map_or(&plan, |launched| &launched.plan);
            let function = gpu
                .load(index, compiled, plan.shared_bytes)
                .map_err(|message| Stop::error(span, message))?;
            let ms = gpu
                .time_kernel(
                    name,
                    &function,
                    plan,
                    bench.config.warmup,
                    bench.config.runs,
                    bench.config.flush_l2,
                )
                .map_err(|message| Stop::error(span, message))?;
            bench.kernel_ms.push((name.clone(), ms));
        }
        // The kernel may have written any tensor it was given: the device copy is current.
        for (value, _) in &values {
            if let Value::Tensor(tensor) = value
                && let Some(tensor) = self.tensors.get_mut(*tensor)
            {
                tensor.host = None;
            }
        }
        Ok(Value::Unit)
    }

    /// What the kernel `self.kernels[index]` requires of the elements of its integer
    /// tensor arguments (`require_range`, `require_offsets`): the error's code (`E0428`,
    /// `E0424` to `E0427`) at the call, labelling the requirement, when one breaks it.
    fn check_elements(&mut self, index: usize, values: &[(Value, Span)], span: Span) -> Eval<()> {
        let signature = &self.kernels[index].signature;
        if signature.element_requirements.is_empty() {
            return Ok(());
        }
        let ints: Vec<i64> = (values.iter())
            .map(|(value, _)| match value {
                Value::Int(value) => *value,
                _ => 0,
            })
            .collect();
        for requirement in signature.element_requirements.clone() {
            let Some((Value::Tensor(tensor), arg_span)) = values.get(requirement.param) else {
                continue;
            };
            let dense = self.dense(*tensor, *arg_span)?;
            let signature = &self.kernels[index].signature;
            if let Err(error) = marshal::check_elements(
                signature,
                &requirement,
                &ints,
                (&dense.shape, &dense.values),
            ) {
                let message = error.to_string();
                let label = match requirement.rule {
                    kir::ElementRule::Range { .. } => "the range the kernel requires",
                    kir::ElementRule::Offsets { .. } => "the offsets the kernel requires",
                };
                let diagnostic = lang::Diagnostic::error(error.code(), message.clone())
                    .with_primary(requirement.span, label)
                    .with_secondary(*arg_span, "the tensor passed");
                return Err(Stop::Error {
                    message,
                    span,
                    diagnostic: Some(Box::new(diagnostic)),
                });
            }
        }
        Ok(())
    }

    /// The call's const arguments: those it gives by name, evaluated here, and every
    /// other as the checker found it for this launch (defaults are not evaluated here).
    fn const_arguments(
        &mut self,
        kernel: &Kernel,
        args: &[Argument],
        span: Span,
    ) -> Eval<Vec<(String, ConstValue)>> {
        let mut given = Vec::new();
        for arg in args {
            let Some(arg_name) = &arg.name else {
                continue;
            };
            if !(kernel.generics.iter()).any(|generic| generic.name.text == arg_name.text) {
                return Err(Stop::error(
                    arg.span,
                    format!(
                        "`{}` has no const parameter `{}`",
                        kernel.name.text, arg_name.text
                    ),
                ));
            }
            given.push((arg_name.text.as_str(), self.expr(&arg.value)?));
        }
        let agrees = |(name, checked): &(String, ConstArg), (wanted, value): &(&str, Value)| {
            name == wanted
                && match (checked, value) {
                    (ConstArg::Int(checked), Value::Int(value)) => checked == value,
                    (ConstArg::Dtype(checked), Value::Dtype(value)) => {
                        checked.name() == value.name()
                    }
                    _ => false,
                }
        };
        let record = (self.host.instantiated.iter()).find(|record| {
            record.kernel == kernel.name.text
                && record.given.len() == given.len()
                && record.given.iter().zip(&given).all(|(a, b)| agrees(a, b))
        });
        let Some(record) = record else {
            return Err(Stop::error(
                span,
                format!(
                    "the checker did not check kernel `{}` with these const arguments",
                    kernel.name.text
                ),
            ));
        };
        let consts = (record.const_args.iter())
            .filter_map(|(name, value)| {
                let value = match value.as_ref()? {
                    ConstArg::Int(value) => ConstValue::Int(*value),
                    ConstArg::Dtype(dtype) => ConstValue::Dtype(dtype.name().to_owned()),
                };
                Some((name.clone(), value))
            })
            .collect();
        Ok(consts)
    }

    /// A created tensor: on the host, or, on a GPU that keeps created tensors (`cukc
    /// tune`), a device copy of the one an earlier run drew with the same creation,
    /// element type, shape and seed. A failure is an error at `span`.
    pub(super) fn create(
        &mut self,
        creation: Creation,
        dtype: Element,
        shape: Vec<usize>,
        seed: u64,
        span: Span,
    ) -> Eval<Tensor> {
        let failed = |error: ShapeError| Stop::error(span, error.to_string());
        let draw = |shape: Vec<usize>| Tensor::create(creation, dtype, shape, seed);
        let Ok(Device::Gpu(gpu) | Device::GpuRank(gpu, ..)) = &mut self.device else {
            return draw(shape).map_err(failed);
        };
        element_count(dtype, &shape).map_err(failed)?;
        let key = format!("{creation:?} {} {shape:?} {seed}", dtype.name());
        let drawn = || {
            draw(shape.clone())
                .map_or_else(|_| Vec::new(), |tensor| tensor.host.unwrap_or_default())
        };
        match (gpu.created_copy(&key, drawn))
            .map_err(|error| Stop::error(span, error.to_string()))?
        {
            Some(buffer) => Ok(Tensor {
                dtype,
                shape,
                host: None,
                device: Some(DeviceBuffer::Gpu(buffer)),
            }),
            None => draw(shape).map_err(failed),
        }
    }
}

/// What a rank passes for each symmetric tensor of `kernel` (`hidden`): the
/// parameter's name and the tensor's dtype and shape (`bf16[4, 1024]`), which every
/// rank's must match.
fn symmetric_tensors(
    kernel: &crate::CompiledKernel,
    hidden: Option<&Hidden>,
    args: &[CallArg<'_>],
) -> Vec<(String, String)> {
    let tables = hidden.map_or(&[][..], |hidden| hidden.tables.as_slice());
    (tables.iter())
        .map(|(_, tensor)| {
            let parameter = (kernel.signature.params.get(*tensor))
                .map_or_else(String::new, |param| param.name.clone());
            let passed = match args.get(*tensor) {
                Some(CallArg::Tensor { dtype, shape, .. }) => {
                    let extents: Vec<String> = shape.iter().map(usize::to_string).collect();
                    format!("{}[{}]", dtype.name(), extents.join(", "))
                }
                _ => "not a tensor".to_owned(),
            };
            (parameter, passed)
        })
        .collect()
}

/// Why a bench does not run on the emulator.
pub(crate) const EMULATED_BENCH: &str = "benches are not emulated: timing needs a GPU";

/// Gives `tensor` a current device copy; a failure is an error at `span`.
pub(super) fn upload(device: &mut Device<'_>, tensor: &mut Tensor, span: Span) -> Eval<()> {
    if tensor.device.is_some() {
        return Ok(());
    }
    let Some(bytes) = &tensor.host else {
        return Err(Stop::error(
            span,
            "this tensor has no data on the host or the GPU",
        ));
    };
    let buffer = device
        .upload(bytes)
        .map_err(|error| Stop::error(span, error.to_string()))?;
    tensor.device = Some(buffer);
    Ok(())
}
