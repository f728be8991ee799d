//! Tests of `shared.rs`.

use super::*;
use crate::fault::Pending;

fn who(thread: u32, warp_epoch: u32) -> Accessor {
    Accessor {
        thread,
        warp_epoch,
        span: Span::empty(thread),
    }
}

fn race(result: Result<(), Trap>) -> Option<u32> {
    match result {
        Err(Trap::Race { other_thread, .. }) => Some(other_thread),
        _ => None,
    }
}

#[test]
fn a_barrier_orders_a_write_and_another_threads_read() {
    let mut shared = SharedMemory::new(64);
    shared
        .write(&who(0, 0), 0, &[1, 2, 3, 4], Access::Store)
        .unwrap();
    let mut out = [0; 4];
    assert_eq!(race(shared.read(&who(1, 0), 0, &mut out)), Some(0));
    shared.barrier();
    shared.read(&who(1, 0), 0, &mut out).unwrap();
    assert_eq!(out, [1, 2, 3, 4]);
    // Thread 2 also reads; thread 1 writing now races with thread 2's read.
    shared.read(&who(2, 0), 0, &mut out).unwrap();
    assert_eq!(
        race(shared.write(&who(1, 0), 0, &[0; 4], Access::Store)),
        Some(2)
    );
}

#[test]
fn a_thread_may_reread_and_overwrite_its_own_bytes() {
    let mut shared = SharedMemory::new(8);
    shared.write(&who(5, 0), 4, &[7; 4], Access::Store).unwrap();
    let mut out = [0; 4];
    shared.read(&who(5, 0), 4, &mut out).unwrap();
    shared.write(&who(5, 0), 4, &[8; 4], Access::Store).unwrap();
    assert_eq!(
        race(shared.write(&who(6, 0), 4, &[9; 4], Access::Store)),
        Some(5)
    );
}

#[test]
fn a_warp_barrier_orders_lanes_of_one_warp_only() {
    let mut shared = SharedMemory::new(8);
    shared.write(&who(0, 0), 0, &[1; 4], Access::Store).unwrap();
    let mut out = [0; 4];
    shared.read(&who(31, 1), 0, &mut out).unwrap();
    assert_eq!(race(shared.read(&who(32, 0), 0, &mut out)), Some(0));
}

#[test]
fn unwritten_bytes_bounds_and_alignment_are_faults() {
    let mut shared = SharedMemory::new(8);
    shared.write(&who(0, 0), 0, &[1; 2], Access::Store).unwrap();
    let mut out = [0; 4];
    shared.read(&who(0, 0), 0, &mut out).unwrap();
    let unwritten = shared.unwritten_read().unwrap();
    assert_eq!((unwritten.thread, unwritten.address), (0, 2));
    assert_eq!(shared.unwritten_read(), None);
    let outside = shared.read(&who(0, 0), 8, &mut out);
    assert!(matches!(
        outside,
        Err(Trap::Fault(FaultKind::SharedOutOfBounds { .. }))
    ));
    let misaligned = shared.write(&who(0, 0), 2, &[0; 4], Access::Store);
    assert!(matches!(
        misaligned,
        Err(Trap::Fault(FaultKind::Misaligned { .. }))
    ));
}

#[test]
fn a_read_before_another_threads_write_is_a_race_not_an_unwritten_read() {
    let mut shared = SharedMemory::new(4);
    let mut out = [0; 4];
    shared.read(&who(0, 0), 0, &mut out).unwrap();
    assert_eq!(
        race(shared.write(&who(1, 0), 0, &[1; 4], Access::Store)),
        Some(0)
    );
}

#[test]
fn atomics_race_only_with_plain_accesses() {
    let mut shared = SharedMemory::new(4);
    shared.write(&who(0, 0), 0, &[0; 4], Access::Store).unwrap();
    shared.barrier();
    let add = |old: &[u8]| vec![old[0] + 1, old[1], old[2], old[3]];
    shared.atomic(&who(1, 0), 0, 4, add).unwrap();
    shared.atomic(&who(2, 0), 0, 4, add).unwrap();
    let mut out = [0; 4];
    assert_eq!(race(shared.read(&who(3, 0), 0, &mut out)), Some(2));
    shared.barrier();
    shared.read(&who(3, 0), 0, &mut out).unwrap();
    assert_eq!(out[0], 2);
}

fn pending(result: Result<(), Trap>) -> Option<Pending> {
    match result {
        Err(Trap::Early { pending, .. }) => Some(pending),
        _ => None,
    }
}

#[test]
fn a_tma_box_lands_at_its_phase_and_only_for_threads_that_observed_it() {
    let mut shared = SharedMemory::new(64);
    let mut out = [0; 4];
    shared
        .tma_load(&who(0, 0), (16, vec![7; 16]), 0, true)
        .unwrap();
    // In flight: not even the issuing thread may read it, nor anyone write it.
    let early = shared.read(&who(0, 0), 16, &mut out);
    assert_eq!(pending(early), Some(Pending::TmaInFlight));
    let write = shared.write(&who(3, 0), 20, &[1; 4], Access::Store);
    assert_eq!(pending(write), Some(Pending::TmaInFlight));
    shared.phase_completed(0, 1);
    shared.barrier();
    // Landed: thread 1's wait observed the phase, thread 2 did not wait.
    shared.acquire(1, 0, 1);
    shared.read(&who(1, 0), 16, &mut out).unwrap();
    assert_eq!(out, [7; 4]);
    let unseen = shared.read(&who(2, 0), 16, &mut out);
    assert_eq!(pending(unseen), Some(Pending::TmaUnobserved));
    // A second load into the box by a producer that never saw the first delivered.
    let overwrite = shared.tma_load(&who(0, 0), (16, vec![8; 16]), 0, true);
    assert_eq!(pending(overwrite), Some(Pending::TmaOverwrite));
    // After a barrier of the whole block, every thread has observed it.
    shared.share_all();
    shared.read(&who(2, 0), 16, &mut out).unwrap();
}

#[test]
fn the_async_proxy_reads_a_generic_write_only_after_the_writers_fence() {
    let mut shared = SharedMemory::new(64);
    shared.write(&who(5, 0), 0, &[1; 4], Access::Store).unwrap();
    shared.barrier();
    let unfenced = shared.check_fenced(0, 4, Access::BulkRead);
    assert_eq!(pending(unfenced), Some(Pending::ProxyFence));
    // Another thread's fence does not cover thread 5's write; its own does.
    shared.proxy_fence(4);
    assert!(shared.check_fenced(0, 4, Access::BulkRead).is_err());
    shared.proxy_fence(5);
    shared.check_fenced(0, 4, Access::BulkRead).unwrap();
}
