//! The driver's PTX JIT under a time limit. `cuModuleLoadData` cannot be interrupted,
//! so the load runs on its own thread and the caller stops waiting after the limit:
//! the block that needed the module ends with a message, and the abandoned JIT keeps
//! running until it finishes or the process exits. The limit is `CUKC_JIT_TIMEOUT`
//! seconds (fractions allowed), 300 unless set. The kernel time limit
//! (`driver/watchdog.rs`) is read from its variable the same way.

use std::fmt;
use std::sync::mpsc;
use std::time::Duration;

/// The environment variable that sets the limit.
pub const JIT_TIMEOUT_VARIABLE: &str = "CUKC_JIT_TIMEOUT";

/// The limit when the variable is unset: 300 s.
pub const DEFAULT_JIT_TIMEOUT: Duration = Duration::from_secs(300);

/// A time-limit variable set to something other than a number of seconds above zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLimit {
    /// The variable.
    pub variable: String,
    /// Its value, trimmed.
    pub value: String,
}

impl fmt::Display for BadLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}={} is not a number of seconds above zero",
            self.variable, self.value
        )
    }
}

impl std::error::Error for BadLimit {}

/// The limit this process was given, or why `CUKC_JIT_TIMEOUT` cannot be used.
pub fn jit_timeout() -> Result<Duration, BadLimit> {
    limit_from_environment(JIT_TIMEOUT_VARIABLE, DEFAULT_JIT_TIMEOUT)
}

/// The limit environment variable `variable` sets in seconds (fractions allowed),
/// `default` when it is unset or blank, or why its value cannot be used.
pub(crate) fn limit_from_environment(
    variable: &str,
    default: Duration,
) -> Result<Duration, BadLimit> {
    parse_limit(variable, std::env::var(variable).ok().as_deref(), default)
}

/// The limit for a value of `variable` (`None`: unset).
fn parse_limit(
    variable: &str,
    value: Option<&str>,
    default: Duration,
) -> Result<Duration, BadLimit> {
    let Some(text) = value.map(str::trim).filter(|text| !text.is_empty()) else {
        return Ok(default);
    };
    text.parse::<f64>()
        .ok()
        .filter(|seconds| *seconds > 0.0)
        .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
        .ok_or_else(|| BadLimit {
            variable: variable.to_owned(),
            value: text.to_owned(),
        })
}

/// Runs `work` on its own thread; `None` when it has not finished within `limit`.
pub fn within<T: Send + 'static>(
    limit: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || sender.send(work()));
    receiver.recv_timeout(limit).ok()
}

#[cfg(test)]
mod tests {
    use super::{DEFAULT_JIT_TIMEOUT, parse_limit, within};
    use std::time::{Duration, Instant};

    #[test]
    fn the_limit_is_read_in_seconds() {
        let parse = |value| parse_limit("LIMIT", value, DEFAULT_JIT_TIMEOUT);
        assert_eq!(parse(None), Ok(DEFAULT_JIT_TIMEOUT));
        assert_eq!(parse(Some(" ")), Ok(DEFAULT_JIT_TIMEOUT));
        assert_eq!(parse(Some("2.5")), Ok(Duration::from_millis(2500)));
        for bad in ["0", "-3", "soon", "inf", "NaN"] {
            assert_eq!(
                parse(Some(bad)).map_err(|error| error.to_string()),
                Err(format!("LIMIT={bad} is not a number of seconds above zero"))
            );
        }
    }

    #[test]
    fn slow_work_is_abandoned_at_the_limit() {
        let start = Instant::now();
        let slow = within(Duration::from_millis(100), || {
            std::thread::sleep(Duration::from_secs(5));
        });
        assert_eq!(slow, None);
        assert!(start.elapsed() < Duration::from_secs(2));
        assert_eq!(within(Duration::from_secs(5), || 7), Some(7));
    }
}
