//! Any wallet, the leaderboard and the protocol (explorer seed, and the wallet-positions tools of
//! the SDK and the terminal): `report::explorer`, `report::account`, `report::protocol`.
//! Account streams are read to their snapshot only, so every call is bounded.

use serde_json::{Value, json};

use crate::client::live_account::LiveAccount;
use crate::client::market_data::MarketData;
use alloy_primitives::{Address, U256};

use crate::analytics::liquidations::Danger;
use crate::answers::{AnswerError, account, explorer as report, protocol};
use crate::protocol::math::room_to_bust;

use super::{Answer, Args, Failure, Reads};

fn fail(e: AnswerError) -> Failure {
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
    let value = snake_case(report::board(&reads.http, r).await.map_err(fail)?.json());
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
    let value = snake_case(
        report::balance_sheet(&reads.http, address)
            .await
            .map_err(fail)?
            .json(&report::stream_url(&reads.http, address)),
    );
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
    let position_id = a
        .text("position_id")
        .map(|t| match crate::analytics::search::classify(&t) {
            crate::analytics::search::Query::Position(id) => Ok(id),
            _ => Err(Failure(format!(
                    "Invalid argument position_id: must be a position id, a whole number such as 400013, got {:?}. Fix it and call the tool again; nothing was done.",
                crate::text::sanitize_line(&t, 40)
            ))),
        })
        .transpose()?;
    let live = LiveAccount::open(&reads.http, address, None)
        .await
        .map_err(|e| fail(e.into()))?;
    let data = MarketData::live(&reads.http, None)
        .await
        .map_err(|e| fail(e.into()))?;
    let ranks = account::queue_ranks(&reads.http, address).await;
    let mut value = account::account_json(&live.state, &data, &ranks, "watch");
    if view != PositionsView::Explorer {
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
        return Ok(Answer { text, value });
    }
    let closed = match position_id {
        Some(id) if !live.state.open_positions.iter().any(|p| p.id == id) => {
            Some(closed_record(reads, address, id).await.map_err(fail)?)
        }
        _ => None,
    };
    explorer_view(&mut value, &data, position_id);
    let mut value = snake_case(value);
    // Keyed by symbol, which is data, not a field name: set after the renaming.
    value["marks"] = marks(&data);
    value["closed"] = closed.clone().unwrap_or(Value::Null);
    let closed_text = match &closed {
        None => String::new(),
        Some(c) if c["found"] == true => format!(
            " Position {} is closed: its closed-trade record is in closed.",
            c["position_id"].as_str().unwrap_or("")
        ),
        Some(c) => format!(
            " Position {} is not open in this wallet and its close is unknown here (closed.note).",
            c["position_id"].as_str().unwrap_or("")
        ),
    };
    let text = format!(
        "Wallet {:#x}: balance ${}, {} open position(s) shown{}.{} Read-only.",
        address,
        value["balance_usd"],
        count(&value["positions"]),
        worst_band(&value["positions"])
            .map(|b| format!(", the nearest to bust in band {b}"))
            .unwrap_or_default(),
        closed_text,
    );
    Ok(Answer { text, value })
}

/// A position no longer open: its closed-trade record where this machine's history file of the
/// wallet or the recent-trades feed has one, else a plain statement that neither does (and when
/// the wallet's history knows it closed unseen, between when).
async fn closed_record(reads: &Reads, wallet: Address, id: U256) -> Result<Value, AnswerError> {
    Ok(
        match report::closed_trade(&reads.http, &reads.data_dir, wallet, id).await? {
            Ok(mut trade) => {
                trade["found"] = json!(true);
                trade["open"] = json!(false);
                trade
            }
            Err(gap) => {
                let mut note = format!(
                    "position {id} is not open in wallet {wallet:#x}, and neither this machine's history file of the wallet nor the recent-trades feed (the latest trades across the protocol) has its close: the exchange publishes no older trade history"
                );
                if let Some(g) = &gap {
                    note.push_str(&format!(
                        "; the exchange booked its close while this machine was not following the wallet, between {} and {} (ms), in a gap of net {}",
                        g["from"], g["to"], g["unseen_net_pnl_usd"].as_str().unwrap_or("?")
                    ));
                }
                let mut v = json!({
                    "position_id": id.to_string(),
                    "found": false,
                    "open": false,
                    "note": note,
                });
                if let Some(g) = gap {
                    v["unseen_between"] = json!({"from": g["from"], "to": g["to"]});
                }
                v
            }
        },
    )
}

/// Each market's live mark, keyed by symbol.
fn marks(data: &MarketData) -> Value {
    Value::Object(
        data.state
            .instruments
            .iter()
            .filter_map(|m| {
                let mark = data.mark(m).ok()?;
                Some((
                    m.symbol.clone(),
                    json!({"price": crate::protocol::units::price_json(mark, m.price_scale), "raw": mark.to_string()}),
                ))
            })
            .collect(),
    )
}

/// The band of the position nearest to its bust, if any is valued.
fn worst_band(positions: &Value) -> Option<&str> {
    positions
        .as_array()?
        .iter()
        .filter_map(|p| p["risk_band"].as_str())
        .min_by_key(|b| Danger::ALL.iter().position(|d| d.label() == *b))
}

/// The explorer's shape of the wallet's positions: one position when asked for, each with its
/// distance to bust and the risk band of that distance (computed from the integers: the room
/// between mark and bust against the mark), and totals over the positions shown.
fn explorer_view(value: &mut Value, data: &MarketData, position_id: Option<U256>) {
    if let Some(list) = value["positions"].as_array_mut() {
        if let Some(id) = position_id {
            let id = id.to_string();
            list.retain(|p| p["positionId"].as_str() == Some(id.as_str()));
        }
        for p in list.iter_mut() {
            band(p, data);
        }
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
    value["totals"] = json!({
        "positions": count(&value["positions"]),
        "marginUsd": crate::protocol::units::wad_json(margin, 2),
        "marginRaw": margin.to_string(),
        "closePaysUsd": crate::protocol::units::wad_json(pays, 2),
        "closePaysRaw": pays.to_string(),
        "closeNetPnlUsd": crate::protocol::units::wad_json(net, 2),
        "closeNetPnlRaw": net.to_string(),
    });
}

/// One position row's mark, distance to bust and risk band; without a mark (market unlisted or
/// unpriced) the three are left out and `markError` says why.
fn band(p: &mut Value, data: &MarketData) {
    let Some(o) = p.as_object_mut() else { return };
    let distance = o.remove("distanceToLiquidationPct");
    let market = o["market"].as_str().unwrap_or("").to_string();
    let Some(m) = data.state.instruments.iter().find(|m| m.symbol == market) else {
        o.insert(
            "markError".into(),
            json!(format!("market {market} is not listed")),
        );
        return;
    };
    let mark = match data.mark(m) {
        Ok(mark) => mark,
        Err(e) => {
            o.insert(
                "markError".into(),
                json!(format!("no live mark for {market}: {e}")),
            );
            return;
        }
    };
    let Some(bust) = o["bustPriceRaw"]
        .as_str()
        .and_then(|b| b.parse::<u64>().ok())
    else {
        return;
    };
    let room = room_to_bust(mark, bust, o["side"] == "long");
    o.insert("markPriceRaw".into(), json!(mark.to_string()));
    if let Some(d) = distance {
        o.insert("distanceToBustPct".into(), d);
    }
    o.insert("riskBand".into(), json!(Danger::of(room, mark).label()));
}

pub(super) async fn intents(reads: &Reads, a: &Args<'_>) -> Result<Answer, Failure> {
    let address = report::wallet("<ADDR>", &a.text("address").unwrap_or_default()).map_err(fail)?;
    let (value, _) = report::intents(&reads.http, &reads.data_dir, address, 0)
        .await
        .map_err(fail)?;
    let value = snake_case(value);
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
    let value = snake_case(
        report::lookup(&reads.http, &reads.data_dir, id, wallet, 0)
            .await
            .map_err(fail)?,
    );
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
    let value = snake_case(
        report::history(&reads.http, &reads.data_dir, address, &filter, page, 75, 0)
            .await
            .map_err(fail)?
            .json(),
    );
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
    let value = snake_case(value);
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
    let value = snake_case(o.value);
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

/// `value` with every field name in snake_case (`notionalUsd` → `notional_usd`), as the explorer
/// seed names its fields throughout. Only camelCase names change: symbols (`BTC`), windows
/// (`24h`) and addresses are left as they are.
fn snake_case(value: Value) -> Value {
    match value {
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, v)| (snake(&k).unwrap_or(k), snake_case(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(snake_case).collect()),
        other => other,
    }
}

/// A camelCase name in snake_case; `None` for any other key.
fn snake(key: &str) -> Option<String> {
    let mut chars = key.chars();
    let camel = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && key.chars().any(|c| c.is_ascii_uppercase());
    if !camel {
        return None;
    }
    let mut out = String::with_capacity(key.len() + 4);
    let mut previous_upper = false;
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            if !previous_upper {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
        previous_upper = c.is_ascii_uppercase();
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel_case_names_become_snake_case_and_nothing_else_changes() {
        for (from, to) in [
            ("notionalUsd", Some("notional_usd")),
            ("markPriceRaw", Some("mark_price_raw")),
            ("volumeBtc", Some("volume_btc")),
            ("intentID", Some("intent_id")),
            ("balance_usd", None),
            ("BTC", None),
            ("kPEPE", Some("k_pepe")),
            ("24h", None),
            ("0xAbC", None),
            ("time", None),
        ] {
            assert_eq!(snake(from).as_deref(), to, "{from}");
        }
        let v = snake_case(json!({"recentTrades": [{"pnlUsd": 1, "BTC": {"rawPrice": "2"}}]}));
        assert_eq!(
            v,
            json!({"recent_trades": [{"pnl_usd": 1, "BTC": {"raw_price": "2"}}]})
        );
    }
}
