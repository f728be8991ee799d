//! What can go wrong in the atom layer: a layout operation, atom facts that disagree
//! with each other or with a tiling, or a tile coordinate of the wrong rank.
//!
//! The checker turns each into a diagnostic at the user's line; the sentences here
//! are the part of its message that says what is wrong.

use std::fmt;

use layout::LayoutError;

/// An error of the atom layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A layout operation failed.
    Layout(LayoutError),
    /// An atom's facts, or a tiling of it, disagree; the sentence says how.
    Inconsistent(String),
    /// A `local_tile` coordinate has more modes than there are tile counts to index.
    TileCoordinate {
        /// Modes of the coordinate.
        modes: usize,
        /// Tile counts of the divided tensor.
        tile_counts: usize,
    },
}

impl From<LayoutError> for Error {
    fn from(error: LayoutError) -> Error {
        Error::Layout(error)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Layout(error) => write!(f, "{error}"),
            Error::Inconsistent(sentence) => f.write_str(sentence),
            Error::TileCoordinate { modes, tile_counts } => write!(
                f,
                "the tile coordinate has {modes} modes but there are {tile_counts} tile counts to index"
            ),
        }
    }
}

impl std::error::Error for Error {}
