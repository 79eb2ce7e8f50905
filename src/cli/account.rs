//! `papertrade-tui positions [--watch 0x…] [--follow]`: an account's positions valued at the
//! mark, its pending intents and balances. With `--watch`, no key material is ever loaded.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::SystemTime;

use serde_json::{Value, json};

use clap::Args;

use crate::analytics::positions::CloseValue;
use crate::app::alerts::{Alert, Alerts, readings};
use crate::client::market::spawn_market_poller;
use crate::config::alerts::Delivery;
use crate::events::account::StreamEvent;
use crate::protocol::account::AccountState;
use crate::protocol::pretrade::{percent_json, percent_text};
use crate::protocol::trading::TradingState;
use crate::protocol::units::{price_json, signed, wad_json};

use crate::answers::account::{self as report, side, symbol};

use super::Context;
use super::output::say;
use super::output::{Align, CliError, Table, price, print_json, print_json_line, usd, usd_signed};
use super::reprint::Reprint;
use super::session::{LiveAccount, owner};
use crate::client::market_data::MarketData;

#[derive(Debug, Args)]
pub(crate) struct PositionsArgs {
    /// Keep streaming changes until Ctrl-C.
    #[arg(long)]
    pub follow: bool,
}

pub async fn positions(ctx: &Context, a: PositionsArgs) -> Result<(), CliError> {
    // Watch mode reads a public address and never reaches the key code at all.
    let (wallet, mode) = match ctx.watch {
        Some(w) => (w, "watch"),
        None => (owner(ctx)?, "owner"),
    };
    // Installed before the first line is printed: a stop sent after it ends the follow cleanly.
    let stop = a.follow.then(super::stop_signal);
    let mut live = LiveAccount::open(&ctx.http, wallet, Some(&ctx.data_dir)).await?;
    let mut data = MarketData::live(&ctx.http, None).await?;
    let mut ranks = report::queue_ranks(&ctx.http, wallet).await;
    let account = report::account_json(&live.state, &data, &ranks, mode);
    match (ctx.json, a.follow) {
        (true, false) => print_json(&account),
        // JSON lines: every line one object with its `event`, the account first.
        (true, true) => print_json_line(&tagged("account", account)),
        (false, _) => print_account(&live.state, &data, &ranks, mode),
    }
    let Some(stop) = stop else {
        return Ok(());
    };
    tokio::pin!(stop);
    if !ctx.json {
        say!("\nfollowing {wallet:#x}; Ctrl-C stops");
    }
    // Alerts need marks as they move, and so does a table for a person (its MARK, TO BUST,
    // CLOSE PAYS): the UI's poller, at the config's rate.
    let mut alerts = ctx.alerts.rules().map(Alerts::new);
    let (market_tx, mut market_rx) = tokio::sync::mpsc::channel(64);
    let poller = (alerts.is_some() || !ctx.json)
        .then(|| spawn_market_poller(ctx.http.clone(), ctx.rates, market_tx));
    let _poller = poller.map(AbortOnDrop);
    // The bell and notification go to a person's terminal, never into a pipe.
    let delivery = (!ctx.json && std::io::stdout().is_terminal())
        .then(|| ctx.alerts.delivery(crate::ui::notify::detect_here));
    let measure = |state: &AccountState, data: &MarketData| {
        readings(&state.open_positions, &data.state, &data.known_marks())
    };
    if let Some(a) = &mut alerts {
        // First sight: what the account is already inside of is not a crossing.
        a.observe(&measure(&live.state, &data), SystemTime::now());
    }
    // The human table is printed again whenever a figure it shows changes (the account or a
    // mark), at most once a second; the countdown to a deadline alone is not a change.
    let figures = |state: &AccountState, data: &MarketData, ranks: &BTreeMap<String, u64>| {
        render_account(state, data, ranks, mode, Countdown::Fixed)
    };
    let mut reprint = Reprint::new(
        figures(&live.state, &data, &ranks),
        tokio::time::Instant::now(),
    );
    loop {
        let due = reprint.due();
        tokio::select! {
            e = live.next() => {
                let Some(event) = e else { return Ok(()) };
                let queued_before = queued_ids(&live.state);
                follow_line(ctx, &data.state, &event);
                // A queue rank belongs to the intents queued when it was read.
                if !ctx.json && queued_ids(&live.state) != queued_before {
                    ranks = if live.state.operations.is_empty() {
                        BTreeMap::new()
                    } else {
                        report::queue_ranks(&ctx.http, wallet).await
                    };
                }
            }
            Some(m) = market_rx.recv() => data.apply(m),
            () = sleep_until_due(due) => {}
            () = &mut stop => return Ok(()),
        }
        if let Some(a) = &mut alerts {
            for alert in a.observe(&measure(&live.state, &data), SystemTime::now()) {
                alert_line(ctx, &alert, delivery);
            }
        }
        if !ctx.json
            && reprint.offer(
                figures(&live.state, &data, &ranks),
                tokio::time::Instant::now(),
            )
        {
            say!(
                "\n{} UTC",
                crate::clock::utc_time_text(crate::clock::now_unix_s())
            );
            print_account(&live.state, &data, &ranks, mode);
        }
    }
}

/// Resolves at `due`, or never when nothing waits.
async fn sleep_until_due(due: Option<tokio::time::Instant>) {
    match due {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

fn queued_ids(state: &AccountState) -> Vec<alloy_primitives::B256> {
    state.operations.iter().map(|o| o.intent_id).collect()
}

/// `{"event": name, …value}`: the event name first, so a line says what it is at a glance.
fn tagged(name: &str, value: Value) -> Value {
    let mut out = serde_json::Map::new();
    out.insert("event".into(), json!(name));
    if let Value::Object(fields) = value {
        out.extend(fields);
    }
    Value::Object(out)
}

/// A crossed threshold: a JSON line, or a line for a person with the bell and notification.
fn alert_line(ctx: &Context, alert: &Alert, delivery: Option<Delivery>) {
    let r = &alert.reading;
    if ctx.json {
        print_json_line(&json!({
            "event": "alert",
            "positionId": r.position_id.to_string(),
            "market": r.market,
            "side": side(r.is_long),
            "leverage": r.leverage,
            "thresholdBps": alert.threshold_bps,
            "thresholdPct": percent_json(i128::from(alert.threshold_bps), 10_000, 2),
            "distanceToLiquidationPct": percent_json(r.room, u128::from(r.mark), 4),
            "markPrice": price_json(r.mark, r.price_scale),
            "bustPrice": price_json(r.bust, r.price_scale),
            "text": alert.text(),
        }));
        return;
    }
    say!("ALERT {}", alert.text());
    if let Some(delivery) = delivery {
        crate::ui::notify::send(&alert.notice(delivery));
    }
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What the text is for: a person (DEADLINE counts down from `now`, unix s), or telling whether
/// a figure that matters changed (`Fixed`: the deadline itself, which does not tick, and no
/// parameters line, whose indexed block moves every poll).
#[derive(Debug, Clone, Copy)]
enum Countdown {
    From(u64),
    Fixed,
}

fn print_account(s: &AccountState, data: &MarketData, ranks: &BTreeMap<String, u64>, mode: &str) {
    let now = crate::clock::now_unix_s();
    say!(
        "{}",
        render_account(s, data, ranks, mode, Countdown::From(now))
    );
}

/// The account as `positions` prints it: address, balances, positions at the mark, pending
/// intents and the market parameters.
fn render_account(
    s: &AccountState,
    data: &MarketData,
    ranks: &BTreeMap<String, u64>,
    mode: &str,
    countdown: Countdown,
) -> String {
    let mut out: Vec<String> = Vec::new();
    let badge = if mode == "watch" {
        " (WATCH: read-only)"
    } else {
        ""
    };
    out.push(format!("{:#x}{badge}", s.address));
    out.push(format!(
        "balance {} · available {} · queued {} · in positions {}",
        usd(signed(s.balance)),
        usd(signed(s.funds.available_balance)),
        usd(signed(s.queued)),
        usd(signed(s.locked))
    ));
    let fee = data.state.win_fee_rate();
    if s.open_positions.is_empty() {
        out.push("\nno open positions".into());
    } else {
        let mut t = Table::new(&[
            ("ID", Align::Right),
            ("MARKET", Align::Left),
            ("SIDE", Align::Left),
            ("LEV", Align::Right),
            ("MARGIN", Align::Right),
            ("ENTRY", Align::Right),
            ("MARK", Align::Right),
            ("BUST", Align::Right),
            ("TO BUST", Align::Right),
            ("CLOSE PAYS", Align::Right),
            ("NET PNL", Align::Right),
        ]);
        for p in &s.open_positions {
            // A position in a market the trading state does not list is shown all the same;
            // what needs the market's price scale or mark is marked unknown.
            let Some(m) = data.state.market_by_id(p.instrument_id) else {
                t.row(vec![
                    p.id.to_string(),
                    symbol(&data.state, p.instrument_id),
                    side(p.is_long).to_uppercase(),
                    format!("{}x", p.leverage),
                    usd(signed(p.margin)),
                    format!("raw {}", p.entry_price),
                    "—".into(),
                    format!("raw {}", p.bust_price),
                    "—".into(),
                    "market not listed".into(),
                    "—".into(),
                ]);
                continue;
            };
            // CLOSE PAYS is what comes back (margin + net), NET PNL the gain or loss in it: the
            // same two figures as `close-quote`, the UI and the JSON.
            let (mark_text, dist, pays, net) = match data.mark(m) {
                Ok(mark) => {
                    let close = CloseValue::at(m, p, fee, mark);
                    (
                        price(mark, m.price_scale),
                        format!("{}%", percent_text(close.room, u128::from(mark), 2)),
                        if close.liquidated {
                            format!("{} liq", usd(close.returns))
                        } else {
                            usd(close.returns)
                        },
                        usd_signed(close.net),
                    )
                }
                Err(_) => ("—".into(), "—".into(), "—".into(), "—".into()),
            };
            t.row(vec![
                p.id.to_string(),
                m.symbol.clone(),
                side(p.is_long).to_uppercase(),
                format!("{}x", p.leverage),
                usd(signed(p.margin)),
                price(p.entry_price, m.price_scale),
                mark_text,
                price(p.bust_price, m.price_scale),
                dist,
                pays,
                net,
            ]);
        }
        out.push(format!("\n{}", t.render()));
    }
    if !s.operations.is_empty() {
        let mut t = Table::new(&[
            ("INTENT", Align::Left),
            ("ACTION", Align::Left),
            ("DETAIL", Align::Left),
            ("RANK", Align::Right),
            ("DEADLINE", Align::Right),
        ]);
        for o in &s.operations {
            let id = format!("{:#x}", o.intent_id);
            let detail = match (o.instrument_id, o.is_long, o.amount, o.leverage) {
                (Some(i), Some(l), Some(a), Some(lev)) => format!(
                    "{} {} {} {lev}x",
                    symbol(&data.state, i),
                    side(l),
                    usd(signed(a))
                ),
                _ => o
                    .close_position_ids
                    .as_ref()
                    .map(|ids| format!("{} position(s)", ids.len()))
                    .unwrap_or_default(),
            };
            t.row(vec![
                id.clone(),
                crate::text::sanitize_line(&o.action, 24),
                detail,
                ranks
                    .get(&id)
                    .map(|r| r.to_string())
                    .unwrap_or_else(|| "—".into()),
                match countdown {
                    Countdown::From(now) if o.deadline > now => {
                        format!("in {}s", o.deadline - now)
                    }
                    Countdown::From(_) => "passed".into(),
                    Countdown::Fixed => o.deadline.to_string(),
                },
            ]);
        }
        out.push(format!("\npending\n{}", t.render()));
    }
    if let Countdown::From(_) = countdown {
        out.push(format!("\n{}", data.parameters_line()));
    }
    out.join("\n")
}

fn follow_line(ctx: &Context, state: &TradingState, event: &StreamEvent) {
    let value = match event {
        StreamEvent::Alive => return,
        StreamEvent::Synced(s) => {
            json!({"event": "synced", "accountRevision": s.account_revision, "positions": s.open_positions.len(), "pending": s.operations.len()})
        }
        StreamEvent::Disconnected { reason, retry_in } => {
            json!({"event": "disconnected", "reason": crate::text::sanitize_line(reason, 200), "retryInMs": retry_in.as_millis() as u64})
        }
        StreamEvent::Patched {
            state: s,
            closed,
            outcomes,
        } => json!({
            "event": "patch",
            "accountRevision": s.account_revision,
            "balanceUsd": wad_json(signed(s.balance), 2),
            "positions": s.open_positions.len(),
            "pending": s.operations.len(),
            "closed": closed.iter().map(|c| json!({
                "positionId": c.id.to_string(),
                "market": symbol(state, c.instrument_id),
                "side": side(c.is_long),
                "liquidated": c.liquidated,
                "netPnlUsd": wad_json(c.net_pnl, 2),
                "netPnlRaw": c.net_pnl.to_string(),
                "paperMintedRaw": c.paper_minted.to_string(),
            })).collect::<Vec<_>>(),
            "outcomes": outcomes.iter().map(|o| json!({"intentId": format!("{:#x}", o.intent_id), "outcome": o.outcome.label()})).collect::<Vec<_>>(),
        }),
    };
    if ctx.json {
        print_json_line(&value);
        return;
    }
    match event {
        StreamEvent::Synced(s) => say!(
            "synced: {} positions, {} pending (revision {})",
            s.open_positions.len(),
            s.operations.len(),
            s.account_revision
        ),
        StreamEvent::Disconnected { reason, retry_in } => say!(
            "stream lost ({}); reconnecting in {:.1}s",
            crate::text::sanitize_line(reason, 120),
            retry_in.as_secs_f32()
        ),
        StreamEvent::Patched {
            state: s,
            closed,
            outcomes,
        } => {
            for c in closed {
                say!(
                    "{} #{} {} {}: {} (PAPER +{})",
                    if c.liquidated { "LIQUIDATED" } else { "closed" },
                    c.id,
                    symbol(state, c.instrument_id),
                    side(c.is_long),
                    usd_signed(c.net_pnl),
                    crate::protocol::units::wad_text(signed(c.paper_minted), 4)
                );
            }
            for o in outcomes {
                say!("intent {:#x} {}", o.intent_id, o.outcome.label());
            }
            if closed.is_empty() && outcomes.is_empty() {
                say!(
                    "update: balance {} · {} positions · {} pending",
                    usd(signed(s.balance)),
                    s.open_positions.len(),
                    s.operations.len()
                );
            }
        }
        StreamEvent::Alive => {}
    }
}
