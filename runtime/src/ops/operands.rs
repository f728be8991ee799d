//! Why a reference (elementwise arithmetic, `transpose`, `sum` and `softmax` in
//! `ops.rs`, `ops/norms.rs`, `ops/losses.rs`, `ops/arrays.rs`, `ops/matmul.rs`,
//! `ops/attention.rs`, `ops/attention_backward.rs`, `ops/paged_attention.rs`) cannot
//! compute: operands whose shapes, dimensions, labels or values do not fit, each variant
//! with what its message names.

use std::fmt;

use crate::tensor::shape_text;

/// Operands a reference cannot take.
#[derive(Clone, Debug, PartialEq)]
pub enum OperandError {
    /// A tensor of rank 0 where rows are needed.
    Scalar { operation: &'static str },
    /// A vector or gradient whose last extent is not the rows' length.
    RowLength {
        operation: &'static str,
        x: Vec<usize>,
        other: Vec<usize>,
    },
    /// Two tensors that must have one shape.
    Shapes {
        operation: &'static str,
        a: Vec<usize>,
        b: Vec<usize>,
    },
    /// Logits that are not (rows, classes), or labels not one a row.
    Logits {
        logits: Vec<usize>,
        labels: Vec<usize>,
    },
    /// Matrices whose inner extents differ: A's columns and B's rows.
    MatmulInner { a: Vec<usize>, b: Vec<usize> },
    /// A `matmul` operand that is not a matrix.
    MatmulRank { a: Vec<usize>, b: Vec<usize> },
    /// A `matmul` operand whose values are not as many as its shape says.
    MatmulData,
    /// An `attention` operand (`q`, `k` or `v`) of rank below 2.
    AttentionRank {
        operand: &'static str,
        shape: Vec<usize>,
    },
    /// `attention`'s q and k, whose leading dimensions or head counts do not fit.
    AttentionKeys { q: Vec<usize>, k: Vec<usize> },
    /// `attention`'s v, whose leading dimensions or keys are not k's.
    AttentionValues {
        q: Vec<usize>,
        k: Vec<usize>,
        v: Vec<usize>,
    },
    /// Attention's q, k, v and output gradient, whose shapes do not fit together.
    Attention {
        q: Vec<usize>,
        k: Vec<usize>,
        v: Vec<usize>,
        d_out: Vec<usize>,
    },
    /// A label that is neither a class nor the ignored one.
    Label {
        label: f64,
        classes: usize,
        ignore_index: i64,
    },
    /// Two shapes that do not broadcast.
    Broadcast {
        operation: &'static str,
        a: Vec<usize>,
        b: Vec<usize>,
    },
    /// A dimension the tensor does not have.
    Dimension {
        operation: &'static str,
        dimension: usize,
        shape: Vec<usize>,
    },
    /// An order of dimensions that is not a permutation of the tensor's.
    Permutation {
        order: Vec<usize>,
        shape: Vec<usize>,
    },
    /// A slice `start..end` that is empty or leaves the extent.
    Range {
        start: usize,
        end: usize,
        extent: usize,
    },
    /// Tensors whose extents differ other than along the concatenated dimension.
    Concat {
        a: Vec<usize>,
        b: Vec<usize>,
        dimension: usize,
    },
    /// `paged_attention`'s q, caches, block table and lengths, whose shapes do not fit
    /// together (in that order).
    Paged { shapes: [Vec<usize>; 5] },
    /// A block-table entry or a sequence length outside `0..limit`: `what` names it
    /// (`block_table[0, 3]`).
    PageIndex {
        what: String,
        value: f64,
        limit: usize,
    },
    /// Elementwise arithmetic of two numbers, neither a tensor.
    NoTensor,
    /// An operator (its symbol) that is not elementwise arithmetic or a comparison.
    NotElementwise { operator: &'static str },
    /// An integer division by zero, at the result's element `element`.
    DivisionByZero { element: usize },
    /// An operand of `transpose` or another matrix operation that is not a matrix.
    NotMatrix {
        operation: &'static str,
        shape: Vec<usize>,
    },
    /// A dimension to sum or softmax along that the tensor does not have.
    NoDimension { dimension: usize, shape: Vec<usize> },
    /// A tensor whose values are not as many as its shape says.
    Data { shape: Vec<usize> },
}

impl fmt::Display for OperandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OperandError::Scalar { operation } => {
                write!(f, "`{operation}` takes a tensor of rank at least 1")
            }
            OperandError::RowLength {
                operation,
                x,
                other,
            } => write!(
                f,
                "`{operation}` needs operands whose last extent is x's {}: {} and {}",
                x.last().copied().unwrap_or(0),
                shape_text(x),
                shape_text(other)
            ),
            OperandError::Shapes { operation, a, b } => write!(
                f,
                "`{operation}` needs tensors of one shape, not {} and {}",
                shape_text(a),
                shape_text(b)
            ),
            OperandError::Logits { logits, labels } => write!(
                f,
                "`cross_entropy` takes logits (rows, classes) and one label a row, not {} and {}",
                shape_text(logits),
                shape_text(labels)
            ),
            OperandError::MatmulInner { a, b } => write!(
                f,
                "matmul needs A's columns to equal B's rows: {} and {}",
                shape_text(a),
                shape_text(b)
            ),
            OperandError::MatmulRank { a, b } => write!(
                f,
                "matmul takes matrices (rank 2), not shapes {} and {}",
                shape_text(a),
                shape_text(b)
            ),
            OperandError::MatmulData => {
                f.write_str("a matmul operand's shape does not match its data")
            }
            OperandError::AttentionRank { operand, shape } => write!(
                f,
                "`attention` takes {operand} of rank 2 or more, not shape {}",
                shape_text(shape)
            ),
            OperandError::AttentionKeys { q, k } => write!(
                f,
                "`attention` needs q (..., heads, queries, d) and k (..., kv_heads, keys, d) with the same leading dimensions, kv_heads dividing heads; these are {} and {}",
                shape_text(q),
                shape_text(k)
            ),
            OperandError::AttentionValues { q, k, v } => write!(
                f,
                "`attention` needs v (..., kv_heads, keys, dv) with k's leading dimensions and keys; these are {}, {} and {}",
                shape_text(q),
                shape_text(k),
                shape_text(v)
            ),
            OperandError::Attention { q, k, v, d_out } => write!(
                f,
                "`attention_backward` needs q (..., heads, queries, d), k (..., kv_heads, keys, d), v (..., kv_heads, keys, dv) and do (..., heads, queries, dv) with the same leading dimensions but kv_heads, which divides heads; these are {}, {}, {} and {}",
                shape_text(q),
                shape_text(k),
                shape_text(v),
                shape_text(d_out)
            ),
            OperandError::Label {
                label,
                classes,
                ignore_index,
            } => write!(
                f,
                "label {label} is neither a class of 0..{classes} nor the ignore_index {ignore_index}"
            ),
            OperandError::Broadcast { operation, a, b } => write!(
                f,
                "`{operation}` needs tensors whose shapes broadcast, not {} and {}",
                shape_text(a),
                shape_text(b)
            ),
            OperandError::Dimension {
                operation,
                dimension,
                shape,
            } => write!(
                f,
                "{operation} along dimension {dimension}, which a tensor of shape {} does not have",
                shape_text(shape)
            ),
            OperandError::Permutation { order, shape } => write!(
                f,
                "`permute` needs an order of each of the {} dimensions of a tensor of shape {} once, not {order:?}",
                shape.len(),
                shape_text(shape)
            ),
            OperandError::Range { start, end, extent } => write!(
                f,
                "`slice` {start}..{end} is not a non-empty range inside an extent of {extent}"
            ),
            OperandError::Concat { a, b, dimension } => write!(
                f,
                "`concat` along dimension {dimension} needs tensors that agree in every other extent, not {} and {}",
                shape_text(a),
                shape_text(b)
            ),
            OperandError::Paged {
                shapes: [q, k, v, table, seqlens],
            } => write!(
                f,
                "`paged_attention` needs q (batch, heads, d), k_cache (num_pages, page_size, kv_heads, d) with kv_heads dividing heads, v_cache (num_pages, page_size, kv_heads, dv), block_table (batch, max_pages) and seqlens (batch); these are {}, {}, {}, {} and {}",
                shape_text(q),
                shape_text(k),
                shape_text(v),
                shape_text(table),
                shape_text(seqlens)
            ),
            OperandError::PageIndex { what, value, limit } => {
                write!(f, "{what} = {value} is outside 0..{limit}")
            }
            OperandError::NoTensor => f.write_str("elementwise arithmetic needs a tensor operand"),
            OperandError::NotElementwise { operator } => {
                write!(f, "`{operator}` does not apply to tensors")
            }
            OperandError::DivisionByZero { element } => {
                write!(f, "integer division by zero in `/` at element {element}")
            }
            OperandError::NotMatrix { operation, shape } => write!(
                f,
                "{operation} takes matrices (rank 2), not shape {}",
                shape_text(shape)
            ),
            OperandError::NoDimension { dimension, shape } => write!(
                f,
                "dimension {dimension} does not exist in a tensor of shape {}",
                shape_text(shape)
            ),
            OperandError::Data { shape } => {
                write!(f, "shape {} does not match its data", shape_text(shape))
            }
        }
    }
}
