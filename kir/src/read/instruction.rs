//! Reading one instruction line back (`%3:f32 = add %1, %2 ; line 7`), and for a
//! region instruction (`for`, `if`, `loop`) its header and then its regions' lines.

use super::ReadError;
use super::cursor::Cursor;
use super::warp::warp_atom;
use super::{Reader, line_span};
use crate::format::Format;
use crate::intrinsic::{Intrinsic, Row, Scope};
use crate::ir::{
    AtomicOp, BinOp, CmpOp, Inst, Narrow, Op, ShuffleMode, Space, Special, UnOp, ValueId,
};
use crate::text::compare_name;

const COMPARE: [CmpOp; 6] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
];

impl Reader<'_> {
    /// The instruction on `cursor`'s line (and, for a region instruction, the lines
    /// of its regions), at nesting `depth`.
    pub(super) fn instruction(
        &mut self,
        mut cursor: Cursor<'_>,
        depth: usize,
    ) -> Result<Inst, ReadError> {
        let mut results = Vec::new();
        if cursor.peek("%") {
            loop {
                let (value, ty) = cursor.typed_value()?;
                self.define(&cursor, value, ty)?;
                results.push(value);
                if !cursor.eat(",") {
                    break;
                }
            }
            cursor.expect("=")?;
        }
        let word = cursor.word("an operation")?;
        let op = match word {
            "for" => {
                let (counter, ty) = cursor.typed_value()?;
                self.define(&cursor, counter, ty)?;
                if !cursor.eat_word("in") {
                    return Err(cursor.expected("`in`"));
                }
                let start = cursor.value()?;
                cursor.expect("..")?;
                let end = cursor.value()?;
                let (params, inits) = self.carried(&mut cursor)?;
                let uniform = header_end(&mut cursor)?;
                let span = line_span(&mut cursor)?;
                let (mut body, _) = self.region(depth, false)?;
                self.close(false)?;
                body.params = std::iter::once(counter).chain(params).collect();
                return Ok(Inst {
                    op: Op::For {
                        start,
                        end,
                        inits,
                        body,
                        uniform,
                    },
                    results,
                    span,
                });
            }
            "if" => {
                let condition = cursor.value()?;
                let uniform = header_end(&mut cursor)?;
                let span = line_span(&mut cursor)?;
                let (then, _) = self.region(depth, false)?;
                self.close(true)?;
                let (otherwise, _) = self.region(depth, false)?;
                self.close(false)?;
                let op = Op::If {
                    condition,
                    then,
                    otherwise,
                    uniform,
                };
                return Ok(Inst { op, results, span });
            }
            "loop" => {
                let (params, inits) = self.carried(&mut cursor)?;
                let uniform = header_end(&mut cursor)?;
                let span = line_span(&mut cursor)?;
                let (mut body, condition) = self.region(depth, true)?;
                self.close(false)?;
                let condition = condition.ok_or_else(|| cursor.error("a loop needs `while`"))?;
                body.params = params;
                let op = Op::Loop {
                    inits,
                    body,
                    condition,
                    uniform,
                };
                return Ok(Inst { op, results, span });
            }
            word => operation(&mut cursor, word)?,
        };
        let span = line_span(&mut cursor)?;
        Ok(Inst { op, results, span })
    }

    /// ` carry(%4:f32 = %2, ...)`, or nothing: the parameters (defined here) and their
    /// initial values.
    fn carried(
        &mut self,
        cursor: &mut Cursor<'_>,
    ) -> Result<(Vec<ValueId>, Vec<ValueId>), ReadError> {
        let (mut params, mut inits) = (Vec::new(), Vec::new());
        if !cursor.eat("carry(") {
            return Ok((params, inits));
        }
        loop {
            let (param, ty) = cursor.typed_value()?;
            self.define(cursor, param, ty)?;
            cursor.expect("=")?;
            params.push(param);
            inits.push(cursor.value()?);
            if cursor.eat(")") {
                return Ok((params, inits));
            }
            cursor.expect(",")?;
        }
    }
}

/// ` uniform {` or ` {` ending a region instruction's header: whether it is uniform.
fn header_end(cursor: &mut Cursor<'_>) -> Result<bool, ReadError> {
    let uniform = cursor.eat_word("uniform");
    cursor.expect("{")?;
    Ok(uniform)
}

/// An instruction without regions, named by `word`.
fn operation(cursor: &mut Cursor<'_>, word: &str) -> Result<Op, ReadError> {
    if let Some(row) = Intrinsic::row_named(word) {
        return intrinsic(cursor, row);
    }
    let (head, tail) = word.split_once('.').unwrap_or((word, ""));
    let unknown = || cursor.error(format!("`{word}` is not an operation"));
    let takes_suffix = matches!(
        head,
        "thread_idx"
            | "block_idx"
            | "block_dim"
            | "grid_dim"
            | "cluster_idx"
            | "block_idx_in_cluster"
            | "cmp"
            | "load"
            | "store"
    ) || matches!(head, "shuffle" | "atomic");
    // An atom's suffix, its scope, is optional.
    if tail.is_empty() == takes_suffix && head != "atom" {
        return Err(unknown());
    }
    let op = match head {
        "const" => {
            let number = cursor.number()?;
            if let Ok(integer) = number.parse::<i64>() {
                Op::ConstInt(integer)
            } else {
                let float = number
                    .parse::<f64>()
                    .map_err(|_| cursor.error(format!("`{number}` is not a number")))?;
                Op::ConstFloat(float)
            }
        }
        "param" => Op::Param(cursor.integer("a parameter index")?),
        "thread_idx"
        | "block_idx"
        | "block_dim"
        | "grid_dim"
        | "cluster_idx"
        | "block_idx_in_cluster" => {
            let axis = match tail {
                "x" => 0,
                "y" => 1,
                "z" => 2,
                _ => return Err(unknown()),
            };
            Op::Special(match head {
                "thread_idx" => Special::ThreadIndex(axis),
                "block_idx" => Special::BlockIndex(axis),
                "block_dim" => Special::BlockDim(axis),
                "grid_dim" => Special::GridDim(axis),
                "cluster_idx" => Special::ClusterIndex(axis),
                _ => Special::BlockInCluster(axis),
            })
        }
        "block_rank_in_cluster" => Op::Special(Special::BlockRankInCluster),
        "shared_base" => Op::SharedBase,
        "cmp" => {
            let op = COMPARE
                .into_iter()
                .find(|op| compare_name(*op) == tail)
                .ok_or_else(unknown)?;
            let (a, b) = pair(cursor)?;
            Op::Compare(op, a, b)
        }
        "select" => {
            let condition = cursor.value()?;
            cursor.expect(",")?;
            let (a, b) = pair(cursor)?;
            Op::Select(condition, a, b)
        }
        "fma" => {
            let (a, b) = pair(cursor)?;
            cursor.expect(",")?;
            Op::Fma(a, b, cursor.value()?)
        }
        "convert" => Op::Convert(cursor.value()?),
        "pack" => {
            let (a, b) = pair(cursor)?;
            Op::Pack(a, b)
        }
        "unpack" => Op::Unpack(cursor.value()?),
        "load" => {
            let (space, narrow) = access(tail).ok_or_else(unknown)?;
            let (address, offset) = address(cursor)?;
            let predicate = predicate(cursor)?;
            Op::Load {
                space,
                address,
                offset,
                narrow,
                predicate,
            }
        }
        "store" => {
            let (space, narrow) = access(tail).ok_or_else(unknown)?;
            let (address, offset) = address(cursor)?;
            cursor.expect(",")?;
            let values = cursor.values()?;
            let predicate = predicate(cursor)?;
            Op::Store {
                space,
                address,
                offset,
                narrow,
                values,
                predicate,
            }
        }
        "atom" => atom(cursor, atom_scope(tail).ok_or_else(unknown)?)?,
        "print" => {
            let text = cursor.string()?;
            let format = Format::parse(&text)
                .map_err(|error| cursor.error(format!("a bad format: {}", error.problem)))?;
            let mut args = Vec::new();
            while cursor.eat(",") {
                args.push(cursor.value()?);
            }
            Op::Print { format, args }
        }
        "barrier" => Op::Barrier,
        "warp_barrier" => Op::WarpBarrier,
        "cp_async_commit" => Op::CpAsyncCommit,
        "cp_async_wait" => Op::CpAsyncWait(cursor.integer("a group count")?),
        "shuffle" => {
            let modes = [
                ShuffleMode::Up,
                ShuffleMode::Down,
                ShuffleMode::Xor,
                ShuffleMode::Index,
            ];
            let mode = modes
                .into_iter()
                .find(|mode| mode.name() == tail)
                .ok_or_else(unknown)?;
            let (value, lane) = pair(cursor)?;
            Op::Shuffle { mode, value, lane }
        }
        "atomic" => {
            let (name, space_name) = tail.split_once('.').ok_or_else(unknown)?;
            let op = [AtomicOp::Add, AtomicOp::Max, AtomicOp::Min]
                .into_iter()
                .find(|op| op.name() == name)
                .ok_or_else(unknown)?;
            let space = space(space_name).ok_or_else(unknown)?;
            let (address, offset) = address(cursor)?;
            cursor.expect(",")?;
            let value = cursor.value()?;
            Op::Atomic {
                op,
                space,
                address,
                offset,
                value,
            }
        }
        _ => {
            if let Some(op) = UnOp::named(head) {
                Op::Unary(op, cursor.value()?)
            } else if let Some(op) = BinOp::named(head) {
                let (a, b) = pair(cursor)?;
                Op::Binary(op, a, b)
            } else {
                return Err(unknown());
            }
        }
    };
    Ok(op)
}

/// The scope an atom's name gives: `atom` a thread's, `atom.warp` or
/// `atom.warpgroup`.
fn atom_scope(tail: &str) -> Option<Scope> {
    [Scope::Thread, Scope::Warp, Scope::Warpgroup]
        .into_iter()
        .find(|scope| match scope {
            Scope::Thread => tail.is_empty(),
            scope => tail == scope.name(),
        })
}

/// `atom[.warp|.warpgroup] "template" name=%v+offset, list=[%a, %b], ... [-> output]
/// [warp ...] [if %p]`.
fn atom(cursor: &mut Cursor<'_>, scope: Scope) -> Result<Op, ReadError> {
    let template = cursor.string()?;
    let mut operands = Vec::new();
    let mut registers = Vec::new();
    let stops = [";", "if ", "->", "warp "];
    while !cursor.at_end() && !stops.iter().any(|stop| cursor.peek(stop)) {
        let name = cursor.word("an operand's name")?.to_owned();
        cursor.expect("=")?;
        if cursor.eat("[") {
            let mut values = vec![cursor.value()?];
            while cursor.eat(",") {
                values.push(cursor.value()?);
            }
            cursor.expect("]")?;
            registers.push((name, values));
        } else {
            let value = cursor.value()?;
            cursor.expect("+")?;
            operands.push((name, value, cursor.integer("a byte offset")?));
        }
        if !cursor.eat(",") {
            break;
        }
    }
    let output = if cursor.eat("->") {
        Some(cursor.word("the output's name")?.to_owned())
    } else {
        None
    };
    let warp = if cursor.eat_word("warp") {
        Some(Box::new(warp_atom(cursor)?))
    } else {
        None
    };
    let predicate = predicate(cursor)?;
    Ok(Op::Atom {
        template,
        operands,
        registers,
        output,
        warp,
        predicate,
        scope,
    })
}

/// An intrinsic named by `row`: its numbers (`threads=256`, in the row's order) and
/// its operands (`[%3+8]` or `%4`), as the printer writes them for every row.
fn intrinsic(cursor: &mut Cursor<'_>, row: &'static Row) -> Result<Op, ReadError> {
    let mut numbers = Vec::with_capacity(row.numbers.len());
    for name in row.numbers {
        if !cursor.eat_word(name) {
            return Err(cursor.expected(&format!("`{name}=N`")));
        }
        cursor.expect("=")?;
        numbers.push(cursor.integer(name)?);
    }
    let intrinsic = (row.build)(&numbers)
        .ok_or_else(|| cursor.error(format!("`{}` has no form with {numbers:?}", row.name)))?;
    let mut operands = Vec::new();
    while cursor.peek("%") || cursor.peek("[") {
        let operand = if cursor.peek("[") {
            address(cursor)?
        } else {
            (cursor.value()?, 0)
        };
        operands.push(operand);
        if !cursor.eat(",") {
            break;
        }
    }
    Ok(Op::Intrinsic {
        intrinsic,
        operands,
    })
}

/// A load's or store's `global`, `shared.s8`, ...: its space and narrow width.
fn access(suffix: &str) -> Option<(Space, Option<Narrow>)> {
    let (name, width) = match suffix.split_once('.') {
        Some((name, width)) => (name, Some(width)),
        None => (suffix, None),
    };
    let narrow = match width {
        None => None,
        Some(width) => Some((Narrow::ALL.into_iter()).find(|narrow| narrow.name() == width)?),
    };
    Some((space(name)?, narrow))
}

fn space(name: &str) -> Option<Space> {
    [Space::Global, Space::Shared]
        .into_iter()
        .find(|space| space.name() == name)
}

/// `%a, %b`.
fn pair(cursor: &mut Cursor<'_>) -> Result<(ValueId, ValueId), ReadError> {
    let a = cursor.value()?;
    cursor.expect(",")?;
    Ok((a, cursor.value()?))
}

/// `[%a+offset]`.
fn address(cursor: &mut Cursor<'_>) -> Result<(ValueId, i64), ReadError> {
    cursor.expect("[")?;
    let address = cursor.value()?;
    cursor.expect("+")?;
    let offset = cursor.integer("a byte offset")?;
    cursor.expect("]")?;
    Ok((address, offset))
}

/// ` if %p`, or nothing.
fn predicate(cursor: &mut Cursor<'_>) -> Result<Option<ValueId>, ReadError> {
    if cursor.eat_word("if") {
        Ok(Some(cursor.value()?))
    } else {
        Ok(None)
    }
}
