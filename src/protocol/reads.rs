//! Protocol-wide reads: summary, market stats, payout queue, recent trades, queue rank, health
//! (§3.4–§3.9). Amounts are wads as decimal strings; the trade feed's dollar figures are floats
//! the exchange already rounded for display.

use std::collections::BTreeMap;

use alloy_primitives::{Address, B256};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::wire::{dec, hex, opt_dec};

/// `/query/protocol/summary`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub ok: bool,
    pub source: SummarySource,
    pub balances: SummaryBalances,
    pub activity: SummaryActivity,
    pub fees: SummaryFees,
    pub paper: SummaryPaper,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummarySource {
    #[serde(with = "dec")]
    pub block: u64,
    /// ms
    #[serde(with = "dec")]
    pub at: u64,
    /// ms
    #[serde(with = "dec")]
    pub genesis: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryBalances {
    #[serde(with = "dec")]
    pub tvl: u128,
    #[serde(with = "dec")]
    pub margin: u128,
    #[serde(with = "dec")]
    pub lp: i128,
    #[serde(with = "dec")]
    pub reserve: u128,
    /// The payout queue's total.
    #[serde(with = "dec")]
    pub queue: u128,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryActivity {
    #[serde(with = "dec")]
    pub volume: u128,
    /// Open positions, a plain count.
    pub open: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryFees {
    #[serde(with = "dec")]
    pub pending: u128,
    #[serde(with = "dec")]
    pub lifetime: u128,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryPaper {
    #[serde(with = "dec")]
    pub supply: u128,
    #[serde(with = "dec")]
    pub staked: u128,
    /// Signed: may be negative.
    #[serde(with = "dec")]
    pub tracked_lp: i128,
    #[serde(with = "dec")]
    pub accumulator: u128,
    #[serde(with = "dec")]
    pub tail_progress: u128,
    #[serde(with = "dec")]
    pub reserve: u128,
    #[serde(with = "dec")]
    pub unallocated: u128,
    #[serde(with = "dec")]
    pub pending_rewards: u128,
    #[serde(with = "dec")]
    pub cliff: u128,
    #[serde(with = "dec")]
    pub cap: u128,
    #[serde(with = "dec")]
    pub excess: u128,
    /// PAPER per $ (1e18).
    #[serde(with = "dec")]
    pub rate: u128,
    #[serde(with = "dec")]
    pub decay: u128,
}

impl Summary {
    /// Whether `other` gives the same figures as this, whichever block and time it was read at
    /// (`source` moves with every block on a quiet exchange and no screen shows it).
    pub fn same_figures(&self, other: &Self) -> bool {
        let Self {
            ok,
            source: _,
            balances,
            activity,
            fees,
            paper,
        } = self;
        *ok == other.ok
            && *balances == other.balances
            && *activity == other.activity
            && *fees == other.fees
            && *paper == other.paper
    }

    /// The current PAPER mint rate per $1 of loss basis (1e18).
    pub fn mint_rate(&self) -> u128 {
        let p = &self.paper;
        super::math::mint_rate(p.rate, p.cliff, p.decay, p.tracked_lp, p.tail_progress)
    }
}

/// `/query/protocol/market-stats`: 24 h volume per instrument id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarketStats {
    pub ok: bool,
    pub markets: BTreeMap<String, MarketStat>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarketStat {
    #[serde(with = "dec")]
    pub volume_24h: u128,
}

/// `/query/protocol/queue-summary`: the FIFO payout queue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueueSummary {
    pub ok: bool,
    pub source: QueueSource,
    #[serde(with = "dec")]
    pub total: u128,
    pub count: u64,
    /// Entry shape unknown (§10.6): kept as raw JSON.
    pub largest: Option<Value>,
    pub front: Option<Value>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueueSource {
    #[serde(with = "dec")]
    pub block: u64,
    pub at: u64,
}

/// `/query/protocol/trades/recent`: newest first, at most 50.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RecentTrades {
    pub ok: bool,
    pub count: u64,
    pub events: Vec<TradeEvent>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TradeKind {
    Open,
    Close,
    #[serde(alias = "liquidation")]
    Liq,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Long,
    Short,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TradeEvent {
    #[serde(with = "dec")]
    pub seq: u64,
    /// ms
    pub ts: u64,
    #[serde(with = "hex")]
    pub wallet: Address,
    /// Untrusted display text: sanitise before it reaches a terminal.
    pub instrument: String,
    pub instrument_id: u32,
    pub instrument_terminal: bool,
    pub side: Side,
    pub leverage: u32,
    pub notional_usd: f64,
    #[serde(with = "opt_hex")]
    pub intent_id: Option<B256>,
    #[serde(with = "opt_dec")]
    pub position_id: Option<u128>,
    pub kind: TradeKind,
    pub entry: Option<f64>,
    pub exit: Option<f64>,
    pub pnl_usd: Option<f64>,
}

mod opt_hex {
    use super::*;
    use serde::{Deserializer, Serializer};
    pub fn serialize<S: Serializer>(v: &Option<B256>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => s.collect_str(&format_args!("{v:#x}")),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<B256>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|s| super::super::wire::parse_b256(&s).map_err(serde::de::Error::custom))
            .transpose()
    }
}

/// `/query/protocol/history?interval=1m|1h|1d` (§3.5): parallel float columns (display units,
/// the exchange's own rounding) from `startMs`, one point per `intervalMs`; the last point is the
/// open interval. Columns are kept by name, so one the client does not know is still shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProtocolHistory {
    pub start_ms: u64,
    pub interval_ms: u64,
    pub columns: BTreeMap<String, Vec<f64>>,
    #[serde(default)]
    pub totals: BTreeMap<String, Value>,
}

impl ProtocolHistory {
    /// The intervals the endpoint takes (§3.5).
    pub const INTERVALS: [&'static str; 3] = ["1m", "1h", "1d"];

    /// The points of one column, each labelled with its time (ms).
    pub fn series(&self, column: &str) -> Vec<(u64, f64)> {
        self.columns
            .get(column)
            .map(|values| {
                values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let t = self
                            .start_ms
                            .saturating_add((i as u64).saturating_mul(self.interval_ms));
                        (t, *v)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// `/queue-rank/accounts/{wallet}`: each queued intent and its 1-based place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueRank {
    pub ok: bool,
    #[serde(with = "dec")]
    pub queue_revision: u64,
    pub entries: Vec<QueueRankEntry>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueRankEntry {
    #[serde(with = "hex")]
    pub intent_id: B256,
    #[serde(with = "dec")]
    pub position: u64,
}

/// `/relayer/health`: at least `ok` and `ready`; other fields kept raw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelayerHealth {
    pub ok: bool,
    #[serde(default)]
    pub ready: bool,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, Value>,
}

impl RelayerHealth {
    pub fn is_ready(&self) -> bool {
        self.ok && self.ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::wire::decode;

    #[test]
    fn decodes_the_recorded_reads() {
        let summary: Summary = decode("summary", r#"{"ok":true,"source":{"block":"48399240","at":1791862483000,"genesis":1791326520000},
 "balances":{"tvl":"61329613310363150000000000","margin":"2998118568248273593726785","lp":"4499154030980584574848767","reserve":"0","queue":"0"},
 "activity":{"volume":"888367896494715926270620625820","open":1128},
 "fees":{"pending":"166456064238868037488","lifetime":"31174963777059996904196661"},
 "paper":{"supply":"6523155697538734372886664082","staked":"6449325581495324759362035927","trackedLp":"4499154030980584574848767",
          "accumulator":"10508152974861028961272120","tailProgress":"114763668726032459329881425","reserve":"3343415793864991749917162",
          "unallocated":"0","pendingRewards":"166456064238868037488","cliff":"2000000000000000000000000","cap":"5000000000000000000000000",
          "excess":"0","rate":"100000000000000000000","decay":"120000000000000000000000000"}}"#).unwrap();
        assert_eq!(summary.activity.open, 1128);
        assert!(summary.mint_rate() < 100_000_000_000_000_000_000);

        let stats: MarketStats = decode("market-stats", r#"{"ok":true,"markets":{"0":{"volume_24h":"72621829814921472515799306976"},"1":{"volume_24h":"42690912"}}}"#).unwrap();
        assert_eq!(stats.markets["1"].volume_24h, 42_690_912);

        let queue: QueueSummary = decode("queue-summary", r#"{"ok":true,"source":{"block":"48399239","at":1791862482000},"total":"0","count":0,"largest":null,"front":null}"#).unwrap();
        assert_eq!(queue.count, 0);

        let trades: RecentTrades = decode("trades", r#"{"ok":true,"count":1,"events":[{"seq":"48399240000025","ts":1791862483000,"wallet":"0xf522d8f0ea3c5d0350d3a05db1df074ecf0b2fd7","instrument":"BTC",
 "instrumentId":0,"instrumentTerminal":false,"side":"short","leverage":148,"notionalUsd":59200,"intentId":null,
 "positionId":"408035","kind":"close","entry":null,"exit":83335.5,"pnlUsd":-327.15}]}"#).unwrap();
        assert_eq!(trades.events[0].kind, TradeKind::Close);
        assert_eq!(trades.events[0].pnl_usd, Some(-327.15));

        let rank: QueueRank = decode("queue-rank", r#"{"ok":true,"queueRevision":"5646","entries":[{"intentId":"0x668e000000000000000000000000000000000000000000000000000000a0bd7d","position":"37"}]}"#).unwrap();
        assert_eq!(rank.entries[0].position, 37);

        let health: RelayerHealth =
            decode("health", r#"{"ok":true,"ready":false,"version":"x"}"#).unwrap();
        assert!(!health.is_ready());
    }

    #[test]
    fn bad_reads_are_errors() {
        assert!(decode::<Summary>("summary", "{}").is_err());
        assert!(
            decode::<QueueRank>("rank", r#"{"ok":true,"queueRevision":"x","entries":[]}"#).is_err()
        );
        assert!(
            decode::<RecentTrades>(
                "trades",
                r#"{"ok":true,"count":1,"events":[{"kind":"teleport"}]}"#
            )
            .is_err()
        );
    }
}
