//! Hopper's asynchronous machinery (sm_90): mbarriers, the fences around them, and
//! the wgmma group instructions, each traced as an effect in program order.
//!
//! An mbarrier is one element of a shared-memory `u64` tensor (`smem u64[STAGES]`),
//! named like an atomic's target: `mbarrier_init(full, stage, 1)`. The checker
//! requires the target to have the instruction (E0212), the tensor to be a shared `u64`
//! one and the coordinate to pick one element (E0216), and a constant arrival count
//! within the hardware's range, 1 to 2^20 - 1 (E0227).

use std::sync::Arc;

use cute::{Dtype, MemorySpace};
use lang::Diagnostic;
use layout::SymInt;

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use kir::Intrinsic;

use crate::trace::{Effect, Mbarrier, Term, term_of};
use crate::value::Value;

/// The largest arrival count an mbarrier holds (PTX ISA, `mbarrier.init`).
const MAX_ARRIVALS: i64 = (1 << 20) - 1;

impl<'a> Checker<'a> {
    /// `mbarrier_init`, `mbarrier_arrive`, `mbarrier_arrive_expect_tx`, `mbarrier_wait`.
    pub(crate) fn mbarrier(&mut self, name: &'static str, args: &Args) -> Value {
        if !self.require_arch(name, 90, args.call_span) {
            return Value::Unit;
        }
        let p = args.positional();
        let action = match name {
            "mbarrier_init" => Mbarrier::Init,
            "mbarrier_arrive" => Mbarrier::Arrive,
            "mbarrier_arrive_expect_tx" => Mbarrier::ArriveExpectTx,
            _ => Mbarrier::Wait,
        };
        let Some(index) = self.barrier_element(name, p[0], p[1]) else {
            return Value::Unit;
        };
        let (action, operand) = match (p.get(2), args.named("cta")) {
            (Some(arg), _) => match self.mbarrier_operand(name, action, arg) {
                Some(value) => (action, Some(value)),
                None => return Value::Unit,
            },
            (None, Some(cta)) => {
                match (self.cluster_rank("`cta` is", cta)).and_then(|_| term_of(&cta.value)) {
                    Some(rank) => (Mbarrier::ArriveCluster, Some(rank)),
                    None => return Value::Unit,
                }
            }
            (None, None) => (action, None),
        };
        if self.tracing_kernel()
            && let Value::Tensor(tensor) = &p[0].value
        {
            self.emit(Effect::Mbarrier {
                action,
                tensor: tensor.clone(),
                index,
                operand,
                span: args.call_span,
            });
        }
        Value::Unit
    }

    /// `cluster_sync`, `tma_store_wait_group(n)`, `wgmma_fence`, `wgmma_commit_group`,
    /// `wgmma_wait_group(n)`.
    pub(crate) fn async_sync(&mut self, name: &'static str, args: &Args) -> Value {
        let span = args.call_span;
        if !self.require_arch(name, 90, span) {
            return Value::Unit;
        }
        let intrinsic = match name {
            "wgmma_fence" => Intrinsic::WgmmaFence,
            "wgmma_commit_group" => Intrinsic::WgmmaCommit,
            "cluster_sync" => {
                self.emit(Effect::Intrinsic(Intrinsic::ClusterArrive, span));
                Intrinsic::ClusterWait
            }
            "tma_store_wait_group" => {
                let what = "the number of TMA store groups left reading shared memory";
                let leaves = "`tma_store_wait_group` leaves 0 to 63 groups";
                let pending = match self.groups_left(args, what, 63, leaves) {
                    Ok(pending) => pending,
                    Err(value) => return value,
                };
                Intrinsic::BulkWait {
                    read: true,
                    pending,
                }
            }
            _ => {
                let what = "the number of wgmma groups `wgmma_wait_group` leaves in flight";
                let leaves = "`wgmma_wait_group` leaves 0 to 7 groups in flight";
                let pending = match self.groups_left(args, what, 7, leaves) {
                    Ok(pending) => pending,
                    Err(value) => return value,
                };
                Intrinsic::WgmmaWait { pending }
            }
        };
        if name.starts_with("wgmma") && self.target.arch() != 90 {
            self.report(
                Diagnostic::error(
                    "E0212",
                    format!(
                        "`{name}` is an sm_90a instruction; {} has no wgmma",
                        self.target
                    ),
                )
                .with_primary(span, "wgmma exists on sm_90a only"),
            );
            return Value::Unit;
        }
        self.emit(Effect::Intrinsic(intrinsic, span));
        Value::Unit
    }

    /// A built-in that is the operand-free instruction `intrinsic`: E0212 where the build
    /// target is older than its row's least target, else the instruction in the trace.
    /// The groups a wait leaves pending, its one argument (`what`): a const from 0 to
    /// `most`, else E0227 `{leaves}, not {groups}`; `Err` holds what the call is then.
    fn groups_left(
        &mut self,
        args: &Args,
        what: &str,
        most: i64,
        leaves: &str,
    ) -> Result<u32, Value> {
        let p = args.positional();
        let Some(groups) = self.expect_const_int(&p[0].value, p[0].span, what) else {
            return Err(Value::Unit);
        };
        match u32::try_from(groups) {
            Ok(pending) if groups <= most => Ok(pending),
            _ => {
                let message = format!("{leaves}, not {groups}");
                Err(self.error("E0227", p[0].span, message, "out of range"))
            }
        }
    }

    pub(crate) fn intrinsic(
        &mut self,
        name: &'static str,
        args: &Args,
        intrinsic: Intrinsic,
    ) -> Value {
        if self.require_arch(name, intrinsic.row().target.sm, args.call_span) {
            self.emit(Effect::Intrinsic(intrinsic, args.call_span));
        }
        Value::Unit
    }

    /// Whether the build target has sm_`arch`'s instructions; E0212 at `span` if not.
    pub(crate) fn require_arch(&mut self, name: &str, arch: u32, span: lang::Span) -> bool {
        if self.target.arch() >= arch {
            return true;
        }
        self.report(
            Diagnostic::error(
                "E0212",
                format!(
                    "`{name}` needs sm_{arch} or newer, but this build is for {}",
                    self.target
                ),
            )
            .with_primary(span, format!("an sm_{arch} instruction"))
            .with_help(format!("build with `--target sm_{arch}a` or newer")),
        );
        false
    }

    /// The layout value of the barrier `tensor[coord]` names, after checking that it is
    /// one element of a shared `u64` tensor.
    pub(crate) fn barrier_element(
        &mut self,
        name: &str,
        tensor: &Arg,
        coord: &Arg,
    ) -> Option<SymInt> {
        let word = SharedWord {
            dtype: Dtype::U64,
            what: "an mbarrier is 8 bytes of shared memory",
            plural: "barriers",
        };
        self.shared_word(name, word, tensor, coord)
    }

    /// The layout value of the element `tensor[coord]` names, after checking that it is
    /// one element of a shared tensor of `word`'s type.
    pub(crate) fn shared_word(
        &mut self,
        name: &str,
        word: SharedWord,
        tensor: &Arg,
        coord: &Arg,
    ) -> Option<SymInt> {
        let dtype = word.dtype;
        let Value::Tensor(words) = &tensor.value else {
            if !matches!(tensor.value, Value::Unknown) {
                self.error(
                    "E0216",
                    tensor.span,
                    format!(
                        "`{name}` takes a shared `{dtype}` tensor of {}, not a {}",
                        word.plural,
                        tensor.value.type_name()
                    ),
                    "not a tensor",
                );
            }
            return None;
        };
        if words.space != MemorySpace::Shared || words.dtype != Some(dtype) {
            let space = words.space.keyword();
            let found = match words.dtype {
                Some(found) => format!("a {found} tensor in {space}"),
                None => format!("a coordinate tensor in {space}"),
            };
            self.error(
                "E0216",
                tensor.span,
                format!(
                    "{}: `{name}` takes a shared `{dtype}` tensor, not {found}",
                    word.what
                ),
                &format!("not shared {dtype}"),
            );
            return None;
        }
        self.tracing.target_only = true;
        let (element, index) = self.index_element(
            tensor.value.clone(),
            (coord.value.clone(), coord.span),
            tensor.span,
            coord.span,
        );
        self.tracing.target_only = false;
        match element {
            Value::Unknown => return None,
            Value::Tensor(_) => {
                self.error(
                    "E0216",
                    coord.span,
                    format!("`{name}` names one element; this coordinate selects a slice"),
                    "not one element",
                );
                return None;
            }
            _ => {}
        }
        index
    }

    /// The rank of the block of the kernel's cluster that `arg` names: an integer,
    /// below the cluster's size when constant, else E0227, `{lead} block {rank} of a
    /// cluster of ...` (`lead` names the argument or the built-in: "`cta` is",
    /// "`cluster_view` reaches"). A kernel without `cluster(...)` is a cluster of one
    /// block: rank 0 is itself, so a kernel generic over its cluster's size builds with
    /// one block too.
    pub(crate) fn cluster_rank(&mut self, lead: &str, arg: &Arg) -> Option<SymInt> {
        let value = self.expect_int(&arg.value, arg.span, "a block's rank in the cluster")?;
        let blocks: u32 = self.frame.cluster.iter().product();
        if let Some(rank) = value.as_constant()
            && !(0..i64::from(blocks)).contains(&rank)
        {
            self.error(
                "E0227",
                arg.span,
                format!(
                    "{lead} block {rank} of a cluster of {} (ranks 0 to {})",
                    cluster_size(blocks),
                    blocks - 1
                ),
                "not in the cluster",
            );
            return None;
        }
        Some(value)
    }

    /// The integer operand of an mbarrier operation: the arrival count (checked when
    /// constant), the transaction bytes or the parity.
    fn mbarrier_operand(&mut self, name: &str, action: Mbarrier, arg: &Arg) -> Option<Arc<Term>> {
        let what = match action {
            Mbarrier::Init => "the arrival count",
            Mbarrier::ArriveExpectTx => "the transaction bytes",
            _ => "the phase parity",
        };
        let value = self.expect_int(&arg.value, arg.span, what)?;
        if action == Mbarrier::Init
            && let Some(count) = value.as_constant()
            && !(1..=MAX_ARRIVALS).contains(&count)
        {
            self.error(
                "E0227",
                arg.span,
                format!("`{name}` counts 1 to {MAX_ARRIVALS} arrivals, not {count}"),
                "out of range",
            );
            return None;
        }
        term_of(&arg.value)
    }
}

/// The kind of shared-memory word a built-in names by `tensor, coord`.
#[derive(Clone, Copy)]
pub(crate) struct SharedWord {
    /// Its element type.
    pub(crate) dtype: Dtype,
    /// Why it must be that type, for the message.
    pub(crate) what: &'static str,
    /// What the tensor holds, in the plural.
    pub(crate) plural: &'static str,
}

/// "2 blocks", or "1 block (the kernel has no `cluster(...)`)".
pub(crate) fn cluster_size(blocks: u32) -> String {
    if blocks == 1 {
        "1 block (the kernel has no `cluster(...)`)".to_owned()
    } else {
        format!("{blocks} blocks")
    }
}
