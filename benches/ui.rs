//! Frame render time at 120x40 with 50 positions, and how many account patches a second the
//! stream fold and the UI state take in.

use std::hint::black_box;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use papertrade_tui::app::{App, Message, Mode, Tab};
use papertrade_tui::events::account::StreamEvent;
use papertrade_tui::events::market::MarketEvent;
use papertrade_tui::protocol::account::{AccountFold, Frame, Patch, StatePatch};
use papertrade_tui::protocol::trading::TradingState;
use papertrade_tui::ui::{draw, theme::Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;

const WALLET: &str = "0xa9f28db0543b215eb2705740f10258c3d000cefd";
const MARGIN: u128 = 10_000_000_000_000_000_000;

fn snapshot(positions: u64) -> Frame {
    let rows: Vec<_> = (0..positions)
        .rev()
        .map(|i| {
            json!([
                (500_000 + i).to_string(),
                (i % 2) as u32,
                i % 3 != 0,
                false,
                "830000",
                MARGIN.to_string(),
                100,
                "822000",
                1_791_862_800_000u64,
                null
            ])
        })
        .collect();
    let body = json!({
        "address": WALLET, "indexedThroughBlock": 1, "indexedThroughTimestamp": 1, "sessionKeys": [],
        "walletRevision": 1, "queueRevision": "1", "balance": "1000000000000000000000", "queued": "0",
        "locked": (MARGIN * u128::from(positions)).to_string(),
        "funds": {"reservedBalance": "0", "reservedQueued": "0", "availableBalance": "1000000000000000000000", "availableQueued": "0"},
        "queueNodeCount": 0, "consumableDebt": "0",
        "paper": {"balance": "0", "staked": "0", "pendingBase": "0", "rewardDebt": "0"},
        "lifetime": {"depositedRaw": "0", "withdrawnRaw": "0", "realizedPnlRaw": "0", "feesPaidRaw": "0", "tradedNotionalRaw": "0", "paperRewardsClaimedRaw": "0"},
        "openPositions": rows, "operations": [], "accountRevision": 1
    });
    Frame::decode(&body.to_string()).unwrap()
}

fn app_with(positions: u64) -> App {
    let mut app = App::new(Mode::Demo, Some(WALLET.parse().unwrap()));
    let state = TradingState::decode(include_str!("../assets/trading_mainnet.json")).unwrap();
    let at = UNIX_EPOCH + Duration::from_secs(1_791_862_900);
    app.handle(Message::Market(MarketEvent::Trading(Box::new(state), at)));
    app.handle(Message::Market(MarketEvent::Mark {
        instrument_id: 0,
        raw: 830_105,
        at,
    }));
    app.handle(Message::Market(MarketEvent::Mark {
        instrument_id: 1,
        raw: 250_001,
        at,
    }));
    let Frame::Snapshot(s) = snapshot(positions) else {
        unreachable!()
    };
    app.handle(Message::Stream(
        StreamEvent::Synced(s),
        std::time::SystemTime::UNIX_EPOCH,
    ));
    app
}

fn render(c: &mut Criterion) {
    let mut group = c.benchmark_group("render 120x40, 50 positions");
    for (tab, name) in [(Tab::Trade, "trade"), (Tab::Positions, "positions")] {
        let mut app = app_with(50);
        app.tab = tab;
        let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
        let now = SystemTime::now();
        group.bench_function(name, |b| {
            b.iter(|| {
                terminal
                    .draw(|f| draw(f, black_box(&app), &Theme::plain(), now))
                    .unwrap()
                    .area
            })
        });
    }
    group.finish();
}

/// A balance-only patch on top of `base` (the most common frame after a heartbeat).
fn balance_patch(base: u64, balance: u128) -> Patch {
    Patch {
        address: WALLET.parse().unwrap(),
        account_revision: base + 1,
        base_account_revision: base,
        state: StatePatch {
            balance: Some(balance),
            funds: Some(papertrade_tui::protocol::account::Funds {
                available_balance: balance,
                ..Default::default()
            }),
            ..StatePatch::default()
        },
        lifetime: None,
        added_positions: Vec::new(),
        removed_position_ids: Vec::new(),
        closed_positions: Vec::new(),
        added_operations: Vec::new(),
        removed_operation_ids: Vec::new(),
        intent_outcomes: Vec::new(),
    }
}

fn fold(c: &mut Criterion) {
    let patches: Vec<Frame> = (1..=1000u64)
        .map(|i| {
            Frame::Patch(Box::new(balance_patch(
                i,
                1_000_000_000_000_000_000_000 + u128::from(i),
            )))
        })
        .collect();
    let mut group = c.benchmark_group("account patches");
    group.throughput(Throughput::Elements(patches.len() as u64));
    group.bench_function("fold (stream task), 50 positions", |b| {
        b.iter(|| {
            let mut f = AccountFold::new(WALLET.parse().unwrap());
            f.fold(&snapshot(50)).unwrap();
            for p in &patches {
                black_box(f.fold(p).unwrap());
            }
        })
    });
    group.bench_function("decode + fold + UI state, 50 positions", |b| {
        let texts: Vec<String> = patches.iter().map(Frame::to_json).collect();
        b.iter(|| {
            let mut f = AccountFold::new(WALLET.parse().unwrap());
            f.fold(&snapshot(50)).unwrap();
            let mut app = app_with(50);
            for t in &texts {
                let frame = Frame::decode(t).unwrap();
                f.fold(&frame).unwrap();
                app.handle(Message::Stream(
                    StreamEvent::Patched {
                        state: Box::new(f.state().unwrap().clone()),
                        closed: Vec::new(),
                        outcomes: Vec::new(),
                    },
                    std::time::SystemTime::UNIX_EPOCH,
                ));
            }
            black_box(app.dirty)
        })
    });
    group.finish();
}

/// One crowd wallet's snapshot: `positions` across leverages and both sides, each with the bust
/// its leverage puts it at, in both markets.
fn crowd_snapshot(wallet: u64, positions: u64) -> papertrade_tui::protocol::account::AccountState {
    const LEVERAGES: [u64; 9] = [2, 5, 10, 25, 50, 100, 250, 500, 1000];
    let rows: Vec<_> = (0..positions)
        .map(|i| {
            let leverage = LEVERAGES[((wallet + i) % 9) as usize];
            let long = (wallet + i).is_multiple_of(2);
            let (market, entry) = if i % 3 == 0 {
                (1, 250_000u64)
            } else {
                (0, 830_000u64)
            };
            let room = entry / leverage;
            let bust = if long { entry - room } else { entry + room };
            json!([
                (wallet * 1_000 + i).to_string(),
                market,
                long,
                false,
                entry.to_string(),
                MARGIN.to_string(),
                leverage,
                bust.to_string(),
                1_791_862_800_000u64,
                null
            ])
        })
        .collect();
    let body = json!({
        "address": format!("0x{wallet:040x}"), "indexedThroughBlock": 1, "indexedThroughTimestamp": 1, "sessionKeys": [],
        "walletRevision": 1, "queueRevision": "1", "balance": "1000000000000000000000", "queued": "0",
        "locked": (MARGIN * u128::from(positions)).to_string(),
        "funds": {"reservedBalance": "0", "reservedQueued": "0", "availableBalance": "1000000000000000000000", "availableQueued": "0"},
        "queueNodeCount": 0, "consumableDebt": "0",
        "paper": {"balance": "0", "staked": "0", "pendingBase": "0", "rewardDebt": "0"},
        "lifetime": {"depositedRaw": "0", "withdrawnRaw": "0", "realizedPnlRaw": "0", "feesPaidRaw": "0", "tradedNotionalRaw": "0", "paperRewardsClaimedRaw": "0"},
        "openPositions": rows, "operations": [], "accountRevision": 1
    });
    match Frame::decode(&body.to_string()).unwrap() {
        Frame::Snapshot(s) => *s,
        Frame::Patch(_) => unreachable!(),
    }
}

/// The Liquidations tab over the largest scan the seed allows (44 wallets, 23 positions each:
/// 1,012 positions), every figure recomputed each frame from the scan.
fn render_liquidations(c: &mut Criterion) {
    use papertrade_tui::analytics::liquidations::MAX_WALLETS;
    use papertrade_tui::app::explore::Fetched;
    use papertrade_tui::events::scan::{Scan, Scanned};
    let mut app = app_with(2);
    let now = UNIX_EPOCH + Duration::from_secs(1_791_862_900);
    app.explore.liquidations.wallets = MAX_WALLETS;
    app.tab = Tab::Liquidations;
    app.handle(Message::Tick(now));
    let wallets = (1..=MAX_WALLETS as u64)
        .map(|w| Scanned {
            wallet: format!("0x{w:040x}").parse().unwrap(),
            snapshot: Ok(crowd_snapshot(w, 23)),
        })
        .collect();
    let scan = Scan {
        wallets,
        leaderboard_accounts: Some(300),
        took: Duration::from_millis(900),
    };
    app.handle(Message::Fetched(Fetched::Scan(MAX_WALLETS, Ok(scan)), now));
    assert!(
        app.explore.liquidations.scan.value.is_some(),
        "the scan was taken in"
    );
    let mut group = c.benchmark_group("render liquidations, 1,012 positions");
    for (w, h) in [(80, 24), (120, 40)] {
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        group.bench_function(format!("{w}x{h}"), |b| {
            b.iter(|| {
                terminal
                    .draw(|f| draw(f, black_box(&app), &Theme::plain(), now))
                    .unwrap()
                    .area
            })
        });
    }
    group.finish();
}

criterion_group!(benches, render, render_liquidations, fold);
criterion_main!(benches);
