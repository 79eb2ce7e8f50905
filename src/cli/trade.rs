//! `open`, `close`, `cancel`: check against the freshest state, restate exactly what
//! will be signed, ask, sign, send once, and follow the account stream to the outcome.

use alloy_primitives::{B256, U256};
use serde_json::{Value, json};

use clap::Args;

use crate::analytics::positions::CloseValue;
use crate::client::intents::{Submission, SubmitError};
use crate::client::orders::{OrderError, Sent, Trader};
use crate::clock::now_unix_s;
use crate::events::intents::{IntentWatch, Resolution};
use crate::protocol::account::Operation;
use crate::protocol::eip712::{MAX_CLOSE_IDS, SessionSigner};
use crate::protocol::failure::FailureGuess;
use crate::protocol::math::{OpenCheck, OpenFunds, OpenRejection, check_open};
use crate::protocol::order::Order;
use crate::protocol::pretrade::{Position, percent_text};
use crate::protocol::rules::{CloseRejection, check_cancel, close_rejection};
use crate::protocol::units::{price_json, signed, wad_json};
use crate::store::ledger::AuditLog;

use super::args::{MarketArgs, WaitArgs};
use super::key::report_submission;
use super::output::say;
use super::output::{CliError, REFUSED_STATE, expect_outcomes, price, print_json, usd, usd_signed};

use super::session::{LiveAccount, confirm, owner, renewal_warning, usable_session_key};
use super::{Context, args};

#[derive(Debug, Args)]
pub(crate) struct OpenArgs {
    #[command(flatten)]
    pub position: MarketArgs,
    /// Whole-number leverage, 1 to the market maximum.
    #[arg(long, allow_hyphen_values = true)]
    pub leverage: String,
    /// Take the margin from the queued (owed) balance.
    #[arg(long = "use-debt")]
    pub use_debt: bool,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CloseArgs {
    /// Position ids to close.
    #[arg(
        value_name = "POSITION_ID",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    pub ids: Vec<String>,
    /// Close every open position.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CancelArgs {
    /// The queued intent's id (0x + 64 hex).
    #[arg(value_name = "INTENT_ID")]
    pub intent_id: String,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,
}

use crate::client::market_data::MarketData;

/// Build, sign and send a session-signed order through the one money path.
async fn session_order(
    ctx: &Context,
    key: &SessionSigner,
    owner: alloy_primitives::Address,
    order: &Order,
    details: Value,
) -> Result<Vec<Sent>, CliError> {
    let trader = Trader::new(
        ctx.http.clone(),
        &ctx.data_dir,
        key.clone(),
        owner,
        ctx.deadlines,
    );
    Ok(trader.send(order, details).await?)
}

impl From<OrderError> for CliError {
    fn from(e: OrderError) -> Self {
        CliError::Local(e.to_string())
    }
}

/// The flag a refused open check is about, for a one-line error naming it.
fn rejection_field(r: &OpenRejection) -> &'static str {
    match r {
        OpenRejection::TradingPaused
        | OpenRejection::MarketNotOpenable { .. }
        | OpenRejection::IntakePaused => "market",
        OpenRejection::LeverageAboveMaximum { .. } | OpenRejection::LeverageBelowMinimum { .. } => {
            "leverage"
        }
        // The position held on the other side refuses it, whatever the margin.
        OpenRejection::OppositeSideOpen { .. } | OpenRejection::OppositeSideQueued { .. } => "side",
        OpenRejection::MarginBelowMinimum { .. }
        | OpenRejection::NotionalAboveMaximum { .. }
        | OpenRejection::NotionalBelowMinimum { .. }
        | OpenRejection::InsufficientBalance { .. }
        | OpenRejection::InsufficientQueued { .. }
        | OpenRejection::InsufficientDebtRoom { .. }
        | OpenRejection::OpenInterestCap { .. } => "margin",
    }
}

/// A failed open check as the command's error: the exchange's state (exit 6, may pass later)
/// or the order itself (exit 2, naming the flag to change).
fn open_refusal(r: &OpenRejection) -> CliError {
    if r.is_exchange_state() {
        return CliError::State {
            reason: r.code().to_string(),
            message: format!(
                "the exchange refuses opens right now: {r}; nothing was signed (the same open \
                 may pass once it resumes)"
            ),
        };
    }
    CliError::input(
        rejection_field(r),
        format!("the relayer would refuse this open: {r}; nothing was signed"),
    )
}

/// Say what one send produced; a refusal or a broken answer is the caller's error.
pub(super) fn reported<'a>(ctx: &Context, sent: &'a Sent) -> Result<&'a Submission, CliError> {
    let submission = match &sent.result {
        Ok(s) => s,
        Err(SubmitError::ReadOnly) => {
            return Err(CliError::Local(SubmitError::ReadOnly.to_string()));
        }
        Err(e) => return Err(CliError::Malformed(e.to_string())),
    };
    report_submission(ctx, submission, sent.intent_id)?;
    Ok(submission)
}

fn resolution_text(r: Option<&Resolution>) -> &'static str {
    r.map(Resolution::label).unwrap_or("pending")
}

pub async fn open(ctx: &Context, a: OpenArgs) -> Result<(), CliError> {
    let owner = owner(ctx)?;
    let is_long = args::side(&a.position.side)?;
    let margin = args::margin(&a.position.margin)?;
    let leverage = args::leverage(&a.leverage)?;
    let mut live = LiveAccount::open(&ctx.http, owner, Some(&ctx.data_dir)).await?;
    let data = MarketData::live(&ctx.http, Some(&a.position.market)).await?;
    let market = args::market(&data.state, &a.position.market)?;
    let mark = data
        .mark(market)
        .map_err(|e| CliError::Network(format!("no live mark for {}: {e}", market.symbol)))?;
    let funds = OpenFunds::of(&live.state);
    check_open(&OpenCheck {
        state: &data.state,
        market,
        is_long,
        margin,
        leverage,
        use_debt: a.use_debt,
        mark: Some(mark),
        funds: Some(funds),
        positions: Some(&live.state.open_positions),
        queued: Some(&live.state.operations),
    })
    .map_err(|r| open_refusal(&r))?;
    // Only an open the relayer would take is worth the passphrase: unlock after the checks.
    let (key, meta) = usable_session_key(ctx, owner, &live.state)?;
    let p = Position {
        market,
        is_long,
        margin,
        leverage,
        entry: mark,
    };
    let bust = p.bust();
    let distance = percent_text(i128::from(mark.abs_diff(bust)), u128::from(mark), 4);
    if !ctx.json {
        eprintln!(
            "OPEN {} {} {leverage}x · margin {} (exactly {} wad{}) · notional {}",
            if is_long { "LONG" } else { "SHORT" },
            market.symbol,
            usd(signed(margin)),
            margin,
            if a.use_debt {
                ", from the queued balance"
            } else {
                ""
            },
            usd(signed(p.notional()))
        );
        eprintln!(
            "entry ≈ {} (the mark now; it fills at the mark when the relayer processes it) · bust {} ({distance}% away)",
            price(mark, market.price_scale),
            price(bust, market.price_scale)
        );
        eprintln!("A move of {distance}% against you liquidates it and the whole margin is lost.");
        if let Some(w) = live
            .state
            .session_key_expiry(meta.key)
            .and_then(renewal_warning)
        {
            eprintln!("{w}");
        }
    }
    confirm(a.yes, "Sign with the session key and send?")?;
    let order = Order::Open {
        instrument_id: market.id,
        is_long,
        margin,
        leverage,
        use_debt: a.use_debt,
    };
    let details = json!({"market": market.symbol, "side": args::side_label(is_long), "marginRaw": margin.to_string(), "leverage": leverage});
    let sent = session_order(ctx, &key, owner, &order, details).await?;
    let one = sent.first().expect("an open is one intent");
    let submission = reported(ctx, one)?.clone();
    let id = one.intent_id;
    let outcome = live
        .outcome(id, a.wait.duration(), &AuditLog::new(&ctx.data_dir))
        .await;
    let position = live
        .state
        .open_positions
        .iter()
        .find(|p| p.intent_id == Some(id))
        .cloned();
    // The stream says only "failed": what the relayer's checks would refuse now is the likely
    // reason (inferred, and said so).
    let failure = if outcome == "failed" {
        let queued = Operation {
            intent_id: id,
            action: "openPosition".into(),
            instrument_id: Some(market.id),
            is_long: Some(is_long),
            use_debt: Some(a.use_debt),
            amount: Some(margin),
            leverage: Some(leverage),
            accepted_at_ms: 0,
            // An intent past its deadline ends `expired`, not `failed`.
            deadline: u64::MAX,
            close_position_ids: None,
        };
        // Without the markets, nothing can be checked: the bare outcome is said.
        MarketData::live(&ctx.http, Some(&a.position.market))
            .await
            .ok()
            .map(|now| {
                let mark = now
                    .state
                    .market_by_id(market.id)
                    .and_then(|m| now.mark(m).ok());
                FailureGuess::of(&queued, &now.state, mark, &live.state, now_unix_s())
            })
    } else {
        None
    };
    if ctx.json {
        print_json(&json!({
            "intentId": format!("{id:#x}"),
            "submission": submission_label(&submission),
            "outcome": outcome,
            "position": position.as_ref().map(|p| json!({
                "positionId": p.id.to_string(),
                "entryPrice": price_json(p.entry_price, market.price_scale),
                "entryPriceRaw": p.entry_price.to_string(),
                "bustPrice": price_json(p.bust_price, market.price_scale),
                "bustPriceRaw": p.bust_price.to_string(),
                "marginUsd": wad_json(signed(p.margin), 6),
            })),
            "failure": failure.as_ref().map(FailureGuess::json),
        }));
    } else {
        match &position {
            Some(p) => say!(
                "opened #{}: {} {} {}x at {} · bust {}",
                p.id,
                market.symbol,
                args::side_label(is_long),
                p.leverage,
                price(p.entry_price, market.price_scale),
                price(p.bust_price, market.price_scale)
            ),
            None => say!(
                "intent {id:#x}: {}",
                failure
                    .as_ref()
                    .map_or_else(|| outcome.to_string(), FailureGuess::text)
            ),
        }
    }
    expect_outcomes("succeeded", [outcome])
}

fn submission_label(s: &Submission) -> &'static str {
    match s {
        Submission::Accepted(_) => "accepted",
        Submission::Refused { .. } => "refused",
        Submission::Unknown { .. } => "unknown",
    }
}

pub async fn close(ctx: &Context, a: CloseArgs) -> Result<(), CliError> {
    let owner = owner(ctx)?;
    let requested: Vec<U256> = a
        .ids
        .iter()
        .map(|t| args::position_id(t))
        .collect::<Result<_, _>>()?;
    let mut live = LiveAccount::open(&ctx.http, owner, Some(&ctx.data_dir)).await?;
    let wanted: Vec<U256> = if a.all {
        live.state.open_positions.iter().map(|p| p.id).collect()
    } else {
        for id in &requested {
            if let Some(r @ CloseRejection::NotOpen { .. }) = close_rejection(&live.state, *id) {
                return Err(CliError::input(
                    args::POSITION_ID,
                    format!("{r} ({owner:#x})"),
                ));
            }
        }
        // Each id once, in the order given (a repeated id would make the relayer refuse the batch).
        let mut seen = std::collections::BTreeSet::new();
        requested
            .iter()
            .copied()
            .filter(|id| seen.insert(*id))
            .collect()
    };
    // A position whose close is already queued would make the relayer refuse its whole batch
    // (`position_closing`): it is left out and named.
    let (skipped, ids): (Vec<U256>, Vec<U256>) = wanted.iter().partition(|id| {
        matches!(
            close_rejection(&live.state, **id),
            Some(CloseRejection::AlreadyClosing { .. })
        )
    });
    let skipped_json: Vec<Value> = skipped
        .iter()
        .map(|id| {
            let by = live.state.queued_close_of(*id).unwrap_or_default();
            json!({"positionId": id.to_string(), "reason": "close already queued", "closeIntentId": format!("{by:#x}")})
        })
        .collect();
    if !ctx.json {
        for id in &skipped {
            eprintln!(
                "skipped #{id}: its close is already queued ({:#x})",
                live.state.queued_close_of(*id).unwrap_or_default()
            );
        }
    }
    if ids.is_empty() {
        let message = if skipped.is_empty() {
            "there are no open positions to close".to_string()
        } else {
            "every position asked for already has a close queued; nothing to send".to_string()
        };
        return Err(CliError::input(
            if a.all { "all" } else { args::POSITION_ID },
            message,
        ));
    }
    let data = MarketData::live(&ctx.http, None).await?;
    let (key, _) = usable_session_key(ctx, owner, &live.state)?;
    let batches: Vec<Vec<U256>> = ids.chunks(MAX_CLOSE_IDS).map(<[U256]>::to_vec).collect();
    if !ctx.json {
        let fee = data.state.win_fee_rate();
        let (mut pays, mut net): (i128, i128) = (0, 0);
        for p in live
            .state
            .open_positions
            .iter()
            .filter(|p| ids.contains(&p.id))
        {
            if let Some(m) = data.state.market_by_id(p.instrument_id)
                && let Ok(mark) = data.mark(m)
            {
                let close = CloseValue::at(m, p, fee, mark);
                pays += close.returns;
                net += close.net;
            }
        }
        // What a close pays is margin + net, as everywhere (0 for a liquidated position).
        eprintln!(
            "CLOSE {} position(s) in {} intent(s) of at most {MAX_CLOSE_IDS}; at the marks now they would pay {} (net PnL {}; it settles at the mark when processed)",
            ids.len(),
            batches.len(),
            usd_signed(pays),
            usd_signed(net)
        );
    }
    confirm(a.yes, "Sign with the session key and send?")?;
    let details = json!({"positionIds": ids.iter().map(|i| i.to_string()).collect::<Vec<_>>()});
    let mut watch = IntentWatch::new();
    let mut sent = Vec::new();
    // Batches the relayer refused for the exchange's state: exit 6 when no other refusal.
    let mut refused_for_state = Vec::new();
    for one in session_order(
        ctx,
        &key,
        owner,
        &Order::Close { ids: ids.clone() },
        details,
    )
    .await?
    {
        match reported(ctx, &one) {
            Ok(submission) => {
                watch.track_close(one.intent_id, one.closes.clone());
                sent.push((
                    one.intent_id,
                    one.closes.clone(),
                    submission_label(submission),
                    None,
                ));
            }
            // One refused batch does not stop the others; it is reported below.
            Err(e @ (CliError::Refused { .. } | CliError::State { .. })) => {
                if matches!(e, CliError::State { .. }) {
                    refused_for_state.push(one.intent_id);
                }
                let reason = crate::text::sanitize_line(&e.to_string(), 300);
                sent.push((one.intent_id, one.closes.clone(), "refused", Some(reason)));
            }
            // An answer that could not be read may still mean it was queued: follow it.
            Err(e) => {
                let reason = crate::text::sanitize_line(&e.to_string(), 300);
                if !ctx.json {
                    eprintln!(
                        "intent {:#x}: {reason}; following the stream, not resending",
                        one.intent_id
                    );
                }
                watch.track_close(one.intent_id, one.closes.clone());
                sent.push((one.intent_id, one.closes.clone(), "unknown", None));
            }
        }
    }
    let (resolutions, closed_rows) = live
        .resolve(&mut watch, a.wait.duration(), &AuditLog::new(&ctx.data_dir))
        .await;
    let closed_rows: Vec<_> = closed_rows
        .into_iter()
        .filter(|c| ids.contains(&c.id))
        .collect();
    let outcome_of =
        |id: &B256| resolution_text(resolutions.iter().find(|(i, _)| i == id).map(|(_, r)| r));
    // The stream says only "failed": the close checks re-run on the state now name what likely
    // refused a batch (a position liquidated before its close reached the queue, say).
    let now_s = now_unix_s();
    let failure_of = |id: &B256, batch: &[U256]| -> Option<FailureGuess> {
        (outcome_of(id) == "failed").then(|| {
            let queued = Operation {
                intent_id: *id,
                action: "closePositions".into(),
                instrument_id: None,
                is_long: None,
                use_debt: None,
                amount: None,
                leverage: None,
                accepted_at_ms: 0,
                // An intent past its deadline ends `expired`, not `failed`.
                deadline: u64::MAX,
                close_position_ids: Some(batch.to_vec()),
            };
            FailureGuess::of(&queued, &data.state, None, &live.state, now_s)
        })
    };
    if ctx.json {
        print_json(&json!({
            "intents": sent.iter().map(|(id, batch, sub, reason)| json!({
                "intentId": format!("{id:#x}"),
                "positionIds": batch.iter().map(|i| i.to_string()).collect::<Vec<_>>(),
                "submission": sub,
                "error": reason,
                "outcome": if reason.is_some() { *sub } else { outcome_of(id) },
                "failure": failure_of(id, batch).as_ref().map(FailureGuess::json),
            })).collect::<Vec<_>>(),
            "closed": closed_rows.iter().map(|c| json!({
                "positionId": c.id.to_string(),
                "liquidated": c.liquidated,
                "netPnlUsd": wad_json(c.net_pnl, 2),
                "netPnlRaw": c.net_pnl.to_string(),
                "paperMintedRaw": c.paper_minted.to_string(),
            })).collect::<Vec<_>>(),
            "skipped": skipped_json,
        }));
    } else {
        for (id, batch, sub, reason) in &sent {
            match reason {
                Some(r) => say!("intent {id:#x} ({} ids): {sub}: {r}", batch.len()),
                None => say!(
                    "intent {id:#x} ({} ids): {sub}, {}",
                    batch.len(),
                    failure_of(id, batch)
                        .as_ref()
                        .map_or_else(|| outcome_of(id).to_string(), FailureGuess::text)
                ),
            }
        }
        for c in &closed_rows {
            say!(
                "closed #{}: {}{}",
                c.id,
                usd_signed(c.net_pnl),
                if c.liquidated { " (liquidated)" } else { "" }
            );
        }
    }
    expect_outcomes(
        "succeeded",
        sent.iter().map(|(id, _, sub, reason)| {
            if refused_for_state.contains(id) {
                REFUSED_STATE
            } else if reason.is_some() {
                *sub
            } else {
                outcome_of(id)
            }
        }),
    )
}

pub async fn cancel(ctx: &Context, a: CancelArgs) -> Result<(), CliError> {
    let owner = owner(ctx)?;
    let target: B256 = crate::protocol::wire::parse_b256(a.intent_id.trim())
        .map_err(|e| CliError::input(args::INTENT_ID, e))?;
    let mut live = LiveAccount::open(&ctx.http, owner, Some(&ctx.data_dir)).await?;
    let op = check_cancel(&live.state, target)
        .map_err(|r| {
            CliError::input(
                args::INTENT_ID,
                format!("{r} ({owner:#x}); only queued intents can be cancelled"),
            )
        })?
        .clone();
    let (key, _) = usable_session_key(ctx, owner, &live.state)?;
    if !ctx.json {
        eprintln!(
            "CANCEL {} intent {target:#x} (only while it is still queued)",
            crate::text::sanitize_line(&op.action, 24)
        );
    }
    confirm(a.yes, "Sign the cancel with the session key and send?")?;
    let order = Order::Cancel { target };
    let details = json!({"target": format!("{target:#x}")});
    let sent = session_order(ctx, &key, owner, &order, details).await?;
    match reported(ctx, sent.first().expect("a cancel is one intent")) {
        Ok(_) => {}
        // The target left the queue before the cancel reached it: it settled first, so the
        // cancel lost the race (exit 4), which is not the same as a refused request.
        Err(CliError::Refused { code, message }) if code == "not_cancellable" => {
            if ctx.json {
                print_json(
                    &json!({"intentId": format!("{target:#x}"), "outcome": "not_cancelled", "code": code}),
                );
            }
            return Err(CliError::Unsettled {
                status: super::output::Unsettled::Failed,
                message: format!("the intent was not cancelled: {message}"),
            });
        }
        Err(e) => return Err(e),
    }
    let outcome = live
        .outcome(target, a.wait.duration(), &AuditLog::new(&ctx.data_dir))
        .await;
    if ctx.json {
        print_json(&json!({"intentId": format!("{target:#x}"), "outcome": outcome}));
    } else {
        say!("intent {target:#x}: {outcome}");
    }
    // Asked: that the target ends cancelled. If it settled first, the cancel lost the race.
    expect_outcomes("cancelled", [outcome])
}
