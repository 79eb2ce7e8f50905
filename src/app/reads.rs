//! What the screen needs read from the exchange, and how fresh: after every message the app
//! declares its reads ([`App::reads`]) and the runtime keeps one task per declared read — a read
//! that stays declared keeps its task, one that goes is stopped, a new one starts at once (as
//! Elm's and iced's subscriptions do). Every answer comes back as a message stamped when it
//! arrived and is folded into the value it feeds, so nothing in the app asks for a read: a
//! pane on screen declares it, a hidden one does not, and a quiet session reads only what it
//! shows. How a read is carried out is the runtime's business: the marks, polled today, may be
//! pushed tomorrow into the same values.

use std::time::Duration;

use alloy_primitives::Address;

use crate::events::market::MarkSource;

use super::explore::Fetch;
use super::state::App;

/// How often the 24 h reference prices are read again.
pub const DAY_OPENS_EVERY: Duration = Duration::from_secs(300);
/// How often the wallet's side of the protocol (recent trades, its queue ranks) is read.
pub const ACCOUNT_EVERY: Duration = Duration::from_secs(3);

/// One read the screen needs. Two equal reads are the same task: a read whose terms change
/// (another market, another interval, another page) is a new read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Read {
    /// `/state/trading` (with each terminal market's frozen mid).
    Trading,
    /// The live mark of each of these markets.
    Marks(Vec<MarkSource>),
    /// The protocol summary and the relayer's health.
    Protocol,
    /// Every market's price 24 h ago, for the header's change.
    DayOpens,
    /// The protocol's recent trades: the wallet's closes and liquidations reach its history
    /// there, and the explorer lists them.
    RecentTrades,
    /// The wallet's places in the relayer queue, while it has operations queued.
    QueueRank(Address),
    /// The chart's candles: the ticket's market at the chart's interval.
    Candles {
        instrument_id: u32,
        symbol: String,
        interval: &'static str,
    },
    /// What the exploring pane (or the Fund tab) on screen shows; `again` counts the times it
    /// was asked to read again at once (`Loaded::read_again`).
    Pane { fetch: Fetch, again: u32 },
}

impl Read {
    /// What a read fills: a read replaced by another of the same kind (a new interval, a new
    /// sort) fills the same place.
    pub fn slot(
        &self,
    ) -> (
        std::mem::Discriminant<Read>,
        Option<std::mem::Discriminant<Fetch>>,
    ) {
        let pane = match self {
            Read::Pane { fetch, .. } => Some(std::mem::discriminant(fetch)),
            _ => None,
        };
        (std::mem::discriminant(self), pane)
    }
}

impl App {
    /// Every read the screen needs now, and how often it is repeated.
    pub fn reads(&self) -> Vec<(Read, Duration)> {
        let mut reads = vec![
            (Read::Trading, self.poll.markets),
            (Read::Protocol, self.poll.protocol),
            (Read::DayOpens, DAY_OPENS_EVERY),
        ];
        if let Some(state) = &self.trading {
            let live = MarkSource::live(state);
            if !live.is_empty() {
                reads.push((Read::Marks(live), self.poll.markets));
            }
        }
        if let Some((market, _)) = self.ticket_market() {
            let candles = Read::Candles {
                instrument_id: market.id,
                symbol: market.symbol.clone(),
                interval: self.chart_interval,
            };
            reads.push((candles, super::state::CANDLE_REFRESH));
        }
        if let Some((fetch, again, every)) = self.pane_read() {
            reads.push((Read::Pane { fetch, again }, every));
        }
        if let Some(wallet) = self.wallet {
            reads.push((Read::RecentTrades, ACCOUNT_EVERY));
            // Asked only while something is queued (a quiet session asks nothing it would not
            // show), and at once when something is.
            let queued = self
                .account
                .as_ref()
                .is_some_and(|a| !a.operations.is_empty());
            if queued {
                reads.push((Read::QueueRank(wallet), ACCOUNT_EVERY));
            }
        }
        reads
    }

    /// The exploring pane's (or the Fund tab's) read declared now, if any.
    pub fn declared_fetch(&self) -> Option<Fetch> {
        self.pane_read().map(|(fetch, ..)| fetch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{Message, Mode};
    use crate::events::account::StreamEvent;
    use crate::protocol::account::{Frame, Operation};
    use alloy_primitives::B256;

    const SNAPSHOT: &str = r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","indexedThroughBlock":48399590,"indexedThroughTimestamp":1791862827,"sessionKeys":[],"walletRevision":48399562,"queueRevision":"881","balance":"1000000000000000000000","queued":"0","locked":"20000000000000000000","funds":{"reservedBalance":"0","reservedQueued":"0","availableBalance":"1000000000000000000000","availableQueued":"0"},"queueNodeCount":0,"consumableDebt":"0","paper":{"balance":"0","staked":"0","pendingBase":"0","rewardDebt":"0"},"lifetime":{"depositedRaw":"0","withdrawnRaw":"0","realizedPnlRaw":"0","feesPaidRaw":"0","tradedNotionalRaw":"0","paperRewardsClaimedRaw":"0"},"openPositions":[["411277",0,false,false,"832045","10000000000000000000",100,"839965",1791862800000,null],["411276",0,true,false,"832245","10000000000000000000",100,"824315",1791862800000,null]],"operations":[],"accountRevision":2}"#;

    fn declared(app: &App) -> Vec<Read> {
        app.reads().into_iter().map(|(r, _)| r).collect()
    }

    /// The queue rank is declared only while the wallet has operations queued: a quiet session
    /// never asks it; the fold that queues one declares it, the one that empties it drops it.
    #[test]
    fn the_queue_rank_is_read_only_while_something_is_queued() {
        let wallet: Address = "0xa9f28db0543b215eb2705740f10258c3d000cefd"
            .parse()
            .unwrap();
        let mut app = App::new(Mode::Watch, Some(wallet));
        assert!(declared(&app).contains(&Read::RecentTrades));
        assert!(!declared(&app).contains(&Read::QueueRank(wallet)));
        let Frame::Snapshot(empty) = Frame::decode(SNAPSHOT).unwrap() else {
            panic!("a snapshot")
        };
        let mut queued = empty.clone();
        queued.operations = vec![Operation {
            intent_id: B256::repeat_byte(1),
            action: "openPosition".into(),
            instrument_id: Some(1),
            is_long: Some(true),
            use_debt: Some(false),
            amount: Some(1),
            leverage: Some(10),
            accepted_at_ms: 1,
            deadline: 1_791_866_400,
            close_position_ids: None,
        }];
        let at = std::time::UNIX_EPOCH + Duration::from_secs(1_791_862_801);
        app.handle(Message::Stream(StreamEvent::Synced(queued), at));
        assert!(declared(&app).contains(&Read::QueueRank(wallet)));
        app.handle(Message::Stream(StreamEvent::Synced(empty), at));
        assert!(!declared(&app).contains(&Read::QueueRank(wallet)));
    }

    /// Without a wallet nothing of an account is read; the market reads run at `[poll]`'s
    /// rates, the marks once the markets are known.
    #[test]
    fn the_market_reads_run_at_the_configured_rates() {
        let mut app = App::new(Mode::Watch, None);
        app.poll.markets = Duration::from_millis(700);
        let reads = app.reads();
        assert_eq!(
            reads,
            vec![
                (Read::Trading, Duration::from_millis(700)),
                (Read::Protocol, app.poll.protocol),
                (Read::DayOpens, DAY_OPENS_EVERY),
            ]
        );
    }
}
