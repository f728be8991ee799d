//! Atom instructions: the PTX template of a stdlib atom (an [`kir::Op::Atom`]) mapped to
//! a model of what it does. Each model is a module here that reads its templates and
//! executes them; a template no model reads is an [`crate::FaultKind::UnmodeledAtom`]
//! naming it, reported when a thread first reaches it, never skipped.
//!
//! Modelled: `cp.async` ([`cp_async`]), one thread at a time; and the warp-collective
//! `ldmatrix` and `stmatrix` ([`matrix`]) and `mma.sync` ([`mma`]), which the whole
//! warp executes at once (the block completes them when all 32 lanes are there) and
//! whose data movement comes from the thread-value layouts the instruction carries
//! ([`kir::WarpAtom`]), not from a table here; Hopper's TMA, mbarriers, fences, named
//! and cluster barriers and `elect.sync` (typed [`kir::Intrinsic`]s, which
//! [`hopper::intrinsic`] maps to its model by their kind, never their text; executed in
//! `thread/hopper.rs`) and `wgmma` ([`wgmma`]), which a
//! whole warpgroup executes at once; Blackwell's tcgen05 instructions ([`tcgen05`], all
//! typed intrinsics mapped by their kind: tensor-memory allocation, loads and stores by
//! a warp, in `block/tcgen05.rs`; the MMA, commits, fences and waits by one thread, in
//! `thread/tcgen05.rs`). [`intrinsic`] gives each typed intrinsic its model. A new model is a module with a parser returning its
//! variant of [`Model`], and an arm in the thread's atom dispatch or the block's warp
//! completion.

pub mod cp_async;
pub mod hopper;
pub mod matrix;
pub mod mma;
pub mod tcgen05;
pub mod umma;
pub mod wgmma;

use std::collections::HashMap;

use kir::{Inst, Intrinsic, Kernel, Op, WarpAtom};

pub use cp_async::CpAsync;
pub use matrix::MatrixCopy;
pub use mma::Mma;

/// What an atom instruction does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Model {
    /// An asynchronous copy from global into shared memory, by one thread.
    CpAsync(CpAsync),
    /// A copy between shared memory and registers by the whole warp.
    Matrix(MatrixCopy),
    /// A matrix multiply-accumulate by the whole warp.
    Mma(Mma),
    /// A Hopper instruction: mbarriers, TMA, named barriers, wgmma (by a warpgroup).
    Hopper(hopper::Hopper),
    /// A Blackwell tcgen05 instruction: tensor memory, commits, fences and waits.
    Tcgen05(tcgen05::Tcgen05),
}

/// The model of `template`, carrying the warp description `warp`, if there is one.
pub fn model(template: &str, warp: Option<&WarpAtom>) -> Option<Model> {
    if let Some(copy) = cp_async::parse(template) {
        return Some(Model::CpAsync(copy));
    }
    if let Some(hopper) = hopper::parse(template) {
        return Some(Model::Hopper(hopper));
    }
    match warp? {
        WarpAtom::Copy { element, src, dst } => {
            matrix::plan(template, *element, src, dst).map(Model::Matrix)
        }
        WarpAtom::Mma {
            shape,
            types,
            a,
            b,
            c,
        } => mma::plan(template, *shape, *types, [a, b, c]).map(Model::Mma),
    }
}

/// The model of a typed intrinsic, by its kind: Hopper's ([`hopper::intrinsic`]) or a
/// tcgen05 one's ([`tcgen05::intrinsic`]).
pub fn intrinsic(intrinsic: &Intrinsic) -> Option<Model> {
    match hopper::intrinsic(intrinsic) {
        Some(hopper) => Some(Model::Hopper(hopper)),
        None => tcgen05::intrinsic(intrinsic).map(Model::Tcgen05),
    }
}

/// Every atom instruction (and intrinsic) of a kernel with its model, read once before
/// a launch.
#[derive(Default)]
pub struct Models {
    /// By the instruction's address (the kernel is borrowed for the whole launch).
    by_instruction: HashMap<usize, Option<Model>>,
}

impl Models {
    /// The models of `kernel`'s atoms and intrinsics.
    pub fn of(kernel: &Kernel) -> Models {
        let mut models = Models::default();
        models.collect(&kernel.body);
        models
    }

    fn collect(&mut self, body: &[Inst]) {
        for inst in body {
            match &inst.op {
                Op::Atom { template, warp, .. } => {
                    let model = model(template, warp.as_deref());
                    self.by_instruction.insert(key(inst), model);
                }
                Op::Intrinsic { intrinsic, .. } => {
                    self.by_instruction
                        .insert(key(inst), self::intrinsic(intrinsic));
                }
                _ => {}
            }
            for region in inst.op.regions() {
                self.collect(&region.body);
            }
        }
    }

    /// The model of atom instruction or intrinsic `inst`.
    pub fn get(&self, inst: &Inst) -> Option<&Model> {
        self.by_instruction.get(&key(inst)).and_then(Option::as_ref)
    }
}

fn key(inst: &Inst) -> usize {
    std::ptr::from_ref(inst) as usize
}

/// Value `value` of `bits` bits of a thread's values packed in 32-bit `words`, the
/// lowest value in the lowest bits.
pub fn unpack(words: &[u64], value: usize, bits: u32) -> u64 {
    let bit = value * bits as usize;
    let mask = (1u64 << bits) - 1;
    (words[bit / 32] >> (bit % 32)) & mask
}

/// Puts `bits` wide `element` at value `value` of `words` (see [`unpack`]).
pub fn pack(words: &mut [u64], value: usize, bits: u32, element: u64) {
    let bit = value * bits as usize;
    let mask = (1u64 << bits) - 1;
    let word = &mut words[bit / 32];
    *word = (*word & !(mask << (bit % 32))) | ((element & mask) << (bit % 32));
}
