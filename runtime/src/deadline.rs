//! The driver's PTX JIT under a time limit. `cuModuleLoadData` cannot be interrupted,
//! so the load runs on its own thread and the caller stops waiting after the limit:
//! the block that needed the module ends with a message, and the abandoned JIT keeps
//! running until it finishes or the process exits. The limit is `CUKC_JIT_TIMEOUT`
//! seconds (fractions allowed), 300 unless set.

use std::sync::mpsc;
use std::time::Duration;

/// The environment variable that sets the limit.
pub const JIT_TIMEOUT_VARIABLE: &str = "CUKC_JIT_TIMEOUT";

/// The limit when the variable is unset: 300 s.
pub const DEFAULT_JIT_TIMEOUT: Duration = Duration::from_secs(300);

/// The limit this process was given, or why `CUKC_JIT_TIMEOUT` cannot be used.
pub fn jit_timeout() -> Result<Duration, String> {
    parse_limit(std::env::var(JIT_TIMEOUT_VARIABLE).ok().as_deref())
}

/// The limit for a `CUKC_JIT_TIMEOUT` value (`None`: unset).
fn parse_limit(value: Option<&str>) -> Result<Duration, String> {
    let Some(text) = value.filter(|text| !text.trim().is_empty()) else {
        return Ok(DEFAULT_JIT_TIMEOUT);
    };
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|seconds| *seconds > 0.0)
        .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
        .ok_or_else(|| {
            format!("{JIT_TIMEOUT_VARIABLE}={text} is not a number of seconds above zero")
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
        assert_eq!(parse_limit(None), Ok(DEFAULT_JIT_TIMEOUT));
        assert_eq!(parse_limit(Some("")), Ok(DEFAULT_JIT_TIMEOUT));
        assert_eq!(parse_limit(Some("2.5")), Ok(Duration::from_millis(2500)));
        assert!(parse_limit(Some("0")).is_err());
        assert!(parse_limit(Some("soon")).is_err());
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
