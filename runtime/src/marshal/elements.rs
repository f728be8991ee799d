//! What a kernel requires of the values in its integer tensor arguments (the
//! signature's [`ElementRequirement`]s), checked on the host before a launch: every
//! element, since a bad one would have the kernel read or write the wrong memory.
//! `require_range`: an element outside its range (a page index past the cache) is
//! `E0428`. `require_offsets`: an offsets array that does not start at 0, decreases,
//! ends short of or past its total, or steps further than its largest step is `E0424`
//! to `E0427` (`offsets.rs`).

use std::fmt;

use kir::{ElementRequirement, ElementRule, HostExpr, Signature};

use super::offsets::{Described, OffsetFault, check_offsets};

/// The code of an element outside its range.
pub const OUT_OF_RANGE: &str = "E0428";

/// Why a call's tensor does not meet what its kernel requires of its elements.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementError {
    /// The kernel's name.
    pub kernel: String,
    /// The tensor parameter's name.
    pub param: String,
    /// What is wrong.
    pub problem: Box<ElementProblem>,
}

/// What is wrong with a tensor's elements.
#[derive(Clone, Debug, PartialEq)]
pub enum ElementProblem {
    /// The requirement's numbers overflow or divide by zero with these arguments.
    Uncomputable {
        /// The requirement as the source writes it (`the range `0..num_pages``).
        requirement: String,
        /// The code: the range's, the offsets' total's, or their largest step's.
        code: &'static str,
    },
    /// An element outside `low..high`: the first, at `coords`.
    Outside {
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
    /// An offsets array that breaks a rule.
    Offsets {
        /// The first fault.
        fault: OffsetFault,
        /// The total as the source writes it.
        total: String,
        /// The largest step as the source writes it, or empty.
        max_step: String,
    },
}

impl ElementError {
    /// The diagnostic code: `E0428` for a range, `E0424` to `E0427` for offsets.
    pub fn code(&self) -> &'static str {
        match &*self.problem {
            ElementProblem::Uncomputable { code, .. } => code,
            ElementProblem::Outside { .. } => OUT_OF_RANGE,
            ElementProblem::Offsets { fault, .. } => fault.code(),
        }
    }
}

impl fmt::Display for ElementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ElementError { kernel, param, .. } = self;
        match &*self.problem {
            ElementProblem::Uncomputable { requirement, .. } => write!(
                f,
                "`{kernel}`: {requirement} it requires of `{param}` cannot be computed from these arguments"
            ),
            ElementProblem::Outside {
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
            ElementProblem::Offsets {
                fault,
                total,
                max_step,
            } => {
                let described = Described {
                    fault,
                    param,
                    total,
                    max_step,
                };
                write!(f, "`{kernel}` requires offsets of `{param}`: {described}")
            }
        }
    }
}

/// Checks `values`, the row-major elements of shape `shape` that the call passes as
/// `requirement`'s tensor, against it, its numbers evaluated with the call's integer
/// arguments `ints` (by parameter index). The error names the kernel, the parameter,
/// the first element that breaks the requirement, and its numbers as the source
/// writes them.
pub fn check_elements(
    signature: &Signature,
    requirement: &ElementRequirement,
    ints: &[i64],
    (shape, values): (&[usize], &[f64]),
) -> Result<(), ElementError> {
    let name = |param: usize| {
        signature
            .params
            .get(param)
            .map_or_else(|| format!("parameter {param}"), |param| param.name.clone())
    };
    let error = |problem: ElementProblem| ElementError {
        kernel: signature.name.clone(),
        param: name(requirement.param),
        problem: Box::new(problem),
    };
    match &requirement.rule {
        ElementRule::Range { low, high } => {
            let bounds = format!("{}..{}", source(low, &name), source(high, &name));
            let (Some(low), Some(high)) = (low.evaluate(ints), high.evaluate(ints)) else {
                return Err(error(ElementProblem::Uncomputable {
                    requirement: format!("the range `{bounds}`"),
                    code: OUT_OF_RANGE,
                }));
            };
            check_range(values, low, high).map_err(|at| {
                error(ElementProblem::Outside {
                    coords: coordinates(at, shape),
                    value: values[at],
                    low,
                    high,
                    bounds,
                })
            })
        }
        ElementRule::Offsets { total, max_step } => {
            let total_source = source(total, &name);
            let Some(total) = total.evaluate(ints) else {
                return Err(error(ElementProblem::Uncomputable {
                    requirement: format!("the offsets' total `{total_source}`"),
                    code: "E0426",
                }));
            };
            let step_source = max_step.as_ref().map(|step| source(step, &name));
            let max_step = match (max_step, step_source.as_ref()) {
                (Some(step), Some(step_source)) => match step.evaluate(ints) {
                    Some(step) => Some(step),
                    None => {
                        return Err(error(ElementProblem::Uncomputable {
                            requirement: format!("the offsets' largest step `{step_source}`"),
                            code: "E0427",
                        }));
                    }
                },
                _ => None,
            };
            check_offsets(values, total, max_step).map_err(|fault| {
                error(ElementProblem::Offsets {
                    fault,
                    total: total_source,
                    max_step: step_source.unwrap_or_default(),
                })
            })
        }
    }
}

/// The index of the first of `values` outside `low..high`.
fn check_range(values: &[f64], low: i64, high: i64) -> Result<(), usize> {
    match (values.iter()).position(|value| !(*value >= low as f64 && *value < high as f64)) {
        Some(at) => Err(at),
        None => Ok(()),
    }
}

/// The coordinates of row-major element `at` in `shape`.
fn coordinates(at: usize, shape: &[usize]) -> Vec<usize> {
    let mut coords = vec![0; shape.len()];
    let mut rest = at;
    for (coord, extent) in coords.iter_mut().zip(shape).rev() {
        *coord = rest % (*extent).max(1);
        rest /= (*extent).max(1);
    }
    coords
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
    use kir::{Element, IntParam, Param, ParamKind};

    use super::*;

    /// `k(num_pages: i32, table: gmem i32[4:1], cu: gmem i32[3:1], longest: i32)`
    /// requiring `table` in `0..num_pages` and `cu` offsets to `num_pages`, steps at
    /// most `longest`.
    fn signature() -> Signature {
        let one = || HostExpr::Const(1);
        let int = |name: &str| Param {
            name: name.to_owned(),
            kind: ParamKind::Int(IntParam::I32),
        };
        let tensor = |name: &str, extent: i64| Param {
            name: name.to_owned(),
            kind: ParamKind::Tensor {
                dtype: Element::I32,
                shape: vec![HostExpr::Const(extent)],
                strides: vec![one()],
            },
        };
        Signature {
            params: vec![
                int("num_pages"),
                tensor("table", 4),
                tensor("cu", 3),
                int("longest"),
            ],
            element_requirements: vec![
                ElementRequirement {
                    param: 1,
                    rule: ElementRule::Range {
                        low: HostExpr::Const(0),
                        high: HostExpr::Param(0),
                    },
                    span: lang::Span::new(0, 0),
                },
                ElementRequirement {
                    param: 2,
                    rule: ElementRule::Offsets {
                        total: HostExpr::Param(0),
                        max_step: Some(HostExpr::Param(3)),
                    },
                    span: lang::Span::new(0, 0),
                },
            ],
            ..Signature::empty("k")
        }
    }

    #[test]
    fn the_first_element_outside_is_named_with_its_coordinates() {
        let signature = signature();
        let range = &signature.element_requirements[0];
        let ints = [4, 0, 0, 0];
        let ok = check_elements(&signature, range, &ints, (&[2, 2], &[0.0, 3.0, 1.0, 2.0]));
        assert_eq!(ok, Ok(()));
        let past = check_elements(&signature, range, &ints, (&[2, 2], &[0.0, 3.0, 4.0, -1.0]));
        let past = past.unwrap_err();
        assert_eq!(past.code(), "E0428");
        assert_eq!(
            past.to_string(),
            "`k`: `table[1, 0]` = 4 is outside 0..4 (`0..num_pages`), the range the kernel requires of it"
        );
        let negative = check_elements(&signature, range, &ints, (&[4], &[0.0, -1.0, 0.0, 0.0]));
        assert!(
            negative
                .unwrap_err()
                .to_string()
                .contains("`table[1]` = -1 is outside 0..4")
        );
        let unknown = check_elements(&signature, range, &[], (&[4], &[0.0; 4]));
        let unknown = unknown.unwrap_err();
        assert_eq!(unknown.code(), "E0428");
        assert!(
            unknown.to_string().contains("cannot be computed"),
            "{unknown}"
        );
    }

    #[test]
    fn offsets_are_checked_with_the_arguments_and_named_with_the_source() {
        let signature = signature();
        let offsets = &signature.element_requirements[1];
        let check = |ints: &[i64], values: &[f64]| {
            check_elements(&signature, offsets, ints, (&[values.len()], values))
        };
        assert_eq!(check(&[64, 0, 0, 40], &[0.0, 40.0, 64.0]), Ok(()));
        let codes: Vec<&str> = [
            check(&[64, 0, 0, 40], &[1.0, 40.0, 64.0]),
            check(&[64, 0, 0, 40], &[0.0, 40.0, 30.0]),
            check(&[64, 0, 0, 40], &[0.0, 40.0, 63.0]),
            check(&[64, 0, 0, 39], &[0.0, 40.0, 64.0]),
            check(&[64, 0, 0, 40], &[]),
        ]
        .iter()
        .map(|result| result.as_ref().unwrap_err().code())
        .collect();
        assert_eq!(codes, ["E0424", "E0425", "E0426", "E0427", "E0424"]);
        let step = check(&[64, 0, 0, 39], &[0.0, 40.0, 64.0]).unwrap_err();
        assert_eq!(
            step.to_string(),
            "`k` requires offsets of `cu`: `cu[1]` - `cu[0]` = 40 - 0 = 40 is more than 39 (`longest`), the largest step the offsets may take"
        );
        let end = check(&[64, 0, 0, 40], &[0.0, 40.0, 63.0]).unwrap_err();
        assert_eq!(
            end.to_string(),
            "`k` requires offsets of `cu`: the last offset `cu[2]` = 63, but the offsets end at 64 (`num_pages`)"
        );
        // Too few arguments to evaluate the total, then the step.
        assert_eq!(check(&[], &[0.0]).unwrap_err().code(), "E0426");
        let no_step = check(&[0], &[0.0]).unwrap_err();
        assert_eq!(no_step.code(), "E0427");
        assert!(
            no_step
                .to_string()
                .contains("the offsets' largest step `longest`"),
            "{no_step}"
        );
    }
}
