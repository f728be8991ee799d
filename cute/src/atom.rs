//! Atoms: one hardware instruction described as data.
//!
//! An `atom` item of the stdlib is evaluated like const code; its properties become an
//! [`Atom`] whose thread-value layouts drive partitioning. What each kind needs is
//! listed in `stdlib/README.md`; [`check_copy_shapes`] and [`check_mma_shapes`] check
//! that an atom's layouts agree with each other.

use std::fmt;

use layout::{IntTuple, Layout};

use crate::Error;
use crate::dtype::Dtype;

/// The kinds of atom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomKind {
    /// Moves data.
    Copy,
    /// Multiplies and accumulates.
    Mma,
}

impl AtomKind {
    /// The kind as written after `atom NAME:`.
    pub fn name(self) -> &'static str {
        match self {
            AtomKind::Copy => "copy",
            AtomKind::Mma => "mma",
        }
    }

    /// The kind a name spells.
    pub fn from_name(name: &str) -> Option<AtomKind> {
        match name {
            "copy" => Some(AtomKind::Copy),
            "mma" => Some(AtomKind::Mma),
            _ => None,
        }
    }
}

/// Where a copy atom's operand may live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpaceRule {
    /// Any memory space.
    Any,
    /// Exactly this space (`"gmem"`, `"smem"`, `"rmem"`, `"tmem"`).
    Only(&'static str),
}

impl SpaceRule {
    /// The rule a string property spells.
    pub fn from_name(name: &str) -> Option<SpaceRule> {
        match name {
            "any" => Some(SpaceRule::Any),
            "gmem" => Some(SpaceRule::Only("gmem")),
            "smem" => Some(SpaceRule::Only("smem")),
            "rmem" => Some(SpaceRule::Only("rmem")),
            "tmem" => Some(SpaceRule::Only("tmem")),
            _ => None,
        }
    }

    /// Whether a tensor in `space` may be this operand.
    pub fn allows(self, space: &str) -> bool {
        match self {
            SpaceRule::Any => true,
            SpaceRule::Only(only) => only == space,
        }
    }
}

/// A copy atom's facts.
#[derive(Clone, Debug, PartialEq)]
pub struct CopyAtom {
    /// Element types read and written.
    pub dtypes: (Dtype, Dtype),
    /// Memory spaces read and written.
    pub spaces: (SpaceRule, SpaceRule),
    /// The atom's threads (CuTe's `ThrID`).
    pub threads: Layout<i64>,
    /// `(thread, value) -> source element`.
    pub src_layout: Layout<i64>,
    /// `(thread, value) -> destination element`.
    pub dst_layout: Layout<i64>,
    /// The reference view partitioning is expressed in (CuTe's `RefLayout`).
    pub ref_layout: Layout<i64>,
}

impl CopyAtom {
    /// Values one thread moves per instruction (CuTe's `AtomNumVal`).
    pub fn values_per_thread(&self) -> Result<i64, layout::LayoutError> {
        self.ref_layout.mode(1)?.size()
    }
}

/// An MMA atom's facts.
#[derive(Clone, Debug, PartialEq)]
pub struct MmaAtom {
    /// `(M, N, K)` of one instruction.
    pub shape_mnk: [i64; 3],
    /// `(D, A, B, C)` element types.
    pub dtypes: [Dtype; 4],
    /// The atom's threads.
    pub threads: Layout<i64>,
    /// `(thread, value) -> (M, K)` of A.
    pub layout_a: Layout<i64>,
    /// `(thread, value) -> (N, K)` of B.
    pub layout_b: Layout<i64>,
    /// `(thread, value) -> (M, N)` of C and D.
    pub layout_c: Layout<i64>,
    /// Where A and B are read from: registers, or shared memory through descriptors
    /// (wgmma); C and D are always registers.
    pub operand_spaces: (SpaceRule, SpaceRule),
}

/// The kind-specific facts of an atom.
#[derive(Clone, Debug, PartialEq)]
pub enum AtomDetail {
    /// A copy atom.
    Copy(CopyAtom),
    /// An MMA atom.
    Mma(MmaAtom),
}

/// An instantiated atom.
#[derive(Clone, Debug, PartialEq)]
pub struct Atom {
    /// Qualified name: `sm80::cp_async`.
    pub name: String,
    /// The const arguments it was instantiated with, as `NAME = value`.
    pub arguments: Vec<String>,
    /// What the atom does.
    pub kind: AtomKind,
    /// The oldest architecture with the instruction (80 for `sm80`).
    pub arch: u32,
    /// The instruction's PTX template.
    pub ptx: String,
    /// The facts partitioning and checks need.
    pub detail: AtomDetail,
}

impl Atom {
    /// The copy facts, for a copy atom.
    pub fn as_copy(&self) -> Option<&CopyAtom> {
        match &self.detail {
            AtomDetail::Copy(copy) => Some(copy),
            AtomDetail::Mma(_) => None,
        }
    }

    /// The MMA facts, for an MMA atom.
    pub fn as_mma(&self) -> Option<&MmaAtom> {
        match &self.detail {
            AtomDetail::Mma(mma) => Some(mma),
            AtomDetail::Copy(_) => None,
        }
    }

    /// `sm80::cp_async(T = bf16, BITS = 128)`.
    pub fn display_name(&self) -> String {
        if self.arguments.is_empty() {
            self.name.clone()
        } else {
            format!("{}({})", self.name, self.arguments.join(", "))
        }
    }

    /// The facts in one line, for hovers and `--dump-types`.
    pub fn summary(&self) -> String {
        match &self.detail {
            AtomDetail::Copy(copy) => format!(
                "{} (sm{}): {} -> {}, threads {}, src TV {}, dst TV {}",
                self.display_name(),
                self.arch,
                copy.dtypes.0,
                copy.dtypes.1,
                copy.threads,
                copy.src_layout,
                copy.dst_layout
            ),
            AtomDetail::Mma(mma) => format!(
                "{} (sm{}): {}x{}x{}, D {} = A {} * B {} + C {}, threads {}, A TV {}, B TV {}, C TV {}",
                self.display_name(),
                self.arch,
                mma.shape_mnk[0],
                mma.shape_mnk[1],
                mma.shape_mnk[2],
                mma.dtypes[0],
                mma.dtypes[1],
                mma.dtypes[2],
                mma.dtypes[3],
                mma.threads,
                mma.layout_a,
                mma.layout_b,
                mma.layout_c
            ),
        }
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display_name())
    }
}

/// The checks on an MMA atom's shapes: each thread-value layout must cover its
/// operand's tile exactly once per thread set.
pub fn check_mma_shapes(mma: &MmaAtom) -> Result<(), Error> {
    let [m, n, k] = mma.shape_mnk;
    let threads = mma.threads.size()?;
    for (name, layout, extent) in [
        ("layout_a", &mma.layout_a, m * k),
        ("layout_b", &mma.layout_b, n * k),
        ("layout_c", &mma.layout_c, m * n),
    ] {
        let size = layout.size()?;
        let thread_mode = layout.mode(0).and_then(|mode| mode.size())?;
        // An operand every thread sees whole (wgmma's shared A and B): threads at
        // stride 0, each thread's values the whole tile.
        let broadcast = layout
            .mode(0)?
            .stride()
            .leaves()
            .iter()
            .all(|stride| *stride == 0)
            && layout.mode(1).and_then(|mode| mode.size())? == extent;
        if (size != extent && !broadcast) || thread_mode != threads {
            return Err(Error::Inconsistent(format!(
                "{name} = {layout} has {size} elements over {thread_mode} threads; the {m}x{n}x{k} atom needs {extent} over {threads}"
            )));
        }
    }
    Ok(())
}

/// The copy checks: source and destination layouts cover the same number of
/// elements per thread as the reference.
pub fn check_copy_shapes(copy: &CopyAtom) -> Result<(), Error> {
    let threads = copy.threads.size()?;
    for (name, layout) in [
        ("layout_src", &copy.src_layout),
        ("layout_dst", &copy.dst_layout),
        ("layout_ref", &copy.ref_layout),
    ] {
        if layout.rank() != 2 {
            return Err(Error::Inconsistent(format!(
                "{name} = {layout} must have two modes, (thread, value)"
            )));
        }
        let thread_mode = layout.mode(0).and_then(|mode| mode.size())?;
        if thread_mode != threads {
            return Err(Error::Inconsistent(format!(
                "{name} = {layout} has {thread_mode} threads, but `threads` has {threads}"
            )));
        }
    }
    let sizes = [&copy.src_layout, &copy.dst_layout].map(|layout| layout.size().unwrap_or(-1));
    if sizes[0] != sizes[1] {
        return Err(Error::Inconsistent(format!(
            "layout_src covers {} elements but layout_dst covers {}",
            sizes[0], sizes[1]
        )));
    }
    Ok(())
}

/// Shape helper: the int-tuple `(a, b, c)` of three static extents.
pub fn three_extents(tuple: &IntTuple<i64>) -> Option<[i64; 3]> {
    match tuple {
        IntTuple::Tuple(items) if items.len() == 3 => {
            let values: Vec<i64> = items
                .iter()
                .map(|item| item.as_int().copied())
                .collect::<Option<_>>()?;
            Some([values[0], values[1], values[2]])
        }
        _ => None,
    }
}
