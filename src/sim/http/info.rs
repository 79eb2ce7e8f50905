//! Hyperliquid's `POST /info` on the simulator's origin: `l2Book`, `allMids`, `candleSnapshot`,
//! `spotClearinghouseState`.
//! Anything else is answered as Hyperliquid's axum server does: 422 and a plain-text reason.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::protocol::units::price_text;

use super::body::{Field, object};
use super::{S, ok_json};

#[derive(Deserialize)]
struct InfoRequest {
    #[serde(rename = "type", default)]
    kind: Field<String>,
    /// `l2Book`'s market; not a string is no market.
    #[serde(default)]
    coin: Field<String>,
    /// `candleSnapshot`'s request, read with [`CandleRequest`].
    #[serde(default)]
    req: Field<Value>,
    /// `spotClearinghouseState`'s wallet.
    #[serde(default)]
    user: Field<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct CandleRequest {
    #[serde(default)]
    coin: Field<String>,
    #[serde(default)]
    interval: Field<String>,
    #[serde(default)]
    start_time: Field<u64>,
    /// Absent or not a time: up to now.
    #[serde(default)]
    end_time: Field<u64>,
}

/// `allMids`: symbol → mid as a decimal string, in listing order.
struct Mids(Vec<(String, String)>);

impl Serialize for Mids {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

fn unprocessable() -> Response {
    (
        StatusCode::UNPROCESSABLE_ENTITY,
        "Failed to deserialize the JSON body",
    )
        .into_response()
}

pub(super) async fn info(State(s): S, body: Bytes) -> Response {
    let Some(req) = serde_json::from_slice(&body)
        .ok()
        .and_then(object::<InfoRequest>)
    else {
        return unprocessable();
    };
    match req.kind.given().as_deref() {
        Some("l2Book") => {
            let coin = req.coin.given().unwrap_or_default();
            s.with_engine(|e| {
                let now = e.now_ms();
                let book = e.markets.iter().find(|m| m.symbol == coin);
                ok_json(book.map(|m| m.l2_book(now)))
            })
        }
        Some("allMids") => s.with_engine(|e| {
            let mids = e.markets.iter().map(|m| {
                let mid = price_text(m.mid(), m.price_scale);
                (m.symbol.clone(), mid)
            });
            ok_json(Mids(mids.collect()))
        }),
        Some("candleSnapshot") => {
            let r = req
                .req
                .given()
                .and_then(object::<CandleRequest>)
                .unwrap_or_default();
            let (Some(coin), Some(interval), Some(start)) =
                (r.coin.given(), r.interval.given(), r.start_time.given())
            else {
                return unprocessable();
            };
            let end = r.end_time.given();
            s.with_engine(|e| {
                let end = end.unwrap_or(e.now_ms());
                match e.markets.iter().find(|m| m.symbol == coin) {
                    Some(m) => match m.candles(&interval, start, end) {
                        Some(c) => ok_json(c),
                        None => unprocessable(),
                    },
                    None => ok_json(Vec::<()>::new()),
                }
            })
        }
        Some("spotClearinghouseState") => {
            match req
                .user
                .given()
                .and_then(|u| crate::protocol::wire::parse_address(&u).ok())
            {
                Some(user) => ok_json(super::funding::spot_clearinghouse_state(&s, user)),
                None => unprocessable(),
            }
        }
        _ => unprocessable(),
    }
}
