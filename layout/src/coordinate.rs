//! Layouts whose values are coordinates: CuTe's layouts with basis strides
//! (`1@0`, `1@1`), such as `make_identity_layout(shape)` and what the algebra
//! derives from it: its tiles, partitions and slices. Predication compares these
//! coordinates with the shape.
//!
//! Each stride is a symbolic integer that is linear in one basis variable per leaf
//! of the codomain shape (named `@0`, `@1@0`, ..., which no parsed name can be), so
//! composition, the divides and slicing run unchanged on [`Layout<SymInt>`]: they
//! only multiply the left operand's strides by integers and add them up, which is all
//! a basis stride allows. Evaluation splits the linear form back into a coordinate
//! congruent with the codomain. As with CuTe's basis strides, the arithmetic is per
//! mode and never carries into the next one, so a tile that reaches past the edge of
//! a run-time shape yields coordinates past that edge, which predication rejects.

use std::fmt;

use crate::int_tuple::write_tuple;
use crate::{
    AsTiler, Coord, Int, IntTuple, Layout, LayoutError, SymInt, composition, flat_divide,
    logical_divide, tiled_divide, zipped_divide,
};

/// A layout from coordinates of its shape to coordinates of a codomain shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CoordinateLayout {
    codomain: IntTuple<SymInt>,
    layout: Layout<SymInt>,
}

impl CoordinateLayout {
    /// The identity layout of `shape`: each coordinate maps to itself
    /// (CuTe's `make_identity_layout`, strides `(1@0,1@1,...)`).
    pub fn identity<I: Int>(shape: &IntTuple<I>) -> Result<Self, LayoutError> {
        // Validates the shape exactly as a layout would.
        Layout::column_major(shape.clone())?;
        let codomain = shape.to_symbolic();
        let stride = basis_like(&codomain, &mut Vec::new());
        let layout = Layout::new(codomain.clone(), stride)?;
        Ok(CoordinateLayout { codomain, layout })
    }

    /// The shape whose coordinates the values are.
    pub fn codomain(&self) -> &IntTuple<SymInt> {
        &self.codomain
    }

    /// The layout itself, with basis strides as symbolic integers.
    pub fn layout(&self) -> &Layout<SymInt> {
        &self.layout
    }

    /// The domain's shape.
    pub fn shape(&self) -> &IntTuple<SymInt> {
        self.layout.shape()
    }

    /// Number of coordinates in the domain.
    pub fn size(&self) -> Result<SymInt, LayoutError> {
        self.layout.size()
    }

    /// Mode `index` of the domain.
    pub fn mode(&self, index: usize) -> Result<Self, LayoutError> {
        Ok(self.with_layout(self.layout.mode(index)?))
    }

    /// The codomain coordinate at `coord` (an integer or a hierarchical coordinate).
    pub fn evaluate(&self, coord: &IntTuple<SymInt>) -> Result<IntTuple<SymInt>, LayoutError> {
        let value = self.layout.evaluate(coord)?;
        self.coordinate_of(&value)
    }

    /// `self ∘ tiler`.
    pub fn composition(&self, tiler: &impl AsTiler<SymInt>) -> Result<Self, LayoutError> {
        Ok(self.with_layout(composition(&self.layout, tiler)?))
    }

    /// CuTe's `logical_divide`: `(tile, rest)` for each tiled mode.
    pub fn logical_divide(&self, tiler: &impl AsTiler<SymInt>) -> Result<Self, LayoutError> {
        Ok(self.with_layout(logical_divide(&self.layout, tiler)?))
    }

    /// CuTe's `zipped_divide`: `((tiles), (rests))`.
    pub fn zipped_divide(&self, tiler: &impl AsTiler<SymInt>) -> Result<Self, LayoutError> {
        Ok(self.with_layout(zipped_divide(&self.layout, tiler)?))
    }

    /// CuTe's `tiled_divide`: `((tiles), rest0, rest1, ...)`.
    pub fn tiled_divide(&self, tiler: &impl AsTiler<SymInt>) -> Result<Self, LayoutError> {
        Ok(self.with_layout(tiled_divide(&self.layout, tiler)?))
    }

    /// CuTe's `flat_divide`: `(tile0, tile1, ..., rest0, rest1, ...)`.
    pub fn flat_divide(&self, tiler: &impl AsTiler<SymInt>) -> Result<Self, LayoutError> {
        Ok(self.with_layout(flat_divide(&self.layout, tiler)?))
    }

    /// The modes under `_` in `coord`, and the codomain coordinate at which the
    /// slice starts (CuTe's slice of a coordinate tensor: layout and offset).
    pub fn slice(&self, coord: &Coord<SymInt>) -> Result<(Self, IntTuple<SymInt>), LayoutError> {
        let (sliced, offset) = self.layout.slice(coord)?;
        Ok((self.with_layout(sliced), self.coordinate_of(&offset)?))
    }

    /// The same codomain with `layout` as the map: how a caller that transforms the
    /// layout with the plain algebra (a tensor's partitioning) rebuilds the result.
    /// `layout`'s strides must be sums of this layout's basis elements.
    pub fn with_layout(&self, layout: Layout<SymInt>) -> Self {
        CoordinateLayout {
            codomain: self.codomain.clone(),
            layout,
        }
    }

    /// The codomain coordinate whose components are the coefficients of `value`'s
    /// basis variables (the value of an offset or stride of this layout).
    pub fn coordinate_of(&self, value: &SymInt) -> Result<IntTuple<SymInt>, LayoutError> {
        let not_a_coordinate = || LayoutError::Unsupported {
            operation: "coordinate layout",
            reason: format!(
                "{value} is not a sum of basis elements of {}",
                self.codomain
            ),
        };
        let (components, rest) = value
            .split_linear(&|name| name.starts_with('@'))
            .ok_or_else(not_a_coordinate)?;
        let known = |name: &String| is_leaf_basis(&self.codomain, name);
        if !rest.is_static(0) || !components.iter().all(|(name, _)| known(name)) {
            return Err(not_a_coordinate());
        }
        let component = |path: &[usize]| {
            let name = basis_name(path);
            components
                .iter()
                .find(|(known, _)| *known == name)
                .map_or_else(|| SymInt::constant(0), |(_, value)| value.clone())
        };
        Ok(congruent(&self.codomain, &mut Vec::new(), &component))
    }
}

/// The basis variable of the codomain leaf at `path`: `@0` for an integer
/// codomain, `@i` for mode `i`, `@i@j` for leaf `j` of mode `i`.
fn basis_name(path: &[usize]) -> String {
    if path.is_empty() {
        return "@0".to_owned();
    }
    path.iter().map(|index| format!("@{index}")).collect()
}

/// The strides of the identity layout of `shape`: the basis variable of each leaf.
fn basis_like(shape: &IntTuple<SymInt>, path: &mut Vec<usize>) -> IntTuple<SymInt> {
    congruent(shape, path, &|path| SymInt::variable(&basis_name(path)))
}

/// An int-tuple congruent with `shape` whose leaf at each path is `leaf(path)`.
fn congruent(
    shape: &IntTuple<SymInt>,
    path: &mut Vec<usize>,
    leaf: &dyn Fn(&[usize]) -> SymInt,
) -> IntTuple<SymInt> {
    match shape {
        IntTuple::Int(_) => IntTuple::Int(leaf(path)),
        IntTuple::Tuple(modes) => IntTuple::Tuple(
            modes
                .iter()
                .enumerate()
                .map(|(index, mode)| {
                    path.push(index);
                    let mode = congruent(mode, path, leaf);
                    path.pop();
                    mode
                })
                .collect(),
        ),
    }
}

/// Whether `name` is the basis variable of a leaf of `shape` (as [`basis_name`]
/// writes it), read from the name instead of naming every leaf: element accesses of
/// an identity tensor ask this once per access.
fn is_leaf_basis(shape: &IntTuple<SymInt>, name: &str) -> bool {
    let Some(path) = name.strip_prefix('@') else {
        return false;
    };
    if let IntTuple::Int(_) = shape {
        return path == "0";
    }
    let mut node = shape;
    for index in path.split('@') {
        // Decimal without leading zeros, as `basis_name` writes it.
        let canonical = index.bytes().all(|byte| byte.is_ascii_digit())
            && (index == "0" || !index.starts_with('0'));
        let (IntTuple::Tuple(modes), true, Ok(index)) = (node, canonical, index.parse::<usize>())
        else {
            return false;
        };
        let Some(mode) = modes.get(index) else {
            return false;
        };
        node = mode;
    }
    matches!(node, IntTuple::Int(_))
}

/// Writes a basis stride as CuTe does: `1@0`, `4@1`, `(m*2)@0`, a sum of such
/// terms, or `0`.
fn write_stride(f: &mut fmt::Formatter<'_>, stride: &SymInt) -> fmt::Result {
    let Some((components, rest)) = stride.split_linear(&|name| name.starts_with('@')) else {
        return write!(f, "{stride}");
    };
    if components.is_empty() {
        return write!(f, "{rest}");
    }
    for (index, (name, coefficient)) in components.iter().enumerate() {
        if index > 0 {
            f.write_str("+")?;
        }
        match coefficient.as_constant() {
            Some(_) => write!(f, "{coefficient}{name}")?,
            None => write!(f, "({coefficient}){name}")?,
        }
    }
    if !rest.is_static(0) {
        write!(f, "+{rest}")?;
    }
    Ok(())
}

fn write_strides(f: &mut fmt::Formatter<'_>, stride: &IntTuple<SymInt>) -> fmt::Result {
    match stride {
        IntTuple::Int(value) => write_stride(f, value),
        IntTuple::Tuple(modes) => write_tuple(f, modes, |f, _, mode| write_strides(f, mode)),
    }
}

impl fmt::Display for CoordinateLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.layout.shape())?;
        write_strides(f, self.layout.stride())
    }
}
