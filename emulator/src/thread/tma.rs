//! TMA boxes as one thread moves them (`cp.async.bulk.tensor`): the map's tensor,
//! modes, box and swizzle come from the kernel's signature (a tensor-map parameter
//! reads as [`TENSOR_MAP_TOKEN`] plus its index), the tensor's address and extents from
//! the launch's arguments. A load reads the whole box as it lands in shared memory
//! (swizzled, zeros outside the tensor); a store writes the elements inside, and a
//! reduce-add adds each to global memory's as `atom.add` would.

use kir::{AtomicOp, HostExpr, Inst, IntParam, Op, ParamKind, ValueId};

use super::hopper::TENSOR_MAP_TOKEN;
use super::memory::little_endian;
use super::{Context, Thread};
use crate::atoms::hopper::swizzled;
use crate::fault::{Access, FaultKind, Trap};

impl<'k> Thread<'k> {
    /// A TMA load's box as it lands at the shared tile at `tile`: its first shared byte
    /// and its bytes, swizzled, zeros outside the tensor.
    pub(super) fn tma_load(
        &mut self,
        inst: &'k Inst,
        rank: usize,
        tile: (ValueId, i64),
        context: &mut Context<'_, 'k>,
    ) -> Result<(u32, Vec<u8>), Trap> {
        let mut image = Vec::new();
        let (start, _) = self.tma(inst, rank, tile, TmaWay::Load(&mut image), context)?;
        Ok((start, image))
    }

    /// Moves a TMA box between the shared tile at `tile` and global memory as `way`
    /// says. Returns the tile's first shared byte and its size in bytes.
    pub(super) fn tma(
        &mut self,
        inst: &'k Inst,
        rank: usize,
        (tile, tile_offset): (ValueId, i64),
        mut way: TmaWay<'_>,
        context: &mut Context<'_, 'k>,
    ) -> Result<(u32, u32), Trap> {
        let unsupported = |what: String| Trap::Fault(FaultKind::Unsupported(what));
        let Op::Intrinsic {
            intrinsic,
            operands,
        } = &inst.op
        else {
            return Ok((0, 0));
        };
        let map_value = (intrinsic.operand_index("map"))
            .and_then(|index| operands.get(index))
            .map(|(value, _)| self.get(*value))
            .ok_or_else(|| unsupported("a TMA copy without its tensor map".to_owned()))?;
        let signature = &context.kernel.signature;
        let map_index = map_value.wrapping_sub(TENSOR_MAP_TOKEN) as usize;
        let Some(ParamKind::TensorMap(map)) = signature.params.get(map_index).map(|p| &p.kind)
        else {
            return Err(unsupported(
                "a TMA copy whose map is not a tensor-map parameter".to_owned(),
            ));
        };
        let Some(ParamKind::Tensor {
            dtype,
            shape,
            strides,
        }) = signature.params.get(map.tensor).map(|p| &p.kind)
        else {
            return Err(unsupported(
                "a tensor map over a parameter that is not a tensor".to_owned(),
            ));
        };
        let ints = integer_arguments(context);
        let evaluate = |expr: &HostExpr| expr.evaluate(&ints).unwrap_or(0);
        let base = context.args.get(map.tensor).copied().unwrap_or(0);
        let bytes = dtype.bytes() as i64;
        let extents: Vec<i64> = map
            .modes
            .iter()
            .map(|mode| shape.get(*mode).map_or(0, evaluate))
            .collect();
        let steps: Vec<i64> = map
            .modes
            .iter()
            .map(|mode| strides.get(*mode).map_or(0, evaluate))
            .collect();
        // The coordinates follow the row's fixed operands.
        let coords: Vec<i64> = (operands.get(intrinsic.row().operands.len()..))
            .unwrap_or_default()
            .iter()
            .map(|(value, _)| i64::from(crate::arith::as_i32(self.get(*value))))
            .collect();
        if coords.len() != rank || map.box_shape.len() != rank || extents.len() != rank {
            return Err(unsupported(
                "a TMA copy whose coordinates do not match its map".to_owned(),
            ));
        }
        let period = i64::from(map.swizzle.max(16) * 8).max(128);
        let size: i64 = map
            .box_shape
            .iter()
            .map(|extent| i64::from(*extent))
            .product();
        let start = self.shared_address(context, tile, tile_offset, 16, Access::TmaWrite)?;
        if i64::from(start) % period != 0 {
            return Err(Trap::Fault(FaultKind::Misaligned {
                access: Access::TmaWrite,
                space: kir::Space::Shared,
                address: u64::from(start),
                bytes: period as u32,
            }));
        }
        let who = self.accessor(context, inst);
        let mut element = vec![0u8; bytes as usize];
        if let TmaWay::Load(image) = &mut way {
            image.clear();
            image.resize((size * bytes) as usize, 0);
        }
        let added =
            match way {
                TmaWay::Add => Some(dtype.tma_reduce_add_type().ok_or_else(|| {
                    unsupported(format!("a TMA reduce-add of {dtype:?} elements"))
                })?),
                _ => None,
            };
        for linear in 0..size {
            let mut rest = linear;
            let mut inside = true;
            let mut global = base as i64;
            for dimension in 0..rank {
                let extent = i64::from(map.box_shape[dimension]);
                let at = coords[dimension] + rest % extent;
                rest /= extent;
                inside &= (0..extents[dimension]).contains(&at);
                global += at * steps[dimension] * bytes;
            }
            let offset = swizzled((linear * bytes) as u64, map.swizzle) as usize;
            let shared = start + offset as u32;
            if let TmaWay::Load(image) = &mut way {
                if inside {
                    let landing = &mut image[offset..offset + bytes as usize];
                    let range = (global as u64, bytes as usize);
                    self.across_blocks(context, range, (Access::TmaRead, false), inst.span)?;
                    context.global.load(global as u64, landing).map_err(|_| {
                        unsupported(format!(
                            "a TMA load reading outside its tensor at {global:#x}"
                        ))
                    })?;
                }
                continue;
            }
            context
                .shared
                .check_fenced(shared, element.len(), Access::BulkRead)?;
            context.shared.read(&who, shared, &mut element)?;
            if !inside {
                continue;
            }
            let outside = |_| {
                unsupported(format!(
                    "a TMA store writing outside its tensor at {global:#x}"
                ))
            };
            // A TMA store's writes (atomic adds for a reduce-add) land between its issue
            // (the emulator writes them then) and the wait for its bulk group.
            let write = (global as u64, element.len(), added.is_some());
            self.bulk_write(context, write, (self.bulk_groups, inst.span))?;
            if let Some(ty) = added {
                let mut old = vec![0u8; element.len()];
                context
                    .global
                    .load(global as u64, &mut old)
                    .map_err(outside)?;
                let sum = crate::arith::atomic(
                    AtomicOp::Add,
                    ty,
                    little_endian(&old),
                    little_endian(&element),
                )
                .map_err(|what| unsupported(what.to_string()))?;
                let width = element.len();
                element.copy_from_slice(&sum.to_le_bytes()[..width]);
            }
            context
                .global
                .store(global as u64, &element)
                .map_err(outside)?;
        }
        Ok((start, (size * bytes) as u32))
    }
}

/// How a TMA copy moves its box.
pub(super) enum TmaWay<'a> {
    /// Into shared memory: the whole box, swizzled, into the image.
    Load(&'a mut Vec<u8>),
    /// Into global memory, overwriting the elements inside the tensor.
    Store,
    /// Into global memory, adding each element inside the tensor to the one there.
    Add,
}

/// The launch's integer arguments by parameter index (0 for the others), for the
/// signature's host expressions.
fn integer_arguments(context: &Context<'_, '_>) -> Vec<i64> {
    let params = &context.kernel.signature.params;
    params
        .iter()
        .zip(context.args)
        .map(|(param, bits)| match param.kind {
            ParamKind::Int(IntParam::I32 | IntParam::I16 | IntParam::I8) => {
                i64::from(*bits as u32 as i32)
            }
            ParamKind::Int(IntParam::U32 | IntParam::U16 | IntParam::U8) => i64::from(*bits as u32),
            ParamKind::Int(_) => *bits as i64,
            _ => 0,
        })
        .collect()
}
