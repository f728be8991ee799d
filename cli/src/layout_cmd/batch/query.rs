//! One parsed query line: typed access to its fields, with errors that name the field
//! and say what was expected.

use std::fmt;

use layout::{Coord, IntTuple, Layout, LayoutError, Tiler};
use serde_json::{Map, Value};

/// Why a query could not be answered, in words.
#[derive(Debug)]
pub struct QueryError(String);

impl QueryError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> QueryError {
        QueryError(message.into())
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<LayoutError> for QueryError {
    fn from(error: LayoutError) -> QueryError {
        QueryError(error.to_string())
    }
}

/// The fields of one query object.
pub struct Query<'a> {
    fields: &'a Map<String, Value>,
}

impl<'a> Query<'a> {
    /// Wraps a query's JSON object.
    pub fn new(fields: &'a Map<String, Value>) -> Query<'a> {
        Query { fields }
    }

    /// Whether the query has the field `name`.
    pub fn has(&self, name: &str) -> bool {
        self.fields.contains_key(name)
    }

    fn required(&self, name: &str) -> Result<&'a Value, QueryError> {
        self.fields
            .get(name)
            .ok_or_else(|| QueryError(format!("missing field `{name}`")))
    }

    /// The text of a field that must be a string in CuTe notation.
    fn text(&self, name: &str, what: &str) -> Result<&'a str, QueryError> {
        let value = self.required(name)?;
        value.as_str().ok_or_else(|| {
            QueryError(format!(
                "field `{name}` must be {what} as a string, not {value}"
            ))
        })
    }

    /// Reads field `name` with `parse`, prefixing a parse error with the field name.
    fn parsed<T>(
        &self,
        name: &str,
        what: &str,
        parse: impl FnOnce(&str) -> Result<T, LayoutError>,
    ) -> Result<T, QueryError> {
        let text = self.text(name, what)?;
        parse(text).map_err(|error| {
            QueryError(format!("field `{name}` ({text:?}) is not {what}: {error}"))
        })
    }

    /// Field `name` as a layout `shape:stride` (or a shape, column-major).
    pub fn layout(&self, name: &str) -> Result<Layout, QueryError> {
        self.parsed(name, "a layout", layout::parse_layout)
    }

    /// Field `name` as a tiler.
    pub fn tiler(&self, name: &str) -> Result<Tiler, QueryError> {
        match self.required(name)?.as_i64() {
            Some(extent) => Ok(Tiler::extent(extent)?),
            None => self.parsed(name, "a tiler", layout::parse_tiler),
        }
    }

    /// Field `name` as a coordinate whose leaves may be `_`: a JSON integer or text.
    pub fn coord(&self, name: &str) -> Result<Coord, QueryError> {
        match self.required(name)?.as_i64() {
            Some(value) => Ok(Coord::Int(value)),
            None => self.parsed(name, "a coordinate", layout::parse_coord),
        }
    }

    /// Field `name` as an int-tuple: a JSON integer or text.
    pub fn int_tuple(&self, name: &str) -> Result<IntTuple, QueryError> {
        match self.required(name)?.as_i64() {
            Some(value) => Ok(IntTuple::Int(value)),
            None => self.parsed(name, "an int-tuple", layout::parse_int_tuple),
        }
    }

    /// Field `name` as an int-tuple, if present.
    pub fn optional_int_tuple(&self, name: &str) -> Result<Option<IntTuple>, QueryError> {
        self.optional(name, Query::int_tuple)
    }

    /// Field `name` as an integer: a JSON integer, or text holding one.
    pub fn int(&self, name: &str) -> Result<i64, QueryError> {
        let value = self.required(name)?;
        match self.int_tuple(name) {
            Ok(IntTuple::Int(integer)) => Ok(integer),
            Ok(tuple) => Err(QueryError(format!(
                "field `{name}` must be an integer, not the tuple {tuple}"
            ))),
            Err(_) => Err(QueryError(format!(
                "field `{name}` must be an integer, not {value}"
            ))),
        }
    }

    /// Field `name` as an integer, if present.
    pub fn optional_int(&self, name: &str) -> Result<Option<i64>, QueryError> {
        self.optional(name, Query::int)
    }

    fn optional<T>(
        &self,
        name: &str,
        read: impl FnOnce(&Self, &str) -> Result<T, QueryError>,
    ) -> Result<Option<T>, QueryError> {
        if self.has(name) {
            read(self, name).map(Some)
        } else {
            Ok(None)
        }
    }
}
