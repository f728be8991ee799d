//! The GPU exchange without GPUs: the meeting of the ranks' offers, the agreement checks,
//! and the peer tables and hidden parameters every rank's launch gets.

use smallvec::smallvec;

use super::*;
use crate::marshal::ArgValue;

fn offer(index: usize, args: &[u64], staging: &str) -> Offer {
    Offer {
        index,
        args: args.to_vec(),
        symmetric: vec![("staging".to_owned(), staging.to_owned())],
    }
}

#[test]
fn every_rank_gets_every_offer_in_rank_order() {
    let exchange = Exchange::new(3);
    let met: Vec<Arc<[Offer]>> = std::thread::scope(|scope| {
        let ranks: Vec<_> = (0..3u32)
            .map(|rank| {
                let exchange = &exchange;
                scope.spawn(move || {
                    let mine = offer(7, &[u64::from(rank) << 32], "f32[16]");
                    exchange.meet(rank, mine, "k").unwrap()
                })
            })
            .collect();
        ranks.into_iter().map(|rank| rank.join().unwrap()).collect()
    });
    for offers in &met {
        let addresses: Vec<u64> = offers.iter().map(|offer| offer.args[0]).collect();
        assert_eq!(addresses, [0, 1 << 32, 2 << 32]);
    }
}

#[test]
fn a_rank_that_ends_without_launching_fails_the_others() {
    let exchange = Exchange::new(2);
    let failure = std::thread::scope(|scope| {
        let waiting = scope.spawn(|| exchange.meet(0, offer(0, &[1], "f32[16]"), "allreduce"));
        exchange.depart(1);
        waiting.join().unwrap()
    });
    assert_eq!(
        failure.unwrap_err().to_string(),
        "`allreduce` waits for rank 1, whose test body ended without launching it: every rank launches a symmetric kernel together"
    );
}

#[test]
fn ranks_disagreeing_on_a_symmetric_tensor_fail_naming_the_parameter() {
    let check = |offers: &[Offer]| {
        let launches: Vec<(usize, &[(String, String)])> = (offers.iter())
            .map(|offer| (offer.index, offer.symmetric.as_slice()))
            .collect();
        agree(&launches, "allreduce")
    };
    let offers = [offer(0, &[1], "bf16[4096]"), offer(0, &[2], "bf16[1000]")];
    assert_eq!(
        check(&offers).unwrap_err().to_string(),
        "the symmetric tensor `staging` of `allreduce` is bf16[4096] on rank 0 but bf16[1000] on rank 1: every rank passes the same shape and dtype"
    );
    let offers = [offer(0, &[1], "f32[8]"), offer(1, &[2], "f32[8]")];
    assert!(
        check(&offers)
            .unwrap_err()
            .to_string()
            .contains("different instantiations")
    );
    let offers = [offer(2, &[1], "f32[8]"), offer(2, &[2], "f32[8]")];
    assert_eq!(check(&offers), Ok(()));
}

/// A kernel `k(n: i32, x: gmem, staging: gmem, signals: gmem)` with `symmetric(staging,
/// signals)`: hidden `rank` (4), `world_size` (5), `peers_staging` (6),
/// `peers_signals` (7).
fn hidden() -> Hidden {
    Hidden {
        rank: 4,
        tables: vec![(6, 2), (7, 3)],
    }
}

#[test]
fn a_peer_table_holds_each_ranks_address_of_its_tensor() {
    let rank0 = [
        64,
        0x7f00_0000_1000,
        0x7f00_0000_2000,
        0x7f00_0000_3000,
        0,
        0,
        0,
        0,
    ];
    let rank1 = [
        64,
        0x7e00_0000_1000,
        0x7e00_0000_2000,
        0x7e00_0000_3000,
        0,
        0,
        0,
        0,
    ];
    let tables = hidden().tables(&[&rank0, &rank1]);
    let entries = |bytes: &[u8]| -> Vec<u64> {
        (bytes.chunks(8))
            .map(|entry| u64::from_le_bytes(entry.try_into().unwrap()))
            .collect()
    };
    assert_eq!(tables.len(), 2);
    assert_eq!(tables[0].0, 6);
    assert_eq!(entries(&tables[0].1), [0x7f00_0000_2000, 0x7e00_0000_2000]);
    assert_eq!(tables[1].0, 7);
    assert_eq!(entries(&tables[1].1), [0x7f00_0000_3000, 0x7e00_0000_3000]);
}

#[test]
fn filling_a_plan_sets_rank_world_and_tables_keeping_each_parameters_type() {
    let mut plan = LaunchPlan {
        args: smallvec![
            ArgValue::I32(64),
            ArgValue::Address(0x1000),
            ArgValue::Address(0x2000),
            ArgValue::Address(0x3000),
            ArgValue::I32(0),
            ArgValue::I32(0),
            ArgValue::U64(0),
            ArgValue::U64(0),
        ],
        maps: smallvec![],
        grid: [1, 1, 1],
        block: [256, 1, 1],
        cluster: [1, 1, 1],
        shared_bytes: 0,
    };
    hidden().fill(&mut plan, 3, 4, &[0xa000, 0xb000]);
    assert_eq!(
        plan.args.as_slice(),
        [
            ArgValue::I32(64),
            ArgValue::Address(0x1000),
            ArgValue::Address(0x2000),
            ArgValue::Address(0x3000),
            ArgValue::I32(3),
            ArgValue::I32(4),
            ArgValue::U64(0xa000),
            ArgValue::U64(0xb000),
        ]
    );
}
