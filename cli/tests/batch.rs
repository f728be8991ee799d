//! Protocol tests of `cukc layout --batch` (LAYOUT-QUERIES.md): one answer per input
//! line, in order; ids echoed or defaulted to the line number; every malformed line
//! answered with an error in words while the process goes on; exit 0 at end of input.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// Runs `cukc layout --batch` on `input`, returning its answers after checking that it
/// exited with status 0 and wrote nothing to stderr.
fn batch(input: &str) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cukc"))
        .args(["layout", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cukc starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input.as_bytes())
        .expect("cukc reads its input");
    let output = child.wait_with_output().expect("cukc finishes");
    assert!(output.status.success(), "exit status {}", output.status);
    assert!(
        output.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("answers are UTF-8");
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("every answer is one JSON line"))
        .collect()
}

fn one(query: Value) -> Value {
    let answers = batch(&format!("{query}\n"));
    assert_eq!(answers.len(), 1);
    answers.into_iter().next().expect("one answer")
}

/// The error message of an error answer, checking that it has no result.
fn error_of(answer: &Value) -> &str {
    assert!(
        answer.get("result").is_none(),
        "expected an error, got {answer}"
    );
    answer["error"]
        .as_str()
        .unwrap_or_else(|| panic!("expected an error, got {answer}"))
}

#[test]
fn answers_a_query_with_its_id_op_and_result() {
    let answer = one(json!({"id": "q7", "op": "size", "a": "(4,(2,3)):(1,(4,8))"}));
    assert_eq!(answer, json!({"id": "q7", "op": "size", "result": 24}));
}

#[test]
fn default_id_is_the_zero_based_line_number() {
    let answers =
        batch("{\"op\":\"rank\",\"a\":\"(4,2)\"}\n{\"op\":\"depth\",\"a\":\"((4,2),3)\"}\n");
    assert_eq!(answers[0], json!({"id": 0, "op": "rank", "result": 2}));
    assert_eq!(answers[1], json!({"id": 1, "op": "depth", "result": 2}));
}

#[test]
fn layouts_and_int_tuples_print_without_spaces() {
    let coalesced = one(json!({"op": "coalesce", "a": "(2, (1, 6)) : (1, (7, 2))"}));
    assert_eq!(coalesced["result"], "12:1");
    let composed = one(json!({"op": "composition", "a": "(4,8):(8,1)", "b": "<2:2,4:1>"}));
    assert_eq!(composed["result"], "(2,4):(16,1)");
    let crd = one(json!({"op": "idx2crd", "idx": 5, "shape": "(2,(2,2))"}));
    assert_eq!(crd["result"], "(1,(0,1))");
}

#[test]
fn slice_reports_the_offset() {
    let answer = one(json!({"op": "slice", "a": "(4,8):(1,4)", "coord": "(_,3)"}));
    assert_eq!(
        answer,
        json!({"id": 0, "op": "slice", "result": "(4):(1)", "offset": 12})
    );
}

#[test]
fn malformed_json_is_answered_with_an_error() {
    let answer = &batch("{\"op\": \"size\", \"a\": \n")[0];
    assert_eq!(answer["id"], 0);
    assert!(error_of(answer).contains("JSON"), "{answer}");
}

#[test]
fn a_query_that_is_not_an_object_is_an_error() {
    let answer = &batch("[1, 2]\n")[0];
    assert!(!error_of(answer).is_empty());
}

#[test]
fn unknown_op_is_named_in_the_error() {
    let answer = one(json!({"id": 3, "op": "transmogrify", "a": "4:1"}));
    assert_eq!(answer["id"], 3);
    assert_eq!(answer["op"], "transmogrify");
    assert!(error_of(&answer).contains("transmogrify"), "{answer}");
}

#[test]
fn missing_op_and_missing_fields_are_named() {
    assert!(error_of(&one(json!({"a": "4:1"}))).contains("op"));
    assert!(error_of(&one(json!({"op": 17, "a": "4:1"}))).contains("op"));
    let answer = one(json!({"op": "composition", "a": "4:1"}));
    assert!(error_of(&answer).contains("`b`"), "{answer}");
}

#[test]
fn ill_typed_fields_are_errors() {
    assert!(!error_of(&one(json!({"op": "size", "a": 4.5}))).is_empty());
    assert!(
        !error_of(&one(
            json!({"op": "complement", "a": "4:2", "cotarget": "x"})
        ))
        .is_empty()
    );
    assert!(
        !error_of(&one(
            json!({"op": "swizzle", "bits": 2, "base": 0, "shift": 3})
        ))
        .is_empty()
    );
}

#[test]
fn unparsable_layout_text_is_an_error() {
    for text in ["(4,2", "(4,2):(1)", "4:1:2", "(a,2)", ""] {
        let answer = one(json!({"op": "size", "a": text}));
        assert!(!error_of(&answer).is_empty(), "{text:?} gave {answer}");
    }
}

#[test]
fn violated_preconditions_are_errors() {
    let not_divisible = one(json!({"op": "composition", "a": "(4,2):(1,8)", "b": "2:6"}));
    assert!(!error_of(&not_divisible).is_empty());
    let overlapping = one(json!({"op": "complement", "a": "(2,2):(1,1)"}));
    assert!(!error_of(&overlapping).is_empty());
    let huge_table = one(json!({"op": "table", "a": "(4096,4096):(1,4096)"}));
    assert!(!error_of(&huge_table).is_empty());
    let bad_swizzle = one(json!({"op": "swizzle", "bits": 3, "base": 0, "shift": 1, "x": 5}));
    assert!(!error_of(&bad_swizzle).is_empty());
}

#[test]
fn errors_name_the_operand_at_fault() {
    let cases = [
        (
            json!({"op": "complement", "a": "4:1", "cotarget": 0}),
            "complement: the cotarget 0 must be positive",
        ),
        (
            json!({"op": "left_inverse", "a": "(4,4):(-8,16)"}),
            "left_inverse: layout (4,4):(-8,16) has the negative stride -8",
        ),
        (
            json!({"op": "coalesce", "a": "4:1", "profile": "(1,1)"}),
            "coalesce: the profile has 2 modes but the layout only 1",
        ),
        (
            json!({"op": "logical_divide", "a": "(4,2):(1,4)", "b": "(2,2,2)"}),
            "logical_divide: the tiler has 3 modes but the layout only 2",
        ),
    ];
    for (query, expected) in cases {
        assert_eq!(error_of(&one(query)), expected);
    }
}

#[test]
fn the_process_continues_after_errors_and_answers_in_order() {
    let input = [
        "{\"op\":\"size\",\"a\":\"8:1\"}",
        "not json at all",
        "",
        "{\"op\":\"frobnicate\"}",
        "{\"op\":\"cosize\",\"a\":\"(2,2):(1,4)\",\"id\":\"last-but-one\"}",
        "{\"op\":\"table\",\"a\":\"(2,2):(2,1)\"}",
    ]
    .join("\n");
    let answers = batch(&input);
    assert_eq!(answers.len(), 6, "one answer per input line");
    assert_eq!(answers[0]["result"], 8);
    for (line, answer) in answers.iter().enumerate().take(4).skip(1) {
        assert_eq!(answer["id"], line);
        error_of(answer);
    }
    assert_eq!(
        answers[4],
        json!({"id": "last-but-one", "op": "cosize", "result": 6})
    );
    assert_eq!(
        answers[5],
        json!({"id": 5, "op": "table", "result": [0, 2, 1, 3]})
    );
}

#[test]
fn swizzle_forms_agree() {
    let direct = one(json!({"op": "swizzle", "bits": 2, "base": 0, "shift": 3, "x": 9}));
    assert_eq!(direct["result"], 9 ^ 1);
    let through_layout = one(
        json!({"op": "swizzle", "bits": 2, "base": 0, "shift": 3, "a": "(8,8):(8,1)", "coord": "(1,0)", "offset": 1}),
    );
    assert_eq!(through_layout["result"], 9 ^ 1);
    let table = one(json!({"op": "swizzle_table", "bits": 1, "base": 0, "shift": 1, "n": 4}));
    assert_eq!(table["result"], json!([0, 1, 3, 2]));
}

#[test]
fn swizzle_table_over_a_layout_adds_the_offset_first() {
    let table = one(
        json!({"op": "swizzle_table", "bits": 3, "base": 2, "shift": 4, "a": "8:2", "offset": 8}),
    );
    assert_eq!(table["result"], json!([8, 10, 12, 14, 16, 18, 20, 22]));
    let swizzled =
        one(json!({"op": "swizzle_table", "bits": 1, "base": 0, "shift": 1, "a": "(2,2):(2,1)"}));
    assert_eq!(swizzled["result"], json!([0, 3, 1, 2]));
    let both =
        one(json!({"op": "swizzle_table", "bits": 1, "base": 0, "shift": 1, "a": "4:1", "n": 4}));
    assert!(error_of(&both).contains("`n` and `a`"), "{both}");
}

#[test]
fn underscore_in_a_zipped_tiler_and_idx2crd_past_the_end_follow_cpp() {
    let zipped = one(json!({"op": "zipped_divide", "a": "(4,(2,8)):(1,(4,8))", "b": "(2,_)"}));
    assert_eq!(zipped["result"], "((2,2),(2,8)):((1,4),(2,8))");
    let flat = one(json!({"op": "flat_divide", "a": "(4,2):(1,4)", "b": "(_)"}));
    assert!(
        error_of(&flat).starts_with("flat_divide: a `_` in the tiler"),
        "{flat}"
    );
    let crd = one(json!({"op": "idx2crd", "idx": 100, "shape": "(2,(3,4))"}));
    assert_eq!(crd["result"], "(0,(2,16))");
}
