//! Which blocks a harness run takes ([`Selection`]: tests, benches, a name filter, the
//! kernel time limit, profiling) and how its benches time kernels ([`BenchConfig`]).

use std::time::Duration;

use super::BlockKind;

/// Which blocks to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// Run `test` blocks.
    pub tests: bool,
    /// Run `bench` blocks.
    pub benches: bool,
    /// Run only blocks whose name contains this (is this, with `exact`).
    pub filter: Option<String>,
    /// Whether `filter` names a block whole.
    pub exact: bool,
    /// How benches time their kernels.
    pub bench: BenchConfig,
    /// How long one kernel launch may run on the GPU (`None`: what
    /// `CUKC_KERNEL_TIMEOUT` says, else 60 s).
    pub kernel_timeout: Option<Duration>,
    /// Count what each source span of the emulated kernels did (`cukc profile`): the
    /// block's [`Event::profile`](super::Event::profile).
    pub profile: bool,
}

impl Selection {
    /// Tests only.
    pub fn tests() -> Self {
        Selection {
            tests: true,
            benches: false,
            filter: None,
            exact: false,
            bench: BenchConfig::default(),
            kernel_timeout: None,
            profile: false,
        }
    }

    /// Benches only.
    pub fn benches() -> Self {
        Selection {
            tests: false,
            ..Selection::all()
        }
    }

    /// Tests, then benches.
    pub fn all() -> Self {
        Selection {
            benches: true,
            ..Selection::tests()
        }
    }

    /// The same selection, limited to names containing `filter`.
    pub fn with_filter(self, filter: impl Into<String>) -> Self {
        Selection {
            filter: Some(filter.into()),
            ..self
        }
    }

    /// The same selection, with kernels on the GPU limited to `limit` a launch.
    pub fn with_kernel_timeout(self, limit: Duration) -> Self {
        Selection {
            kernel_timeout: Some(limit),
            ..self
        }
    }

    /// The same selection, its filter matching whole names only.
    pub fn exactly(self) -> Self {
        Selection {
            exact: true,
            ..self
        }
    }

    /// The same selection, its emulated blocks profiled.
    pub fn profiled(self) -> Self {
        Selection {
            profile: true,
            ..self
        }
    }

    /// Whether the block `name` of `kind` is selected.
    pub fn wants(&self, kind: BlockKind, name: &str) -> bool {
        let kind_wanted = match kind {
            BlockKind::Test => self.tests,
            BlockKind::Bench => self.benches,
        };
        kind_wanted
            && self.filter.as_ref().is_none_or(|filter| match self.exact {
                true => name == filter,
                false => name.contains(filter.as_str()),
            })
    }
}

/// How a bench times a kernel: untimed warm-up launches, then `runs` launches each
/// timed with CUDA events; the median counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchConfig {
    /// Untimed launches first.
    pub warmup: u32,
    /// Timed launches.
    pub runs: u32,
    /// Flush L2 before each launch of the kernel (`cukc tune`), so that a
    /// configuration is not timed on operands an earlier launch left in L2.
    pub flush_l2: bool,
    /// Time the reference a `report ... against` names (`cukc tune` compares its
    /// points with each other, and leaves it out).
    pub references: bool,
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            warmup: 5,
            runs: 20,
            flush_l2: false,
            references: true,
        }
    }
}
