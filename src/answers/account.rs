//! An account as `positions --json` (and the wallet-positions tools) give it: balances, each
//! open position valued at the live mark as a close there would settle, pending intents with
//! their queue rank.

use std::collections::BTreeMap;

use alloy_primitives::Address;
use serde_json::{Value, json};

use crate::analytics::positions::CloseValue;
use crate::client::ExchangeHttp;
use crate::client::market_data::MarketData;
use crate::protocol::account::{AccountState, Operation};
use crate::protocol::pretrade::{Position, percent_json};
use crate::protocol::reads::QueueRank;
use crate::protocol::trading::TradingState;
use crate::protocol::units::{USDC_TO_WAD, price_json, signed, wad_json};

/// Each pending intent's place in the relayer queue, by intent id (empty when unavailable).
pub async fn queue_ranks(http: &ExchangeHttp, wallet: Address) -> BTreeMap<String, u64> {
    let path = format!("/queue-rank/accounts/{wallet:#x}");
    match http.get_json::<QueueRank>(&path, &BTreeMap::new()).await {
        Ok(rank) => rank
            .entries
            .into_iter()
            .map(|e| (format!("{:#x}", e.intent_id), e.position))
            .collect(),
        Err(e) => {
            tracing::debug!(error = %e, "queue rank unavailable");
            BTreeMap::new()
        }
    }
}

pub fn symbol(state: &TradingState, id: u32) -> String {
    state
        .market_by_id(id)
        .map(|m| m.symbol.clone())
        .unwrap_or_else(|| format!("#{id}"))
}

pub fn side(is_long: bool) -> &'static str {
    if is_long { "long" } else { "short" }
}

/// The account's session key as the relayer sees it, by the exchange's clock: `active` (the
/// latest-expiring unexpired key, its expiry and how many are active), `expired` (keys are
/// registered, none unexpired) or `none`. A key's fields are absent, not null, when there is none.
pub fn session_key_json(s: &AccountState) -> Value {
    let active: Vec<_> = s.active_session_keys().collect();
    match active.iter().max_by_key(|k| k.expiry) {
        Some(k) => json!({
            "status": "active",
            "key": format!("{:#x}", k.key),
            "expiresAt": k.expiry,
            "active": active.len(),
        }),
        None if s.session_keys.is_empty() => json!({"status": "none", "active": 0}),
        None => json!({"status": "expired", "active": 0}),
    }
}

/// `positions --json`: balances, each position valued at the mark, pending intents.
pub fn account_json(
    s: &AccountState,
    data: &MarketData,
    ranks: &BTreeMap<String, u64>,
    mode: &str,
) -> Value {
    let fee = data.state.win_fee_rate();
    let positions: Vec<Value> = s
        .open_positions
        .iter()
        .map(|p| {
            let market = data.state.market_by_id(p.instrument_id);
            let mut row = json!({
                "positionId": p.id.to_string(),
                "market": symbol(&data.state, p.instrument_id),
                "marketListed": market.is_some(),
                "side": side(p.is_long),
                "leverage": p.leverage,
                "useDebt": p.use_debt,
                "marginUsd": wad_json(signed(p.margin), 6),
                "marginRaw": p.margin.to_string(),
                "notionalUsd": wad_json(signed(p.notional()), 2),
                "entryPriceRaw": p.entry_price.to_string(),
                "bustPriceRaw": p.bust_price.to_string(),
                "openedAt": p.opened_at_ms,
                "intentId": p.intent_id.map(|i| format!("{i:#x}")),
            });
            if let Some(m) = market {
                row["entryPrice"] = price_json(p.entry_price, m.price_scale);
                row["bustPrice"] = price_json(p.bust_price, m.price_scale);
                if let Err(e) = data.mark(m) {
                    // The mark's figures are left out; this says why.
                    row["markError"] = json!(crate::text::sanitize_line(&e, 200));
                }
                if let Ok(mark) = data.mark(m) {
                    let sc = Position::held(m, p).scenario(fee, mark);
                    let close = CloseValue::at(m, p, fee, mark);
                    row["markPrice"] = price_json(mark, m.price_scale);
                    row["unrealizedPnlUsd"] = wad_json(sc.gross_pnl.max(-signed(p.margin)), 2);
                    // What a close at the mark pays back (margin + net, 0 liquidated) and its
                    // net PnL: two figures, two names (`closeNetPnl…` is the seed's field).
                    row["closePaysUsd"] = wad_json(close.returns, 2);
                    row["closePaysRaw"] = json!(close.returns.to_string());
                    row["closeNetPnlUsd"] = wad_json(close.net, 2);
                    row["closeNetPnlRaw"] = json!(close.net.to_string());
                    row["liquidated"] = json!(close.liquidated);
                    row["distanceToLiquidationPct"] = percent_json(close.room, u128::from(mark), 4);
                    row["riskPct"] = json!(close.risk_bps / 100);
                }
            }
            row
        })
        .collect();
    let ops: Vec<Value> = s
        .operations
        .iter()
        .map(|o| operation_json(o, &data.state, ranks))
        .collect();
    json!({
        "address": format!("{:#x}", s.address),
        "mode": mode,
        "balanceUsd": wad_json(signed(s.balance), 2),
        "availableUsd": wad_json(signed(s.funds.available_balance), 2),
        "queuedUsd": wad_json(signed(s.queued), 2),
        "lockedUsd": wad_json(signed(s.locked), 2),
        "balanceRaw": s.balance.to_string(),
        "availableRaw": s.funds.available_balance.to_string(),
        "queuedRaw": s.queued.to_string(),
        "lockedRaw": s.locked.to_string(),
        "paper": {"balanceRaw": s.paper.balance.to_string(), "stakedRaw": s.paper.staked.to_string()},
        // The browser terminal's `tradingEnabled`: an unexpired session key exists.
        "tradingEnabled": s.active_session_keys().next().is_some(),
        "sessionKey": session_key_json(s),
        "sessionKeys": s.session_keys.iter().map(|k| json!({"key": format!("{:#x}", k.key), "expiry": k.expiry})).collect::<Vec<_>>(),
        "accountRevision": s.account_revision,
        "positions": positions,
        "pendingOperations": ops,
        "parameters": data.parameters_json(),
    })
}

pub fn operation_json(o: &Operation, state: &TradingState, ranks: &BTreeMap<String, u64>) -> Value {
    let id = format!("{:#x}", o.intent_id);
    let amount = match (o.action.as_str(), o.amount) {
        ("withdrawToCore", Some(a)) => Some(wad_json(signed(a.saturating_mul(USDC_TO_WAD)), 6)),
        ("openPosition", Some(a)) => Some(wad_json(signed(a), 6)),
        _ => None,
    };
    let mut v = json!({
        "intentId": id,
        "action": o.action,
        "market": o.instrument_id.map(|i| symbol(state, i)),
        "side": o.is_long.map(side),
        "amountUsd": amount,
        "leverage": o.leverage,
        "closePositionIds": o.close_position_ids.as_ref().map(|ids| ids.iter().map(|i| i.to_string()).collect::<Vec<_>>()),
        "acceptedAt": o.accepted_at_ms,
        "deadline": o.deadline,
        "queueRank": ranks.get(&id),
    });
    // Figures an action does not carry are left out, never `null` (the `action` says why); a
    // rank the relayer did not give is said.
    if !ranks.contains_key(&id) {
        v["queueRankNote"] = json!("the relayer's queue rank for this intent was not available");
    }
    crate::protocol::units::omit_nulls(
        &mut v,
        &[
            "amountUsd",
            "leverage",
            "queueRank",
            "market",
            "side",
            "closePositionIds",
        ],
    );
    v
}
