//! Reading ptxas's log: its messages (`ptxas kernel.ptx, line 11; error   : ...`)
//! and, with `-v`, each function's resource usage.

use std::fmt;

/// How serious a ptxas message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// `info`: the `-v` resource lines, compile times.
    Info,
    /// `warning`: the cubin was still written.
    Warning,
    /// `error`: the PTX was rejected.
    Error,
    /// `fatal`: ptxas stopped (bad options, unreadable input, or after errors).
    Fatal,
}

impl Severity {
    fn parse(word: &str) -> Option<Severity> {
        match word {
            "info" => Some(Severity::Info),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            "fatal" => Some(Severity::Fatal),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
            Severity::Fatal => "fatal",
        })
    }
}

/// One message of ptxas.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The 1-based PTX line it is about, when ptxas named one.
    pub line: Option<u32>,
    /// How serious it is.
    pub severity: Severity,
    /// The text after the colon, trimmed.
    pub message: String,
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "PTX line {line}: {}: {}", self.severity, self.message),
            None => write!(f, "{}: {}", self.severity, self.message),
        }
    }
}

/// Every message in a ptxas log, in order. Lines that are not messages (the
/// indented `-v` continuation lines) are skipped.
pub fn parse_messages(log: &str) -> Vec<Message> {
    log.lines().filter_map(parse_message).collect()
}

/// One line: `ptxas <file>, line <n>; <severity> : <text>` or
/// `ptxas <severity> : <text>`.
fn parse_message(line: &str) -> Option<Message> {
    let rest = line.strip_prefix("ptxas ")?;
    if let Some(message) = severity_and_text(rest, None) {
        return Some(message);
    }
    // The file name may itself contain ", line ", so try each occurrence.
    rest.match_indices(", line ").find_map(|(at, marker)| {
        let after = &rest[at + marker.len()..];
        let (number, tail) = after.split_once(';')?;
        let line = number.trim().parse().ok()?;
        severity_and_text(tail.trim_start(), Some(line))
    })
}

/// `error   : text` with its line.
fn severity_and_text(text: &str, line: Option<u32>) -> Option<Message> {
    let (word, message) = text.split_once(':')?;
    let severity = Severity::parse(word.trim_end())?;
    Some(Message {
        line,
        severity,
        message: message.trim().to_owned(),
    })
}

/// What one function uses, from ptxas `-v`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionResources {
    /// The function's PTX name.
    pub name: String,
    /// Whether it is a kernel (`.entry`) rather than a `.func`.
    pub is_entry: bool,
    /// Registers per thread.
    pub registers: u32,
    /// Named barriers used.
    pub barriers: u32,
    /// Bytes of stack frame (local memory) per thread.
    pub stack_frame: u64,
    /// Bytes stored to local memory by register spills, per thread.
    pub spill_stores: u64,
    /// Bytes loaded from local memory by register spills, per thread.
    pub spill_loads: u64,
    /// Bytes of static shared memory per block.
    pub shared: u64,
}

impl FunctionResources {
    /// Whether the function touches no local memory: no stack frame and no spills.
    pub fn uses_no_local_memory(&self) -> bool {
        self.stack_frame == 0 && self.spill_stores == 0 && self.spill_loads == 0
    }
}

/// Each function's resources from a `ptxas -v` log, in the order ptxas first
/// names them.
///
/// The log says `Compiling entry function 'k' for 'sm_80'`, then
/// `Function properties for k` followed by an indented line of stack and spill
/// bytes, then `Used 8 registers, used 0 barriers, 512 bytes smem, ...` for the
/// function being compiled.
pub fn parse_resources(log: &str) -> Vec<FunctionResources> {
    let mut functions: Vec<FunctionResources> = Vec::new();
    let mut compiling: Option<usize> = None;
    let mut properties_of: Option<usize> = None;
    for line in log.lines() {
        let info = line.strip_prefix("ptxas info").map(|rest| {
            rest.trim_start()
                .strip_prefix(':')
                .unwrap_or(rest)
                .trim_start()
        });
        match info {
            Some(info) => {
                properties_of = None;
                if let Some(rest) = info.strip_prefix("Compiling entry function ") {
                    compiling = Some(function(&mut functions, quoted(rest), true));
                } else if let Some(rest) = info.strip_prefix("Compiling function ") {
                    compiling = Some(function(&mut functions, quoted(rest), false));
                } else if let Some(rest) = info.strip_prefix("Function properties for ") {
                    properties_of = Some(function(&mut functions, rest.trim(), false));
                } else if let Some(rest) = info.strip_prefix("Used ")
                    && let Some(index) = compiling
                {
                    read_usage(&mut functions[index], rest);
                }
            }
            None if line.starts_with(char::is_whitespace) => {
                if let Some(index) = properties_of.take() {
                    read_usage(&mut functions[index], line.trim());
                }
            }
            None => properties_of = None,
        }
    }
    functions
}

/// The text between the first pair of single quotes, else the trimmed text.
fn quoted(text: &str) -> &str {
    text.split('\'').nth(1).unwrap_or(text.trim())
}

/// The index of the function named `name`, added when new.
fn function(functions: &mut Vec<FunctionResources>, name: &str, is_entry: bool) -> usize {
    if let Some(index) = functions.iter().position(|f| f.name == name) {
        functions[index].is_entry |= is_entry;
        return index;
    }
    functions.push(FunctionResources {
        name: name.to_owned(),
        is_entry,
        ..FunctionResources::default()
    });
    functions.len() - 1
}

/// Comma-separated `<number> <what>` items: `8 registers`, `used 0 barriers`,
/// `512 bytes smem`, `0 bytes stack frame`, `0 bytes spill stores`.
fn read_usage(resources: &mut FunctionResources, text: &str) {
    for item in text.split(',') {
        let words: Vec<&str> = item
            .split_whitespace()
            .filter(|word| *word != "used")
            .collect();
        let Some((number, what)) = words.split_first() else {
            continue;
        };
        let Ok(number) = number.parse::<u64>() else {
            continue;
        };
        match what {
            ["registers"] => resources.registers = u32::try_from(number).unwrap_or(u32::MAX),
            ["barriers"] => resources.barriers = u32::try_from(number).unwrap_or(u32::MAX),
            ["bytes", "smem"] => resources.shared = number,
            ["bytes", "stack", "frame"] => resources.stack_frame = number,
            ["bytes", "spill", "stores"] => resources.spill_stores = number,
            ["bytes", "spill", "loads"] => resources.spill_loads = number,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{FunctionResources, Message, Severity, parse_messages, parse_resources};

    #[test]
    fn messages_with_and_without_lines() {
        let log = "ptxas kernel.ptx, line 11; error   : Arguments mismatch for instruction 'add'\n\
                   ptxas kernel.ptx, line 12; error   : Not a name of any known instruction: 'frobnicate'\n\
                   ptxas warning : For entry w adjusting per thread register count of 16 to lower bound of 24\n\
                   ptxas info    : Function properties for w\n    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
                   ptxas /tmp/a, line 3; b.ptx, line 7; warning : odd name\n\
                   ptxas fatal   : Ptx assembly aborted due to errors\n";
        let messages = parse_messages(log);
        assert_eq!(
            messages[0],
            Message {
                line: Some(11),
                severity: Severity::Error,
                message: "Arguments mismatch for instruction 'add'".into()
            }
        );
        assert_eq!(messages[1].line, Some(12));
        assert_eq!(
            messages[1].message,
            "Not a name of any known instruction: 'frobnicate'"
        );
        assert_eq!(messages[2].line, None);
        assert_eq!(messages[2].severity, Severity::Warning);
        assert_eq!(messages[3].severity, Severity::Info);
        assert_eq!(messages[3].message, "Function properties for w");
        // A file name holding ", line 3;" still yields the message's own line.
        assert_eq!(messages[4].line, Some(7));
        assert_eq!(messages[4].message, "odd name");
        assert_eq!(messages[5].severity, Severity::Fatal);
        assert_eq!(messages.len(), 6);
        assert_eq!(
            messages[0].to_string(),
            "PTX line 11: error: Arguments mismatch for instruction 'add'"
        );
    }

    #[test]
    fn lines_that_are_not_messages_are_skipped() {
        assert!(
            parse_messages("hello\nptxas\nptxas nonsense\nptxas x, line q; error : no\n")
                .is_empty()
        );
    }

    #[test]
    fn resources_per_function() {
        let log = "ptxas info    : 0 bytes gmem\n\
                   ptxas info    : Compiling entry function 'lm' for 'sm_80'\n\
                   ptxas info    : Function properties for lm\n    256 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n\
                   ptxas info    : Used 40 registers, used 1 barriers, 256 bytes cumulative stack size, 4096 bytes smem, 360 bytes cmem[0]\n\
                   ptxas info    : Compile time = 1.499 ms\n\
                   ptxas info    : Function properties for helper\n    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
        let functions = parse_resources(log);
        assert_eq!(
            functions,
            vec![
                FunctionResources {
                    name: "lm".into(),
                    is_entry: true,
                    registers: 40,
                    barriers: 1,
                    stack_frame: 256,
                    spill_stores: 8,
                    spill_loads: 4,
                    shared: 4096,
                },
                FunctionResources {
                    name: "helper".into(),
                    ..FunctionResources::default()
                },
            ]
        );
        assert!(!functions[0].uses_no_local_memory());
        assert!(functions[1].uses_no_local_memory());
    }
}
