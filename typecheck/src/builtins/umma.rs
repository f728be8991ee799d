//! tcgen05's MMA and tensor-memory moves (sm_100a), each traced as an effect.
//!
//! `tcgen05_mma(taddr, a, b, accumulate)`: one thread issues `D (M x N, f32) += A (M x
//! K) Bᵀ` (B `N x K`), `cta_group::1`; D is tensor memory at `taddr` (row m in lane m,
//! column n in column n), A and B are shared tiles read through descriptors the
//! compiler computes from their layouts (the canonical forms wgmma reads,
//! `cute::umma_descriptor`; none is E0227 at the operand, and the tile's buffer is
//! aligned to its swizzle's period): K = 16 of bf16 or f16 (kind::f16), K = 8 of f32
//! read as tf32 (kind::tf32, K-major) or K = 32 of e4m3 or e5m2 (kind::f8f6f4,
//! K-major). The checks (E0227): M = 128 (the one shape whose tensor-memory rows are its
//! lanes; M = 64 is not supported), N a multiple of 16 from 16 to 256, A and B of one
//! type (kind::f8f6f4: of one kind, so e4m3 with e5m2 is allowed). A may instead be
//! an integer, its address in tensor memory: 128 lanes (row m in lane `lane + m`) of
//! B's type, K-major, packed into 32-bit columns (`tcgen05.mma ... [a_taddr]`).
//!
//! `tcgen05_ld_32x32b(fragment, taddr)` and `tcgen05_st_32x32b(taddr, fragment)`: a
//! whole warp moves 32 lanes of tensor memory, thread `i` lane `lane(taddr) + i`, its
//! fragment's value `j` column `column(taddr) + j`; `tcgen05_ld_16x64b`, `_16x128b`
//! and `_16x256b` (and `st`) move 16 lanes in CuTe's patterns (the emulator's
//! `block/tcgen05.rs`). The fragment is registers of 32-bit values (a store's may be
//! 16-bit values, packed in pairs, the first in a register's low half), a power of two
//! times the shape's registers per repetition (1, 1, 2, 4), 128 at most (E0227
//! otherwise). Loaded values are valid after `tcgen05_wait_ld()`.

use std::sync::Arc;

use cute::{
    MemorySpace, Tensor, tile_extents, tile_values, tmem_shape_registers, umma_descriptor,
    umma_kind,
};

use crate::builtins::{Arg, Args};
use crate::check::Checker;
use crate::trace::{Effect, UmmaA, term_of};
use crate::value::Value;

impl<'a> Checker<'a> {
    /// `tcgen05_mma(taddr, a, b, accumulate)`.
    pub(crate) fn tcgen05_mma(&mut self, name: &'static str, args: &Args) -> Value {
        if !self.require_arch(name, 100, args.call_span) {
            return Value::Unit;
        }
        let Some(pair) = self.cta_group_pair(name, args) else {
            return Value::Unit;
        };
        let p = args.positional();
        if !self.tmem_address(p[0]) {
            return Value::Unit;
        }
        // A in tensor memory is an address there (`None`): 128 lanes of B's type.
        let a = match &p[1].value {
            Value::Int { .. } => Some(None),
            _ => self.umma_tile(p[1], "A").map(Some),
        };
        let (Some(a), Some(b)) = (a, self.umma_tile(p[2], "B")) else {
            return Value::Unit;
        };
        let m = a.as_deref().map_or(128, tile_rows);
        if m != 128 {
            return self.error(
                "E0227",
                p[1].span,
                format!("`{name}` takes A of 128 rows (D's rows are tensor memory's 128 lanes), not {m}; M = 64 is not supported"),
                "not 128 rows",
            );
        }
        let n = tile_rows(&b);
        // A pair's B is split between its blocks: each holds N / 2 rows, N 32 to 256.
        let (most, whose) = match pair {
            true => (128, " in each block of the pair"),
            false => (256, ""),
        };
        if n % 16 != 0 || !(16..=most).contains(&n) {
            return self.error(
                "E0227",
                p[2].span,
                format!("`{name}` takes B of 16 to {most} rows{whose} in steps of 16, not {n}"),
                "not an MMA's N",
            );
        }
        if let (Some(a_type), Some(b_type)) = (a.as_ref().and_then(|a| a.dtype), b.dtype)
            && a_type != b_type
            && !(umma_kind(a_type).is_some_and(|(kind, _)| kind == "f8f6f4")
                && umma_kind(a_type) == umma_kind(b_type))
        {
            return self.error(
                "E0227",
                p[2].span,
                format!("`{name}` takes A and B of one type (or e4m3 with e5m2); A is {a_type}, B {b_type}"),
                "another type than A's",
            );
        }
        if !matches!(
            p[3].value,
            Value::Bool(_) | Value::Int { .. } | Value::Unknown
        ) {
            return self.wrong_arg(
                p[3],
                &format!("`{name}`'s last argument says whether D is added to: a boolean"),
                "not a boolean",
            );
        }
        let a = match a {
            Some(tile) => Some(UmmaA::Shared(tile)),
            None => term_of(&p[1].value).map(UmmaA::Tmem),
        };
        if let (true, Some(taddr), Some(a), Some(accumulate)) = (
            self.tracing_kernel(),
            term_of(&p[0].value),
            a,
            term_of(&p[3].value),
        ) {
            self.emit(Effect::Tcgen05Mma {
                pair,
                taddr,
                a,
                b,
                accumulate,
                span: args.call_span,
            });
        }
        Value::Unit
    }

    /// `tcgen05_ld_32x32b(fragment, taddr)` and `tcgen05_st_32x32b(taddr, fragment)`.
    pub(crate) fn tmem_copy(&mut self, name: &'static str, args: &Args) -> Value {
        if !self.require_arch(name, 100, args.call_span) {
            return Value::Unit;
        }
        let p = args.positional();
        let load = name.starts_with("tcgen05_ld_");
        let shape = &name["tcgen05_ld_".len()..];
        let (fragment, address) = if load { (p[0], p[1]) } else { (p[1], p[0]) };
        if !self.tmem_address(address) {
            return Value::Unit;
        }
        let Some(fragment_tensor) = self.tmem_fragment(name, fragment, shape) else {
            return Value::Unit;
        };
        if let (true, Some(taddr)) = (self.tracing_kernel(), term_of(&address.value)) {
            self.emit(Effect::TmemCopy {
                load,
                shape,
                fragment: fragment_tensor,
                taddr,
                span: args.call_span,
            });
        }
        Value::Unit
    }

    /// Whether `arg` is an integer, as a tensor-memory address is (E0216 if not).
    fn tmem_address(&mut self, arg: &Arg) -> bool {
        (self.expect_int(&arg.value, arg.span, "a tensor-memory address")).is_some()
    }

    /// The register fragment a tensor-memory move fills or reads: 32-bit values, a
    /// power of two from 1 to 128 of them.
    fn tmem_fragment(&mut self, name: &str, arg: &Arg, shape: &str) -> Option<Arc<Tensor>> {
        let Value::Tensor(tensor) = &arg.value else {
            self.wrong_arg(
                arg,
                &format!("`{name}` moves a register fragment"),
                "not a tensor",
            );
            return None;
        };
        let size = tensor
            .layout
            .layout
            .size()
            .ok()
            .and_then(|size| size.as_constant());
        // A store packs 16-bit values in pairs, the first in a register's low half.
        let load = name.starts_with("tcgen05_ld_");
        let bits = tensor.dtype.map_or(0, |dtype| dtype.bits());
        let packed = bits == 16 && !load;
        let registers = size.map(|size| if packed { size / 2 } else { size });
        let per_repetition = tmem_shape_registers(shape).unwrap_or(1);
        let repetitions = registers.map_or(0, |registers| registers / per_repetition);
        let fits = registers.is_some_and(|registers| {
            registers <= 128 && registers == repetitions * per_repetition && repetitions > 0
        }) && repetitions & (repetitions - 1) == 0
            && size.is_some_and(|size| !packed || size % 2 == 0);
        if tensor.space != MemorySpace::Register || !(bits == 32 || packed) || !fits {
            let what = match load {
                true => "32-bit values",
                false => "32-bit values (or twice as many 16-bit ones, packed in pairs)",
            };
            self.error(
                "E0227",
                arg.span,
                format!("`{name}` moves {per_repetition} times a power of two registers of {what} per thread, 128 registers at most; this is {} {}", tensor.element_name(), tensor.layout),
                "not a fragment of 32-bit words",
            );
            return None;
        }
        Some(tensor.clone())
    }

    /// A tcgen05.mma operand: a shared `(rows, K)` tile that a descriptor reads, K 16
    /// of bf16 or f16 (kind::f16) or 8 of f32 read as tf32 (kind::tf32); E0227 at `arg`
    /// otherwise. Its buffer is aligned to the swizzle.
    fn umma_tile(&mut self, arg: &Arg, side: &str) -> Option<Arc<Tensor>> {
        let Value::Tensor(tensor) = &arg.value else {
            return None;
        };
        let kind = tensor.dtype.and_then(umma_kind);
        let rows = match (kind, tile_extents(tensor)) {
            (Some((_, k)), Some((rows, cols))) if cols == k => Some(rows),
            _ => None,
        };
        let (MemorySpace::Shared, Some(rows)) = (tensor.space, rows) else {
            self.error(
                "E0227",
                arg.span,
                format!("tcgen05.mma reads {side} as a shared (rows, 16) tile of bf16 or f16, (rows, 8) of f32 (tf32) or (rows, 32) of e4m3 or e5m2; this is {}", tensor.layout),
                "not a shared (rows, K) tile",
            );
            return None;
        };
        let k = kind.map_or(16, |(_, k)| k);
        let derived = tile_values(tensor, rows.saturating_mul(k)).and_then(|values| {
            umma_descriptor(tensor, (&tensor.layout.offset, &values), rows as usize)
        });
        match derived {
            Ok(descriptor) => {
                self.align_buffer(tensor, i64::from(descriptor.swizzle * 8));
                Some(tensor.clone())
            }
            Err(error) => {
                self.error(
                    "E0227",
                    arg.span,
                    format!("tcgen05.mma reads {side} ({rows} x {k}) through a shared-memory descriptor, but {error}; the tile is {}", tensor.layout),
                    "no descriptor for this tile",
                );
                None
            }
        }
    }
}

/// The rows of a tile [`Checker::umma_tile`] accepted.
fn tile_rows(tensor: &Tensor) -> i64 {
    tile_extents(tensor).map_or(0, |(rows, _)| rows)
}
