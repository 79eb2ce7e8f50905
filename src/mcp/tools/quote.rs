//! Quoting an open (three seeds' tools), the leverage ladder and a close: `report::quote`.

use serde_json::{Value, json};

use crate::answers::quote::{self as report, CloseAsk, QuoteAsk, Ticket};

use super::{Answer, Args, Failure, QUOTE_RENAMES, Reads};

/// Which seed's quote tool: the same quote, named as each seed names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteView {
    /// `papertrade_estimate_position`: optional entryPrice, exitPrice or priceMovePct.
    Sdk,
    /// `quote_open_position`: at the mark, with the six-step `ladder` and its names.
    Terminal,
    /// `preview_estimate_position`: optional exitPrice or exitMovePct.
    Risk,
}

impl QuoteView {
    fn move_name(self) -> &'static str {
        match self {
            QuoteView::Risk => "exitMovePct",
            _ => "priceMovePct",
        }
    }
}

struct Owned {
    market: String,
    side: String,
    margin: String,
}

fn ticket_args(a: &Args) -> Owned {
    Owned {
        market: a.text("market").unwrap_or_default(),
        side: a.text("side").unwrap_or_default(),
        margin: a.text("marginUsd").unwrap_or_default(),
    }
}

impl Owned {
    fn ticket(&self) -> Ticket<'_> {
        Ticket {
            market: &self.market,
            side: &self.side,
            margin: &self.margin,
        }
    }
}

fn side_word(v: &Value) -> String {
    v["side"].as_str().unwrap_or("").to_uppercase()
}

pub(super) async fn quote(reads: &Reads, view: QuoteView, a: &Args<'_>) -> Result<Answer, Failure> {
    let t = ticket_args(a);
    let leverage = a.text("leverage").unwrap_or_default();
    let entry = a.text("entryPrice");
    let exit = a.text("exitPrice");
    let move_pct = a.text(view.move_name());
    if exit.is_some() && move_pct.is_some() {
        return Err(Failure(format!(
            "Invalid arguments: give exitPrice or {}, not both. Nothing was done.",
            view.move_name()
        )));
    }
    let renames = [QUOTE_RENAMES, &[("move", view.move_name())]].concat();
    let fail = |e| Failure::from_report(e, &renames);
    let data = report::market_data(&reads.http, false, &t.market)
        .await
        .map_err(fail)?;
    let ask = QuoteAsk {
        leverage: &leverage,
        entry: entry.as_deref(),
        exit: exit.as_deref(),
        move_pct: move_pct.as_deref(),
    };
    let q = report::quote(&data, &t.ticket(), &ask).map_err(fail)?;
    let mut value = q.json();
    if view == QuoteView::Terminal {
        terminal_names(&mut value, &q);
        let text = terminal_text(&value, &q);
        return Ok(Answer { text, value });
    }
    if view == QuoteView::Sdk {
        let summary = crate::client::explorer::summary(&reads.http)
            .await
            .map_err(|e| e.to_string());
        q.add_paper_mint(&mut value, summary.as_ref().map_err(Clone::clone));
    }
    let accepted = value["openValidation"]["accepted"] == json!(true);
    let text = format!(
        "{} {} {}x with ${} margin: notional ${}, entry {} ({}), bust {} ({}% away). {} Quote only: nothing was opened or signed.",
        side_word(&value),
        value["market"].as_str().unwrap_or(""),
        value["leverage"],
        value["marginUsd"],
        value["notionalUsd"],
        value["entryPrice"],
        q.entry_source,
        value["bustPrice"],
        value["distanceToBustPct"],
        if accepted {
            "The relayer would accept this open.".to_string()
        } else {
            format!(
                "The relayer would REFUSE this open: {}.",
                value["openValidation"]["problem"].as_str().unwrap_or("")
            )
        },
    );
    Ok(Answer { text, value })
}

/// `quote_open_position`'s text, worded as its seed's example: "LONG BTC 10x with $50.00
/// margin: notional $500.00, entry 100000, bust 90004 (9.996% away). The relayer would accept
/// this order. Ladder: -$50.00 to $20.00. Quote only, nothing was placed." The ladder's range is
/// the lowest and highest net PnL of its six steps, from the raw integers.
fn terminal_text(value: &Value, q: &report::Quote) -> String {
    use crate::protocol::units::usd_text;
    let p = &q.position;
    let nets: Vec<i128> = q
        .close_ladder()
        .iter()
        .map(|s| s.net_pnl(p.margin))
        .collect();
    let range = match (nets.iter().min(), nets.iter().max()) {
        (Some(lo), Some(hi)) => format!(" Ladder: {} to {}.", usd_text(*lo), usd_text(*hi)),
        _ => String::new(),
    };
    let verdict = match &q.validation {
        Ok(()) => "The relayer would accept this order.".to_string(),
        Err(r) => format!("The relayer would reject this order: {r}."),
    };
    format!(
        "{} {} {}x with {} margin: notional {}, entry {}, bust {} ({}% away). {verdict}{range} Quote only, nothing was placed.",
        side_word(value),
        p.market.symbol,
        p.leverage,
        usd_text(crate::protocol::units::signed(p.margin)),
        usd_text(crate::protocol::units::signed(p.notional())),
        value["entryPrice"],
        value["bustPrice"],
        value["distanceToBustPct"],
    )
}

/// The browser terminal's names for the same figures: `bustDistancePct`, `valid`,
/// `invalidReason`, and its six-step close `ladder` (the SDK's `scenarios` stay beside it, the
/// finer ladder with the bust).
fn terminal_names(v: &mut Value, q: &report::Quote) {
    let extra = json!({
        "bustDistancePct": v["distanceToBustPct"],
        "valid": v["openValidation"]["accepted"],
        "invalidReason": v["openValidation"]["problem"],
        "ladder": q.close_ladder_json(),
    });
    if let (Value::Object(o), Value::Object(e)) = (v, extra) {
        o.extend(e);
    }
}

pub(super) async fn ladder(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let t = ticket_args(a);
    let fail = |e| Failure::from_report(e, QUOTE_RENAMES);
    let data = report::market_data(&reads.http, false, &t.market)
        .await
        .map_err(fail)?;
    let l = report::ladder(&data, &t.ticket(), None).map_err(fail)?;
    let value = l.json();
    let steps = value["steps"].as_array().cloned().unwrap_or_default();
    let valid: Vec<String> = steps
        .iter()
        .filter(|s| s["valid"] == json!(true))
        .map(|s| format!("{}x", s["leverage"]))
        .collect();
    let text = format!(
        "{} {} with ${} margin at entry {}: {} leverage steps, valid at {}. Each step's bust price is in steps[]. Quote only.",
        side_word(&value),
        value["market"].as_str().unwrap_or(""),
        value["marginUsd"],
        value["entryPrice"],
        steps.len(),
        if valid.is_empty() {
            "none".to_string()
        } else {
            valid.join(", ")
        },
    );
    Ok(Answer { text, value })
}

pub(super) async fn close_quote(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let t = ticket_args(a);
    let leverage = a.text("leverage").unwrap_or_default();
    let entry = a.text("entryPrice").unwrap_or_default();
    let exit = a.text("exitPrice");
    let fail = |e| Failure::from_report(e, QUOTE_RENAMES);
    let data = report::market_data(&reads.http, false, &t.market)
        .await
        .map_err(fail)?;
    let ask = CloseAsk {
        leverage: &leverage,
        entry: &entry,
        exit: exit.as_deref(),
    };
    let c = report::close_quote(&data, &t.ticket(), &ask).map_err(fail)?;
    let value = c.json();
    let text = if c.scenario.liquidated {
        format!(
            "{} {} {}x closed at {} ({}): at or beyond the bust price {}, the position is liquidated and pays nothing.",
            side_word(&value),
            value["market"].as_str().unwrap_or(""),
            value["leverage"],
            value["exitPrice"],
            c.exit_source,
            value["bustPrice"],
        )
    } else {
        format!(
            "{} {} {}x closed at {} ({}): raw PnL ${}, after deadband and impact ${}, win fee ${}, net ${}; pays ${}. Quote only.",
            side_word(&value),
            value["market"].as_str().unwrap_or(""),
            value["leverage"],
            value["exitPrice"],
            c.exit_source,
            value["rawPnlUsd"],
            value["adjustedPnlUsd"],
            value["winFeeUsd"],
            value["netPnlUsd"],
            value["payoutUsd"],
        )
    };
    Ok(Answer { text, value })
}

/// `papertrade_prepare_open`: the open checked against the live market, then its UNSIGNED
/// OpenPosition payload (`report::typed_data`) and a plain summary for the user to confirm.
pub(super) async fn prepare_open(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let t = ticket_args(a);
    let leverage = a.text("leverage").unwrap_or_default();
    let user = a.text("user").unwrap_or_default();
    let use_debt = a.get("useDebt").and_then(Value::as_bool).unwrap_or(false);
    let fail = |e| Failure::from_report(e, QUOTE_RENAMES);
    let user_address = crate::answers::input::address("user", &user).map_err(fail)?;
    let data = report::market_data(&reads.http, false, &t.market)
        .await
        .map_err(fail)?;
    let ask = QuoteAsk {
        leverage: &leverage,
        // One scenario, at the bust: the summary says what is lost there.
        ..QuoteAsk::default()
    };
    let q = report::quote(&data, &t.ticket(), &ask).map_err(fail)?;
    if let Err(r) = &q.validation {
        return Err(Failure(format!(
            "The relayer would refuse this open ({}): {r}. Change the margin, leverage or market and call again. Nothing was done: no payload was prepared.",
            r.code()
        )));
    }
    // One side per market, held or queued: an opposite open the relayer's intake would take
    // fails at settlement, so it is refused here, naming the rule.
    let side_note = match crate::client::live_account::LiveAccount::open(
        &reads.http,
        user_address,
        Some(&reads.data_dir),
    )
    .await
    {
        Ok(live) => {
            if let Err(r) = q.side_check(&live.state) {
                return Err(Failure(format!(
                    "The relayer would refuse this open ({}): {r}. Change the side or the market, or wait until that settles. Nothing was done: no payload was prepared.",
                    r.code()
                )));
            }
            ""
        }
        Err(e) => {
            tracing::debug!(error = %e, "prepare_open: account unreadable");
            " One side per market was not checked: the account could not be read."
        }
    };
    let p = &q.position;
    let message = json!({
        "user": format!("{user_address:#x}"),
        "instrumentId": p.market.id,
        "isLong": p.is_long,
        "size": p.margin.to_string(),
        "leverage": p.leverage,
        "useDebt": use_debt,
    });
    // The live market's checks ran above (a refusal returned); the encoder's warnings are not
    // needed, so it reads nothing more.
    let typed =
        crate::answers::typed_data::encode("OpenPosition", message, None, &reads.deadlines, None)
            .map_err(|e| Failure::from_report(e, &[]))?;
    let quote = q.json();
    let summary = format!(
        "Open a {} {} position at {}x with ${} margin (notional ${}{}), at about the mark {}. It is liquidated, and the whole margin lost, if the mark reaches {} ({}% away). The payload's deadline: {}.{side_note} Sign only if you agree; nothing has been signed or sent.",
        side_word(&quote).to_lowercase(),
        p.market.symbol,
        p.leverage,
        quote["marginUsd"],
        quote["notionalUsd"],
        if use_debt {
            ", paid from the queued balance"
        } else {
            ""
        },
        quote["entryPrice"],
        quote["bustPrice"],
        quote["distanceToBustPct"],
        typed["deadline"]["text"].as_str().unwrap_or("none stated"),
    );
    let value = json!({
        "unsigned": true,
        "summary": summary,
        "deadline": typed["deadline"],
        "typedData": typed["typedData"],
        "primaryType": typed["primaryType"],
        "digest": typed["digest"],
        "request": typed["request"],
        "defaulted": typed["defaulted"],
        "bustPrice": quote["bustPrice"],
        "bustPriceRaw": quote["bustPriceRaw"],
        "quote": quote,
    });
    Ok(Answer {
        text: format!("UNSIGNED OpenPosition prepared. Show the user: {summary}"),
        value,
    })
}

/// What the plan's steps are written from.
struct PlanTicket<'a> {
    link: &'a str,
    command: &'a str,
    practice: &'a str,
    /// The `open` command for the same ticket.
    open: &'a str,
    /// The wallet, when the caller gave one.
    owner: Option<alloy_primitives::Address>,
    /// That wallet's `sessionKey` block (`report::account::session_key_json`), when read.
    session_key: Option<&'a Value>,
}

/// The browser terminal's four steps (seed `001_…`, `build_trade_plan`: open the link, connect on
/// HyperEVM, enable trading with one gas-free signature, review and sign), and beside each the
/// papertrade-tui command that does the same here (`localSteps`). With an account read, the
/// enable step says whether its session key is already active.
fn plan_steps(t: &PlanTicket) -> (Vec<String>, Vec<Value>) {
    let owner = t
        .owner
        .map_or_else(|| "0xYourWallet".to_string(), |a| format!("{a:#x}"));
    let active_until = t
        .session_key
        .filter(|k| k["status"] == json!("active"))
        .and_then(|k| k["expiresAt"].as_u64());
    let enable = match (t.session_key, active_until) {
        (_, Some(expiry)) => format!(
            "Enable trading with one gas-free signature: already done for this wallet, its session key is active until {} UTC (unix {expiry}); nothing to sign here.",
            crate::clock::utc_minute_text(expiry.saturating_mul(1000))
        ),
        (Some(_), None) => "Enable trading with one gas-free signature: this wallet has no active session key, so your wallet signs RegisterSessionKey once (30 days); the key it registers can open, close and cancel, never withdraw.".to_string(),
        (None, None) => "Enable trading with one gas-free signature (skip it if trading is already enabled): your wallet signs RegisterSessionKey once (30 days); the key it registers can open, close and cancel, never withdraw.".to_string(),
    };
    let steps = vec![
        format!(
            "Open the link: {} . It opens the browser terminal with this ticket prefilled under a review banner; it only fills a form.",
            t.link
        ),
        "Connect your own wallet on HyperEVM (chain 999): the terminal offers to switch to it or add it.".to_string(),
        enable,
        format!(
            "Review and sign: check market, side, margin, leverage, the bust price and what a close pays in the confirmation dialog, then confirm; only then does your session key sign the OpenPosition intent, which the relayer fills at the mark. {SIGNING_DEADLINE}"
        ),
    ];
    let local = vec![
        json!({"step": 1, "command": t.command,
               "does": format!("opens the same ticket prefilled in papertrade-tui's terminal UI under a review banner; `{}` practises it with no funds and no network", t.practice)}),
        json!({"step": 2, "command": format!("export PAPERTRADE_TUI_OWNER={owner}"),
               "does": "names the wallet papertrade-tui trades for (or pass --owner); it reads and trades on HyperEVM's exchange with no wallet to connect"}),
        json!({"step": 3, "command": "papertrade-tui key new && papertrade-tui key register --external",
        "does": if active_until.is_some() {
            "not needed: the session key is active (`papertrade-tui key show` shows it); run `key register` again before it expires to extend it"
        } else {
            "generates a session key here and has your own wallet sign RegisterSessionKey once (--owner-keystore PATH signs with a keystore file instead; `g` in the terminal UI does the same)"
        }}),
        json!({"step": 4, "command": t.open,
               "does": "restates the open, checks it against the live limits and the account, and asks before the session key signs (the terminal UI's ticket asks the same on Enter)"}),
    ];
    (steps, local)
}

/// A plan carries no payload: the deadline is set when the user signs, by what signs it.
const SIGNING_DEADLINE: &str = "The link carries no deadline: the browser terminal signs the open with a deadline one hour after the user confirms, papertrade-tui with its own short open deadline (120 s by default, `[deadlines] open_s`), since an open fills at the mark when the relayer reaches it.";

/// `build_trade_plan`: the open validated against the live limits (and the account, given an
/// address), quoted, and returned as an UNSIGNED plan with the browser terminal's deep link and
/// the command that opens the same ticket here. Nothing is signed, sent or placed.
pub(super) async fn trade_plan(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    use crate::answers::deep_link;
    let t = ticket_args(a);
    let leverage = a.text("leverage").unwrap_or_default();
    let fail = |e| Failure::from_report(e, QUOTE_RENAMES);
    let address = a
        .text("address")
        .map(|text| crate::answers::input::address("address", &text))
        .transpose()
        .map_err(fail)?;
    let data = report::market_data(&reads.http, false, &t.market)
        .await
        .map_err(fail)?;
    let ask = QuoteAsk {
        leverage: &leverage,
        ..QuoteAsk::default()
    };
    let q = report::quote(&data, &t.ticket(), &ask).map_err(fail)?;
    let account = match address {
        Some(address) => {
            let live = crate::client::live_account::LiveAccount::open(&reads.http, address, None)
                .await
                .map_err(|e| fail(e.into()))?;
            Some(q.account_json(&live.state))
        }
        None => None,
    };
    let p = &q.position;
    let link = deep_link::link(&p.market.symbol, p.is_long, p.margin, p.leverage);
    let command = deep_link::open_command(&link, false);
    let practice = deep_link::open_command(&link, true);
    let mut quote = q.json();
    terminal_names(&mut quote, &q);
    let ceiling = data.state.leverage_ceiling(p.market);

    let mut warnings = vec![format!(
        "Papertrade allows up to 1000x leverage: at {}x a {}% move against this position liquidates it and the whole ${} margin is lost.",
        p.leverage, quote["distanceToBustPct"], quote["marginUsd"]
    )];
    if let Err(r) = &q.validation {
        warnings.push(format!(
            "As it stands the relayer would refuse this open ({}): {r}.",
            r.code()
        ));
    }
    if p.leverage > ceiling {
        warnings.push(format!(
            "{} allows at most {ceiling}x: the terminal clamps the ticket's leverage to it.",
            p.market.symbol
        ));
    }
    if let Some(acc) = &account {
        if acc["marginEnough"] != json!(true) {
            warnings.push(format!(
                "The account has ${} available, less than the ${} margin: deposit first.",
                acc["availableUsd"], quote["marginUsd"]
            ));
        }
        if let Some(problem) = acc["openValidation"]["problem"].as_str()
            && acc["openValidation"]["accepted"] == json!(false)
        {
            warnings.push(format!(
                "For this account the relayer would refuse it: {problem}."
            ));
        }
    }
    let (steps, local_steps) = plan_steps(&PlanTicket {
        link: &link,
        command: &command,
        practice: &practice,
        open: &deep_link::open_command_for(
            &p.market.symbol,
            p.market.id,
            p.is_long,
            p.margin,
            p.leverage,
        ),
        owner: address,
        session_key: account.as_ref().map(|acc| &acc["sessionKey"]),
    });
    let account_refusal = account.as_ref().and_then(|acc| {
        (acc["openValidation"]["accepted"] == json!(false))
            .then(|| acc["openValidation"]["problem"].clone())
    });
    let valid = q.validation.is_ok() && account_refusal.is_none();
    let mut value = json!({
        "unsigned": true,
        "link": link,
        "command": command,
        "practiceCommand": practice,
        "valid": valid,
        "invalidReason": match (&q.validation, account_refusal) {
            (Ok(()), Some(problem)) => problem,
            _ => quote["invalidReason"].clone(),
        },
        "quote": quote,
        "steps": steps,
        "localSteps": local_steps,
        "warnings": warnings,
        "signingDeadline": SIGNING_DEADLINE,
    });
    // The seed's `account` is optional: present only when an address was given.
    if let Some(acc) = account {
        value["account"] = acc;
    }
    let text = format!(
        "UNSIGNED plan: {} {} {}x with ${} margin, bust {} ({}% away){}. Give the user this link to review and sign in their own wallet: {link} (or `{command}` in papertrade-tui). {SIGNING_DEADLINE} Nothing was signed, sent or placed.",
        side_word(&value["quote"]),
        p.market.symbol,
        p.leverage,
        value["quote"]["marginUsd"],
        value["quote"]["bustPrice"],
        value["quote"]["distanceToBustPct"],
        if valid {
            ""
        } else {
            "; as it stands the relayer would REFUSE it (see warnings)"
        },
    );
    Ok(Answer { text, value })
}
