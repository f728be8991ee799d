//! Tests of `grid_order.rs`.

use super::*;

/// A memory of one 64-byte allocation (the data at its start, the ticket at +32) and
/// the order of a launch of `blocks` blocks in clusters of `cluster`.
fn launch(blocks: u32, cluster: u32) -> (GlobalMemory, u64, GridOrder) {
    let mut memory = GlobalMemory::new();
    let base = memory.allocate(&[0; 64]);
    let order = GridOrder::new(&memory, [blocks, 1, 1], [cluster, 1, 1], false);
    (memory, base, order)
}

/// `clock`'s access of 4 bytes at `address` as thread 0 of `block`.
fn access(
    (memory, order): (&GlobalMemory, &GridOrder),
    (block, clock): (u32, &Clock),
    address: u64,
    (access, strong): (Access, bool),
) -> Result<(), Race> {
    let who = Who {
        block,
        thread: 0,
        clock,
        access,
        strong,
        in_flight: false,
        issued: None,
        span: Span::default(),
    };
    order.access(memory, &who, address, 4)
}

const STORE: (Access, bool) = (Access::Store, false);
const LOAD: (Access, bool) = (Access::Load, false);
const ATOMIC: (Access, bool) = (Access::Atomic, true);

#[test]
fn a_plain_write_read_by_another_block_races() {
    let (memory, base, order) = launch(2, 1);
    let at = (&memory, &order);
    let clock = Clock::default();
    assert!(access(at, (0, &clock), base, STORE).is_ok());
    assert!(access(at, (0, &clock), base, LOAD).is_ok());
    let race = access(at, (1, &clock), base, LOAD).unwrap_err();
    assert_eq!((race.address, race.other.block), (base, 0));
    // A read of other bytes of the word does not conflict.
    let (memory, base, order) = launch(2, 1);
    let at = (&memory, &order);
    let who = Who {
        block: 0,
        thread: 0,
        clock: &clock,
        access: Access::Store,
        strong: false,
        in_flight: false,
        issued: None,
        span: Span::default(),
    };
    assert!(order.access(&memory, &who, base, 2).is_ok());
    let reader = Who {
        block: 1,
        access: Access::Load,
        ..who
    };
    assert!(order.access(&memory, &reader, base + 2, 2).is_ok());
    assert!(access(at, (1, &clock), base, LOAD).is_err());
}

#[test]
fn a_read_then_a_write_by_another_block_races() {
    let (memory, base, order) = launch(3, 1);
    let at = (&memory, &order);
    let clock = Clock::default();
    assert!(access(at, (0, &clock), base, LOAD).is_ok());
    assert!(access(at, (1, &clock), base, LOAD).is_ok());
    assert_eq!(
        access(at, (1, &clock), base, STORE)
            .unwrap_err()
            .other
            .block,
        0
    );
}

#[test]
fn the_last_block_pattern_needs_both_fences() {
    for (writer_fences, reader_fences) in [(true, true), (false, true), (true, false)] {
        let (memory, base, order) = launch(2, 1);
        let at = (&memory, &order);
        let ticket = base + 32;
        let mut writer = Clock::default();
        assert!(access(at, (0, &writer), base, STORE).is_ok());
        if writer_fences {
            writer.fence(0, 0);
        }
        assert!(access(at, (0, &writer), ticket, ATOMIC).is_ok());
        order.sync(ticket, &mut writer, (0, 0), Sync::Relaxed);
        let mut reader = Clock::default();
        assert!(access(at, (1, &reader), ticket, ATOMIC).is_ok());
        order.sync(ticket, &mut reader, (1, 0), Sync::Relaxed);
        if reader_fences {
            reader.fence(1, 0);
        }
        let read = access(at, (1, &reader), base, LOAD);
        assert_eq!(read.is_ok(), writer_fences && reader_fences);
        // The ticket's last update is the reader's own: it may reset it.
        assert!(access(at, (1, &reader), ticket, STORE).is_ok());
    }
}

#[test]
fn a_release_store_then_an_acquire_load_orders() {
    let (memory, base, order) = launch(2, 1);
    let at = (&memory, &order);
    let flag = base + 32;
    let mut writer = Clock::default();
    assert!(access(at, (0, &writer), base, STORE).is_ok());
    assert!(access(at, (0, &writer), flag, ATOMIC).is_ok());
    order.sync(flag, &mut writer, (0, 0), Sync::StoreRelease);
    let mut reader = Clock::default();
    assert!(access(at, (1, &reader), flag, (Access::Load, true)).is_ok());
    order.sync(flag, &mut reader, (1, 0), Sync::LoadAcquire);
    assert!(access(at, (1, &reader), base, LOAD).is_ok());
    // A plain store to the flag afterwards hands nothing over.
    order.sync(flag, &mut writer, (0, 0), Sync::Store);
    let mut late = Clock::default();
    order.sync(flag, &mut late, (1, 1), Sync::LoadAcquire);
    assert!(!late.knows(&Stamp {
        block: 0,
        ..Stamp::default()
    }));
}

#[test]
fn atomics_of_two_blocks_do_not_race_but_a_plain_access_does() {
    let (memory, base, order) = launch(2, 1);
    let at = (&memory, &order);
    let clock = Clock::default();
    assert!(access(at, (0, &clock), base, ATOMIC).is_ok());
    assert!(access(at, (1, &clock), base, ATOMIC).is_ok());
    assert!(access(at, (0, &clock), base, LOAD).is_err());
}

#[test]
fn a_cluster_barrier_orders_the_blocks_of_its_cluster_only() {
    let (memory, base, order) = launch(4, 2);
    let at = (&memory, &order);
    let writer = Clock::default();
    assert!(access(at, (0, &writer), base, STORE).is_ok());
    let mut reader = Clock::default();
    assert!(access(at, (1, &reader), base + 4, STORE).is_ok());
    reader.cluster_arrive();
    reader.cluster_wait();
    // The phase is the arrivals the reader waited for: the writer's store came before
    // its first arrival.
    assert!(access(at, (1, &reader), base, LOAD).is_ok());
    assert!(access(at, (2, &reader), base + 4, LOAD).is_err());
}

/// Thread 0 of block 0's asynchronous `(access, strong)` with `clock`, in flight.
fn in_flight(clock: &Clock, (access, strong): (Access, bool)) -> Who<'_> {
    Who {
        block: 0,
        thread: 0,
        clock,
        access,
        strong,
        in_flight: true,
        issued: None,
        span: Span::default(),
    }
}

#[test]
fn a_write_in_flight_is_ordered_only_once_waited_for() {
    for waited in [false, true] {
        let (memory, base, order) = launch(2, 1);
        let flag = base + 32;
        let mut writer = Clock::default();
        let tma = in_flight(&writer, STORE);
        assert!(order.access(&memory, &tma, base, 4).is_ok());
        if waited {
            let complete = Who {
                in_flight: false,
                ..tma
            };
            assert!(order.access(&memory, &complete, base, 4).is_ok());
        }
        order.sync(flag, &mut writer, (0, 0), Sync::StoreRelease);
        let mut reader = Clock::default();
        order.sync(flag, &mut reader, (1, 0), Sync::LoadAcquire);
        let read = access((&memory, &order), (1, &reader), base, LOAD);
        assert_eq!(read.is_ok(), waited);
    }
}

/// Block 0's add, then its release, then block 1's add after acquiring it: with the add
/// waited for before the release the order holds; waited for only after it (as the
/// emulator may run the wait before block 1 starts), the GPU may land the adds either
/// way, and block 1's add is reported as unsettled.
#[test]
fn an_add_ordered_after_one_still_in_flight_is_unsettled() {
    for waited_first in [true, false] {
        let (memory, base, order) = launch(2, 1);
        let flag = base + 32;
        let mut adder = Clock::default();
        let add = in_flight(&adder, ATOMIC);
        assert!(order.access(&memory, &add, base, 4).is_ok());
        let issued = adder.moment();
        let land = |clock: &Clock| {
            let landed = Who {
                clock,
                in_flight: false,
                issued: Some(issued),
                ..add
            };
            order.access(&memory, &landed, base, 4).is_ok()
        };
        if waited_first {
            assert!(land(&adder));
        }
        order.sync(flag, &mut adder, (0, 0), Sync::StoreRelease);
        if !waited_first {
            assert!(land(&adder));
        }
        let mut next = Clock::default();
        order.sync(flag, &mut next, (1, 0), Sync::LoadAcquire);
        let second = access((&memory, &order), (1, &next), base, ATOMIC);
        assert_eq!(second.is_ok(), waited_first);
        if let Err(race) = second {
            assert!(race.unsettled);
        }
    }
}

/// Adds that nothing orders may land in any order: an add still in flight and another
/// block's add with no release and acquire between them are not reported.
#[test]
fn unordered_adds_are_not_unsettled() {
    let (memory, base, order) = launch(2, 1);
    let first = Clock::default();
    let add = in_flight(&first, ATOMIC);
    assert!(order.access(&memory, &add, base, 4).is_ok());
    let second = Clock::default();
    assert!(access((&memory, &order), (1, &second), base, ATOMIC).is_ok());
}
