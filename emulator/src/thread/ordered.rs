//! A thread's ordered accesses to one 32-bit word of global memory (PTX ISA, `ld.acquire`,
//! `st.release`, `red.release`, `atom.acq_rel`, each with a scope): the emulator runs
//! every access in program order and blocks that communicate one at a time, so each is
//! its plain access here; what the orders hand over is checked apart. On one device, at
//! gpu or system scope, a release hands the thread's knowledge to the word and an
//! acquire takes it for the checks between blocks (`crate::grid_order`,
//! [`Thread::sync_blocks`]); at block or cluster scope the access is as a relaxed atomic
//! to other clusters.
//!
//! In a multi-rank launch a release hands the thread's knowledge to the word and an
//! acquire takes it, and every plain global access is checked against other ranks'
//! (`crate::system`, [`Thread::cross_device`]).
//!
//! An ordered load or an add of 0 changes nothing another thread can see, so it is no
//! effect: a loop that polls a flag with `ld.acquire` spins until another thread (or
//! rank) sets it, and is reported when none can (`E0416`).

use kir::{Inst, MemoryScope, Ordered, Space, ValueId};

use super::memory::{aligned, global_fault, little_endian};
use super::{Context, Thread};
use crate::block::coordinates;
use crate::fault::{Access, FaultKind, Location, Trap};
use crate::grid_order::Sync;

/// The bytes of an ordered access: one 32-bit word.
const WORD: usize = 4;

impl<'k> Thread<'k> {
    /// Executes the ordered `access` of `inst` on its operands (the word's address,
    /// then the value stored or added).
    pub(super) fn ordered(
        &mut self,
        inst: &'k Inst,
        (access, scope): (Ordered, MemoryScope),
        operands: &[(ValueId, i64)],
        context: &mut Context<'_, 'k>,
    ) -> Result<(), Trap> {
        let &[(register, offset), ..] = operands else {
            return Ok(());
        };
        let address = (self.get(register) as i64).wrapping_add(offset) as u64;
        let kind = match access {
            Ordered::LoadAcquire => Access::Load,
            Ordered::StoreRelease => Access::Store,
            Ordered::AddRelease | Ordered::FetchAddAcqRel => Access::Atomic,
        };
        aligned(Space::Global, address, WORD, kind)?;
        self.across_blocks(context, (address, WORD), (kind, true), inst.span)?;
        let bounds = |bounds| global_fault(context, kind, address, WORD, bounds);
        let mut old = [0u8; WORD];
        if access != Ordered::StoreRelease {
            context.global.load(address, &mut old).map_err(bounds)?;
        }
        let operand = operands
            .get(1)
            .map_or(0, |(value, _)| self.get(*value) as u32);
        let new = match access {
            Ordered::LoadAcquire => None,
            Ordered::StoreRelease => Some(operand),
            Ordered::AddRelease | Ordered::FetchAddAcqRel => {
                Some((little_endian(&old) as u32).wrapping_add(operand))
            }
        };
        if let Some(new) = new {
            context
                .global
                .store(address, &new.to_le_bytes())
                .map_err(bounds)?;
            if new.to_le_bytes() != old || access == Ordered::StoreRelease {
                self.effects += 1;
            }
        }
        if let Some(result) = inst.results.first() {
            self.set(*result, little_endian(&old));
        }
        let device = scope >= MemoryScope::Gpu;
        // An order at block or cluster scope does not reach other clusters: the access
        // is as a relaxed one to them.
        let sync = match access {
            Ordered::LoadAcquire if device => Some(Sync::LoadAcquire),
            Ordered::StoreRelease if device => Some(Sync::StoreRelease),
            Ordered::AddRelease if device => Some(Sync::AddRelease),
            Ordered::FetchAddAcqRel if device => Some(Sync::AddAcquireRelease),
            Ordered::LoadAcquire => None,
            Ordered::StoreRelease => Some(Sync::Store),
            Ordered::AddRelease | Ordered::FetchAddAcqRel => Some(Sync::Relaxed),
        };
        if let Some(sync) = sync {
            self.sync_blocks(context, address, sync);
        }
        if let Some((system, thread)) = context.system_thread(self.index) {
            let mut order = system
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let system_scope = scope == MemoryScope::System;
            if access.acquires() {
                order.acquire(thread, address, system_scope);
            }
            if access.releases() {
                order.release(
                    thread,
                    address,
                    system_scope,
                    access != Ordered::StoreRelease,
                );
            }
        }
        Ok(())
    }

    /// In a multi-rank launch, a plain global access checked against other ranks'
    /// accesses it conflicts with ([`crate::system`]): `E0423` when nothing orders them.
    pub(super) fn cross_device(
        &self,
        context: &Context<'_, 'k>,
        address: u64,
        bytes: usize,
        access: Access,
        inst: &Inst,
    ) -> Result<(), Trap> {
        let Some((system, thread)) = context.system_thread(self.index) else {
            return Ok(());
        };
        let mut order = system
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some((word, other)) = order.access(thread, address, bytes, access.writes(), inst.span)
        else {
            return Ok(());
        };
        let threads: u64 = context
            .block_dims
            .iter()
            .map(|dim| u64::from(*dim))
            .product();
        let other_thread = Location {
            thread: coordinates(other.thread.1 % threads, context.block_dims),
            block: coordinates(other.thread.1 / threads, context.grid_dims),
        };
        Err(Trap::Fault(FaultKind::CrossRankRace {
            access,
            address: word,
            other_write: other.write,
            other_rank: other.thread.0,
            other: other_thread,
            other_span: other.span,
        }))
    }
}
