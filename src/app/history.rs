//! The app's side of the wallet's local history: what the file held at start, each close the
//! stream reports (with the entry of the position the account held), and the exit and time the
//! recent-trades feed adds later. Every record that is new or gained something is queued for the
//! runtime to append (`Effect::RecordHistory`); the app itself writes nothing.

use std::time::SystemTime;

use crate::protocol::account::{AccountState, ClosedPosition};
use crate::protocol::coverage::Mark;
use crate::protocol::history::{ClosedTrade, HistoryLine, LoadedHistory, MAX_TRADES};

use super::state::App;

impl App {
    /// Fold the history file's records (the first message of a session, so they are older than
    /// anything the stream brings), saying what could not be read.
    pub(super) fn load_history(&mut self, loaded: LoadedHistory) {
        if let Some(e) = &loaded.error {
            self.toast(
                format!("history file not read ({e}); new closes are still recorded"),
                true,
            );
        }
        let conflicts = self.history.load(&loaded);
        let skipped = loaded.skipped + conflicts;
        if skipped > 0 {
            self.toast(
                format!(
                    "history file: {skipped} line(s) skipped (not a record, or contradicting \
                     an earlier line for the same position)"
                ),
                true,
            );
        }
        if loaded.truncated || self.history.dropped() > 0 {
            self.toast(
                format!(
                    "history file is long: only its newest part is read (at most {MAX_TRADES} \
                     closes)"
                ),
                false,
            );
        }
        self.dirty = true;
    }

    /// Record the positions a patch closed, received at `at`. Runs before the patch's state
    /// replaces the account, whose open positions still hold each entry.
    pub(super) fn record_closes(&mut self, closed: Vec<ClosedPosition>, at: SystemTime) {
        let seen_at_ms = crate::clock::unix_ms(at);
        for c in closed {
            let held = self.positions().iter().find(|p| p.id == c.id);
            let market = self
                .trading
                .as_ref()
                .and_then(|t| t.market_by_id(c.instrument_id));
            let mut trade = ClosedTrade::new(c, held, market, seen_at_ms);
            // The feed may list the close already.
            trade.fill_from_feed(&self.my_trades);
            if let Some(changed) = self.history.insert(trade) {
                self.history_unsaved.push(HistoryLine::Trade(changed));
            }
        }
    }

    /// The account as the stream shows it whole at `at`: a fresh snapshot (`start`), or the
    /// state after closes this view saw. Written after the records, so a reader can tell how
    /// far back the history is complete.
    pub(super) fn mark_history(&mut self, state: &AccountState, at: SystemTime, start: bool) {
        if self.wallet != Some(state.address) {
            return;
        }
        let mark = Mark::of(state, crate::clock::unix_ms(at), start);
        self.history.observe(mark.clone());
        self.history_unsaved.push(HistoryLine::Mark(mark));
    }

    /// The recent-trades feed just changed: fill the exits and times it gives.
    pub(super) fn history_from_feed(&mut self) {
        let changed = self.history.fill_from_feed(&self.my_trades);
        self.history_unsaved
            .extend(changed.into_iter().map(HistoryLine::Trade));
    }

    pub(super) fn move_history_cursor(&mut self, delta: i64) {
        let last = self.history.len().saturating_sub(1) as i64;
        self.history_cursor = (self.history_cursor as i64 + delta).clamp(0, last) as usize;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Effect, Message, Mode};
    use crate::events::account::StreamEvent;
    use crate::events::market::MarketEvent;
    use crate::protocol::account::Frame;
    use crate::protocol::reads::RecentTrades;
    use crate::protocol::trading::TradingState;
    use alloy_primitives::U256;
    use std::time::{Duration, UNIX_EPOCH};

    const SNAPSHOT: &str = r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","indexedThroughBlock":48399590,"indexedThroughTimestamp":1791862827,"sessionKeys":[],"walletRevision":48399562,"queueRevision":"881","balance":"1000000000000000000000","queued":"0","locked":"10000000000000000000","funds":{"reservedBalance":"0","reservedQueued":"0","availableBalance":"1000000000000000000000","availableQueued":"0"},"queueNodeCount":0,"consumableDebt":"0","paper":{"balance":"0","staked":"0","pendingBase":"0","rewardDebt":"0"},"lifetime":{"depositedRaw":"0","withdrawnRaw":"0","realizedPnlRaw":"0","feesPaidRaw":"0","tradedNotionalRaw":"0","paperRewardsClaimedRaw":"0"},"openPositions":[["411276",0,true,false,"832245","10000000000000000000",100,"824315",1791862800000,null]],"operations":[],"accountRevision":2}"#;

    const FEED: &str = r#"{"ok":true,"count":1,"events":[{"seq":"48399240000026","ts":1791862860000,"wallet":"0xa9f28db0543b215eb2705740f10258c3d000cefd","instrument":"BTC","instrumentId":0,"instrumentTerminal":false,"side":"long","leverage":100,"notionalUsd":1000,"intentId":null,"positionId":"411276","kind":"close","entry":null,"exit":83215.5,"pnlUsd":-0.11}]}"#;

    fn at(s: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(s)
    }

    fn synced() -> App {
        let wallet = "0xa9f28db0543b215eb2705740f10258c3d000cefd"
            .parse()
            .unwrap();
        let mut app = App::new(Mode::Watch, Some(wallet));
        let state =
            TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap();
        app.handle(Message::Market(MarketEvent::Trading(
            Box::new(state),
            at(1),
        )));
        let Frame::Snapshot(s) = Frame::decode(SNAPSHOT).unwrap() else {
            panic!()
        };
        app.handle(Message::Stream(StreamEvent::Synced(s), at(2)));
        app
    }

    fn close(app: &mut App) -> Vec<Effect> {
        let mut state = app.account.clone().unwrap();
        let gone = state.open_positions.remove(0);
        let closed = vec![ClosedPosition {
            id: gone.id,
            instrument_id: gone.instrument_id,
            is_long: gone.is_long,
            margin: gone.margin,
            leverage: gone.leverage,
            liquidated: false,
            net_pnl: -108_141_232_449_579_150,
            paper_minted: 2_766_363_925_334_821_349,
        }];
        app.handle(Message::Stream(
            StreamEvent::Patched {
                state: Box::new(state),
                closed,
                outcomes: Vec::new(),
            },
            at(1_791_862_861),
        ))
    }

    fn recorded(effects: &[Effect]) -> Vec<&ClosedTrade> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::RecordHistory(HistoryLine::Trade(t)) => Some(t),
                _ => None,
            })
            .collect()
    }

    fn feed(app: &mut App) -> Vec<Effect> {
        let trades: RecentTrades = serde_json::from_str(FEED).unwrap();
        app.handle(Message::Market(MarketEvent::RecentTrades(
            Box::new(trades),
            at(3),
        )))
    }

    #[test]
    fn a_close_is_recorded_with_its_entry_then_the_feed_adds_exit_and_time() {
        let mut app = synced();
        let effects = close(&mut app);
        let first = recorded(&effects);
        assert_eq!(first.len(), 1, "{effects:?}");
        let t = first[0];
        assert_eq!(t.id(), U256::from(411_276u64));
        assert_eq!(
            (t.entry_raw, t.price_scale, t.symbol.as_deref()),
            (Some(832_245), Some(10), Some("BTC"))
        );
        assert_eq!((t.exit_raw, t.time_ms()), (None, (1_791_862_861_000, true)));
        let effects = feed(&mut app);
        let filled = recorded(&effects);
        assert_eq!(filled.len(), 1, "{effects:?}");
        assert_eq!(
            (filled[0].exit_raw, filled[0].time_ms()),
            (Some(832_155), (1_791_862_860_000, false))
        );
        // The feed again: nothing more to write.
        assert!(recorded(&feed(&mut app)).is_empty());
        assert_eq!(app.history.len(), 1);
    }

    #[test]
    fn a_close_the_feed_already_lists_is_recorded_whole() {
        let mut app = synced();
        feed(&mut app);
        let effects = close(&mut app);
        let t = recorded(&effects);
        assert_eq!(
            (t[0].entry_raw, t[0].exit_raw, t[0].closed_at_ms),
            (Some(832_245), Some(832_155), Some(1_791_862_860_000))
        );
    }

    #[test]
    fn the_loaded_file_is_not_written_again_and_its_problems_are_said() {
        let mut app = synced();
        let effects = close(&mut app);
        let trade = recorded(&effects)[0].clone();
        let mut fresh = synced();
        let effects = fresh.handle(Message::HistoryLoaded(LoadedHistory {
            trades: vec![trade.clone(), trade],
            skipped: 2,
            ..LoadedHistory::default()
        }));
        assert!(recorded(&effects).is_empty());
        assert_eq!(fresh.history.len(), 1);
        assert!(
            fresh
                .toasts
                .back()
                .unwrap()
                .text
                .contains("2 line(s) skipped"),
            "{:?}",
            fresh.toasts.back()
        );
    }

    #[test]
    fn the_history_cursor_stays_on_a_row() {
        let mut app = synced();
        close(&mut app);
        app.tab = crate::app::Tab::History;
        app.handle(Message::Action(crate::app::Action::Down));
        app.handle(Message::Action(crate::app::Action::Down));
        assert_eq!(app.history_cursor, 0, "one row: nowhere to go");
        assert_eq!(app.position_cursor, 0);
    }
}
