//! The thin adapter between the `layout` crate and the plain pictures: parses the
//! command line's layout and tile texts and answers the few questions the pictures
//! ask (extents, cosize, the offset of a 1-D index), with every failure a [`ShowError`].

use std::fmt;

use layout::{ComposedLayout, IntTuple, Layout, LayoutError};

use super::thread_value::OffsetOutsideTile;

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
    Write {
        /// The path given.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
}

impl ShowError {
    /// 1 for a mistake in the input, 2 when the environment failed (a file that
    /// cannot be written), as `cukc` documents its exit codes.
    pub fn exit_code(&self) -> u8 {
        match self {
            ShowError::Write { .. } => 2,
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
            ShowError::Write { path, reason } => write!(formatter, "cannot write {path}: {reason}"),
        }
    }
}

impl From<LayoutError> for ShowError {
    fn from(error: LayoutError) -> ShowError {
        ShowError::Evaluate(error)
    }
}

/// A layout as the command line gives it: plain, or swizzled as CuTe prints a
/// composed layout, `Sw<B,M,S> o offset o layout`.
pub enum ShownLayout {
    /// `shape:stride`.
    Plain(Layout<i64>),
    /// `swizzle ∘ offset ∘ layout`; its domain is the inner layout's.
    Swizzled(ComposedLayout),
}

impl ShownLayout {
    /// Parses `text` in CuTe notation; text starting with `Sw` is a swizzled layout.
    pub fn parse(text: &str) -> Result<ShownLayout, ShowError> {
        let invalid = |error| ShowError::Layout {
            text: text.to_owned(),
            error,
        };
        if text.trim_start().starts_with("Sw") {
            Ok(ShownLayout::Swizzled(text.parse().map_err(invalid)?))
        } else {
            Ok(ShownLayout::Plain(text.parse().map_err(invalid)?))
        }
    }

    /// The layout written back in CuTe notation.
    pub fn text(&self) -> String {
        match self {
            ShownLayout::Plain(layout) => layout.to_string(),
            ShownLayout::Swizzled(composed) => composed.to_string(),
        }
    }

    /// The layout that gives the domain: the plain one, or the swizzled one's inner.
    fn domain(&self) -> &Layout<i64> {
        match self {
            ShownLayout::Plain(layout) => layout,
            ShownLayout::Swizzled(composed) => composed.inner(),
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
            ShownLayout::Swizzled(_) => {
                let mut largest = 0;
                for index in 0..self.checked_size()? {
                    largest = largest.max(self.offset_at(index)?);
                }
                Ok(largest.saturating_add(1))
            }
        }
    }

    /// The offset of the 1-D index `index` (`index < size`).
    pub fn offset_at(&self, index: usize) -> Result<i64, LayoutError> {
        let index = i64::try_from(index).map_err(|_| LayoutError::Overflow {
            operation: "layout show",
            expression: format!("index {index}"),
        })?;
        match self {
            ShownLayout::Plain(layout) => layout.evaluate_index(&index),
            ShownLayout::Swizzled(composed) => composed.evaluate_index(index),
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
