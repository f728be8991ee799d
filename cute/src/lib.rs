//! CuTe's atom layer as plain data and functions: element types, the target
//! architecture, atoms with their thread-value layouts, tiled copies and MMAs and how
//! they partition a tensor among threads, and tensors (a layout, its codomain, and
//! where the elements live).
//!
//! Nothing here knows the checker, source spans or diagnostics: a failure is an
//! [`Error`], which the typechecker reports at the user's line. The layout algebra
//! itself is the `layout` crate's; this crate is what CuTe builds on top of it
//! (`include/cute/atom/`, `tensor.hpp`'s `local_tile` and `local_partition`).

mod atom;
mod dtype;
mod error;
mod gmma;
mod target;
mod tensor;
mod tiled;
mod tma;
mod umma;

pub use atom::{
    Atom, AtomDetail, AtomKind, CopyAtom, MmaAtom, SpaceRule, check_copy_shapes, check_mma_shapes,
    three_extents,
};
pub use dtype::Dtype;
pub use error::Error;
pub use gmma::{GmmaDescriptor, Major, first_mode_values, operand_bytes, warpgroup_descriptor};
pub use target::{Target, UnknownTarget};
pub use tensor::{
    Base, Codomain, MemorySpace, Tensor, TensorLayout, local_partition, tile_coordinate,
};
pub use tiled::{Operand, Side, TiledCopy, TiledMma, thread_slice};
pub use tma::{MAX_BOX_EXTENT, TMA_SWIZZLES, TmaBox, swizzled};
pub use umma::{
    TMEM_SHAPES, UmmaShape, tile_extents, tile_values, tmem_shape_registers, umma_descriptor,
    umma_kind,
};
