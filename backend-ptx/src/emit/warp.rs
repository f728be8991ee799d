//! Warp shuffles, and lane 0's value of a warp-uniform integer.
//!
//! A shuffle's `c` operand packs the clamp lane and segment mask: the whole warp is
//! one segment, clamped at lane 0 going up and at lane 31 otherwise.
//!
//! `thread_idx.x / 128` is the same in every lane of a warp, but ptxas sees only a
//! per-thread value, and keeps what is computed from it per thread: a warpgroup's
//! wgmma descriptors, in ordinary registers, moved to uniform ones before each wgmma.
//! A `shfl.sync.idx` from lane 0 changes no value and tells ptxas the result is the
//! same across the warp (CUTLASS's `canonical_warp_group_idx` does the same). The
//! analysis in `kir::uniformity` lists the values, only where control keeps warps
//! whole and every warp of the block is full, as `shfl.sync` with all 32 lanes needs.

use kir::{ShuffleMode, Ty, ValueId};

use super::Emitter;

impl Emitter<'_, '_> {
    /// `result = shfl.sync` of `value` from the lane `lane` names, in `mode`.
    pub(super) fn shuffle(
        &mut self,
        mode: ShuffleMode,
        (value, lane): (ValueId, ValueId),
        result: ValueId,
    ) {
        let (mode, clamp) = match mode {
            ShuffleMode::Up => ("up", "0"),
            ShuffleMode::Down => ("down", "0x1f"),
            ShuffleMode::Xor => ("bfly", "0x1f"),
            ShuffleMode::Index => ("idx", "0x1f"),
        };
        let text = format!(
            "shfl.sync.{mode}.b32 {}, {}, {}, {clamp}, 0xffffffff;",
            self.name(result),
            self.name(value),
            self.operand(lane)
        );
        self.emit(&text);
    }

    /// Replaces `value` (32 or 64 bits) with lane 0's, in place.
    pub(super) fn broadcast(&mut self, value: ValueId) {
        let name = self.name(value).to_owned();
        let shuffle =
            |register: &str| format!("shfl.sync.idx.b32 {register}, {register}, 0, 0x1f, -1;");
        match self.kernel.ty(value) {
            Ty::I32 | Ty::U32 => self.emit(&shuffle(&name)),
            Ty::I64 | Ty::U64 => {
                let (low, high) = (self.scratch(Ty::I32), self.scratch(Ty::I32));
                self.emit(&format!("mov.b64 {{{low}, {high}}}, {name};"));
                self.emit(&shuffle(&low));
                self.emit(&shuffle(&high));
                self.emit(&format!("mov.b64 {name}, {{{low}, {high}}};"));
            }
            _ => {}
        }
    }
}
