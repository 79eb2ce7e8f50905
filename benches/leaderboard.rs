//! The leaderboard fold: ranking the pages read, sanitising every name, a local name or address
//! search and cutting one page of 25 — over a scan's worth of wallets (10 pages of 200).

use std::hint::black_box;

use alloy_primitives::Address;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use papertrade_tui::analytics::leaderboard::{Request, leaderboard};
use papertrade_tui::protocol::leaderboard::{
    LeaderRow, LeaderboardPage, LeaderboardSummary, PageInfo, SortDir, SortKey, Window,
};

const NAMES: [&str; 6] = [
    "satoshi_fan",
    "\u{1b}[31mRED ALERT\u{1b}[0m",
    "whale 🐋",
    "\u{202e}gnol",
    "line\nbreak",
    "tortoise",
];

fn pages(wallets: usize) -> Vec<(u64, LeaderboardPage)> {
    let rows: Vec<LeaderRow> = (0..wallets)
        .map(|i| {
            let mut bytes = [0u8; 20];
            bytes[12..].copy_from_slice(&(i as u64 + 1).to_be_bytes());
            let figure = Some((wallets - i) as i128 * 1_000_000_000_000_000_000);
            LeaderRow {
                address: Address::from(bytes),
                leaderboard_name: (i % 7 != 0).then(|| format!("{} {i}", NAMES[i % NAMES.len()])),
                total_windowed_pnl: figure,
                realized_pnl: figure,
                current_unrealized_pnl: Some(0),
                current_balance: figure,
                current_queued: Some(0),
                current_open_notional: figure,
                total_volume: figure,
                paper_total: figure,
                current_open_position_count: Some((i % 5) as i128),
            }
        })
        .collect();
    rows.chunks(200)
        .enumerate()
        .map(|(n, chunk)| {
            (
                (n * 200) as u64,
                LeaderboardPage {
                    ok: true,
                    summary: LeaderboardSummary {
                        unique_accounts: wallets as u64,
                        tracked_balance: 0,
                    },
                    accounts: chunk.to_vec(),
                    page_info: PageInfo {
                        total_pages: wallets.div_ceil(200) as u64,
                    },
                },
            )
        })
        .collect()
}

fn fold(c: &mut Criterion) {
    let read = pages(2_000);
    let request = |query: Option<&str>| Request {
        window: Window::Day,
        sort_key: SortKey::TotalWindowedPnl,
        sort_dir: SortDir::Desc,
        page: 1,
        query: query.map(str::to_string),
    };
    let mut group = c.benchmark_group("leaderboard");
    group.throughput(Throughput::Elements(2_000));
    group.bench_function("search 2000 wallets by name", |b| {
        b.iter(|| black_box(leaderboard(request(Some("whale")), black_box(&read))))
    });
    group.bench_function("search 2000 wallets by address", |b| {
        b.iter(|| {
            black_box(leaderboard(
                request(Some("0x00000000000000000000000000000000000007d0")),
                black_box(&read),
            ))
        })
    });
    group.finish();
    let one = pages(25);
    let mut group = c.benchmark_group("leaderboard");
    group.throughput(Throughput::Elements(25));
    group.bench_function("one page of 25", |b| {
        b.iter(|| black_box(leaderboard(request(None), black_box(&one))))
    });
    group.finish();
}

criterion_group!(benches, fold);
criterion_main!(benches);
