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
use crate::check::Checker;
use crate::trace::Term;
use crate::value::{Origin, Value};

impl Checker<'_> {
    /// `cluster_view(s, r)`: block r's copy of the shared tensor `s`.
    pub(crate) fn cluster_view(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        if !self.require_arch(name, 90, args.call_span) {
            return Value::Unknown;
        }
        let what = format!("`{name}` takes a shared-memory tensor");
        let Some(tensor) = self.expect_tensor(&p[0].value, p[0].span, "E0590", &what) else {
            return Value::Unknown;
        };
        let Base::Shared(buffer) = tensor.base else {
            let message = format!(
                "`{name}` takes one of the kernel's shared buffers (or a part of one), not a {}: only those lie at the same offsets in every block of the cluster",
                tensor.type_name()
            );
            return self.error("E0590", p[0].span, message, "not a shared buffer");
        };
        if !word_sized(&tensor) {
            let message = format!(
                "`{name}` reaches 32-bit elements (f32, i32, u32), not {}",
                tensor.element_name()
            );
            return self.error("E0590", p[0].span, message, "elements of another width");
        }
        let Some(rank) = self.cluster_rank(&format!("`{name}` reaches"), p[1]) else {
            return Value::Unknown;
        };
        let origin = Origin {
            reason: "the rank of a cluster view's block".to_owned(),
            span: Some(args.call_span),
            term: None,
        };
        // A variable of its own for each evaluation: two views made by one call site (a
        // device function called twice) keep their ranks apart.
        let variable = self.unique_variable("cluster_rank", origin);
        let term = Term::Int(rank, Dtype::I32);
        let entry = self.define_view_entry(variable, term, args.call_span, |trace| {
            &mut trace.cluster_ranks
        });
        Value::Tensor(Arc::new(Tensor {
            base: Base::Cluster { buffer, entry },
            ..(*tensor).clone()
        }))
    }
}

/// Whether the tensor's elements are 32-bit words.
fn word_sized(tensor: &Tensor) -> bool {
    tensor.dtype.is_some_and(|dtype| dtype.bits() == 32)
}
