//! The [`Layout`] type: a function from coordinates to offsets given by a shape and a
//! congruent stride, its constructors, queries and evaluation.

use std::fmt;

use crate::tuple_arith::{compact_left, compact_right, crd2idx};
use crate::{Int, IntTuple, LayoutError, MAX_DEPTH};

/// The most elements [`Layout::table`] enumerates by default (`1 << 24`).
pub const TABLE_LIMIT: u64 = 1 << 24;

/// A CuTe layout `shape:stride`: maps a coordinate `c` in `shape` to
/// `inner_product(c, stride)`.
///
/// Invariants (checked by [`Layout::new`]): shape and stride are congruent, every
/// static shape extent is positive, and the nesting is at most [`MAX_DEPTH`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout<I = i64> {
    shape: IntTuple<I>,
    stride: IntTuple<I>,
}

fn check_positive<I: Int>(shape: &IntTuple<I>, whole: &IntTuple<I>) -> Result<(), LayoutError> {
    match shape {
        IntTuple::Int(extent) => match extent.as_static() {
            Some(value) if value <= 0 => Err(LayoutError::NonPositiveShape {
                shape: whole.to_string(),
            }),
            _ => Ok(()),
        },
        IntTuple::Tuple(modes) => modes
            .iter()
            .try_for_each(|mode| check_positive(mode, whole)),
    }
}

impl<I: Int> Layout<I> {
    /// The layout `shape:stride`.
    pub fn new(shape: IntTuple<I>, stride: IntTuple<I>) -> Result<Self, LayoutError> {
        if shape.depth() > MAX_DEPTH || stride.depth() > MAX_DEPTH {
            return Err(LayoutError::TooDeep { limit: MAX_DEPTH });
        }
        if !shape.congruent(&stride) {
            return Err(LayoutError::Incongruent {
                operation: "layout",
                left: format!("shape {shape}"),
                right: format!("stride {stride}"),
            });
        }
        check_positive(&shape, &shape)?;
        Ok(Layout { shape, stride })
    }

    /// The compact column-major layout of `shape` (CuTe's `make_layout(shape)`,
    /// `LayoutLeft`): the leftmost mode varies fastest.
    pub fn column_major(shape: IntTuple<I>) -> Result<Self, LayoutError> {
        let stride = compact_left(&shape, &I::from_static(1))?;
        Layout::new(shape, stride)
    }

    /// The compact row-major layout of `shape` (`LayoutRight`).
    pub fn row_major(shape: IntTuple<I>) -> Result<Self, LayoutError> {
        let stride = compact_right(&shape, &I::from_static(1))?;
        Layout::new(shape, stride)
    }

    /// CuTe's `make_ordered_layout(shape, order)`: a compact layout whose modes are laid
    /// out in increasing `order` (ties share a stride). `order` is weakly congruent with
    /// `shape`; a leaf of `order` covers the sub-shape under it, laid out column-major.
    pub fn ordered(shape: IntTuple<I>, order: &IntTuple<i64>) -> Result<Self, LayoutError> {
        if !order.weakly_congruent(&shape) {
            return Err(LayoutError::Incongruent {
                operation: "make_ordered_layout",
                left: format!("shape {shape}"),
                right: format!("order {order}"),
            });
        }
        let mut pieces = Vec::new();
        collect_order_pieces(&shape, order, &mut pieces);
        let stride = ordered_strides(&shape, order, &pieces)?;
        Layout::new(shape, stride)
    }

    /// CuTe's `make_layout(layouts...)`: the layout whose modes are `modes`.
    pub fn from_modes(modes: Vec<Layout<I>>) -> Result<Self, LayoutError> {
        if modes.is_empty() {
            return Err(LayoutError::Unsupported {
                operation: "make_layout",
                reason: "a layout needs at least one mode".to_owned(),
            });
        }
        // Each mode is already a valid layout; only the added level can break a limit.
        if modes.iter().any(|mode| mode.depth() >= MAX_DEPTH) {
            return Err(LayoutError::TooDeep { limit: MAX_DEPTH });
        }
        let (shapes, strides) = modes
            .into_iter()
            .map(|mode| (mode.shape, mode.stride))
            .unzip();
        Ok(Layout {
            shape: IntTuple::Tuple(shapes),
            stride: IntTuple::Tuple(strides),
        })
    }

    /// The shape.
    pub fn shape(&self) -> &IntTuple<I> {
        &self.shape
    }

    /// The stride.
    pub fn stride(&self) -> &IntTuple<I> {
        &self.stride
    }

    /// Number of top-level modes.
    pub fn rank(&self) -> usize {
        self.shape.rank()
    }

    /// Nesting depth of the shape.
    pub fn depth(&self) -> usize {
        self.shape.depth()
    }

    /// Size of the domain: the product of the shape.
    pub fn size(&self) -> Result<I, LayoutError> {
        self.shape.product()
    }

    /// Size of the codomain: one past the largest offset, taking strides by absolute
    /// value (CuTe's `cosize`).
    pub fn cosize(&self) -> Result<I, LayoutError> {
        let mut sum = I::from_static(0);
        for (extent, stride) in self.shape.leaves().iter().zip(self.stride.leaves()) {
            let stride = match stride.as_static() {
                Some(value) => I::from_static(
                    value
                        .checked_abs()
                        .ok_or_else(|| crate::int::overflow("cosize", format!("|{value}|")))?,
                ),
                None => stride,
            };
            sum = sum.add(&extent.sub(&I::from_static(1))?.mul(&stride)?)?;
        }
        sum.add(&I::from_static(1))
    }

    /// Mode `index` as a layout (CuTe's `get<index>` / `layout<index>`).
    pub fn mode(&self, index: usize) -> Result<Layout<I>, LayoutError> {
        let shape = self.shape.get(index)?.clone();
        let stride = self.stride.get(index)?.clone();
        Ok(Layout { shape, stride })
    }

    /// All top-level modes (a layout with an integer shape is its own single mode).
    pub fn modes(&self) -> Vec<Layout<I>> {
        let strides = self.stride.modes();
        self.shape
            .modes()
            .into_iter()
            .zip(strides)
            .map(|(shape, stride)| Layout { shape, stride })
            .collect()
    }

    /// The offset of a coordinate: an integer (split colexicographically) or a
    /// hierarchical coordinate congruent with a prefix of the shape's nesting.
    pub fn evaluate(&self, coord: &IntTuple<I>) -> Result<I, LayoutError> {
        crd2idx(coord, &self.shape, &self.stride)
    }

    /// The offset of the integer coordinate `index`.
    pub fn evaluate_index(&self, index: &I) -> Result<I, LayoutError> {
        self.evaluate(&IntTuple::Int(index.clone()))
    }

    /// The offsets of all indices `0..size`, for a static layout of at most `limit`
    /// elements. The coordinates are walked like an odometer, colexicographically, one
    /// add per element.
    pub fn table(&self, limit: u64) -> Result<Vec<i64>, LayoutError> {
        let size = self.size()?.static_value("table")?;
        if u64::try_from(size).map_or(true, |size| size > limit) {
            return Err(LayoutError::TooLarge {
                operation: "table",
                size: size.to_string(),
                limit,
            });
        }
        let flat = self.flatten();
        let leaves = |tuple: &IntTuple<I>| -> Result<Vec<i64>, LayoutError> {
            tuple
                .leaves()
                .iter()
                .map(|leaf| leaf.static_value("table"))
                .collect()
        };
        let (shapes, strides) = (leaves(&flat.shape)?, leaves(&flat.stride)?);
        let overflow = || crate::int::overflow("table", format!("an offset of {self}"));
        let mut counters = vec![0_i64; shapes.len()];
        let mut offset = 0_i64;
        let mut table = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        for index in 0..size {
            table.push(offset);
            if index + 1 == size {
                break;
            }
            for (mode, counter) in counters.iter_mut().enumerate() {
                *counter += 1;
                offset = offset.checked_add(strides[mode]).ok_or_else(overflow)?;
                if *counter < shapes[mode] {
                    break;
                }
                let span = strides[mode]
                    .checked_mul(shapes[mode])
                    .ok_or_else(overflow)?;
                offset = offset.checked_sub(span).ok_or_else(overflow)?;
                *counter = 0;
            }
        }
        Ok(table)
    }

    /// The layout of the modes at `indices`, in that order (CuTe's `select`).
    pub fn select(&self, indices: &[usize]) -> Result<Layout<I>, LayoutError> {
        let modes = indices
            .iter()
            .map(|&index| self.mode(index))
            .collect::<Result<_, _>>()?;
        Layout::from_modes(modes)
    }

    /// Groups modes `begin..end` into one mode (CuTe's `group_modes<B,E>`).
    pub fn group_modes(&self, begin: usize, end: usize) -> Result<Layout<I>, LayoutError> {
        let modes = self.modes();
        if begin >= end || end > modes.len() {
            let index = if begin >= end { begin } else { end };
            return Err(LayoutError::ModeOutOfRange {
                operation: "group_modes",
                index,
                rank: modes.len(),
            });
        }
        let mut result: Vec<Layout<I>> = modes.iter().take(begin).cloned().collect();
        let grouped = modes.iter().take(end).skip(begin).cloned().collect();
        result.push(Layout::from_modes(grouped)?);
        result.extend(modes.iter().skip(end).cloned());
        Layout::from_modes(result)
    }

    /// This layout with `other` appended as a new last mode.
    pub fn append(&self, other: &Layout<I>) -> Result<Layout<I>, LayoutError> {
        let mut modes = self.modes();
        modes.push(other.clone());
        Layout::from_modes(modes)
    }

    /// This layout with `other` prepended as a new first mode.
    pub fn prepend(&self, other: &Layout<I>) -> Result<Layout<I>, LayoutError> {
        let mut modes = vec![other.clone()];
        modes.extend(self.modes());
        Layout::from_modes(modes)
    }

    /// Pads with `1:0` modes up to `rank` modes (CuTe's `append<rank>`); a layout of
    /// that rank or higher is returned unchanged.
    pub(crate) fn padded_to_rank(&self, rank: usize) -> Result<Layout<I>, LayoutError> {
        if self.rank() >= rank {
            return Ok(self.clone());
        }
        let mut modes = self.modes();
        while modes.len() < rank {
            modes.push(Layout::unit());
        }
        Layout::from_modes(modes)
    }

    /// The trivial layout `1:0`.
    pub(crate) fn unit() -> Layout<I> {
        Layout {
            shape: IntTuple::int(1),
            stride: IntTuple::int(0),
        }
    }

    /// The layout with the same leaves and depth at most 1 (CuTe's `flatten`).
    pub fn flatten(&self) -> Layout<I> {
        Layout {
            shape: self.shape.flatten(),
            stride: self.stride.flatten(),
        }
    }

    /// This layout with symbolic integers.
    pub fn to_symbolic(&self) -> Layout<crate::SymInt> {
        Layout {
            shape: self.shape.to_symbolic(),
            stride: self.stride.to_symbolic(),
        }
    }

    /// Applies `convert` to every leaf of shape and stride.
    pub fn try_map<J: Int>(
        &self,
        convert: &mut impl FnMut(&I) -> Result<J, LayoutError>,
    ) -> Result<Layout<J>, LayoutError> {
        Layout::new(self.shape.try_map(convert)?, self.stride.try_map(convert)?)
    }
}

/// `(order value, size of the sub-shape it covers)` for every leaf of `order`.
fn collect_order_pieces<I: Int>(
    shape: &IntTuple<I>,
    order: &IntTuple<i64>,
    pieces: &mut Vec<(i64, IntTuple<I>)>,
) {
    match (order, shape) {
        (IntTuple::Int(rank), _) => pieces.push((*rank, shape.clone())),
        (IntTuple::Tuple(orders), IntTuple::Tuple(shapes)) => {
            for (sub_order, sub_shape) in orders.iter().zip(shapes) {
                collect_order_pieces(sub_shape, sub_order, pieces);
            }
        }
        (IntTuple::Tuple(_), IntTuple::Int(_)) => {}
    }
}

fn ordered_strides<I: Int>(
    shape: &IntTuple<I>,
    order: &IntTuple<i64>,
    pieces: &[(i64, IntTuple<I>)],
) -> Result<IntTuple<I>, LayoutError> {
    match (order, shape) {
        (IntTuple::Int(rank), _) => {
            let mut start = I::from_static(1);
            for (other_rank, other_shape) in pieces {
                if other_rank < rank {
                    start = start.mul(&other_shape.product()?)?;
                }
            }
            compact_left(shape, &start)
        }
        (IntTuple::Tuple(orders), IntTuple::Tuple(shapes)) => {
            let strides = orders
                .iter()
                .zip(shapes)
                .map(|(o, s)| ordered_strides(s, o, pieces));
            Ok(IntTuple::Tuple(strides.collect::<Result<_, _>>()?))
        }
        (IntTuple::Tuple(_), IntTuple::Int(_)) => Err(LayoutError::Incongruent {
            operation: "make_ordered_layout",
            left: format!("shape {shape}"),
            right: format!("order {order}"),
        }),
    }
}

impl<I: fmt::Display> fmt::Display for Layout<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape, self.stride)
    }
}
