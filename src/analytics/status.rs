//! Is Papertrade healthy right now (the SDK's `papertrade_protocol_health`, the terminal's
//! `get_protocol_status`, the risk service's upstream status): relayer readiness, the pause
//! switch, the actions the relayer accepts, the minimums, the protocol's size and the operator's
//! notices. Notices are untrusted text: sanitised here and at most five.

use serde_json::{Value, json};

use crate::protocol::reads::{RelayerHealth, Summary};
use crate::protocol::trading::TradingState;

use super::{raw, usd, usd_u};

/// The most notices a status carries (the terminal's tool shows five).
pub const MAX_NOTICES: usize = 5;

/// What was read: the trading state always; the relayer's health and the summary when they
/// answered (`Err` says why not).
pub struct Inputs<'a> {
    pub trading: &'a TradingState,
    pub accepted_actions: Vec<&'static str>,
    pub health: Result<&'a RelayerHealth, String>,
    pub summary: Result<&'a Summary, String>,
}

/// The operator's notices in the health answer, as `{title, body, level}`. Which endpoint
/// carries notices is not known (protocol.md §3.8); the relayer's health is where they are read.
fn notices(h: &RelayerHealth) -> Vec<Value> {
    h.extra
        .get("notices")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .take(MAX_NOTICES)
        .map(|n| {
            let text = |k: &str| {
                crate::text::sanitize_line(n.get(k).and_then(Value::as_str).unwrap_or(""), 500)
            };
            json!({"title": text("title"), "body": text("body"), "level": text("level")})
        })
        .collect()
}

pub fn status_json(i: &Inputs<'_>) -> Value {
    let t = i.trading;
    let ready = i.health.as_ref().is_ok_and(|h| h.is_ready());
    let detail = match &i.health {
        Ok(h) if h.is_ready() => "ready".to_string(),
        Ok(h) => format!("not ready (ok {}, ready {})", h.ok, h.ready),
        Err(e) => format!("unavailable: {}", crate::text::sanitize_line(e, 200)),
    };
    let mut unavailable = Vec::new();
    if let Err(e) = &i.health {
        unavailable.push(format!(
            "relayer health: {}",
            crate::text::sanitize_line(e, 200)
        ));
    }
    if let Err(e) = &i.summary {
        unavailable.push(format!("summary: {}", crate::text::sanitize_line(e, 200)));
    }
    let s = i.summary.as_ref().ok();
    let mut v = json!({
        "healthy": ready && !t.trading_paused,
        "relayer": {
            "ok": i.health.as_ref().ok().map(|h| h.ok),
            "ready": ready,
            "detail": detail,
        },
        "relayerOk": ready,
        "relayerDetail": detail,
        "tradingPaused": t.trading_paused,
        "acceptedActions": i.accepted_actions,
        "pausedActions": t.intake.paused_actions,
        "minimumMarginUsd": usd_u(t.minimum_trade_size),
        "minimumMarginRaw": raw(t.minimum_trade_size),
        "minimumNotionalUsd": usd_u(t.minimum_open_notional),
        "minimumNotionalRaw": raw(t.minimum_open_notional),
        "indexedThroughBlock": t.indexed_through_block,
        "tvlUsd": s.map(|s| usd_u(s.balances.tvl)),
        "tvlRaw": s.map(|s| raw(s.balances.tvl)),
        "lpUsd": s.map(|s| usd(s.balances.lp)),
        "lpRaw": s.map(|s| raw(s.balances.lp)),
        "volumeUsd": s.map(|s| usd_u(s.activity.volume)),
        "volumeRaw": s.map(|s| raw(s.activity.volume)),
        "openPositions": s.map(|s| s.activity.open),
        "notices": i.health.as_ref().map(|h| notices(h)).unwrap_or_default(),
        "unavailable": unavailable,
    });
    // What could not be read is left out, never `null`: `unavailable` says why.
    crate::protocol::units::omit_nulls(
        &mut v,
        &[
            "tvlUsd",
            "tvlRaw",
            "lpUsd",
            "lpRaw",
            "volumeUsd",
            "volumeRaw",
            "openPositions",
        ],
    );
    if let Some(relayer) = v.get_mut("relayer") {
        crate::protocol::units::omit_nulls(relayer, &["ok"]);
    }
    v
}
