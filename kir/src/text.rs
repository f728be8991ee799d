//! The text form of KIR (`cukc build --emit kir`): the signature, then one
//! instruction a line, each with the source line it came from; a region is a braced
//! block, indented, ending in `yield` with the values it hands on. [`crate::from_text`]
//! reads it back.

use std::fmt::Write;

use crate::intrinsic::{Intrinsic, RoleKind, Scope};
use crate::ir::{CmpOp, Inst, Kernel, Narrow, Op, Special, ValueId};
use crate::signature::ElementRule;

/// `kernel` as text; `line_of` turns a byte offset into a 1-based source line.
pub fn to_text(kernel: &Kernel, line_of: &dyn Fn(u32) -> u32) -> String {
    let signature = &kernel.signature;
    let mut out = String::new();
    let header = format!("kernel {} {{", signature.entry);
    let _ = writeln!(out, "{header:<58} ; line {}", line_of(kernel.span.start));
    if signature.name != signature.entry {
        let _ = writeln!(out, "  instance of {}", signature.name);
    }
    for (name, value) in &signature.const_args {
        let _ = writeln!(out, "  const {name} = {value}");
    }
    for (index, param) in signature.params.iter().enumerate() {
        let _ = writeln!(out, "  param {index} {}: {}", param.name, param.kind);
    }
    let launch = &signature.launch;
    let dims = |dims: &[crate::HostExpr; 3]| {
        dims.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let cluster = if launch.cluster == [1, 1, 1] {
        String::new()
    } else {
        let [x, y, z] = launch.cluster;
        format!(" cluster({x}, {y}, {z})")
    };
    let _ = writeln!(
        out,
        "  launch grid({}) block({}){cluster} smem({} bytes)",
        dims(&launch.grid),
        dims(&launch.block),
        launch.shared_bytes
    );
    for assumption in &signature.assumptions {
        let _ = writeln!(
            out,
            "  assume %{} is a multiple of {}: {}",
            assumption.param, assumption.multiple, assumption.reason
        );
    }
    for alignment in &signature.alignments {
        let _ = writeln!(
            out,
            "  assume %{} is aligned to {} bytes: {}",
            alignment.param, alignment.bytes, alignment.reason
        );
    }
    for requirement in &signature.element_requirements {
        let rule = match &requirement.rule {
            ElementRule::Range { low, high } => format!("elements in {low}..{high}"),
            ElementRule::Offsets {
                total,
                max_step: None,
            } => format!("offsets to {total}"),
            ElementRule::Offsets {
                total,
                max_step: Some(max_step),
            } => format!("offsets to {total} steps at most {max_step}"),
        };
        let _ = writeln!(
            out,
            "{:<58} ; line {}",
            format!("  assume %{} {rule}", requirement.param),
            line_of(requirement.span.start)
        );
    }
    instructions(&mut out, kernel, &kernel.body, 1, line_of);
    out.push_str("}\n");
    out
}

fn instructions(
    out: &mut String,
    kernel: &Kernel,
    body: &[Inst],
    depth: usize,
    line_of: &dyn Fn(u32) -> u32,
) {
    let indent = "  ".repeat(depth);
    for inst in body {
        let text = format!("{indent}{}", instruction(kernel, inst));
        let _ = writeln!(out, "{text:<58} ; line {}", line_of(inst.span.start));
        let regions = inst.op.regions();
        for (index, region) in regions.iter().enumerate() {
            instructions(out, kernel, &region.body, depth + 1, line_of);
            let condition = match &inst.op {
                Op::Loop { condition, .. } => format!(" while %{}", condition.0),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "{indent}  yield{}{condition}",
                values(&region.yields, " ")
            );
            let close = if index + 1 < regions.len() {
                " else {"
            } else {
                ""
            };
            let _ = writeln!(out, "{indent}}}{close}");
        }
    }
}

/// `%1, %2` after `lead`, or nothing.
fn values(values: &[ValueId], lead: &str) -> String {
    if values.is_empty() {
        return String::new();
    }
    let names: Vec<String> = values.iter().map(|value| format!("%{}", value.0)).collect();
    format!("{lead}{}", names.join(", "))
}

/// `carry(%4:f32 = %2, ...)` for a region's carried parameters, or nothing.
fn carry(kernel: &Kernel, params: &[ValueId], inits: &[ValueId]) -> String {
    if params.is_empty() {
        return String::new();
    }
    let pairs: Vec<String> = params
        .iter()
        .zip(inits)
        .map(|(param, init)| format!("%{}:{} = %{}", param.0, kernel.ty(*param).name(), init.0))
        .collect();
    format!(" carry({})", pairs.join(", "))
}

fn uniformity(uniform: bool) -> &'static str {
    if uniform { " uniform" } else { "" }
}

/// The header of a region instruction, up to its opening brace.
fn region_header(kernel: &Kernel, op: &Op) -> Option<String> {
    let text = match op {
        Op::For {
            start,
            end,
            inits,
            body,
            uniform,
        } => {
            let counter = body.params.first().map_or("%?".to_owned(), |counter| {
                format!("%{}:{}", counter.0, kernel.ty(*counter).name())
            });
            let carried = carry(kernel, body.params.get(1..).unwrap_or_default(), inits);
            format!(
                "for {counter} in %{}..%{}{carried}{}",
                start.0,
                end.0,
                uniformity(*uniform)
            )
        }
        Op::If {
            condition, uniform, ..
        } => format!("if %{}{}", condition.0, uniformity(*uniform)),
        Op::Loop {
            inits,
            body,
            uniform,
            ..
        } => format!(
            "loop{}{}",
            carry(kernel, &body.params, inits),
            uniformity(*uniform)
        ),
        _ => return None,
    };
    Some(format!("{text} {{"))
}

/// `.s8`, `.u16`, ... after a narrow access's space.
fn narrow_suffix(narrow: Option<Narrow>) -> String {
    narrow.map_or(String::new(), |narrow| format!(".{}", narrow.name()))
}

fn instruction(kernel: &Kernel, inst: &Inst) -> String {
    let results = inst
        .results
        .iter()
        .map(|value| format!("%{}:{}", value.0, kernel.ty(*value).name()))
        .collect::<Vec<_>>()
        .join(", ");
    let v = |value: &ValueId| format!("%{}", value.0);
    let predicated = |predicate: &Option<ValueId>| {
        predicate.map_or(String::new(), |predicate| format!(" if %{}", predicate.0))
    };
    let op = match &inst.op {
        Op::ConstInt(value) => format!("const {value}"),
        Op::ConstFloat(value) => format!("const {value:?}"),
        Op::Param(index) => format!("param {index}"),
        Op::Special(special) => match special {
            Special::ThreadIndex(d) => format!("thread_idx.{}", axis(*d)),
            Special::BlockIndex(d) => format!("block_idx.{}", axis(*d)),
            Special::BlockDim(d) => format!("block_dim.{}", axis(*d)),
            Special::GridDim(d) => format!("grid_dim.{}", axis(*d)),
            Special::ClusterIndex(d) => format!("cluster_idx.{}", axis(*d)),
            Special::BlockInCluster(d) => format!("block_idx_in_cluster.{}", axis(*d)),
            Special::BlockRankInCluster => "block_rank_in_cluster".to_owned(),
        },
        Op::SharedBase => "shared_base".to_owned(),
        Op::Unary(op, a) => format!("{} {}", op.name(), v(a)),
        Op::Binary(op, a, b) => format!("{} {}, {}", op.name(), v(a), v(b)),
        Op::Compare(op, a, b) => format!("cmp.{} {}, {}", compare_name(*op), v(a), v(b)),
        Op::Select(c, a, b) => format!("select {}, {}, {}", v(c), v(a), v(b)),
        Op::Fma(a, b, c) => format!("fma {}, {}, {}", v(a), v(b), v(c)),
        Op::Convert(a) => format!("convert {}", v(a)),
        Op::Pack(a, b) => format!("pack {}, {}", v(a), v(b)),
        Op::Unpack(a) => format!("unpack {}", v(a)),
        Op::Load {
            space,
            address,
            offset,
            narrow,
            predicate,
        } => format!(
            "load.{}{} [{}+{offset}]{}",
            space.name(),
            narrow_suffix(*narrow),
            v(address),
            predicated(predicate)
        ),
        Op::Store {
            space,
            address,
            offset,
            narrow,
            values,
            predicate,
        } => format!(
            "store.{}{} [{}+{offset}], {}{}",
            space.name(),
            narrow_suffix(*narrow),
            v(address),
            values.iter().map(v).collect::<Vec<_>>().join(", "),
            predicated(predicate)
        ),
        Op::Atom {
            template,
            operands,
            registers,
            output,
            warp,
            predicate,
            scope,
        } => {
            let lists = registers.iter().map(|(name, values)| {
                let values: Vec<String> = values.iter().map(v).collect();
                format!("{name}=[{}]", values.join(", "))
            });
            let parts: Vec<String> = operands
                .iter()
                .map(|(name, value, offset)| format!("{name}={}+{offset}", v(value)))
                .chain(lists)
                .collect();
            let output = output
                .as_ref()
                .map_or(String::new(), |name| format!(" -> {name}"));
            let warp = warp
                .as_ref()
                .map_or(String::new(), |warp| format!(" warp {warp}"));
            let scope = match scope {
                Scope::Thread => String::new(),
                scope => format!(".{}", scope.name()),
            };
            format!(
                "atom{scope} {template:?} {}{output}{warp}{}",
                parts.join(", "),
                predicated(predicate)
            )
        }
        Op::Intrinsic {
            intrinsic,
            operands,
        } => intrinsic_text(intrinsic, operands),
        Op::Print { format, args } => {
            let args: String = args.iter().map(|arg| format!(", {}", v(arg))).collect();
            format!("print {:?}{args}", format.source())
        }
        Op::Barrier => "barrier".to_owned(),
        Op::WarpBarrier => "warp_barrier".to_owned(),
        Op::CpAsyncCommit => "cp_async_commit".to_owned(),
        Op::CpAsyncWait(groups) => format!("cp_async_wait {groups}"),
        Op::Shuffle { mode, value, lane } => {
            format!("shuffle.{} {}, {}", mode.name(), v(value), v(lane))
        }
        Op::Atomic {
            op,
            space,
            address,
            offset,
            value,
        } => format!(
            "atomic.{}.{} [{}+{offset}], {}",
            op.name(),
            space.name(),
            v(address),
            v(value)
        ),
        Op::For { .. } | Op::If { .. } | Op::Loop { .. } => {
            region_header(kernel, &inst.op).unwrap_or_default()
        }
    };
    if results.is_empty() {
        op
    } else {
        format!("{results} = {op}")
    }
}

/// `name number=N ... operands`, from the intrinsic's row: an operand is `[%3+8]` where
/// its role is an address (or it has an offset, which only the verifier refuses), else
/// `%3`.
fn intrinsic_text(intrinsic: &Intrinsic, operands: &[(ValueId, i64)]) -> String {
    let roles = (0..).map(|index| intrinsic.role(index).map(|role| role.kind));
    let operands: Vec<String> = (operands.iter().zip(roles))
        .map(|((value, offset), role)| match role {
            Some(RoleKind::Value(_) | RoleKind::Word) | None if *offset == 0 => {
                format!("%{}", value.0)
            }
            _ => format!("[%{}+{offset}]", value.0),
        })
        .collect();
    match operands.is_empty() {
        true => intrinsic.heading(),
        false => format!("{} {}", intrinsic.heading(), operands.join(", ")),
    }
}

fn axis(dimension: u8) -> char {
    match dimension {
        0 => 'x',
        1 => 'y',
        _ => 'z',
    }
}

/// The text (and PTX) name of a comparison.
pub fn compare_name(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "eq",
        CmpOp::Ne => "ne",
        CmpOp::Lt => "lt",
        CmpOp::Le => "le",
        CmpOp::Gt => "gt",
        CmpOp::Ge => "ge",
    }
}
