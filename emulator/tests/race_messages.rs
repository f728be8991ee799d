//! The words of a race with an asynchronous reader of shared memory (a tcgen05.mma, a
//! wgmma, a TMA store): the message names the operation and the missing wait, the
//! diagnostic labels the reading instruction and says what to do; a race between two
//! plain accesses asks for a barrier, and one with a peer block's access (distributed
//! shared memory) for the cluster barrier.

use emulator::{Access, Fault, FaultKind, Location};
use lang::Span;

/// A store of thread (1, 0, 0) at byte 0x40 racing `other_access` of thread (0, 0, 0).
fn race(other_access: Access) -> Fault {
    Fault {
        kind: FaultKind::Race {
            access: Access::Store,
            address: 0x40,
            other_access,
            other: [0, 0, 0],
            other_rank: None,
            cluster: false,
            other_span: Span::new(10, 20),
        },
        span: Span::new(30, 40),
        location: Some(Location {
            thread: [1, 0, 0],
            block: [0, 0, 0],
        }),
    }
}

#[test]
fn each_asynchronous_reader_names_its_operation_wait_and_fix() {
    let cases = [
        (
            Access::UmmaRead,
            "which a tcgen05.mma of thread (0, 0, 0) may still be reading: the writer has not waited for the phase its commit completes",
            "a tcgen05.mma of thread (0, 0, 0) reads it here",
            "tcgen05_commit",
        ),
        (
            Access::WgmmaRead,
            "which a wgmma of thread (0, 0, 0) may still be reading: no `wgmma_wait_group` covering it lies between them",
            "a wgmma of thread (0, 0, 0) reads it here",
            "wgmma_wait_group(n)",
        ),
        (
            Access::BulkRead,
            "which a TMA store of thread (0, 0, 0) may still be reading: no wait for its bulk group lies between them",
            "thread (0, 0, 0) stores from it with TMA here",
            "tma_store_wait_group(n)",
        ),
    ];
    for (reader, message, label, help) in cases {
        let fault = race(reader);
        let text = fault.to_string();
        assert!(text.contains("data race in shared memory"), "{text}");
        assert!(text.contains("stores byte 0x40"), "{text}");
        assert!(text.contains(message), "{reader:?}: {text}");
        let diagnostic = fault.to_diagnostic();
        assert_eq!(diagnostic.code, "E0404");
        assert_eq!(diagnostic.primary.message, "this write");
        assert_eq!(diagnostic.secondary.len(), 1);
        assert_eq!(diagnostic.secondary[0].span, Span::new(10, 20));
        assert_eq!(diagnostic.secondary[0].message, label);
        let advice = diagnostic.help.unwrap_or_default();
        assert!(advice.contains(help), "{reader:?}: {advice}");
    }
}

#[test]
fn a_race_between_plain_accesses_asks_for_a_barrier() {
    let fault = race(Access::Load);
    assert!(
        fault
            .to_string()
            .contains("which thread (0, 0, 0) read with no barrier between them"),
        "{fault}"
    );
    let diagnostic = fault.to_diagnostic();
    assert_eq!(
        diagnostic.secondary[0].message,
        "thread (0, 0, 0) read it here"
    );
    assert!(
        diagnostic
            .help
            .unwrap_or_default()
            .contains("syncthreads()")
    );
}

#[test]
fn a_race_with_a_peer_block_names_it_and_asks_for_the_cluster_barrier() {
    let mut fault = race(Access::Store);
    if let FaultKind::Race {
        other_rank,
        cluster,
        ..
    } = &mut fault.kind
    {
        *other_rank = Some(2);
        *cluster = true;
    }
    let text = fault.to_string();
    assert!(
        text.contains(
            "which thread (0, 0, 0) of the cluster's block 2 wrote with no cluster barrier between them"
        ),
        "{text}"
    );
    let diagnostic = fault.to_diagnostic();
    assert_eq!(diagnostic.code, "E0404");
    assert_eq!(
        diagnostic.secondary[0].message,
        "thread (0, 0, 0) of block 2 wrote it here"
    );
    assert!(
        (diagnostic.help.unwrap_or_default()).contains("cluster_sync()"),
        "{text}"
    );
}
