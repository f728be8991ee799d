//! Reading a warp atom's description back: `warp copy bf16 src=LAYOUT dst=LAYOUT` or
//! `warp mma m16n8k16 f32.bf16.bf16.f32 a=LAYOUT b=LAYOUT c=LAYOUT`, each layout a
//! thread-value layout as CuTe writes it, `(T,V):(S,W)` with `T`, `V`, `S` and `W` a
//! number or a flat tuple.

use super::ReadError;
use super::cursor::{Cursor, type_named};
use crate::ir::Ty;
use crate::warp::{Mode, TvLayout, WarpAtom};

/// The description after `warp`.
pub(super) fn warp_atom(cursor: &mut Cursor<'_>) -> Result<WarpAtom, ReadError> {
    let kind = cursor.word("`copy` or `mma`")?;
    match kind {
        "copy" => {
            let element = cursor.ty()?;
            let src = named_layout(cursor, "src")?;
            let dst = named_layout(cursor, "dst")?;
            Ok(WarpAtom::Copy { element, src, dst })
        }
        "mma" => {
            let shape = cursor.word("a shape such as `m16n8k16`")?;
            let shape = mma_shape(shape)
                .ok_or_else(|| cursor.error(format!("`{shape}` is not an mma shape")))?;
            let types = cursor.word("the types of D, A, B and C")?;
            let parsed: Option<Vec<Ty>> = types.split('.').map(type_named).collect();
            let types: [Ty; 4] = parsed
                .and_then(|types| types.try_into().ok())
                .ok_or_else(|| cursor.error(format!("`{types}` is not four types")))?;
            let a = named_layout(cursor, "a")?;
            let b = named_layout(cursor, "b")?;
            let c = named_layout(cursor, "c")?;
            Ok(WarpAtom::Mma {
                shape,
                types,
                a,
                b,
                c,
            })
        }
        _ => Err(cursor.error(format!("`{kind}` is not a warp atom kind"))),
    }
}

/// `m16n8k16` as `[16, 8, 16]`.
fn mma_shape(text: &str) -> Option<[u32; 3]> {
    let (m, rest) = text.strip_prefix('m')?.split_once('n')?;
    let (n, k) = rest.split_once('k')?;
    Some([m.parse().ok()?, n.parse().ok()?, k.parse().ok()?])
}

/// `name=LAYOUT`.
fn named_layout(cursor: &mut Cursor<'_>, name: &str) -> Result<TvLayout, ReadError> {
    if !cursor.eat_word(name) {
        return Err(cursor.expected(&format!("`{name}=`")));
    }
    cursor.expect("=")?;
    cursor.expect("(")?;
    let thread = tuple(cursor)?;
    cursor.expect(",")?;
    let value = tuple(cursor)?;
    cursor.expect(")")?;
    cursor.expect(":")?;
    cursor.expect("(")?;
    let thread_strides = tuple(cursor)?;
    cursor.expect(",")?;
    let value_strides = tuple(cursor)?;
    cursor.expect(")")?;
    let modes = |extents: Vec<u32>, strides: Vec<u32>| -> Result<Vec<Mode>, ReadError> {
        if extents.len() != strides.len() {
            return Err(cursor.error(format!("`{name}`'s shape and stride differ in rank")));
        }
        Ok(extents
            .into_iter()
            .zip(strides)
            .map(|(extent, stride)| Mode { extent, stride })
            .collect())
    };
    Ok(TvLayout {
        thread: modes(thread, thread_strides)?,
        value: modes(value, value_strides)?,
    })
}

/// A number, or `(n, n, ...)`.
fn tuple(cursor: &mut Cursor<'_>) -> Result<Vec<u32>, ReadError> {
    if !cursor.eat("(") {
        return Ok(vec![cursor.integer("a layout's extent or stride")?]);
    }
    let mut numbers = vec![cursor.integer("a layout's extent or stride")?];
    while cursor.eat(",") {
        numbers.push(cursor.integer("a layout's extent or stride")?);
    }
    cursor.expect(")")?;
    Ok(numbers)
}
