//! The thin adapter between the `layout` crate and the plain pictures: parses the
//! command line's layout and tile texts and answers the few questions the pictures
//! ask (extents, cosize, the offset of a 1-D index), with every failure a [`ShowError`].
//!
//! A layout is read, in order, as CuTe prints it (`(8,64):(64,1)`, `Sw<3,3,3> o 0 o
//! (8,64):(64,1)`), as a symbolic layout the way `--dump-types` prints one
//! (`(8,128):(k,1)`: its shape must be static, its offsets print as symbolic sums
//! such as `3*k+5`), or as a `.cuk` expression (`composition(swizzle(3,3,3),
//! (8,64):(64,1))`), which the front end evaluates as `const L = <text>;` would be.

use std::fmt;

use layout::{ComposedLayout, IntTuple, Layout, LayoutError, SymInt};

use super::thread_value::OffsetOutsideTile;
use crate::outputs::WriteError;

/// The most cells `cukc layout show` draws: enough for any tile a CTA works on,
/// small enough that a mistyped extent cannot exhaust memory.
pub const MAX_CELLS: usize = 1 << 16;

/// Why `cukc layout show` could not draw its picture.
#[derive(Debug)]
pub enum ShowError {
    /// The layout text does not parse or does not make a valid layout.
    Layout {
        /// The text as given.
        text: String,
        /// What the layout crate rejected.
        error: LayoutError,
    },
    /// The `--tv` tile shape does not parse as a positive int-tuple.
    TileShape {
        /// The text as given.
        text: String,
        /// What was wrong.
        error: LayoutError,
    },
    /// The text read as a `.cuk` expression did not evaluate to a layout.
    Expression {
        /// The text as given.
        text: String,
        /// Why not.
        problem: Unevaluated,
    },
    /// A symbolic layout whose shape is not static, or `--banks` of one.
    Symbolic {
        /// The layout, as written back.
        layout: String,
        /// What cannot be done with it.
        what: &'static str,
    },
    /// Evaluating the layout failed (an offset overflowed).
    Evaluate(LayoutError),
    /// The picture would have more than [`MAX_CELLS`] cells.
    TooManyCells {
        /// What is too large: the layout or the tile, as written back.
        what: String,
        /// Its number of cells, as printed.
        cells: String,
    },
    /// `--tv` was given a layout whose rank is not 2.
    NotThreadValue {
        /// The layout, as written back.
        layout: String,
        /// Its rank.
        rank: usize,
    },
    /// A (thread, value) maps outside the `--tv` tile.
    OutsideTile(OffsetOutsideTile),
    /// The SVG file could not be written.
    Write(WriteError),
}

impl ShowError {
    /// 1 for a mistake in the input, 2 when the environment failed (a file that
    /// cannot be written), as `cukc` documents its exit codes.
    pub fn exit_code(&self) -> u8 {
        match self {
            ShowError::Write(_) => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for ShowError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShowError::Layout { text, error } => {
                write!(formatter, "invalid layout `{text}`: {error}")
            }
            ShowError::TileShape { text, error } => {
                write!(formatter, "invalid tile shape `{text}`: {error}")
            }
            ShowError::Expression { text, problem } => {
                write!(formatter, "invalid layout `{text}`: {problem}")
            }
            ShowError::Symbolic { layout, what } => {
                write!(formatter, "{layout} is symbolic: {what}")
            }
            ShowError::Evaluate(error) => write!(formatter, "cannot evaluate the layout: {error}"),
            ShowError::TooManyCells { what, cells } => write!(
                formatter,
                "{what} has {cells} cells, more than the {MAX_CELLS} that `cukc layout show` draws"
            ),
            ShowError::NotThreadValue { layout, rank } => write!(
                formatter,
                "--tv needs a rank-2 layout, (thread, value) -> offset, but {layout} has rank {rank}"
            ),
            ShowError::OutsideTile(outside) => write!(formatter, "{outside}"),
            ShowError::Write(error) => error.fmt(formatter),
        }
    }
}

impl From<LayoutError> for ShowError {
    fn from(error: LayoutError) -> ShowError {
        ShowError::Evaluate(error)
    }
}

/// A layout as the command line gives it: plain, swizzled as CuTe prints a composed
/// layout (`Sw<B,M,S> o offset o layout`), or symbolic.
pub enum ShownLayout {
    /// `shape:stride`.
    Plain(Layout<i64>),
    /// `swizzle ∘ offset ∘ layout`; its domain is the inner layout's.
    Swizzled(ComposedLayout),
    /// Strides with run-time integers, over a static shape (`domain`).
    Symbolic {
        /// The layout.
        layout: Layout<SymInt>,
        /// A layout of the same static shape, for extents.
        domain: Layout<i64>,
    },
}

impl ShownLayout {
    /// Parses `text` in CuTe notation (text starting with `Sw` is a swizzled layout),
    /// as a symbolic layout, or as a `.cuk` expression.
    pub fn parse(text: &str) -> Result<ShownLayout, ShowError> {
        let cute = match Self::parse_cute(text) {
            Ok(Some(layout)) => return Ok(layout),
            Ok(None) => None,
            Err(error) => Some(error),
        };
        let trimmed = text.trim_start();
        let looks_like_cute = trimmed.starts_with("Sw<")
            || trimmed.starts_with(|c: char| c == '(' || c.is_ascii_digit());
        match (cute, evaluate_cuk(text)) {
            (_, Ok(value)) => Self::parse_cute(&value)?.ok_or_else(|| ShowError::Expression {
                text: text.to_owned(),
                problem: Unevaluated::NotALayout(value),
            }),
            (Some(error), Err(_)) if looks_like_cute => Err(error),
            (_, Err(problem)) => Err(ShowError::Expression {
                text: text.to_owned(),
                problem,
            }),
        }
    }

    /// CuTe notation, plain, swizzled or symbolic; `Ok(None)` when it is none of
    /// them but might be a `.cuk` expression.
    fn parse_cute(text: &str) -> Result<Option<ShownLayout>, ShowError> {
        let invalid = |error| ShowError::Layout {
            text: text.to_owned(),
            error,
        };
        if text.trim_start().starts_with("Sw<") {
            return Ok(Some(ShownLayout::Swizzled(text.parse().map_err(invalid)?)));
        }
        let plain_error = match text.parse::<Layout<i64>>() {
            Ok(layout) => return Ok(Some(ShownLayout::Plain(layout))),
            Err(error) => error,
        };
        let Ok(layout) = text.parse::<Layout<SymInt>>() else {
            return Err(invalid(plain_error));
        };
        let shape = layout.shape().to_string();
        let domain = shape
            .parse::<IntTuple<i64>>()
            .and_then(Layout::column_major)
            .map_err(|_| ShowError::Symbolic {
                layout: layout.to_string(),
                what: "only a layout with a static shape can be drawn",
            })?;
        Ok(Some(ShownLayout::Symbolic { layout, domain }))
    }

    /// Whether the offsets are symbolic sums rather than numbers.
    pub fn is_symbolic(&self) -> bool {
        matches!(self, ShownLayout::Symbolic { .. })
    }

    /// The layout written back in CuTe notation.
    pub fn text(&self) -> String {
        match self {
            ShownLayout::Plain(layout) => layout.to_string(),
            ShownLayout::Swizzled(composed) => composed.to_string(),
            ShownLayout::Symbolic { layout, .. } => layout.to_string(),
        }
    }

    /// The layout that gives the domain: the plain one, or the swizzled one's inner.
    fn domain(&self) -> &Layout<i64> {
        match self {
            ShownLayout::Plain(layout) => layout,
            ShownLayout::Swizzled(composed) => composed.inner(),
            ShownLayout::Symbolic { domain, .. } => domain,
        }
    }

    /// The number of top-level modes.
    fn rank(&self) -> usize {
        self.domain().rank()
    }

    /// The number of coordinates, refused beyond [`MAX_CELLS`].
    fn checked_size(&self) -> Result<usize, ShowError> {
        let size = self.domain().size()?;
        usize::try_from(size)
            .ok()
            .filter(|&size| size <= MAX_CELLS)
            .ok_or_else(|| ShowError::TooManyCells {
                what: format!("layout {}", self.text()),
                cells: size.to_string(),
            })
    }

    /// Size of mode `index` (of the whole layout when its shape is an integer); call
    /// after [`Self::checked_size`], which bounds every mode's size.
    fn mode_size(&self, index: usize) -> Result<usize, ShowError> {
        let size = self.domain().mode(index)?.size()?;
        Ok(usize::try_from(size).unwrap_or(0))
    }

    /// (rows, columns): the size of mode 0 and the product of the other modes.
    pub fn matrix_extents(&self) -> Result<(usize, usize), ShowError> {
        let size = self.checked_size()?;
        let rows = self.mode_size(0)?;
        Ok((rows, size.checked_div(rows).unwrap_or(0)))
    }

    /// (threads, values) of a rank-2 thread-value layout.
    pub fn thread_value_extents(&self) -> Result<(usize, usize), ShowError> {
        if self.rank() != 2 {
            return Err(ShowError::NotThreadValue {
                layout: self.text(),
                rank: self.rank(),
            });
        }
        self.checked_size()?;
        Ok((self.mode_size(0)?, self.mode_size(1)?))
    }

    /// The layout's cosize, one past its largest offset; CuTe sizes the text
    /// table's columns by its digits. A swizzle moves offsets around, so a swizzled
    /// layout's largest offset is searched for.
    pub fn cosize(&self) -> Result<i64, ShowError> {
        match self {
            ShownLayout::Plain(layout) => Ok(layout.cosize()?),
            ShownLayout::Swizzled(_) | ShownLayout::Symbolic { .. } => {
                let mut largest = 0;
                for index in 0..self.checked_size()? {
                    largest = largest.max(self.offset_at(index)?);
                }
                Ok(largest.saturating_add(1))
            }
        }
    }

    /// The offset of the 1-D index `index` (`index < size`); a symbolic layout's
    /// constant part (see [`Self::symbolic_offset_at`]).
    pub fn offset_at(&self, index: usize) -> Result<i64, LayoutError> {
        let index = checked_index(index)?;
        match self {
            ShownLayout::Plain(layout) => layout.evaluate_index(&index),
            ShownLayout::Swizzled(composed) => composed.evaluate_index(index),
            ShownLayout::Symbolic { layout, .. } => Ok(layout
                .evaluate_index(&SymInt::constant(index))?
                .split_constant()
                .1),
        }
    }

    /// The offset of the 1-D index `index` as text: a symbolic sum such as `3*k+5`
    /// for a symbolic layout, the number otherwise.
    pub fn symbolic_offset_at(&self, index: usize) -> Result<String, LayoutError> {
        match self {
            ShownLayout::Symbolic { layout, .. } => Ok(layout
                .evaluate_index(&SymInt::constant(checked_index(index)?))?
                .to_string()),
            _ => self.offset_at(index).map(|offset| offset.to_string()),
        }
    }
}

fn checked_index(index: usize) -> Result<i64, LayoutError> {
    i64::try_from(index).map_err(|_| LayoutError::Overflow {
        operation: "layout show",
        expression: format!("index {index}"),
    })
}

/// The value of `text` as a `.cuk` expression (`const L = <text>;` checked for sm_90a),
/// as `--dump-types` prints it, or why it has none.
fn evaluate_cuk(text: &str) -> Result<String, Unevaluated> {
    let source = format!("const L = {text};\n");
    let (module, mut diagnostics) = grammar::parse(&source);
    if !diagnostics.iter().any(lang::Diagnostic::is_error) {
        let analysis = typecheck::check(&module, cute::Target::Sm90a);
        diagnostics.extend(analysis.diagnostics);
        if !diagnostics.iter().any(lang::Diagnostic::is_error) {
            return analysis
                .bindings
                .into_iter()
                .find(|binding| binding.name == "L")
                .and_then(|binding| binding.contents)
                .ok_or(Unevaluated::NoValue);
        }
    }
    let first = diagnostics.iter().find(|diagnostic| diagnostic.is_error());
    Err(Unevaluated::FrontEnd(
        first.map_or_else(String::new, |error| error.message.clone()),
    ))
}

/// Why text read as a `.cuk` expression gives no layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unevaluated {
    /// The front end's first error message.
    FrontEnd(String),
    /// It checks, but has no compile-time value.
    NoValue,
    /// Its value (as `--dump-types` prints it) is not a layout.
    NotALayout(String),
}

impl fmt::Display for Unevaluated {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unevaluated::FrontEnd(message) => formatter.write_str(message),
            Unevaluated::NoValue => formatter.write_str("it has no compile-time value"),
            Unevaluated::NotALayout(value) => {
                write!(
                    formatter,
                    "it evaluates to `{value}`, which is not a layout"
                )
            }
        }
    }
}

/// The `--tv` tile shape: mode 0 gives M, the other modes N.
pub struct TileShape {
    shape: IntTuple<i64>,
    rows: usize,
    columns: usize,
}

impl TileShape {
    /// Parses `text` as an int-tuple of positive extents of at most [`MAX_CELLS`] cells.
    pub fn parse(text: &str) -> Result<TileShape, ShowError> {
        let invalid = |error| ShowError::TileShape {
            text: text.to_owned(),
            error,
        };
        let shape: IntTuple<i64> = text.parse().map_err(invalid)?;
        // A column-major layout of the shape checks positivity and nesting depth.
        let layout = Layout::column_major(shape.clone()).map_err(invalid)?;
        let cells = layout.size().map_err(invalid)?;
        let too_many = || ShowError::TooManyCells {
            what: format!("tile {shape}"),
            cells: cells.to_string(),
        };
        let cells = usize::try_from(cells)
            .ok()
            .filter(|&cells| cells <= MAX_CELLS)
            .ok_or_else(too_many)?;
        let rows = usize::try_from(
            layout
                .mode(0)
                .and_then(|mode| mode.size())
                .map_err(invalid)?,
        )
        .unwrap_or(0);
        Ok(TileShape {
            columns: cells.checked_div(rows).unwrap_or(0),
            rows,
            shape,
        })
    }

    /// The shape written back.
    pub fn text(&self) -> String {
        self.shape.to_string()
    }

    /// (M, N).
    pub fn extents(&self) -> (usize, usize) {
        (self.rows, self.columns)
    }
}
