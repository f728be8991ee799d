//! Stage inference and const evaluation, read back from the bindings the checker
//! records (what `--dump-types` prints and hovers show). The layout values are the
//! ones CuTe's documentation gives for the same calls.

use std::path::Path;

use cute::Target;
use typecheck::Binding;

fn bindings(name: &str) -> Vec<Binding> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/typecheck")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{name}: {error}"));
    let (module, parse) = grammar::parse(&text);
    assert!(parse.is_empty(), "{parse:?}");
    let analysis = typecheck::check(&module, Target::Sm80);
    assert!(
        analysis.diagnostics.is_empty(),
        "{:#?}",
        analysis.diagnostics
    );
    analysis.bindings
}

fn find<'b>(bindings: &'b [Binding], name: &str) -> &'b Binding {
    bindings
        .iter()
        .find(|binding| binding.name == name)
        .unwrap_or_else(|| panic!("no binding `{name}`"))
}

#[test]
fn const_values_propagate_through_let_and_dyn_values_through_arithmetic() {
    let bindings = bindings("pass_stage_inference.cuk");
    let half = find(&bindings, "HALF");
    assert_eq!(
        (half.contents.as_deref(), half.dyn_reason.as_deref()),
        (Some("32"), None)
    );
    let rows = find(&bindings, "rows");
    assert_eq!(
        (
            rows.type_name.as_str(),
            rows.contents.as_deref(),
            rows.dyn_reason.as_deref()
        ),
        ("int", Some("40"), None)
    );
    let row = find(&bindings, "row");
    assert_eq!(row.type_name, "i32");
    assert_eq!(row.contents.as_deref(), Some("64*block_idx.x+40"));
    assert_eq!(
        row.dyn_reason.as_deref(),
        Some("`block_idx.x` is the block's index in the grid")
    );
    let extent = find(&bindings, "extent");
    assert_eq!(
        extent.dyn_reason.as_deref(),
        Some("`k` is a kernel argument")
    );
    // A tile of a run-time-strided tensor: const shape, the run-time stride kept.
    let tile = find(&bindings, "tile");
    assert_eq!(
        tile.contents.as_deref(),
        Some("(64,64):(k,1) @ offset 64*block_idx.x*k")
    );
    let sizes = find(&bindings, "sizes");
    assert_eq!(
        (sizes.contents.as_deref(), sizes.dyn_reason.as_deref()),
        (Some("(4096,4096)"), None)
    );
    let counter = find(&bindings, "j");
    assert_eq!(
        counter.dyn_reason.as_deref(),
        Some("`j` is the counter of a run-time loop")
    );
    // `if const step == 14` ran its body exactly for the unrolled i = 7.
    assert_eq!(find(&bindings, "last").contents.as_deref(), Some("14"));
}

#[test]
fn layout_algebra_folds_to_cute_values() {
    let bindings = bindings("pass_layout_algebra.cuk");
    for (name, expected) in [
        ("COMPOSED", "((2,2),3):((24,2),8)"),
        ("DIVIDED", "((2,2),(2,3)):((4,1),(2,8))"),
        ("ZIPPED", "((4,8),(3,4)):((32,1),(128,8))"),
        ("PRODUCT", "((2,3),(2,4)):((1,4),(2,12))"),
        ("INVERSE", "(8,4):(4,1)"),
        ("COMPLEMENT", "2:24"),
        ("TILER", "(16,128)"),
        ("TV", "((32,4),(4,4)):((64,4),(16,1))"),
        ("SWIZZLED", "Sw<3,3,3> o 0 o (8,64):(64,1)"),
        ("VALUE", "7"),
        ("FIRST", "16"),
        ("COORD_OK", "true"),
    ] {
        let binding = find(&bindings, name);
        assert_eq!(binding.contents.as_deref(), Some(expected), "{name}");
        assert_eq!(binding.dyn_reason, None, "{name} is const");
    }
}
