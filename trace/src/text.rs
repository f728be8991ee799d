//! The text form of a trace (`cukc build --emit trace`): the residual program the
//! checker leaves for the GPU, one effect a line with its source line, regions
//! indented. Tensors print as their memory and evaluated layout (`param 2 (4):(1) @
//! offset 8`), run-time values as the variables, loads and cells that hold them.

mod blackwell;

use std::fmt::Write;

use cute::{Base, Tensor};

use crate::{Atomic, Effect, KernelTrace, Mbarrier, Shuffle, Term, TraceParamKind};

/// `trace` as text; `line_of` turns a byte offset into a 1-based source line.
pub fn to_text(trace: &KernelTrace, line_of: &dyn Fn(u32) -> u32) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "trace {} {{", trace.name);
    for (name, value) in &trace.const_args {
        let value = match value {
            Some(crate::ConstArg::Int(value)) => value.to_string(),
            Some(crate::ConstArg::Dtype(dtype)) => dtype.to_string(),
            None => "?".to_owned(),
        };
        let _ = writeln!(out, "  const {name} = {value}");
    }
    for (index, param) in trace.params.iter().enumerate() {
        let kind = match &param.kind {
            TraceParamKind::Int(dtype, variable) => format!("{dtype} `{variable}`"),
            TraceParamKind::Scalar(dtype) => dtype.to_string(),
            TraceParamKind::Tensor(dtype, layout) => format!("gmem {dtype} {layout}"),
            TraceParamKind::TensorMap {
                tensor,
                modes,
                box_shape,
                swizzle,
            } => format!(
                "tensor map of param {tensor} modes {modes:?} box {box_shape:?} swizzle {swizzle}"
            ),
            TraceParamKind::Unknown => "?".to_owned(),
        };
        let _ = writeln!(out, "  param {index} {}: {kind}", param.name);
    }
    let extents = |extents: &[layout::SymInt]| {
        let texts: Vec<String> = extents.iter().map(ToString::to_string).collect();
        texts.join(", ")
    };
    let cluster = if trace.cluster == [1, 1, 1] {
        String::new()
    } else {
        let [x, y, z] = trace.cluster;
        format!(" cluster({x}, {y}, {z})")
    };
    let _ = writeln!(
        out,
        "  grid({}) block({}){cluster}",
        extents(&trace.grid),
        extents(&trace.block)
    );
    for (index, buffer) in trace.shared.iter().enumerate() {
        let _ = writeln!(
            out,
            "  shared {index} {}: {} bytes",
            buffer.name, buffer.bytes
        );
    }
    effects(&mut out, &trace.effects, 1, line_of);
    out.push_str("}\n");
    out
}

fn effects(out: &mut String, list: &[Effect], depth: usize, line_of: &dyn Fn(u32) -> u32) {
    let indent = "  ".repeat(depth);
    for effect in list {
        let line = line_of(crate::effect_span(effect).start);
        let text = format!("{indent}{}", header(effect));
        let _ = writeln!(out, "{text:<58} ; line {line}");
        let close = |out: &mut String, tail: &str| {
            let _ = writeln!(out, "{indent}}}{tail}");
        };
        match effect {
            Effect::For { body, .. } => {
                effects(out, body, depth + 1, line_of);
                close(out, "");
            }
            Effect::Loop {
                body, condition, ..
            } => {
                effects(out, body, depth + 1, line_of);
                close(out, &format!(" while {}", term(condition)));
            }
            Effect::If {
                then, otherwise, ..
            } => {
                effects(out, then, depth + 1, line_of);
                if otherwise.is_empty() {
                    close(out, "");
                } else {
                    close(out, " else {");
                    effects(out, otherwise, depth + 1, line_of);
                    close(out, "");
                }
            }
            _ => {}
        }
    }
}

/// An effect's line (a region's up to its opening brace).
fn header(effect: &Effect) -> String {
    match effect {
        Effect::Copy {
            atom,
            source,
            destination,
            predicate,
            ..
        } => {
            let atom = atom
                .as_ref()
                .map_or("element by element".to_owned(), |atom| atom.display_name());
            let guard = predicate
                .as_ref()
                .map_or(String::new(), |mask| format!(" if {}", tensor(mask)));
            format!(
                "copy {} -> {} with {atom}{guard}",
                tensor(source),
                tensor(destination)
            )
        }
        Effect::Load {
            id,
            tensor: loaded,
            index,
            variable,
            guard,
            ..
        } => {
            let place = match index {
                Some(index) => format!("{}[{index}]", tensor(loaded)),
                None => format!("{}.load()", tensor(loaded)),
            };
            let name = variable
                .as_ref()
                .map_or(String::new(), |variable| format!(" `{variable}`"));
            let guard = guard
                .as_ref()
                .map_or(String::new(), |guard| format!(" where {}", term(guard)));
            format!("load#{}{name} = {place}{guard}", id.0)
        }
        Effect::StoreElement {
            tensor: stored,
            index,
            value,
            ..
        } => format!("{}[{index}] = {}", tensor(stored), term(value)),
        Effect::StoreFragment {
            tensor: stored,
            value,
            ..
        } => format!("{}.store({})", tensor(stored), term(value)),
        Effect::Barrier(_) => "syncthreads()".to_owned(),
        Effect::WarpBarrier(_) => "syncwarp()".to_owned(),
        Effect::CpAsyncCommit(_) => "cp_async_commit_group()".to_owned(),
        Effect::CpAsyncWait(groups, _) => format!("cp_async_wait_group({groups})"),
        Effect::Registers(fragment, _) => format!("registers #{fragment}"),
        Effect::Define {
            variable, value, ..
        } => format!("`{variable}` = {}", term(value)),
        Effect::WriteCell {
            cell, dtype, value, ..
        } => format!("cell#{}: {dtype} = {}", cell.0, term(value)),
        Effect::ReadCell { cell, variable, .. } => format!("`{variable}` = cell#{}", cell.0),
        Effect::For {
            counter,
            start,
            end,
            ..
        } => format!("for `{counter}` in {start}..{end} {{"),
        Effect::If { condition, .. } => format!("if {} {{", term(condition)),
        Effect::Loop { .. } => "loop {".to_owned(),
        Effect::Gemm {
            atom,
            d,
            a,
            b,
            c,
            accumulate,
            ..
        } => format!(
            "gemm {} -> {} with {} ({}, {}){}",
            tensor(c),
            tensor(d),
            atom.display_name(),
            tensor(a),
            tensor(b),
            accumulate
                .as_ref()
                .map_or(String::new(), |flag| format!(" accumulate {}", term(flag)))
        ),
        Effect::Shuffle {
            mode,
            value,
            lane,
            variable,
            ..
        } => {
            let name = match mode {
                Shuffle::Up => "shfl_up",
                Shuffle::Down => "shfl_down",
                Shuffle::Xor => "shfl_xor",
                Shuffle::Index => "shfl_idx",
            };
            format!("`{variable}` = {name}({}, {})", term(value), term(lane))
        }
        Effect::Elect { variable, .. } => format!("`{variable}` = elect_one()"),
        Effect::Atomic {
            op,
            tensor: target,
            index,
            value,
            old,
            ..
        } => {
            let name = match op {
                Atomic::Add => "add",
                Atomic::Max => "max",
                Atomic::Min => "min",
            };
            let old = old
                .as_ref()
                .map_or(String::new(), |old| format!("`{old}` = "));
            format!(
                "{old}atomic_{name}({}[{index}], {})",
                tensor(target),
                term(value)
            )
        }
        Effect::OnElement {
            intrinsic,
            tensor: target,
            index,
            value,
            result,
            ..
        } => {
            let result = (result.as_ref()).map_or(String::new(), |result| format!("`{result}` = "));
            let value = value
                .as_ref()
                .map_or(String::new(), |value| format!(", {}", term(value)));
            format!(
                "{result}{}({}[{index}]{value})",
                intrinsic.heading(),
                tensor(target)
            )
        }
        Effect::Mbarrier {
            action,
            tensor: barriers,
            index,
            operand,
            ..
        } => {
            let name = match action {
                Mbarrier::Init => "init",
                Mbarrier::Arrive => "arrive",
                Mbarrier::ArriveCluster => "arrive_cluster",
                Mbarrier::ArriveExpectTx => "arrive_expect_tx",
                Mbarrier::Wait => "wait",
                Mbarrier::Tcgen05Commit { pair } => {
                    return blackwell::commit((barriers, index), operand.as_deref(), *pair);
                }
            };
            let operand = operand
                .as_ref()
                .map_or(String::new(), |operand| format!(", {}", term(operand)));
            format!("mbarrier_{name}({}[{index}]{operand})", tensor(barriers))
        }
        Effect::NamedBarrier {
            arrive,
            id,
            threads,
            ..
        } => {
            let way = if *arrive { "arrive" } else { "sync" };
            format!("named_barrier_{way}({}, {threads})", term(id))
        }
        Effect::Intrinsic(intrinsic, _) => intrinsic.heading(),
        Effect::Print { format, values, .. } => {
            let values: String = (values.iter())
                .map(|(value, element)| match value.as_ref() {
                    Term::Loaded(_) => format!(", {}[{element}]", term(value)),
                    _ => format!(", {}", term(value)),
                })
                .collect();
            format!("print({:?}{values})", format.source())
        }
        Effect::Tcgen05Mma { .. } | Effect::TmemCopy { .. } | Effect::Tmem { .. } => {
            blackwell::header(effect)
        }
        Effect::TmaLoad {
            map,
            coords,
            destination,
            barriers,
            barrier,
            multicast,
            pair,
            ..
        } => {
            let coords: Vec<String> = coords.iter().map(ToString::to_string).collect();
            let multicast = multicast
                .as_ref()
                .map_or(String::new(), |mask| format!(", multicast {}", term(mask)));
            let pair = blackwell::pair_text(*pair);
            format!(
                "tma_load(param {map}, ({}) -> {}, {}[{barrier}]{multicast}{pair})",
                coords.join(", "),
                tensor(destination),
                tensor(barriers)
            )
        }
        Effect::TmaPrefetch { map, .. } => format!("prefetch_tma(param {map})"),
        Effect::TmaStore {
            map,
            coords,
            source,
            add,
            ..
        } => {
            let coords: Vec<String> = coords.iter().map(ToString::to_string).collect();
            let name = if *add { "tma_reduce_add" } else { "tma_store" };
            format!(
                "{name}(param {map}, {} -> ({}))",
                tensor(source),
                coords.join(", ")
            )
        }
        Effect::Unsupported(what, _) => format!("unsupported: {what}"),
    }
}

/// A tensor as its memory and layout.
fn tensor(tensor: &Tensor) -> String {
    let memory = match tensor.base {
        Base::Param(index) => format!("param {index}"),
        Base::Shared(index) => format!("shared {index}"),
        Base::Registers(fragment) => format!("registers #{fragment}"),
        Base::Coordinates => "coordinates".to_owned(),
        Base::Unknown => "memory ?".to_owned(),
        Base::Peer { param, entry } => format!("param {param} of peer #{entry}"),
        Base::Cluster { buffer, entry } => {
            format!("shared buffer {buffer} of cluster block #{entry}")
        }
    };
    format!("{memory} {}", tensor.layout)
}

/// A run-time value as an expression.
pub(crate) fn term(term: &Term) -> String {
    match term {
        Term::Int(value, dtype) => format!("{value}:{dtype}"),
        Term::Float(value, dtype) => format!("{value:?}:{dtype}"),
        Term::Bool(value) => value.to_string(),
        Term::Param(index, dtype) => format!("param {index}:{dtype}"),
        Term::Loaded(id) => format!("load#{}", id.0),
        Term::Variable(name, _) => format!("`{name}`"),
        Term::Unary(op, operand) => format!("{}{}", op.symbol(), self::term(operand)),
        Term::Binary {
            op, left, right, ..
        } => format!(
            "({} {} {})",
            self::term(left),
            op.symbol(),
            self::term(right)
        ),
        Term::Convert(dtype, operand) => format!("{}.to({dtype})", self::term(operand)),
        Term::Math {
            function, operands, ..
        } => {
            let operands: Vec<String> =
                operands.iter().map(|operand| self::term(operand)).collect();
            format!(
                "{}({})",
                format!("{function:?}").to_lowercase(),
                operands.join(", ")
            )
        }
    }
}
