//! Dead pure instructions removed: a constant, an arithmetic result or a pack that
//! nothing reads.
//!
//! Lowering emits pure instructions as it meets them and shares them by value, so some
//! end up unread: the half-built word when a 16-bit fragment's two elements are
//! written one after the other, the zeros a fragment starts from when every element is
//! stored before it is read. ptxas would drop them too, but they lengthen the KIR and
//! the PTX every later step reads. Instructions with effects (memory, barriers, atoms,
//! shuffles, regions) always stay.

use crate::ir::{Inst, Kernel};

/// Removes every pure instruction whose results nothing reads, until none is left.
pub fn remove_dead_values(kernel: &mut Kernel) {
    loop {
        let mut used = vec![false; kernel.values.len()];
        mark(&kernel.body, &mut used);
        if sweep(&mut kernel.body, &used) == 0 {
            return;
        }
    }
}

/// Marks every value some instruction or region yield reads.
fn mark(body: &[Inst], used: &mut [bool]) {
    let mut read = |value: crate::ir::ValueId| {
        if let Some(slot) = used.get_mut(value.0 as usize) {
            *slot = true;
        }
    };
    for inst in body {
        inst.op.operands().into_iter().for_each(&mut read);
        for region in inst.op.regions() {
            region.yields.iter().copied().for_each(&mut read);
        }
        // A loop's condition is computed in its body, for the loop alone to read
        // (`while x[0] > 0.0 { }`).
        if let crate::ir::Op::Loop { condition, .. } = &inst.op {
            read(*condition);
        }
    }
    for inst in body {
        for region in inst.op.regions() {
            mark(&region.body, used);
        }
    }
}

/// Drops the dead pure instructions of `body` and its regions; how many.
fn sweep(body: &mut Vec<Inst>, used: &[bool]) -> usize {
    let before = body.len();
    body.retain(|inst| {
        let dead = inst.op.is_pure()
            && !inst.results.is_empty()
            && inst
                .results
                .iter()
                .all(|result| !used.get(result.0 as usize).copied().unwrap_or(true));
        !dead
    });
    let mut removed = before - body.len();
    for inst in body.iter_mut() {
        for region in inst.op.regions_mut() {
            removed += sweep(&mut region.body, used);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::remove_dead_values;
    use crate::{from_text, to_text};

    #[test]
    fn unread_pure_chains_go_and_effects_stay() {
        let text = "kernel k {
  param 0 out: tensor i32 shape(1) strides(1)
  launch grid(1, 1, 1) block(32, 1, 1) smem(0 bytes)
  %0:i64 = param 0
  %1:i32 = thread_idx.x
  %2:i32 = const 7
  %3:i32 = add %1, %2
  %4:i32 = mul %3, %3
  %5:pred = cmp.eq %1, %2
  if %5 {
    %6:i32 = const 9
    %7:i32 = add %6, %6
    store.global [%0+0], %1
    yield
  } else {
    yield
  }
}
";
        let mut kernel = from_text(text).unwrap();
        remove_dead_values(&mut kernel);
        let kept = to_text(&kernel, &|offset| offset);
        assert!(!kept.contains("mul"), "{kept}");
        assert!(!kept.contains("add"), "{kept}");
        assert!(!kept.contains("const 9"), "{kept}");
        // `const 7` is read by the comparison, which the branch reads.
        assert!(kept.contains("const 7"), "{kept}");
        assert!(kept.contains("store.global"), "{kept}");
    }

    #[test]
    fn a_condition_only_its_loop_reads_stays() {
        let text = "kernel k {
  param 0 x: tensor f32 shape(1) strides(1)
  launch grid(1, 1, 1) block(32, 1, 1) smem(0 bytes)
  %0:i64 = param 0
  %1:f32 = const 0.0
  loop {
    %2:f32 = load.global [%0+0]
    %3:pred = cmp.gt %2, %1
    yield while %3
  }
}
";
        let mut kernel = from_text(text).unwrap();
        remove_dead_values(&mut kernel);
        let kept = to_text(&kernel, &|offset| offset);
        assert!(kept.contains("cmp.gt"), "{kept}");
        assert!(crate::verify(kernel).is_ok(), "{kept}");
    }
}
