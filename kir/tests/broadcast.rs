//! Which thread-index values the emitter broadcasts from lane 0 (`Kernel::broadcast`):
//! those the same across each warp, where control keeps warps whole, in blocks of
//! whole warps.

use kir::{BlockShape, ValueId, from_text, mark_uniform};

const KERNEL: &str = "
kernel k {
  launch grid(1, 1, 1) block(256, 1, 1) smem(0 bytes)
  %0:i32 = thread_idx.x
  %1:i32 = const 7
  %2:i32 = shr %0, %1
  %3:i32 = const 5
  %4:i32 = shr %0, %3
  %5:i32 = const 1
  %6:i32 = shr %0, %5
  %7:pred = cmp.lt %0, %3
  if %7 {
    %8:i32 = shr %0, %1
    yield
  } else {
    yield
  }
}
";

fn broadcast(block: BlockShape) -> Vec<ValueId> {
    let mut kernel = from_text(KERNEL).expect("the kernel reads");
    assert!(mark_uniform(&mut kernel, block).is_empty());
    kernel.broadcast
}

#[test]
fn whole_warps_and_warpgroups_of_the_thread_index_are_broadcast_where_warps_are_whole() {
    let block = BlockShape {
        one_dimensional: true,
        whole_warps: true,
    };
    // Not `thread_idx.x >> 1`, which differs within a warp, nor the shift under a
    // branch that splits warps (thread_idx.x < 5).
    assert_eq!(broadcast(block), vec![ValueId(2), ValueId(4)]);
}

#[test]
fn nothing_is_broadcast_when_a_warp_may_be_partial() {
    let block = BlockShape {
        one_dimensional: true,
        whole_warps: false,
    };
    assert!(broadcast(block).is_empty());
}
