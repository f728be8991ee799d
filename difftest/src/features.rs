//! What the generator may use: each feature is a part of the language whose programs
//! can be left out while the compiler gets it wrong, so a run tests the rest.

use std::fmt;

/// A part of the language the generator may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// u8, u16, u32 and u64 values.
    Unsigned,
    /// i8, i16, u8 and u16 values (made by `.to()`).
    SmallInts,
    /// i8, u8, i16 and u16 tensors (loads and stores).
    SmallIntMemory,
    /// f16 and bf16 values.
    HalfFloats,
    /// Integer `.to()` to a narrower integer.
    Narrowing,
    /// Float `.to()` to an integer.
    FloatToInt,
    /// Integer `.to()` to f16 or bf16.
    IntToHalf,
    /// f64 `.to()` f16 or bf16.
    DoubleToHalf,
    /// `&&` guarding a load that would be out of bounds.
    ShortCircuit,
    /// Locals assigned under run-time `if`/`else`.
    Branches,
    /// `for` and `while` loops with run-time trip counts carrying locals.
    Loops,
    /// `!=` of floats (which is true for a NaN operand in C).
    FloatNotEqual,
    /// `abs`, `sqrt` and `fma` of floats.
    Math,
    /// Cells that start as an untyped literal (`let mut c = 0.0;`) and are assigned f32
    /// or i32 values under run-time control flow.
    UntypedCells,
    /// `shfl_xor`, `shfl_down`, `shfl_up` and `shfl_idx` of 32-bit values.
    Shuffles,
    /// `atomic_add`, `atomic_max` and `atomic_min` of integers from every thread.
    Atomics,
    /// Integer literals beyond ±2^32.
    BigLiterals,
    /// `/` and `%` of integers by a constant power of two.
    PowerOfTwoDivision,
    /// i32 and i64 arithmetic that overflows (C leaves it undefined; CuK documents
    /// that it wraps).
    SignedWrap,
}

impl Feature {
    /// Every feature.
    pub const ALL: [Feature; 19] = [
        Feature::Unsigned,
        Feature::SmallInts,
        Feature::SmallIntMemory,
        Feature::HalfFloats,
        Feature::Narrowing,
        Feature::FloatToInt,
        Feature::IntToHalf,
        Feature::DoubleToHalf,
        Feature::ShortCircuit,
        Feature::Branches,
        Feature::Loops,
        Feature::FloatNotEqual,
        Feature::Math,
        Feature::UntypedCells,
        Feature::Shuffles,
        Feature::Atomics,
        Feature::BigLiterals,
        Feature::PowerOfTwoDivision,
        Feature::SignedWrap,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Unsigned => "unsigned",
            Feature::SmallInts => "small-ints",
            Feature::SmallIntMemory => "small-int-memory",
            Feature::HalfFloats => "half-floats",
            Feature::Narrowing => "narrowing",
            Feature::FloatToInt => "float-to-int",
            Feature::IntToHalf => "int-to-half",
            Feature::DoubleToHalf => "double-to-half",
            Feature::ShortCircuit => "short-circuit",
            Feature::Branches => "branches",
            Feature::Loops => "loops",
            Feature::FloatNotEqual => "float-ne",
            Feature::Math => "math",
            Feature::UntypedCells => "untyped-cells",
            Feature::Shuffles => "shuffles",
            Feature::Atomics => "atomics",
            Feature::BigLiterals => "big-literals",
            Feature::PowerOfTwoDivision => "pow2-division",
            Feature::SignedWrap => "signed-wrap",
        }
    }

    /// The feature called `name`.
    pub fn parse(name: &str) -> Option<Feature> {
        Feature::ALL
            .into_iter()
            .find(|feature| feature.name() == name)
    }
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the generator leaves out until the compiler gets it right (issue 33), and
/// why: the CI test and `cuk-difftest` leave these out unless told otherwise. Remove
/// each as its fix lands.
pub const KNOWN_FAILING: [(Feature, &str); 0] = [];

/// A set of features.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Features(Vec<Feature>);

impl Features {
    /// Every feature.
    pub fn all() -> Features {
        Features(Feature::ALL.to_vec())
    }

    /// Every feature but the [`KNOWN_FAILING`] ones.
    pub fn working() -> Features {
        let failing: Vec<Feature> = KNOWN_FAILING.iter().map(|(feature, _)| *feature).collect();
        Features::all_but(&failing)
    }

    /// Every feature but `disabled`.
    pub fn all_but(disabled: &[Feature]) -> Features {
        Features(
            Feature::ALL
                .into_iter()
                .filter(|feature| !disabled.contains(feature))
                .collect(),
        )
    }

    /// This set without `disabled`.
    pub fn without(&self, disabled: &[Feature]) -> Features {
        Features(
            (self.0.iter().copied())
                .filter(|feature| !disabled.contains(feature))
                .collect(),
        )
    }

    /// Whether `feature` is on.
    pub fn has(&self, feature: Feature) -> bool {
        self.0.contains(&feature)
    }
}
