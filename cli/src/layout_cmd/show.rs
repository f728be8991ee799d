//! `cukc layout show`: a layout's offset table as text or SVG, or the tile a
//! thread-value layout covers.
//!
//! ```text
//! cukc layout show '<layout>'                       offset table, as CuTe's print_layout
//! cukc layout show '<layout>' --svg FILE            the same table drawn as SVG
//! cukc layout show '<tv layout>' --tv '<tile>'      T<t>V<v> label of every tile cell
//! cukc layout show '<tv layout>' --tv '<tile>' --svg FILE
//! cukc layout show '<layout>' --banks --element-bytes 2   shared-memory bank of each cell
//! ```
//!
//! The layout may be CuTe text, a symbolic layout as `--dump-types` prints it, or a
//! `.cuk` expression (see [`source`]).
//!
//! Mode 0 of the layout runs down the rows and all other modes, grouped, run across
//! (a rank-1 layout is one column); see [`offsets`]. The tile of `--tv` is read the same
//! way: its mode 0 is M, the rest N. Errors in the input print one `error:` line and
//! exit 1; a TV layout that replicates or leaves cells empty only warns.

mod banks;
mod grid;
mod offsets;
mod source;
mod svg;
mod thread_value;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use self::grid::{Grid, Palette};
use self::source::{ShowError, ShownLayout, TileShape};
use self::thread_value::{ThreadValueOffsets, Tile};
use crate::output::{errln, out};

/// Arguments of `cukc layout show`.
#[derive(clap::Args)]
pub struct ShowArgs {
    /// The layout in CuTe notation, e.g. `((2,2),3):((1,4),8)`, a swizzled one such
    /// as `Sw<3,3,3> o 0 o (8,64):(64,1)`, a symbolic one such as `(8,128):(k,1)`
    /// (cells show sums like `3*k+5`), or a `.cuk` expression such as
    /// `composition(swizzle(3,3,3), (8,64):(64,1))`.
    layout: String,
    /// Draw the picture as SVG into FILE instead of printing the text table.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Read the layout as a thread-value layout, (thread, value) -> offset into a
    /// tile of this shape (column-major, e.g. `(8,128)`), and show which thread and
    /// value own each tile cell.
    #[arg(long, value_name = "TILE_SHAPE")]
    tv: Option<String>,
    /// Show the shared-memory bank (32 banks of 4 bytes) of each cell instead of its
    /// offset, coloured by bank, and the worst bank conflict of a row and a column.
    #[arg(long, requires = "element_bytes", conflicts_with = "tv")]
    banks: bool,
    /// The size of one element in bytes, for `--banks` (2 for bf16).
    #[arg(long, value_name = "BYTES", requires = "banks",
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    element_bytes: Option<u32>,
}

/// Runs `cukc layout show`.
pub fn run(args: &ShowArgs) -> ExitCode {
    match show(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            errln!("error: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}

/// Builds the picture the arguments ask for, then prints or writes it.
fn show(args: &ShowArgs) -> Result<(), ShowError> {
    let layout = ShownLayout::parse(&args.layout)?;
    let grid = match &args.tv {
        None => offset_grid(&layout, args.element_bytes)?,
        Some(tile_text) => thread_value_grid(&layout, &TileShape::parse(tile_text)?)?,
    };
    let colour = grid.palette == Palette::Banks
        && std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none();
    match &args.svg {
        None if colour => out!(
            "{}",
            grid.to_ansi_text(&|cell| svg::fill(grid.palette, cell))
        ),
        None => out!("{}", grid.to_text()),
        Some(path) => {
            // As builds write: a temporary file renamed over the path, so a symbolic
            // link there is replaced, not followed, and a failed write truncates nothing.
            crate::outputs::replace_atomically(path, svg::render(&grid).as_bytes())
                .map_err(ShowError::Write)?
        }
    }
    Ok(())
}

/// The layout's offsets, mode 0 down and the other modes across (symbolic sums for
/// a symbolic layout); with `element_bytes` (`--banks`), each cell's bank instead.
fn offset_grid(layout: &ShownLayout, element_bytes: Option<u32>) -> Result<Grid, ShowError> {
    let (rows, columns) = layout.matrix_extents()?;
    let matrix =
        offsets::OffsetMatrix::tabulate(layout.text(), rows, columns, layout.cosize()?, |index| {
            layout.offset_at(index)
        })?;
    if let Some(element_bytes) = element_bytes {
        if layout.is_symbolic() {
            return Err(ShowError::Symbolic {
                layout: layout.text(),
                what: "--banks needs numeric offsets",
            });
        }
        let (row_worst, column_worst) = banks::worst_conflicts(&matrix, element_bytes);
        errln!(
            "note: the busiest bank holds {row_worst} distinct word(s) of a row and \
             {column_worst} of a column (1 means conflict-free)"
        );
        return Ok(banks::bank_grid(&matrix, element_bytes));
    }
    let mut grid = matrix.to_grid();
    if layout.is_symbolic() {
        for row in 0..rows {
            for column in 0..columns {
                if let Some(cell) = grid.cells.get_mut(row * columns + column) {
                    cell.label = layout.symbolic_offset_at(row + rows * column)?;
                }
            }
        }
    }
    Ok(grid)
}

/// The tile labelled by owning (thread, value), with warnings for replication and gaps.
fn thread_value_grid(layout: &ShownLayout, tile_shape: &TileShape) -> Result<Grid, ShowError> {
    let (threads, values) = layout.thread_value_extents()?;
    let offsets = ThreadValueOffsets::tabulate(layout.text(), threads, values, |index| {
        layout.offset_at(index)
    })?;
    let (rows, columns) = tile_shape.extents();
    let tile = Tile {
        shape_text: tile_shape.text(),
        rows,
        columns,
    };
    let coverage = thread_value::cover_tile(&offsets, &tile).map_err(ShowError::OutsideTile)?;
    if coverage.hit_more_than_once > 0 {
        errln!(
            "warning: {} of the {} tile cells are held by more than one (thread, value); \
             each shows its first holder, marked * in text and framed in red in SVG",
            coverage.hit_more_than_once,
            rows * columns,
        );
    }
    if coverage.never_hit > 0 {
        errln!(
            "warning: {} of the {} tile cells are held by no (thread, value); \
             they show as - in text and a red slash in SVG",
            coverage.never_hit,
            rows * columns,
        );
    }
    Ok(coverage.grid)
}
