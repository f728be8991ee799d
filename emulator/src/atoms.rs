//! Atom instructions: the PTX template of a stdlib atom (an [`kir::Op::Atom`]) mapped to
//! a model of what it does. Each model is a module here that reads its templates and
//! executes them; a template no model reads is an [`crate::FaultKind::UnmodeledAtom`]
//! naming it, reported when a thread first reaches it, never skipped.
//!
//! Modelled: `cp.async` ([`cp_async`]). Not yet: `ldmatrix`, `stmatrix`, `mma`. A new
//! model (TMA, `mbarrier`, `wgmma`) is a module with a parser returning its variant of
//! [`Model`], and an arm in the thread's atom dispatch.

pub mod cp_async;

use std::collections::HashMap;

use kir::{Inst, Kernel, Op};

pub use cp_async::CpAsync;

/// What an atom instruction does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Model {
    /// An asynchronous copy from global into shared memory.
    CpAsync(CpAsync),
}

/// The model of `template`, if there is one.
pub fn model(template: &str) -> Option<Model> {
    cp_async::parse(template).map(Model::CpAsync)
}

/// Every atom instruction of a kernel with its model, read once before a launch.
#[derive(Default)]
pub struct Models {
    /// By the instruction's address (the kernel is borrowed for the whole launch).
    by_instruction: HashMap<usize, Option<Model>>,
}

impl Models {
    /// The models of `kernel`'s atoms.
    pub fn of(kernel: &Kernel) -> Models {
        let mut models = Models::default();
        models.collect(&kernel.body);
        models
    }

    fn collect(&mut self, body: &[Inst]) {
        for inst in body {
            if let Op::Atom { template, .. } = &inst.op {
                self.by_instruction.insert(key(inst), model(template));
            }
            for region in inst.op.regions() {
                self.collect(&region.body);
            }
        }
    }

    /// The model of atom instruction `inst`.
    pub fn get(&self, inst: &Inst) -> Option<&Model> {
        self.by_instruction.get(&key(inst)).and_then(Option::as_ref)
    }
}

fn key(inst: &Inst) -> usize {
    std::ptr::from_ref(inst) as usize
}
