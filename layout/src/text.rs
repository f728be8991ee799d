//! Parsing CuTe notation: int-tuples, layouts, tilers, slice coordinates and symbolic
//! integers.
//!
//! ```text
//! element := primary [":" primary]
//! primary := "_" | "(" element ("," element)* [","] ")" | "<" ... ">" | expr
//! expr    := term (("+" | "-") term)*      term := unary ("*" unary)*
//! unary   := "-" unary | INT | "_" INT | IDENT | ("ceil_div" | "div" | "mod") "(" expr "," expr ")"
//! ```
//! `_4` and `_-1` are CuTe's printed form of compile-time integers and read as `4` and `-1`,
//! so layouts printed by C++ CuTe paste in unchanged.
//! Text is first read into a small syntax tree, then converted to the requested type,
//! so one grammar serves every entry point. Whitespace is ignored. Errors carry the
//! 1-based character column. Printing is the `Display` of each type.

use std::str::FromStr;

use crate::{Coord, Int, IntTuple, Layout, LayoutError, MAX_DEPTH, SymInt, Tiler};

/// A parsed element before it is given a type.
enum Node {
    Leaf(SymInt, usize),
    Underscore(usize),
    /// A tuple; `angle` when written with `<...>`.
    Tuple {
        items: Vec<Node>,
        angle: bool,
        column: usize,
    },
    /// `shape:stride`.
    Pair(Box<Node>, Box<Node>, usize),
}

impl Node {
    fn column(&self) -> usize {
        match self {
            Node::Leaf(_, column) | Node::Underscore(column) | Node::Pair(_, _, column) => *column,
            Node::Tuple { column, .. } => *column,
        }
    }
}

struct Parser {
    chars: Vec<char>,
    position: usize,
    depth: usize,
}

fn error(column: usize, expected: &str, found: String) -> LayoutError {
    LayoutError::Parse {
        column,
        expected: expected.to_owned(),
        found,
    }
}

impl Parser {
    fn new(text: &str) -> Parser {
        Parser {
            chars: text.chars().collect(),
            position: 0,
            depth: 0,
        }
    }

    fn skip_whitespace(&mut self) {
        while self
            .chars
            .get(self.position)
            .is_some_and(|c| c.is_whitespace())
        {
            self.position += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_whitespace();
        self.chars.get(self.position).copied()
    }

    fn column(&mut self) -> usize {
        self.skip_whitespace();
        self.position + 1
    }

    fn found(&mut self) -> String {
        match self.peek() {
            Some(c) => format!("`{c}`"),
            None => "end of input".to_owned(),
        }
    }

    fn text_since(&self, start: usize) -> String {
        self.chars
            .get(start..self.position)
            .unwrap_or_default()
            .iter()
            .collect()
    }

    fn expect(&mut self, wanted: char) -> Result<(), LayoutError> {
        if self.peek() == Some(wanted) {
            self.position += 1;
            return Ok(());
        }
        let column = self.column();
        Err(error(column, &format!("`{wanted}`"), self.found()))
    }

    fn enter(&mut self) -> Result<(), LayoutError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(LayoutError::TooDeep { limit: MAX_DEPTH });
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), LayoutError> {
        if self.peek().is_some() {
            let column = self.column();
            return Err(error(column, "end of input", self.found()));
        }
        Ok(())
    }

    fn element(&mut self) -> Result<Node, LayoutError> {
        let column = self.column();
        let first = self.primary()?;
        if self.peek() != Some(':') {
            return Ok(first);
        }
        self.position += 1;
        let second = self.primary()?;
        Ok(Node::Pair(Box::new(first), Box::new(second), column))
    }

    fn primary(&mut self) -> Result<Node, LayoutError> {
        let column = self.column();
        match self.peek() {
            Some(open @ ('(' | '<')) => {
                self.position += 1;
                self.enter()?;
                let close = if open == '(' { ')' } else { '>' };
                let mut items = vec![self.element()?];
                while self.peek() == Some(',') {
                    self.position += 1;
                    if self.peek() == Some(close) {
                        break;
                    }
                    items.push(self.element()?);
                }
                self.expect(close)?;
                self.depth -= 1;
                Ok(Node::Tuple {
                    items,
                    angle: open == '<',
                    column,
                })
            }
            Some('_')
                if !self.static_integer_follows()
                    && !self
                        .chars
                        .get(self.position + 1)
                        .is_some_and(|c| is_identifier_char(*c)) =>
            {
                self.position += 1;
                Ok(Node::Underscore(column))
            }
            _ => Ok(Node::Leaf(self.expression()?, column)),
        }
    }

    fn expression(&mut self) -> Result<SymInt, LayoutError> {
        let mut sum = self.term()?;
        while let Some(sign @ ('+' | '-')) = self.peek() {
            self.position += 1;
            let term = self.term()?;
            sum = if sign == '+' {
                sum.add(&term)?
            } else {
                sum.sub(&term)?
            };
        }
        Ok(sum)
    }

    fn term(&mut self) -> Result<SymInt, LayoutError> {
        let mut product = self.unary()?;
        while self.peek() == Some('*') {
            self.position += 1;
            product = product.mul(&self.unary()?)?;
        }
        Ok(product)
    }

    fn unary(&mut self) -> Result<SymInt, LayoutError> {
        let column = self.column();
        match self.peek() {
            Some('-') => {
                self.position += 1;
                if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    return self.integer(true);
                }
                self.enter()?;
                let value = self.unary()?.mul(&SymInt::constant(-1))?;
                self.depth -= 1;
                Ok(value)
            }
            Some(c) if c.is_ascii_digit() => self.integer(false),
            // CuTe prints a compile-time integer with a leading underscore: `_4`, `_-1`.
            Some('_') if self.static_integer_follows() => {
                self.position += 1;
                let negative = self.chars.get(self.position) == Some(&'-');
                self.position += usize::from(negative);
                self.integer(negative)
            }
            Some(c) if c.is_alphabetic() || c == '_' => {
                let start = self.position;
                while self
                    .chars
                    .get(self.position)
                    .is_some_and(|c| is_identifier_char(*c))
                {
                    self.position += 1;
                }
                let name = self.text_since(start);
                if name == "_" {
                    // `_` alone is a slicing wildcard, never a variable.
                    return Err(error(column, "an integer, a name or `(`", "`_`".to_owned()));
                }
                if self.peek() != Some('(') || !matches!(name.as_str(), "ceil_div" | "div" | "mod")
                {
                    return Ok(SymInt::variable(&name));
                }
                self.position += 1;
                self.enter()?;
                let left = self.expression()?;
                self.expect(',')?;
                let right = self.expression()?;
                self.expect(')')?;
                self.depth -= 1;
                match name.as_str() {
                    "ceil_div" => left.ceil_div(&right),
                    "div" => left.div(&right),
                    _ => left.rem(&right),
                }
            }
            _ => Err(error(column, "an integer, a name or `(`", self.found())),
        }
    }

    /// Whether the text at the cursor is `_` then digits, or `_-` then digits.
    fn static_integer_follows(&self) -> bool {
        let after_underscore = match self.chars.get(self.position + 1) {
            Some('-') => self.position + 2,
            _ => self.position + 1,
        };
        self.chars
            .get(after_underscore)
            .is_some_and(|c| c.is_ascii_digit())
    }

    fn integer(&mut self, negative: bool) -> Result<SymInt, LayoutError> {
        let column = self.column();
        let start = self.position;
        while self
            .chars
            .get(self.position)
            .is_some_and(|c| c.is_ascii_digit())
        {
            self.position += 1;
        }
        let digits = self.text_since(start);
        let text = if negative {
            format!("-{digits}")
        } else {
            digits
        };
        text.parse::<i64>().map(SymInt::constant).map_err(|_| {
            error(
                column,
                "an integer that fits in 64 bits",
                format!("`{text}`"),
            )
        })
    }
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn parse_node(text: &str) -> Result<Node, LayoutError> {
    let mut parser = Parser::new(text);
    let node = parser.element()?;
    parser.finish()?;
    Ok(node)
}

fn leaf<I: Int>(value: &SymInt, column: usize) -> Result<I, LayoutError> {
    I::from_symbolic(value).ok_or_else(|| error(column, "a static integer", format!("`{value}`")))
}

fn to_int_tuple<I: Int>(node: &Node) -> Result<IntTuple<I>, LayoutError> {
    match node {
        Node::Leaf(value, column) => Ok(IntTuple::Int(leaf(value, *column)?)),
        Node::Tuple {
            items,
            angle: false,
            ..
        } => Ok(IntTuple::Tuple(
            items.iter().map(to_int_tuple).collect::<Result<_, _>>()?,
        )),
        Node::Underscore(column) => Err(error(*column, "an integer or `(`", "`_`".to_owned())),
        Node::Tuple { column, .. } => Err(error(*column, "an integer or `(`", "`<`".to_owned())),
        Node::Pair(_, second, _) => Err(error(
            second.column().saturating_sub(1),
            "`,` or `)`",
            "`:`".to_owned(),
        )),
    }
}

fn to_layout<I: Int>(node: &Node) -> Result<Layout<I>, LayoutError> {
    match node {
        Node::Pair(shape, stride, _) => Layout::new(to_int_tuple(shape)?, to_int_tuple(stride)?),
        _ => Layout::column_major(to_int_tuple(node)?),
    }
}

fn to_tiler<I: Int>(node: &Node) -> Result<Tiler<I>, LayoutError> {
    match node {
        Node::Pair(..) => Ok(Tiler::Layout(to_layout(node)?)),
        Node::Underscore(_) => Ok(Tiler::Keep),
        Node::Leaf(value, column) => Tiler::extent(leaf(value, *column)?),
        Node::Tuple { items, .. } => Ok(Tiler::Modes(
            items.iter().map(to_tiler).collect::<Result<_, _>>()?,
        )),
    }
}

fn to_coord<I: Int>(node: &Node) -> Result<Coord<I>, LayoutError> {
    match node {
        Node::Leaf(value, column) => Ok(Coord::Int(leaf(value, *column)?)),
        Node::Underscore(_) => Ok(Coord::Free),
        Node::Tuple {
            items,
            angle: false,
            ..
        } => Ok(Coord::Tuple(
            items.iter().map(to_coord).collect::<Result<_, _>>()?,
        )),
        Node::Tuple { column, .. } => {
            Err(error(*column, "an integer, `_` or `(`", "`<`".to_owned()))
        }
        Node::Pair(_, second, _) => Err(error(
            second.column().saturating_sub(1),
            "`,` or `)`",
            "`:`".to_owned(),
        )),
    }
}

/// Parses an int-tuple such as `((2,2),3)`.
pub fn parse_int_tuple<I: Int>(text: &str) -> Result<IntTuple<I>, LayoutError> {
    to_int_tuple(&parse_node(text)?)
}

/// Parses a layout `shape:stride`, or a shape alone (compact column-major).
pub fn parse_layout<I: Int>(text: &str) -> Result<Layout<I>, LayoutError> {
    to_layout(&parse_node(text)?)
}

/// Parses a tiler: a layout with `:`, an integer `n` (`n:1`), `_`, or a by-mode tuple
/// written `(...)` or `<...>`.
pub fn parse_tiler<I: Int>(text: &str) -> Result<Tiler<I>, LayoutError> {
    to_tiler(&parse_node(text)?)
}

/// Parses a coordinate whose leaves may be `_`, such as `(_,2)`.
pub fn parse_coord<I: Int>(text: &str) -> Result<Coord<I>, LayoutError> {
    to_coord(&parse_node(text)?)
}

/// Parses one symbolic integer expression such as `ceil_div(m,8)*k`.
pub fn parse_sym_int(text: &str) -> Result<SymInt, LayoutError> {
    let mut parser = Parser::new(text);
    let value = parser.expression()?;
    parser.finish()?;
    Ok(value)
}

impl<I: Int> FromStr for IntTuple<I> {
    type Err = LayoutError;
    fn from_str(text: &str) -> Result<Self, LayoutError> {
        parse_int_tuple(text)
    }
}

impl<I: Int> FromStr for Layout<I> {
    type Err = LayoutError;
    fn from_str(text: &str) -> Result<Self, LayoutError> {
        parse_layout(text)
    }
}

impl<I: Int> FromStr for Tiler<I> {
    type Err = LayoutError;
    fn from_str(text: &str) -> Result<Self, LayoutError> {
        parse_tiler(text)
    }
}

impl<I: Int> FromStr for Coord<I> {
    type Err = LayoutError;
    fn from_str(text: &str) -> Result<Self, LayoutError> {
        parse_coord(text)
    }
}

impl FromStr for SymInt {
    type Err = LayoutError;
    fn from_str(text: &str) -> Result<Self, LayoutError> {
        parse_sym_int(text)
    }
}
