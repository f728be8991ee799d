//! Generates the parser from `src/grammar.lalrpop` into `OUT_DIR`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    lalrpop::Configuration::new()
        .use_cargo_dir_conventions()
        .emit_rerun_directives(true)
        .process()
}
