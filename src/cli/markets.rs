//! `papertrade-tui markets`.

use serde_json::{Value, json};

use crate::analytics::overview::base_to_usd;
use crate::protocol::trading::Cap;
use crate::protocol::units::{price_json, signed, wad_json};

use super::Context;
use super::market_data::MarketData;
use super::output::say;
use super::output::{Align, CliError, Table, print_json, usd};
use crate::quote::percent_json;

pub async fn run(ctx: &Context) -> Result<(), CliError> {
    let data = MarketData::live(&ctx.http, None).await?;
    let state = &data.state;
    let fee = state.win_fee_rate();

    let markets: Vec<Value> = state
        .instruments
        .iter()
        .map(|m| {
            let mark = data.mark(m);
            let side = |oi: u128, cap: Cap| {
                let usd_of = |q: u128| mark.as_ref().ok().map(|mk| wad_json(signed(base_to_usd(q, *mk, m)), 2));
                let (cap_raw, cap_usd) = match cap {
                    Cap::Unlimited => (Value::Null, Value::Null),
                    Cap::Limit(c) => (Value::String(c.to_string()), json!(usd_of(c))),
                };
                json!({"oiUsd": usd_of(oi), "oiRaw": oi.to_string(), "capUsd": cap_usd, "capRaw": cap_raw})
            };
            json!({
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
            })
        })
        .collect();

    if ctx.json {
        print_json(&json!({
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
        }));
        return Ok(());
    }

    let mut table = Table::new(&[
        ("MARKET", Align::Left),
        ("MARK", Align::Right),
        ("STATUS", Align::Left),
        ("MAX LEV", Align::Right),
        ("MAX NOTIONAL", Align::Right),
        ("LONG OI / CAP", Align::Right),
        ("SHORT OI / CAP", Align::Right),
    ]);
    for m in &state.instruments {
        let mark = data.mark(m);
        let oi = |q: u128, cap: Cap| -> String {
            let Ok(mk) = mark else { return "—".into() };
            let cap = match cap {
                Cap::Unlimited => "no cap".to_string(),
                Cap::Limit(c) => usd(signed(base_to_usd(c, mk, m))),
            };
            format!("{} / {cap}", usd(signed(base_to_usd(q, mk, m))))
        };
        table.row(vec![
            m.symbol.clone(),
            mark.as_ref()
                .map(|r| super::output::price(*r, m.price_scale))
                .unwrap_or_else(|_| "unavailable".into()),
            m.status(state.trading_paused).label().to_string(),
            format!("{}x", state.leverage_ceiling(m)),
            usd(signed(m.max_position_notional)),
            oi(m.long_oi, m.long_cap),
            oi(m.short_oi, m.short_cap),
        ]);
    }
    say!("{}", table.render());
    say!(
        "\nmin margin {}  ·  min notional {}  ·  win fee {}%  ·  trading {}",
        usd(signed(state.minimum_trade_size)),
        usd(signed(state.minimum_open_notional)),
        crate::quote::percent_text(signed(fee), crate::protocol::units::WAD, 2),
        if state.trading_paused {
            "PAUSED"
        } else {
            "open"
        },
    );
    if !state.intake.paused_actions.is_empty() {
        let paused = state.intake.paused_actions.join(", ");
        say!(
            "relayer not accepting: {}",
            crate::text::sanitize_line(&paused, 200)
        );
    }
    for m in &state.instruments {
        if let Err(e) = data.mark(m) {
            say!(
                "{} mark unavailable: {}",
                m.symbol,
                crate::text::sanitize_line(&e, 160)
            );
        }
    }
    say!("{}", data.parameters_line());
    Ok(())
}
