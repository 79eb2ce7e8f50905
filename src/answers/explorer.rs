//! The explorer's reads over any wallet (read-only, nothing is ever signed): the leaderboard,
//! top traders, a wallet's balance sheet, its pending intents, one intent's whereabouts, its
//! closed trades, and the classifier behind `search`. The figures are `analytics`'; this file
//! gathers what they need.

use std::time::Duration;

use alloy_primitives::{Address, B256, U256};
use serde_json::{Value, json};

use crate::analytics::history::{self, Filter, HistoryPage};
use crate::analytics::intents::{self, WalletView};
use crate::analytics::leaderboard::{self, PAGE_SIZE, Request, TopTraders};
use crate::analytics::search::{self, Query};
use crate::analytics::trades::event_json;
use crate::analytics::wallet::{self, BalanceSheet};
use crate::client::ExchangeHttp;
use crate::client::explorer::{self as reads, scan_leaderboard};
use crate::client::live_account::LiveAccount;
use crate::client::market_data::MarketData;
use crate::events::account::StreamEvent;
use crate::protocol::account::{ClosedPosition, IntentOutcome};
use crate::protocol::leaderboard::{SortDir, SortKey, Window};
use crate::protocol::reads::TradeEvent;
use crate::protocol::wire::parse_b256;

use super::{AnswerError, input};

pub const WINDOWS: [&str; 4] = ["24h", "7d", "30d", "all"];
pub const SORT_KEYS: [&str; 9] = SortKey::NAMES;

pub fn window(text: &str) -> Result<Window, AnswerError> {
    Window::parse(text).ok_or_else(|| {
        AnswerError::input("window", format!("must be one of {}", WINDOWS.join(", ")))
    })
}

/// A board request from its words: window, sort key and direction, page, optional search.
pub fn request(
    window_text: &str,
    sort_key: &str,
    sort_dir: &str,
    page: u64,
    query: Option<&str>,
) -> Result<Request, AnswerError> {
    Ok(Request {
        window: window(window_text)?,
        sort_key: SortKey::parse(sort_key).ok_or_else(|| {
            AnswerError::input(
                "sort-key",
                format!("must be one of {}", SORT_KEYS.join(", ")),
            )
        })?,
        sort_dir: SortDir::parse(sort_dir)
            .ok_or_else(|| AnswerError::input("sort-dir", "must be asc or desc"))?,
        page,
        query: query.map(str::to_string).filter(|q| !q.trim().is_empty()),
    })
}

/// The board as asked: one page, or with a search the scanned top of it.
pub async fn board(
    http: &ExchangeHttp,
    r: Request,
) -> Result<leaderboard::Leaderboard, AnswerError> {
    let pages = if r.query.is_some() {
        scan_leaderboard(http, r.window, r.sort_key, r.sort_dir, |_, _| false).await?
    } else {
        let page =
            reads::leaderboard_page(http, r.window, r.sort_key, r.sort_dir, r.page, PAGE_SIZE)
                .await?;
        vec![(r.page.saturating_mul(PAGE_SIZE as u64), page)]
    };
    Ok(leaderboard::leaderboard(r, &pages))
}

/// The `limit` best traders by windowed PnL.
pub async fn top_traders(
    http: &ExchangeHttp,
    w: Window,
    limit: usize,
) -> Result<TopTraders, AnswerError> {
    let page = reads::leaderboard_page(http, w, SortKey::TotalWindowedPnl, SortDir::Desc, 0, limit)
        .await?;
    Ok(leaderboard::top_traders(w, limit, &page))
}

/// The account stream's address of `wallet`, for the links of a balance sheet.
pub fn stream_url(http: &ExchangeHttp, wallet: Address) -> String {
    format!("{}/state/user/live?wallet={wallet:#x}", http.api_url())
}

pub async fn balance_sheet(
    http: &ExchangeHttp,
    wallet: Address,
) -> Result<BalanceSheet, AnswerError> {
    // A snapshot read: it sees no close, so it writes nothing.
    let live = LiveAccount::open(http, wallet, None).await?;
    let data = MarketData::live(http, None).await?;
    let (ranks, name) =
        leaderboard::window_ranks(wallet, &reads::window_boards(http, wallet).await);
    Ok(wallet::balance_sheet(
        live.state.clone(),
        &data.state,
        &data.known_marks(),
        name,
        ranks,
        crate::clock::now_unix_s(),
    ))
}

/// Follow `live` for `secs`: the closes and intent outcomes its patches report, each close with
/// when it arrived (ms).
pub async fn follow(
    live: &mut LiveAccount,
    secs: u64,
) -> (Vec<(ClosedPosition, u64)>, Vec<IntentOutcome>) {
    let mut closed = Vec::new();
    let mut outcomes = Vec::new();
    if secs == 0 {
        return (closed, outcomes);
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        match tokio::time::timeout_at(deadline, live.next()).await {
            Ok(Some(StreamEvent::Patched {
                closed: c,
                outcomes: o,
                ..
            })) => {
                let now = crate::clock::now_unix_ms();
                closed.extend(c.into_iter().map(|c| (c, now)));
                outcomes.extend(o);
            }
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => break,
        }
    }
    (closed, outcomes)
}

/// A wallet's pending intents with their queue rank, and the outcomes seen in `secs`.
pub async fn intents(
    http: &ExchangeHttp,
    data_dir: &std::path::Path,
    wallet: Address,
    secs: u64,
) -> Result<(Value, Vec<IntentOutcome>), AnswerError> {
    let mut live = LiveAccount::open(http, wallet, Some(data_dir)).await?;
    let trading = http.trading_state().await?;
    let rank = reads::queue_rank(http, wallet).await.ok();
    let (_, outcomes) = follow(&mut live, secs).await;
    let now = crate::clock::now_unix_s();
    let value = intents::intents_json(&live.state, &trading, rank.as_ref(), &outcomes, now);
    Ok((value, outcomes))
}

pub fn intent_id(field: &str, text: &str) -> Result<B256, AnswerError> {
    parse_b256(text.trim()).map_err(|e| {
        AnswerError::input(
            field,
            format!("must be 0x followed by 64 hex characters ({e})"),
        )
    })
}

/// Where one intent id is: the trades feed, and with its wallet that wallet's queue and stream.
pub async fn lookup(
    http: &ExchangeHttp,
    data_dir: &std::path::Path,
    id: B256,
    wallet: Option<Address>,
    secs: u64,
) -> Result<Value, AnswerError> {
    let feed = reads::recent_trades(http).await?;
    let trading = http.trading_state().await?;
    let now = crate::clock::now_unix_s();
    // This machine's own intents are in its audit log: their wallet and their fate, even once
    // the exchange's feed and queue have forgotten them.
    let audited = crate::store::ledger::AuditLog::new(data_dir).intent(id);
    let with_audit = |mut v: Value| {
        if let Some(a) = &audited {
            if v["state"] == "not_found"
                && let Some(outcome) = &a.outcome
            {
                v["state"] = json!(outcome);
            }
            v["audit"] = a.json();
        }
        v
    };
    let Some(wallet) = wallet.or_else(|| audited.as_ref().and_then(|a| a.user())) else {
        return Ok(with_audit(
            intents::lookup(id, &feed.events, None).json(&trading, now),
        ));
    };
    let mut live = LiveAccount::open(http, wallet, Some(data_dir)).await?;
    let rank = reads::queue_rank(http, wallet).await.ok();
    let (_, outcomes) = follow(&mut live, secs).await;
    let view = WalletView {
        account: &live.state,
        rank: rank.as_ref(),
        outcomes: &outcomes,
    };
    Ok(with_audit(
        intents::lookup(id, &feed.events, Some(&view)).json(&trading, now),
    ))
}

/// One page of a wallet's closed trades, newest first (what can be derived: see the note).
pub async fn history(
    http: &ExchangeHttp,
    data_dir: &std::path::Path,
    wallet: Address,
    filter_text: &str,
    page: u64,
    limit: usize,
    secs: u64,
) -> Result<HistoryPage, AnswerError> {
    let filter = Filter::parse(filter_text)
        .ok_or_else(|| AnswerError::input("filter", "must be all or losses"))?;
    let mut live = LiveAccount::open(http, wallet, Some(data_dir)).await?;
    let trading = http.trading_state().await?;
    let (closed, _) = follow(&mut live, secs).await;
    let feed = reads::recent_trades(http).await?;
    // The closes a UI of this data dir kept for the wallet (none when it never followed it).
    let file = crate::store::history::HistoryFile::new(data_dir, wallet).load();
    let trades = history::closed_trades(wallet, &file, &feed, &closed, &trading);
    Ok(history::page(
        wallet,
        trades,
        filter,
        usize::try_from(page).unwrap_or(usize::MAX),
        limit,
    ))
}

/// One closed position of `wallet` as `get_trade_history` lists it, from this machine's history
/// file of the wallet or the recent-trades feed (`Ok`), or else the gap of the history in which
/// the exchange booked its close unseen, if one names it (`Err`, possibly `None`).
pub async fn closed_trade(
    http: &ExchangeHttp,
    data_dir: &std::path::Path,
    wallet: Address,
    id: U256,
) -> Result<Result<Value, Option<Value>>, AnswerError> {
    let all = history(http, data_dir, wallet, "all", 0, usize::MAX, 0)
        .await?
        .json();
    let id = id.to_string();
    let named = |list: &Value, key: &str| {
        list.as_array()
            .into_iter()
            .flatten()
            .find(|t| {
                t[key].as_str() == Some(id.as_str())
                    || t[key]
                        .as_array()
                        .is_some_and(|ids| ids.iter().any(|i| i.as_str() == Some(id.as_str())))
            })
            .cloned()
    };
    Ok(named(&all["trades"], "position_id")
        .ok_or_else(|| named(&all["complete"]["gaps"], "unseen_position_ids")))
}

/// Feed rows of one position id.
fn position_rows(feed: &[TradeEvent], id: U256) -> Vec<Value> {
    feed.iter()
        .filter(|e| e.position_id.map(U256::from) == Some(id))
        .map(event_json)
        .collect()
}

/// Classify `text` and resolve it: the classification and the search document.
pub async fn search(
    http: &ExchangeHttp,
    data_dir: &std::path::Path,
    text: &str,
) -> Result<(Query, Value), AnswerError> {
    if text.trim().is_empty() {
        return Err(AnswerError::input(
            "<QUERY>",
            "is empty: type an address, intent id, position id or name",
        ));
    }
    let query = search::classify(text);
    let result = match &query {
        Query::Wallet(w) => balance_sheet(http, *w).await?.json(&stream_url(http, *w)),
        Query::Hash(h) => lookup(http, data_dir, *h, None, 0).await?,
        Query::Position(id) => {
            let feed = reads::recent_trades(http).await?;
            let rows = position_rows(&feed.events, *id);
            json!({
                "position_id": id.to_string(),
                "found": !rows.is_empty(),
                "feed": rows,
                "note": "searched in the recent-trades feed; an older or quiet position needs its wallet (positions --watch 0x…)",
            })
        }
        Query::Name(name) => board(
            http,
            Request {
                window: Window::All,
                sort_key: SortKey::TotalWindowedPnl,
                sort_dir: SortDir::Desc,
                page: 0,
                query: Some(name.clone()),
            },
        )
        .await?
        .json(),
    };
    let value = search::search_json(&query, text, result);
    Ok((query, value))
}

/// A wallet argument.
pub fn wallet(field: &str, text: &str) -> Result<Address, AnswerError> {
    input::address(field, text)
}
