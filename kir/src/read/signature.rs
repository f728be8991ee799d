//! Reading a kernel's signature back from the lines [`crate::to_text`] prints between
//! `kernel ENTRY {` and the first instruction: `instance of`, `const`, `param`,
//! `launch` and `assume`, with host expressions as [`HostExpr`]'s `Display` writes
//! them.

use super::ReadError;
use super::cursor::Cursor;
use crate::signature::{
    Alignment, Assumption, ConstValue, Element, ElementRequirement, ElementRule, HostExpr,
    IntParam, Param, ParamKind, ScalarParam, Signature, TensorMap,
};

/// How deeply host expressions may nest: deeper is garbage, refused before the
/// recursion could exhaust the stack.
const MAX_EXPRESSION_DEPTH: usize = 64;

/// Reads one signature line into `signature`; `Ok(false)` when the line is not one
/// (it starts the instructions). `launched` records whether `launch` was read.
pub(super) fn signature_line(
    cursor: &mut Cursor<'_>,
    signature: &mut Signature,
    launched: &mut bool,
) -> Result<bool, ReadError> {
    if cursor.eat_word("instance") {
        cursor.expect("of")?;
        signature.name = cursor.word("the kernel's source name")?.to_owned();
    } else if cursor.eat_word("const") {
        let name = cursor.word("a const parameter's name")?.to_owned();
        cursor.expect("=")?;
        let value = match cursor.integer::<i64>("the const parameter's value") {
            Ok(value) => ConstValue::Int(value),
            Err(_) => ConstValue::Dtype(cursor.word("the const parameter's value")?.to_owned()),
        };
        signature.const_args.push((name, value));
    } else if cursor.eat_word("param") {
        let index: usize = cursor.integer("the parameter's index")?;
        if index != signature.params.len() {
            return Err(cursor.error(format!(
                "parameter {index} where parameter {} comes next",
                signature.params.len()
            )));
        }
        let name = cursor
            .until(':', "`:` after the parameter's name")?
            .to_owned();
        cursor.expect(":")?;
        let kind = param_kind(cursor)?;
        signature.params.push(Param { name, kind });
    } else if cursor.eat_word("launch") {
        if std::mem::replace(launched, true) {
            return Err(cursor.error("a second `launch`"));
        }
        cursor.expect("grid(")?;
        signature.launch.grid = dims(cursor)?;
        cursor.expect("block(")?;
        signature.launch.block = dims(cursor)?;
        if cursor.eat("cluster(") {
            signature.launch.cluster = cluster(cursor)?;
        }
        cursor.expect("smem(")?;
        signature.launch.shared_bytes = cursor.integer("the shared bytes")?;
        cursor.expect("bytes")?;
        cursor.expect(")")?;
    } else if cursor.eat_word("assume") {
        assumption(cursor, signature)?;
    } else {
        return Ok(false);
    }
    if cursor.at_end() {
        Ok(true)
    } else {
        Err(cursor.expected("the end of the line"))
    }
}

/// `%P is a multiple of M: reason`, `%P is aligned to B bytes: reason`, `%P elements
/// in LOW..HIGH ; line L` or `%P offsets to TOTAL [steps at most MAX] ; line L`.
fn assumption(cursor: &mut Cursor<'_>, signature: &mut Signature) -> Result<(), ReadError> {
    let param = cursor.value()?.0 as usize;
    let rule = if cursor.eat_word("elements") {
        cursor.expect("in")?;
        let low = host_expr(cursor, 0)?;
        cursor.expect("..")?;
        let high = host_expr(cursor, 0)?;
        Some(ElementRule::Range { low, high })
    } else if cursor.eat_word("offsets") {
        cursor.expect("to")?;
        let total = host_expr(cursor, 0)?;
        let max_step = if cursor.eat_word("steps") {
            cursor.expect("at")?;
            cursor.expect("most")?;
            Some(host_expr(cursor, 0)?)
        } else {
            None
        };
        Some(ElementRule::Offsets { total, max_step })
    } else {
        None
    };
    if let Some(rule) = rule {
        let span = super::line_span(cursor)?;
        signature
            .element_requirements
            .push(ElementRequirement { param, rule, span });
        return Ok(());
    }
    cursor.expect("is")?;
    if cursor.eat_word("a") {
        cursor.expect("multiple")?;
        cursor.expect("of")?;
        let multiple = cursor.integer("the multiple")?;
        cursor.expect(":")?;
        let reason = cursor.rest().to_owned();
        signature.assumptions.push(Assumption {
            param,
            multiple,
            reason,
        });
    } else {
        cursor.expect("aligned")?;
        cursor.expect("to")?;
        let bytes = cursor.integer("the alignment")?;
        cursor.expect("bytes")?;
        cursor.expect(":")?;
        let reason = cursor.rest().to_owned();
        signature.alignments.push(Alignment {
            param,
            bytes,
            reason,
        });
    }
    Ok(())
}

/// `i32`, `f32`, `bool`, or `tensor bf16 shape(%0, %1) strides(%1, 1)`.
fn param_kind(cursor: &mut Cursor<'_>) -> Result<ParamKind, ReadError> {
    let word = cursor.word("a parameter kind")?;
    if let Some(int) = IntParam::from_name(word) {
        return Ok(ParamKind::Int(int));
    }
    if let Some(scalar) = ScalarParam::from_name(word) {
        return Ok(ParamKind::Scalar(scalar));
    }
    if word == "tensor_map" {
        return tensor_map(cursor);
    }
    if word != "tensor" {
        return Err(cursor.error(format!("`{word}` is not a parameter kind")));
    }
    let name = cursor.word("an element type")?;
    let dtype =
        Element::from_name(name).ok_or_else(|| cursor.error(format!("`{name}` is no dtype")))?;
    cursor.expect("shape(")?;
    let shape = list(cursor)?;
    cursor.expect("strides(")?;
    let strides = list(cursor)?;
    Ok(ParamKind::Tensor {
        dtype,
        shape,
        strides,
    })
}

/// `a, b, c)` after an opening parenthesis.
fn dims(cursor: &mut Cursor<'_>) -> Result<[HostExpr; 3], ReadError> {
    let exprs = list(cursor)?;
    <[HostExpr; 3]>::try_from(exprs).map_err(|_| cursor.error("expected three dimensions"))
}

/// `X, Y, Z)`: a cluster's three positive extents.
fn cluster(cursor: &mut Cursor<'_>) -> Result<[u32; 3], ReadError> {
    let mut extents = [1; 3];
    for (axis, extent) in extents.iter_mut().enumerate() {
        if axis > 0 {
            cursor.expect(",")?;
        }
        *extent = cursor.integer("a cluster extent")?;
    }
    cursor.expect(")")?;
    Ok(extents)
}

/// Expressions separated by commas up to a closing parenthesis (taken).
fn list(cursor: &mut Cursor<'_>) -> Result<Vec<HostExpr>, ReadError> {
    let mut exprs = Vec::new();
    if cursor.eat(")") {
        return Ok(exprs);
    }
    loop {
        exprs.push(host_expr(cursor, 0)?);
        if cursor.eat(")") {
            return Ok(exprs);
        }
        cursor.expect(",")?;
    }
}

/// A host expression: `7`, `%2`, `(a + b)` (also `*`, `/`, `%`), `ceil_div(a, b)`.
fn host_expr(cursor: &mut Cursor<'_>, depth: usize) -> Result<HostExpr, ReadError> {
    if depth > MAX_EXPRESSION_DEPTH {
        return Err(cursor.error("a host expression nests too deeply"));
    }
    let boxed = |cursor: &mut Cursor<'_>| host_expr(cursor, depth + 1).map(Box::new);
    if cursor.peek("%") {
        return Ok(HostExpr::Param(cursor.value()?.0 as usize));
    }
    if cursor.eat("ceil_div(") {
        let a = boxed(cursor)?;
        cursor.expect(",")?;
        let b = boxed(cursor)?;
        cursor.expect(")")?;
        return Ok(HostExpr::CeilDiv(a, b));
    }
    if cursor.eat("(") {
        let a = boxed(cursor)?;
        let make: fn(Box<HostExpr>, Box<HostExpr>) -> HostExpr = if cursor.eat("+") {
            HostExpr::Add
        } else if cursor.eat("*") {
            HostExpr::Mul
        } else if cursor.eat("/") {
            HostExpr::Div
        } else if cursor.eat("%") {
            HostExpr::Rem
        } else {
            return Err(cursor.expected("`+`, `*`, `/` or `%`"));
        };
        let b = boxed(cursor)?;
        cursor.expect(")")?;
        return Ok(make(a, b));
    }
    Ok(HostExpr::Const(cursor.integer("a host expression")?))
}

/// `%3 modes(1, 0) box(64, 128) swizzle(128)`, after `tensor_map`.
fn tensor_map(cursor: &mut Cursor<'_>) -> Result<ParamKind, ReadError> {
    let tensor = cursor.value()?.0 as usize;
    cursor.expect("modes(")?;
    let modes = numbers(cursor, "a mode")?;
    cursor.expect("box(")?;
    let box_shape = numbers(cursor, "a box extent")?;
    cursor.expect("swizzle(")?;
    let swizzle = cursor.integer("the swizzle's bytes")?;
    cursor.expect(")")?;
    Ok(ParamKind::TensorMap(TensorMap {
        tensor,
        modes,
        box_shape,
        swizzle,
    }))
}

/// `a, b, c)`: numbers up to the closing parenthesis.
fn numbers<T: std::str::FromStr>(cursor: &mut Cursor<'_>, what: &str) -> Result<Vec<T>, ReadError> {
    let mut numbers = Vec::new();
    loop {
        numbers.push(cursor.integer(what)?);
        if cursor.eat(")") {
            return Ok(numbers);
        }
        cursor.expect(",")?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_expressions_read_what_display_writes() {
        let text = "ceil_div(((%1 + -3) * 2), (%0 % (7 / %2)))";
        let expr = host_expr(&mut Cursor::new(1, text), 0).unwrap();
        assert_eq!(expr.to_string(), text);
        let deep = format!("{}1{}", "(1 + ".repeat(100), ")".repeat(100));
        let error = host_expr(&mut Cursor::new(3, &deep), 0).unwrap_err();
        assert!(
            error.line == 3 && error.problem.contains("too deeply"),
            "{error}"
        );
    }

    #[test]
    fn element_requirements_read_what_the_text_writes() {
        let mut signature = Signature::empty("k");
        let mut launched = false;
        for text in [
            "assume %1 elements in 0..(%0 + 1) ; line 4",
            "assume %1 offsets to %0 ; line 5",
            "assume %2 offsets to (%0 * 2) steps at most %3 ; line 6",
        ] {
            let mut cursor = Cursor::new(1, text);
            assert_eq!(
                signature_line(&mut cursor, &mut signature, &mut launched),
                Ok(true)
            );
        }
        let rules: Vec<(usize, String, u32)> = (signature.element_requirements.iter())
            .map(|requirement| {
                let rule = match &requirement.rule {
                    ElementRule::Range { low, high } => format!("{low}..{high}"),
                    ElementRule::Offsets { total, max_step } => {
                        format!("offsets {total} {max_step:?}")
                    }
                };
                (requirement.param, rule, requirement.span.start)
            })
            .collect();
        assert_eq!(
            rules,
            [
                (1, "0..(%0 + 1)".to_owned(), 4),
                (1, "offsets %0 None".to_owned(), 5),
                (2, "offsets (%0 * 2) Some(Param(3))".to_owned(), 6),
            ]
        );
        let truncated = "assume %1 offsets to %0 steps at ; line 7";
        assert!(
            signature_line(
                &mut Cursor::new(7, truncated),
                &mut signature,
                &mut launched
            )
            .is_err()
        );
    }

    #[test]
    fn tensor_maps_read_what_display_writes() {
        let text = "tensor_map %2 modes(1, 0) box(64, 128) swizzle(128)";
        let kind = param_kind(&mut Cursor::new(1, text)).unwrap();
        let ParamKind::TensorMap(map) = &kind else {
            panic!("{kind:?} is not a tensor map");
        };
        assert_eq!((map.tensor, map.modes.as_slice()), (2, [1, 0].as_slice()));
        assert_eq!(
            (map.box_shape.as_slice(), map.swizzle),
            ([64, 128].as_slice(), 128)
        );
        assert_eq!(map.box_bytes(2), 64 * 128 * 2);
        assert_eq!(kind.to_string(), text);
        let truncated = param_kind(&mut Cursor::new(1, "tensor_map %2 modes(1, 0) box(64"));
        assert!(truncated.is_err());
    }
}
