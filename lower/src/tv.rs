//! A warp-collective atom's thread-value layouts as KIR's [`WarpAtom`], which its
//! `Op::Atom` carries so that the emulator moves the warp's values as the stdlib says:
//! a copy atom of 32 threads (`ldmatrix`, `stmatrix`) with its source and destination
//! layouts, an MMA atom with its shape, types and `layout_a/b/c`. An atom of one thread
//! (`cp.async`, the universal copy) has none. A layout that does not fit KIR's form
//! (a negative stride, an extent past 32 bits) gives none too, and the emulator then
//! reports the atom as one it has no model of.

use cute::Atom;
use kir::{Mode, Scope, TvLayout, WARP_LANES, WarpAtom};
use layout::Layout;

use crate::builder::dtype_ty;

/// The description of a copy atom executed by the whole warp.
pub(crate) fn warp_copy(atom: &Atom) -> Option<Box<WarpAtom>> {
    let copy = atom.as_copy()?;
    if copy.threads.size().ok()? != i64::from(WARP_LANES) {
        return None;
    }
    Some(Box::new(WarpAtom::Copy {
        element: dtype_ty(copy.dtypes.0)?,
        src: tv_layout(&copy.src_layout)?,
        dst: tv_layout(&copy.dst_layout)?,
    }))
}

/// The threads that execute `atom` together, from its `threads` (one, a warp's 32 or a
/// warpgroup's 128); `None` for another count.
pub(crate) fn atom_scope(atom: &Atom) -> Option<Scope> {
    let threads = match (atom.as_copy(), atom.as_mma()) {
        (Some(copy), _) => &copy.threads,
        (None, Some(mma)) => &mma.threads,
        (None, None) => return None,
    };
    match threads.size().ok()? {
        1 => Some(Scope::Thread),
        32 => Some(Scope::Warp),
        128 => Some(Scope::Warpgroup),
        _ => None,
    }
}

/// The description of an MMA atom.
pub(crate) fn warp_mma(atom: &Atom) -> Option<Box<WarpAtom>> {
    let mma = atom.as_mma()?;
    let [m, n, k] = mma.shape_mnk.map(|extent| u32::try_from(extent).ok());
    let [d, a, b, c] = mma.dtypes.map(dtype_ty);
    Some(Box::new(WarpAtom::Mma {
        shape: [m?, n?, k?],
        types: [d?, a?, b?, c?],
        a: tv_layout(&mma.layout_a)?,
        b: tv_layout(&mma.layout_b)?,
        c: tv_layout(&mma.layout_c)?,
    }))
}

/// `(thread, value) -> element` with each mode flattened.
fn tv_layout(layout: &Layout<i64>) -> Option<TvLayout> {
    let modes = |index: usize| -> Option<Vec<Mode>> {
        let mode = layout.mode(index).ok()?.flatten();
        let (extents, strides) = (mode.shape().leaves(), mode.stride().leaves());
        extents
            .into_iter()
            .zip(strides)
            .map(|(extent, stride)| {
                Some(Mode {
                    extent: u32::try_from(extent).ok()?,
                    stride: u32::try_from(stride).ok()?,
                })
            })
            .collect()
    };
    (layout.rank() == 2).then_some(())?;
    Some(TvLayout {
        thread: modes(0)?,
        value: modes(1)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use layout::IntTuple;

    #[test]
    fn layouts_flatten_to_thread_and_value_modes() {
        let nested = |parts: &[&[i64]]| {
            IntTuple::Tuple(parts.iter().map(|part| IntTuple::ints(part)).collect())
        };
        let a = Layout::new(
            nested(&[&[4, 8], &[2, 2, 2]]),
            nested(&[&[32, 1], &[16, 8, 128]]),
        )
        .unwrap();
        assert_eq!(
            tv_layout(&a).unwrap().to_string(),
            "((4,8),(2,2,2)):((32,1),(16,8,128))"
        );
        let negative = Layout::new(nested(&[&[32], &[8]]), nested(&[&[8], &[-1]])).unwrap();
        assert_eq!(tv_layout(&negative), None);
    }
}
