//! `markets` (and the assistant tools that list markets): every market's mark, status, leverage
//! and size limits, open interest and caps in USD, the protocol minimums and the fee.

use serde_json::{Value, json};

use crate::analytics::overview::base_to_usd;
use crate::client::market_data::MarketData;
use crate::protocol::pretrade::percent_json;
use crate::protocol::trading::Cap;
use crate::protocol::units::{omit_nulls, price_json, signed, wad_json};

pub fn markets_json(data: &MarketData) -> Value {
    let state = &data.state;
    let fee = state.win_fee_rate();
    let markets: Vec<Value> = state
        .instruments
        .iter()
        .map(|m| {
            let mark = data.mark(m);
            let side = |oi: u128, cap: Cap| {
                let usd_of = |q: u128| {
                    mark.as_ref()
                        .ok()
                        .map(|mk| wad_json(signed(base_to_usd(q, *mk, m)), 2))
                };
                let (cap_raw, cap_usd) = match cap {
                    Cap::Unlimited => (Value::Null, Value::Null),
                    Cap::Limit(c) => (Value::String(c.to_string()), json!(usd_of(c))),
                };
                // USD needs the mark (`markError` says why it is missing); no cap, no cap figures.
                let mut v = json!({"oiUsd": usd_of(oi), "oiRaw": oi.to_string(), "capUsd": cap_usd,
                                   "capRaw": cap_raw, "capUnlimited": cap == Cap::Unlimited});
                omit_nulls(&mut v, &["oiUsd", "capUsd", "capRaw"]);
                v
            };
            let mut row = json!({
                "id": m.id,
                "symbol": m.symbol,
                "status": m.status(state.trading_paused).label(),
                "openable": m.openable() && !state.trading_paused,
                "paused": m.paused,
                "closeOnly": m.close_only,
                "terminal": m.terminal,
                "markPrice": mark.as_ref().ok().map(|r| price_json(*r, m.price_scale)),
                "markPriceRaw": mark.as_ref().ok().map(|r| r.to_string()),
                "markError": mark.as_ref().err().map(|e| crate::text::sanitize_line(e, 200)),
                "priceScale": m.price_scale,
                "maxLeverage": state.leverage_ceiling(m),
                "maxPositionNotionalUsd": wad_json(signed(m.max_position_notional), 2),
                "maxPositionNotionalRaw": m.max_position_notional.to_string(),
                "long": side(m.long_oi, m.long_cap),
                "short": side(m.short_oi, m.short_cap),
                "bustBufferRaw": m.bust_buffer.to_string(),
                "baseRateRaw": m.base_rate.to_string(),
            });
            // The seeds type `markPrice` as a number: with no mark it is left out and
            // `markError` says why.
            omit_nulls(&mut row, &["markPrice", "markPriceRaw", "markError"]);
            row
        })
        .collect();

    json!({
        "tradingPaused": state.trading_paused,
        "indexedThroughBlock": state.indexed_through_block,
        "pausedActions": state.intake.paused_actions,
        "limits": {
            "minMarginUsd": wad_json(signed(state.minimum_trade_size), 2),
            "minMarginRaw": state.minimum_trade_size.to_string(),
            "minNotionalUsd": wad_json(signed(state.minimum_open_notional), 2),
            "minNotionalRaw": state.minimum_open_notional.to_string(),
            "winFeePct": percent_json(signed(fee), crate::protocol::units::WAD, 4),
            "winFeeRateRaw": fee.to_string(),
            "maximumLeverage": state.maximum_leverage,
            "minimumLeverage": state.minimum_leverage,
        },
        "parameters": data.parameters_json(),
        "markets": markets,
    })
}

/// The relayer's action names it accepts now: every intent's, less the ones its intake pauses.
pub fn accepted_actions(state: &crate::protocol::trading::TradingState) -> Vec<&'static str> {
    use crate::protocol::eip712::{
        CancelIntent, Claim, Close, Intent, OpenPosition, RegisterSessionKey, Stake, Unstake,
        WithdrawToCore,
    };
    [
        RegisterSessionKey::ACTION,
        OpenPosition::ACTION,
        Close::ACTION,
        WithdrawToCore::ACTION,
        Stake::ACTION,
        Unstake::ACTION,
        Claim::ACTION,
        CancelIntent::ACTION,
    ]
    .into_iter()
    .flatten()
    .filter(|a| state.action_accepted(a))
    .collect()
}
