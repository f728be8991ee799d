//! A thread-value layout drawn over its tile: which (thread, value) owns each cell.
//!
//! In CuTe's convention a TV layout maps (thread, value) to an offset into an M × N
//! tile, and the offset names the tile cell column-major: row `offset % M`, column
//! `offset / M`. Every cell is labelled with the first (thread, value) that reaches
//! it, taking threads in order and each thread's values in order, as CuTe's
//! `print_latex` does. A TV layout may replicate (several threads hold one element)
//! or leave cells unowned; both are marked rather than refused. An offset outside the
//! tile is an error.

use super::grid::{Cell, CellMark, Grid, Palette};

/// A thread-value layout evaluated at every (thread, value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadValueOffsets {
    /// The layout as written back.
    layout_text: String,
    /// Size of mode 0, the thread mode.
    threads: usize,
    /// Size of mode 1, the value mode.
    values: usize,
    /// The offset of (thread, value), stored at `thread + threads * value`; holds
    /// exactly `threads * values` entries.
    offsets: Vec<i64>,
}

impl ThreadValueOffsets {
    /// Evaluates `offset_at` (the layout applied to a 1-D index) at every
    /// (thread, value); the index of (thread, value) is `thread + threads * value`,
    /// which agrees with the layout's natural two-mode coordinate.
    pub fn tabulate<E>(
        layout_text: String,
        threads: usize,
        values: usize,
        offset_at: impl FnMut(usize) -> Result<i64, E>,
    ) -> Result<ThreadValueOffsets, E> {
        let offsets = (0..threads.saturating_mul(values))
            .map(offset_at)
            .collect::<Result<_, E>>()?;
        Ok(ThreadValueOffsets {
            layout_text,
            threads,
            values,
            offsets,
        })
    }
}

/// The M × N tile the offsets index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tile {
    /// The tile shape as written back.
    pub shape_text: String,
    /// M, the size of the tile shape's mode 0.
    pub rows: usize,
    /// N, the product of the sizes of its other modes.
    pub columns: usize,
}

/// The labelled tile and how far it departs from a one-to-one assignment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileCoverage {
    /// The tile, one cell per element, coloured by owning thread.
    pub grid: Grid,
    /// Cells reached by more than one (thread, value).
    pub hit_more_than_once: usize,
    /// Cells reached by none.
    pub never_hit: usize,
}

/// A (thread, value) whose offset falls outside the tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetOutsideTile {
    /// The thread index.
    pub thread: usize,
    /// The value index.
    pub value: usize,
    /// Its offset.
    pub offset: i64,
    /// The tile shape as written.
    pub tile: String,
    /// The number of cells in the tile.
    pub tile_cells: usize,
}

impl std::fmt::Display for OffsetOutsideTile {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "(thread {}, value {}) maps to offset {}, outside the tile {} whose offsets run from 0 to {}",
            self.thread,
            self.value,
            self.offset,
            self.tile,
            self.tile_cells.saturating_sub(1),
        )
    }
}

/// Labels every tile cell with the first (thread, value) that reaches it.
pub fn cover_tile(
    layout: &ThreadValueOffsets,
    tile: &Tile,
) -> Result<TileCoverage, OffsetOutsideTile> {
    let tile_cells = tile.rows.saturating_mul(tile.columns);
    // For each cell (column-major, as offsets count): the first owner and the hit count.
    let mut owners: Vec<Option<(usize, usize)>> = vec![None; tile_cells];
    let mut hits: Vec<usize> = vec![0; tile_cells];
    for thread in 0..layout.threads {
        for value in 0..layout.values {
            let offset = layout.offsets[thread + layout.threads * value];
            let outside = || OffsetOutsideTile {
                thread,
                value,
                offset,
                tile: tile.shape_text.clone(),
                tile_cells,
            };
            let cell = usize::try_from(offset)
                .ok()
                .filter(|&cell| cell < tile_cells)
                .ok_or_else(outside)?;
            hits[cell] += 1;
            owners[cell].get_or_insert((thread, value));
        }
    }

    let mut cells = Vec::with_capacity(tile_cells);
    for row in 0..tile.rows {
        for column in 0..tile.columns {
            let offset = row + tile.rows * column;
            cells.push(match (owners[offset], hits[offset]) {
                (Some((thread, value)), count) => Cell {
                    label: format!("T{thread}"),
                    second_line: Some(format!("V{value}")),
                    colour_key: i64::try_from(thread).unwrap_or(i64::MAX),
                    mark: if count > 1 {
                        CellMark::HitMoreThanOnce
                    } else {
                        CellMark::Plain
                    },
                },
                (None, _) => Cell {
                    label: "-".to_owned(),
                    second_line: None,
                    colour_key: 0,
                    mark: CellMark::NeverHit,
                },
            });
        }
    }
    let grid = Grid {
        title: format!("{} on tile {}", layout.layout_text, tile.shape_text),
        rows: tile.rows,
        columns: tile.columns,
        cells,
        min_label_width: 1,
        palette: Palette::Threads,
    };
    Ok(TileCoverage {
        grid,
        hit_more_than_once: hits.iter().filter(|&&count| count > 1).count(),
        never_hit: hits.iter().filter(|&&count| count == 0).count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two threads, two values, offset = 2 * thread + value on a 2 × 2 tile: thread t
    /// owns tile column t.
    fn two_threads(offsets: Vec<i64>) -> ThreadValueOffsets {
        ThreadValueOffsets::tabulate("(2,2):(2,1)".to_owned(), 2, 2, |index| {
            offsets.get(index).copied().ok_or(index)
        })
        .unwrap()
    }

    fn square_tile() -> Tile {
        Tile {
            shape_text: "(2,2)".to_owned(),
            rows: 2,
            columns: 2,
        }
    }

    fn labels(coverage: &TileCoverage) -> Vec<String> {
        coverage.grid.cells.iter().map(Cell::text_label).collect()
    }

    #[test]
    fn offsets_index_the_tile_column_major() {
        let coverage = cover_tile(&two_threads(vec![0, 2, 1, 3]), &square_tile()).unwrap();
        assert_eq!(labels(&coverage), ["T0V0", "T1V0", "T0V1", "T1V1"]);
        assert_eq!((coverage.hit_more_than_once, coverage.never_hit), (0, 0));
        assert_eq!(coverage.grid.title, "(2,2):(2,1) on tile (2,2)");
    }

    #[test]
    fn replicated_and_empty_cells_are_marked_and_counted() {
        // Both threads hold offsets 0 and 1: column 1 of the tile is never reached.
        let coverage = cover_tile(&two_threads(vec![0, 0, 1, 1]), &square_tile()).unwrap();
        assert_eq!(labels(&coverage), ["T0V0*", "-", "T0V1*", "-"]);
        assert_eq!((coverage.hit_more_than_once, coverage.never_hit), (2, 2));
        assert!(coverage.grid.has_mark(CellMark::NeverHit));
    }

    #[test]
    fn an_offset_past_the_tile_names_its_thread_and_value() {
        let error = cover_tile(&two_threads(vec![0, 2, 1, 4]), &square_tile()).unwrap_err();
        assert_eq!((error.thread, error.value, error.offset), (1, 1, 4));
        assert_eq!(
            error.to_string(),
            "(thread 1, value 1) maps to offset 4, outside the tile (2,2) whose offsets run from 0 to 3"
        );
    }

    #[test]
    fn a_negative_offset_is_outside_too() {
        let error = cover_tile(&two_threads(vec![0, -1, 1, 3]), &square_tile()).unwrap_err();
        assert_eq!((error.thread, error.value), (1, 0));
    }
}
