//! How many quotes (bust price + close valuation + win fee) the protocol math does per second,
//! and the signing path (EIP-712 digest + RFC 6979 signature + intent id).

use std::hint::black_box;

use alloy_primitives::{Address, U256};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use papertrade_tui::protocol::eip712::{OpenPosition, SessionSigner};
use papertrade_tui::protocol::math::{bust_price, value_close};
use papertrade_tui::protocol::pretrade::Position;
use papertrade_tui::protocol::trading::TradingState;

fn quote_math(c: &mut Criterion) {
    let state = TradingState::decode(include_str!("../assets/trading_mainnet.json")).unwrap();
    let btc = state.market("BTC").unwrap();
    let fee = state.win_fee_rate();
    let wad = 1_000_000_000_000_000_000u128;
    // A spread of entries, leverages and exits: wins, losses, flat and liquidated.
    let cases: Vec<(u64, u32, bool, u64)> = (0..1024u64)
        .map(|i| {
            let entry = 800_000 + i * 37;
            let leverage = [1, 10, 100, 500, 1000][(i % 5) as usize];
            let exit = entry + (i % 41) * 13 - 260;
            (entry, leverage, i % 2 == 0, exit)
        })
        .collect();

    let mut group = c.benchmark_group("quote");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("bust+valuation+fee", |b| {
        b.iter(|| {
            for &(entry, leverage, is_long, exit) in &cases {
                black_box(bust_price(entry, leverage, is_long, btc.bust_buffer));
                black_box(value_close(
                    btc,
                    fee,
                    entry,
                    100 * wad,
                    leverage,
                    is_long,
                    exit,
                ));
            }
        })
    });
    group.bench_function("scenario (with liquidation test)", |b| {
        b.iter(|| {
            for &(entry, leverage, is_long, exit) in &cases {
                let p = Position {
                    market: btc,
                    is_long,
                    margin: 100 * wad,
                    leverage,
                    entry,
                };
                black_box(p.scenario(fee, exit));
            }
        })
    });
    group.finish();

    let key = SessionSigner::random();
    let mut group = c.benchmark_group("signing");
    group.throughput(Throughput::Elements(1));
    group.bench_function("sign open + intent id", |b| {
        let mut nonce = 0u64;
        b.iter(|| {
            nonce += 1;
            let open = OpenPosition {
                user: Address::repeat_byte(0x14),
                instrumentId: 0,
                isLong: true,
                size: 10 * wad,
                leverage: 1000,
                useDebt: false,
                nonce: U256::from(nonce),
                deadline: 1_791_864_000,
            };
            let signed = key.sign(open).unwrap();
            black_box(signed.intent_id())
        })
    });
    group.finish();
}

criterion_group!(benches, quote_math);
criterion_main!(benches);
