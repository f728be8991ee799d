//! The check of an offsets array (`require_offsets`, [`kir::ElementRule::Offsets`]):
//! packed sequences' starts, as `cu_seqlens` gives them. Element `i` is where sequence
//! `i` starts and element `i + 1` where it ends, so the array starts at 0, never
//! decreases, ends at the total (the packed tokens), and no step (a sequence's length)
//! exceeds the largest the kernel was sized for. Each fault has its code.

use std::fmt;

/// The first element of an offsets array that breaks the rules, walking from the start.
#[derive(Clone, Debug, PartialEq)]
pub enum OffsetFault {
    /// There are no elements, so no first 0 (E0424).
    Empty,
    /// The first element is not 0 (E0424).
    FirstNotZero {
        /// The first element.
        value: f64,
    },
    /// Element `index` is less than the one before (E0425).
    Decreasing {
        /// Where.
        index: usize,
        /// Element `index - 1`.
        before: f64,
        /// Element `index`.
        value: f64,
    },
    /// The step to element `index` exceeds `max_step` (E0427).
    StepTooLarge {
        /// Where.
        index: usize,
        /// Element `index - 1`.
        before: f64,
        /// Element `index`.
        value: f64,
        /// The largest step allowed.
        max_step: i64,
    },
    /// The last element, `index`, is not `total` (E0426).
    LastNotTotal {
        /// Where.
        index: usize,
        /// Its value.
        value: f64,
        /// What it must be.
        total: i64,
    },
}

impl OffsetFault {
    /// The diagnostic code.
    pub fn code(&self) -> &'static str {
        match self {
            OffsetFault::Empty | OffsetFault::FirstNotZero { .. } => "E0424",
            OffsetFault::Decreasing { .. } => "E0425",
            OffsetFault::LastNotTotal { .. } => "E0426",
            OffsetFault::StepTooLarge { .. } => "E0427",
        }
    }
}

/// The fault of the offsets array `param` (its name), with `total` and `max_step` as
/// the source writes them (`total_q`).
pub(super) struct Described<'a> {
    pub(super) fault: &'a OffsetFault,
    pub(super) param: &'a str,
    pub(super) total: &'a str,
    pub(super) max_step: &'a str,
}

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let param = self.param;
        match *self.fault {
            OffsetFault::Empty => write!(f, "`{param}` has no elements, but offsets start at 0"),
            OffsetFault::FirstNotZero { value } => {
                write!(f, "`{param}[0]` = {value}, but offsets start at 0")
            }
            OffsetFault::Decreasing {
                index,
                before,
                value,
            } => write!(
                f,
                "`{param}[{index}]` = {value} is less than `{param}[{}]` = {before}, but offsets never decrease",
                index - 1
            ),
            OffsetFault::StepTooLarge {
                index,
                before,
                value,
                max_step,
            } => write!(
                f,
                "`{param}[{index}]` - `{param}[{}]` = {value} - {before} = {} is more than {max_step} (`{}`), the largest step the offsets may take",
                index - 1,
                value - before,
                self.max_step
            ),
            OffsetFault::LastNotTotal {
                index,
                value,
                total,
            } => write!(
                f,
                "the last offset `{param}[{index}]` = {value}, but the offsets end at {total} (`{}`)",
                self.total
            ),
        }
    }
}

/// Checks that `values` is an offsets array ending at `total`, its steps at most
/// `max_step` when there is one; the first fault from the start.
pub fn check_offsets(values: &[f64], total: i64, max_step: Option<i64>) -> Result<(), OffsetFault> {
    let Some(&first) = values.first() else {
        return Err(OffsetFault::Empty);
    };
    if first != 0.0 {
        return Err(OffsetFault::FirstNotZero { value: first });
    }
    for (index, pair) in values.windows(2).enumerate() {
        let (before, value) = (pair[0], pair[1]);
        let index = index + 1;
        if value < before {
            return Err(OffsetFault::Decreasing {
                index,
                before,
                value,
            });
        }
        if let Some(max_step) = max_step
            && value - before > max_step as f64
        {
            return Err(OffsetFault::StepTooLarge {
                index,
                before,
                value,
                max_step,
            });
        }
    }
    let index = values.len() - 1;
    if values[index] != total as f64 {
        return Err(OffsetFault::LastNotTotal {
            index,
            value: values[index],
            total,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_offsets_pass() {
        assert_eq!(
            check_offsets(&[0.0, 40.0, 40.0, 64.0], 64, Some(40)),
            Ok(())
        );
        assert_eq!(check_offsets(&[0.0, 40.0, 64.0], 64, None), Ok(()));
        // One element: no sequences, so nothing packed.
        assert_eq!(check_offsets(&[0.0], 0, Some(0)), Ok(()));
    }

    #[test]
    fn each_fault_is_the_first_from_the_start_with_its_code() {
        let cases = [
            (check_offsets(&[], 0, None), "E0424"),
            (check_offsets(&[3.0, 40.0, 64.0], 64, None), "E0424"),
            (check_offsets(&[0.0, 50.0, 40.0], 64, None), "E0425"),
            (check_offsets(&[0.0, 40.0, 60.0], 64, Some(64)), "E0426"),
            (check_offsets(&[0.0], 5, None), "E0426"),
            (check_offsets(&[0.0, 40.0, 64.0], 64, Some(32)), "E0427"),
            // A decrease is reported where it is, before the wrong end.
            (check_offsets(&[0.0, -3.0, 64.0], 63, None), "E0425"),
            // A step too long before the wrong end.
            (check_offsets(&[0.0, 100.0, 65.0], 64, Some(64)), "E0427"),
        ];
        for (result, code) in cases {
            assert_eq!(
                result.as_ref().map_err(OffsetFault::code),
                Err(code),
                "{result:?}"
            );
        }
        assert_eq!(
            check_offsets(&[0.0, 50.0, 40.0], 64, None),
            Err(OffsetFault::Decreasing {
                index: 2,
                before: 50.0,
                value: 40.0
            })
        );
        assert_eq!(
            check_offsets(&[0.0, 10.0, 64.0], 64, Some(50)),
            Err(OffsetFault::StepTooLarge {
                index: 2,
                before: 10.0,
                value: 64.0,
                max_step: 50
            })
        );
        assert_eq!(
            check_offsets(&[0.0, 10.0, 60.0], 64, None),
            Err(OffsetFault::LastNotTotal {
                index: 2,
                value: 60.0,
                total: 64
            })
        );
    }

    #[test]
    fn faults_read_with_the_parameter_the_element_and_the_source() {
        let describe = |fault: &OffsetFault| {
            Described {
                fault,
                param: "cu",
                total: "total_q",
                max_step: "max_seqlen_q",
            }
            .to_string()
        };
        let step = check_offsets(&[0.0, 10.0, 64.0], 64, Some(50)).unwrap_err();
        assert_eq!(
            describe(&step),
            "`cu[2]` - `cu[1]` = 64 - 10 = 54 is more than 50 (`max_seqlen_q`), the largest step the offsets may take"
        );
        let last = check_offsets(&[0.0, 65.0], 64, None).unwrap_err();
        assert_eq!(
            describe(&last),
            "the last offset `cu[1]` = 65, but the offsets end at 64 (`total_q`)"
        );
        let first = check_offsets(&[1.0], 1, None).unwrap_err();
        assert_eq!(describe(&first), "`cu[0]` = 1, but offsets start at 0");
        let down = check_offsets(&[0.0, -3.0], 64, None).unwrap_err();
        assert_eq!(
            describe(&down),
            "`cu[1]` = -3 is less than `cu[0]` = 0, but offsets never decrease"
        );
        assert_eq!(
            describe(&OffsetFault::Empty),
            "`cu` has no elements, but offsets start at 0"
        );
    }
}
