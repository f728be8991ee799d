//! CuTe's int-tuple and layout algebra as a plain Rust library.
