//! PTX for sm_80, sm_90a and sm_100a, and the `ptxas` that turns it into cubins.

mod emit;
pub mod ptxas;

pub use emit::{EmitError, EmitOptions, emit_module, fill_template};
