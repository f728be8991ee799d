//! CuTe's int-tuple and layout algebra as a plain Rust library.
//!
//! # Model
//!
//! An **int-tuple** ([`IntTuple`]) is an integer or a tuple of int-tuples, such as
//! `((2,2),3)`. A **layout** ([`Layout`]) is a pair of congruent int-tuples
//! `shape:stride` read as a function: a coordinate inside `shape` maps to the inner
//! product of the coordinate with `stride`. Coordinates may be integers (split over the
//! modes colexicographically, leftmost fastest) or hierarchical. The algebra builds new
//! functions from old ones: `coalesce` and `filter` simplify without changing the
//! function, `composition(a, b)` is `a ∘ b`, `complement` fills the gaps of a layout's
//! image, and the divides and products tile one layout by another. Their semantics are
//! those of CuTe C++ (`include/cute/layout.hpp`); where NVIDIA's pycute differs, this
//! crate follows C++.
//!
//! A few C++ conventions are easy to miss: a static extent 1 gets stride 0 in compact
//! layouts (`make_layout((4,1))` is `(4,1):(1,0)`); composition coalesces its left
//! operand keeping its values beyond the domain (a trailing extent-1 mode keeps its
//! stride); an integer tiler `n` is `n:1` for `composition` but `make_layout(n)` for the
//! divides and products; a by-mode tiler drops the modes it does not reach in
//! `composition` and keeps them elsewhere; `left_inverse` is C++'s quasi-inverse.
//!
//! # Static and symbolic integers
//!
//! Everything is generic over [`Int`], implemented by `i64` (values known while
//! compiling) and by [`SymInt`] (expressions over run-time variables such as `m` and
//! `k`, kept in a canonical folded form). The same code therefore folds a static layout
//! to numbers and carries a global tensor's run-time extents symbolically, as CuTe's
//! `local_tile` does: `(m,k):(k,1)` divided by `(8,128)` is
//! `((8,ceil_div(m,8)),(128,ceil_div(k,128))):((k,8*k),(1,128))`. An operation that
//! truly needs a static value (sorting strides in `complement`, a divisibility check
//! that cannot be decided) returns [`LayoutError::Dynamic`] naming the operand.
//!
//! # Coordinate layouts
//!
//! CuTe's identity layout `(m,n):(1@0,1@1)` has basis strides: its values are
//! coordinates, not offsets. [`CoordinateLayout`] keeps each basis element as a
//! symbolic variable, so composition, the divides and slicing apply to it unchanged, and
//! `local_tile` of the identity of `(m,n)` at block `(bx,by)` starts at the coordinate
//! `(128*bx,64*by)`. [`IdentityLayout`] is the plain identity, evaluation only.
//!
//! # Errors
//!
//! Nothing here panics on any input: arithmetic is checked, nesting is limited to
//! [`MAX_DEPTH`], enumeration to a caller-given limit, and every rejected input yields a
//! [`LayoutError`] whose `Display` is a sentence naming the operation and operands.
//!
//! # Text
//!
//! Types print in CuTe's notation with no spaces (`((2,2),3):((1,4),8)`) and parse back
//! with [`parse_layout`], [`parse_int_tuple`], [`parse_tiler`], [`parse_coord`] and
//! `FromStr`.

mod coalesce;
pub mod common_vector;
mod complement;
pub mod composed;
mod composition;
mod coordinate;
mod divide;
mod error;
mod identity;
mod int;
mod int_tuple;
mod layout;
mod methods;
mod product;
pub mod recast;
mod slice;
mod static_index;
pub mod swizzle;
mod symbolic;
mod text;
pub mod tile_to_shape;
mod tiler;
pub mod tuple_arith;
pub mod tv;

pub use coalesce::{coalesce, coalesce_by, filter, filter_by, filter_zeros};
pub use common_vector::{max_common_layout, max_common_vector};
pub use complement::{complement, left_inverse, right_inverse};
pub use composed::ComposedLayout;
pub use composition::composition;
pub use coordinate::CoordinateLayout;
pub use divide::{flat_divide, logical_divide, tiled_divide, zipped_divide};
pub use error::LayoutError;
pub use identity::IdentityLayout;
pub use int::Int;
pub use int_tuple::{IntTuple, MAX_DEPTH};
pub use layout::{Layout, TABLE_LIMIT};
pub use product::{
    blocked_product, flat_product, logical_product, raked_product, tiled_product, zipped_product,
};
pub use recast::{downcast, recast_layout, upcast};
pub use slice::{Coord, dice, slice, slice_and_offset};
pub use swizzle::{Swizzle, SwizzleError};
pub use symbolic::{MAX_SYMBOLIC_TERMS, SymFactor, SymInt};
pub use text::{parse_coord, parse_int_tuple, parse_layout, parse_sym_int, parse_tiler};
pub use tile_to_shape::tile_to_shape;
pub use tiler::{AsTiler, Tiler};
pub use tuple_arith::{
    ceil_div, crd2idx, elem_less, idx2crd, idx2crd_strided, inner_product, prefix_product,
    product_each, shape_div,
};
pub use tv::make_layout_tv;
