//! `cukc` with its standard output or error closed (`cukc ... | head -1` after
//! `head` exits) or full (`> /dev/full`): it must finish quietly with the exit code
//! its input earns, never panic with 101.

use std::fs::File;
use std::process::{Command, Stdio};

/// Where a stream goes: a pipe whose reader has gone, or `/dev/full`.
#[derive(Clone, Copy, Debug)]
enum Sink {
    ClosedPipe,
    Full,
}

impl Sink {
    fn stdio(self) -> Stdio {
        match self {
            Sink::ClosedPipe => {
                let (reader, writer) = std::io::pipe().expect("a pipe");
                drop(reader);
                Stdio::from(writer)
            }
            Sink::Full => Stdio::from(File::create("/dev/full").expect("/dev/full opens")),
        }
    }
}

/// The exit code of `cukc ARGS` with stdout and stderr each sent to `sink` or kept.
fn exit_code(args: &[&str], stdout: Option<Sink>, stderr: Option<Sink>) -> Option<i32> {
    let stream = |sink: Option<Sink>| sink.map_or_else(Stdio::null, Sink::stdio);
    Command::new(env!("CARGO_BIN_EXE_cukc"))
        .args(args)
        .env("CUKC_OFFLINE", "1")
        .stdin(Stdio::null())
        .stdout(stream(stdout))
        .stderr(stream(stderr))
        .status()
        .expect("cukc runs")
        .code()
}

fn examples(name: &str) -> String {
    format!("{}/../cuk-examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn closed_or_full_streams_never_panic() {
    let clean = examples("copy_vectorized.cuk");
    let cases: [(&[&str], i32); 6] = [
        (&["layout", "show", "(64,64):(64,1)"], 0),
        (&["layout", "show", "(4,3):(3,"], 1),
        (&["check", "--dump-types", &clean], 0),
        (
            &["check", "--message-format", "json", "/no/such/file.cuk"],
            1,
        ),
        (&["check", "/no/such/file.cuk"], 1),
        (&["doctor", "--ptxas", "/no/such/ptxas"], 2),
    ];
    for (args, expected) in cases {
        for sink in [Sink::ClosedPipe, Sink::Full] {
            for (stdout, stderr) in [
                (Some(sink), None),
                (None, Some(sink)),
                (Some(sink), Some(sink)),
            ] {
                let code = exit_code(args, stdout, stderr);
                assert_eq!(
                    code,
                    Some(expected),
                    "cukc {args:?} with stdout {stdout:?} and stderr {stderr:?}"
                );
            }
        }
    }
}

#[test]
fn help_into_a_closed_pipe_exits_zero() {
    for sink in [Sink::ClosedPipe, Sink::Full] {
        assert_eq!(exit_code(&["--help"], Some(sink), None), Some(0));
    }
}
