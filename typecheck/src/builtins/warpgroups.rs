//! Warp specialization (sm_90): `setmaxnreg_inc(n)` / `setmaxnreg_dec(n)` move
//! registers between warpgroups (a producer gives some up, consumers take them), and
//! named barriers (`named_barrier_sync(id, threads)`, `named_barrier_arrive`)
//! synchronize a subset of the block's warps.
//!
//! The checks (E0227 at the argument): a register count from 24 to 256 in steps of 8;
//! an increase that leaves the block's other warpgroups less than the register file
//! holds (65536 32-bit registers: with `W` warpgroups, `n x 128 x (W - 1)` plus the
//! least one warpgroup can keep, 24 x 128); a constant barrier id 0 to 15 (a run-time
//! id, such as `2 + warpgroup` for turns between warpgroups, is the emulator's to check)
//! and thread counts that are whole warps within the block.

use crate::builtins::Args;
use crate::check::Checker;
use kir::Intrinsic;

use crate::trace::{Effect, term_of};
use crate::value::Value;

/// 32-bit registers in an SM's register file, all a block's threads share.
const REGISTER_FILE: i64 = 65536;

impl<'a> Checker<'a> {
    /// `setmaxnreg_inc(n)` and `setmaxnreg_dec(n)`.
    pub(crate) fn setmaxnreg(&mut self, name: &'static str, args: &Args) -> Value {
        if !self.require_arch(name, 90, args.call_span) {
            return Value::Unit;
        }
        let p = args.positional();
        let what = "the registers per thread `setmaxnreg` sets";
        let Some(registers) = self.expect_const_int(&p[0].value, p[0].span, what) else {
            return Value::Unit;
        };
        if !(24..=256).contains(&registers) || registers % 8 != 0 {
            return self.error(
                "E0227",
                p[0].span,
                format!(
                    "`{name}` sets 24 to 256 registers per thread in steps of 8, not {registers}"
                ),
                "not a register count",
            );
        }
        let increase = name == "setmaxnreg_inc";
        let warpgroups = self.frame.block_threads.unwrap_or(0) / 128;
        // Saturating: a block of absurdly many threads must still be one diagnostic.
        let needed = (registers * 128)
            .saturating_mul((warpgroups - 1).max(0))
            .saturating_add(24 * 128);
        if increase && warpgroups > 1 && needed > REGISTER_FILE {
            return self.error(
                "E0227",
                p[0].span,
                format!(
                    "with {warpgroups} warpgroups, {} of them at {registers} registers and one at the least, 24, need {needed} registers; the register file has {REGISTER_FILE}",
                    warpgroups - 1
                ),
                "more than the register file",
            );
        }
        let registers = registers as u32;
        self.emit(Effect::Intrinsic(
            Intrinsic::SetMaxNReg {
                increase,
                registers,
            },
            args.call_span,
        ));
        Value::Unit
    }

    /// `named_barrier_sync(id, threads)` and `named_barrier_arrive(id, threads)`.
    pub(crate) fn named_barrier(&mut self, name: &'static str, args: &Args) -> Value {
        let p = args.positional();
        let id_what = "a named barrier's id";
        let Some(id_value) = self.expect_int(&p[0].value, p[0].span, id_what) else {
            return Value::Unit;
        };
        let threads_what = "the threads a named barrier waits for";
        let Some(threads) = self.expect_const_int(&p[1].value, p[1].span, threads_what) else {
            return Value::Unit;
        };
        if let Some(id) = id_value.as_constant()
            && !(0..16).contains(&id)
        {
            return self.error(
                "E0227",
                p[0].span,
                format!("a block has named barriers 0 to 15, not {id}"),
                "no such barrier",
            );
        }
        let block = self.frame.block_threads.unwrap_or(1024);
        if threads < 32 || threads % 32 != 0 || threads > block {
            return self.error(
                "E0227",
                p[1].span,
                format!(
                    "a named barrier counts whole warps of the block's {block} threads, not {threads}"
                ),
                "not whole warps of the block",
            );
        }
        let Some(id) = term_of(&p[0].value) else {
            return Value::Unit;
        };
        self.emit(Effect::NamedBarrier {
            arrive: name == "named_barrier_arrive",
            id,
            threads,
            span: args.call_span,
        });
        Value::Unit
    }
}
