//! Build targets: the GPU architectures `cukc` compiles for and their limits.

use std::fmt;
use std::str::FromStr;

/// An architecture `cukc` emits code for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// Ampere (A100): `sm_80`.
    Sm80,
    /// Hopper (H100, H200) with its architecture-specific features: `sm_90a`.
    Sm90a,
    /// Blackwell (B200) with its architecture-specific features: `sm_100a`.
    Sm100a,
}

impl Target {
    /// Every target, oldest first.
    pub const ALL: [Target; 3] = [Target::Sm80, Target::Sm90a, Target::Sm100a];

    /// The target a `.cuk` file declares (`// target: sm_100a`), if it names one: a
    /// file for one architecture says so in one of the `//` comment lines that open
    /// it, within its first [`Target::HEADER_BYTES`] bytes. A line after the first
    /// line that is not a `//` comment declares nothing.
    pub fn declared_in(text: &str) -> Option<Target> {
        let header = &text[..text.floor_char_boundary(Self::HEADER_BYTES)];
        header
            .lines()
            .take_while(|line| line.starts_with("//"))
            .find_map(|line| line.strip_prefix("// target: "))
            .and_then(|name| name.trim().parse().ok())
    }

    /// How much of a file may hold its `// target:` line: a driver reads no more
    /// than this to find it.
    pub const HEADER_BYTES: usize = 4096;

    /// The name used on the command line and by ptxas: `sm_80`, `sm_90a`, `sm_100a`.
    pub fn name(self) -> &'static str {
        match self {
            Target::Sm80 => "sm_80",
            Target::Sm90a => "sm_90a",
            Target::Sm100a => "sm_100a",
        }
    }

    /// The compute capability as a number: 80, 90, 100.
    pub fn arch(self) -> u32 {
        match self {
            Target::Sm80 => 80,
            Target::Sm90a => 90,
            Target::Sm100a => 100,
        }
    }

    /// The PTX ISA version a module for this target declares: the oldest that has it.
    pub fn ptx_version(self) -> &'static str {
        match self {
            Target::Sm80 | Target::Sm90a => "8.0",
            Target::Sm100a => "8.6",
        }
    }

    /// The most shared memory one block may use, in bytes, with the opt-in above
    /// the default 48 KiB (CUDA C Programming Guide, compute capability tables:
    /// 163 KB on 8.0, 227 KB on 9.0 and 10.0).
    pub fn shared_memory_limit(self) -> i64 {
        match self {
            Target::Sm80 => 163 * 1024,
            Target::Sm90a | Target::Sm100a => 227 * 1024,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no target's (what `--target` and a file's `// target:` line were given).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTarget(pub String);

impl fmt::Display for UnknownTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown target `{}`: expected sm_80, sm_90a or sm_100a",
            self.0
        )
    }
}

impl std::error::Error for UnknownTarget {}

impl FromStr for Target {
    type Err = UnknownTarget;

    fn from_str(text: &str) -> Result<Target, UnknownTarget> {
        Target::ALL
            .into_iter()
            .find(|target| target.name() == text)
            .ok_or_else(|| UnknownTarget(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::Target;

    #[test]
    fn a_file_declares_its_target_in_its_opening_comment_lines_only() {
        let text = "// target: sm_100a\nkernel k() {}";
        assert_eq!(Target::declared_in(text), Some(Target::Sm100a));
        let second = "// expect: error[E0413] at line 14\n// target: sm_100a\n";
        assert_eq!(Target::declared_in(second), Some(Target::Sm100a));
        assert_eq!(
            Target::declared_in("// a comment\n// target: sm_80"),
            Some(Target::Sm80)
        );
        assert_eq!(Target::declared_in("const X = 1;\n// target: sm_80"), None);
        assert_eq!(Target::declared_in("// a\n\n// target: sm_80"), None);
        assert_eq!(Target::declared_in("// target: sm_70"), None);
        let deep = format!("{}// target: sm_80\n", "// padding\n".repeat(400));
        assert_eq!(Target::declared_in(&deep), None);
    }

    #[test]
    fn names_parse_back_and_limits_grow_with_the_architecture() {
        for target in Target::ALL {
            assert_eq!(target.name().parse::<Target>(), Ok(target));
        }
        assert!("sm_90".parse::<Target>().is_err());
        assert_eq!(Target::Sm80.shared_memory_limit(), 166_912);
        assert_eq!(Target::Sm90a.shared_memory_limit(), 232_448);
    }
}
