//! Tensors: a pointer into a memory space and a layout over it, with where the
//! elements live; and the layout arithmetic of CuTe's tensor algorithms
//! (`local_tile`, `local_partition`, `make_fragment_like`, `make_identity_tensor`).
//!
//! A tensor's layout maps coordinates into a codomain ([`Codomain`]): element
//! offsets, indices into a swizzled allocation, or coordinates with basis strides.
//! Every algebra operation runs on the layout and adds to the offset, whatever the
//! codomain.

use std::fmt;

use layout::{
    ComposedLayout, Coord, CoordinateLayout, Int, IntTuple, Layout, LayoutError, SymInt, Tiler,
};

use crate::Error;
use crate::dtype::Dtype;

/// The memory spaces a tensor can live in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemorySpace {
    /// `gmem`: global memory.
    Global,
    /// `smem`: shared memory of the block (or cluster).
    Shared,
    /// `rmem`: registers of one thread.
    Register,
    /// `tmem`: sm100 tensor memory.
    Tensor,
}

impl MemorySpace {
    /// The keyword that names this space.
    pub fn keyword(self) -> &'static str {
        match self {
            MemorySpace::Global => "gmem",
            MemorySpace::Shared => "smem",
            MemorySpace::Register => "rmem",
            MemorySpace::Tensor => "tmem",
        }
    }
}

/// A tensor: a pointer into a memory space and a layout over it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// Where the elements live.
    pub space: MemorySpace,
    /// What the tensor's elements are; `None` for a coordinate tensor, whose
    /// elements are coordinates (`make_identity_tensor`).
    pub dtype: Option<Dtype>,
    /// The layout, its offset and what its values mean.
    pub layout: TensorLayout,
    /// Whether stores through this tensor are rejected.
    pub read_only: bool,
    /// Where the elements live.
    pub base: Base,
}

/// A tensor's layout: `layout` maps coordinates into a codomain, starting at `offset`.
///
/// Every algebra operation (divides, composition, slicing, partitioning) applies to
/// `layout` and adds to `offset`, whatever the codomain; the codomain says how a value
/// of the layout becomes an element: an element offset, an index into a swizzled
/// allocation, or a coordinate.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorLayout {
    /// Coordinates to codomain values.
    pub layout: Layout<SymInt>,
    /// The codomain value of coordinate 0.
    pub offset: SymInt,
    /// What the values mean.
    pub codomain: Codomain,
}

/// How a tensor layout's values become elements.
#[derive(Clone, Debug, PartialEq)]
pub enum Codomain {
    /// Values are element offsets from the pointer.
    Offsets,
    /// Values are indices into the domain of a swizzled allocation (CuTe's swizzled
    /// smem pointer); the composed layout turns an index into an element offset.
    Swizzled(ComposedLayout),
    /// Values are coordinates of this identity layout's shape, with basis strides.
    Coordinates(CoordinateLayout),
}

/// Where a tensor's elements live.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    /// The kernel's run-time parameter at this index (a global tensor).
    Param(usize),
    /// The kernel's shared-memory buffer at this index of the kernel's list of shared buffers.
    Shared(usize),
    /// Registers: the fragment with this number.
    Registers(u32),
    /// No memory: an identity tensor, whose elements are coordinates.
    Coordinates,
    /// Memory the checker cannot name (a tensor built from a pointer it did not track).
    Unknown,
    /// Another rank's copy of the symmetric global tensor parameter `param` (`peer(t,
    /// r)`): its base address is read from the peer table at the address the trace's
    /// peer entry `entry` names.
    Peer {
        /// The symmetric tensor parameter.
        param: usize,
        /// The index of its table entry's address among the trace's peer entries.
        entry: u32,
    },
    /// The shared-memory buffer `buffer` of another block of the cluster
    /// (`cluster_view(s, r)`, distributed shared memory): the same offsets in the block
    /// whose rank the trace's cluster-rank entry `entry` names.
    Cluster {
        /// The kernel's shared buffer, as in [`Base::Shared`].
        buffer: usize,
        /// The index of the rank's variable among the trace's cluster ranks.
        entry: u32,
    },
}

impl Tensor {
    /// `gmem bf16 tensor`, `rmem bool tensor`, `gmem coordinate tensor`.
    pub fn type_name(&self) -> String {
        match self.dtype {
            Some(dtype) => format!("{} {dtype} tensor", self.space.keyword()),
            None => "coordinate tensor".to_owned(),
        }
    }

    /// The element type's name, `coordinate` for a coordinate tensor.
    pub fn element_name(&self) -> String {
        self.dtype
            .map_or("coordinate".to_owned(), |dtype| dtype.name().to_owned())
    }

    /// The tensor's shape.
    pub fn shape(&self) -> &IntTuple<SymInt> {
        self.layout.layout.shape()
    }

    /// A tensor over the coordinates of `shape` (CuTe's `make_identity_tensor`).
    pub fn identity(shape: &IntTuple<SymInt>) -> Result<Tensor, LayoutError> {
        let identity = CoordinateLayout::identity(shape)?;
        Ok(Tensor {
            space: MemorySpace::Register,
            dtype: None,
            layout: TensorLayout {
                layout: identity.layout().clone(),
                offset: SymInt::constant(0),
                codomain: Codomain::Coordinates(identity),
            },
            read_only: true,
            base: Base::Coordinates,
        })
    }

    /// A register fragment of `dtype` shaped like this tensor (CuTe's
    /// `make_fragment_like`): a compact layout of the same shape. `number` names the
    /// fragment; it is asked for only once the layout is known.
    pub fn fragment_like(
        &self,
        dtype: Dtype,
        number: impl FnOnce() -> u32,
    ) -> Result<Tensor, LayoutError> {
        let layout = fragment_layout(&self.layout.layout)?;
        Ok(Tensor {
            space: MemorySpace::Register,
            dtype: Some(dtype),
            layout: TensorLayout {
                layout: layout.to_symbolic(),
                offset: SymInt::constant(0),
                codomain: Codomain::Offsets,
            },
            read_only: false,
            base: Base::Registers(number()),
        })
    }

    /// This tensor with `layout` (a rearrangement of its layout) sliced at `coord`.
    pub fn sliced(
        &self,
        layout: &Layout<SymInt>,
        coord: &Coord<SymInt>,
    ) -> Result<Tensor, LayoutError> {
        let (layout, offset) = layout.slice(coord)?;
        self.relaid(layout, &offset)
    }

    /// The same elements seen through `layout`, starting `offset` past this tensor's
    /// start: what slicing and partitioning a tensor make of it.
    pub fn relaid(&self, layout: Layout<SymInt>, offset: &SymInt) -> Result<Tensor, LayoutError> {
        let offset = self.layout.offset.add(offset)?;
        Ok(Tensor {
            layout: TensorLayout {
                layout,
                offset,
                codomain: self.layout.codomain.clone(),
            },
            ..self.clone()
        })
    }
}

/// The coordinate that picks tile `coord` out of `divided`, a tensor's layout
/// zipped-divided by a tiler of `tile_rank` modes (CuTe's `local_tile`): the tile modes
/// stay whole, and `coord` is padded with `_` to one entry per tile count.
pub fn tile_coordinate(
    divided: &Layout<SymInt>,
    tile_rank: usize,
    coord: Coord<SymInt>,
) -> Result<Coord<SymInt>, Error> {
    let rest = divided.mode(1).map(|rest| rest.rank()).unwrap_or(1);
    let coord = match coord {
        Coord::Tuple(mut items) if items.len() <= rest => {
            items.resize(rest, Coord::Free);
            Coord::Tuple(items)
        }
        Coord::Int(value) if rest > 1 => {
            let mut items = vec![Coord::Int(value)];
            items.resize(rest, Coord::Free);
            Coord::Tuple(items)
        }
        Coord::Tuple(items) => {
            return Err(Error::TileCoordinate {
                modes: items.len(),
                tile_counts: rest,
            });
        }
        other => other,
    };
    let tile_coord = if tile_rank == 1 {
        Coord::Free
    } else {
        Coord::Tuple(vec![Coord::Free; tile_rank])
    };
    Ok(Coord::Tuple(vec![tile_coord, coord]))
}

/// CuTe's `local_partition(tensor, threads, index)` on a tensor's layout: the layout
/// divided by the threads' tile, and the coordinate of thread `index`'s elements of
/// every tile.
pub fn local_partition(
    layout: &Layout<SymInt>,
    threads: &Layout<SymInt>,
    index: &SymInt,
) -> Result<(Layout<SymInt>, Coord<SymInt>), LayoutError> {
    let tile = layout::product_each(threads.shape())?;
    let tiler = Tiler::from_shape(&tile)?;
    let divided = layout::zipped_divide(layout, &tiler)?;
    let coord = layout::idx2crd_strided(
        &IntTuple::Int(index.clone()),
        threads.shape(),
        threads.stride(),
    )?;
    let rest = divided.mode(1)?;
    let rest_coord = match rest.shape() {
        IntTuple::Int(_) => Coord::Free,
        IntTuple::Tuple(modes) => Coord::Tuple(modes.iter().map(|_| Coord::Free).collect()),
    };
    Ok((divided, Coord::Tuple(vec![Coord::from(&coord), rest_coord])))
}

impl fmt::Display for TensorLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.codomain {
            Codomain::Offsets => {
                write!(f, "{}", self.layout)?;
                if self.offset.as_constant() != Some(0) {
                    write!(f, " @ offset {}", self.offset)?;
                }
                Ok(())
            }
            Codomain::Swizzled(composed) => {
                write!(f, "{composed} o {}", self.layout)?;
                if self.offset.as_constant() != Some(0) {
                    write!(f, " @ index {}", self.offset)?;
                }
                Ok(())
            }
            Codomain::Coordinates(identity) => {
                let coordinates = identity.with_layout(self.layout.clone());
                write!(f, "{coordinates}")?;
                match identity.coordinate_of(&self.offset) {
                    Ok(start)
                        if !start
                            .leaves()
                            .iter()
                            .all(|leaf| leaf.as_constant() == Some(0)) =>
                    {
                        write!(f, " @ coordinate {start}")
                    }
                    _ => Ok(()),
                }
            }
        }
    }
}

/// CuTe's `make_fragment_like` on a layout: a compact layout of the same shape for a
/// register fragment. Mode 0 is column-major (keeping broadcast modes at stride 0),
/// the other modes follow the order of their strides after it.
fn fragment_layout(layout: &Layout<SymInt>) -> Result<Layout<i64>, LayoutError> {
    let shape = layout
        .shape()
        .try_map(&mut |extent: &SymInt| extent.static_value("make_fragment_like"))?;
    let first = column_major_keeping_zeros(&layout.mode(0)?, shape.get(0)?)?;
    if layout.rank() == 1 {
        return Ok(first);
    }
    let rest_shape = IntTuple::Tuple(shape.modes()[1..].to_vec());
    let rest_strides = IntTuple::Tuple(layout.stride().modes()[1..].to_vec());
    let order = stride_order(&rest_strides);
    let rest = match order {
        Some(order) => Layout::ordered(rest_shape, &order)?,
        None => Layout::column_major(rest_shape)?,
    };
    let scale = first.cosize()?.max(1);
    let mut modes = vec![first];
    for mode in rest.modes() {
        let stride = mode
            .stride()
            .try_map(&mut |stride: &i64| stride.mul(&scale))?;
        modes.push(Layout::new(mode.shape().clone(), stride)?);
    }
    Layout::from_modes(modes)
}

/// Column-major strides for `shape`, except where `layout` has stride 0.
fn column_major_keeping_zeros(
    layout: &Layout<SymInt>,
    shape: &IntTuple<i64>,
) -> Result<Layout<i64>, LayoutError> {
    let compact = Layout::column_major(shape.clone())?;
    let zero: Vec<bool> = layout
        .stride()
        .leaves()
        .iter()
        .map(|stride| stride.is_static(0))
        .collect();
    let mut leaf = 0;
    let mut next = 1i64;
    let stride = compact.stride().try_map(&mut |_: &i64| {
        let index = leaf;
        leaf += 1;
        let extent = shape.leaves().get(index).copied().unwrap_or(1);
        if zero.get(index).copied().unwrap_or(false) || extent == 1 {
            return Ok(0);
        }
        let stride = next;
        next = next.mul(&extent)?;
        Ok(stride)
    })?;
    Layout::new(shape.clone(), stride)
}

/// The rank of each leaf stride among all leaf strides (ties by position), when every
/// stride is static; shaped like the strides.
fn stride_order(strides: &IntTuple<SymInt>) -> Option<IntTuple<i64>> {
    let leaves: Vec<i64> = strides
        .leaves()
        .iter()
        .map(SymInt::as_constant)
        .collect::<Option<_>>()?;
    let mut sorted: Vec<(i64, usize)> = leaves.iter().copied().zip(0..).collect();
    sorted.sort();
    let mut rank = vec![0i64; leaves.len()];
    for (position, (_, leaf)) in sorted.into_iter().enumerate() {
        rank[leaf] = i64::try_from(position).ok()?;
    }
    let mut next = 0;
    strides
        .try_map(&mut |_: &SymInt| {
            let value = rank[next];
            next += 1;
            Ok::<i64, LayoutError>(value)
        })
        .ok()
}
