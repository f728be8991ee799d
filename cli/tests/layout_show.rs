//! `cukc layout show` run as a user runs it: the text tables, the SVG pictures and
//! the error messages, each snapshotted with its exit code.

use std::path::PathBuf;
use std::process::Command;

/// Runs `cukc layout show ARGS` and writes what came back as one snapshot text.
fn show(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_cukc"))
        .args(["layout", "show"])
        .args(args)
        .output()
        .expect("cukc runs");
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        output
            .status
            .code()
            .map_or("none".to_owned(), |code| code.to_string()),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    )
}

/// Runs `cukc layout show ARGS --svg FILE` and returns the report and the picture.
fn show_svg(name: &str, args: &[&str]) -> (String, String) {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("layout_show_{name}.svg"));
    let _ = std::fs::remove_file(&path);
    let path_text = path.to_str().expect("the target directory is valid UTF-8");
    let mut all_args = args.to_vec();
    all_args.extend(["--svg", path_text]);
    let report = show(&all_args);
    let picture = std::fs::read_to_string(&path).unwrap_or_default();
    (report, picture)
}

#[test]
fn rank_two_layout_prints_like_cute_print_layout() {
    insta::assert_snapshot!(show(&["(4,3):(3,1)"]));
}

#[test]
fn hierarchical_layout_flattens_each_mode_into_rows_and_columns() {
    insta::assert_snapshot!(show(&["((2,2),3):((1,4),8)"]));
}

#[test]
fn rank_one_layout_is_one_column() {
    insta::assert_snapshot!(show(&["8:2"]));
}

#[test]
fn rank_three_layout_groups_the_last_modes_into_columns() {
    insta::assert_snapshot!(show(&["(2,2,3):(1,6,2)"]));
}

#[test]
fn swizzled_layout_prints_its_swizzled_offsets() {
    insta::assert_snapshot!(show(&["Sw<2,0,2> o 0 o (4,4):(4,1)"]));
}

#[test]
fn the_128_byte_swizzle_of_seed_001_prints_eight_rows() {
    let report = show(&["Sw<3,3,3> o 0 o (8,64):(64,1)"]);
    assert!(report.starts_with("exit: 0\n"), "{report}");
    let rows = report
        .lines()
        .filter(|line| line.starts_with(" 7  | "))
        .count();
    assert_eq!(rows, 1, "{report}");
}

#[test]
fn svg_of_a_small_layout() {
    let (report, picture) = show_svg("offsets", &["(2,3):(1,2)"]);
    assert_eq!(report, "exit: 0\n--- stdout\n--- stderr\n");
    insta::assert_snapshot!(picture);
}

#[test]
fn thread_value_table_labels_each_tile_cell() {
    // Four threads of two values: offset = 2 * thread + value, so on a 2 x 4 tile
    // (column-major) thread t owns column t.
    insta::assert_snapshot!(show(&["(4,2):(2,1)", "--tv", "(2,4)"]));
}

#[test]
fn thread_value_svg_colours_cells_by_thread() {
    let (report, picture) = show_svg("thread_value", &["(4,2):(2,1)", "--tv", "(2,4)"]);
    assert_eq!(report, "exit: 0\n--- stdout\n--- stderr\n");
    insta::assert_snapshot!(picture);
}

#[test]
fn seed_004_thread_value_layout_covers_its_8_by_128_tile_once() {
    let report = show(&["((16,8),8):((64,1),8)", "--tv", "(8,128)"]);
    assert!(report.starts_with("exit: 0\n"), "{report}");
    assert!(
        report.ends_with("--- stderr\n"),
        "no warning expected: {report}"
    );
    // Thread t holds row t / 16, columns 8 * (t % 16) .. 8 * (t % 16) + 7.
    let row_seven = report
        .lines()
        .find(|line| line.starts_with(" 7  | "))
        .unwrap_or_default();
    let labels: Vec<&str> = row_seven
        .split('|')
        .map(str::trim)
        .filter(|label| !label.is_empty())
        .collect();
    assert_eq!(labels.len(), 129, "row index and 128 cells: {row_seven}");
    assert_eq!(labels[1], "T112V0");
    assert_eq!(labels[128], "T127V7");
}

#[test]
fn replicating_thread_value_layout_warns_and_marks_cells() {
    // Every thread holds offsets 0 and 1: those cells are replicated, 2 and 3 empty.
    insta::assert_snapshot!(show(&["(4,2):(0,1)", "--tv", "(2,2)"]));
}

#[test]
fn replicating_thread_value_svg_marks_cells() {
    let (report, picture) = show_svg("replicated", &["(4,2):(0,1)", "--tv", "(2,2)"]);
    assert!(report.starts_with("exit: 0\n"), "{report}");
    assert!(
        picture.contains("red frame: hit by more than one"),
        "{picture}"
    );
    assert!(picture.contains("red slash: hit by none"), "{picture}");
}

#[test]
fn unreadable_layout_text_is_an_error() {
    insta::assert_snapshot!(show(&["(2,3:(1,2)"]));
}

#[test]
fn incongruent_shape_and_stride_is_an_error() {
    insta::assert_snapshot!(show(&["(2,3):(1,2,3)"]));
}

#[test]
fn tile_too_small_for_the_thread_value_layout_is_an_error() {
    insta::assert_snapshot!(show(&["(4,2):(2,1)", "--tv", "(2,2)"]));
}

#[test]
fn thread_value_layout_must_have_rank_two() {
    insta::assert_snapshot!(show(&["(4,2,2):(4,1,2)", "--tv", "(4,4)"]));
}

#[test]
fn unreadable_tile_shape_is_an_error() {
    insta::assert_snapshot!(show(&["(4,2):(2,1)", "--tv", "(2,x)"]));
}

#[test]
fn layout_too_large_to_draw_is_an_error() {
    insta::assert_snapshot!(show(&["(1024,1024):(1,1024)"]));
}

#[test]
fn unwritable_svg_path_exits_with_two() {
    let report = show(&["(2,2):(1,2)", "--svg", "/nonexistent-directory/picture.svg"]);
    assert!(report.starts_with("exit: 2\n"), "{report}");
    assert!(
        report.contains("error: cannot write /nonexistent-directory/picture.svg"),
        "{report}"
    );
}

#[test]
fn a_cuk_expression_shows_as_its_value() {
    let from_cuk = show(&["composition(swizzle(3,3,3), (8,64):(64,1))"]);
    assert_eq!(from_cuk, show(&["Sw<3,3,3> o 0 o (8,64):(64,1)"]));
    assert!(from_cuk.starts_with("exit: 0\n"), "{from_cuk}");
    insta::assert_snapshot!(show(&["nonsense(3)"]));
}

#[test]
fn symbolic_layout_prints_symbolic_offsets() {
    insta::assert_snapshot!(show(&["(4,3):(k,1)"]));
    let dynamic_shape = show(&["(m,3):(k,1)"]);
    assert!(dynamic_shape.starts_with("exit: 1\n"), "{dynamic_shape}");
    assert!(
        dynamic_shape.contains("only a layout with a static shape"),
        "{dynamic_shape}"
    );
}

#[test]
fn banks_of_a_swizzled_tile_are_labelled_and_coloured() {
    insta::assert_snapshot!(show(&[
        "composition(swizzle(2,0,2), (4,4):(4,1))",
        "--banks",
        "--element-bytes",
        "4"
    ]));
    let (report, picture) = show_svg(
        "banks",
        &[
            "Sw<2,0,2> o 0 o (4,4):(4,1)",
            "--banks",
            "--element-bytes",
            "4",
        ],
    );
    assert!(report.starts_with("exit: 0\n"), "{report}");
    // Bank 5 (row 1, column 0) takes the sixth bank hue.
    assert!(picture.contains("#bfa8f0"), "{picture}");
    let without_size = show(&["8:1", "--banks"]);
    assert!(without_size.starts_with("exit: 2\n"), "{without_size}");
    let symbolic = show(&["(4,3):(k,1)", "--banks", "--element-bytes", "2"]);
    assert!(
        symbolic.contains("--banks needs numeric offsets"),
        "{symbolic}"
    );
}

#[test]
fn the_svg_replaces_a_symbolic_link_and_leaves_its_target_alone() {
    let folder = tempfile::tempdir().expect("a scratch folder");
    let victim = folder.path().join("victim.txt");
    std::fs::write(&victim, "precious").expect("written");
    let link = folder.path().join("picture.svg");
    std::os::unix::fs::symlink(&victim, &link).expect("a symbolic link");
    let link_text = link.to_str().expect("a UTF-8 path");
    show(&["(2,3):(1,2)", "--svg", link_text]);
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "precious");
    let written = std::fs::symlink_metadata(&link).expect("the picture");
    assert!(written.is_file(), "the link was followed, not replaced");
    assert!(
        std::fs::read_to_string(&link)
            .expect("read")
            .contains("<svg")
    );
}
