//! The local trade history at its cap: reading a full file's text into the history (decode,
//! merge by position id, totals), and drawing the History tab at 120x40 over it.

use std::hint::black_box;
use std::time::UNIX_EPOCH;

use alloy_primitives::U256;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use papertrade_tui::app::{App, Message, Mode, Tab};
use papertrade_tui::protocol::account::ClosedPosition;
use papertrade_tui::protocol::history::{
    ClosedTrade, LoadedHistory, MAX_TRADES, TradeHistory, decode_lines,
};
use papertrade_tui::ui::{draw, theme::Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn trade(i: u64) -> ClosedTrade {
    ClosedTrade {
        closed: ClosedPosition {
            id: U256::from(400_000 + i),
            instrument_id: (i % 2) as u32,
            is_long: i.is_multiple_of(3),
            margin: 10_000_000_000_000_000_000,
            leverage: 100,
            liquidated: i.is_multiple_of(7),
            net_pnl: (i as i128 % 11 - 5) * 100_000_000_000_000_000,
            paper_minted: 2_766_363_925_334_821_349,
        },
        symbol: Some(if i.is_multiple_of(2) { "BTC" } else { "ETH" }.into()),
        price_scale: Some(if i.is_multiple_of(2) { 10 } else { 100 }),
        entry_raw: Some(832_245),
        opened_at_ms: Some(1_791_862_800_000),
        exit_raw: (!i.is_multiple_of(5)).then_some(832_155),
        closed_at_ms: Some(1_791_862_860_000 + i * 60_000),
        seen_at_ms: 1_791_862_861_000 + i * 60_000,
    }
}

fn history(c: &mut Criterion) {
    let trades: Vec<ClosedTrade> = (0..MAX_TRADES as u64).map(trade).collect();
    // Each close written twice: first seen, then with what the feed added.
    let text: String = trades
        .iter()
        .flat_map(|t| [t.to_line(), t.to_line()])
        .map(|l| l + "\n")
        .collect();
    let mut group = c.benchmark_group("history");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("read a full file (20000 lines)", |b| {
        b.iter(|| {
            let decoded = decode_lines(black_box(text.as_bytes()), false);
            let (trades, skipped) = (decoded.trades, decoded.skipped);
            let mut h = TradeHistory::new();
            h.extend(trades);
            (h.totals(), skipped)
        })
    });
    group.finish();

    let mut app = App::new(Mode::Watch, Some(Default::default()));
    app.handle(Message::HistoryLoaded(LoadedHistory {
        trades,
        ..Default::default()
    }));
    app.tab = Tab::History;
    app.history_cursor = MAX_TRADES / 2;
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let now = UNIX_EPOCH + std::time::Duration::from_secs(1_791_862_900);
    c.bench_function("render History 120x40, 10000 closes", |b| {
        b.iter(|| {
            terminal
                .draw(|f| draw(f, black_box(&app), &Theme::plain(), now))
                .unwrap()
                .area
        })
    });
}

criterion_group!(benches, history);
criterion_main!(benches);
