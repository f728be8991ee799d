//! `cukc layout --batch`: JSON-lines queries in, JSON-lines answers out
//! (LAYOUT-QUERIES.md).
//!
//! Each input line is one query object; each gets exactly one answer line, in order,
//! flushed at once: `{"id","op","result"}` (plus `"offset"` for `slice`) or
//! `{"id","op","error"}`. The id is echoed, or defaults to the 0-based line number. A
//! line that cannot be answered (bad JSON, unknown op, missing or ill-typed field,
//! unparsable notation, any rejected operation) gets an error answer in words and the
//! loop goes on; the process exits 0 at end of input.

mod ops;
mod query;

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use serde_json::Value;

use self::ops::Outcome;
use self::query::{Query, QueryError};

/// Runs the batch loop over standard input.
pub fn run() -> ExitCode {
    let mut input = io::stdin().lock();
    let mut output = io::stdout().lock();
    let mut line = Vec::new();
    let mut line_number = 0usize;
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => return ExitCode::SUCCESS,
            Ok(_) => {}
            Err(error) => {
                crate::output::errln!("error: cannot read the queries: {error}");
                return ExitCode::from(2);
            }
        }
        let answer = answer_line(&String::from_utf8_lossy(&line), line_number);
        if writeln!(output, "{answer}")
            .and_then(|()| output.flush())
            .is_err()
        {
            // The reader went away (a closed pipe): nobody is left to answer.
            return ExitCode::SUCCESS;
        }
        line_number += 1;
    }
}

/// The answer line to one query line.
fn answer_line(line: &str, line_number: usize) -> String {
    let default_id = Value::from(line_number);
    let query: Value = match serde_json::from_str(line.trim_end_matches(['\n', '\r'])) {
        Ok(query) => query,
        Err(error) => {
            return error_answer(
                &default_id,
                &Value::Null,
                &format!("the line is not valid JSON: {error}"),
            );
        }
    };
    let Some(fields) = query.as_object() else {
        return error_answer(&default_id, &Value::Null, "a query must be a JSON object");
    };
    let id = fields.get("id").unwrap_or(&default_id);
    let op = fields.get("op").unwrap_or(&Value::Null);
    let outcome = match (op.as_str(), op) {
        (Some(name), _) => ops::answer(name, &Query::new(fields)),
        (None, Value::Null) => Err(QueryError::new(
            "missing field `op` (a string naming the operation)",
        )),
        (None, _) => Err(QueryError::new(format!(
            "field `op` must be a string naming the operation, not {op}"
        ))),
    };
    match outcome {
        Ok(Outcome {
            result,
            offset: Some(offset),
        }) => {
            format!("{{\"id\":{id},\"op\":{op},\"result\":{result},\"offset\":{offset}}}")
        }
        Ok(Outcome {
            result,
            offset: None,
        }) => format!("{{\"id\":{id},\"op\":{op},\"result\":{result}}}"),
        Err(error) => error_answer(id, op, &error.to_string()),
    }
}

fn error_answer(id: &Value, op: &Value, message: &str) -> String {
    format!(
        "{{\"id\":{id},\"op\":{op},\"error\":{}}}",
        Value::from(message)
    )
}
