//! A thread's memory instructions: loads and stores of 1, 2 or 4 words (little-endian,
//! the vector aligned to its whole size, as PTX requires; a narrow word is 1 or 2 bytes
//! in memory, extended into its 32-bit register by sign or by zeros as its width says,
//! and truncated by a store), atomics, and atom
//! instructions through their models (a warp-collective one waits for its warp, which
//! the block then executes); and the landing of its cp.async copies.
//!
//! A global address is the register plus the immediate offset, checked against the
//! allocation it falls in; a shared one is the 32-bit register plus the offset, checked
//! against the block's shared size and through the race detector. A load whose
//! predicate is false reads nothing and leaves zeros in its results.

use kir::{Inst, Narrow, Op, Space, Ty, ValueId};

use super::{Context, Flow, Status, Stopped, Thread};
use crate::arith;
use crate::atoms::Model;
use crate::atoms::cp_async::{CpAsync, PendingCopy, SourceBytes};
use crate::fault::{Access, FaultKind, Trap};
use crate::global::OutOfBounds;
use crate::grid_order::Sync;
use crate::shared::Accessor;

/// An address in one of the two spaces: 64-bit global, or shared as an offset into
/// the block's shared memory.
#[derive(Clone, Copy)]
enum Address {
    Global(u64),
    Shared(u32),
}

impl<'k> Thread<'k> {
    /// A [`Op::Load`], [`Op::Store`] or [`Op::Atomic`].
    pub(super) fn memory(
        &mut self,
        inst: &'k Inst,
        context: &mut Context<'_, 'k>,
    ) -> Result<(), Trap> {
        let kernel = context.kernel;
        match &inst.op {
            Op::Load {
                space,
                address,
                offset,
                narrow,
                predicate,
            } => {
                if !self.enabled(*predicate) {
                    for result in &inst.results {
                        self.set(*result, 0);
                    }
                    return Ok(());
                }
                let ty = kernel.ty(inst.results[0]);
                let word = (narrow.map_or(ty.bits(), Narrow::bits) / 8) as usize;
                let mut buffer = [0u8; 16];
                let bytes = &mut buffer[..word * inst.results.len()];
                let at = self.address(
                    context,
                    *space,
                    *address,
                    *offset,
                    bytes.len(),
                    Access::Load,
                )?;
                self.read(context, at, bytes, Access::Load, inst)?;
                for (result, chunk) in inst.results.iter().zip(bytes.chunks(word)) {
                    let bits = little_endian(chunk);
                    let value = match narrow {
                        Some(narrow) => extend(bits, *narrow, ty),
                        None => bits,
                    };
                    self.set(*result, value);
                }
                Ok(())
            }
            Op::Store {
                space,
                address,
                offset,
                narrow,
                values,
                predicate,
            } => {
                if !self.enabled(*predicate) {
                    return Ok(());
                }
                let ty = kernel.ty(values[0]);
                // A narrow store keeps each register's low bytes: little-endian, the
                // first `word` of them.
                let word = (narrow.map_or(ty.bits(), Narrow::bits) / 8) as usize;
                let mut buffer = [0u8; 16];
                for (value, chunk) in values.iter().zip(buffer.chunks_mut(word)) {
                    chunk.copy_from_slice(&self.get(*value).to_le_bytes()[..word]);
                }
                let bytes = &buffer[..word * values.len()];
                let at = self.address(
                    context,
                    *space,
                    *address,
                    *offset,
                    bytes.len(),
                    Access::Store,
                )?;
                self.write(context, at, bytes, Access::Store, inst)
            }
            Op::Atomic {
                op,
                space,
                address,
                offset,
                value,
            } => {
                let ty = kernel.ty(*value);
                let word = (ty.bits() / 8) as usize;
                let at = self.address(context, *space, *address, *offset, word, Access::Atomic)?;
                let operand = self.get(*value);
                let update = |old: &[u8]| -> Result<Vec<u8>, arith::NoInstruction> {
                    let new = arith::atomic(*op, ty, little_endian(old), operand)?;
                    Ok(new.to_le_bytes()[..word].to_vec())
                };
                let old = match at {
                    Address::Global(address) => {
                        let mut old = vec![0; word];
                        let bounds =
                            |bounds| global_fault(context, Access::Atomic, address, word, bounds);
                        let atomic = (Access::Atomic, true);
                        self.across_blocks(context, (address, word), atomic, inst.span)?;
                        context.global.load(address, &mut old).map_err(bounds)?;
                        let new = update(&old).map_err(|what| {
                            Trap::Fault(FaultKind::Unsupported(what.to_string()))
                        })?;
                        context.global.store(address, &new).map_err(bounds)?;
                        self.sync_blocks(context, address, Sync::Relaxed);
                        old
                    }
                    Address::Shared(address) => {
                        let who = self.accessor(context, inst);
                        let mut failed = None;
                        let old = context.shared.atomic(&who, address, word, |old| {
                            update(old).unwrap_or_else(|what| {
                                failed = Some(what);
                                old.to_vec()
                            })
                        })?;
                        if let Some(what) = failed {
                            return Err(Trap::Fault(FaultKind::Unsupported(what.to_string())));
                        }
                        old
                    }
                };
                // A polling atomic (a failed compare-and-swap, an add of 0) writes the
                // value it read: no other thread can see a change.
                if update(&old).is_ok_and(|new| new != old) {
                    self.effects += 1;
                }
                if let Some(result) = inst.results.first() {
                    self.set(*result, little_endian(&old));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// An [`Op::Atom`]: a cp.async is issued now, a warp-collective atom waits for its
    /// warp (the block executes it), an atom without a model is a fault.
    pub(super) fn atom(
        &mut self,
        inst: &'k Inst,
        context: &mut Context<'_, 'k>,
    ) -> Result<Flow<'k>, Trap> {
        let Op::Atom {
            template,
            operands,
            predicate,
            ..
        } = &inst.op
        else {
            return Ok(Flow::Next);
        };
        match context.models.get(inst) {
            None => Err(Trap::Fault(FaultKind::UnmodeledAtom {
                template: template.clone(),
            })),
            Some(Model::CpAsync(copy)) => {
                if self.enabled(*predicate) {
                    self.cp_async(copy, operands, context, inst)?;
                }
                Ok(Flow::Next)
            }
            Some(Model::Matrix(_) | Model::Mma(_)) => Ok(Flow::Wait(Status::Collective(inst))),
            Some(Model::Tcgen05(tcgen05)) if tcgen05.is_warp_collective() => {
                Ok(Flow::Wait(Status::Collective(inst)))
            }
            Some(Model::Tcgen05(tcgen05)) => {
                if self.enabled(*predicate) {
                    self.tcgen05(tcgen05, inst, context)
                } else {
                    Ok(Flow::Next)
                }
            }
            Some(Model::Hopper(hopper)) => {
                if self.enabled(*predicate) {
                    self.hopper(hopper, inst, context)
                } else {
                    Ok(Flow::Next)
                }
            }
        }
    }

    /// An [`Op::Intrinsic`]: a warp's tcgen05 instruction waits for its warp (the block
    /// executes it), any other is executed by this thread now.
    pub(super) fn intrinsic(
        &mut self,
        inst: &'k Inst,
        context: &mut Context<'_, 'k>,
    ) -> Result<Flow<'k>, Trap> {
        match context.models.get(inst) {
            Some(Model::Tcgen05(tcgen05)) if tcgen05.is_warp_collective() => {
                Ok(Flow::Wait(Status::Collective(inst)))
            }
            Some(Model::Tcgen05(tcgen05)) => self.tcgen05(tcgen05, inst, context),
            Some(Model::Hopper(hopper)) => self.hopper(hopper, inst, context),
            _ => Err(Trap::Fault(FaultKind::Unsupported(
                "an intrinsic without a model".to_owned(),
            ))),
        }
    }

    fn enabled(&self, predicate: Option<ValueId>) -> bool {
        predicate.is_none_or(|predicate| self.get(predicate) != 0)
    }

    pub(crate) fn accessor(&self, context: &Context<'_, 'k>, inst: &Inst) -> Accessor {
        Accessor {
            thread: self.index,
            warp_epoch: context.warp_epoch,
            span: inst.span,
        }
    }

    /// The address `register + offset` in `space`, for an access of `bytes` bytes.
    fn address(
        &self,
        context: &Context<'_, 'k>,
        space: Space,
        register: ValueId,
        offset: i64,
        bytes: usize,
        access: Access,
    ) -> Result<Address, Trap> {
        match space {
            Space::Global => Ok(Address::Global(
                (self.get(register) as i64).wrapping_add(offset) as u64,
            )),
            Space::Shared => self
                .shared_address(context, register, offset, bytes, access)
                .map(Address::Shared),
        }
    }

    /// A shared address `register + offset`; one below 0 or beyond 32 bits is out of
    /// bounds.
    pub(crate) fn shared_address(
        &self,
        context: &Context<'_, 'k>,
        register: ValueId,
        offset: i64,
        bytes: usize,
        access: Access,
    ) -> Result<u32, Trap> {
        let address = i64::from(arith::as_i32(self.get(register))) + offset;
        u32::try_from(address).map_err(|_| {
            Trap::Fault(FaultKind::SharedOutOfBounds {
                access,
                address: address as u64,
                bytes: bytes as u32,
                size: context.shared.size(),
            })
        })
    }

    /// What every global access (`write` or not) of `range` goes through before memory:
    /// its alignment, the profile's count, and the order between blocks.
    fn global_access(
        &self,
        context: &mut Context<'_, 'k>,
        range: (u64, usize),
        access: Access,
        write: bool,
        inst: &Inst,
    ) -> Result<(), Trap> {
        aligned(Space::Global, range.0, range.1, access)?;
        if let Some(profile) = context.profile.as_deref_mut() {
            profile.global(inst.span, range.1, write);
        }
        self.across_blocks(context, range, (access, false), inst.span)
    }

    fn read(
        &self,
        context: &mut Context<'_, 'k>,
        at: Address,
        bytes: &mut [u8],
        access: Access,
        inst: &Inst,
    ) -> Result<(), Trap> {
        match at {
            Address::Global(address) => {
                let len = bytes.len();
                self.global_access(context, (address, len), access, false, inst)?;
                context
                    .global
                    .load(address, bytes)
                    .map_err(|bounds| global_fault(context, access, address, len, bounds))?;
                self.cross_device(context, address, len, access, inst)
            }
            Address::Shared(address) => {
                self.profile_shared(context, inst, address, bytes.len());
                let who = self.accessor(context, inst);
                context.shared.read(&who, address, bytes)
            }
        }
    }

    fn write(
        &mut self,
        context: &mut Context<'_, 'k>,
        at: Address,
        bytes: &[u8],
        access: Access,
        inst: &Inst,
    ) -> Result<(), Trap> {
        match at {
            Address::Global(address) => {
                self.global_access(context, (address, bytes.len()), access, true, inst)?;
                context.global.store(address, bytes).map_err(|bounds| {
                    global_fault(context, access, address, bytes.len(), bounds)
                })?;
                // What releases left on the words it overwrites is gone.
                for word in (address & !3..address + bytes.len() as u64).step_by(4) {
                    self.sync_blocks(context, word, Sync::Store);
                }
                self.cross_device(context, address, bytes.len(), access, inst)
            }
            Address::Shared(address) => {
                self.profile_shared(context, inst, address, bytes.len());
                let who = self.accessor(context, inst);
                context.shared.write(&who, address, bytes, access)
            }
        }
    }

    /// Counts a shared access for the profile, when one is taken.
    fn profile_shared(
        &self,
        context: &mut Context<'_, 'k>,
        inst: &Inst,
        address: u32,
        bytes: usize,
    ) {
        if let Some(profile) = context.profile.as_deref_mut() {
            let identity = std::ptr::from_ref(inst) as usize;
            profile.shared(identity, inst.span, self.index, address, bytes);
        }
    }

    /// Issues a cp.async: the source read now, the destination checked now and written
    /// when the copy lands.
    fn cp_async(
        &mut self,
        copy: &CpAsync,
        operands: &[(String, ValueId, i64)],
        context: &mut Context<'_, 'k>,
        inst: &Inst,
    ) -> Result<(), Trap> {
        let operand = |name: &str| {
            operands
                .iter()
                .find(|(operand, _, _)| operand == name)
                .map(|(_, value, offset)| (*value, *offset))
                .ok_or_else(|| {
                    Trap::Fault(FaultKind::Unsupported(format!(
                        "a cp.async template naming `{name}`, an operand the instruction lacks"
                    )))
                })
        };
        let bytes = copy.bytes as usize;
        let source_bytes = match &copy.source_bytes {
            SourceBytes::All => bytes,
            SourceBytes::Constant(size) => *size as usize,
            SourceBytes::Operand(name) => (self.get(operand(name)?.0) as u32 as usize).min(bytes),
        };
        let (dst, dst_offset) = operand(&copy.dst)?;
        let dst = self.shared_address(context, dst, dst_offset, bytes, Access::AsyncWrite)?;
        context.shared.check(dst, bytes, Access::AsyncWrite)?;
        let (src, src_offset) = operand(&copy.src)?;
        let src = (self.get(src) as i64).wrapping_add(src_offset) as u64;
        aligned(Space::Global, src, bytes, Access::AsyncRead)?;
        let mut data = vec![0; bytes];
        // A copy of 0 source bytes reads nothing: its address may lie anywhere (zero
        // fill past a tensor's edge relies on it).
        if source_bytes > 0 {
            // The copy reads until its group is waited for: no release orders it before.
            let range = (src, source_bytes);
            self.read_in_flight(context, range, inst.span)?;
            context
                .global
                .load(src, &mut data[..source_bytes])
                .map_err(|bounds| {
                    global_fault(context, Access::AsyncRead, src, source_bytes, bounds)
                })?;
        }
        if let Some(profile) = context.profile.as_deref_mut() {
            profile.global(inst.span, source_bytes, false);
        }
        self.profile_shared(context, inst, dst, bytes);
        self.copies.issue(PendingCopy {
            dst,
            data,
            source: (src, source_bytes),
            span: inst.span,
        });
        Ok(())
    }

    /// Writes landed cp.async copies into shared memory, each at its copy's span.
    pub(super) fn land(
        &self,
        copies: Vec<PendingCopy>,
        context: &mut Context<'_, 'k>,
    ) -> Result<(), Stopped> {
        for copy in copies {
            if copy.source.1 > 0 {
                let read = (Access::AsyncRead, false);
                (self.across_blocks(context, copy.source, read, copy.span))
                    .map_err(|trap| (copy.span, trap))?;
            }
            let who = Accessor {
                thread: self.index,
                warp_epoch: context.warp_epoch,
                span: copy.span,
            };
            context
                .shared
                .write(&who, copy.dst, &copy.data, Access::AsyncWrite)
                .map_err(|trap| (copy.span, trap))?;
        }
        Ok(())
    }
}

/// Up to 8 little-endian bytes as the low bits of a register.
/// A narrow value's `bits` in a 32-bit register: sign-extended for a signed width,
/// zero-extended otherwise (as `ld.s8` and `ld.u8` do).
fn extend(bits: u64, narrow: Narrow, ty: Ty) -> u64 {
    if !narrow.is_signed() {
        return bits;
    }
    let shift = 64 - narrow.bits();
    arith::from_int(ty, ((bits << shift) as i64) >> shift)
}

pub(super) fn little_endian(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0, |bits, byte| (bits << 8) | u64::from(*byte))
}

pub(super) fn aligned(
    space: Space,
    address: u64,
    bytes: usize,
    access: Access,
) -> Result<(), Trap> {
    if address.is_multiple_of(bytes as u64) {
        Ok(())
    } else {
        Err(Trap::Fault(FaultKind::Misaligned {
            access,
            space,
            address,
            bytes: bytes as u32,
        }))
    }
}

/// An out-of-bounds global access, naming the kernel parameter whose tensor is nearest.
pub(super) fn global_fault(
    context: &Context<'_, '_>,
    access: Access,
    address: u64,
    bytes: usize,
    bounds: OutOfBounds,
) -> Trap {
    let nearest = bounds.nearest.map(|extent| {
        let param = context
            .kernel
            .signature
            .params
            .iter()
            .zip(context.args)
            .find(|(param, arg)| {
                matches!(param.kind, kir::ParamKind::Tensor { .. })
                    && (extent.base..extent.end()).contains(*arg)
            })
            .map(|(param, _)| param.name.clone());
        (extent, param)
    });
    Trap::Fault(FaultKind::GlobalOutOfBounds {
        access,
        address,
        bytes: bytes as u32,
        nearest,
    })
}
