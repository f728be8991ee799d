//! A kernel's `cluster(x[, y[, z]])` (sm_90): blocks launched together, each able to
//! reach the others' shared memory and mbarriers. The extents are positive constants
//! (checked with the launch clause's other sizes); here the checker requires a target
//! with clusters (E0212), at most [`MAX_CLUSTER_BLOCKS`] blocks (E0227), and each
//! constant grid extent a multiple of the cluster's (E0227; the host checks a run-time
//! one at launch). The cluster is then the frame's, for the builtins that need one.

use lang::ast::{Kernel, LaunchKind};

use crate::check::Checker;
use crate::value::Value;

/// The most blocks a cluster may have: the portable limit (sm_90 allows 16 only with a
/// driver attribute the runtime does not set).
pub(crate) const MAX_CLUSTER_BLOCKS: i64 = 8;

impl<'a> Checker<'a> {
    /// Checks `kernel`'s cluster and makes it the frame's.
    pub(crate) fn check_cluster(&mut self, kernel: &'a Kernel) {
        self.frame.cluster = [1, 1, 1];
        let Some(part) = (kernel.launch.iter()).find(|part| part.kind == LaunchKind::Cluster)
        else {
            return;
        };
        if !self.require_arch("cluster", 90, part.span) {
            return;
        }
        let mut cluster = [1i64; 3];
        for (extent, arg) in cluster.iter_mut().zip(&part.args) {
            match self.eval_quiet(arg) {
                Value::Int { value, .. } => match value.as_constant() {
                    Some(constant) if constant >= 1 => *extent = constant,
                    // Reported with the other launch extents.
                    _ => return,
                },
                _ => return,
            }
        }
        // Saturating: cluster(2^62, 4) is too many blocks, not an overflow.
        let blocks = (cluster.iter()).fold(1i64, |product, extent| product.saturating_mul(*extent));
        if blocks > MAX_CLUSTER_BLOCKS {
            self.error(
                "E0227",
                part.span,
                format!(
                    "a cluster has at most {MAX_CLUSTER_BLOCKS} blocks; ({}) has {blocks}",
                    extents(&cluster)
                ),
                "too many blocks",
            );
            return;
        }
        let grid = kernel
            .launch
            .iter()
            .find(|part| part.kind == LaunchKind::Grid);
        for (axis, arg) in grid.iter().flat_map(|grid| grid.args.iter()).enumerate() {
            let Value::Int { value, .. } = self.eval_quiet(arg) else {
                continue;
            };
            let (Some(blocks), Some(per_cluster)) = (value.as_constant(), cluster.get(axis)) else {
                continue;
            };
            if blocks % per_cluster != 0 {
                let name = ["x", "y", "z"][axis];
                self.error(
                    "E0227",
                    arg.span,
                    format!(
                        "the grid's {name} extent, {blocks}, is not a multiple of the cluster's, {per_cluster} (cluster ({}))",
                        extents(&cluster)
                    ),
                    "not a whole number of clusters",
                );
                return;
            }
        }
        self.frame.cluster = cluster.map(|extent| extent as u32);
    }
}

/// `2, 1, 1`.
fn extents(cluster: &[i64; 3]) -> String {
    let texts: Vec<String> = cluster.iter().map(ToString::to_string).collect();
    texts.join(", ")
}
