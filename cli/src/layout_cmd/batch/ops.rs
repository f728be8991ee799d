//! The op table of LAYOUT-QUERIES.md: one small function per op family, each reading
//! its fields from a [`Query`] and calling the `layout` crate.

use layout::{IntTuple, Layout};
use serde_json::Value;

use super::query::{Query, QueryError};

/// A successful answer: the result, and for `slice` the offset of the slice's origin.
pub struct Outcome {
    /// The `"result"` value.
    pub result: Value,
    /// The `"offset"` value, for `slice` only.
    pub offset: Option<Value>,
}

impl Outcome {
    fn of(result: Value) -> Outcome {
        Outcome {
            result,
            offset: None,
        }
    }

    fn layout(layout: &Layout) -> Outcome {
        Outcome::of(Value::from(layout.to_string()))
    }

    fn int_tuple(tuple: &IntTuple) -> Outcome {
        match tuple {
            IntTuple::Int(value) => Outcome::of(Value::from(*value)),
            IntTuple::Tuple(_) => Outcome::of(Value::from(tuple.to_string())),
        }
    }
}

type Answer = Result<Outcome, QueryError>;

/// The most entries a `table` or `swizzle_table` answer lists (about 8 MB of JSON).
const TABLE_LIMIT: u64 = 1 << 20;

/// Answers the query named `op`.
pub fn answer(op: &str, query: &Query) -> Answer {
    match op {
        "size" | "cosize" | "rank" | "depth" | "evaluate" | "slice" | "table" => {
            layout_query(op, query)
        }
        "coalesce" | "filter" => simplification(op, query),
        "composition" | "complement" | "right_inverse" | "left_inverse" => algebra(op, query),
        "logical_divide" | "zipped_divide" | "tiled_divide" | "flat_divide" => division(op, query),
        "logical_product" | "zipped_product" | "tiled_product" | "flat_product"
        | "blocked_product" | "raked_product" => product(op, query),
        "swizzle" | "swizzle_table" => swizzle(op, query),
        "product" | "inner_product" | "shape_div" | "prefix_product" | "idx2crd" | "crd2idx" => {
            int_tuple_arithmetic(op, query)
        }
        _ => Err(QueryError::new(format!(
            "unknown op `{op}` (LAYOUT-QUERIES.md lists the ops)"
        ))),
    }
}

/// Queries of one layout: its size, cosize, rank, depth, values, slices.
fn layout_query(op: &str, query: &Query) -> Answer {
    let a = query.layout("a")?;
    Ok(match op {
        "size" => Outcome::of(Value::from(a.size()?)),
        "cosize" => Outcome::of(Value::from(a.cosize()?)),
        "rank" => Outcome::of(Value::from(a.rank())),
        "depth" => Outcome::of(Value::from(a.depth())),
        "evaluate" => Outcome::of(Value::from(a.evaluate(&query.int_tuple("coord")?)?)),
        "slice" => {
            let (sliced, offset) = layout::slice_and_offset(&query.coord("coord")?, &a)?;
            Outcome {
                result: Value::from(sliced.to_string()),
                offset: Some(Value::from(offset)),
            }
        }
        _ => Outcome::of(Value::from(a.table(TABLE_LIMIT)?)),
    })
}

/// `coalesce` and `filter`, whole or within the leaves of a `profile`.
fn simplification(op: &str, query: &Query) -> Answer {
    let a = query.layout("a")?;
    let profile = query.optional_int_tuple("profile")?;
    let simplified = match (op, &profile) {
        ("coalesce", None) => layout::coalesce(&a)?,
        ("coalesce", Some(profile)) => layout::coalesce_by(&a, profile)?,
        (_, None) => layout::filter(&a)?,
        (_, Some(profile)) => layout::filter_by(&a, profile)?,
    };
    Ok(Outcome::layout(&simplified))
}

/// `composition`, `complement` and the two inverses.
fn algebra(op: &str, query: &Query) -> Answer {
    let a = query.layout("a")?;
    let result = match op {
        "composition" => layout::composition(&a, &query.tiler("b")?)?,
        "complement" => {
            let cotarget = query.optional_int("cotarget")?.map(IntTuple::Int);
            layout::complement(&a, cotarget.as_ref())?
        }
        "right_inverse" => layout::right_inverse(&a)?,
        _ => layout::left_inverse(&a)?,
    };
    Ok(Outcome::layout(&result))
}

/// The four divides of a layout by a tiler.
fn division(op: &str, query: &Query) -> Answer {
    let (a, b) = (query.layout("a")?, query.tiler("b")?);
    let result = match op {
        "logical_divide" => layout::logical_divide(&a, &b)?,
        "zipped_divide" => layout::zipped_divide(&a, &b)?,
        "tiled_divide" => layout::tiled_divide(&a, &b)?,
        _ => layout::flat_divide(&a, &b)?,
    };
    Ok(Outcome::layout(&result))
}

/// The four products by a tiler, and the rank-sensitive blocked and raked products of
/// two layouts.
fn product(op: &str, query: &Query) -> Answer {
    let a = query.layout("a")?;
    let result = match op {
        "blocked_product" => layout::blocked_product(&a, &query.layout("b")?)?,
        "raked_product" => layout::raked_product(&a, &query.layout("b")?)?,
        "logical_product" => layout::logical_product(&a, &query.tiler("b")?)?,
        "zipped_product" => layout::zipped_product(&a, &query.tiler("b")?)?,
        "tiled_product" => layout::tiled_product(&a, &query.tiler("b")?)?,
        _ => layout::flat_product(&a, &query.tiler("b")?)?,
    };
    Ok(Outcome::layout(&result))
}

/// A swizzle of one offset (`x`, or `offset + a(coord)`), or its table: over `0..n`
/// (default: the swizzle's domain), or over a layout `a`'s domain (`swizzle ∘ offset ∘ a`).
fn swizzle(op: &str, query: &Query) -> Answer {
    let swizzle =
        layout::swizzle::Swizzle::new(query.int("bits")?, query.int("base")?, query.int("shift")?)
            .map_err(|error| QueryError::new(error.to_string()))?;
    if op == "swizzle_table" {
        return swizzle_table(&swizzle, query);
    }
    let offset = if query.has("x") {
        query.int("x")?
    } else {
        let value = query.layout("a")?.evaluate(&query.int_tuple("coord")?)?;
        let base = query.optional_int("offset")?.unwrap_or(0);
        base.checked_add(value)
            .ok_or_else(|| QueryError::new("`offset + a(coord)` overflows 64 bits"))?
    };
    Ok(Outcome::of(Value::from(swizzle.apply(offset))))
}

/// The values of `swizzle` over `0..n`, or of `swizzle ∘ offset ∘ a` over `a`'s domain.
fn swizzle_table(swizzle: &layout::swizzle::Swizzle, query: &Query) -> Answer {
    if query.has("a") {
        if query.has("n") {
            return Err(QueryError::new(
                "`n` and `a` exclude each other: a table over a layout spans its domain",
            ));
        }
        let offset = query.optional_int("offset")?.unwrap_or(0);
        let composed = layout::ComposedLayout::new(*swizzle, offset, query.layout("a")?);
        return Ok(Outcome::of(Value::from(composed.table(TABLE_LIMIT)?)));
    }
    let count = match query.optional_int("n")? {
        Some(count) => count,
        None => swizzle.size(),
    };
    if u64::try_from(count).map_or(true, |count| count > TABLE_LIMIT) {
        let what = if query.has("n") {
            "`n`"
        } else {
            "the swizzle's domain size"
        };
        return Err(QueryError::new(format!(
            "{what} must lie in 0..={TABLE_LIMIT}, not {count}"
        )));
    }
    Ok(Outcome::of(
        (0..count).map(|offset| swizzle.apply(offset)).collect(),
    ))
}

/// The int-tuple functions: `product`, `inner_product`, `shape_div`,
/// `prefix_product`, `idx2crd` and `crd2idx`.
fn int_tuple_arithmetic(op: &str, query: &Query) -> Answer {
    let one = IntTuple::Int(1);
    match op {
        "product" => Ok(Outcome::of(Value::from(query.int_tuple("a")?.product()?))),
        "inner_product" => Ok(Outcome::of(Value::from(layout::inner_product(
            &query.int_tuple("a")?,
            &query.int_tuple("b")?,
        )?))),
        "shape_div" => Ok(Outcome::int_tuple(&layout::shape_div(
            &query.int_tuple("a")?,
            &query.int_tuple("b")?,
        )?)),
        "prefix_product" => {
            let init = query.optional_int_tuple("init")?.unwrap_or(one);
            Ok(Outcome::int_tuple(&layout::prefix_product(
                &query.int_tuple("a")?,
                &init,
            )?))
        }
        "idx2crd" => {
            let (index, shape) = (query.int_tuple("idx")?, query.int_tuple("shape")?);
            let coord = match query.optional_int_tuple("stride")? {
                Some(stride) => layout::idx2crd_strided(&index, &shape, &stride)?,
                None => layout::idx2crd(&index, &shape)?,
            };
            Ok(Outcome::int_tuple(&coord))
        }
        _ => {
            let shape = query.int_tuple("shape")?;
            let stride = match query.optional_int_tuple("stride")? {
                Some(stride) => stride,
                None => layout::prefix_product(&shape, &one)?,
            };
            Ok(Outcome::of(Value::from(layout::crd2idx(
                &query.int_tuple("coord")?,
                &shape,
                &stride,
            )?)))
        }
    }
}
