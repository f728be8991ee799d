//! Distributed shared memory one thread executes (PTX ISA, `mapa`, and `ld`, `st` and
//! `red ... add` with `.shared::cluster`): a load, store or atomic add of the 32-bit
//! word at a shared address's place in block `cta` of the cluster. In the thread's own
//! block it is an access like any other; in a peer's it is a [`crate::thread::Remote`] the cluster's
//! scheduler applies between passes ([`crate::cluster`]) under the thread's peer name
//! ([`crate::shared::remote_thread`]), a load's thread waiting ([`Status::Remote`])
//! until its word is in its register. A rank outside the cluster is a fault (E0412).

use kir::{Inst, Op, ValueId};

use super::hopper::required_operand;
use super::memory::little_endian;
use super::{Context, Flow, Status, Thread};
use crate::arith;
use crate::atoms::hopper::Hopper;
use crate::cluster::add_word;
use crate::fault::{Access, FaultKind, Trap};
use crate::thread::RemoteKind;

impl<'k> Thread<'k> {
    /// Executes a cluster load, store or add (`hopper` says which).
    pub(super) fn cluster_access(
        &mut self,
        hopper: &Hopper,
        inst: &'k Inst,
        context: &mut Context<'_, 'k>,
    ) -> Result<Flow<'k>, Trap> {
        let operand = |name: &str| required_operand(&inst.op, name, "a cluster access");
        let (access, what) = match hopper {
            Hopper::ClusterLoad => (Access::Load, "load"),
            Hopper::ClusterStore => (Access::Store, "store"),
            _ => (Access::Atomic, "atomic add"),
        };
        let (register, offset) = operand("addr")?;
        let address = self.shared_address(context, register, offset, 4, access)?;
        context.shared.check(address, 4, access)?;
        let (cta, _) = operand("cta")?;
        let rank = i64::from(arith::as_i32(self.get(cta)));
        let blocks = context.cluster_dims.iter().product::<u32>();
        let Some(target) = u32::try_from(rank).ok().filter(|rank| *rank < blocks) else {
            return Err(Trap::Fault(FaultKind::Cluster(format!(
                "a distributed shared memory {what} in block {rank} of a cluster of {blocks} blocks (ranks 0 to {})",
                blocks - 1
            ))));
        };
        let who = self.accessor(context, inst);
        let local = target == context.cluster_rank();
        // A peer block may not have started until a cluster barrier says so (PTX ISA,
        // distributed shared memory: the target block must be running).
        if !local && !self.cluster_waited {
            return Err(Trap::Fault(FaultKind::Cluster(format!(
                "a distributed shared memory {what} in block {target} of the cluster before this thread waited at a cluster barrier: that block may not have started yet (a `cluster_sync()` before the first access to a peer's shared memory makes sure it has)"
            ))));
        }
        let value = || operand("value").map(|(value, _)| self.get(value) as u32);
        match hopper {
            Hopper::ClusterLoad if local => {
                let mut bytes = [0; 4];
                context.shared.read(&who, address, &mut bytes)?;
                self.set(loaded(inst)?, little_endian(&bytes));
            }
            Hopper::ClusterLoad => {
                let result = loaded(inst)?;
                self.send(inst, context, target, RemoteKind::Load { address, result });
                return Ok(Flow::Wait(Status::Remote(inst)));
            }
            Hopper::ClusterStore if local => {
                let bytes = value()?.to_le_bytes();
                context.shared.write(&who, address, &bytes, access)?;
            }
            Hopper::ClusterStore => {
                let bytes = value()?.to_le_bytes();
                self.send(inst, context, target, RemoteKind::Store { address, bytes });
            }
            Hopper::ClusterAdd { float } if local => {
                let value = value()?;
                (context.shared).atomic(&who, address, 4, |old| add_word(old, value, *float))?;
            }
            Hopper::ClusterAdd { float } => {
                let kind = RemoteKind::Add {
                    address,
                    value: value()?,
                    float: *float,
                };
                self.send(inst, context, target, kind);
            }
            _ => {}
        }
        Ok(Flow::Next)
    }
}

/// The register a cluster load defines.
fn loaded(inst: &Inst) -> Result<ValueId, Trap> {
    match (&inst.op, inst.results.first()) {
        (Op::Intrinsic { .. }, Some(result)) => Ok(*result),
        _ => Err(Trap::Fault(FaultKind::Unsupported(
            "a cluster load without its result".to_owned(),
        ))),
    }
}
