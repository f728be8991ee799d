//! KIR, the kernel IR: what is left of a kernel once everything const has been folded.
//!
//! [`signature`] is the kernel as the host calls it (parameters, launch expressions).

pub mod signature;

pub use signature::{Assumption, Element, HostExpr, IntParam, Launch, Param, ParamKind, Signature};
