//! `get_trade_history`: a wallet's closed and liquidated trades, newest first, paged.
//!
//! The exchange's paged trade history read is unknown (§10.1), so the history is what can be
//! derived: this machine's own history file of the wallet (`history/<wallet>.jsonl`, written
//! by every process that followed its account stream: the stream's exact close with entry and
//! exit, and marks saying since when it is complete), the recent-trades
//! feed's close and liquidation rows of the wallet (§3.7, the latest 50 across the protocol; the
//! same feed's open row gives the entry) and the closed positions the account stream reported
//! while it was followed (§3.2 `closedPositions`: exact net PnL and PAPER minted). Older trades
//! are not available from this exchange; the result says how far back it reaches rather than
//! pretending to be complete.

use std::collections::BTreeMap;

use alloy_primitives::{Address, U256};
use serde_json::{Value, json};

use crate::protocol::account::ClosedPosition;
use crate::protocol::history::{LoadedHistory, TradeHistory};
use crate::protocol::reads::{RecentTrades, Side, TradeKind};
use crate::protocol::trading::TradingState;
use crate::protocol::units::price_f64;

use super::{raw, usd, usd_u};

/// Trades per page, as the explorer serves them [S2].
pub const PAGE_SIZE: usize = 75;

/// What is not available, said once in every result.
pub const HISTORY_NOTE: &str = "older trades are not available from this exchange (no paged trade-history read is published, protocol.md §10.1): this is this machine's history file of the wallet (every close any command, UI or --watch of this data dir saw on the wallet's account stream; `complete` says since when none is missing), the recent-trades feed (latest 50 across the protocol) and the closes the account stream reported while it was followed";

/// One closed trade as far as the sources tell it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClosedTrade {
    pub position_id: U256,
    pub market: String,
    pub is_long: bool,
    pub leverage: Option<u32>,
    /// Exact, from the stream.
    pub margin: Option<u128>,
    pub net_pnl: Option<i128>,
    pub paper_minted: Option<u128>,
    /// Display floats from the feed.
    pub notional_usd: Option<f64>,
    pub entry: Option<f64>,
    pub exit: Option<f64>,
    pub feed_pnl_usd: Option<f64>,
    pub liquidated: bool,
    /// ms: the feed's time, else the history file's (the exchange's close time it recorded,
    /// else when that client saw it), else when the stream reported it now.
    pub time: Option<u64>,
    pub from_stream: bool,
    pub from_feed: bool,
    /// From this client's history file of the wallet.
    pub from_file: bool,
}

impl ClosedTrade {
    /// Which reads the row came from: `history_file`, `feed`, `stream`.
    pub fn sources(&self) -> Vec<&'static str> {
        [
            self.from_file.then_some("history_file"),
            self.from_feed.then_some("feed"),
            self.from_stream.then_some("stream"),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    fn is_loss(&self) -> bool {
        match (self.net_pnl, self.feed_pnl_usd) {
            (Some(n), _) => n < 0,
            (None, Some(p)) => p < 0.0,
            (None, None) => self.liquidated,
        }
    }
}

/// `all` or `losses`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    All,
    Losses,
}

impl Filter {
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "all" => Some(Filter::All),
            "losses" => Some(Filter::Losses),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Filter::All => "all",
            Filter::Losses => "losses",
        }
    }
}

/// What the wallet's history file gave, said beside the trades.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileSummary {
    /// Closes in it (one per position).
    pub records: usize,
    /// Lines that were not records.
    pub skipped: usize,
    /// Only its newest part was read.
    pub truncated: bool,
    /// It could not be read (the other sources still answer).
    pub error: Option<String>,
    /// How far back its records are complete.
    pub coverage: crate::protocol::coverage::Coverage,
}

/// A row with nothing known beyond what every source says: id, market, side, liquidated.
fn blank(position_id: U256, market: String, is_long: bool, liquidated: bool) -> ClosedTrade {
    ClosedTrade {
        position_id,
        market,
        is_long,
        leverage: None,
        margin: None,
        net_pnl: None,
        paper_minted: None,
        notional_usd: None,
        entry: None,
        exit: None,
        feed_pnl_usd: None,
        liquidated,
        time: None,
        from_stream: false,
        from_feed: false,
        from_file: false,
    }
}

/// The stream's exact figures of a close (from the stream now, or as the history file kept them).
fn take_exact(row: &mut ClosedTrade, c: &ClosedPosition) {
    row.leverage = Some(c.leverage);
    row.margin = Some(c.margin);
    row.net_pnl = Some(c.net_pnl);
    row.paper_minted = Some(c.paper_minted);
    row.liquidated = c.liquidated;
}

/// Merge the sources by position id, newest first (then the higher id first): the wallet's
/// history file (`file`, its lines in file order), the feed, and what the stream reported now.
pub fn closed_trades(
    wallet: Address,
    file: &LoadedHistory,
    feed: &RecentTrades,
    streamed: &[(ClosedPosition, u64)],
    trading: &TradingState,
) -> (Vec<ClosedTrade>, FileSummary) {
    let market_name = |instrument_id: u32| {
        trading
            .market_by_id(instrument_id)
            .map(|m| crate::text::sanitize_line(&m.symbol, 16))
            .unwrap_or_else(|| format!("#{instrument_id}"))
    };
    let mut by_id: BTreeMap<U256, ClosedTrade> = BTreeMap::new();
    // The file's lines merged the way the History tab merges them: one record per position.
    let mut kept = TradeHistory::new();
    kept.load(file);
    for r in kept.newest_first() {
        let market = r
            .symbol
            .as_deref()
            .map(|s| crate::text::sanitize_line(s, 16))
            .unwrap_or_else(|| market_name(r.closed.instrument_id));
        let mut row = blank(r.id(), market, r.closed.is_long, r.closed.liquidated);
        take_exact(&mut row, &r.closed);
        let at = |raw: Option<u64>| raw.zip(r.price_scale).map(|(p, s)| price_f64(p, s));
        row.entry = at(r.entry_raw);
        row.exit = at(r.exit_raw);
        row.time = Some(r.time_ms().0);
        row.from_file = true;
        by_id.insert(r.id(), row);
    }
    let summary = FileSummary {
        records: kept.len(),
        skipped: file.skipped,
        truncated: file.truncated || kept.dropped() > 0,
        error: file.error.clone(),
        coverage: kept.coverage().clone(),
    };
    let mut entries: BTreeMap<U256, f64> = BTreeMap::new();
    for e in feed.events.iter().filter(|e| e.wallet == wallet) {
        let Some(id) = e.position_id.map(U256::from) else {
            continue;
        };
        match e.kind {
            TradeKind::Open => {
                if let Some(entry) = e.entry {
                    entries.insert(id, entry);
                }
            }
            TradeKind::Close | TradeKind::Liq => {
                let row = by_id.entry(id).or_insert_with(|| {
                    let mut row = blank(
                        id,
                        crate::text::sanitize_line(&e.instrument, 16),
                        e.side == Side::Long,
                        e.kind == TradeKind::Liq,
                    );
                    row.leverage = Some(e.leverage);
                    row
                });
                row.notional_usd = Some(e.notional_usd);
                // The file's exit was read exactly from this same feed row when it had one.
                row.exit = row.exit.or(e.exit);
                row.feed_pnl_usd = e.pnl_usd;
                row.time = Some(e.ts);
                row.from_feed = true;
            }
        }
    }
    for (c, seen_ms) in streamed {
        let row = by_id.entry(c.id).or_insert_with(|| {
            let mut row = blank(c.id, market_name(c.instrument_id), c.is_long, c.liquidated);
            row.time = Some(*seen_ms);
            row
        });
        take_exact(row, c);
        row.from_stream = true;
    }
    let mut out: Vec<ClosedTrade> = by_id
        .into_values()
        .map(|mut t| {
            t.entry = t.entry.or_else(|| entries.get(&t.position_id).copied());
            t
        })
        .collect();
    out.sort_by(|a, b| b.time.cmp(&a.time).then(b.position_id.cmp(&a.position_id)));
    (out, summary)
}

/// One page of a wallet's history.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryPage {
    pub address: Address,
    pub filter: Filter,
    pub page: usize,
    pub limit: usize,
    pub total: usize,
    pub trades: Vec<ClosedTrade>,
    pub file: FileSummary,
}

pub fn page(
    address: Address,
    (trades, file): (Vec<ClosedTrade>, FileSummary),
    filter: Filter,
    page: usize,
    limit: usize,
) -> HistoryPage {
    let kept: Vec<ClosedTrade> = trades
        .into_iter()
        .filter(|t| filter == Filter::All || t.is_loss())
        .collect();
    let total = kept.len();
    HistoryPage {
        address,
        filter,
        page,
        limit,
        total,
        trades: kept
            .into_iter()
            .skip(page.saturating_mul(limit))
            .take(limit)
            .collect(),
        file,
    }
}

impl HistoryPage {
    /// Whether another page follows.
    pub fn has_more(&self) -> bool {
        self.page.saturating_add(1).saturating_mul(self.limit) < self.total
    }

    /// `get_trade_history`'s structured result: `address`, `trades`, `next_cursor` (here the
    /// next page number, as a string, or `null`).
    pub fn json(&self) -> Value {
        json!({
            "address": format!("{:#x}", self.address),
            "filter": self.filter.name(),
            "page": self.page,
            "limit": self.limit,
            "total": self.total,
            "next_cursor": self.has_more().then(|| (self.page + 1).to_string()),
            "trades": self.trades.iter().map(|t| json!({
                "position_id": t.position_id.to_string(),
                "market": t.market,
                "side": if t.is_long { "long" } else { "short" },
                "leverage": t.leverage,
                "margin_usd": t.margin.map(usd_u),
                "margin_raw": t.margin.map(raw),
                "notional_usd": t.notional_usd,
                "entry": t.entry,
                "exit": t.exit,
                "net_pnl_usd": t.net_pnl.map(usd).or_else(|| t.feed_pnl_usd.map(|p| json!(p))),
                "net_pnl_raw": t.net_pnl.map(raw),
                "paper_minted": t.paper_minted.map(usd_u),
                "paper_minted_raw": t.paper_minted.map(raw),
                "liquidated": t.liquidated,
                "time": t.time,
                "settlement_tx": Value::Null,
                "sources": t.sources(),
            })).collect::<Vec<_>>(),
            "history_file": {
                "records": self.file.records,
                "skipped_lines": self.file.skipped,
                "truncated": self.file.truncated,
                "error": self.file.error,
            },
            "complete": self.file.coverage.json(),
            "note": HISTORY_NOTE,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::history::ClosedTrade as Record;
    use crate::protocol::reads::TradeEvent;

    fn trading() -> TradingState {
        TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap()
    }

    fn event(kind: TradeKind, id: u128, ts: u64, wallet: Address) -> TradeEvent {
        TradeEvent {
            seq: ts,
            ts,
            wallet,
            instrument: "BTC".into(),
            instrument_id: 0,
            instrument_terminal: false,
            side: Side::Long,
            leverage: 100,
            notional_usd: 1000.0,
            intent_id: None,
            position_id: Some(id),
            kind,
            entry: (kind == TradeKind::Open).then_some(82_000.5),
            exit: (kind != TradeKind::Open).then_some(82_100.0),
            pnl_usd: (kind != TradeKind::Open).then_some(-0.11),
        }
    }

    fn closed(id: u64, net: i128, liquidated: bool) -> ClosedPosition {
        ClosedPosition {
            id: U256::from(id),
            instrument_id: 0,
            is_long: true,
            margin: 10 * crate::protocol::units::WAD,
            leverage: 100,
            liquidated,
            net_pnl: net,
            paper_minted: 7,
        }
    }

    #[test]
    fn the_feed_and_the_stream_merge_by_position_newest_first() {
        let me = Address::with_last_byte(1);
        let other = Address::with_last_byte(2);
        let feed = RecentTrades {
            ok: true,
            count: 4,
            events: vec![
                event(TradeKind::Close, 11, 300, me),
                event(TradeKind::Close, 12, 200, other),
                event(TradeKind::Open, 11, 100, me),
                event(TradeKind::Liq, 10, 50, me),
            ],
        };
        // The stream saw position 11 close (exact figures) and 13, which the feed lacks.
        let streamed = vec![(closed(11, -108, false), 310), (closed(13, 5, false), 400)];
        let (trades, file) =
            closed_trades(me, &LoadedHistory::default(), &feed, &streamed, &trading());
        assert_eq!(file, FileSummary::default());
        let ids: Vec<u64> = trades.iter().map(|t| t.position_id.to::<u64>()).collect();
        assert_eq!(ids, vec![13, 11, 10]);
        let merged = &trades[1];
        assert_eq!(merged.net_pnl, Some(-108));
        assert_eq!(merged.entry, Some(82_000.5));
        assert_eq!(merged.time, Some(300));
        assert_eq!(merged.sources(), vec!["feed", "stream"]);
        assert!(trades[2].liquidated);
        assert_eq!(trades[0].market, "BTC");
        let losses = page(me, (trades, file), Filter::Losses, 0, 75);
        let kept: Vec<u64> = losses
            .trades
            .iter()
            .map(|t| t.position_id.to::<u64>())
            .collect();
        assert_eq!(kept, vec![11, 10]);
        assert!(!losses.has_more());
    }

    fn record(c: ClosedPosition, entry: u64, exit: Option<u64>, closed_at: Option<u64>) -> Record {
        Record {
            closed: c,
            symbol: Some("BTC\u{1b}[2J".into()),
            price_scale: Some(10),
            entry_raw: Some(entry),
            opened_at_ms: Some(1),
            exit_raw: exit,
            closed_at_ms: closed_at,
            seen_at_ms: 20,
        }
    }

    #[test]
    fn the_history_file_adds_what_the_feed_and_stream_no_longer_have_once_per_position() {
        let me = Address::with_last_byte(1);
        let feed = RecentTrades {
            ok: true,
            count: 1,
            events: vec![event(TradeKind::Close, 11, 300, me)],
        };
        // Position 5 only the file has (two lines: the second fills its exit and close time);
        // 11 the file and the feed; 13 the file and the stream now.
        let old = record(closed(5, -3, true), 830_000, None, None);
        let filled = Record {
            exit_raw: Some(829_000),
            closed_at_ms: Some(40),
            ..old.clone()
        };
        let file = LoadedHistory {
            trades: vec![
                old,
                record(closed(11, -108, false), 820_005, None, None),
                filled,
                record(closed(13, 5, false), 821_000, Some(822_000), Some(250)),
            ],
            skipped: 2,
            ..LoadedHistory::default()
        };
        let streamed = vec![(closed(13, 5, false), 400)];
        let (trades, summary) = closed_trades(me, &file, &feed, &streamed, &trading());
        assert_eq!(
            summary,
            FileSummary {
                records: 3,
                skipped: 2,
                truncated: false,
                error: None,
                coverage: Default::default(),
            }
        );
        let rows: Vec<(u64, Vec<&str>, Option<u64>)> = trades
            .iter()
            .map(|t| (t.position_id.to::<u64>(), t.sources(), t.time))
            .collect();
        assert_eq!(
            rows,
            vec![
                (11, vec!["history_file", "feed"], Some(300)),
                (13, vec!["history_file", "stream"], Some(250)),
                (5, vec!["history_file"], Some(40)),
            ]
        );
        let only_file = &trades[2];
        assert_eq!(
            (only_file.net_pnl, only_file.margin, only_file.paper_minted),
            (Some(-3), Some(10 * crate::protocol::units::WAD), Some(7))
        );
        assert!(only_file.liquidated);
        assert_eq!(
            (only_file.entry, only_file.exit),
            (Some(83_000.0), Some(82_900.0))
        );
        assert_eq!(only_file.market, "BTC", "the file's symbol is sanitised");
        // The feed's row keeps its notional and the file's exact entry wins over none.
        assert_eq!(trades[0].notional_usd, Some(1000.0));
        assert_eq!(trades[0].entry, Some(82_000.5));
        assert_eq!(trades[0].exit, Some(82_100.0));
        let v = page(me, (trades, summary), Filter::All, 0, 2).json();
        assert_eq!(v["history_file"]["records"], 3);
        assert_eq!(v["trades"][1]["sources"], json!(["history_file", "stream"]));
        assert_eq!(v["next_cursor"], "1");
    }
}
