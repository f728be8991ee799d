//! Loads of a tensor the kernel never writes, at an address the same in every thread:
//! trusted to be the same everywhere for the collectives' checks (a warpgroup's
//! `setmaxnreg` under a branch on a packed batch's offset is accepted), but not for
//! `bra.uni`, and not at all once the kernel writes the tensor.

use kir::{BlockShape, from_text, mark_uniform, to_text};

/// A branch on `cu[block_idx.x] > 0` around a warpgroup-collective `setmaxnreg`; `write`
/// is put before the branch.
fn kernel(write: &str) -> String {
    format!(
        "
kernel k {{
  param 0 n: i32
  param 1 cu: tensor i32 shape(%0) strides(1)
  launch grid(%0, 1, 1) block(256, 1, 1) smem(0 bytes)
  %0:i64 = param 1
  %1:i32 = block_idx.x
  %2:i64 = convert %1
  %3:i64 = const 2
  %4:i64 = shl %2, %3
  %5:i64 = add %0, %4
  %6:i32 = load.global [%5+0]
  %7:i32 = const 0
  {write}
  %8:pred = cmp.gt %6, %7
  if %8 {{
    setmaxnreg_inc registers=240
    yield
  }} else {{
    yield
  }}
}}
"
    )
}

const BLOCK: BlockShape = BlockShape {
    one_dimensional: true,
    whole_warps: true,
};

#[test]
fn a_read_only_tensor_s_element_decides_for_the_whole_warpgroup() {
    let mut kernel = from_text(&kernel("")).expect("the kernel reads");
    assert!(mark_uniform(&mut kernel, BLOCK).is_empty());
    // The branch itself keeps its plain `bra`: no kernel's code changes with the trust.
    assert!(!to_text(&kernel, &|line| line).contains("uniform"));
}

#[test]
fn a_tensor_the_kernel_writes_may_change_between_the_threads_loads() {
    let mut kernel = from_text(&kernel("store.global [%5+0], %7")).expect("the kernel reads");
    let collectives = mark_uniform(&mut kernel, BLOCK);
    assert_eq!(collectives.len(), 1);
    assert_eq!(collectives[0].unit, "warpgroup");
}

#[test]
fn an_address_that_differs_between_threads_loads_different_values() {
    let per_thread = kernel("").replace("%1:i32 = block_idx.x", "%1:i32 = thread_idx.x");
    let mut kernel = from_text(&per_thread).expect("the kernel reads");
    assert_eq!(mark_uniform(&mut kernel, BLOCK).len(), 1);
}
