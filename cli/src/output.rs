//! Printing that never fails: `outln!`, `out!` and `errln!` write to standard output
//! and standard error like `println!`, `print!` and `eprintln!`, but ignore a closed
//! pipe (`cukc ... | head -1`) or a full device (`> /dev/full`) instead of panicking
//! with exit code 101. The command then finishes quietly with the exit code its input
//! earns. Everything under `cli/src` prints through these (`cli/tests/tidy.rs` checks).

/// `println!` that ignores write errors.
macro_rules! outln {
    ($($arg:tt)+) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)+);
    }};
}

/// `print!` that ignores write errors.
macro_rules! out {
    ($($arg:tt)+) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout().lock(), $($arg)+);
    }};
}

/// `eprintln!` that ignores write errors.
macro_rules! errln {
    ($($arg:tt)+) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($arg)+);
    }};
}

pub(crate) use {errln, out, outln};
