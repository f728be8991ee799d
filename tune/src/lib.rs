//! Autotuning's compile-time half: the space of a `tune` block and what is wrong with
//! it, the points it holds, each point as a module to compile, and the winners kept in
//! the cache directory.
//!
//! - [`space::check`] reads a `tune` block against its file (the kernel, its const
//!   parameters and their kinds, the `bench` blocks, the `where` conditions) and,
//!   when nothing is wrong, enumerates the [`Point`]s the conditions keep; the checker
//!   reports its diagnostics (`E0233`-`E0236`), so `cukc check` and the language
//!   server show them.
//! - [`condition`] evaluates a `where` condition at a point.
//! - [`specialise`] makes the module a point compiles to: the kernel's const
//!   parameters defaulting to the point's values, and only the benches that time it.
//! - [`winners`] stores and finds the fastest point for a bench, keyed by the
//!   source, the compiler, the GPU and the bench (whose shapes it fixes).
//!
//! Compiling the points, timing them on a GPU and using the winners is the `autotune`
//! crate's (for `cukc tune` and `cuk.autotune`); this crate never runs anything.

pub mod condition;
pub mod space;
mod specialise;
pub mod winners;

pub use space::{ConstValue, Point, Space, check};
pub use specialise::specialise;
