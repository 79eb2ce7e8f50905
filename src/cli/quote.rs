//! `quote`, `ladder` and `close-quote`: pre-trade numbers, exactly as the protocol settles them.

use serde_json::{Value, json};

use crate::protocol::math::{OpenRejection, check_open, open_capacity};
use crate::protocol::trading::Instrument;
use crate::protocol::units::{WAD, price_json, signed, wad_json};
use crate::quote::{
    Position, Scenario, exit_from_move, fraction_json, ladder_leverages, percent_json, percent_text,
};

use super::market_data::MarketData;
use super::output::say;
use super::output::{Align, CliError, Table, price, print_json, usd, usd_signed};
use super::{CloseQuoteArgs, Context, LadderArgs, MarketArgs, QuoteArgs, args};

/// The parsed common inputs; validated before any network access.
struct Inputs {
    is_long: bool,
    margin: u128,
}

fn inputs(a: &MarketArgs) -> Result<Inputs, CliError> {
    Ok(Inputs {
        is_long: args::side(&a.side)?,
        margin: args::margin(&a.margin)?,
    })
}

async fn market_data(ctx: &Context, offline: bool, market: &str) -> Result<MarketData, CliError> {
    if offline {
        Ok(MarketData::offline())
    } else {
        MarketData::live(&ctx.http, Some(market)).await
    }
}

/// The entry: the given price, else the live mark. Returns (raw, source label).
fn entry(
    data: &MarketData,
    market: &Instrument,
    given: Option<&str>,
) -> Result<(u64, &'static str), CliError> {
    if let Some(text) = given {
        return Ok((args::price("entry", text, market)?, "given"));
    }
    if data.is_offline() {
        return Err(CliError::input(
            "entry",
            "is required with --offline (there is no live mark)",
        ));
    }
    data.mark(market).map(|m| (m, "live mark")).map_err(|e| {
        CliError::Network(format!(
            "no live mark for {}: {e} (pass --entry to quote anyway)",
            market.symbol
        ))
    })
}

fn usd_json(wad: i128) -> Value {
    wad_json(wad, 2)
}

fn validation_json(result: &Result<(), OpenRejection>) -> Value {
    match result {
        Ok(()) => json!({"accepted": true, "problem": null, "code": null}),
        Err(r) => json!({"accepted": false, "problem": r.to_string(), "code": r.code()}),
    }
}

fn scenario_json(p: &Position, s: &Scenario) -> Value {
    let scale = p.market.price_scale;
    let net = s.net_pnl(p.margin);
    let movement = i128::from(s.exit) - i128::from(p.entry);
    json!({
        "exitPrice": price_json(s.exit, scale),
        "exitPriceRaw": s.exit.to_string(),
        "priceMovePct": percent_json(movement, u128::from(p.entry), 4),
        "rawPnlUsd": usd_json(s.gross_pnl),
        "rawPnlRaw": s.gross_pnl.to_string(),
        "settlementExitPrice": price_json(s.valuation.exit, scale),
        "settlementExitPriceRaw": s.valuation.exit.to_string(),
        "settlementRawPnlUsd": usd_json(s.valuation.raw_pnl),
        "settlementRawPnlRaw": s.valuation.raw_pnl.to_string(),
        "impactKeptFraction": keep_json(s),
        "adjustedPnlUsd": usd_json(s.adjusted_pnl(p.margin)),
        "adjustedPnlRaw": s.adjusted_pnl(p.margin).to_string(),
        "winFeeUsd": usd_json(signed(s.win_fee())),
        "winFeeRaw": s.win_fee().to_string(),
        "netPnlUsd": usd_json(net),
        "netPnlRaw": net.to_string(),
        "netReturnOnMarginPct": percent_json(net, p.margin, 1),
        "keptFractionOfRawGain": (s.gross_pnl > 0).then(|| fraction_json(net, s.gross_pnl as u128, 4)),
        "liquidated": s.liquidated,
    })
}

/// The impact haircut's kept fraction on a win; null for losses, flat exits and liquidations.
fn keep_json(s: &Scenario) -> Value {
    match s.valuation.keep {
        Some(k) if !s.liquidated => fraction_json(signed(k), WAD, 4),
        _ => Value::Null,
    }
}

fn note(s: &Scenario) -> &'static str {
    if s.liquidated {
        "liquidated: margin lost"
    } else if s.gross_pnl > 0 && s.valuation.raw_pnl == 0 {
        "inside the deadband"
    } else {
        ""
    }
}

fn scenario_table(p: &Position, scenarios: &[Scenario]) -> String {
    let mut table = Table::new(&[
        ("EXIT", Align::Right),
        ("MOVE", Align::Right),
        ("RAW PNL", Align::Right),
        ("ADJUSTED", Align::Right),
        ("WIN FEE", Align::Right),
        ("NET PNL", Align::Right),
        ("ON MARGIN", Align::Right),
        ("", Align::Left),
    ]);
    for s in scenarios {
        let net = s.net_pnl(p.margin);
        let movement = i128::from(s.exit) - i128::from(p.entry);
        let mv = percent_text(movement, u128::from(p.entry), 2);
        table.row(vec![
            price(s.exit, p.market.price_scale),
            format!("{}{mv}%", if movement > 0 { "+" } else { "" }),
            usd_signed(s.gross_pnl),
            usd_signed(s.adjusted_pnl(p.margin)),
            usd(signed(s.win_fee())),
            usd_signed(net),
            format!("{}%", percent_text(net, p.margin, 1)),
            note(s).to_string(),
        ]);
    }
    table.render()
}

fn side_word(is_long: bool) -> &'static str {
    if is_long { "LONG" } else { "SHORT" }
}

pub async fn quote(ctx: &Context, a: QuoteArgs) -> Result<(), CliError> {
    let i = inputs(&a.position)?;
    let leverage = args::leverage(&a.leverage)?;
    let data = market_data(ctx, a.offline, &a.position.market).await?;
    let state = &data.state;
    let market = args::market(state, &a.position.market)?;
    let (entry, entry_source) = entry(&data, market, a.entry.as_deref())?;
    let p = Position {
        market,
        is_long: i.is_long,
        margin: i.margin,
        leverage,
        entry,
    };
    let exits = match (&a.exit, &a.move_pct) {
        (Some(text), _) => vec![args::price("exit", text, market)?],
        (None, Some(pct)) => {
            vec![exit_from_move(entry, pct).map_err(|e| CliError::input("move", e.to_string()))?]
        }
        (None, None) => p.default_exits(),
    };
    let live_mark = data.mark(market).ok();
    // The open-interest cap is priced at the live mark; offline, at the given entry.
    let oi_price = live_mark.or(Some(entry));
    let check = p.open_check(state, oi_price, None);
    let validation = check_open(&check);
    let capacity = open_capacity(&check);
    let fee = state.win_fee_rate();
    let scenarios: Vec<Scenario> = exits.iter().map(|x| p.scenario(fee, *x)).collect();
    let bust = p.bust();
    let distance = percent_text(i128::from(entry.abs_diff(bust)), u128::from(entry), 4);

    if ctx.json {
        print_json(&json!({
            "market": market.symbol,
            "side": args::side_label(i.is_long),
            "marginUsd": wad_json(signed(i.margin), 6),
            "marginRaw": i.margin.to_string(),
            "leverage": leverage,
            "notionalUsd": usd_json(signed(p.notional())),
            "notionalRaw": p.notional().to_string(),
            "entryPrice": price_json(entry, market.price_scale),
            "entryPriceRaw": entry.to_string(),
            "entrySource": entry_source,
            "markPrice": live_mark.map(|m| price_json(m, market.price_scale)),
            "bustPrice": price_json(bust, market.price_scale),
            "bustPriceRaw": bust.to_string(),
            "distanceToBustPct": percent_json(i128::from(entry.abs_diff(bust)), u128::from(entry), 4),
            "openValidation": validation_json(&validation),
            "capacity": {
                "maxMarginUsd": usd_json(signed(capacity.max_margin)),
                "maxMarginRaw": capacity.max_margin.to_string(),
                "limitedBy": capacity.limit.label(),
            },
            "winFeeRateRaw": fee.to_string(),
            "parameters": data.parameters_json(),
            "scenarios": scenarios.iter().map(|s| scenario_json(&p, s)).collect::<Vec<_>>(),
        }));
        return Ok(());
    }
    say!(
        "{} {} {leverage}x · margin {} · notional {}",
        side_word(i.is_long),
        market.symbol,
        usd(signed(i.margin)),
        usd(signed(p.notional()))
    );
    say!(
        "entry {} ({entry_source}) · bust {} ({distance}% away)",
        price(entry, market.price_scale),
        price(bust, market.price_scale)
    );
    match &validation {
        Ok(()) => say!("open: passes the relayer's checks"),
        Err(r) => say!("open: WOULD BE REFUSED: {r}"),
    }
    say!(
        "max margin at {leverage}x: {} (limited by {})",
        usd(signed(capacity.max_margin)),
        capacity.limit.label()
    );
    say!("\n{}\n", scenario_table(&p, &scenarios));
    say!(
        "The bust price is {distance}% away: a move that far against you at {leverage}x liquidates the position and the whole margin is lost."
    );
    say!("{}", data.parameters_line());
    Ok(())
}

pub async fn ladder(ctx: &Context, a: LadderArgs) -> Result<(), CliError> {
    let i = inputs(&a.position)?;
    let data = market_data(ctx, a.offline, &a.position.market).await?;
    let state = &data.state;
    let market = args::market(state, &a.position.market)?;
    let (entry, entry_source) = entry(&data, market, a.entry.as_deref())?;
    let live_mark = data.mark(market).ok();
    let oi_price = live_mark.or(Some(entry));
    let steps: Vec<(Position, Result<(), OpenRejection>)> =
        ladder_leverages(state.leverage_ceiling(market))
            .into_iter()
            .map(|leverage| {
                let p = Position {
                    market,
                    is_long: i.is_long,
                    margin: i.margin,
                    leverage,
                    entry,
                };
                let v = p.validate(state, oi_price, None);
                (p, v)
            })
            .collect();

    if ctx.json {
        let steps_json: Vec<Value> = steps
            .iter()
            .map(|(p, v)| {
                let bust = p.bust();
                json!({
                    "leverage": p.leverage,
                    "notionalUsd": usd_json(signed(p.notional())),
                    "notionalRaw": p.notional().to_string(),
                    "bustPrice": price_json(bust, market.price_scale),
                    "bustPriceRaw": bust.to_string(),
                    "bustDistancePct": percent_json(i128::from(entry.abs_diff(bust)), u128::from(entry), 4),
                    "valid": v.is_ok(),
                    "invalidReason": v.as_ref().err().map(ToString::to_string),
                    "invalidCode": v.as_ref().err().map(OpenRejection::code),
                })
            })
            .collect();
        print_json(&json!({
            "market": market.symbol,
            "side": args::side_label(i.is_long),
            "marginUsd": wad_json(signed(i.margin), 6),
            "marginRaw": i.margin.to_string(),
            "markPrice": live_mark.map(|m| price_json(m, market.price_scale)),
            "entryPrice": price_json(entry, market.price_scale),
            "entryPriceRaw": entry.to_string(),
            "entrySource": entry_source,
            "parameters": data.parameters_json(),
            "steps": steps_json,
        }));
        return Ok(());
    }
    say!(
        "{} {} · margin {} · entry {} ({entry_source})\n",
        side_word(i.is_long),
        market.symbol,
        usd(signed(i.margin)),
        price(entry, market.price_scale)
    );
    let mut table = Table::new(&[
        ("LEVERAGE", Align::Right),
        ("NOTIONAL", Align::Right),
        ("BUST", Align::Right),
        ("DISTANCE", Align::Right),
        ("OPEN", Align::Left),
    ]);
    for (p, v) in &steps {
        let bust = p.bust();
        table.row(vec![
            format!("{}x", p.leverage),
            usd(signed(p.notional())),
            price(bust, market.price_scale),
            format!(
                "{}%",
                percent_text(i128::from(entry.abs_diff(bust)), u128::from(entry), 4)
            ),
            match v {
                Ok(()) => "ok".into(),
                Err(r) => format!("refused: {r}"),
            },
        ]);
    }
    say!("{}\n", table.render());
    say!("{}", data.parameters_line());
    Ok(())
}

pub async fn close_quote(ctx: &Context, a: CloseQuoteArgs) -> Result<(), CliError> {
    let i = inputs(&a.position)?;
    let leverage = args::leverage(&a.leverage)?;
    let data = market_data(ctx, a.offline, &a.position.market).await?;
    let market = args::market(&data.state, &a.position.market)?;
    let entry = args::price("entry", &a.entry, market)?;
    let (exit, exit_source) = match &a.exit {
        Some(text) => (args::price("exit", text, market)?, "given"),
        None if data.is_offline() => {
            return Err(CliError::input(
                "exit",
                "is required with --offline (there is no live mark)",
            ));
        }
        None => (
            data.mark(market).map_err(|e| {
                CliError::Network(format!(
                    "no live mark for {}: {e} (pass --exit)",
                    market.symbol
                ))
            })?,
            "live mark",
        ),
    };
    let p = Position {
        market,
        is_long: i.is_long,
        margin: i.margin,
        leverage,
        entry,
    };
    let s = p.scenario(data.state.win_fee_rate(), exit);
    let net = s.net_pnl(p.margin);
    let payout = if s.liquidated {
        0
    } else {
        (signed(p.margin) + net).max(0)
    };
    let bust = p.bust();

    if ctx.json {
        let mut body = json!({
            "market": market.symbol,
            "side": args::side_label(i.is_long),
            "marginUsd": wad_json(signed(i.margin), 6),
            "marginRaw": i.margin.to_string(),
            "leverage": leverage,
            "entryPrice": price_json(entry, market.price_scale),
            "entryPriceRaw": entry.to_string(),
            "exitSource": exit_source,
            "bustPrice": price_json(bust, market.price_scale),
            "bustPriceRaw": bust.to_string(),
        });
        let scenario = scenario_json(&p, &s);
        let obj = body.as_object_mut().expect("object");
        for (k, v) in scenario.as_object().expect("object") {
            obj.insert(k.clone(), v.clone());
        }
        obj.insert("keptFraction".into(), keep_json(&s));
        obj.insert("payoutUsd".into(), json!(usd_json(payout)));
        obj.insert("payoutRaw".into(), json!(payout.to_string()));
        obj.insert("parameters".into(), data.parameters_json());
        print_json(&body);
        return Ok(());
    }
    say!(
        "{} {} {leverage}x · margin {} · entry {} · bust {}",
        side_word(i.is_long),
        market.symbol,
        usd(signed(i.margin)),
        price(entry, market.price_scale),
        price(bust, market.price_scale)
    );
    say!(
        "close at {} ({exit_source}):\n",
        price(exit, market.price_scale)
    );
    say!("{}\n", scenario_table(&p, std::slice::from_ref(&s)));
    if s.liquidated {
        say!(
            "The exit is at or beyond the bust price: the position is liquidated and pays nothing."
        );
    } else {
        let keep = match s.valuation.keep {
            Some(k) => format!(" · impact keeps {}%", percent_text(signed(k), WAD, 2)),
            None => String::new(),
        };
        say!(
            "pays {} (margin {} {} net){keep}",
            usd(payout),
            usd(signed(p.margin)),
            usd_signed(net)
        );
    }
    say!("{}", data.parameters_line());
    Ok(())
}
