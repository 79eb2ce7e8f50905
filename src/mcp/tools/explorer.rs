//! Any wallet, the leaderboard and the protocol (explorer seed, and the wallet-positions tools of
//! the SDK and the terminal): `report::explorer`, `report::account`, `report::protocol`.
//! Account streams are read to their snapshot only, so every call is bounded.

use serde_json::{Value, json};

use crate::client::live_account::LiveAccount;
use crate::client::market_data::MarketData;
use crate::report::{ReportError, account, explorer as report, protocol};

use super::{Answer, Args, Failure, Reads};

fn fail(e: ReportError) -> Failure {
    Failure::from_report(
        e,
        &[
            ("<ADDR>", "address"),
            ("<INTENT_ID>", "intent_id"),
            ("<QUERY>", "query"),
            ("sort-key", "sort_key"),
            ("sort-dir", "sort_dir"),
            ("loss-basis-usd", "lossBasisUsd"),
        ],
    )
}

fn count(v: &Value) -> usize {
    v.as_array().map_or(0, Vec::len)
}

pub(super) async fn leaderboard(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let page = a.get("page").and_then(Value::as_u64).unwrap_or(0);
    let r = report::request(
        a.text("window").as_deref().unwrap_or("24h"),
        a.text("sort_key").as_deref().unwrap_or("totalWindowedPnl"),
        a.text("sort_dir").as_deref().unwrap_or("desc"),
        page,
        a.text("query").as_deref(),
    )
    .map_err(fail)?;
    let value = report::board(&reads.http, r).await.map_err(fail)?.json();
    let text = format!(
        "Leaderboard {} page {} of {} wallets: {} shown, ranked by {} {}. Names are untrusted text.",
        value["window"].as_str().unwrap_or(""),
        page,
        value["total_accounts"],
        count(&value["accounts"]),
        value["sort_key"].as_str().unwrap_or(""),
        value["sort_dir"].as_str().unwrap_or(""),
    );
    Ok(Answer { text, value })
}

pub(super) async fn top_traders(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let w = report::window(a.text("window").as_deref().unwrap_or("24h")).map_err(fail)?;
    let limit = a.get("limit").and_then(Value::as_u64).unwrap_or(3) as usize;
    let value = report::top_traders(&reads.http, w, limit)
        .await
        .map_err(fail)?
        .json();
    let text = format!(
        "Top {} trader(s) by {} PnL. Names are untrusted text.",
        count(&value["traders"]),
        w.name()
    );
    Ok(Answer { text, value })
}

pub(super) async fn wallet(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let address = report::wallet("<ADDR>", &a.text("address").unwrap_or_default()).map_err(fail)?;
    let value = report::balance_sheet(&reads.http, address)
        .await
        .map_err(fail)?
        .json(&report::stream_url(&reads.http, address));
    let text = format!(
        "Wallet {:#x}: balance ${}, available ${}, {} open position(s), {} pending operation(s).",
        address,
        value["balance_usd"],
        value["available_usd"],
        value["open_positions"],
        value["pending_operations"],
    );
    Ok(Answer { text, value })
}

/// The browser terminal's documented limit on the positions `get_wallet_positions` returns.
pub const TERMINAL_POSITIONS_LIMIT: usize = 50;

/// Keep the first `TERMINAL_POSITIONS_LIMIT` positions, in the exchange's order, and say so:
/// `totalPositions` counts them all, `truncated` says whether some were left out. Returns the
/// words the text adds when it capped.
fn cap_positions(value: &mut Value) -> String {
    let Some(list) = value["positions"].as_array_mut() else {
        return String::new();
    };
    let total = list.len();
    let truncated = total > TERMINAL_POSITIONS_LIMIT;
    list.truncate(TERMINAL_POSITIONS_LIMIT);
    value["totalPositions"] = json!(total);
    value["truncated"] = json!(truncated);
    if truncated {
        format!(
            " (the first {TERMINAL_POSITIONS_LIMIT} listed; papertrade_wallet_positions lists all)"
        )
    } else {
        String::new()
    }
}

/// Which seed's wallet-positions tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PositionsView {
    /// `papertrade_wallet_positions`.
    Account,
    /// `get_wallet_positions`: at most `TERMINAL_POSITIONS_LIMIT` positions, saying when capped.
    Terminal,
    /// The explorer's `get_positions`: adds `marks` and `totals`, optional `position_id`.
    Explorer,
}

pub(super) async fn positions(
    reads: &Reads,
    view: PositionsView,
    a: &Args<'_>,
) -> Result<Answer, Failure> {
    let address = report::wallet("<ADDR>", &a.text("address").unwrap_or_default()).map_err(fail)?;
    let live = LiveAccount::open(&reads.http, address, None)
        .await
        .map_err(|e| fail(e.into()))?;
    let data = MarketData::live(&reads.http, None)
        .await
        .map_err(|e| fail(e.into()))?;
    let ranks = account::queue_ranks(&reads.http, address).await;
    let mut value = account::account_json(&live.state, &data, &ranks, "watch");
    if view == PositionsView::Explorer {
        explorer_view(&mut value, &data, a.text("position_id"));
    }
    let capped = if view == PositionsView::Terminal {
        cap_positions(&mut value)
    } else {
        String::new()
    };
    let text = format!(
        "Wallet {:#x}: balance ${}, available ${}, {} open position(s){capped}, {} pending operation(s); trading {}. Read-only: nothing can act on the account.",
        address,
        value["balanceUsd"],
        value["availableUsd"],
        value["totalPositions"]
            .as_u64()
            .map_or(count(&value["positions"]), |n| n as usize),
        count(&value["pendingOperations"]),
        if value["tradingEnabled"] == json!(true) {
            "enabled (an unexpired session key is registered)"
        } else {
            "NOT enabled (no unexpired session key)"
        },
    );
    Ok(Answer { text, value })
}

/// The explorer's extra fields: each market's mark, totals over the positions shown, and one
/// position when asked for (its closed record is in `get_trade_history`).
fn explorer_view(value: &mut Value, data: &MarketData, position_id: Option<String>) {
    let marks: serde_json::Map<String, Value> = data
        .state
        .instruments
        .iter()
        .filter_map(|m| {
            let mark = data.mark(m).ok()?;
            Some((
                m.symbol.clone(),
                json!({"price": crate::protocol::units::price_json(mark, m.price_scale), "raw": mark.to_string()}),
            ))
        })
        .collect();
    if let (Some(id), Some(list)) = (&position_id, value["positions"].as_array_mut()) {
        list.retain(|p| p["positionId"].as_str() == Some(id.trim()));
    }
    // Sums of the exact integers, so the totals are as exact as the rows.
    let sum = |key: &str| -> i128 {
        value["positions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p[key].as_str()?.parse::<i128>().ok())
            .sum()
    };
    let margin = sum("marginRaw");
    let net = sum("closeNetPnlRaw");
    let pays = sum("closePaysRaw");
    let found = count(&value["positions"]) > 0;
    value["marks"] = Value::Object(marks);
    value["totals"] = json!({
        "positions": count(&value["positions"]),
        "marginUsd": crate::protocol::units::wad_json(margin, 2),
        "marginRaw": margin.to_string(),
        "closePaysUsd": crate::protocol::units::wad_json(pays, 2),
        "closePaysRaw": pays.to_string(),
        "closeNetPnlUsd": crate::protocol::units::wad_json(net, 2),
        "closeNetPnlRaw": net.to_string(),
    });
    value["closed"] = match position_id {
        Some(id) if !found => json!({
            "position_id": id,
            "open": false,
            "note": "not open in this wallet: a closed position's record is in get_trade_history",
        }),
        _ => Value::Null,
    };
}

pub(super) async fn intents(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let address = report::wallet("<ADDR>", &a.text("address").unwrap_or_default()).map_err(fail)?;
    let (value, _) = report::intents(&reads.http, &reads.data_dir, address, 0)
        .await
        .map_err(fail)?;
    let text = format!(
        "Wallet {:#x}: {} pending intent(s). Use lookup_intent to follow one id.",
        address, value["count"]
    );
    Ok(Answer { text, value })
}

pub(super) async fn lookup(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let id =
        report::intent_id("<INTENT_ID>", &a.text("intent_id").unwrap_or_default()).map_err(fail)?;
    let wallet = a
        .text("wallet")
        .map(|w| report::wallet("wallet", &w))
        .transpose()
        .map_err(fail)?;
    let value = report::lookup(&reads.http, &reads.data_dir, id, wallet, 0)
        .await
        .map_err(fail)?;
    let text = format!(
        "Intent {:#x}: {}. {}",
        id,
        value["state"].as_str().unwrap_or("unknown"),
        value["settlement_note"].as_str().unwrap_or(""),
    );
    Ok(Answer { text, value })
}

pub(super) async fn history(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let address = report::wallet("<ADDR>", &a.text("address").unwrap_or_default()).map_err(fail)?;
    let page = match a.text("cursor") {
        None => 0,
        Some(c) => c.trim().parse::<u64>().map_err(|_| {
            Failure(
                "Invalid argument cursor: pass the next_cursor of a previous call, or none for the first page. Nothing was done."
                    .into(),
            )
        })?,
    };
    let filter = a.text("filter").unwrap_or_else(|| "all".into());
    let value = report::history(&reads.http, &reads.data_dir, address, &filter, page, 75, 0)
        .await
        .map_err(fail)?
        .json();
    let text = format!(
        "Wallet {:#x}: {} closed trade(s) on this page ({filter}){}. {}",
        address,
        count(&value["trades"]),
        if value["next_cursor"].is_null() {
            String::new()
        } else {
            format!(", more with cursor {}", value["next_cursor"])
        },
        value["note"].as_str().unwrap_or(""),
    );
    Ok(Answer { text, value })
}

pub(super) async fn search(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let q = a.text("query").unwrap_or_default();
    let (query, value) = report::search(&reads.http, &reads.data_dir, &q)
        .await
        .map_err(fail)?;
    let text = format!(
        "{} → {}; follow up with {}.",
        crate::text::sanitize_line(&q, 80),
        query.kind(),
        query.next().1
    );
    Ok(Answer { text, value })
}

pub(super) async fn overview(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let recent = a.get("recent_trades").and_then(Value::as_u64).unwrap_or(10) as usize;
    let o = protocol::overview(&reads.http, recent, "1h")
        .await
        .map_err(fail)?;
    let value = o.value;
    let text = format!(
        "Papertrade: TVL ${}, {} market(s), trading {}, {} recent trade(s) included{}.",
        value["tvl_usd"],
        count(&value["markets"]),
        if value["trading_paused"] == json!(true) {
            "PAUSED"
        } else {
            "open"
        },
        count(&value["recent_trades"]),
        if o.unavailable.is_empty() {
            String::new()
        } else {
            format!("; unavailable: {}", o.unavailable.join("; "))
        },
    );
    Ok(Answer { text, value })
}

pub(super) async fn recent_trades(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let limit = a.get("limit").and_then(Value::as_u64).unwrap_or(20) as usize;
    let t = protocol::recent_trades(
        &reads.http,
        a.text("market").as_deref(),
        a.text("kind").as_deref(),
        limit,
    )
    .await
    .map_err(fail)?;
    let value = t.json();
    let text = format!(
        "{} recent trade(s){}{}, newest first.",
        value["count"],
        t.market
            .as_deref()
            .map(|m| format!(" in {m}"))
            .unwrap_or_default(),
        t.kind
            .map(|k| format!(" of kind {}", crate::analytics::trades::kind_name(k)))
            .unwrap_or_default(),
    );
    Ok(Answer { text, value })
}

pub(super) async fn candles(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let interval = a.text("interval").unwrap_or_else(|| "1h".into());
    let limit = a.get("limit").and_then(Value::as_u64).unwrap_or(48);
    let c = protocol::candles(
        &reads.http,
        &a.text("market").unwrap_or_default(),
        &interval,
        limit,
    )
    .await
    .map_err(fail)?;
    let value = c.json();
    let text = format!(
        "{} {} candles: {} of them, oldest first; change over the window {}%.",
        c.market,
        interval,
        c.candles.len(),
        c.change_pct()
            .map_or("unavailable".into(), |p| p.to_string()),
    );
    Ok(Answer { text, value })
}

pub(super) async fn paper_mint(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let basis_text = a.text("lossBasisUsd").unwrap_or_else(|| "1".into());
    let basis = protocol::loss_basis("loss-basis-usd", &basis_text).map_err(fail)?;
    let value = protocol::paper_mint(&reads.http, basis)
        .await
        .map_err(fail)?
        .json();
    let text = format!(
        "A ${} loss basis would mint {} PAPER now ({} PAPER per $1 of loss basis).",
        crate::text::sanitize_line(&basis_text, 40),
        value["estimatedPaper"],
        value["paperPerUsd"],
    );
    Ok(Answer { text, value })
}
