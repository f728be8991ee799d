//! The planted bugs of `tests/emulator/`: each file's first line says the report
//! expected (`// expect: error[CODE] at line N (and line M)`); [`planted`] lowers the
//! file, launches its kernel and compares the fault's code and labelled lines with it.

use emulator::Fault;

use super::{Arg, Device, line_of, lower_file, root};

/// The code and the lines (primary, then the others) the first line of `path` expects.
fn expected(path: &str) -> (String, Vec<usize>) {
    let text = std::fs::read_to_string(root().join(path)).unwrap();
    let header = text.lines().next().unwrap();
    let code = header.split_once("error[").unwrap().1[..5].to_owned();
    let lines = header
        .split("line ")
        .skip(1)
        .map(|rest| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    (code, lines)
}

/// Emulates the one kernel of the planted bug `name` with `args` (built on `device`) and
/// checks the fault against the file's expectation.
pub fn planted(name: &str, args: impl FnOnce(&mut Device) -> Vec<Arg>) -> Fault {
    let path = format!("tests/emulator/{name}");
    let kernels = lower_file(&path);
    let mut device = Device::default();
    let args = args(&mut device);
    let fault = device.launch(&kernels[0], &args).unwrap_err();
    let diagnostic = fault.to_diagnostic();
    let lines: Vec<usize> = diagnostic
        .labels()
        .map(|label| line_of(&path, label.span.start))
        .collect();
    assert_eq!(
        (diagnostic.code.to_owned(), lines),
        expected(&path),
        "{name}: {fault}"
    );
    fault
}

/// [`planted`] with one argument, an output tensor of `bytes` bytes.
pub fn planted_output(name: &str, bytes: usize) -> Fault {
    planted(name, |device| vec![Arg::Tensor(device.empty(bytes))])
}
