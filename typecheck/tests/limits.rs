//! Inputs that once crashed or ran away: deep but finite chains, self-reference and
//! exponential symbolic arithmetic end in a diagnostic, on any caller's stack.

use cute::Target;

/// The codes `text` produces, parsed and checked as `cukc check` does.
fn codes(text: &str) -> Vec<&'static str> {
    let (module, errors) = grammar::parse(text);
    assert!(errors.is_empty(), "{errors:?}");
    typecheck::check(&module, Target::Sm90a)
        .diagnostics
        .iter()
        .map(|diagnostic| diagnostic.code)
        .collect()
}

/// `count` consts, each naming the next.
fn const_chain(count: usize) -> String {
    let mut text: String = (0..count)
        .map(|i| format!("const C{i}: int = C{} + 1;\n", i + 1))
        .collect();
    text.push_str(&format!("const C{count}: int = 0;\n"));
    text
}

#[test]
fn a_long_chain_of_consts_checks() {
    assert_eq!(codes(&const_chain(2_000)), Vec::<&str>::new());
}

#[test]
fn a_chain_of_consts_past_the_depth_limit_is_one_e0222() {
    assert_eq!(codes(&const_chain(20_000)), ["E0222"]);
}

#[test]
fn functions_of_long_bodies_calling_each_other_end_in_e0222() {
    let body = vec!["x"; 1_000].join(" + ");
    let mut text: String = (0..16)
        .map(|i| {
            format!(
                "fn f{i}(x: i32) -> i32 {{ return f{}(x) + {body}; }}\n",
                i + 1
            )
        })
        .collect();
    text.push_str("fn f16(x: i32) -> i32 { return x; }\n");
    text.push_str("kernel k(n: i32) launch grid(1) block(1) { let y = f0(n); }\n");
    assert_eq!(codes(&text), ["E0222"]);
}

#[test]
fn an_atom_naming_itself_is_e0221() {
    assert_eq!(codes("atom a: copy { arch = a; }"), ["E0218", "E0221"]);
}

#[test]
fn an_atom_instantiating_itself_without_end_is_e0222() {
    let text = "atom a<const N: int>: copy { arch = a(N = N + 1); }\nconst X = a(N = 0);\n";
    assert!(codes(text).contains(&"E0222"), "{:?}", codes(text));
}

#[test]
fn a_product_of_many_binomials_is_e0222_not_exponential() {
    let params: Vec<String> = (0..22).map(|i| format!("x{i}: i32, y{i}: i32")).collect();
    let product: Vec<String> = (0..22).map(|i| format!("(x{i} + y{i})")).collect();
    let text = format!(
        "kernel k({}, out: gmem i32[(1):(1)]) launch grid(1) block(1) {{ out[0] = {}; }}\n",
        params.join(", "),
        product.join(" * ")
    );
    assert_eq!(codes(&text), ["E0222"]);
}

#[test]
fn setmaxnreg_in_a_block_of_absurdly_many_threads_is_a_diagnostic() {
    // Found by the mutation test: the registers the other warpgroups need overflowed.
    let text = "kernel k() launch grid(1) block(4611686018427387904) { setmaxnreg_inc(240); }\n";
    assert!(codes(text).contains(&"E0227"), "{:?}", codes(text));
}
