//! The parameters of intrinsics that are not numbers: where a TMA load lands, what a
//! fence orders, a tcgen05 MMA's kind and a tensor-memory move's shape.

/// Where a TMA load's box lands and completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmaReach {
    /// In this block, on its barrier at `bar`.
    Block,
    /// In every block of the cluster in the 16-bit mask `mask`, at the same offset,
    /// each completing on its barrier at `bar`'s offset.
    Multicast,
    /// A CTA pair's (`.cta_group::2`, sm_100a): in this block, completing on the
    /// barrier at `bar`'s place (a plain register) in the pair's even block.
    Pair,
}

/// What a fence orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fence {
    /// `fence.proxy.async.shared::cta`: the thread's generic-proxy writes to shared
    /// memory before it, visible to the asynchronous proxy (TMA, wgmma) after it.
    ProxyAsync,
    /// `fence.mbarrier_init.release.cluster`: the thread's mbarrier inits visible to
    /// the cluster and the asynchronous proxy.
    BarrierInit,
    /// `fence.sc.gpu` (CUDA's `__threadfence()`): the thread's memory accesses before
    /// it are observed by every thread of the device before those after it.
    Device,
    /// `fence.sc.sys` (`__threadfence_system()`): as [`Fence::Device`], for the host and
    /// peer devices too.
    System,
}

/// What a `tcgen05.mma` multiplies (its `.kind`), which its instruction descriptor's
/// types must agree with (PTX ISA, `tcgen05.mma`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaKind {
    /// `kind::f16`: f16 or bf16 inputs.
    F16,
    /// `kind::tf32`: f32 inputs read as tf32.
    Tf32,
    /// `kind::f8f6f4`: 8-, 6- or 4-bit float inputs (e4m3 and e5m2 here).
    F8f6f4,
}

impl MmaKind {
    /// Every kind.
    pub const ALL: [MmaKind; 3] = [MmaKind::F16, MmaKind::Tf32, MmaKind::F8f6f4];

    /// The name after `kind::` (`f8f6f4`).
    pub fn name(self) -> &'static str {
        match self {
            MmaKind::F16 => "f16",
            MmaKind::Tf32 => "tf32",
            MmaKind::F8f6f4 => "f8f6f4",
        }
    }

    /// The kind named `name`.
    pub fn named(name: &str) -> Option<MmaKind> {
        MmaKind::ALL.into_iter().find(|kind| kind.name() == name)
    }
}

/// A tensor-memory move's shape: the lanes and the bits per lane one repetition moves
/// (PTX ISA, tcgen05 "Matrix fragments").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmemShape {
    /// `32x32b`: 32 lanes of 32 bits, one register per thread.
    S32x32b,
    /// `16x64b`: 16 lanes of 64 bits, one register per thread.
    S16x64b,
    /// `16x128b`: 16 lanes of 128 bits, two registers per thread.
    S16x128b,
    /// `16x256b`: 16 lanes of 256 bits, four registers per thread.
    S16x256b,
}

impl TmemShape {
    /// Every shape.
    pub const ALL: [TmemShape; 4] = [
        TmemShape::S32x32b,
        TmemShape::S16x64b,
        TmemShape::S16x128b,
        TmemShape::S16x256b,
    ];

    /// The lanes it moves.
    pub fn lanes(self) -> u32 {
        match self {
            TmemShape::S32x32b => 32,
            _ => 16,
        }
    }

    /// The bits per lane of one repetition.
    pub fn bits(self) -> u32 {
        match self {
            TmemShape::S32x32b => 32,
            TmemShape::S16x64b => 64,
            TmemShape::S16x128b => 128,
            TmemShape::S16x256b => 256,
        }
    }

    /// The registers per thread of one repetition (a warp's 32 threads hold its
    /// `lanes × bits` bits).
    pub fn registers(self) -> u32 {
        self.lanes() * self.bits() / (32 * 32)
    }

    /// Its name in PTX (`16x256b`).
    pub fn name(self) -> &'static str {
        match self {
            TmemShape::S32x32b => "32x32b",
            TmemShape::S16x64b => "16x64b",
            TmemShape::S16x128b => "16x128b",
            TmemShape::S16x256b => "16x256b",
        }
    }

    /// The shape named `name`.
    pub fn named(name: &str) -> Option<TmemShape> {
        TmemShape::ALL
            .into_iter()
            .find(|shape| shape.name() == name)
    }

    /// The shape of `lanes` lanes of `bits` bits.
    pub fn of(lanes: u32, bits: u32) -> Option<TmemShape> {
        (TmemShape::ALL.into_iter()).find(|shape| shape.lanes() == lanes && shape.bits() == bits)
    }
}

/// The threads a memory order synchronizes with (PTX ISA, "Scope"): those of the block,
/// the cluster, the device, or every device and the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemoryScope {
    /// `.cta`: the block's threads.
    Cta,
    /// `.cluster`: the cluster's threads (sm_90).
    Cluster,
    /// `.gpu`: every thread of the device.
    Gpu,
    /// `.sys`: every thread of every device, and the host: what a peer device's
    /// memory needs.
    System,
}

impl MemoryScope {
    /// Every scope, narrowest first.
    pub const ALL: [MemoryScope; 4] = [
        MemoryScope::Cta,
        MemoryScope::Cluster,
        MemoryScope::Gpu,
        MemoryScope::System,
    ];

    /// Its name in PTX and in source (`sys`).
    pub fn name(self) -> &'static str {
        match self {
            MemoryScope::Cta => "cta",
            MemoryScope::Cluster => "cluster",
            MemoryScope::Gpu => "gpu",
            MemoryScope::System => "sys",
        }
    }

    /// The scope named `name`.
    pub fn named(name: &str) -> Option<MemoryScope> {
        MemoryScope::ALL
            .into_iter()
            .find(|scope| scope.name() == name)
    }
}

/// An access to one 32-bit word of global memory with a memory order (PTX ISA,
/// "Memory Consistency Model": release and acquire patterns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ordered {
    /// `ld.acquire`: a load that no later access of the thread moves before.
    LoadAcquire,
    /// `st.release`: a store that no earlier access of the thread (nor what it
    /// observed) moves after.
    StoreRelease,
    /// `red.release ... add`: an atomic add with release order, no result.
    AddRelease,
    /// `atom.acq_rel ... add`: an atomic add with both orders, returning the old word.
    FetchAddAcqRel,
}

impl Ordered {
    /// Every access.
    pub const ALL: [Ordered; 4] = [
        Ordered::LoadAcquire,
        Ordered::StoreRelease,
        Ordered::AddRelease,
        Ordered::FetchAddAcqRel,
    ];

    /// Whether it releases (orders the thread's earlier accesses before it).
    pub fn releases(self) -> bool {
        self != Ordered::LoadAcquire
    }

    /// Whether it acquires (orders the thread's later accesses after it).
    pub fn acquires(self) -> bool {
        matches!(self, Ordered::LoadAcquire | Ordered::FetchAddAcqRel)
    }

    /// Whether it writes memory.
    pub fn writes(self) -> bool {
        self != Ordered::LoadAcquire
    }

    /// Whether it defines a result (the word read).
    pub fn returns(self) -> bool {
        matches!(self, Ordered::LoadAcquire | Ordered::FetchAddAcqRel)
    }
}
