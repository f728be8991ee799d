//! PTX for sm_80, sm_90a and sm_100a, and the `ptxas` that turns it into cubins.

pub mod ptxas;
