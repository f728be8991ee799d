//! wgmma's shared operands (sm_90a): a `gemm` whose atom reads A or B from shared
//! memory (`operands = ("smem", "smem")`) needs each such tile to be one a
//! descriptor can express. The checker derives the descriptor of the operand's first
//! atom tile (`cute::GmmaDescriptor::derive`) and reports E0227 at the operand when
//! there is none, with the tile's layout; it also aligns the tile's buffer to the
//! swizzle's period, which the hardware applies to absolute addresses.

use std::sync::Arc;

use cute::{Tensor, TiledMma, first_mode_values, warpgroup_descriptor};

use crate::builtins::Arg;
use crate::check::Checker;

impl<'a> Checker<'a> {
    /// Whether the shared operand `tensor` (A at `index` 1, B at 2) of `gemm` with
    /// `mma` has a descriptor; E0227 at `arg` if not.
    pub(crate) fn check_gmma_operand(
        &mut self,
        mma: &TiledMma,
        index: usize,
        arg: &Arg,
        tensor: &Arc<Tensor>,
    ) -> bool {
        let atom = mma.mma_atom();
        let [m, n, k] = atom.shape_mnk;
        let rows = if index == 1 { m } else { n };
        let name = if index == 1 { "A" } else { "B" };
        let derived = first_mode_values(tensor, rows.saturating_mul(k)).and_then(|values| {
            let warpgroups = mma.threads() / 128;
            let first = &tensor.layout.offset;
            warpgroup_descriptor(tensor, (first, &values), rows as usize, warpgroups, &|_| {
                true
            })
        });
        match derived {
            Ok(descriptor) => {
                self.align_buffer(tensor, i64::from(descriptor.swizzle * 8));
                true
            }
            Err(error) => {
                self.error(
                    "E0227",
                    arg.span,
                    format!(
                        "`{}` reads {name} ({rows} x {k}) from shared memory through a descriptor, but {error}; the tile is {}",
                        mma.atom.display_name(),
                        tensor.layout
                    ),
                    "no wgmma descriptor for this tile",
                );
                false
            }
        }
    }
}
