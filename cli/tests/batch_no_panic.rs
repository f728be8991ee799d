//! `cukc layout --batch` on random lines: well-formed queries with random operands,
//! queries with fields of the wrong type, and lines that are not JSON at all. Every
//! line gets exactly one answer, with a result or an error, in order, and the process
//! exits 0: nothing a client sends can crash it.

use std::io::Write;
use std::process::{Command, Stdio};

use proptest::prelude::*;
use serde_json::{Value, json};

#[path = "support/layout_ops.rs"]
mod layout_ops;

use layout_ops::OPS;

/// Text in the layout notation, often malformed: random pieces glued together.
fn notation() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "(",
        ")",
        ",",
        ":",
        "_",
        "<",
        ">",
        "-",
        "0",
        "1",
        "2",
        "4",
        "8",
        "3",
        "_4",
        "m",
        "9223372036854775807",
        "Sw<3,3,3> o ",
        " ",
    ]);
    prop::collection::vec(piece, 0..16).prop_map(|pieces| pieces.concat())
}

/// A field value: layout text, a number (huge ones included), or a JSON value of the
/// wrong kind.
fn field() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => notation().prop_map(Value::from),
        2 => prop_oneof![Just(i64::MIN), Just(i64::MAX), -5_i64..40].prop_map(Value::from),
        1 => Just(json!(null)),
        1 => Just(json!([1, 2])),
        1 => Just(json!({"nested": true})),
        1 => Just(json!(1.5)),
    ]
}

fn line() -> impl Strategy<Value = String> {
    let names = prop::sample::select(vec![
        "a", "b", "coord", "profile", "cotarget", "bits", "base", "shift", "x", "n", "offset",
        "idx", "shape", "stride", "init",
    ]);
    let query = (
        prop::sample::select([&OPS[..], &["no_such_op"]].concat()),
        prop::collection::vec((names, field()), 0..5),
    )
        .prop_map(|(op, fields)| {
            let mut query = serde_json::Map::new();
            query.insert("op".to_owned(), Value::from(op));
            for (name, value) in fields {
                query.insert(name.to_owned(), value);
            }
            Value::Object(query).to_string()
        });
    prop_oneof![
        8 => query,
        1 => "[ -~]{0,40}",
        1 => Just("{\"op\":".to_owned()),
    ]
}

/// Runs the batch over `lines`, writing from a thread so that neither pipe fills up.
fn answers(lines: &[String]) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cukc"))
        .args(["layout", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cukc starts");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // Each line ends with a newline: without the last one, a last line that is empty
    // would be no line at all (end of input), and get no answer.
    let input = lines
        .iter()
        .map(|line| format!("{line}\n"))
        .collect::<String>();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().expect("cukc finishes");
    writer
        .join()
        .expect("the writer thread ends")
        .expect("cukc reads its input");
    assert!(output.status.success(), "exit status {}", output.status);
    String::from_utf8(output.stdout)
        .expect("answers are UTF-8")
        .lines()
        .map(|answer| serde_json::from_str(answer).expect("every answer is one JSON line"))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_line_gets_one_answer(lines in prop::collection::vec(line(), 250)) {
        let answers = answers(&lines);
        prop_assert_eq!(answers.len(), lines.len());
        for (number, answer) in answers.iter().enumerate() {
            let answered = answer.get("result").is_some() || answer["error"].is_string();
            prop_assert!(answered, "line {} {:?} got {}", number, lines[number], answer);
        }
    }
}
