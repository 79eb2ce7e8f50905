//! `get_intents` and `lookup_intent`: a wallet's accepted, unsettled intents with their place in
//! the relayer queue, and where one intent id is.
//!
//! Sources: the account stream's `operations` and `intentOutcomes` (§3.2), the relayer queue
//! rank `/queue-rank/accounts/{wallet}` (§3.9), the recent-trades feed's `intentId` (§3.7) and
//! the open positions' opening intent id (§3.2 tuple field 9). The settling HyperEVM
//! transaction needs the BatchExecutor event, whose signature is unknown (§7, §10.8): not
//! available from this exchange.

use alloy_primitives::B256;
use serde_json::{Value, json};

use crate::protocol::account::{AccountState, IntentOutcome, Operation, Position};
use crate::protocol::reads::{QueueRank, TradeEvent};
use crate::protocol::trading::TradingState;
use crate::protocol::units::USDC_TO_WAD;

use super::trades::event_json;
use super::{raw, usd_u};

/// Why there is no settlement transaction in a lookup.
pub const SETTLEMENT_UNAVAILABLE: &str = "not available from this exchange: the settling transaction needs the BatchExecutor event, whose signature is unpublished (protocol.md §7, §10.8)";

/// An operation's amount in wad and what it is counted in (§3.2: margin and PAPER are 18 dp,
/// a withdrawal is USDC 6 dp).
fn amount(o: &Operation) -> Option<(u128, &'static str)> {
    let a = o.amount?;
    match o.action.as_str() {
        "withdrawToCore" => Some((a.saturating_mul(USDC_TO_WAD), "usd")),
        "paperStake" | "paperUnstake" => Some((a, "paper")),
        _ => Some((a, "usd")),
    }
}

fn symbol(trading: &TradingState, id: u32) -> String {
    trading
        .market_by_id(id)
        .map(|m| crate::text::sanitize_line(&m.symbol, 16))
        .unwrap_or_else(|| format!("#{id}"))
}

fn queue_place(rank: Option<&QueueRank>, id: B256) -> Option<u64> {
    rank?
        .entries
        .iter()
        .find(|e| e.intent_id == id)
        .map(|e| e.position)
}

/// One pending intent as `get_intents` lists it.
pub fn pending_json(
    o: &Operation,
    trading: &TradingState,
    rank: Option<&QueueRank>,
    now_s: u64,
) -> Value {
    let (amount_wad, unit) = amount(o).map_or((None, None), |(a, u)| (Some(a), Some(u)));
    json!({
        "intent_id": format!("{:#x}", o.intent_id),
        "action": crate::text::sanitize_line(&o.action, 32),
        "market": o.instrument_id.map(|i| symbol(trading, i)),
        "side": o.is_long.map(|l| if l { "long" } else { "short" }),
        "use_debt": o.use_debt,
        "amount": amount_wad.map(usd_u),
        "amount_raw": amount_wad.map(raw),
        "amount_unit": unit,
        "leverage": o.leverage,
        "close_position_ids": o.close_position_ids.as_ref().map(|ids| ids.iter().map(|i| i.to_string()).collect::<Vec<_>>()),
        "accepted_at": o.accepted_at_ms,
        "deadline": o.deadline,
        "deadline_passed": o.deadline <= now_s,
        "queue_rank": queue_place(rank, o.intent_id),
    })
}

/// `get_intents`' structured result: `address`, `pending`, `count`, and the outcomes the stream
/// reported while it was read.
pub fn intents_json(
    account: &AccountState,
    trading: &TradingState,
    rank: Option<&QueueRank>,
    outcomes: &[IntentOutcome],
    now_s: u64,
) -> Value {
    json!({
        "address": format!("{:#x}", account.address),
        "pending": account.operations.iter().map(|o| pending_json(o, trading, rank, now_s)).collect::<Vec<_>>(),
        "count": account.operations.len(),
        "queue_revision": rank.map(|r| r.queue_revision),
        "recent_outcomes": outcomes.iter().map(|o| json!({"intent_id": format!("{:#x}", o.intent_id), "outcome": o.outcome.label()})).collect::<Vec<_>>(),
    })
}

/// What the wallet's side of a lookup holds.
pub struct WalletView<'a> {
    pub account: &'a AccountState,
    pub rank: Option<&'a QueueRank>,
    /// Outcomes the stream reported while it was followed.
    pub outcomes: &'a [IntentOutcome],
}

/// Where one intent is.
#[derive(Debug, Clone, PartialEq)]
pub struct Lookup {
    pub intent_id: B256,
    /// `succeeded`/`failed`/`expired`/`cancelled`/`unknown` (the stream's word), `queued`,
    /// `settled` (a feed row or an open position carries it) or `not_found`.
    pub state: &'static str,
    pub feed: Vec<TradeEvent>,
    pub pending: Option<(Operation, Option<u64>)>,
    pub position: Option<Position>,
    pub outcome: Option<&'static str>,
    /// Whether a wallet's stream and queue were consulted.
    pub wallet_checked: bool,
}

/// Find `id` in the feed and, with a wallet, in its stream and queue.
pub fn lookup(id: B256, feed: &[TradeEvent], wallet: Option<&WalletView<'_>>) -> Lookup {
    let rows: Vec<TradeEvent> = feed
        .iter()
        .filter(|e| e.intent_id == Some(id))
        .cloned()
        .collect();
    let outcome = wallet.and_then(|w| {
        w.outcomes
            .iter()
            .rev()
            .find(|o| o.intent_id == id)
            .map(|o| o.outcome.label())
    });
    let pending = wallet.and_then(|w| {
        w.account
            .operations
            .iter()
            .find(|o| o.intent_id == id)
            .map(|o| (o.clone(), queue_place(w.rank, id)))
    });
    let position = wallet.and_then(|w| {
        w.account
            .open_positions
            .iter()
            .find(|p| p.intent_id == Some(id))
            .cloned()
    });
    let state = match (&outcome, &pending, &position) {
        (Some(o), _, _) => o,
        (None, Some(_), _) => "queued",
        (None, None, Some(_)) => "settled",
        _ if !rows.is_empty() => "settled",
        _ => "not_found",
    };
    Lookup {
        intent_id: id,
        state,
        feed: rows,
        pending,
        position,
        outcome,
        wallet_checked: wallet.is_some(),
    }
}

impl Lookup {
    /// `lookup_intent`'s structured result: `intent_id`, `state`, `feed`, `pending`,
    /// `settlement`.
    pub fn json(&self, trading: &TradingState, now_s: u64) -> Value {
        json!({
            "intent_id": format!("{:#x}", self.intent_id),
            "state": self.state,
            "feed": self.feed.iter().map(event_json).collect::<Vec<_>>(),
            "pending": self.pending.as_ref().map(|(o, rank)| {
                let mut v = pending_json(o, trading, None, now_s);
                v["queue_rank"] = json!(rank);
                v
            }),
            "position_id": self.position.as_ref().map(|p| p.id.to_string()),
            "outcome": self.outcome,
            "wallet_checked": self.wallet_checked,
            "settlement": Value::Null,
            "settlement_note": SETTLEMENT_UNAVAILABLE,
        })
    }
}
