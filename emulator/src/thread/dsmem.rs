//! Distributed shared memory one thread executes (PTX ISA, `mapa`, `ld`/`st` with
//! `.shared::cluster`): a load or store of the 32-bit word at a shared address's place
//! in block `cta` of the cluster. In the thread's own block it is an access like any
//! other; in a peer's it is a [`Remote`] the cluster's scheduler applies between
//! passes ([`crate::cluster`]) under the thread's peer name
//! ([`crate::shared::remote_thread`]), a load's thread waiting
//! ([`Status::Remote`]) until its word is in its register. A rank outside the cluster
//! is a fault (E0412).

use kir::{Inst, Op};

use super::hopper::named_operand;
use super::memory::little_endian;
use super::{Context, Flow, Status, Thread};
use crate::arith;
use crate::fault::{Access, FaultKind, Trap};
use crate::thread::RemoteKind;

impl<'k> Thread<'k> {
    /// Executes a cluster load (`store` false) or store.
    pub(super) fn cluster_access(
        &mut self,
        store: bool,
        inst: &'k Inst,
        context: &mut Context<'_, 'k>,
    ) -> Result<Flow<'k>, Trap> {
        let operand = |name: &str| {
            named_operand(&inst.op, name).ok_or_else(|| {
                Trap::Fault(FaultKind::Unsupported(format!(
                    "a cluster access without its `{name}` operand"
                )))
            })
        };
        let access = if store { Access::Store } else { Access::Load };
        let (register, offset) = operand("addr")?;
        let address = self.shared_address(context, register, offset, 4, access)?;
        context.shared.check(address, 4, access)?;
        let (cta, _) = operand("cta")?;
        let rank = i64::from(arith::as_i32(self.get(cta)));
        let blocks = context.cluster_dims.iter().product::<u32>();
        let Some(target) = u32::try_from(rank).ok().filter(|rank| *rank < blocks) else {
            return Err(Trap::Fault(FaultKind::Cluster(format!(
                "a distributed shared memory {} in block {rank} of a cluster of {blocks} blocks (ranks 0 to {})",
                if store { "store" } else { "load" },
                blocks - 1
            ))));
        };
        let who = self.accessor(context, inst);
        let local = target == context.cluster_rank();
        match (store, local) {
            (true, _) => {
                let (value, _) = operand("value")?;
                let bytes = (self.get(value) as u32).to_le_bytes();
                if local {
                    context.shared.write(&who, address, &bytes, access)?;
                } else {
                    self.send(inst, context, target, RemoteKind::Store { address, bytes });
                }
                Ok(Flow::Next)
            }
            (false, true) => {
                let mut bytes = [0; 4];
                context.shared.read(&who, address, &mut bytes)?;
                let result = loaded(inst)?;
                self.set(result, little_endian(&bytes));
                Ok(Flow::Next)
            }
            (false, false) => {
                let result = loaded(inst)?;
                self.send(inst, context, target, RemoteKind::Load { address, result });
                Ok(Flow::Wait(Status::Remote(inst)))
            }
        }
    }
}

/// The register a cluster load defines.
fn loaded(inst: &Inst) -> Result<kir::ValueId, Trap> {
    match (&inst.op, inst.results.first()) {
        (Op::Intrinsic { .. }, Some(result)) => Ok(*result),
        _ => Err(Trap::Fault(FaultKind::Unsupported(
            "a cluster load without its result".to_owned(),
        ))),
    }
}
