//! A broadcast shuffle (`shuffle.idx` from a lane every thread of the warp names alike)
//! gives the whole warp one value, so a loop bounded by it may hold warp collectives;
//! a value loaded per thread, or shuffled from a lane that differs within the warp, may
//! not bound one. The kernel writes the tensor it loads from, so the load is not one of
//! a read-only tensor's, which `read_only.rs` trusts to be the same in every thread.

use kir::{BlockShape, from_text, mark_uniform};

/// A kernel whose loop runs `bound` times and shuffles in its body, then writes its
/// tensor; `bound` is the line that defines `%6` from the loaded `%5` and the thread
/// index `%2`.
fn kernel(bound: &str) -> String {
    format!(
        "
kernel k {{
  param 0 n: tensor i32 shape(1) strides(1)
  launch grid(1, 1, 1) block(64, 1, 1) smem(0 bytes)
  %0:i64 = param 0
  %1:i32 = const 0
  %2:i32 = thread_idx.x
  %3:i32 = const 1
  %4:f32 = const 1.0
  %5:i32 = load.global [%0+0]
  {bound}
  %7:f32 = for %8:i32 in %1..%6 carry(%9:f32 = %4) {{
    %10:f32 = shuffle.xor %9, %3
    yield %10
  }}
  store.global [%0+0], %1
}}
"
    )
}

fn collectives(bound: &str) -> usize {
    let mut kernel = from_text(&kernel(bound)).expect("the kernel reads");
    let block = BlockShape {
        one_dimensional: true,
        whole_warps: true,
    };
    mark_uniform(&mut kernel, block).len()
}

#[test]
fn a_bound_broadcast_from_one_lane_keeps_the_loop_whole() {
    assert_eq!(collectives("%6:i32 = shuffle.idx %5, %1"), 0);
}

#[test]
fn a_loaded_bound_or_one_shuffled_from_lanes_that_differ_splits_the_loop() {
    assert_eq!(collectives("%6:i32 = add %5, %1"), 1);
    assert_eq!(collectives("%6:i32 = shuffle.idx %5, %2"), 1);
    assert_eq!(collectives("%6:i32 = shuffle.xor %5, %1"), 1);
}
