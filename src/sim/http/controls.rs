//! The practice controls (`POST /sim/*`, never part of the real API): each decodes its typed
//! body, calls one engine operation (`sim/controls.rs`) and encodes the answer. Codes are
//! INVENTED (`invalid_control`, `clock_not_manual`).

use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::units::parse_scaled;
use crate::protocol::wire::parse_address;
use crate::sim::controls::{CLOCK_STEP_RULE, invalid_control};
use crate::sim::engine::Notice;
use crate::sim::intake::Refusal;

use super::body::{Field, object};
use super::faults::{FaultSpec, Fired};
use super::{S, answer};

/// A control body: a JSON object, read into `T`.
fn control_body<T: DeserializeOwned>(body: &Bytes) -> Result<T, Refusal> {
    serde_json::from_slice(body)
        .ok()
        .and_then(object)
        .ok_or_else(|| invalid_control("the body must be a JSON object"))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FundBody {
    #[serde(default)]
    wallet: Field<String>,
    #[serde(default)]
    amount_usd: Field<String>,
}

#[derive(Serialize)]
struct Funded {
    ok: bool,
    wallet: String,
    balance: String,
}

pub(super) async fn fund(State(s): S, body: Bytes) -> Response {
    let funded = control_body(&body).and_then(|b: FundBody| {
        let wallet = b
            .wallet
            .text("wallet")
            .and_then(|w| parse_address(w).map_err(invalid_control))?;
        let amount = b.amount_usd.text("amountUsd").and_then(|a| {
            parse_scaled(a, 18).map_err(|e| invalid_control(format!("amountUsd {e}")))
        })?;
        let balance = s.with_engine(|e| e.deposit(wallet, amount))?;
        Ok(Funded {
            ok: true,
            wallet: format!("{wallet:#x}"),
            balance: balance.to_string(),
        })
    });
    answer(funded)
}

#[derive(Deserialize)]
struct PriceBody {
    #[serde(default)]
    market: Field<String>,
    /// A decimal string pins the market, `null` (or nothing) lets it walk again.
    #[serde(default)]
    price: Field<Option<String>>,
}

#[derive(Serialize)]
struct Priced {
    ok: bool,
    market: String,
    mid: String,
    pinned: bool,
}

pub(super) async fn price(State(s): S, body: Bytes) -> Response {
    let priced = control_body(&body).and_then(|b: PriceBody| {
        let market = b.market.text("market")?;
        s.with_engine(|e| {
            let i = e.control_market(market)?;
            let price = match &b.price {
                Field::Absent | Field::Given(None) => None,
                Field::Given(Some(p)) => Some(p.as_str()),
                Field::Wrong(_) => {
                    return Err(invalid_control("price must be a decimal string or null"));
                }
            };
            e.pin_price(i, price)
        })
        .map(|p| Priced {
            ok: true,
            market: p.symbol,
            mid: p.mid.to_string(),
            pinned: p.pinned,
        })
    });
    answer(priced)
}

#[derive(Deserialize)]
struct MarketBody {
    #[serde(default)]
    market: Field<String>,
    #[serde(default)]
    status: Field<String>,
}

#[derive(Serialize)]
struct Listed {
    ok: bool,
    market: String,
    status: &'static str,
}

pub(super) async fn market(State(s): S, body: Bytes) -> Response {
    let listed = control_body(&body).and_then(|b: MarketBody| {
        let market = b.market.text("market")?;
        let status = b.status.text("status")?;
        let (market, status) = s.with_engine(|e| {
            let i = e.control_market(market)?;
            e.set_listing(i, status)
        })?;
        Ok(Listed {
            ok: true,
            market,
            status,
        })
    });
    answer(listed)
}

#[derive(Deserialize)]
struct TradingBody {
    #[serde(default)]
    paused: Field<bool>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TradingSwitched {
    ok: bool,
    trading_paused: bool,
}

pub(super) async fn trading(State(s): S, body: Bytes) -> Response {
    let switched = control_body(&body).and_then(|b: TradingBody| {
        let Field::Given(paused) = b.paused else {
            return Err(invalid_control("paused: expected true or false"));
        };
        s.with_engine(|e| e.set_trading_paused(paused));
        Ok(TradingSwitched {
            ok: true,
            trading_paused: paused,
        })
    });
    answer(switched)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IntakeBody {
    #[serde(default)]
    all: Field<bool>,
    #[serde(default)]
    paused_actions: Field<Vec<String>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct IntakeSwitched {
    ok: bool,
    all: bool,
    paused_actions: Vec<String>,
}

pub(super) async fn intake(State(s): S, body: Bytes) -> Response {
    let switched = control_body(&body).and_then(|b: IntakeBody| {
        // A missing or non-boolean `all` leaves intake open, as it always has.
        let all = matches!(b.all, Field::Given(true));
        let actions = match b.paused_actions {
            Field::Absent => Vec::new(),
            Field::Given(a) => a,
            Field::Wrong(Value::Array(_)) => {
                return Err(invalid_control("pausedActions: expected action names"));
            }
            Field::Wrong(_) => return Err(invalid_control("pausedActions: expected an array")),
        };
        s.with_engine(|e| e.set_intake(all, actions.clone()));
        Ok(IntakeSwitched {
            ok: true,
            all,
            paused_actions: actions,
        })
    });
    answer(switched)
}

#[derive(Deserialize)]
struct NoticeBody {
    #[serde(default)]
    clear: Field<bool>,
    #[serde(default)]
    title: Field<String>,
    #[serde(default)]
    body: Field<String>,
    #[serde(default)]
    level: Field<String>,
}

#[derive(Serialize)]
struct Noticed {
    ok: bool,
    notices: usize,
}

pub(super) async fn notice(State(s): S, body: Bytes) -> Response {
    let noticed = control_body(&body).map(|b: NoticeBody| {
        let notices = s.with_engine(|e| {
            if matches!(b.clear, Field::Given(true)) {
                e.clear_notices()
            } else {
                // Untrusted text for clients; a missing or odd field is empty.
                e.post_notice(Notice {
                    title: b.title.or_empty(),
                    body: b.body.or_empty(),
                    level: b.level.or_empty(),
                })
            }
        });
        Noticed { ok: true, notices }
    });
    answer(noticed)
}

/// The answer to `POST /sim/faults`: how often the faults it replaced fired.
#[derive(Serialize)]
struct Armed {
    ok: bool,
    fired: Fired,
}

pub(super) async fn faults(State(s): S, body: Bytes) -> Response {
    let armed = serde_json::from_slice::<FaultSpec>(&body)
        .map_err(|e| invalid_control(format!("faults: {e}")))
        .and_then(|spec| s.arm_faults(spec))
        .map(|fired| Armed { ok: true, fired });
    answer(armed)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClockBody {
    #[serde(default)]
    advance_ms: Field<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Clocked {
    ok: bool,
    now_ms: u64,
}

pub(super) async fn clock(State(s): S, body: Bytes) -> Response {
    let clocked = s
        // Refused before the body is read: the step means nothing on the real clock.
        .with_engine(|e| e.check_manual_clock())
        .and_then(|()| control_body(&body))
        .and_then(|b: ClockBody| {
            let step = b
                .advance_ms
                .text("advanceMs")?
                .parse::<u64>()
                .map_err(|_| invalid_control(CLOCK_STEP_RULE))?;
            s.with_engine(|e| e.advance_clock(step))
        })
        .map(|now_ms| Clocked { ok: true, now_ms });
    answer(clocked)
}
