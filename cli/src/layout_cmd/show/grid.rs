//! The picture both renderers draw: a titled grid of labelled, coloured cells.
//!
//! This is plain data with no knowledge of layouts. [`super::offsets`] fills it with a
//! layout's offsets and [`super::thread_value`] with a tile's thread-value labels;
//! [`Grid::to_text`] prints it as CuTe's `print_layout` prints a layout, and
//! [`super::svg`] draws it.

use std::fmt::Write as _;

/// Which family of fill colours a grid's cells use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Palette {
    /// Greys cycling over the offset, so equal offsets share a shade.
    Offsets,
    /// Distinct light hues cycling over the thread index.
    Threads,
    /// One light hue per shared-memory bank (the key is the bank, 0 to 31).
    Banks,
}

/// How a cell stands out from an ordinary one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellMark {
    /// Nothing unusual.
    Plain,
    /// More than one (thread, value) lands here; the label shows the first.
    HitMoreThanOnce,
    /// No (thread, value) lands here.
    NeverHit,
}

/// One cell: its label (one or two lines), its colour key and its mark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The first (or only) line of the label, e.g. an offset or `T3`.
    pub label: String,
    /// An optional second line, e.g. `V1`; the text table joins it to the first.
    pub second_line: Option<String>,
    /// Chooses the fill colour: an offset or a thread index, reduced by the palette.
    pub colour_key: i64,
    /// Whether the cell is replicated or empty.
    pub mark: CellMark,
}

impl Cell {
    /// An unmarked one-line cell.
    pub fn plain(label: String, colour_key: i64) -> Cell {
        Cell {
            label,
            second_line: None,
            colour_key,
            mark: CellMark::Plain,
        }
    }

    /// The label on one line, with `*` after a cell hit more than once.
    pub fn text_label(&self) -> String {
        let mut text = self.label.clone();
        if let Some(second) = &self.second_line {
            text.push_str(second);
        }
        if self.mark == CellMark::HitMoreThanOnce {
            text.push('*');
        }
        text
    }
}

/// A `rows` × `columns` grid of cells stored row by row, under a title.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    /// The first line of the text table and the picture's heading.
    pub title: String,
    /// Number of rows (mode 0 of the layout or of the tile).
    pub rows: usize,
    /// Number of columns (the remaining modes).
    pub columns: usize,
    /// `rows * columns` cells, row-major.
    pub cells: Vec<Cell>,
    /// The narrowest text column allowed, as CuTe sizes it from the codomain.
    pub min_label_width: usize,
    /// The colours the renderers fill cells with.
    pub palette: Palette,
}

impl Grid {
    /// The cell at (`row`, `column`), if inside the grid.
    pub fn cell(&self, row: usize, column: usize) -> Option<&Cell> {
        if column >= self.columns {
            return None;
        }
        self.cells
            .get(row.checked_mul(self.columns)?.checked_add(column)?)
    }

    /// Whether any cell carries `mark`.
    pub fn has_mark(&self, mark: CellMark) -> bool {
        self.cells.iter().any(|cell| cell.mark == mark)
    }

    /// The table as CuTe's `print_layout` prints it: the title, the column indices,
    /// then each row between `+---+` separators with its index on the left and each
    /// label right-aligned in a column as wide as the widest label.
    pub fn to_text(&self) -> String {
        self.text_with(&|_, label| label.to_owned())
    }

    /// [`Self::to_text`] with each cell's background in `fill(cell)` (`#rrggbb`) as a
    /// 24-bit ANSI colour, for a terminal.
    pub fn to_ansi_text(&self, fill: &dyn Fn(&Cell) -> &'static str) -> String {
        self.text_with(&|cell, label| {
            let hex = fill(cell).trim_start_matches('#');
            let channel = |at: usize| {
                hex.get(at..at + 2)
                    .and_then(|digits| u8::from_str_radix(digits, 16).ok())
                    .unwrap_or(255)
            };
            format!(
                "\x1b[30;48;2;{};{};{}m{label}\x1b[0m",
                channel(0),
                channel(2),
                channel(4)
            )
        })
    }

    /// The table, each padded label passed through `paint` with its cell.
    fn text_with(&self, paint: &dyn Fn(&Cell, &str) -> String) -> String {
        let labels: Vec<String> = self.cells.iter().map(Cell::text_label).collect();
        let label_width = labels
            .iter()
            .map(String::len)
            .chain(std::iter::once(self.min_label_width))
            .max()
            .unwrap_or(1);
        let separator = format!(
            "    {}+\n",
            format!("+{}", "-".repeat(label_width + 2)).repeat(self.columns)
        );

        let mut text = String::new();
        let _ = writeln!(text, "{}", self.title);
        text.push_str("    ");
        for column in 0..self.columns {
            let _ = write!(text, "  {column:>label_width$} ");
        }
        text.push('\n');
        for row in 0..self.rows {
            text.push_str(&separator);
            let _ = write!(text, "{row:>2}  ");
            for column in 0..self.columns {
                let index = row * self.columns + column;
                let label = labels.get(index).map_or("", String::as_str);
                let padded = format!(" {label:>label_width$} ");
                let painted = self
                    .cells
                    .get(index)
                    .map_or(padded.clone(), |cell| paint(cell, &padded));
                let _ = write!(text, "|{painted}");
            }
            text.push_str("|\n");
        }
        text.push_str(&separator);
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_by_three() -> Grid {
        let cells = [0, 2, 4, 1, 3, 5]
            .into_iter()
            .map(|offset| Cell::plain(offset.to_string(), offset))
            .collect();
        Grid {
            title: "(2,3):(1,2)".to_owned(),
            rows: 2,
            columns: 3,
            cells,
            min_label_width: 1,
            palette: Palette::Offsets,
        }
    }

    #[test]
    fn text_table_has_cute_print_layout_shape() {
        let expected = "\
(2,3):(1,2)
      0   1   2 
    +---+---+---+
 0  | 0 | 2 | 4 |
    +---+---+---+
 1  | 1 | 3 | 5 |
    +---+---+---+
";
        assert_eq!(two_by_three().to_text(), expected);
    }

    #[test]
    fn minimum_width_widens_every_column() {
        let mut grid = two_by_three();
        grid.min_label_width = 3;
        let text = grid.to_text();
        assert!(text.contains("|   0 |   2 |   4 |"), "{text}");
        assert!(text.contains("+-----+"), "{text}");
    }

    #[test]
    fn ansi_text_paints_each_cell_and_nothing_else() {
        let grid = two_by_three();
        let text = grid.to_ansi_text(&|_| "#10ff00");
        assert_eq!(text.matches("\x1b[30;48;2;16;255;0m").count(), 6);
        let plain = text
            .replace("\x1b[30;48;2;16;255;0m", "")
            .replace("\x1b[0m", "");
        assert_eq!(plain, grid.to_text());
    }

    #[test]
    fn marked_cells_get_a_star_and_join_their_lines() {
        let cell = Cell {
            label: "T1".to_owned(),
            second_line: Some("V0".to_owned()),
            colour_key: 1,
            mark: CellMark::HitMoreThanOnce,
        };
        assert_eq!(cell.text_label(), "T1V0*");
    }

    #[test]
    fn cell_lookup_rejects_out_of_range_coordinates() {
        let grid = two_by_three();
        assert_eq!(grid.cell(1, 2).map(|cell| cell.colour_key), Some(5));
        assert!(grid.cell(0, 3).is_none());
        assert!(grid.cell(2, 0).is_none());
    }
}
