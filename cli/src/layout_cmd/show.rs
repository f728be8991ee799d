//! `cukc layout show`: a layout's offset table as text or SVG, or the tile a
//! thread-value layout covers.
//!
//! ```text
//! cukc layout show '<layout>'                       offset table, as CuTe's print_layout
//! cukc layout show '<layout>' --svg FILE            the same table drawn as SVG
//! cukc layout show '<tv layout>' --tv '<tile>'      T<t>V<v> label of every tile cell
//! cukc layout show '<tv layout>' --tv '<tile>' --svg FILE
//! ```
//!
//! Mode 0 of the layout runs down the rows and all other modes, grouped, run across
//! (a rank-1 layout is one column); see [`offsets`]. The tile of `--tv` is read the same
//! way: its mode 0 is M, the rest N. Errors in the input print one `error:` line and
//! exit 1; a TV layout that replicates or leaves cells empty only warns.

mod grid;
mod offsets;
mod source;
mod svg;
mod thread_value;

use std::path::PathBuf;
use std::process::ExitCode;

use self::grid::Grid;
use self::source::{ShowError, ShownLayout, TileShape};
use self::thread_value::{ThreadValueOffsets, Tile};
use crate::output::{errln, out};

/// Arguments of `cukc layout show`.
#[derive(clap::Args)]
pub struct ShowArgs {
    /// The layout in CuTe notation, e.g. `((2,2),3):((1,4),8)`, or a swizzled one
    /// such as `Sw<3,3,3> o 0 o (8,64):(64,1)`.
    layout: String,
    /// Draw the picture as SVG into FILE instead of printing the text table.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Read the layout as a thread-value layout, (thread, value) -> offset into a
    /// tile of this shape (column-major, e.g. `(8,128)`), and show which thread and
    /// value own each tile cell.
    #[arg(long, value_name = "TILE_SHAPE")]
    tv: Option<String>,
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
        None => offset_grid(&layout)?,
        Some(tile_text) => thread_value_grid(&layout, &TileShape::parse(tile_text)?)?,
    };
    match &args.svg {
        None => out!("{}", grid.to_text()),
        Some(path) => {
            std::fs::write(path, svg::render(&grid)).map_err(|error| ShowError::Write {
                path: path.display().to_string(),
                reason: error.to_string(),
            })?
        }
    }
    Ok(())
}

/// The layout's offsets, mode 0 down and the other modes across.
fn offset_grid(layout: &ShownLayout) -> Result<Grid, ShowError> {
    let (rows, columns) = layout.matrix_extents()?;
    let matrix =
        offsets::OffsetMatrix::tabulate(layout.text(), rows, columns, layout.cosize()?, |index| {
            layout.offset_at(index)
        })?;
    Ok(matrix.to_grid())
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
