//! `papertrade-tui markets`.

use crate::analytics::overview::base_to_usd;
use crate::protocol::trading::Cap;
use crate::protocol::units::signed;

use super::Context;
use super::output::say;
use super::output::{Align, CliError, Table, print_json, usd};
use crate::client::market_data::MarketData;

pub async fn run(ctx: &Context) -> Result<(), CliError> {
    let data = MarketData::live(&ctx.http, None).await?;
    let state = &data.state;
    let fee = state.win_fee_rate();
    if ctx.json {
        print_json(&crate::answers::markets::markets_json(&data));
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
    ])
    .keep(&[10, 10, 9, 8, 4, 6, 6]);
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
        crate::protocol::pretrade::percent_text(signed(fee), crate::protocol::units::WAD, 2),
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
