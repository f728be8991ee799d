//! tcgen05 instructions one thread executes (sm_100a; HOPPER-BLACKWELL.md D.3, D.6, D.8):
//! a block's `tcgen05.mma` runs at issue ([`crate::atoms::umma`]), but its accumulator
//! is in flight until a thread observes the phase of a commit after it
//! ([`crate::tmem::Accumulators`]), and a `tcgen05.commit` is one arrival on its
//! mbarrier at once; a CTA pair's MMA (issued by
//! the pair's even block) and its commits, and multicast commits, go to the cluster's
//! scheduler, which applies them in issue order (the MMA first); the fences and
//! `tcgen05.wait::st` order nothing the emulator's execution does not already order.
//! The registers a `tcgen05.ld` writes are not valid until the thread's
//! `tcgen05.wait::ld` (PTX ISA, `tcgen05.wait`): an instruction that reads one before
//! it is E0413.

use kir::{Inst, Op, ValueId};

use super::{Context, Flow, RemoteKind, Thread};
use crate::atoms::tcgen05::Tcgen05;
use crate::atoms::umma;
use crate::fault::{Access, FaultKind, Trap};
use crate::shared::Reader;
use crate::tmem::Issuer;

impl<'k> Thread<'k> {
    /// Executes the one-thread tcgen05 instruction `inst`, modelled as `tcgen05`.
    pub(super) fn tcgen05(
        &mut self,
        tcgen05: &Tcgen05,
        inst: &'k Inst,
        context: &mut Context<'_, 'k>,
    ) -> Result<Flow<'k>, Trap> {
        let value = |thread: &Self, name: &str| -> Result<u64, Trap> {
            let (register, _) = atom_operand(inst, name)?;
            Ok(thread.get(register))
        };
        match *tcgen05 {
            Tcgen05::Commit { pair, multicast } => {
                let (register, offset) = atom_operand(inst, "bar")?;
                let address = self.shared_address(context, register, offset, 8, Access::Atomic)?;
                let own = context.cluster_rank();
                if !pair && !multicast {
                    let completed = context.barriers.completed(address);
                    (context.shared).umma_commit(self.index, address, completed);
                    let issuer = Issuer {
                        rank: own,
                        thread: self.index,
                    };
                    (context.tmem.accumulators).commit(issuer, address, completed + 1);
                    context.shared.release(self.index, address);
                    (context.barriers).advance(context.shared, address, 1, 0)?;
                    return Ok(Flow::Next);
                }
                // After the pair's MMAs, which the cluster's scheduler runs in issue order.
                let mask = match multicast {
                    true => self.cluster_mask(context, value(self, "mask")? as u32 & 0xFFFF)?,
                    false => 1 << own,
                };
                for rank in (0..16).filter(|rank| mask >> rank & 1 != 0) {
                    let kind = RemoteKind::Arrive {
                        barrier: address,
                        commit: true,
                    };
                    self.send(inst, context, rank, kind);
                }
            }
            Tcgen05::Mma {
                kind,
                pair,
                a_in_tmem,
            } => {
                let a = match a_in_tmem {
                    true => umma::OperandA::Tmem(value(self, "a_taddr")? as u32),
                    false => umma::OperandA::Shared(value(self, "desc_a")?),
                };
                let issue = umma::Issue {
                    taddr: value(self, "taddr")? as u32,
                    a,
                    desc_b: value(self, "desc_b")?,
                    idesc: value(self, "idesc")? as u32,
                    kind,
                    accumulate: value(self, "accumulate")? as u32 != 0,
                };
                if !pair {
                    let shape = umma::instruction(issue.idesc, (kind, false))?;
                    let issuer = Issuer {
                        rank: context.cluster_rank(),
                        thread: self.index,
                    };
                    if let umma::OperandA::Tmem(address) = issue.a {
                        let (lanes, columns) = umma::a_in_tmem(address, shape);
                        let reader = (&*context.shared, self.index);
                        (context.tmem).handed_over(reader, lanes, columns, Access::UmmaRead)?;
                    }
                    context.shared.read_for([self.index]);
                    umma::execute(context.shared, context.tmem, issue)?;
                    let (lanes, columns) = umma::accumulator(issue.taddr, shape, shape.m);
                    (context.tmem.accumulators).issue(issuer, inst.span, lanes, columns);
                    // Its operands are read until its commit's barrier completes.
                    for (first, last) in context.shared.peeked() {
                        let group = (Reader::Umma, self.index, 0);
                        (context.shared).async_read(group, first, last - first + 1, inst.span);
                    }
                    return Ok(Flow::Next);
                }
                let own = context.cluster_rank();
                let blocks = context.cluster_dims.iter().product::<u32>();
                if !own.is_multiple_of(2) || own + 1 >= blocks {
                    return Err(Trap::Fault(FaultKind::Cluster(format!(
                        "a CTA pair's tcgen05.mma issued by block {own} of a cluster of {blocks}: the even block of a pair (2i, 2i + 1) issues it"
                    ))));
                }
                self.send(inst, context, own, RemoteKind::PairMma(issue));
            }
            Tcgen05::WaitLd => self.unwaited.clear(),
            _ => {}
        }
        Ok(Flow::Next)
    }

    /// Marks `value`, written by a `tcgen05.ld`, invalid until `tcgen05.wait::ld`.
    pub(crate) fn load_from_tmem(&mut self, value: ValueId) {
        self.unwaited.push(value);
    }

    /// E0413 if `inst` reads a register of a `tcgen05.ld` before `tcgen05.wait::ld`.
    pub(super) fn check_waited(&self, inst: &Inst) -> Result<(), Trap> {
        if inst
            .op
            .operands()
            .iter()
            .any(|value| self.unwaited.contains(value))
        {
            return Err(Trap::Fault(FaultKind::Tmem(
                "a read of a register tcgen05.ld loaded, before `tcgen05_wait_ld()` made it valid"
                    .to_owned(),
            )));
        }
        Ok(())
    }
}

/// The register and immediate offset of the operand `name` of atom `inst` (or of
/// intrinsic `inst`: its row's role of that name).
pub(crate) fn atom_operand(inst: &Inst, name: &str) -> Result<(ValueId, i64), Trap> {
    let operand = match &inst.op {
        Op::Atom { operands, .. } => operands
            .iter()
            .find(|(operand, _, _)| operand == name)
            .map(|(_, value, offset)| (*value, *offset)),
        Op::Intrinsic {
            intrinsic,
            operands,
        } => (intrinsic.operand_index(name)).and_then(|index| operands.get(index).copied()),
        _ => None,
    };
    operand.ok_or_else(|| missing(name))
}

fn missing(name: &str) -> Trap {
    Trap::Fault(FaultKind::Unsupported(format!(
        "a tcgen05 instruction without its `{name}` operand"
    )))
}
