//! What a warp-collective atom does, as data: the thread-value layouts of its stdlib
//! atom, carried by the [`crate::Op::Atom`] instruction so that anything executing KIR
//! (the CPU emulator) can move and combine the warp's values without a table of its own
//! per instruction.
//!
//! A [`TvLayout`] maps `(thread, value)` to an element index: thread `t` of the warp
//! (its lane) and value `v` of the thread's part, as CuTe's thread-value layouts do,
//! flattened to a list of `(extent, stride)` modes per side. A [`WarpAtom::Copy`]
//! moves elements: the element that `src` gives to `(t, v)` is the one `dst` gives to
//! the `(t', v')` it lands in. Its memory side (an address operand) holds the thread's
//! values at consecutive addresses from the thread's address; its register side holds
//! them packed in 32-bit words, the lowest value index in the lowest bits. A
//! [`WarpAtom::Mma`] computes `D = A·B + C`, where `a` maps into the `M x K` matrix A
//! column-major (`m + M·k`), `b` into the `N x K` matrix B (`n + N·k`) and `c` into
//! the `M x N` matrices C and D (`m + M·n`); its register lists `a`, `b`, `c` and its
//! output `d` hold the thread's values packed the same way.
//!
//! The text form is CuTe's: `warp copy bf16 src=(32,8):(8,1) dst=(32,(2,4)):(2,(1,64))`
//! and `warp mma m16n8k16 f32.bf16.bf16.f32 a=... b=... c=...`; the verifier checks
//! that the layouts fit the instruction's operands (`verify/warp.rs`).

use std::fmt;

use crate::ir::Ty;

/// The lanes of a warp, which every warp atom's layouts have.
pub const WARP_LANES: u32 = 32;

/// One mode of a flattened layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    /// How many coordinates it has.
    pub extent: u32,
    /// How far apart their elements are.
    pub stride: u32,
}

/// `(thread, value) -> element`, each side a list of modes, the first fastest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TvLayout {
    /// The thread modes.
    pub thread: Vec<Mode>,
    /// The value modes.
    pub value: Vec<Mode>,
}

impl TvLayout {
    /// How many threads it has.
    pub fn threads(&self) -> u64 {
        extent(&self.thread)
    }

    /// How many values each thread has.
    pub fn values(&self) -> u64 {
        extent(&self.value)
    }

    /// The element of value `value` of thread `thread`.
    pub fn element(&self, thread: u64, value: u64) -> u64 {
        offset(&self.thread, thread) + offset(&self.value, value)
    }

    /// The elements of every `(thread, value)`, thread-major: entry `t · values + v`.
    pub fn table(&self) -> Vec<u64> {
        let values = self.values();
        (0..self.threads() * values)
            .map(|index| self.element(index / values, index % values))
            .collect()
    }
}

fn extent(modes: &[Mode]) -> u64 {
    modes.iter().map(|mode| u64::from(mode.extent)).product()
}

/// The offset of linear coordinate `index` (colexicographic, the first mode fastest).
fn offset(modes: &[Mode], mut index: u64) -> u64 {
    let mut offset = 0;
    for mode in modes {
        let extent = u64::from(mode.extent.max(1));
        offset += (index % extent) * u64::from(mode.stride);
        index /= extent;
    }
    offset
}

/// A warp-collective atom's data movement or arithmetic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WarpAtom {
    /// Moves elements of type `element` between a memory side and a register side.
    Copy {
        /// The element type (its width sets the register packing and memory stride).
        element: Ty,
        /// `(thread, value) -> element` of the source.
        src: TvLayout,
        /// `(thread, value) -> element` of the destination.
        dst: TvLayout,
    },
    /// `D = A·B + C` on one `M x N x K` tile.
    Mma {
        /// `M`, `N`, `K`.
        shape: [u32; 3],
        /// The element types of D, A, B and C.
        types: [Ty; 4],
        /// `(thread, value) -> m + M·k`.
        a: TvLayout,
        /// `(thread, value) -> n + N·k`.
        b: TvLayout,
        /// `(thread, value) -> m + M·n`, of C and D.
        c: TvLayout,
    },
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.extent, self.stride)
    }
}

/// `extents` or `(e0,e1,...)`, of `strides` when asked.
fn modes_text(modes: &[Mode], strides: bool) -> String {
    let part = |mode: &Mode| if strides { mode.stride } else { mode.extent };
    match modes {
        [mode] => part(mode).to_string(),
        _ => {
            let parts: Vec<String> = modes.iter().map(|mode| part(mode).to_string()).collect();
            format!("({})", parts.join(","))
        }
    }
}

impl fmt::Display for TvLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "({},{}):({},{})",
            modes_text(&self.thread, false),
            modes_text(&self.value, false),
            modes_text(&self.thread, true),
            modes_text(&self.value, true)
        )
    }
}

impl fmt::Display for WarpAtom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WarpAtom::Copy { element, src, dst } => {
                write!(f, "copy {} src={src} dst={dst}", element.name())
            }
            WarpAtom::Mma {
                shape: [m, n, k],
                types,
                a,
                b,
                c,
            } => {
                let types: Vec<&str> = types.iter().map(|ty| ty.name()).collect();
                write!(f, "mma m{m}n{n}k{k} {} a={a} b={b} c={c}", types.join("."))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modes(pairs: &[(u32, u32)]) -> Vec<Mode> {
        pairs
            .iter()
            .map(|&(extent, stride)| Mode { extent, stride })
            .collect()
    }

    #[test]
    fn elements_follow_cute_colexicographic_order() {
        // SM80's A operand of m16n8k16: ((4,8),(2,2,2)):((32,1),(16,8,128)).
        let a = TvLayout {
            thread: modes(&[(4, 32), (8, 1)]),
            value: modes(&[(2, 16), (2, 8), (2, 128)]),
        };
        assert_eq!((a.threads(), a.values()), (32, 8));
        // Lane 5 is (1, 1): row 1, columns 2 and 3, 10 and 11 of the 16 x 16 tile.
        assert_eq!(a.element(5, 0), 1 + 16 * 2);
        assert_eq!(a.element(5, 1), 1 + 16 * 3);
        assert_eq!(a.element(5, 2), 9 + 16 * 2);
        assert_eq!(a.element(5, 7), 9 + 16 * 11);
        let mut table = a.table();
        table.sort_unstable();
        assert_eq!(table, (0..256).collect::<Vec<u64>>());
        assert_eq!(a.to_string(), "((4,8),(2,2,2)):((32,1),(16,8,128))");
        let rows = TvLayout {
            thread: modes(&[(32, 8)]),
            value: modes(&[(8, 1)]),
        };
        assert_eq!(rows.to_string(), "(32,8):(8,1)");
    }
}
