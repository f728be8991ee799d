//! The ranges a kernel requires of the values in its integer tensor arguments
//! (`require_range`, the signature's [`ElementRange`]s), checked on the host before a
//! launch: every element, since one outside (a page index past the cache) would have the
//! kernel read or write outside its tensors. An element outside is `E0428`.

use std::fmt;

use kir::{ElementRange, HostExpr, Signature};

/// The code of an element outside its range.
pub const OUT_OF_RANGE: &str = "E0428";

/// Why a call's tensor does not meet a range its kernel requires.
#[derive(Clone, Debug, PartialEq)]
pub enum RangeError {
    /// The bounds overflow or divide by zero with these arguments.
    Uncomputable {
        /// The kernel's name.
        kernel: String,
        /// The tensor parameter's name.
        param: String,
        /// The bounds as the source writes them (`0..num_pages`).
        bounds: String,
    },
    /// An element outside `low..high`: the first, at `coords`.
    Outside {
        /// The kernel's name.
        kernel: String,
        /// The tensor parameter's name.
        param: String,
        /// The element's coordinates.
        coords: Vec<usize>,
        /// Its value.
        value: f64,
        /// The least value allowed here.
        low: i64,
        /// One past the largest.
        high: i64,
        /// The bounds as the source writes them.
        bounds: String,
    },
}

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RangeError::Uncomputable {
                kernel,
                param,
                bounds,
            } => write!(
                f,
                "`{kernel}`: the range `{bounds}` it requires of `{param}` cannot be computed from these arguments"
            ),
            RangeError::Outside {
                kernel,
                param,
                coords,
                value,
                low,
                high,
                bounds,
            } => {
                let coords: Vec<String> = coords.iter().map(ToString::to_string).collect();
                write!(
                    f,
                    "`{kernel}`: `{param}[{}]` = {value} is outside {low}..{high} (`{bounds}`), the range the kernel requires of it",
                    coords.join(", ")
                )
            }
        }
    }
}

/// Checks `values`, the row-major elements of shape `shape` that the call passes as
/// `range`'s tensor, against `range`, its bounds evaluated with the call's integer
/// arguments `ints` (by parameter index). The error names the kernel, the parameter,
/// the first element outside, and the bounds as the source writes them.
pub fn check_range(
    signature: &Signature,
    range: &ElementRange,
    ints: &[i64],
    (shape, values): (&[usize], &[f64]),
) -> Result<(), RangeError> {
    let kernel = signature.name.clone();
    let name = |param: usize| {
        signature
            .params
            .get(param)
            .map_or_else(|| format!("parameter {param}"), |param| param.name.clone())
    };
    let bounds = format!(
        "{}..{}",
        source(&range.low, &name),
        source(&range.high, &name)
    );
    let (Some(low), Some(high)) = (range.low.evaluate(ints), range.high.evaluate(ints)) else {
        return Err(RangeError::Uncomputable {
            kernel,
            param: name(range.param),
            bounds,
        });
    };
    let Some(at) = values
        .iter()
        .position(|value| !(*value >= low as f64 && *value < high as f64))
    else {
        return Ok(());
    };
    let mut coords = vec![0; shape.len()];
    let mut rest = at;
    for (coord, extent) in coords.iter_mut().zip(shape).rev() {
        *coord = rest % (*extent).max(1);
        rest /= (*extent).max(1);
    }
    Err(RangeError::Outside {
        kernel,
        param: name(range.param),
        coords,
        value: values[at],
        low,
        high,
        bounds,
    })
}

/// `expr` with parameters by name: `(num_pages * 64)`.
fn source(expr: &HostExpr, name: &dyn Fn(usize) -> String) -> String {
    let pair = |a: &HostExpr, op: &str, b: &HostExpr| {
        format!("({} {op} {})", source(a, name), source(b, name))
    };
    match expr {
        HostExpr::Const(value) => value.to_string(),
        HostExpr::Param(param) => name(*param),
        HostExpr::Add(a, b) => pair(a, "+", b),
        HostExpr::Mul(a, b) => pair(a, "*", b),
        HostExpr::Div(a, b) => pair(a, "/", b),
        HostExpr::Rem(a, b) => pair(a, "%", b),
        HostExpr::CeilDiv(a, b) => format!("ceil_div({}, {})", source(a, name), source(b, name)),
    }
}

#[cfg(test)]
mod tests {
    use kir::{Element, IntParam, Launch, Param, ParamKind};

    use super::*;

    /// `k(num_pages: i32, table: gmem i32[n:1])` requiring `table` in `0..num_pages`.
    fn signature() -> Signature {
        let one = || HostExpr::Const(1);
        Signature {
            name: "k".to_owned(),
            entry: "k".to_owned(),
            const_args: Vec::new(),
            params: vec![
                Param {
                    name: "num_pages".to_owned(),
                    kind: ParamKind::Int(IntParam::I32),
                },
                Param {
                    name: "table".to_owned(),
                    kind: ParamKind::Tensor {
                        dtype: Element::I32,
                        shape: vec![HostExpr::Const(4)],
                        strides: vec![one()],
                    },
                },
            ],
            launch: Launch {
                grid: [one(), one(), one()],
                block: [one(), one(), one()],
                cluster: [1, 1, 1],
                shared_bytes: 0,
            },
            assumptions: Vec::new(),
            alignments: Vec::new(),
            ranges: vec![ElementRange {
                param: 1,
                low: HostExpr::Const(0),
                high: HostExpr::Param(0),
                span: lang::Span::new(0, 0),
            }],
        }
    }

    #[test]
    fn the_first_element_outside_is_named_with_its_coordinates() {
        let signature = signature();
        let range = &signature.ranges[0];
        let ints = [4, 0];
        let ok = check_range(&signature, range, &ints, (&[2, 2], &[0.0, 3.0, 1.0, 2.0]));
        assert_eq!(ok, Ok(()));
        let past = check_range(&signature, range, &ints, (&[2, 2], &[0.0, 3.0, 4.0, -1.0]));
        assert_eq!(
            past.unwrap_err().to_string(),
            "`k`: `table[1, 0]` = 4 is outside 0..4 (`0..num_pages`), the range the kernel requires of it"
        );
        let negative = check_range(&signature, range, &ints, (&[4], &[0.0, -1.0, 0.0, 0.0]));
        assert!(
            negative
                .unwrap_err()
                .to_string()
                .contains("`table[1]` = -1 is outside 0..4")
        );
        let unknown = check_range(&signature, range, &[], (&[4], &[0.0; 4]));
        assert!(
            unknown
                .unwrap_err()
                .to_string()
                .contains("cannot be computed")
        );
    }
}
