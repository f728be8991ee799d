//! The types of KIR's values, the special registers it reads, the memory spaces it
//! reaches and the narrow widths of 8- and 16-bit elements in memory.

/// The type of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A predicate.
    Pred,
    /// A signed 32-bit integer (also shared-memory addresses).
    I32,
    /// A signed 64-bit integer (also global addresses).
    I64,
    /// An unsigned 32-bit integer: C's `unsigned`, compared, divided, shifted and
    /// widened as unsigned.
    U32,
    /// An unsigned 64-bit integer.
    U64,
    /// IEEE single.
    F32,
    /// IEEE double.
    F64,
    /// IEEE half, in a 16-bit register.
    F16,
    /// bfloat16, in a 16-bit register.
    BF16,
    /// 16 raw bits.
    B16,
    /// 32 raw bits (two packed 16-bit values, or a moved word).
    B32,
    /// 64 raw bits.
    B64,
}

impl Ty {
    /// The size in bits.
    pub fn bits(self) -> u32 {
        match self {
            Ty::Pred => 1,
            Ty::F16 | Ty::BF16 | Ty::B16 => 16,
            Ty::I32 | Ty::U32 | Ty::F32 | Ty::B32 => 32,
            Ty::I64 | Ty::U64 | Ty::F64 | Ty::B64 => 64,
        }
    }

    /// The name in the text form.
    pub fn name(self) -> &'static str {
        match self {
            Ty::Pred => "pred",
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::U32 => "u32",
            Ty::U64 => "u64",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::F16 => "f16",
            Ty::BF16 => "bf16",
            Ty::B16 => "b16",
            Ty::B32 => "b32",
            Ty::B64 => "b64",
        }
    }

    /// Whether arithmetic on it is integer arithmetic.
    pub fn is_integer(self) -> bool {
        matches!(self, Ty::I32 | Ty::I64 | Ty::U32 | Ty::U64)
    }

    /// Whether it is an unsigned integer.
    pub fn is_unsigned(self) -> bool {
        matches!(self, Ty::U32 | Ty::U64)
    }
}

/// A hardware register read by [`super::Op::Special`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    /// `%tid.{x,y,z}`.
    ThreadIndex(u8),
    /// `%ctaid.{x,y,z}`.
    BlockIndex(u8),
    /// `%ntid.{x,y,z}`.
    BlockDim(u8),
    /// `%nctaid.{x,y,z}`.
    GridDim(u8),
    /// `%clusterid.{x,y,z}`: the block's cluster in the grid.
    ClusterIndex(u8),
    /// `%cluster_ctaid.{x,y,z}`: the block's place in its cluster.
    BlockInCluster(u8),
    /// `%cluster_ctarank`: the block's linear rank in its cluster (x fastest).
    BlockRankInCluster,
}

/// Where a memory operation goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Global memory, 64-bit addresses.
    Global,
    /// Shared memory, 32-bit addresses.
    Shared,
}

impl Space {
    /// The name in the text form and in PTX.
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
        }
    }

    /// The type of its addresses.
    pub fn address_ty(self) -> Ty {
        match self {
            Space::Global => Ty::I64,
            Space::Shared => Ty::I32,
        }
    }
}

/// The width in memory of each element a load or store moves, where it is narrower
/// than its 32-bit integer register (an `i8` or `u16` element), and how a load extends
/// it: by its sign for `S8` and `S16`, by zeros for `U8` and `U16`, as C converts a
/// `signed char` or `unsigned short` to `int`. A store writes the register's low bits,
/// whichever the signedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Narrow {
    /// A signed byte.
    S8,
    /// An unsigned byte.
    U8,
    /// A signed 16-bit integer.
    S16,
    /// An unsigned 16-bit integer.
    U16,
}

impl Narrow {
    /// Every narrow width.
    pub const ALL: [Narrow; 4] = [Narrow::S8, Narrow::U8, Narrow::S16, Narrow::U16];

    /// The width for an integer of `bits` bits (8 or 16) and that signedness.
    pub fn of(bits: i64, signed: bool) -> Option<Narrow> {
        match (bits, signed) {
            (8, true) => Some(Narrow::S8),
            (8, false) => Some(Narrow::U8),
            (16, true) => Some(Narrow::S16),
            (16, false) => Some(Narrow::U16),
            _ => None,
        }
    }

    /// The size in bits.
    pub fn bits(self) -> u32 {
        match self {
            Narrow::S8 | Narrow::U8 => 8,
            Narrow::S16 | Narrow::U16 => 16,
        }
    }

    /// Whether a load extends it by its sign.
    pub fn is_signed(self) -> bool {
        matches!(self, Narrow::S8 | Narrow::S16)
    }

    /// The name in the text form, which is also PTX's type (`ld.global.s8`).
    pub fn name(self) -> &'static str {
        match self {
            Narrow::S8 => "s8",
            Narrow::U8 => "u8",
            Narrow::S16 => "s16",
            Narrow::U16 => "u16",
        }
    }
}
