//! `assert_close(actual, expected, rtol = .., atol = ..)`: every element must satisfy
//! `|a - e| <= atol + rtol * |e|` (equal infinities pass; NaN never does). A failure
//! names how many elements are bad, the worst one, its coordinate and both values.

use std::fmt;

use kir::Element;

use crate::tensor::{Dense, coordinate_text, shape_text};

/// Tolerances of one comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
}

impl Tolerance {
    /// The defaults for a dtype, as PyTorch's `assert_close` chooses them: about a few
    /// units in the last place relative, a small absolute floor; exact for integers.
    pub fn default_for(dtype: Element) -> Tolerance {
        let (rtol, atol) = match dtype {
            Element::F16 => (1e-3, 1e-5),
            Element::BF16 => (1.6e-2, 1e-5),
            Element::F32 => (1.3e-6, 1e-5),
            Element::F64 => (1e-7, 1e-7),
            Element::E4M3 => (0.125, 1e-5),
            Element::E5M2 => (0.25, 1e-5),
            _ => (0.0, 0.0),
        };
        Tolerance { rtol, atol }
    }
}

/// Why `assert_close` failed.
#[derive(Clone, Debug, PartialEq)]
pub enum Mismatch {
    /// Tensors of two shapes.
    Shapes {
        actual: Vec<usize>,
        expected: Vec<usize>,
    },
    /// `bad` of the `count` elements are not close: the worst at coordinate `worst`,
    /// with both its values.
    Values {
        bad: usize,
        count: usize,
        tolerance: Tolerance,
        worst: String,
        actual: f64,
        expected: f64,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Mismatch::Shapes {
                ref actual,
                ref expected,
            } => write!(
                f,
                "assert_close compares tensors of one shape, not {} and {}",
                shape_text(actual),
                shape_text(expected)
            ),
            Mismatch::Values {
                bad,
                count,
                tolerance,
                ref worst,
                actual: a,
                expected: e,
            } => {
                write!(
                    f,
                    "assert_close: {bad} of {count} elements differ (rtol = {}, atol = {}); worst at {worst}: actual {a}, expected {e}",
                    number_text(tolerance.rtol),
                    number_text(tolerance.atol),
                )?;
                if a.is_nan() && !e.is_nan() {
                    f.write_str(
                        " (NaN is what `empty` fills tensors with: was this element written?)",
                    )
                } else if !(a - e).is_nan() {
                    let allowed = tolerance.atol + tolerance.rtol * e.abs();
                    write!(
                        f,
                        " (|difference| {} > {})",
                        number_text((a - e).abs()),
                        number_text(allowed)
                    )
                } else {
                    Ok(())
                }
            }
        }
    }
}

impl std::error::Error for Mismatch {}

/// Compares `actual` with `expected`; `Err` carries the report.
pub fn assert_close(
    actual: &Dense,
    expected: &Dense,
    tolerance: Tolerance,
) -> Result<(), Mismatch> {
    if actual.shape != expected.shape || actual.values.len() != expected.values.len() {
        return Err(Mismatch::Shapes {
            actual: actual.shape.clone(),
            expected: expected.shape.clone(),
        });
    }
    let mut bad = 0usize;
    // (index, how far past its tolerance; infinite for NaN)
    let mut worst: Option<(usize, f64)> = None;
    for (index, (a, e)) in actual.values.iter().zip(&expected.values).enumerate() {
        let allowed = tolerance.atol + tolerance.rtol * e.abs();
        let difference = (a - e).abs();
        if a == e || difference <= allowed {
            continue;
        }
        bad += 1;
        let excess = if difference.is_nan() {
            f64::INFINITY
        } else {
            difference - allowed
        };
        if worst.is_none_or(|(_, most)| excess > most) {
            worst = Some((index, excess));
        }
    }
    let Some((index, _)) = worst else {
        return Ok(());
    };
    Err(Mismatch::Values {
        bad,
        count: actual.values.len(),
        tolerance,
        worst: coordinate_text(&actual.shape, index),
        actual: actual.values[index],
        expected: expected.values[index],
    })
}

/// A number as written in source: plain in a readable range, else in `1e-6` form.
fn number_text(value: f64) -> String {
    if value == 0.0 || (1e-4..1e6).contains(&value.abs()) {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(values: &[f64]) -> Dense {
        Dense {
            dtype: Element::F32,
            shape: vec![2, values.len() / 2],
            values: values.to_vec(),
        }
    }

    const EXACT: Tolerance = Tolerance {
        rtol: 0.0,
        atol: 0.0,
    };

    #[test]
    fn equal_tensors_pass() {
        let a = matrix(&[1.0, 2.0, f64::INFINITY, -0.0]);
        assert_eq!(assert_close(&a, &a.clone(), EXACT), Ok(()));
    }

    #[test]
    fn tolerances_are_relative_to_the_expected_value_plus_absolute() {
        let expected = matrix(&[100.0, 1.0]);
        let actual = matrix(&[100.5, 1.1]);
        let loose = Tolerance {
            rtol: 0.01,
            atol: 0.1,
        };
        assert_eq!(assert_close(&actual, &expected, loose), Ok(()));
        let tight = Tolerance {
            rtol: 0.001,
            atol: 0.1,
        };
        let report = assert_close(&actual, &expected, tight)
            .unwrap_err()
            .to_string();
        assert!(
            report.starts_with("assert_close: 1 of 2 elements differ"),
            "{report}"
        );
    }

    #[test]
    fn the_report_names_the_worst_element_its_coordinate_and_both_values() {
        let expected = matrix(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        let actual = matrix(&[0.0, 1.5, 2.0, 3.0, 7.0, 5.25]);
        let report = assert_close(&actual, &expected, EXACT)
            .unwrap_err()
            .to_string();
        assert_eq!(
            report,
            "assert_close: 3 of 6 elements differ (rtol = 0, atol = 0); worst at (1, 1): \
             actual 7, expected 4 (|difference| 3 > 0)"
        );
    }

    #[test]
    fn nan_always_fails_and_is_the_worst() {
        let expected = matrix(&[1.0, 2.0, 3.0, 4.0]);
        let actual = matrix(&[100.0, 2.0, 3.0, f64::NAN]);
        let loose = Tolerance {
            rtol: 1e9,
            atol: 1e9,
        };
        let report = assert_close(&actual, &expected, loose)
            .unwrap_err()
            .to_string();
        assert!(
            report.contains("1 of 4 elements differ (rtol = 1e9, atol = 1e9)"),
            "{report}"
        );
        assert!(
            report.contains("worst at (1, 1): actual NaN, expected 4"),
            "{report}"
        );
        assert!(report.contains("was this element written?"), "{report}");
        let both = matrix(&[f64::NAN, 0.0]);
        assert!(assert_close(&both, &both.clone(), loose).is_err());
    }

    #[test]
    fn shapes_must_match() {
        let a = matrix(&[1.0, 2.0]);
        let b = matrix(&[1.0, 2.0, 3.0, 4.0]);
        assert!(
            assert_close(&a, &b, EXACT)
                .unwrap_err()
                .to_string()
                .contains("(2, 1) and (2, 2)")
        );
    }
}
