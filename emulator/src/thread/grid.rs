//! A thread's global accesses in the order between the blocks of its launch
//! ([`crate::grid_order`]): each access checked against other blocks' (`E0429`), and
//! what its atomics, ordered accesses, fences and cluster barrier waits hand over and
//! take.

use kir::MemoryScope;
use lang::Span;

use super::{Context, Thread};
use crate::block::coordinates;
use crate::fault::{Access, FaultKind, Location, Trap};
use crate::grid_order::{Sync, Who};

/// A TMA store's global write that no wait has completed.
pub(super) struct BulkWrite {
    /// Whether it adds (`tma_reduce_add`, atomic per element).
    add: bool,
    /// The thread's bulk group it belongs to.
    group: u32,
    /// Its first byte.
    address: u64,
    /// Its bytes.
    bytes: usize,
    /// The store.
    span: Span,
    /// The thread's epoch, release number and cluster arrivals at the store.
    issued: (u32, u32, u32),
}

impl Thread<'_> {
    /// A global access of `bytes` bytes at `address` (`strong`: an atomic or ordered
    /// one) checked against other blocks' accesses and recorded; `E0429` when one
    /// conflicts with it unordered.
    pub(crate) fn across_blocks(
        &self,
        context: &Context<'_, '_>,
        range: (u64, usize),
        access: (Access, bool),
        span: Span,
    ) -> Result<(), Trap> {
        self.check_across_blocks(context, range, access, (span, false, None))
    }

    /// A cp.async's read of `bytes` bytes at `address`, in flight (no release orders it)
    /// until the copy lands, when [`Self::across_blocks`] records it again.
    pub(crate) fn read_in_flight(
        &self,
        context: &Context<'_, '_>,
        range: (u64, usize),
        span: Span,
    ) -> Result<(), Trap> {
        let read = (Access::AsyncRead, false);
        self.check_across_blocks(context, range, read, (span, true, None))
    }

    /// A TMA store's write of `bytes` bytes at `address` (an atomic add when `add`), in
    /// the thread's bulk group `group`: in flight (no release orders it) until a wait
    /// completes the group ([`Self::complete_bulk_writes`]).
    pub(crate) fn bulk_write(
        &mut self,
        context: &Context<'_, '_>,
        (address, bytes, add): (u64, usize, bool),
        (group, span): (u32, Span),
    ) -> Result<(), Trap> {
        if context.order.is_none() {
            return Ok(());
        }
        let write = bulk_access(add);
        self.check_across_blocks(context, (address, bytes), write, (span, true, None))?;
        let issued = self.clock.moment();
        match self.bulk_writes.last_mut() {
            Some(last)
                if (
                    last.add,
                    last.group,
                    last.address + last.bytes as u64,
                    last.span,
                    last.issued,
                ) == (add, group, address, span, issued) =>
            {
                last.bytes += bytes;
            }
            _ => self.bulk_writes.push(BulkWrite {
                add,
                group,
                address,
                bytes,
                span,
                issued,
            }),
        }
        Ok(())
    }

    /// The thread waited for its bulk groups below `complete` to finish their writes:
    /// those writes are its own from now.
    pub(crate) fn complete_bulk_writes(
        &mut self,
        context: &Context<'_, '_>,
        complete: u32,
    ) -> Result<(), Trap> {
        let (done, pending) = std::mem::take(&mut self.bulk_writes)
            .into_iter()
            .partition(|write: &BulkWrite| write.group < complete);
        self.bulk_writes = pending;
        for BulkWrite {
            add,
            address,
            bytes,
            span,
            issued,
            ..
        } in done
        {
            let write = bulk_access(add);
            let landed = (span, false, Some(issued));
            self.check_across_blocks(context, (address, bytes), write, landed)?;
        }
        Ok(())
    }

    fn check_across_blocks(
        &self,
        context: &Context<'_, '_>,
        (address, bytes): (u64, usize),
        (access, strong): (Access, bool),
        (span, in_flight, issued): (Span, bool, Option<(u32, u32, u32)>),
    ) -> Result<(), Trap> {
        let Some(order) = context.order else {
            return Ok(());
        };
        let who = Who {
            block: context.block_index(),
            thread: self.index,
            clock: &self.clock,
            access,
            strong,
            in_flight,
            issued,
            span,
        };
        let race = match order.access(context.global, &who, address, bytes) {
            Ok(()) => return Ok(()),
            Err(race) => race,
        };
        let other = race.other;
        let location = Location {
            thread: coordinates(u64::from(other.thread), context.block_dims),
            block: coordinates(u64::from(other.block), context.grid_dims),
        };
        if race.unsettled {
            return Err(Trap::Fault(FaultKind::UnsettledAdd {
                address: race.address,
                other: location,
                other_span: other.span,
            }));
        }
        Err(Trap::Fault(FaultKind::GlobalRace {
            access,
            address: race.address,
            other_access: other.access,
            other: location,
            other_span: other.span,
        }))
    }

    /// What an atomic or ordered access to the word at `address` hands over and takes
    /// there ([`Sync`]).
    pub(crate) fn sync_blocks(&mut self, context: &Context<'_, '_>, address: u64, sync: Sync) {
        if let Some(order) = context.order {
            let who = (context.block_index(), self.index);
            order.sync(address, &mut self.clock, who, sync);
        }
    }

    /// A fence (`fence.sc`) at `scope`: at gpu or system scope it orders the thread's
    /// accesses with other blocks' through its atomics.
    pub(crate) fn fence_blocks(&mut self, context: &Context<'_, '_>, scope: MemoryScope) {
        if context.order.is_some() && scope >= MemoryScope::Gpu {
            self.clock.fence(context.block_index(), self.index);
        }
    }
}

/// What a TMA store's write is: an atomic add, or a store.
fn bulk_access(add: bool) -> (Access, bool) {
    match add {
        true => (Access::Atomic, true),
        false => (Access::TmaStore, false),
    }
}
