//! Distributed shared memory (sm_90): `cluster_view(s, r)` is the shared tensor `s` as
//! it lies in block `r` of the kernel's cluster, the same layout at the same offsets.
//! Indexing the view loads and stores those elements over the cluster's shared-memory
//! window (`mapa` and `ld`/`st.shared::cluster`); the blocks order such accesses with
//! the cluster barrier (`cluster_sync()`), as a block orders its own with
//! `syncthreads()`.
//!
//! The view is `s` based at `cute::Base::Cluster`, whose rank the trace defines as a
//! variable where the call is (like `peer(t, r)`'s table entry), so lowering reads it
//! where the view is indexed.
//!
//! Checked at the line: a target before sm_90 (E0212), a tensor that is not one of the
//! kernel's shared buffers (or a part of one) or whose elements are not 32 bits wide
//! (E0590), a constant rank outside the cluster (E0227; a kernel without `cluster(...)`
//! is a cluster of one block, rank 0).

use std::sync::Arc;

use cute::{Base, Dtype, Tensor};

use crate::builtins::Args;
use crate::builtins::hopper::cluster_size;
use crate::check::{Checker, Context};
use crate::trace::{Effect, Term};
use crate::value::{Origin, Value};

impl Checker<'_> {
    /// `cluster_view(s, r)`: block r's copy of the shared tensor `s`.
    pub(crate) fn cluster_view(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        if !self.require_arch(name, 90, args.call_span) {
            return Value::Unknown;
        }
        let Value::Tensor(tensor) = &p[0].value else {
            if !matches!(p[0].value, Value::Unknown) {
                let message = format!(
                    "`{name}` takes a shared-memory tensor, not a {}",
                    p[0].value.type_name()
                );
                self.error("E0590", p[0].span, message, "not a tensor");
            }
            return Value::Unknown;
        };
        let Base::Shared(buffer) = tensor.base else {
            let message = format!(
                "`{name}` takes one of the kernel's shared buffers (or a part of one), not a {}: only those lie at the same offsets in every block of the cluster",
                tensor.type_name()
            );
            return self.error("E0590", p[0].span, message, "not a shared buffer");
        };
        if !word_sized(tensor) {
            let message = format!(
                "`{name}` reaches 32-bit elements (f32, i32, u32), not {}",
                tensor.element_name()
            );
            return self.error("E0590", p[0].span, message, "elements of another width");
        }
        // A kernel without `cluster(...)` is a cluster of one block: rank 0 is itself, so
        // a kernel generic over its cluster's size builds with one block too.
        let blocks: u32 = self.frame.cluster.iter().product();
        let Some(rank) = self.expect_int(&p[1].value, p[1].span, "a block's rank in the cluster")
        else {
            return Value::Unknown;
        };
        if let Some(constant) = rank.as_constant()
            && !(0..i64::from(blocks)).contains(&constant)
        {
            let message = format!(
                "`{name}` reaches block {constant} of a cluster of {} (ranks 0 to {})",
                cluster_size(blocks),
                blocks - 1
            );
            return self.error("E0227", p[1].span, message, "not in the cluster");
        }
        let origin = Origin {
            reason: "the rank of a cluster view's block".to_owned(),
            span: Some(args.call_span),
            term: None,
        };
        // A variable of its own for each evaluation: two views made by one call site (a
        // device function called twice) keep their ranks apart.
        let variable = self.unique_variable("cluster_rank", origin);
        let index = match &mut self.tracing.trace {
            Some(trace) if self.frame.context == Context::Device => {
                trace.cluster_ranks.push(variable.clone());
                trace.cluster_ranks.len() as u32 - 1
            }
            _ => 0,
        };
        self.emit(Effect::Define {
            variable,
            value: Arc::new(Term::Int(rank, Dtype::I32)),
            span: args.call_span,
        });
        Value::Tensor(Arc::new(Tensor {
            base: Base::Cluster {
                buffer,
                entry: index,
            },
            ..(**tensor).clone()
        }))
    }
}

/// Whether the tensor's elements are 32-bit words.
fn word_sized(tensor: &Tensor) -> bool {
    tensor.dtype.is_some_and(|dtype| dtype.bits() == 32)
}
