//! Limits and recovery: deep input is refused without recursion, and a few
//! AST-level effects of recovery (what the tree holds after a diagnostic).

use lang::ast::{ExprKind, ItemKind, LaunchKind, StmtKind};

fn codes(text: &str) -> Vec<&'static str> {
    grammar::parse(text)
        .1
        .iter()
        .map(|diagnostic| diagnostic.code)
        .collect()
}

#[test]
fn deep_brackets_are_refused_at_the_bracket_past_the_limit() {
    let text = format!("const X = {}1{};", "(".repeat(10_000), ")".repeat(10_000));
    let (module, diagnostics) = grammar::parse(&text);
    assert!(module.items.is_empty());
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].code, "E0110");
    let limit = grammar::nesting::MAX_BRACKET_DEPTH;
    assert_eq!(diagnostics[0].primary.span.range(), 10 + limit..11 + limit);
}

#[test]
fn nesting_just_under_the_limit_parses() {
    let depth = grammar::nesting::MAX_BRACKET_DEPTH - 2;
    let text = format!(
        "fn f() {{ let x = {}1{}; }}",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    assert_eq!(codes(&text), Vec::<&str>::new());
}

#[test]
fn long_operator_chains_are_refused_not_overflowed() {
    for text in [
        format!("const X = {}1;", "-".repeat(50_000)),
        format!("const X = 1{};", " + 1".repeat(50_000)),
        format!("const X = f{};", "()".repeat(50_000)),
        format!("const X = a{};", ".b".repeat(50_000)),
    ] {
        assert_eq!(codes(&text), ["E0110"]);
    }
    let sum = format!("const X = 1{};", " + 1".repeat(500));
    assert_eq!(
        codes(&sum),
        Vec::<&str>::new(),
        "a long but reasonable sum is fine"
    );
}

#[test]
fn many_statements_do_not_add_up_to_a_deep_expression() {
    let body = "for i in 0..n { x = -x; }\n".repeat(3_000);
    assert_eq!(codes(&format!("fn f() {{ {body} }}")), Vec::<&str>::new());
}

#[test]
fn keyword_as_name_keeps_the_binding() {
    let (module, diagnostics) = grammar::parse("fn f() { let kernel = 3; let y = 4; }");
    assert_eq!(
        diagnostics
            .iter()
            .map(|diagnostic| diagnostic.code)
            .collect::<Vec<_>>(),
        ["E0109"]
    );
    let ItemKind::Function(function) = &module.items[0].kind else {
        panic!("a function")
    };
    assert_eq!(function.body.statements.len(), 2);
    assert!(matches!(
        function.body.statements[0].kind,
        StmtKind::Let { .. }
    ));
}

#[test]
fn a_tuple_called_like_a_function_is_read_as_the_layout() {
    let (module, diagnostics) = grammar::parse("const L = (4, 3)(1, 4);");
    assert_eq!(
        diagnostics
            .iter()
            .map(|diagnostic| diagnostic.code)
            .collect::<Vec<_>>(),
        ["E0113"]
    );
    let ItemKind::Const(constant) = &module.items[0].kind else {
        panic!("a const")
    };
    assert!(matches!(constant.value.kind, ExprKind::Layout { .. }));
}

#[test]
fn congruence_is_checked_only_where_both_sides_are_written() {
    assert_eq!(codes("const A = (4, 3):(1, 4, 2);"), ["E0112"]);
    assert_eq!(codes("const B = ((2, 2), 3):(4, 8);"), ["E0112"]);
    assert_eq!(codes("const C = 8:(1, 2);"), ["E0112"]);
    assert_eq!(codes("const D = (4, 3):S;"), Vec::<&str>::new());
    assert_eq!(codes("const E = ((2, 2), 3):(s, 8);"), Vec::<&str>::new());
    let (_, diagnostics) = grammar::parse("const F = ((2, 2), 3):((1, 4, 9), 8);");
    assert!(
        diagnostics[0].message.contains("in mode 0"),
        "{}",
        diagnostics[0].message
    );
}

#[test]
fn launch_parts_are_checked() {
    let (module, diagnostics) =
        grammar::parse("kernel k(n: i32) launch grid(n) block(32) cluster(2, 1) smem(auto) {}");
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let ItemKind::Kernel(kernel) = &module.items[0].kind else {
        panic!("a kernel")
    };
    let kinds: Vec<LaunchKind> = kernel.launch.iter().map(|part| part.kind).collect();
    assert_eq!(
        kinds,
        [
            LaunchKind::Grid,
            LaunchKind::Block,
            LaunchKind::Cluster,
            LaunchKind::Smem
        ]
    );
    assert_eq!(codes("kernel k() {}"), ["E0114"]);
    assert_eq!(
        codes("kernel k() launch grid(1) block(1, 2, 3, 4) {}"),
        ["E0115"]
    );
    assert_eq!(
        codes("kernel k() launch grid(1) block(1) smem() {}"),
        ["E0115"]
    );
}

#[test]
fn three_independent_mistakes_give_three_diagnostics() {
    let text =
        "fn f() {\n    let a = 1 +;\n    let b = (1 2);\n    let c = 3 4;\n    let ok = 5;\n}\n";
    assert_eq!(codes(text), ["E0107", "E0107", "E0107"]);
}

#[test]
fn misspelled_keywords_get_a_suggestion() {
    let (_, diagnostics) = grammar::parse("kernal k() {}\nfn f() {\n    lett x = 3;\n}\n");
    let helps: Vec<Option<&str>> = diagnostics
        .iter()
        .map(|diagnostic| diagnostic.help.as_deref())
        .collect();
    assert_eq!(
        helps,
        [
            Some("did you mean the keyword `kernel`?"),
            Some("did you mean the keyword `let`?")
        ]
    );
}

#[test]
fn a_missing_name_is_not_a_misused_keyword() {
    assert_eq!(codes("fn f() { let = 3; }"), ["E0107"]);
    assert_eq!(codes("fn f() { let mut = 3; }"), ["E0107"]);
    assert_eq!(codes("fn f(static: i32) {}"), ["E0109"]);
    assert_eq!(codes("fn f() { g(in = 1); }"), ["E0109"]);
}

#[test]
fn a_launch_clause_without_launch_gets_a_hint() {
    let (_, diagnostics) = grammar::parse("kernel k(n: i32) grid(n) block(32) {}");
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(diagnostics[0].code, "E0107");
    assert!(
        diagnostics[0]
            .help
            .as_deref()
            .is_some_and(|help| help.contains("starts with `launch`"))
    );
}

#[test]
fn a_file_of_stray_characters_stops_at_the_lexical_error_limit() {
    let limit = grammar::lexer::MAX_LEXICAL_ERRORS;
    let text = "@\n".repeat(1_000_000);
    let (module, diagnostics) = grammar::parse(&text);
    assert!(module.items.is_empty());
    assert_eq!(diagnostics.len(), limit + 1);
    assert!(
        diagnostics[..limit]
            .iter()
            .all(|diagnostic| diagnostic.code == "E0101")
    );
    let gave_up = &diagnostics[limit];
    assert_eq!(gave_up.code, "E0116");
    assert_eq!(gave_up.primary.span.range(), 2 * limit..2 * limit);
}

#[test]
fn errors_up_to_the_limit_are_all_reported_and_parsing_goes_on() {
    let limit = grammar::lexer::MAX_LEXICAL_ERRORS;
    let text = format!("{}fn f() {{ let x = 1 +; }}\n", "@\n".repeat(limit));
    let found = codes(&text);
    assert_eq!(found.len(), limit + 1, "{found:?}");
    assert_eq!(found.last(), Some(&"E0107"));
}

#[test]
fn three_hundred_thousand_comment_lines_lex_without_recursion() {
    let (module, diagnostics) = grammar::parse(&"// x\n".repeat(300_000));
    assert!(module.items.is_empty());
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let blanks = format!("{}const X: int = 1;\n", "\n \t// c\n".repeat(300_000));
    assert_eq!(codes(&blanks), Vec::<&str>::new());
}

#[test]
fn a_file_past_the_token_limit_is_refused_at_the_first_token_past_it() {
    let limit = grammar::lexer::MAX_TOKENS;
    // Eleven tokens a line; the limit falls inside line `limit / 11`.
    let text = "let x = (a + b) * c;\n".repeat(limit / 11 + 1);
    let (module, diagnostics) = grammar::parse(&text);
    assert!(module.items.is_empty());
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].code, "E0117");
    let line_start = (limit / 11) * 21;
    let token_in_line = limit % 11;
    let offsets = [0, 4, 6, 8, 9, 11, 13, 14, 16, 18, 19];
    assert_eq!(
        diagnostics[0].primary.span.start as usize,
        line_start + offsets[token_in_line]
    );
    let just_under = "let x = (a + b) * c;\n".repeat(limit / 11);
    assert!(
        grammar::parse(&just_under)
            .1
            .iter()
            .all(|d| d.code != "E0117")
    );
}
