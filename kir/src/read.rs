//! Reading KIR's text form back: [`from_text`] reads exactly what [`crate::to_text`]
//! prints, so `to_text(from_text(to_text(k)))` is `to_text(k)`, and kernels can be
//! written by hand as test data (`tests/kir/`).
//!
//! Text has no byte offsets, only the `; line N` comments: an instruction (and the
//! kernel) read with one gets the empty span at offset `N`, so printing it again with
//! `line_of` the identity gives back `; line N`. Where the comment is left out, as in
//! hand-written files, the span is the text's own line number. Blank lines and lines
//! starting with `//` are skipped. A value's type comes from where it is defined (`%4:f32
//! = ...`, a region's parameters); a value used but never defined gets a placeholder
//! type, and [`crate::verify`] rejects the kernel. Reading never panics: a mistake is an
//! error naming its line.

mod cursor;
mod instruction;
mod signature;
mod warp;

use lang::Span;

use crate::ir::{Inst, Kernel, Op, Region, Ty, ValueId};
use crate::signature::Signature;
use cursor::Cursor;

/// How deeply regions may nest: deeper is garbage, refused before the recursion could
/// exhaust the stack.
const MAX_REGION_DEPTH: usize = 100;

/// The type given to a value that is used but never defined.
const PLACEHOLDER: Ty = Ty::B32;

/// The first mistake in a kernel's text, and its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// The line, counting from 1.
    pub line: u32,
    /// What is wrong there.
    pub problem: String,
}

impl ReadError {
    fn at(line: u32, problem: &str) -> ReadError {
        ReadError {
            line,
            problem: problem.to_owned(),
        }
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.problem)
    }
}

impl std::error::Error for ReadError {}

/// The kernel `text` describes, or the first mistake in it, naming its line.
pub fn from_text(text: &str) -> Result<Kernel, ReadError> {
    let lines = text
        .lines()
        .enumerate()
        .map(|(index, line)| (u32::try_from(index + 1).unwrap_or(u32::MAX), line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with("//"))
        .collect();
    let mut reader = Reader {
        lines,
        next: 0,
        values: Vec::new(),
    };
    let mut kernel = reader.kernel()?;
    let mut highest = reader.values.len();
    used_values(&kernel.body, &mut |value| {
        highest = highest.max(value.0 as usize + 1);
    });
    reader.values.resize(highest, None);
    kernel.values = reader
        .values
        .into_iter()
        .map(|ty| ty.unwrap_or(PLACEHOLDER))
        .collect();
    Ok(kernel)
}

/// The lines left to read and the types of the values defined so far.
struct Reader<'t> {
    /// Each line's number and trimmed text, blank and comment lines left out.
    lines: Vec<(u32, &'t str)>,
    next: usize,
    values: Vec<Option<Ty>>,
}

impl<'t> Reader<'t> {
    /// The next line, not taken.
    fn peek(&self) -> Result<(u32, &'t str), ReadError> {
        self.lines.get(self.next).copied().ok_or_else(|| {
            let last = self.lines.last().map_or(1, |(number, _)| *number);
            ReadError::at(last, "the text ends inside the kernel")
        })
    }

    /// The next line, taken.
    fn take(&mut self) -> Result<Cursor<'t>, ReadError> {
        let (number, text) = self.peek()?;
        self.next += 1;
        Ok(Cursor::new(number, text))
    }

    fn kernel(&mut self) -> Result<Kernel, ReadError> {
        let mut cursor = self.take()?;
        if !cursor.eat_word("kernel") {
            return Err(cursor.expected("`kernel NAME {`"));
        }
        let entry = cursor.word("the kernel's name")?;
        cursor.expect("{")?;
        let span = line_span(&mut cursor)?;
        let mut signature = Signature::empty(entry);
        let mut launched = false;
        loop {
            let (number, text) = self.peek()?;
            let mut cursor = Cursor::new(number, text);
            if !signature::signature_line(&mut cursor, &mut signature, &mut launched)? {
                break;
            }
            self.next += 1;
        }
        if !launched {
            let (number, _) = self.peek()?;
            return Err(ReadError::at(
                number,
                "the signature has no `launch` line before the instructions",
            ));
        }
        let mut kernel = Kernel::new(signature, span);
        kernel.body = self.block(0)?;
        self.close(false)?;
        if let Some((number, _)) = self.lines.get(self.next) {
            return Err(ReadError::at(*number, "text after the kernel's `}`"));
        }
        Ok(kernel)
    }

    /// Instructions up to a `yield` or `}` line (not taken), at nesting `depth`.
    fn block(&mut self, depth: usize) -> Result<Vec<Inst>, ReadError> {
        let mut body = Vec::new();
        loop {
            let (_, text) = self.peek()?;
            if text.starts_with('}') || Cursor::new(0, text).eat_word("yield") {
                return Ok(body);
            }
            let cursor = self.take()?;
            body.push(self.instruction(cursor, depth)?);
        }
    }

    /// A region's body and its `yield` line (its parameters are in the header, not
    /// here), and the `while` condition when `looping`.
    fn region(
        &mut self,
        depth: usize,
        looping: bool,
    ) -> Result<(Region, Option<ValueId>), ReadError> {
        if depth >= MAX_REGION_DEPTH {
            let (number, _) = self.peek()?;
            return Err(ReadError::at(number, "regions nest too deeply"));
        }
        let body = self.block(depth + 1)?;
        let mut cursor = self.take()?;
        if !cursor.eat_word("yield") {
            return Err(cursor.expected("`yield`"));
        }
        let yields = if cursor.peek("%") {
            cursor.values()?
        } else {
            Vec::new()
        };
        let condition = if cursor.eat_word("while") {
            if !looping {
                return Err(cursor.error("only a `loop` yields `while` a condition"));
            }
            Some(cursor.value()?)
        } else if looping {
            return Err(cursor.expected("`while %N`, the loop's condition"));
        } else {
            None
        };
        if !cursor.at_end() {
            return Err(cursor.expected("the end of the line"));
        }
        let region = Region {
            params: Vec::new(),
            body,
            yields,
        };
        Ok((region, condition))
    }

    /// The `}` line that closes a region or the kernel, or `} else {` when `otherwise`.
    fn close(&mut self, otherwise: bool) -> Result<(), ReadError> {
        let mut cursor = self.take()?;
        let closed = cursor.eat("}") && (!otherwise || (cursor.eat("else") && cursor.eat("{")));
        if closed && cursor.at_end() {
            Ok(())
        } else if otherwise {
            Err(cursor.expected("`} else {`"))
        } else {
            Err(cursor.expected("`}`"))
        }
    }

    /// Records that `value` has type `ty`; a value given two types is a mistake.
    fn define(&mut self, cursor: &Cursor<'_>, value: ValueId, ty: Ty) -> Result<(), ReadError> {
        let index = value.0 as usize;
        if self.values.len() <= index {
            self.values.resize(index + 1, None);
        }
        match self.values[index] {
            Some(before) if before != ty => Err(cursor.error(format!(
                "%{} is {} here but {} where it was defined before",
                value.0,
                ty.name(),
                before.name()
            ))),
            _ => {
                self.values[index] = Some(ty);
                Ok(())
            }
        }
    }
}

/// The span from the `; line N` ending the line (or the text's own line number), at
/// the end of the line.
fn line_span(cursor: &mut Cursor<'_>) -> Result<Span, ReadError> {
    let line = if cursor.eat(";") {
        if !cursor.eat_word("line") {
            return Err(cursor.expected("`line N` after `;`"));
        }
        cursor.integer("a line number")?
    } else {
        cursor.line
    };
    if cursor.at_end() {
        Ok(Span::empty(line))
    } else {
        Err(cursor.expected("the end of the line or `; line N`"))
    }
}

/// Calls `visit` on every value `body` reads, inside regions too.
fn used_values(body: &[Inst], visit: &mut dyn FnMut(ValueId)) {
    for inst in body {
        crate::operands(inst).into_iter().for_each(&mut *visit);
        if let Op::Loop { condition, .. } = &inst.op {
            visit(*condition);
        }
        for region in inst.op.regions() {
            region.yields.iter().copied().for_each(&mut *visit);
            used_values(&region.body, visit);
        }
    }
}
