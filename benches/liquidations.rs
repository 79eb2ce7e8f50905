//! The liquidation map over a scan's worth of positions: 1,000 open positions of 44 wallets
//! valued at the mark (`book`), then the bust map (40 and 200 buckets, with a cascade), the
//! clusters and the closest-to-bust ranking.

use std::collections::BTreeMap;
use std::hint::black_box;

use alloy_primitives::{Address, U256};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use papertrade_tui::analytics::liquidations::{
    ClosestQuery, book, bust_map, closest, clusters, default_bucket,
};
use papertrade_tui::protocol::account::{AccountState, Frame, Position};
use papertrade_tui::protocol::math::bust_price;
use papertrade_tui::protocol::trading::TradingState;

const POSITIONS: usize = 1_000;

/// 44 accounts holding 1,000 BTC positions of every leverage, both sides, entries around the mark.
fn accounts(state: &TradingState, mark: u64) -> Vec<AccountState> {
    let btc = state.market("BTC").unwrap();
    // The trimmed real snapshot of §3.2, its one position dropped.
    let template = r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","indexedThroughBlock":48399590,
 "indexedThroughTimestamp":1791862827,"sessionKeys":[],"walletRevision":48399562,"queueRevision":"881",
 "balance":"234249163328500998503","queued":"0","locked":"0",
 "funds":{"reservedBalance":"0","reservedQueued":"0","availableBalance":"234249163328500998503","availableQueued":"0"},
 "queueNodeCount":0,"consumableDebt":"0",
 "paper":{"balance":"0","staked":"0","pendingBase":"0","rewardDebt":"0"},
 "lifetime":{"depositedRaw":"0","withdrawnRaw":"0","realizedPnlRaw":"0","feesPaidRaw":"0","tradedNotionalRaw":"0","paperRewardsClaimedRaw":"0"},
 "openPositions":[],"operations":[],"accountRevision":1}"#;
    let wad = 1_000_000_000_000_000_000u128;
    let mut out: Vec<AccountState> = (0..44u8)
        .map(|i| {
            let Frame::Snapshot(mut s) = Frame::decode(template).unwrap() else {
                unreachable!("the template is a snapshot")
            };
            s.address = Address::repeat_byte(i + 1);
            *s
        })
        .collect();
    for i in 0..POSITIONS as u64 {
        let leverage = [2, 5, 10, 25, 50, 100, 250, 500, 1000][(i % 9) as usize];
        let is_long = i % 2 == 0;
        let entry = mark - 2_000 + (i * 37) % 4_000;
        let margin = (10 + i % 400) as u128 * wad;
        out[(i % 44) as usize].open_positions.push(Position {
            id: U256::from(400_000 + i),
            instrument_id: btc.id,
            is_long,
            use_debt: false,
            entry_price: entry,
            margin,
            leverage,
            bust_price: bust_price(entry, leverage, is_long, btc.bust_buffer),
            opened_at_ms: 0,
            intent_id: None,
        });
    }
    out
}

fn liquidations(c: &mut Criterion) {
    let state = TradingState::decode(include_str!("../assets/trading_mainnet.json")).unwrap();
    let mark = 828_003u64;
    let marks: BTreeMap<u32, u64> = [(0, mark), (1, 250_001)].into();
    let accounts = accounts(&state, mark);
    let valued = book(&accounts, &state, &marks);
    assert_eq!(valued.positions.len(), POSITIONS);
    let btc: Vec<_> = valued.in_market(Some(0)).collect();
    let bucket = default_bucket(mark);

    let mut group = c.benchmark_group("liquidations");
    group.throughput(Throughput::Elements(POSITIONS as u64));
    group.bench_function("book of 1000 positions", |b| {
        b.iter(|| black_box(book(black_box(&accounts), &state, &marks)))
    });
    group.bench_function("bust map 40 buckets + cascade", |b| {
        b.iter(|| black_box(bust_map(black_box(&btc), mark, 10, bucket, 40, Some(250))))
    });
    group.bench_function("bust map 200 buckets + cascade", |b| {
        b.iter(|| black_box(bust_map(black_box(&btc), mark, 10, bucket, 200, Some(250))))
    });
    group.bench_function("clusters 10 a side", |b| {
        b.iter(|| black_box(clusters(black_box(&btc), mark, 10, bucket, 10)))
    });
    let q = ClosestQuery {
        instrument_id: None,
        is_long: None,
        max_distance_e5: None,
        limit: 50,
    };
    group.bench_function("closest to bust, top 50", |b| {
        b.iter(|| black_box(closest(black_box(&valued), &q)))
    });
    group.finish();
}

criterion_group!(benches, liquidations);
criterion_main!(benches);
