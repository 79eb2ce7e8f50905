//! `quote`, `ladder` and `close-quote` (and the assistant tools that quote): pre-trade numbers,
//! exactly as the protocol settles them. The inputs are text, as typed or as a tool argument's
//! decimal, and are validated before any network access.

use serde_json::{Value, json};

use crate::client::ExchangeHttp;
use crate::client::market_data::MarketData;
use crate::protocol::account::AccountState;
use crate::protocol::math::{
    Capacity, OpenFunds, OpenRejection, check_open, mint_amount, mint_basis, open_capacity,
};
use crate::protocol::pretrade::{
    Position, Scenario, exit_from_move, fraction_json, ladder_leverages, percent_json,
};
use crate::protocol::reads::Summary;
use crate::protocol::trading::Instrument;
use crate::protocol::units::{WAD, omit_nulls, price_json, signed, wad_json};

use super::{AnswerError, input};

/// The market, side and margin every quote starts from.
#[derive(Debug, Clone, Copy)]
pub struct Ticket<'a> {
    pub market: &'a str,
    pub side: &'a str,
    pub margin: &'a str,
}

/// The parsed common inputs.
struct Parsed {
    is_long: bool,
    margin: u128,
}

fn parse(t: &Ticket) -> Result<Parsed, AnswerError> {
    Ok(Parsed {
        is_long: input::side(t.side)?,
        margin: input::margin(t.margin)?,
    })
}

/// The market data a quote of `market` reads: live, or the shipped launch parameters.
pub async fn market_data(
    http: &ExchangeHttp,
    offline: bool,
    market: &str,
) -> Result<MarketData, AnswerError> {
    if offline {
        Ok(MarketData::offline())
    } else {
        Ok(MarketData::live(http, Some(market)).await?)
    }
}

/// The entry: the given price, else the live mark. Returns (raw, source label).
fn entry(
    data: &MarketData,
    market: &Instrument,
    given: Option<&str>,
) -> Result<(u64, &'static str), AnswerError> {
    if let Some(text) = given {
        return Ok((input::price("entry", text, market)?, "given"));
    }
    if data.is_offline() {
        return Err(AnswerError::input(
            "entry",
            "is required with --offline (there is no live mark)",
        ));
    }
    data.mark(market).map(|m| (m, "live mark")).map_err(|e| {
        AnswerError::Network(format!(
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
    let mut row = json!({
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
        "haircutNote": haircut_note(s),
    });
    // No haircut, no fraction: left out (never `null`), `haircutNote` says why.
    omit_nulls(
        &mut row,
        &["impactKeptFraction", "keptFractionOfRawGain", "haircutNote"],
    );
    row
}

/// The impact haircut's kept fraction on a win; null (then left out) for losses, flat exits and
/// liquidations, where `haircut_note` says why.
fn keep_json(s: &Scenario) -> Value {
    match s.valuation.keep {
        Some(k) if !s.liquidated => fraction_json(signed(k), WAD, 4),
        _ => Value::Null,
    }
}

/// Why a scenario has no impact haircut (and so no kept fractions), if it has none.
fn haircut_note(s: &Scenario) -> Option<&'static str> {
    if s.liquidated {
        Some("liquidated: the whole margin is lost, nothing is haircut")
    } else if s.valuation.keep.is_some() {
        None
    } else if s.gross_pnl > 0 {
        Some("flat: the move is inside the deadband and settles at entry")
    } else {
        Some("a loss is paid 1:1, never haircut")
    }
}

/// `markPrice` when the live mark is known, else `markError` saying why (never a `null` price).
fn put_mark(v: &mut Value, data: &MarketData, market: &Instrument) {
    match data.mark(market) {
        Ok(m) => v["markPrice"] = price_json(m, market.price_scale),
        Err(e) => v["markError"] = json!(crate::text::sanitize_line(&e, 200)),
    }
}

/// What `quote` asks beyond the ticket.
#[derive(Debug, Clone, Copy, Default)]
pub struct QuoteAsk<'a> {
    pub leverage: &'a str,
    pub entry: Option<&'a str>,
    pub exit: Option<&'a str>,
    pub move_pct: Option<&'a str>,
}

/// An open, quoted: bust, the relayer's checks, capacity and a close at each exit.
pub struct Quote<'a> {
    pub data: &'a MarketData,
    pub position: Position<'a>,
    pub entry_source: &'static str,
    pub live_mark: Option<u64>,
    pub validation: Result<(), OpenRejection>,
    pub capacity: Capacity,
    pub fee: u128,
    pub scenarios: Vec<Scenario>,
}

pub fn quote<'a>(data: &'a MarketData, t: &Ticket, a: &QuoteAsk) -> Result<Quote<'a>, AnswerError> {
    let i = parse(t)?;
    let leverage = input::leverage(a.leverage)?;
    let state = &data.state;
    let market = input::market(state, t.market)?;
    let (entry, entry_source) = entry(data, market, a.entry)?;
    let position = Position {
        market,
        is_long: i.is_long,
        margin: i.margin,
        leverage,
        entry,
    };
    let exits = match (a.exit, a.move_pct) {
        (Some(text), _) => vec![input::price("exit", text, market)?],
        (None, Some(pct)) => {
            vec![
                exit_from_move(entry, pct)
                    .map_err(|e| AnswerError::input("move", e.to_string()))?,
            ]
        }
        (None, None) => position.default_exits(),
    };
    let live_mark = data.mark(market).ok();
    // The open-interest cap is priced at the live mark; offline, at the given entry.
    let oi_price = live_mark.or(Some(entry));
    let check = position.open_check(state, oi_price, None);
    let fee = state.win_fee_rate();
    Ok(Quote {
        data,
        validation: check_open(&check),
        capacity: open_capacity(&check),
        scenarios: exits.iter().map(|x| position.scenario(fee, *x)).collect(),
        position,
        entry_source,
        live_mark,
        fee,
    })
}

impl Quote<'_> {
    pub fn json(&self) -> Value {
        let p = &self.position;
        let market = p.market;
        let bust = p.bust();
        let mut v = json!({
            "market": market.symbol,
            "side": input::side_label(p.is_long),
            "marginUsd": wad_json(signed(p.margin), 6),
            "marginRaw": p.margin.to_string(),
            "leverage": p.leverage,
            "notionalUsd": usd_json(signed(p.notional())),
            "notionalRaw": p.notional().to_string(),
            "entryPrice": price_json(p.entry, market.price_scale),
            "entryPriceRaw": p.entry.to_string(),
            "entrySource": self.entry_source,
            "bustPrice": price_json(bust, market.price_scale),
            "bustPriceRaw": bust.to_string(),
            "distanceToBustPct": percent_json(i128::from(p.entry.abs_diff(bust)), u128::from(p.entry), 4),
            "openValidation": validation_json(&self.validation),
            "capacity": {
                "maxMarginUsd": usd_json(signed(self.capacity.max_margin)),
                "maxMarginRaw": self.capacity.max_margin.to_string(),
                "limitedBy": self.capacity.limit.label(),
            },
            "winFeeRateRaw": self.fee.to_string(),
            "parameters": self.data.parameters_json(),
            "scenarios": self.scenarios.iter().map(|s| scenario_json(p, s)).collect::<Vec<_>>(),
        });
        put_mark(&mut v, self.data, market);
        v
    }
}

impl Quote<'_> {
    /// The SDK seed's per-scenario "PAPER mint basis" (§5.5, `protocol::math::mint_basis`):
    /// each scenario gets `paperMintBasisUsd`/`…Raw` and the PAPER it would mint now at the
    /// summary's point of the mint curve (`estimatedPaper`/`…Raw`, as `papertrade_paper_mint`
    /// names them), and `v` a `paperMint` block with the rate and the payout queue's state. A
    /// loss's basis depends on that queue: with no summary, a loss's basis and every PAPER figure
    /// are left out and `paperMintError` says why (a win's basis is 0, a liquidation's the margin,
    /// whatever the queue).
    pub fn add_paper_mint(&self, v: &mut Value, summary: Result<&Summary, String>) {
        let p = &self.position;
        let (queue_active, rate) = match &summary {
            Ok(s) => (Some(s.balances.queue > 0), Some(s.mint_rate())),
            Err(_) => (None, None),
        };
        let Some(rows) = v["scenarios"].as_array_mut() else {
            return;
        };
        for (row, s) in rows.iter_mut().zip(&self.scenarios) {
            let net = s.net_pnl(p.margin);
            let basis = match queue_active {
                Some(active) => Some(mint_basis(p.margin, net, s.liquidated, active)),
                // Either queue state gives the same basis here.
                None if s.liquidated || net >= 0 => {
                    Some(mint_basis(p.margin, net, s.liquidated, false))
                }
                None => None,
            };
            if let Some(basis) = basis {
                row["paperMintBasisUsd"] = wad_json(signed(basis), 6);
                row["paperMintBasisRaw"] = json!(basis.to_string());
                if let Some(rate) = rate {
                    let paper = mint_amount(basis, rate);
                    row["estimatedPaper"] = wad_json(signed(paper), 6);
                    row["estimatedPaperRaw"] = json!(paper.to_string());
                }
            }
        }
        match (summary, queue_active, rate) {
            (Ok(_), Some(active), Some(rate)) => {
                v["paperMint"] = json!({
                    "paperPerUsd": wad_json(signed(rate), 6),
                    "paperPerUsdRaw": rate.to_string(),
                    "payoutQueueActive": active,
                    "basisRule": "the whole margin on a liquidation; on a loss, the loss less the 2% LP-side fee while the payout queue is empty, the whole loss while it is active; nothing on a win",
                });
            }
            (Err(e), _, _) => {
                v["paperMintError"] = json!(format!(
                    "the protocol summary could not be read ({}): a loss's mint basis (it depends on the payout queue) and the PAPER figures are left out",
                    crate::text::sanitize_line(&e, 200)
                ));
            }
            _ => {}
        }
    }

    /// The browser terminal's six-step close ladder at this quote's entry
    /// (`quote::CLOSE_LADDER_QUARTERS`), lowest exit first.
    pub fn close_ladder(&self) -> Vec<Scenario> {
        let p = &self.position;
        p.close_ladder_exits()
            .into_iter()
            .map(|exit| p.scenario(self.fee, exit))
            .collect()
    }

    /// The ladder as `quote_open_position` names it: `priceMovePct`, `exitPrice`, `netPnlUsd`,
    /// `liquidated`, each figure beside its raw integer.
    pub fn close_ladder_json(&self) -> Vec<Value> {
        let p = &self.position;
        self.close_ladder()
            .iter()
            .map(|s| {
                let row = scenario_json(p, s);
                json!({
                    "priceMovePct": row["priceMovePct"],
                    "exitPrice": row["exitPrice"],
                    "exitPriceRaw": row["exitPriceRaw"],
                    "netPnlUsd": row["netPnlUsd"],
                    "netPnlRaw": row["netPnlRaw"],
                    "liquidated": row["liquidated"],
                })
            })
            .collect()
    }
}

impl Quote<'_> {
    /// The same open checked against one account, as the relayer will check it: its available
    /// balance, and the side it already holds in the market. Its session keys are dated by the
    /// exchange's own clock (the snapshot's indexed time), as the relayer will date them.
    /// One side per market for this account: the positions it holds and the opens it has queued
    /// (the market checks are `validation`'s; the funds are not read).
    pub fn side_check(&self, account: &AccountState) -> Result<(), OpenRejection> {
        let p = &self.position;
        let mut check = p.open_check(&self.data.state, self.live_mark.or(Some(p.entry)), None);
        check.positions = Some(&account.open_positions);
        check.queued = Some(&account.operations);
        check_open(&check)
    }

    pub fn account_json(&self, account: &AccountState) -> Value {
        let p = &self.position;
        let mut check = p.open_check(
            &self.data.state,
            self.live_mark.or(Some(p.entry)),
            Some(OpenFunds::of(account)),
        );
        check.positions = Some(&account.open_positions);
        check.queued = Some(&account.operations);
        let validation = check_open(&check);
        let available = account.funds.available_balance;
        json!({
            "address": format!("{:#x}", account.address),
            "availableUsd": usd_json(signed(available)),
            "availableRaw": available.to_string(),
            "marginEnough": available >= p.margin,
            "sessionKey": super::account::session_key_json(account),
            "openValidation": validation_json(&validation),
        })
    }
}

/// Bust, distance and the relayer's checks at every leverage step for one margin.
pub struct Ladder<'a> {
    pub data: &'a MarketData,
    pub market: &'a Instrument,
    pub is_long: bool,
    pub margin: u128,
    pub entry: u64,
    pub entry_source: &'static str,
    pub steps: Vec<(Position<'a>, Result<(), OpenRejection>)>,
}

pub fn ladder<'a>(
    data: &'a MarketData,
    t: &Ticket,
    entry_text: Option<&str>,
) -> Result<Ladder<'a>, AnswerError> {
    let i = parse(t)?;
    let state = &data.state;
    let market = input::market(state, t.market)?;
    let (entry, entry_source) = entry(data, market, entry_text)?;
    let oi_price = data.mark(market).ok().or(Some(entry));
    let steps = ladder_leverages(state.leverage_ceiling(market))
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
    Ok(Ladder {
        data,
        market,
        is_long: i.is_long,
        margin: i.margin,
        entry,
        entry_source,
        steps,
    })
}

impl Ladder<'_> {
    pub fn json(&self) -> Value {
        let (market, entry) = (self.market, self.entry);
        let steps: Vec<Value> = self
            .steps
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
        let mut v = json!({
            "market": market.symbol,
            "side": input::side_label(self.is_long),
            "marginUsd": wad_json(signed(self.margin), 6),
            "marginRaw": self.margin.to_string(),
            "entryPrice": price_json(entry, market.price_scale),
            "entryPriceRaw": entry.to_string(),
            "entrySource": self.entry_source,
            "parameters": self.data.parameters_json(),
            "steps": steps,
        });
        put_mark(&mut v, self.data, market);
        v
    }
}

/// What `close-quote` asks beyond the ticket.
#[derive(Debug, Clone, Copy, Default)]
pub struct CloseAsk<'a> {
    pub leverage: &'a str,
    pub entry: &'a str,
    pub exit: Option<&'a str>,
}

/// What closing a position pays at one exit.
pub struct CloseQuote<'a> {
    pub data: &'a MarketData,
    pub position: Position<'a>,
    pub exit_source: &'static str,
    pub scenario: Scenario,
    /// What the close pays back: margin plus net PnL, nothing when liquidated.
    pub payout: i128,
}

pub fn close_quote<'a>(
    data: &'a MarketData,
    t: &Ticket,
    a: &CloseAsk,
) -> Result<CloseQuote<'a>, AnswerError> {
    let i = parse(t)?;
    let leverage = input::leverage(a.leverage)?;
    let market = input::market(&data.state, t.market)?;
    let entry = input::price("entry", a.entry, market)?;
    let (exit, exit_source) = match a.exit {
        Some(text) => (input::price("exit", text, market)?, "given"),
        None if data.is_offline() => {
            return Err(AnswerError::input(
                "exit",
                "is required with --offline (there is no live mark)",
            ));
        }
        None => (
            data.mark(market).map_err(|e| {
                AnswerError::Network(format!(
                    "no live mark for {}: {e} (pass --exit)",
                    market.symbol
                ))
            })?,
            "live mark",
        ),
    };
    let position = Position {
        market,
        is_long: i.is_long,
        margin: i.margin,
        leverage,
        entry,
    };
    let scenario = position.scenario(data.state.win_fee_rate(), exit);
    let net = scenario.net_pnl(position.margin);
    let payout = if scenario.liquidated {
        0
    } else {
        (signed(position.margin) + net).max(0)
    };
    Ok(CloseQuote {
        data,
        position,
        exit_source,
        scenario,
        payout,
    })
}

impl CloseQuote<'_> {
    pub fn json(&self) -> Value {
        let p = &self.position;
        let market = p.market;
        let bust = p.bust();
        let mut body = json!({
            "market": market.symbol,
            "side": input::side_label(p.is_long),
            "marginUsd": wad_json(signed(p.margin), 6),
            "marginRaw": p.margin.to_string(),
            "leverage": p.leverage,
            "entryPrice": price_json(p.entry, market.price_scale),
            "entryPriceRaw": p.entry.to_string(),
            "exitSource": self.exit_source,
            "bustPrice": price_json(bust, market.price_scale),
            "bustPriceRaw": bust.to_string(),
        });
        let obj = body.as_object_mut().expect("object");
        if let Value::Object(scenario) = scenario_json(p, &self.scenario) {
            obj.extend(scenario);
        }
        // As the scenario's: left out when no haircut applies, `haircutNote` says why.
        if let Value::Number(_) = keep_json(&self.scenario) {
            obj.insert("keptFraction".into(), keep_json(&self.scenario));
        }
        obj.insert("payoutUsd".into(), usd_json(self.payout));
        obj.insert("payoutRaw".into(), json!(self.payout.to_string()));
        obj.insert("parameters".into(), self.data.parameters_json());
        body
    }
}
