//! Shared-memory banks: which of the 32 four-byte banks each element of a layout's
//! offset table falls in, for `cukc layout show --banks --element-bytes N`. A row of
//! a swizzled shared-memory tile that touches every bank once is read without
//! conflicts; the picture shows each cell's bank, coloured by bank, and
//! [`worst_conflicts`] says how many words of a row, and of a column, share the
//! busiest bank.

use super::grid::{Cell, Grid, Palette};
use super::offsets::OffsetMatrix;

/// Banks per SM: 32, each 4 bytes wide.
pub const BANKS: i64 = 32;

/// The bank of the element at `offset` (in elements) of `element_bytes` bytes.
pub fn bank_of(offset: i64, element_bytes: u32) -> i64 {
    offset
        .saturating_mul(i64::from(element_bytes))
        .div_euclid(4)
        .rem_euclid(BANKS)
}

/// The offset table's cells labelled and coloured by bank.
pub fn bank_grid(matrix: &OffsetMatrix, element_bytes: u32) -> Grid {
    Grid {
        title: format!(
            "{}: bank of each {element_bytes}-byte element (32 banks of 4 bytes)",
            matrix.title
        ),
        rows: matrix.rows,
        columns: matrix.columns,
        cells: matrix
            .offsets
            .iter()
            .map(|&offset| {
                let bank = bank_of(offset, element_bytes);
                Cell::plain(bank.to_string(), bank)
            })
            .collect(),
        min_label_width: 2,
        palette: Palette::Banks,
    }
}

/// How many distinct 4-byte words of the busiest row, and of the busiest column,
/// share one bank: 1 is conflict-free, 8 means an access serialises eight ways.
pub fn worst_conflicts(matrix: &OffsetMatrix, element_bytes: u32) -> (usize, usize) {
    let columns = matrix.columns.max(1);
    let row_worst = matrix
        .offsets
        .chunks(columns)
        .map(|row| busiest_bank(row.iter().copied(), element_bytes))
        .max()
        .unwrap_or(1);
    let column_worst = (0..matrix.columns)
        .map(|column| {
            let cells = matrix.offsets.iter().skip(column).step_by(columns);
            busiest_bank(cells.copied(), element_bytes)
        })
        .max()
        .unwrap_or(1);
    (row_worst, column_worst)
}

/// The most distinct words of `offsets` that fall in one bank.
fn busiest_bank(offsets: impl Iterator<Item = i64>, element_bytes: u32) -> usize {
    let mut words: Vec<i64> = offsets
        .map(|offset| {
            offset
                .saturating_mul(i64::from(element_bytes))
                .div_euclid(4)
        })
        .collect();
    words.sort_unstable();
    words.dedup();
    let mut per_bank = [0usize; BANKS as usize];
    for word in words {
        per_bank[word.rem_euclid(BANKS) as usize] += 1;
    }
    per_bank.into_iter().max().unwrap_or(0).max(1)
}

#[cfg(test)]
mod tests {
    use super::{bank_grid, bank_of, worst_conflicts};
    use crate::layout_cmd::show::offsets::OffsetMatrix;

    fn matrix(rows: usize, columns: usize, offsets: Vec<i64>) -> OffsetMatrix {
        OffsetMatrix {
            title: "t".to_owned(),
            rows,
            columns,
            offsets,
            cosize: 0,
        }
    }

    #[test]
    fn banks_are_four_byte_words_modulo_32() {
        assert_eq!(bank_of(0, 2), 0);
        assert_eq!(bank_of(1, 2), 0, "two bf16 share a word");
        assert_eq!(bank_of(2, 2), 1);
        assert_eq!(bank_of(64, 2), 0, "128 bytes later the banks repeat");
        assert_eq!(bank_of(33, 4), 1);
        assert_eq!(bank_of(1, 16), 4, "a 16-byte element spans banks 4 to 7");
    }

    #[test]
    fn a_column_of_a_row_major_tile_conflicts_and_a_swizzled_one_does_not() {
        // Column 0 of (8,64):(64,1) in bf16: every row starts at bank 0.
        let column = matrix(8, 1, (0..8).map(|row| 64 * row).collect());
        assert_eq!(worst_conflicts(&column, 2), (1, 8));
        // Sw<3,3,3> moves the 16-byte chunk of row r to chunk r: eight distinct banks.
        let swizzled = matrix(1, 8, (0..8).map(|row| 64 * row + 8 * row).collect());
        assert_eq!(worst_conflicts(&swizzled, 2), (1, 1));
        let grid = bank_grid(&swizzled, 2);
        let labels: Vec<&str> = grid.cells.iter().map(|cell| cell.label.as_str()).collect();
        assert_eq!(labels, ["0", "4", "8", "12", "16", "20", "24", "28"]);
    }
}
