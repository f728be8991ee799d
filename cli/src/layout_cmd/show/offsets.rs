//! A layout's offsets arranged as a matrix, and the grid that shows them.
//!
//! CuTe's `print_layout` draws rank-2 layouts only. `cukc layout show` draws any rank
//! the same way: mode 0 runs down the rows and every other mode, grouped into one
//! column mode (colexicographic, as `group_modes<1,R>` would), runs across. A rank-1
//! layout becomes a single column, as CuTe's `print_latex` draws one (it appends a
//! `1:0` mode).

use super::grid::{Cell, Grid, Palette};

/// A layout evaluated at every coordinate and arranged as a matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffsetMatrix {
    /// The layout as written back, the grid's title.
    pub title: String,
    /// Size of mode 0.
    pub rows: usize,
    /// Product of the sizes of the other modes (1 for a rank-1 layout).
    pub columns: usize,
    /// The offset at (row, column), stored row by row.
    pub offsets: Vec<i64>,
    /// The layout's cosize; CuTe sizes its text columns by its digit count.
    pub cosize: i64,
}

impl OffsetMatrix {
    /// Evaluates `offset_at` (a layout applied to a 1-D index) at every cell; the
    /// index of (row, column) is `row + rows * column`, the colexicographic order
    /// that makes it agree with the layout's natural two-mode coordinate.
    pub fn tabulate<E>(
        title: String,
        rows: usize,
        columns: usize,
        cosize: i64,
        mut offset_at: impl FnMut(usize) -> Result<i64, E>,
    ) -> Result<OffsetMatrix, E> {
        let mut offsets = Vec::with_capacity(rows.saturating_mul(columns));
        for row in 0..rows {
            for column in 0..columns {
                offsets.push(offset_at(row + rows * column)?);
            }
        }
        Ok(OffsetMatrix {
            title,
            rows,
            columns,
            offsets,
            cosize,
        })
    }

    /// The grid of offsets, shaded by offset.
    pub fn to_grid(&self) -> Grid {
        Grid {
            title: self.title.clone(),
            rows: self.rows,
            columns: self.columns,
            cells: self
                .offsets
                .iter()
                .map(|&offset| Cell::plain(offset.to_string(), offset))
                .collect(),
            min_label_width: self.cosize.to_string().len(),
            palette: Palette::Offsets,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(2,3):(3,1)` written out by hand: offset = 3 * row + column.
    fn row_major_two_by_three() -> OffsetMatrix {
        OffsetMatrix::tabulate("(2,3):(3,1)".to_owned(), 2, 3, 6, |index| {
            let (row, column) = (index % 2, index / 2);
            Ok::<i64, std::convert::Infallible>(3 * row as i64 + column as i64)
        })
        .unwrap()
    }

    #[test]
    fn tabulate_stores_rows_in_order() {
        assert_eq!(row_major_two_by_three().offsets, vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn tabulate_stops_at_the_first_error() {
        let mut calls = 0;
        let result = OffsetMatrix::tabulate("x".to_owned(), 2, 2, 4, |index| {
            calls += 1;
            if index == 2 { Err("overflow") } else { Ok(0) }
        });
        assert_eq!(result, Err("overflow"));
        assert_eq!(calls, 2, "(0,0) then (0,1), whose index is 2");
    }

    #[test]
    fn grid_width_follows_the_cosize_digits() {
        let matrix = OffsetMatrix {
            title: "9:1".to_owned(),
            rows: 1,
            columns: 1,
            offsets: vec![7],
            cosize: 10,
        };
        let grid = matrix.to_grid();
        assert_eq!(grid.min_label_width, 2);
        assert_eq!(grid.cells[0].colour_key, 7);
        assert_eq!(grid.palette, Palette::Offsets);
    }
}
