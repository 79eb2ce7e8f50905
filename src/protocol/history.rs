//! A wallet's closed trades as this client keeps them: what the account stream reported when each
//! position closed (`closedPositions`), with the entry the account held before it left and the
//! exit and time the recent-trades feed gave for it. Pure: the file that stores them is
//! `client::history`; the UI's tab and any command read the same records and [`Totals`].
//!
//! A record is never invented: a figure this client did not see is `None` (shown as "—"); no
//! exit is ever back-computed from the PnL.

use std::collections::{BTreeMap, VecDeque};

use alloy_primitives::{B256, U256};
use serde::{Deserialize, Serialize};

use super::account::{ClosedPosition, Position};
use super::coverage::{Coverage, Mark, Recorded};
use super::reads::{TradeEvent, TradeKind};
use super::trading::Instrument;
use super::units::{scale_decimals, scaled_of_display_f64};

/// One closed position, as one line of the history file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClosedTrade {
    /// Exactly what the stream reported (its wire tuple): id, market, side, margin, leverage,
    /// liquidated, net PnL, PAPER minted.
    pub closed: ClosedPosition,
    /// The market's symbol and price scale when it closed, so the record reads on its own.
    #[serde(default)]
    pub symbol: Option<String>,
    #[serde(default)]
    pub price_scale: Option<u64>,
    /// Raw entry at `price_scale`, from the open position the account held before the close.
    #[serde(default)]
    pub entry_raw: Option<u64>,
    #[serde(default)]
    pub opened_at_ms: Option<u64>,
    /// Raw exit at `price_scale`: the recent-trades feed's exit for this position, read exactly
    /// (its decimal text at the market's precision), or `None` when the feed did not list it.
    #[serde(default)]
    pub exit_raw: Option<u64>,
    /// When the exchange says it closed (the feed's `ts`).
    #[serde(default)]
    pub closed_at_ms: Option<u64>,
    /// When this client received the stream message that reported the close.
    pub seen_at_ms: u64,
}

impl ClosedTrade {
    /// A close as the stream reported it at `seen_at_ms`, with what the client knew then: the
    /// position it held (entry, open time) and the market (symbol, price scale).
    pub fn new(
        closed: ClosedPosition,
        held: Option<&Position>,
        market: Option<&Instrument>,
        seen_at_ms: u64,
    ) -> Self {
        // A held position that disagrees with the close on what it was is not this one.
        let held = held.filter(|p| {
            p.id == closed.id
                && p.instrument_id == closed.instrument_id
                && p.is_long == closed.is_long
        });
        let market = market.filter(|m| m.id == closed.instrument_id);
        Self {
            symbol: market.map(|m| m.symbol.clone()),
            price_scale: market.map(|m| m.price_scale),
            entry_raw: held.map(|p| p.entry_price),
            opened_at_ms: held.map(|p| p.opened_at_ms),
            exit_raw: None,
            closed_at_ms: None,
            seen_at_ms,
            closed,
        }
    }

    pub fn id(&self) -> U256 {
        self.closed.id
    }

    /// The time to show: the exchange's when known, else when this client saw it (`true`).
    pub fn time_ms(&self) -> (u64, bool) {
        match self.closed_at_ms {
            Some(t) => (t, false),
            None => (self.seen_at_ms, true),
        }
    }

    /// Fill what the feed knows about this position's close (exit, time); whether anything was
    /// filled. An event for another market or side, or an exit finer than the market's
    /// precision, fills nothing.
    pub fn fill_from_feed(&mut self, events: &[TradeEvent]) -> bool {
        let Ok(id) = u128::try_from(self.closed.id) else {
            return false;
        };
        let Some(e) = events.iter().find(|e| {
            e.position_id == Some(id)
                && matches!(e.kind, TradeKind::Close | TradeKind::Liq)
                && e.instrument_id == self.closed.instrument_id
                && matches!(e.side, super::reads::Side::Long) == self.closed.is_long
        }) else {
            return false;
        };
        let exit = self
            .price_scale
            .and_then(scale_decimals)
            .zip(e.exit)
            .and_then(|(decimals, x)| scaled_of_display_f64(x, decimals))
            .and_then(|(negative, raw)| (!negative).then_some(raw))
            .and_then(|raw| u64::try_from(raw).ok());
        let before = (self.exit_raw, self.closed_at_ms);
        self.exit_raw = self.exit_raw.or(exit);
        self.closed_at_ms = self.closed_at_ms.or(Some(e.ts));
        before != (self.exit_raw, self.closed_at_ms)
    }

    /// Take from `other` (a later record of the same close) what this one lacks; never replace
    /// a figure already held. `false` when `other` is not the same close (another id, or the
    /// stream's figures differ), which leaves this one as it was.
    fn absorb(&mut self, other: ClosedTrade) -> bool {
        if other.closed != self.closed {
            return false;
        }
        self.symbol = self.symbol.take().or(other.symbol);
        // A scale comes with its prices: a record that lacks one takes both.
        if self.price_scale.is_none() {
            self.price_scale = other.price_scale;
            self.entry_raw = self.entry_raw.or(other.entry_raw);
            self.exit_raw = self.exit_raw.or(other.exit_raw);
        } else if self.price_scale == other.price_scale {
            self.entry_raw = self.entry_raw.or(other.entry_raw);
            self.exit_raw = self.exit_raw.or(other.exit_raw);
        }
        self.opened_at_ms = self.opened_at_ms.or(other.opened_at_ms);
        self.closed_at_ms = self.closed_at_ms.or(other.closed_at_ms);
        self.seen_at_ms = self.seen_at_ms.min(other.seen_at_ms);
        true
    }

    /// One line of the history file (no newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("a record always serializes")
    }

    /// A line of the history file; `None` for anything that is not a whole, valid record (a
    /// torn or hand-edited line, a price scale that is not a power of ten).
    pub fn from_line(line: &[u8]) -> Option<Self> {
        if line.len() > MAX_LINE_BYTES {
            return None;
        }
        let trade: ClosedTrade = serde_json::from_slice(line).ok()?;
        match trade.price_scale {
            Some(scale) if scale_decimals(scale).is_none() => None,
            _ => Some(trade),
        }
    }
}

/// Longer than any record: a longer line is not one. (A mark lists the open positions: a
/// few hundred of them fit.)
pub const MAX_LINE_BYTES: usize = 16 * 1024;

/// A close this machine's audit log accounts for but no process saw on the stream: a command
/// sent the close intent and stopped waiting, and a later one learnt that it succeeded while
/// nothing here followed the account. The stream's figures of it (net PnL, PAPER) were never
/// seen, so they are not invented: the record says which intent closed which position, when
/// its fate was learnt, and nothing more.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClosedHere {
    #[serde(with = "super::wire::dec")]
    pub position_id: U256,
    pub intent_id: B256,
    /// When this machine learnt the intent succeeded (the close happened before).
    pub learnt_at_ms: u64,
}

/// One line of the history file: a close, a [`Mark`] of what a process saw whole, or a close
/// only the audit log accounts for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryLine {
    Trade(ClosedTrade),
    Mark(Mark),
    ClosedHere(ClosedHere),
}

/// How a mark is written: `{"mark":{…}}`.
#[derive(Serialize, Deserialize)]
struct MarkLine {
    mark: Mark,
}

/// How an audit-known close is written: `{"closedHere":{…}}`.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClosedHereLine {
    closed_here: ClosedHere,
}

impl HistoryLine {
    /// One line of the history file (no newline).
    pub fn to_line(&self) -> String {
        match self {
            HistoryLine::Trade(t) => t.to_line(),
            HistoryLine::Mark(m) => {
                serde_json::to_string(&MarkLine { mark: m.clone() }).expect("a mark serializes")
            }
            HistoryLine::ClosedHere(c) => serde_json::to_string(&ClosedHereLine {
                closed_here: c.clone(),
            })
            .expect("a close serializes"),
        }
    }

    /// `None` for anything that is neither a whole record nor a whole mark.
    pub fn from_line(line: &[u8]) -> Option<Self> {
        if line.len() > MAX_LINE_BYTES {
            return None;
        }
        if let Some(t) = ClosedTrade::from_line(line) {
            return Some(HistoryLine::Trade(t));
        }
        if let Ok(m) = serde_json::from_slice::<MarkLine>(line) {
            return Some(HistoryLine::Mark(m.mark));
        }
        serde_json::from_slice::<ClosedHereLine>(line)
            .ok()
            .map(|c| HistoryLine::ClosedHere(c.closed_here))
    }
}

/// The records, marks and audit-known closes of a history file's text, each in file order, and
/// how many lines were none of them (`truncated` and `error` are the reader's to set). With
/// `partial_first`, the text starts mid-line (the file was read from an offset) and the first
/// line is dropped uncounted.
pub fn decode_lines(bytes: &[u8], partial_first: bool) -> LoadedHistory {
    let mut lines = bytes.split(|b| *b == b'\n');
    if partial_first {
        lines.next();
    }
    let mut out = LoadedHistory::default();
    for line in lines {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match HistoryLine::from_line(line) {
            Some(HistoryLine::Trade(t)) => out.trades.push(t),
            Some(HistoryLine::Mark(m)) => out.marks.push(m),
            Some(HistoryLine::ClosedHere(c)) => out.closed_here.push(c),
            None => out.skipped += 1,
        }
    }
    out
}

/// What the runtime found in a wallet's history file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadedHistory {
    /// In file order (oldest first).
    pub trades: Vec<ClosedTrade>,
    /// In file order: what the processes that wrote it saw whole, and when.
    pub marks: Vec<Mark>,
    /// In file order: closes only this machine's audit log accounts for.
    pub closed_here: Vec<ClosedHere>,
    /// Lines that were not records.
    pub skipped: usize,
    /// The file was longer than what is read: its oldest part was left unread.
    pub truncated: bool,
    /// The file could not be read at all (it is then left alone, and new closes still append).
    pub error: Option<String>,
}

/// Net PnL, wins and PAPER over closed positions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub closed: usize,
    /// Closes with a positive net PnL. A liquidation is never one; a zero is not one.
    pub wins: usize,
    pub liquidated: usize,
    /// Signed wad (saturating).
    pub net_pnl: i128,
    /// PAPER 18 dp (saturating).
    pub paper_minted: u128,
}

impl Totals {
    pub fn of<'a>(closed: impl IntoIterator<Item = &'a ClosedPosition>) -> Self {
        closed.into_iter().fold(Totals::default(), |mut t, c| {
            t.closed += 1;
            t.wins += usize::from(!c.liquidated && c.net_pnl > 0);
            t.liquidated += usize::from(c.liquidated);
            t.net_pnl = t.net_pnl.saturating_add(c.net_pnl);
            t.paper_minted = t.paper_minted.saturating_add(c.paper_minted);
            t
        })
    }

    /// Wins over closed, in whole basis points rounded half up; `None` with nothing closed.
    pub fn win_rate_bps(&self) -> Option<u32> {
        let closed = u128::try_from(self.closed).ok().filter(|c| *c > 0)?;
        let wins = self.wins as u128;
        u32::try_from((wins * 20_000 + closed) / (2 * closed)).ok()
    }
}

/// A wallet's closed trades, newest first: one record per position id, at most [`MAX_TRADES`]
/// (the oldest go), with their totals kept current.
#[derive(Debug, Clone, Default)]
pub struct TradeHistory {
    /// Oldest first.
    trades: VecDeque<ClosedTrade>,
    /// Position id → its record's sequence number (`trades[seq - first]`): a lookup, not a
    /// scan, for each line read and each feed event.
    index: BTreeMap<U256, usize>,
    /// The sequence number of `trades[0]`.
    first: usize,
    totals: Totals,
    /// Records dropped (the oldest) to stay within the cap.
    dropped: usize,
    /// How far back the records are complete.
    coverage: Coverage,
    /// Position id → the intent of this machine's that closed it, for closes whose figures no
    /// process saw (the audit log accounts for them, the stream never reported them here).
    closed_here: BTreeMap<U256, B256>,
}

/// The most records held (a few MB of file at most).
pub const MAX_TRADES: usize = 10_000;

impl TradeHistory {
    pub fn new() -> Self {
        Self::default()
    }

    /// Take `trades` in the order they were written: a record for a position already held fills
    /// what that one lacks; a new one is the newest. Returns how many contradicted the record
    /// already held for their position (same id, other figures) and were ignored.
    pub fn extend(&mut self, trades: impl IntoIterator<Item = ClosedTrade>) -> usize {
        let mut conflicts = 0;
        for t in trades {
            if let Insert::Conflict = self.put(t) {
                conflicts += 1;
            }
        }
        self.settle();
        conflicts
    }

    /// Add one close; the record to persist when it is new or filled something in (`None` when
    /// it told nothing new, or contradicted the one held).
    pub fn insert(&mut self, trade: ClosedTrade) -> Option<ClosedTrade> {
        let changed = match self.put(trade) {
            Insert::New(i) | Insert::Filled(i) => Some(self.trades[i].clone()),
            Insert::Same | Insert::Conflict => None,
        };
        self.settle();
        changed
    }

    /// Take a history file's content: its records, then its marks (checked against every
    /// record, wherever in the file: processes write concurrently). Returns the conflicts, as
    /// [`Self::extend`].
    pub fn load(&mut self, loaded: &LoadedHistory) -> usize {
        let conflicts = self.extend(loaded.trades.iter().cloned());
        for c in &loaded.closed_here {
            self.closed_here.insert(c.position_id, c.intent_id);
        }
        for m in &loaded.marks {
            self.observe(m.clone());
        }
        conflicts
    }

    /// Fold a mark written after the records it follows.
    pub fn observe(&mut self, mark: Mark) {
        let mut coverage = std::mem::take(&mut self.coverage);
        coverage.observe(mark, self);
        self.coverage = coverage;
    }

    /// How far back the records are complete.
    pub fn coverage(&self) -> &Coverage {
        &self.coverage
    }

    /// Fill exits and times from the recent-trades feed; the records that changed, to persist.
    pub fn fill_from_feed(&mut self, events: &[TradeEvent]) -> Vec<ClosedTrade> {
        let mut changed = Vec::new();
        for e in events {
            let Some(i) = e.position_id.and_then(|id| self.position(U256::from(id))) else {
                continue;
            };
            let t = &mut self.trades[i];
            if t.fill_from_feed(std::slice::from_ref(e)) {
                changed.push(t.clone());
            }
        }
        changed
    }

    /// Where the record of position `id` is in `trades`.
    fn position(&self, id: U256) -> Option<usize> {
        self.index.get(&id).map(|seq| seq - self.first)
    }

    fn put(&mut self, trade: ClosedTrade) -> Insert {
        match self.position(trade.id()) {
            Some(i) => {
                let before = self.trades[i].clone();
                if !self.trades[i].absorb(trade) {
                    Insert::Conflict
                } else if self.trades[i] == before {
                    Insert::Same
                } else {
                    Insert::Filled(i)
                }
            }
            None => {
                self.index
                    .insert(trade.id(), self.first + self.trades.len());
                self.trades.push_back(trade);
                Insert::New(self.trades.len() - 1)
            }
        }
    }

    /// Hold the cap and recount.
    fn settle(&mut self) {
        while self.trades.len() > MAX_TRADES {
            if let Some(oldest) = self.trades.pop_front() {
                self.index.remove(&oldest.id());
            }
            self.first += 1;
            self.dropped += 1;
        }
        self.totals = Totals::of(self.trades.iter().map(|t| &t.closed));
    }

    pub fn newest_first(&self) -> impl Iterator<Item = &ClosedTrade> {
        self.trades.iter().rev()
    }

    /// The `n`th newest record (0 = the newest).
    pub fn nth_newest(&self, n: usize) -> Option<&ClosedTrade> {
        self.trades
            .len()
            .checked_sub(n + 1)
            .map(|i| &self.trades[i])
    }

    pub fn newest(&self) -> Option<&ClosedTrade> {
        self.trades.back()
    }

    pub fn len(&self) -> usize {
        self.trades.len()
    }

    pub fn is_empty(&self) -> bool {
        self.trades.is_empty()
    }

    /// Over the records held.
    pub fn totals(&self) -> Totals {
        self.totals
    }

    /// How many of the oldest records were dropped to stay within [`MAX_TRADES`].
    pub fn dropped(&self) -> usize {
        self.dropped
    }
}

impl Recorded for TradeHistory {
    fn net_pnl_of(&self, id: U256) -> Option<i128> {
        self.position(id).map(|i| self.trades[i].closed.net_pnl)
    }

    fn seen_between(&self, after_ms: u64, until_ms: u64) -> Vec<(U256, i128)> {
        self.trades
            .iter()
            .filter(|t| t.seen_at_ms > after_ms && t.seen_at_ms <= until_ms)
            .map(|t| (t.id(), t.closed.net_pnl))
            .collect()
    }

    fn closed_here(&self) -> Vec<(U256, B256)> {
        // A close whose figures a record holds is explained by the record.
        self.closed_here
            .iter()
            .filter(|(id, _)| self.position(**id).is_none())
            .map(|(id, intent)| (*id, *intent))
            .collect()
    }
}

enum Insert {
    New(usize),
    Filled(usize),
    Same,
    Conflict,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::reads::Side;

    fn closed(id: u64, liquidated: bool, net: i128, paper: u128) -> ClosedPosition {
        ClosedPosition {
            id: U256::from(id),
            instrument_id: 0,
            is_long: true,
            margin: 10_000_000_000_000_000_000,
            leverage: 100,
            liquidated,
            net_pnl: net,
            paper_minted: paper,
        }
    }

    fn trade(id: u64, net: i128) -> ClosedTrade {
        ClosedTrade {
            closed: closed(id, false, net, 0),
            symbol: Some("BTC".into()),
            price_scale: Some(10),
            entry_raw: Some(832_245),
            opened_at_ms: Some(1_791_862_800_000),
            exit_raw: None,
            closed_at_ms: None,
            seen_at_ms: 1_791_862_861_000,
        }
    }

    fn feed_close(id: u128, exit: f64, ts: u64) -> TradeEvent {
        TradeEvent {
            seq: 1,
            ts,
            wallet: Default::default(),
            instrument: "BTC".into(),
            instrument_id: 0,
            instrument_terminal: false,
            side: Side::Long,
            leverage: 100,
            notional_usd: 1000.0,
            intent_id: None,
            position_id: Some(id),
            kind: TradeKind::Close,
            entry: None,
            exit: Some(exit),
            pnl_usd: Some(-0.11),
        }
    }

    #[test]
    fn a_record_round_trips_through_its_line() {
        let mut t = trade(411_276, -108_141_232_449_579_150);
        t.exit_raw = Some(832_155);
        t.closed_at_ms = Some(1_791_862_860_000);
        let line = t.to_line();
        assert!(!line.contains('\n'));
        assert!(line.contains(r#""closed":["411276",0,true,"10000000000000000000",100,false,"-108141232449579150","0"]"#), "{line}");
        assert_eq!(ClosedTrade::from_line(line.as_bytes()), Some(t));
    }

    #[test]
    fn lines_that_are_not_records_are_skipped_and_counted() {
        let good = trade(1, 5).to_line();
        let mut bad_scale = trade(2, 5);
        bad_scale.price_scale = Some(12);
        let text = format!(
            "{good}\n{{\"closed\":[\"3\"\n\n{}\nnot json\n{}\n{good}",
            bad_scale.to_line(),
            "x".repeat(MAX_LINE_BYTES + 1)
        );
        let d = decode_lines(text.as_bytes(), false);
        assert_eq!((d.trades.len(), d.marks.len(), d.skipped), (2, 0, 4));
        // Read from an offset, the first (partial) line is not counted.
        let d = decode_lines(format!("d\":1}}\n{good}\n").as_bytes(), true);
        assert_eq!((d.trades.len(), d.skipped), (1, 0));
    }

    #[test]
    fn one_record_per_position_later_lines_fill_gaps_and_never_overwrite() {
        let mut h = TradeHistory::new();
        let first = trade(7, 5);
        assert_eq!(h.insert(first.clone()), Some(first.clone()));
        // The same close again tells nothing new: nothing to persist, still one record.
        assert_eq!(h.insert(first.clone()), None);
        assert_eq!(h.len(), 1);
        // A later record of it with the exit fills the gap.
        let mut later = first.clone();
        later.exit_raw = Some(832_155);
        later.entry_raw = Some(1);
        later.seen_at_ms += 5_000;
        let kept = h.insert(later).unwrap();
        assert_eq!(
            (kept.exit_raw, kept.entry_raw, kept.seen_at_ms),
            (Some(832_155), Some(832_245), first.seen_at_ms)
        );
        // A record of the same id with other figures contradicts it and is ignored.
        let other = trade(7, -5);
        assert_eq!(h.insert(other.clone()), None);
        assert_eq!(h.extend([other]), 1);
        assert_eq!(h.newest().unwrap().closed.net_pnl, 5);
        assert_eq!(h.len(), 1);
    }

    #[test]
    fn the_cap_drops_the_oldest() {
        let mut h = TradeHistory::new();
        h.extend((0..MAX_TRADES as u64 + 3).map(|i| trade(i, 1)));
        assert_eq!((h.len(), h.dropped()), (MAX_TRADES, 3));
        assert_eq!(h.newest_first().last().unwrap().id(), U256::from(3u64));
        assert_eq!(h.newest().unwrap().id(), U256::from(MAX_TRADES as u64 + 2));
        assert_eq!(h.totals().closed, MAX_TRADES);
        assert_eq!(h.nth_newest(MAX_TRADES - 1).unwrap().id(), U256::from(3u64));
        assert!(h.nth_newest(MAX_TRADES).is_none());
        // A held record is still found after the drops; a dropped one comes back as new.
        let mut filled = trade(5, 1);
        filled.exit_raw = Some(1);
        assert_eq!(h.insert(filled).unwrap().exit_raw, Some(1));
        assert_eq!((h.len(), h.dropped()), (MAX_TRADES, 3));
        assert!(h.insert(trade(0, 1)).is_some());
        assert_eq!((h.len(), h.dropped()), (MAX_TRADES, 4));
        assert_eq!(h.newest().unwrap().id(), U256::ZERO);
    }

    #[test]
    fn totals_count_liquidations_as_losses() {
        let rows = [
            closed(1, false, 2_000_000_000_000_000_000, 0),
            closed(2, false, -500_000_000_000_000_000, 3),
            closed(3, true, -10_000_000_000_000_000_000, 7),
            closed(4, false, 0, 0),
            closed(5, false, 1, 0),
            // A liquidation is a loss whatever figure it carries.
            closed(6, true, 1, 0),
        ];
        let t = Totals::of(&rows);
        assert_eq!(
            t,
            Totals {
                closed: 6,
                wins: 2,
                liquidated: 2,
                net_pnl: -8_499_999_999_999_999_998,
                paper_minted: 10,
            }
        );
        assert_eq!(t.win_rate_bps(), Some(3_333));
        assert_eq!(Totals::default().win_rate_bps(), None);
        let third = Totals {
            closed: 3,
            wins: 2,
            ..Totals::default()
        };
        assert_eq!(third.win_rate_bps(), Some(6_667));
        let huge = [
            closed(1, false, i128::MAX, u128::MAX),
            closed(2, false, 1, 1),
        ];
        let t = Totals::of(&huge);
        assert_eq!((t.net_pnl, t.paper_minted), (i128::MAX, u128::MAX));
    }

    #[test]
    fn the_feed_fills_exit_and_time_exactly_or_not_at_all() {
        let mut h = TradeHistory::new();
        h.insert(trade(411_276, -1));
        h.insert(trade(411_277, -1));
        let mut wrong_side = feed_close(411_277, 83_215.5, 9);
        wrong_side.side = Side::Short;
        let changed =
            h.fill_from_feed(&[wrong_side, feed_close(411_276, 83_215.5, 1_791_862_860_000)]);
        assert_eq!(changed.len(), 1);
        assert_eq!(
            (changed[0].exit_raw, changed[0].closed_at_ms),
            (Some(832_155), Some(1_791_862_860_000))
        );
        assert_eq!(changed[0].time_ms(), (1_791_862_860_000, false));
        // Asked again, nothing changes.
        assert!(
            h.fill_from_feed(&[feed_close(411_276, 83_215.5, 1)])
                .is_empty()
        );
        // An exit finer than the market's precision is not rounded into one: the time alone.
        let changed = h.fill_from_feed(&[feed_close(411_277, 83_215.55, 5)]);
        assert_eq!(
            (changed[0].exit_raw, changed[0].closed_at_ms),
            (None, Some(5))
        );
    }

    #[test]
    fn a_close_takes_entry_only_from_the_same_position() {
        let c = closed(9, false, 1, 0);
        let held = Position {
            id: U256::from(9u64),
            instrument_id: 0,
            is_long: true,
            use_debt: false,
            entry_price: 832_245,
            margin: c.margin,
            leverage: 100,
            bust_price: 824_315,
            opened_at_ms: 5,
            intent_id: None,
        };
        let t = ClosedTrade::new(c.clone(), Some(&held), None, 10);
        assert_eq!(
            (t.entry_raw, t.opened_at_ms, t.seen_at_ms),
            (Some(832_245), Some(5), 10)
        );
        let other = Position {
            is_long: false,
            ..held
        };
        assert_eq!(ClosedTrade::new(c, Some(&other), None, 10).entry_raw, None);
    }
}
