//! Kernels: an instantiation's const parameters bound, its launch clause, its
//! run-time parameters, and the trace lowering reads (`instantiations.rs` checks each
//! instantiation).

use std::sync::Arc;

use cute::{Base, Codomain, Dtype, Tensor, TensorLayout};
use lang::Span;
use lang::ast::{GenericParam, Kernel, LaunchKind, Param, TypeKind};
use layout::SymInt;

use crate::BindingKind;
use crate::check::types::type_name;
use crate::check::{Checker, Context};
use crate::trace::{
    ConstArg, KernelTrace, Term, TraceParam, TraceParamKind, term_dtype, with_term,
};
use crate::value::{IntType, Known, Origin, Value};

impl<'a> Checker<'a> {
    /// The values the kernel's const parameters are bound to.
    pub(crate) fn bound_const_args(&self, kernel: &Kernel) -> Vec<(String, Option<ConstArg>)> {
        (kernel.generics.iter())
            .map(|generic| {
                let local = self.lookup_local(&generic.name.text);
                let value = local.and_then(|local| const_arg(&local.value));
                (generic.name.text.clone(), value)
            })
            .collect()
    }

    /// A trace with the kernel's bound const parameters, parameters and launch clause.
    pub(crate) fn start_trace(&mut self, kernel: &'a Kernel) -> KernelTrace {
        let const_args = self.bound_const_args(kernel);
        let params = kernel
            .params
            .iter()
            .map(|param| {
                let value = self
                    .lookup_local(&param.name.text)
                    .map(|local| &local.value);
                let kind = match value {
                    Some(Value::Int {
                        ty: IntType::Sized(dtype),
                        value,
                    }) => match value.variables().as_slice() {
                        [variable] => TraceParamKind::Int(*dtype, variable.clone()),
                        _ => TraceParamKind::Unknown,
                    },
                    Some(Value::Float {
                        dtype: Some(dtype), ..
                    }) => TraceParamKind::Scalar(*dtype),
                    Some(Value::Bool(_)) => TraceParamKind::Scalar(Dtype::Bool),
                    Some(Value::Tensor(tensor)) => match tensor.dtype {
                        Some(dtype) => TraceParamKind::Tensor(dtype, tensor.layout.layout.clone()),
                        None => TraceParamKind::Unknown,
                    },
                    _ => TraceParamKind::Unknown,
                };
                TraceParam {
                    name: param.name.text.clone(),
                    kind,
                }
            })
            .chain(self.hidden_rank_params())
            .collect();
        let mut extents = |kind: LaunchKind| -> Vec<SymInt> {
            let Some(part) = kernel.launch.iter().find(|part| part.kind == kind) else {
                return Vec::new();
            };
            part.args
                .iter()
                .map(|arg| match self.eval_quiet(arg) {
                    Value::Int { value, .. } => value,
                    _ => SymInt::constant(0),
                })
                .collect()
        };
        let grid = extents(LaunchKind::Grid);
        let block = extents(LaunchKind::Block);
        let cluster = self.frame.cluster;
        KernelTrace {
            name: kernel.name.text.clone(),
            span: kernel.name.span,
            const_args,
            params,
            grid,
            block,
            cluster,
            shared: Vec::new(),
            requested_shared: None,
            effects: Vec::new(),
            has_errors: false,
            is_default: true,
            peers: Vec::new(),
            element_requirements: Vec::new(),
            cluster_ranks: Vec::new(),
        }
    }

    /// Checks the launch clause; returns the byte count of `smem(N)` (`None` for
    /// `smem(auto)`, no `smem` part, or a count that is not a constant).
    pub(crate) fn check_launch(&mut self, kernel: &'a Kernel) -> Option<i64> {
        let mut requested_shared = None;
        for part in &kernel.launch {
            if part.kind == LaunchKind::Symmetric {
                continue;
            }
            for arg in &part.args {
                if part.kind == LaunchKind::Smem
                    && let lang::ast::ExprKind::Path(path) = &arg.kind
                    && path.segments.len() == 1
                    && path.segments[0].text == "auto"
                {
                    continue;
                }
                let value = self.eval(arg);
                let what = format!("`{}` of the launch clause", part.kind.keyword());
                let Some(extent) = self.expect_int(&value, arg.span, &what) else {
                    continue;
                };
                match part.kind {
                    LaunchKind::Block | LaunchKind::Cluster => {
                        if let Some(origin) = self.symbolic_origin(&extent) {
                            self.require_const_failed(
                                &format!("the {} size", part.kind.keyword()),
                                arg.span,
                                &origin,
                            );
                        } else if extent.as_constant().is_some_and(|extent| extent < 1) {
                            self.error(
                                "E0216",
                                arg.span,
                                format!(
                                    "a {} dimension must be at least 1, not {extent}",
                                    part.kind.keyword()
                                ),
                                "not a positive size",
                            );
                        }
                    }
                    LaunchKind::Smem => {
                        if let Some(origin) = self.symbolic_origin(&extent) {
                            self.require_const_failed("the `smem` byte count", arg.span, &origin);
                        } else if let Some(bytes) = extent.as_constant() {
                            if bytes < 0 {
                                self.error(
                                    "E0216",
                                    arg.span,
                                    format!("`smem` takes a byte count or `auto`, not {bytes}"),
                                    "a negative size",
                                );
                            } else {
                                requested_shared = Some(bytes);
                            }
                        }
                    }
                    LaunchKind::Grid | LaunchKind::Symmetric => {}
                }
            }
        }
        self.check_cluster(kernel);
        self.check_symmetric(kernel);
        self.tracing.tmem_columns = 0;
        self.tracing.cta_group = None;
        if let Some(block) = kernel
            .launch
            .iter()
            .find(|part| part.kind == LaunchKind::Block)
        {
            let threads = block
                .args
                .iter()
                .map(|arg| {
                    let value = self.eval_quiet(arg);
                    match value {
                        Value::Int { value, .. } => value.as_constant(),
                        _ => None,
                    }
                })
                .try_fold(1i64, |product, extent| product.checked_mul(extent?));
            self.frame.block_threads = threads;
            if let Some(threads) = threads
                && threads > 1024
            {
                self.error(
                    "E0216",
                    block.span,
                    format!("a block has at most 1024 threads; this one has {threads}"),
                    "too many threads",
                );
            }
        }
        requested_shared
    }

    pub(crate) fn bind_generics(
        &mut self,
        generics: &'a [GenericParam],
        given: &[(String, Value)],
        span: Span,
    ) {
        for generic in generics {
            let value = match self.const_argument(generic, given) {
                Some(value) => value,
                None => {
                    if self.names.current_module == 0
                        && self.frame.context == Context::Device
                        && !given.is_empty()
                    {
                        self.missing_const_argument(generic, span);
                    }
                    Value::Unknown
                }
            };
            let value = self.check_generic_kind(generic, value, span);
            self.bind(&generic.name, value, false, BindingKind::ConstParameter);
        }
    }

    /// Reports E0215: `generic` has no default and the call at `span` does not give it.
    pub(crate) fn missing_const_argument(&mut self, generic: &GenericParam, span: Span) -> Value {
        let message = format!(
            "the const parameter `{}` has no default and is not given",
            generic.name.text
        );
        self.error("E0215", span, message, "missing a const argument")
    }

    /// A const parameter's argument: the one given by name, else its default
    /// evaluated; `None` when there is neither.
    pub(crate) fn const_argument(
        &mut self,
        generic: &'a GenericParam,
        given: &[(String, Value)],
    ) -> Option<Value> {
        match given.iter().find(|(name, _)| *name == generic.name.text) {
            Some((_, value)) => Some(value.clone()),
            None => generic.default.as_ref().map(|default| self.eval(default)),
        }
    }

    /// Checks a const argument against its parameter's kind (`int` or `dtype`).
    pub(crate) fn check_generic_kind(
        &mut self,
        generic: &GenericParam,
        value: Value,
        span: Span,
    ) -> Value {
        let kind = type_name(&generic.kind);
        match (kind.as_str(), &value) {
            (_, Value::Unknown) => value,
            ("int", Value::Int { value: extent, .. }) => match self.symbolic_origin(extent) {
                Some(origin) => {
                    self.require_const_failed(
                        &format!("the const parameter `{}`", generic.name.text),
                        span,
                        &origin,
                    );
                    Value::Unknown
                }
                None => value,
            },
            ("dtype", Value::Dtype(_)) => value,
            ("int" | "dtype", _) => self.error(
                "E0216",
                span,
                format!(
                    "the const parameter `{}` is of kind `{kind}`, but it is given a {}",
                    generic.name.text,
                    value.type_name()
                ),
                "wrong kind of value",
            ),
            _ => self.error(
                "E0216",
                generic.kind.span,
                format!("a const parameter is of kind `int` or `dtype`, not `{kind}`"),
                "unknown kind",
            ),
        }
    }

    /// Binds a kernel's run-time parameters: a tensor is based at its parameter, and a
    /// float or bool scalar is computed by reading its parameter.
    pub(crate) fn bind_kernel_params(&mut self, params: &'a [Param]) {
        for (index, param) in params.iter().enumerate() {
            let value = match self.param_value(param, "a kernel argument") {
                Value::Tensor(tensor) => Value::Tensor(Arc::new(Tensor {
                    base: Base::Param(index),
                    ..(*tensor).clone()
                })),
                scalar @ (Value::Float { .. } | Value::Bool(_)) => {
                    let term = term_dtype(&scalar).map(|dtype| Term::Param(index, dtype));
                    with_term(scalar, term)
                }
                other => other,
            };
            self.bind(&param.name, value, false, BindingKind::Parameter);
        }
    }

    /// The value a run-time parameter has inside the body: dyn, with its declared type.
    pub(crate) fn param_value(&mut self, param: &'a Param, role: &str) -> Value {
        let origin = Origin {
            reason: format!("`{}` is {role}", param.name.text),
            span: Some(param.name.span),
            term: None,
        };
        match &param.ty.kind {
            TypeKind::Named(path) => {
                if path.segments.len() != 1 {
                    return self.error(
                        "E0216",
                        param.ty.span,
                        "a parameter's type is a dtype or a tensor type".to_owned(),
                        "not a type",
                    );
                }
                let name = &path.segments[0];
                match Dtype::from_name(&name.text) {
                    Some(dtype) if dtype.is_integer() => Value::Int {
                        ty: IntType::Sized(dtype),
                        value: self.fresh_variable(&param.name.text, origin),
                    },
                    Some(Dtype::Bool) => Value::Bool(Known::Dyn(origin)),
                    Some(dtype) => Value::Float {
                        dtype: Some(dtype),
                        value: Known::Dyn(origin),
                    },
                    None => self.unknown_type(name),
                }
            }
            TypeKind::Tensor {
                space,
                element,
                layout,
            } => {
                let dtype = match self.resolve_dtype(element) {
                    Some(dtype) => dtype,
                    None => return Value::Unknown,
                };
                if matches!(layout.kind, lang::ast::ExprKind::Wildcard) {
                    if self.frame.is_function {
                        return Value::Unknown;
                    }
                    return self.error(
                        "E0216",
                        layout.span,
                        "a kernel's tensor parameter needs a layout; `_` is for device functions"
                            .to_owned(),
                        "layout unknown",
                    );
                }
                if *space != lang::ast::MemorySpace::Global && !self.frame.is_function {
                    return self.error(
                        "E0216",
                        param.ty.span,
                        format!(
                            "a kernel receives tensors in global memory, not `{}`",
                            space.keyword()
                        ),
                        "not gmem",
                    );
                }
                let layout_value = self.eval(layout);
                let Some(layout) = self.expect_layout(&layout_value, layout.span) else {
                    return Value::Unknown;
                };
                Value::Tensor(Arc::new(Tensor {
                    space: *space,
                    dtype: Some(dtype),
                    layout: TensorLayout {
                        layout,
                        offset: SymInt::constant(0),
                        codomain: Codomain::Offsets,
                    },
                    read_only: false,
                    base: Base::Unknown,
                }))
            }
        }
    }
}

/// A const argument's value, when it is an integer constant or a dtype.
pub(crate) fn const_arg(value: &Value) -> Option<ConstArg> {
    match value {
        Value::Int { value, .. } => value.as_constant().map(ConstArg::Int),
        Value::Dtype(dtype) => Some(ConstArg::Dtype(*dtype)),
        _ => None,
    }
}
