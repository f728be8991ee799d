//! A [`Grid`] drawn as an SVG picture, written with plain string formatting.
//!
//! The picture has the title on top, column coordinates above the cells, row
//! coordinates on their left, and each cell filled from the grid's palette with its
//! label centred in it. Cells hit more than once get a red inner frame; cells never
//! hit are left white with a red slash; a legend line explains the marks present.
//! Every coordinate is an integer and the element order is fixed, so equal grids
//! give byte-identical pictures.

use std::fmt::Write as _;

use super::grid::{Cell, CellMark, Grid, Palette};

/// Width allowed per character of the 12 px monospace cell font (a little over its
/// 0.6 em advance, so labels never touch the cell borders).
const CHAR_WIDTH: usize = 8;
/// Space around the whole picture.
const MARGIN: usize = 10;
/// Height of the title line and of the legend line.
const HEADING_HEIGHT: usize = 22;
/// Height of the row of column coordinates.
const AXIS_HEIGHT: usize = 18;
/// The narrowest cell.
const MIN_CELL_WIDTH: usize = 32;
/// Cell heights for one-line and two-line labels.
const ONE_LINE_HEIGHT: usize = 24;
const TWO_LINE_HEIGHT: usize = 36;

/// Greys for offsets, lightest first, in an order that keeps neighbouring offsets
/// apart: offset `k` takes entry `k mod 8`.
const OFFSET_SHADES: [&str; 8] = [
    "#ffffff", "#bfbfbf", "#dfdfdf", "#9f9f9f", "#efefef", "#afafaf", "#cfcfcf", "#8f8f8f",
];
/// Light hues for threads: thread `t` takes entry `t mod 7`. Seven is prime, so
/// threads a power of two apart (the usual thread strides) never share a hue.
const THREAD_HUES: [&str; 7] = [
    "#aab4ff", "#aaf0aa", "#fff09a", "#ffb0b0", "#d4c4ff", "#a8ecec", "#ffd4a4",
];
/// Light hues for the 32 shared-memory banks: bank `b` takes entry `b`; hues go round
/// the wheel in steps of 11/32, so neighbouring banks look unlike.
pub const BANK_HUES: [&str; 32] = [
    "#f0a8a8", "#a8f0ad", "#b1a8f0", "#f0b6a8", "#a8f0ba", "#bfa8f0", "#f0c3a8", "#a8f0c8",
    "#cca8f0", "#f0d0a8", "#a8f0d5", "#d9a8f0", "#f0dea8", "#a8f0e2", "#e7a8f0", "#f0eba8",
    "#a8f0f0", "#f0a8eb", "#e7f0a8", "#a8e2f0", "#f0a8de", "#d9f0a8", "#a8d5f0", "#f0a8d0",
    "#ccf0a8", "#a8c8f0", "#f0a8c3", "#bff0a8", "#a8baf0", "#f0a8b6", "#b1f0a8", "#a8adf0",
];
/// The colour of the marks on replicated and empty cells.
const MARK_COLOUR: &str = "#c00000";

/// Sizes of one picture, worked out from the grid's labels.
struct Geometry {
    cell_width: usize,
    cell_height: usize,
    /// Left edge of column 0.
    grid_left: usize,
    /// Top edge of row 0.
    grid_top: usize,
    width: usize,
    height: usize,
}

impl Geometry {
    fn of(grid: &Grid, has_legend: bool) -> Geometry {
        let widest_line = grid
            .cells
            .iter()
            .flat_map(|cell| std::iter::once(&cell.label).chain(&cell.second_line))
            .map(String::len)
            .max()
            .unwrap_or(1);
        let two_lines = grid.cells.iter().any(|cell| cell.second_line.is_some());
        let cell_width = (CHAR_WIDTH * widest_line + 12).max(MIN_CELL_WIDTH);
        let cell_height = if two_lines {
            TWO_LINE_HEIGHT
        } else {
            ONE_LINE_HEIGHT
        };
        let row_label_width = CHAR_WIDTH * grid.rows.saturating_sub(1).to_string().len() + 10;
        let grid_left = MARGIN + row_label_width;
        let headings = if has_legend { 2 } else { 1 };
        let grid_top = MARGIN + headings * HEADING_HEIGHT + AXIS_HEIGHT;
        let heading_width = |text_len: usize| 2 * MARGIN + (CHAR_WIDTH + 1) * text_len;
        let width = (grid_left + cell_width.saturating_mul(grid.columns) + MARGIN)
            .max(heading_width(grid.title.len()))
            .max(if has_legend {
                heading_width(legend(grid).len())
            } else {
                0
            });
        let height = grid_top + cell_height.saturating_mul(grid.rows) + MARGIN;
        Geometry {
            cell_width,
            cell_height,
            grid_left,
            grid_top,
            width,
            height,
        }
    }
}

/// The legend line explaining the marks the grid uses.
fn legend(grid: &Grid) -> String {
    let mut parts = Vec::new();
    if grid.has_mark(CellMark::HitMoreThanOnce) {
        parts.push("red frame: hit by more than one (thread, value), the first shown");
    }
    if grid.has_mark(CellMark::NeverHit) {
        parts.push("red slash: hit by none");
    }
    parts.join("; ")
}

/// The fill colour of a cell.
pub fn fill(palette: Palette, cell: &Cell) -> &'static str {
    let table: &[&'static str] = match (cell.mark, palette) {
        (CellMark::NeverHit, _) => return "#ffffff",
        (_, Palette::Offsets) => &OFFSET_SHADES,
        (_, Palette::Threads) => &THREAD_HUES,
        (_, Palette::Banks) => &BANK_HUES,
    };
    let entry = cell.colour_key.rem_euclid(table.len() as i64);
    usize::try_from(entry)
        .ok()
        .and_then(|entry| table.get(entry))
        .copied()
        .unwrap_or("#ffffff")
}

/// Replaces the characters XML gives meaning to by their entities.
pub fn escape_text(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            other => escaped.push(other),
        }
    }
    escaped
}

/// The grid as a standalone SVG document.
pub fn render(grid: &Grid) -> String {
    let has_legend = grid.has_mark(CellMark::HitMoreThanOnce) || grid.has_mark(CellMark::NeverHit);
    let geometry = Geometry::of(grid, has_legend);
    let Geometry {
        cell_width,
        cell_height,
        grid_left,
        grid_top,
        width,
        height,
    } = geometry;

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace">"##
    );
    let _ = writeln!(
        svg,
        r##"<rect width="{width}" height="{height}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        svg,
        r##"<text x="{MARGIN}" y="{}" font-size="15" font-weight="bold">{}</text>"##,
        MARGIN + 15,
        escape_text(&grid.title)
    );
    if has_legend {
        let _ = writeln!(
            svg,
            r##"<text x="{MARGIN}" y="{}" font-size="12" fill="{MARK_COLOUR}">{}</text>"##,
            MARGIN + HEADING_HEIGHT + 15,
            escape_text(&legend(grid))
        );
    }

    let _ = writeln!(
        svg,
        r##"<g font-size="12" text-anchor="middle" fill="#505050">"##
    );
    for column in 0..grid.columns {
        let x = grid_left + column * cell_width + cell_width / 2;
        let _ = writeln!(
            svg,
            r##"<text x="{x}" y="{}">{column}</text>"##,
            grid_top - 5
        );
    }
    for row in 0..grid.rows {
        let y = grid_top + row * cell_height + cell_height / 2 + 4;
        let _ = writeln!(
            svg,
            r##"<text x="{}" y="{y}" text-anchor="end">{row}</text>"##,
            grid_left - 6
        );
    }
    svg.push_str("</g>\n");

    let _ = writeln!(
        svg,
        r##"<g font-size="12" text-anchor="middle" stroke-width="1">"##
    );
    for row in 0..grid.rows {
        for column in 0..grid.columns {
            let Some(cell) = grid.cell(row, column) else {
                continue;
            };
            let left = grid_left + column * cell_width;
            let top = grid_top + row * cell_height;
            write_cell(
                &mut svg,
                grid.palette,
                cell,
                (left, top),
                (cell_width, cell_height),
            );
        }
    }
    svg.push_str("</g>\n</svg>\n");
    svg
}

/// One cell: its filled square, its mark and its label lines.
fn write_cell(
    svg: &mut String,
    palette: Palette,
    cell: &Cell,
    (left, top): (usize, usize),
    (width, height): (usize, usize),
) {
    let _ = writeln!(
        svg,
        r##"<rect x="{left}" y="{top}" width="{width}" height="{height}" fill="{}" stroke="#000000"/>"##,
        fill(palette, cell)
    );
    match cell.mark {
        CellMark::Plain => {}
        CellMark::HitMoreThanOnce => {
            let _ = writeln!(
                svg,
                r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{MARK_COLOUR}" stroke-width="2"/>"##,
                left + 3,
                top + 3,
                width - 6,
                height - 6
            );
        }
        CellMark::NeverHit => {
            let _ = writeln!(
                svg,
                r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{MARK_COLOUR}" stroke-width="2"/>"##,
                left + 4,
                top + height - 4,
                left + width - 4,
                top + 4
            );
            return;
        }
    }
    let centre = left + width / 2;
    match &cell.second_line {
        None => {
            let _ = writeln!(
                svg,
                r##"<text x="{centre}" y="{}">{}</text>"##,
                top + height / 2 + 4,
                escape_text(&cell.label)
            );
        }
        Some(second) => {
            let _ = writeln!(
                svg,
                r##"<text x="{centre}" y="{}">{}</text>"##,
                top + height / 2 - 3,
                escape_text(&cell.label)
            );
            let _ = writeln!(
                svg,
                r##"<text x="{centre}" y="{}">{}</text>"##,
                top + height / 2 + 11,
                escape_text(second)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_row(labels: &[&str], palette: Palette) -> Grid {
        Grid {
            title: "a<b & \"c\"".to_owned(),
            rows: 1,
            columns: labels.len(),
            cells: labels
                .iter()
                .zip(0..)
                .map(|(label, key)| Cell::plain((*label).to_owned(), key))
                .collect(),
            min_label_width: 1,
            palette,
        }
    }

    #[test]
    fn escaping_covers_the_five_xml_characters() {
        assert_eq!(
            escape_text(r##"<a href="x">'&'</a>"##),
            "&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;"
        );
    }

    #[test]
    fn the_title_is_escaped_and_cells_are_coloured_by_key() {
        let svg = render(&one_row(&["0", "1"], Palette::Offsets));
        assert!(svg.contains(">a&lt;b &amp; &quot;c&quot;</text>"), "{svg}");
        assert!(
            svg.contains(r##"fill="#ffffff" stroke="#000000""##),
            "{svg}"
        );
        assert!(
            svg.contains(r##"fill="#bfbfbf" stroke="#000000""##),
            "{svg}"
        );
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.ends_with("</svg>\n"));
    }

    #[test]
    fn negative_keys_wrap_into_the_palette() {
        let cell = Cell::plain("-1".to_owned(), -1);
        assert_eq!(fill(Palette::Threads, &cell), THREAD_HUES[6]);
        assert_eq!(fill(Palette::Offsets, &cell), OFFSET_SHADES[7]);
    }

    #[test]
    fn marks_add_a_legend_and_their_shapes() {
        let mut grid = one_row(&["T0", "-"], Palette::Threads);
        grid.cells[0].mark = CellMark::HitMoreThanOnce;
        grid.cells[1].mark = CellMark::NeverHit;
        let svg = render(&grid);
        assert!(svg.contains("red frame: hit by more than one"), "{svg}");
        assert!(svg.contains("red slash: hit by none"), "{svg}");
        assert!(svg.contains(r##"fill="none" stroke="#c00000""##), "{svg}");
        assert!(svg.contains("<line "), "{svg}");
    }

    #[test]
    fn wide_labels_widen_the_cells() {
        let narrow = Geometry::of(&one_row(&["1"], Palette::Offsets), false);
        let wide = Geometry::of(&one_row(&["123456"], Palette::Offsets), false);
        assert_eq!(narrow.cell_width, MIN_CELL_WIDTH);
        assert_eq!(wide.cell_width, 6 * CHAR_WIDTH + 12);
    }
}
