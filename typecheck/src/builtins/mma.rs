//! `gemm`, vector stores and loads through a tiled copy's access width, and the
//! shared-memory budget of a kernel.

use std::sync::Arc;

use cute::{Codomain, Side, Tensor, TiledCopy};
use lang::ast::Kernel;
use lang::{Diagnostic, Span};
use layout::{Int, IntTuple, SymInt};

use crate::builtins::{Arg, Args};
use crate::check::{Checker, SharedBuffer};
use crate::trace::Effect;
use crate::value::Value;

impl<'a> Checker<'a> {
    /// `gemm(tiled_mma, d, a, b, c)`: `d = a * b + c` over the thread's fragments.
    pub(crate) fn gemm(&mut self, args: &Args) -> Value {
        let p = args.positional();
        let Value::TiledMma(mma) = &p[0].value else {
            self.wrong_arg(p[0], "gemm takes a tiled MMA first", "not a tiled MMA");
            return Value::Unit;
        };
        let mut tensors = Vec::new();
        for arg in &p[1..] {
            match &arg.value {
                Value::Tensor(tensor) => tensors.push((*arg, tensor.clone())),
                other => {
                    self.wrong_type(
                        arg.span,
                        other,
                        "gemm's operands are register tensors",
                        "not a tensor",
                    );
                    return Value::Unit;
                }
            }
        }
        let atom = mma.mma_atom();
        let names = ["D", "A", "B", "C"];
        for (index, (arg, tensor)) in tensors.iter().enumerate() {
            if tensor.dtype != Some(atom.dtypes[index]) {
                self.report(
                    Diagnostic::error(
                        "E0211",
                        format!(
                            "`{}` takes {} as {}, but this tensor holds {}",
                            mma.atom.display_name(),
                            atom.dtypes[index],
                            names[index],
                            tensor.element_name()
                        ),
                    )
                    .with_primary(
                        arg.span,
                        format!("{} {}", names[index], tensor.element_name()),
                    ),
                );
                return Value::Unit;
            }
        }
        if tensors[0].1.read_only {
            self.read_only_error(&tensors[0].1, tensors[0].0.span);
        }
        let shape = |index: usize| tensors[index].1.shape().clone();
        let mode_size = |index: usize, mode: usize| {
            shape(index)
                .get(mode)
                .ok()
                .and_then(|mode| mode.product().ok())
        };
        let mut problems = Vec::new();
        if shape(0) != shape(3) {
            problems.push((0, 3, "D and C have the same shape".to_owned()));
        }
        for (left, right, left_mode, right_mode, what) in
            [(1, 3, 1, 1, "M"), (2, 3, 1, 2, "N"), (1, 2, 2, 2, "K")]
        {
            if mode_size(left, left_mode) != mode_size(right, right_mode) {
                problems.push((
                    left,
                    right,
                    format!("{} and {} agree on {what}", names[left], names[right]),
                ));
            }
        }
        if let Some((left, right, rule)) = problems.into_iter().next() {
            let (left_arg, left_tensor) = tensors[left].clone();
            let (right_arg, right_tensor) = tensors[right].clone();
            self.incongruent(
                &format!("gemm needs {rule}"),
                left_arg,
                &left_tensor,
                right_arg,
                &right_tensor,
                args.call_span,
            );
            return Value::Unit;
        }
        let register = cute::SpaceRule::Only("rmem");
        let (a_space, b_space) = atom.operand_spaces;
        for (index, rule) in [register, a_space, b_space, register]
            .into_iter()
            .enumerate()
        {
            let (arg, tensor) = &tensors[index];
            let in_registers = matches!(tensor.base, cute::Base::Registers(_));
            let space = if in_registers {
                "rmem"
            } else {
                tensor.space.keyword()
            };
            if !rule.allows(space) {
                let wanted = match rule {
                    cute::SpaceRule::Only("smem") => "a shared-memory tile",
                    _ => "a register fragment",
                };
                return self.error(
                    "E0211",
                    arg.span,
                    format!(
                        "`{}` reads {} from {wanted}; this is a {}",
                        mma.atom.display_name(),
                        names[index],
                        tensor.type_name()
                    ),
                    "the wrong memory",
                );
            }
            if space == "smem" && !self.check_gmma_operand(mma, index, arg, tensor) {
                return Value::Unit;
            }
        }
        let mut accumulate = None;
        if let Some(flag) = args.named("accumulate") {
            if !mma.atom.ptx.contains("{scale_d}") {
                return self.error(
                    "E0216",
                    flag.span,
                    format!(
                        "`{}` always adds C: only an atom with a scale-d operand (wgmma) takes `accumulate`",
                        mma.atom.display_name()
                    ),
                    "always accumulates",
                );
            }
            match &flag.value {
                Value::Bool(_) => accumulate = crate::trace::term_of(&flag.value),
                Value::Unknown => return Value::Unit,
                other => {
                    return self.wrong_type(
                        flag.span,
                        other,
                        "`accumulate` is a bool",
                        "not a bool",
                    );
                }
            }
        }
        if let [(_, d), (_, a), (_, b), (_, c)] = tensors.as_slice() {
            self.emit(Effect::Gemm {
                accumulate,
                atom: mma.atom.clone(),
                d: d.clone(),
                a: a.clone(),
                b: b.clone(),
                c: c.clone(),
                span: args.call_span,
            });
        }
        Value::Unit
    }

    /// `tensor.store(vector)`.
    pub(crate) fn store_vector(&mut self, tensor: &Arc<Tensor>, arg: &Arg, span: Span) {
        match &arg.value {
            Value::Vector { dtype, shape, term } => {
                self.emit(match term {
                    Some(term) => Effect::StoreFragment {
                        tensor: tensor.clone(),
                        value: term.clone(),
                        span,
                    },
                    None => Effect::Unsupported("storing this fragment value".to_owned(), arg.span),
                });
                if Some(*dtype) != tensor.dtype {
                    self.report(
                        Diagnostic::error(
                            "E0214",
                            format!("this stores {dtype} values into a {}", tensor.type_name()),
                        )
                        .with_primary(arg.span, format!("{dtype} values"))
                        .with_help(format!("convert first: `.to({})`", tensor.element_name())),
                    );
                } else if shape.product().ok() != tensor.layout.layout.size().ok() {
                    self.report(
                        Diagnostic::error(
                            "E0206",
                            format!(
                                "store: {} values do not fill a tensor of shape {}",
                                shape,
                                tensor.shape()
                            ),
                        )
                        .with_primary(span, "sizes differ"),
                    );
                }
            }
            other => {
                self.wrong_type(
                    arg.span,
                    other,
                    "`store` takes a fragment value (from `.load()`)",
                    "not a fragment value",
                );
            }
        }
    }

    /// A vectorized copy atom needs each thread's values contiguous and aligned to the
    /// vector: the atom's value mode must be `V:1` and every other stride (and the
    /// start) a multiple of `V`. Run-time extents are assumed to be multiples of `V`;
    /// the runtime checks them when it launches the kernel.
    pub(crate) fn check_vector_access(
        &mut self,
        copy: &Arc<TiledCopy>,
        tensor: &Tensor,
        side: Side,
        span: Span,
    ) {
        let Some(dtype) = tensor.dtype else { return };
        let Ok(vector) = copy.copy_atom().values_per_thread() else {
            return;
        };
        if vector <= 1 {
            return;
        }
        let Ok(fragment) = self.thread_value_fragment(copy, &tensor.layout.layout, side) else {
            return;
        };
        let (fragment, offset, swizzle) = match &tensor.layout.codomain {
            Codomain::Offsets => (fragment, Some(tensor.layout.offset.clone()), None),
            Codomain::Coordinates(_) => return,
            Codomain::Swizzled(composed) => {
                let inner = composed.inner().to_symbolic();
                let Ok(physical) = layout::composition(&inner, &fragment) else {
                    return;
                };
                let offset = tensor
                    .layout
                    .offset
                    .as_constant()
                    .and_then(|index| composed.inner().evaluate_index(&index).ok())
                    .map(|offset| SymInt::constant(offset + composed.offset()));
                (physical, offset, Some(composed.swizzle()))
            }
        };
        let bits = vector * dtype.bits();
        let access = format!(
            "`{}` moves {vector} {dtype} ({bits} bits) per thread at once",
            copy.atom.display_name()
        );
        let Ok(values) = fragment
            .mode(1)
            .and_then(|values| values.mode(0))
            .and_then(|values| layout::coalesce(&values))
        else {
            return;
        };
        let contiguous = values.size().ok().and_then(|size| size.as_constant()) == Some(vector)
            && matches!(values.stride(), IntTuple::Int(stride) if stride.as_constant() == Some(1));
        if !contiguous {
            self.report(
                Diagnostic::error("E0210", format!("{access}, but each thread's {vector} values here are not contiguous"))
                    .with_primary(span, format!("values at {values}"))
                    .with_note(format!("the thread's values of one access are laid out {values} in this tensor; a vector access needs {vector}:1"))
                    .with_help("partition along the tensor's stride-1 mode, or use a narrower atom (`BITS = ...`)"),
            );
            return;
        }
        if let Some(swizzle) = swizzle
            && !swizzle.is_identity()
            && (1i64 << swizzle.base()) < vector
        {
            self.report(
                Diagnostic::error("E0210", format!("{access}, but the swizzle {swizzle} moves groups of {} elements, splitting the vector", 1i64 << swizzle.base()))
                    .with_primary(span, "swizzle breaks the vector")
                    .with_help(format!("use a swizzle whose base (M) is at least log2({vector})")),
            );
            return;
        }
        let assumed = |name: &str| self.is_extent_variable(name);
        let multiple = |value: &SymInt| {
            let divisor = value.provable_divisor(&assumed);
            divisor == 0 || divisor.is_multiple_of(vector.unsigned_abs())
        };
        let mut misaligned = None;
        for (index, mode) in fragment.modes().iter().enumerate() {
            let submodes = if index == 1 {
                mode.modes().into_iter().skip(1).collect()
            } else {
                vec![mode.clone()]
            };
            for submode in submodes {
                for (extent, stride) in submode
                    .shape()
                    .leaves()
                    .iter()
                    .zip(submode.stride().leaves())
                {
                    if !extent.is_static(1) && !multiple(&stride) {
                        misaligned.get_or_insert(format!("stride {stride}"));
                    }
                }
            }
        }
        if let Some(offset) = &offset
            && !multiple(offset)
        {
            misaligned.get_or_insert(format!("start offset {offset}"));
        }
        if let Some(culprit) = misaligned {
            self.report(
                Diagnostic::error("E0210", format!("{access}, but the {culprit} is not a multiple of {vector}, so some accesses are not {}-byte aligned", bits / 8))
                    .with_primary(span, format!("{culprit} breaks the alignment"))
                    .with_note(format!("thread, value and repeat modes of this partition: {fragment}")),
            );
        }
    }

    /// Rejects a kernel whose shared memory exceeds the target's per-block limit.
    /// `requested` is `smem(N)`'s byte count: the block is launched with N bytes,
    /// which must hold the buffers and fit the target's limit.
    pub(crate) fn check_shared_budget(
        &mut self,
        kernel: &Kernel,
        buffers: &[SharedBuffer],
        requested: Option<i64>,
    ) {
        let mut seen = rustc_hash::FxHashSet::default();
        let buffers: Vec<&SharedBuffer> = buffers
            .iter()
            .filter(|buffer| seen.insert(buffer.span))
            .collect();
        let total: i64 = buffers.iter().map(|buffer| buffer.bytes).sum();
        let limit = self.target.shared_memory_limit();
        let smem_span = (kernel.launch.iter())
            .find(|part| part.kind == lang::ast::LaunchKind::Smem)
            .map(|part| part.span);
        if let (Some(bytes), Some(span)) = (requested, smem_span) {
            if bytes > limit {
                self.error(
                    "E0207",
                    span,
                    format!(
                        "kernel `{}` asks for {bytes} bytes ({}) of shared memory, over the {} a block may have on {}",
                        kernel.name.text,
                        kib(bytes),
                        kib(limit),
                        self.target
                    ),
                    "over the target's limit",
                );
                return;
            }
            if total > bytes {
                self.error(
                    "E0207",
                    span,
                    format!(
                        "kernel `{}`'s shared buffers take {total} bytes ({}), more than the {bytes} bytes of `smem({bytes})`",
                        kernel.name.text,
                        kib(total),
                    ),
                    "too little for the buffers",
                );
                return;
            }
        }
        if total <= limit {
            return;
        }
        let mut diagnostic = Diagnostic::error(
            "E0207",
            format!(
                "kernel `{}` uses {} of shared memory, over the {} a block may have on {}",
                kernel.name.text,
                kib(total),
                kib(limit),
                self.target
            ),
        )
        .with_primary(
            kernel.name.span,
            format!("{} in {} buffer(s)", kib(total), buffers.len()),
        );
        for buffer in &buffers {
            diagnostic = diagnostic.with_secondary(
                buffer.span,
                format!("{}: {}", buffer.name, kib(buffer.bytes)),
            );
            diagnostic = diagnostic.with_note(format!(
                "{}: {} bytes ({})",
                buffer.name,
                buffer.bytes,
                kib(buffer.bytes)
            ));
        }
        self.report(diagnostic.with_help("use fewer pipeline stages or smaller tiles, or build for a target with more shared memory"));
    }
}

/// Bytes as KiB with one decimal.
pub(crate) fn kib(bytes: i64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let kib = bytes as f64 / 1024.0;
    format!("{kib:.1} KiB")
}
