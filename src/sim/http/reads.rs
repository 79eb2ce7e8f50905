//! The exchange's read routes: each passes the [read gate](super::gate) with its typed query,
//! asks the engine (`sim/reads.rs` holds the answers) and encodes.

use axum::extract::{Path, State};
use axum::response::Response;
use serde::Serialize;

use crate::sim::intake::Refusal;

use super::gate::{NoQuery, Query, Read, ReadQuery, wallet_param};
use super::{S, answer, ok_json};

pub(super) async fn trading(State(s): S, _: Read<NoQuery>) -> Response {
    let mut wire = s.with_engine(|e| e.trading.to_wire());
    s.hide_unlisted(&mut wire);
    ok_json(wire)
}

pub(super) async fn summary(State(s): S, _: Read<NoQuery>) -> Response {
    ok_json(s.with_engine(|e| e.summary()))
}

pub(super) async fn market_stats(State(s): S, _: Read<NoQuery>) -> Response {
    ok_json(s.with_engine(|e| e.market_stats()))
}

pub(super) async fn queue_summary(State(s): S, _: Read<NoQuery>) -> Response {
    ok_json(s.with_engine(|e| e.queue_summary()))
}

pub(super) async fn trades(State(s): S, _: Read<NoQuery>) -> Response {
    ok_json(s.with_engine(|e| e.recent_trades()))
}

pub(super) async fn relayer_health(State(s): S, _: Read<NoQuery>) -> Response {
    ok_json(s.with_engine(|e| e.relayer_health()))
}

/// `/query/health`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Health {
    status: &'static str,
    chain_id: u64,
    block: u64,
    simulated: bool,
}

pub(super) async fn query_health(State(s): S, _: Read<NoQuery>) -> Response {
    ok_json(s.with_engine(|e| Health {
        status: "ok",
        chain_id: 999,
        block: e.block(),
        simulated: true,
    }))
}

/// `?interval=`: checked by the engine, which knows the intervals it keeps.
pub(super) struct HistoryQuery {
    interval: String,
}

impl ReadQuery for HistoryQuery {
    const NAMES: &'static [&'static str] = &["interval"];

    fn decode(q: &Query) -> Result<Self, Refusal> {
        Ok(Self {
            interval: q.get("interval").unwrap_or("").to_string(),
        })
    }
}

pub(super) async fn history(State(s): S, Read(q): Read<HistoryQuery>) -> Response {
    answer(s.with_engine(|e| e.history(&q.interval)))
}

/// `?page=&pageSize=&sortDir=&sortKey=&window=`; the engine checks the key and window.
pub(super) struct LeaderboardQuery {
    page: usize,
    page_size: usize,
    descending: bool,
    sort_key: String,
    window: String,
}

impl ReadQuery for LeaderboardQuery {
    const NAMES: &'static [&'static str] = &["page", "pageSize", "sortDir", "sortKey", "window"];

    fn decode(q: &Query) -> Result<Self, Refusal> {
        let number = |name: &str, default: usize| -> Result<usize, Refusal> {
            q.get(name).map_or(Ok(default), |v| {
                v.parse().map_err(|_| {
                    Refusal::new(
                        400,
                        "invalid_parameter",
                        format!("{name} must be a whole number"),
                    )
                })
            })
        };
        let descending = match q.get("sortDir").unwrap_or("desc") {
            "desc" => true,
            "asc" => false,
            _ => {
                return Err(Refusal::new(
                    400,
                    "invalid_parameter",
                    "sortDir must be asc or desc",
                ));
            }
        };
        Ok(Self {
            page: number("page", 0)?,
            page_size: number("pageSize", 25)?,
            descending,
            sort_key: q.get("sortKey").unwrap_or("totalWindowedPnl").to_string(),
            window: q.get("window").unwrap_or("all").to_string(),
        })
    }
}

pub(super) async fn leaderboard(State(s): S, Read(q): Read<LeaderboardQuery>) -> Response {
    answer(
        s.with_engine(|e| e.leaderboard(q.page, q.page_size, q.descending, &q.sort_key, &q.window)),
    )
}

pub(super) async fn queue_rank(
    State(s): S,
    _: Read<NoQuery>,
    Path(wallet): Path<String>,
) -> Response {
    answer(wallet_param(&wallet).map(|w| s.with_engine(|e| e.queue_rank(w))))
}
