//! The unsigned EIP-712 payload of any intent (`typed-data`, seed `papertrade_build_typed_data`).
//! Nothing is signed or sent.
//!
//! An encoder: it refuses only what the intent's types and the protocol's fixed rules forbid
//! (a malformed field, leverage 0 or above 1000, a size of 0, …). The limits a market sets, which
//! governance changes (minimum margin and notional, maximum notional, the instrument list, the
//! market's own leverage ceiling, its status), are `warnings`: read from the live exchange when
//! it answers, the shipped launch parameters otherwise, and each warning says which.

use alloy_primitives::Address;
use serde_json::{Map, Value, json};

use crate::client::ExchangeHttp;
use crate::client::market_data::MarketData;
use crate::protocol::eip712::{
    CancelIntent, Claim, Close, Intent, IntentKind, OpenPosition, RegisterSessionKey, Stake,
    Strictness, Unstake, WithdrawToCore, intent_id, typed_data_json,
};
use crate::protocol::math::{OpenCheck, check_open};
use crate::protocol::order::Deadlines;
use crate::protocol::trading::TradingState;

use super::{AnswerError, input};

/// `kind` names the intent type, `message` its fields (a JSON object); `signer` adds the intent
/// id. The payload is for another wallet to sign, so a deadline left out is
/// `deadlines.elsewhere_s` (an hour, as the browser terminal signs), not the short deadline of
/// the intents this client signs itself; either way the answer's `deadline` says when it lapses.
/// An open's market limits are read from `exchange` (`None`: the launch parameters, no network).
pub async fn typed_data(
    kind: &str,
    message: Value,
    signer: Option<&str>,
    deadlines: &Deadlines,
    exchange: Option<&ExchangeHttp>,
) -> Result<Value, AnswerError> {
    let limits = if IntentKind::parse(kind) == Some(IntentKind::OpenPosition) {
        Some(Limits::read(exchange).await)
    } else {
        None
    };
    encode(kind, message, signer, deadlines, limits.as_ref())
}

/// The market parameters an open's warnings are checked against, and where they came from.
pub struct Limits {
    state: TradingState,
    source: String,
}

impl Limits {
    /// The live `/state/trading` when `exchange` answers (bounded like every read), else the
    /// launch parameters, saying why.
    pub async fn read(exchange: Option<&ExchangeHttp>) -> Limits {
        let Some(http) = exchange else {
            return Limits::launch("offline");
        };
        match http.trading_state().await {
            Ok(state) => Limits {
                state,
                source: format!(
                    "the live exchange ({})",
                    crate::text::sanitize_line(http.api_url(), 120)
                ),
            },
            Err(e) => Limits::launch(&format!(
                "the exchange could not be read: {}",
                crate::text::sanitize_line(&e.to_string(), 200)
            )),
        }
    }

    pub fn launch(why: &str) -> Limits {
        Limits {
            state: MarketData::offline().state,
            source: format!("the launch parameters (mainnet /state/trading of 2026-10-18; {why})"),
        }
    }
}

/// `typed_data` with the limits already read (`None` for every type but an open).
pub fn encode(
    kind: &str,
    message: Value,
    signer: Option<&str>,
    deadlines: &Deadlines,
    limits: Option<&Limits>,
) -> Result<Value, AnswerError> {
    let kind = IntentKind::parse(kind).ok_or_else(|| {
        let names: Vec<&str> = IntentKind::ALL.iter().map(|k| k.name()).collect();
        AnswerError::input(
            "type",
            format!(
                "must be one of {}, got {:?}",
                names.join(", "),
                crate::text::sanitize_line(kind, 40)
            ),
        )
    })?;
    let Value::Object(message) = message else {
        return Err(AnswerError::input("message", "must be a JSON object"));
    };
    let signer = signer.map(|s| input::address("signer", s)).transpose()?;
    let ttl = deadlines.elsewhere_s;
    match kind {
        IntentKind::RegisterSessionKey => {
            build::<RegisterSessionKey>(message, signer, ttl, no_checks)
        }
        IntentKind::OpenPosition => build::<OpenPosition>(message, signer, ttl, |open| {
            let launch;
            let limits = match limits {
                Some(l) => l,
                None => {
                    launch = Limits::launch("offline");
                    &launch
                }
            };
            open_checks(open, limits)
        }),
        IntentKind::Close => build::<Close>(message, signer, ttl, no_checks),
        IntentKind::WithdrawToCore => build::<WithdrawToCore>(message, signer, ttl, no_checks),
        IntentKind::Stake => build::<Stake>(message, signer, ttl, no_checks),
        IntentKind::Unstake => build::<Unstake>(message, signer, ttl, no_checks),
        IntentKind::Claim => build::<Claim>(message, signer, ttl, no_checks),
        IntentKind::CancelIntent => build::<CancelIntent>(message, signer, ttl, no_checks),
    }
}

/// What an intent's checks found: a summary of what was checked (`None` when nothing beyond its
/// types and rules applies) and the warnings.
type Checked = (Option<Value>, Vec<String>);

/// Types whose rules need no market parameters.
fn no_checks<I>(_: &I) -> Result<Checked, AnswerError> {
    Ok((None, Vec::new()))
}

/// An open: the protocol's fixed ranges refuse (leverage 1 to 1000, a size above 0); the
/// relayer's §5.4 checks that depend on a market's parameters (instrument, status, leverage
/// ceiling, margin and notional bounds) warn, against `limits`. What depends on the account is
/// named, not guessed.
fn open_checks(open: &OpenPosition, limits: &Limits) -> Result<Checked, AnswerError> {
    let max = super::input::MAX_LEVERAGE;
    if !(1..=max).contains(&open.leverage) {
        let code = if open.leverage == 0 {
            "leverage_below_minimum"
        } else {
            "leverage_above_maximum"
        };
        return Err(AnswerError::input(
            "message",
            format!(
                "leverage: must be 1 to {max}, the protocol's range, got {} ({code})",
                open.leverage
            ),
        ));
    }
    if open.size == 0 {
        return Err(AnswerError::input(
            "message",
            "size: must be more than 0 (the margin in wad) (margin_below_minimum)",
        ));
    }
    let state = &limits.state;
    let mut warnings = Vec::new();
    match state.market_by_id(open.instrumentId) {
        None => {
            let known: Vec<String> = state
                .instruments
                .iter()
                .map(|i| format!("{} ({})", i.id, crate::text::sanitize_line(&i.symbol, 12)))
                .collect();
            warnings.push(format!(
                "instrumentId: no market {} on {}; markets: {}. The relayer would refuse it.",
                open.instrumentId,
                limits.source,
                known.join(", ")
            ));
        }
        Some(market) => {
            if let Err(r) = check_open(&OpenCheck {
                state,
                market,
                is_long: open.isLong,
                margin: open.size,
                leverage: open.leverage,
                use_debt: open.useDebt,
                mark: None,
                funds: None,
                positions: None,
                queued: None,
            }) {
                warnings.push(format!(
                    "the relayer would refuse this open ({}) on {}: {}",
                    r.code(),
                    limits.source,
                    crate::text::sanitize_line(&r.to_string(), 300)
                ));
            }
        }
    }
    let checks = json!({
        "checkedAgainst": limits.source,
        "checked": ["instrument", "market status", "leverage ceiling", "margin minimum", "notional bounds"],
        "notChecked": ["available balance", "open-interest caps", "one side per market", "session key registration"],
    });
    Ok((Some(checks), warnings))
}

fn build<I: Intent>(
    mut message: Map<String, Value>,
    signer: Option<Address>,
    ttl_s: u64,
    checks: impl FnOnce(&I) -> Result<Checked, AnswerError>,
) -> Result<Value, AnswerError> {
    let now = crate::clock::now_unix_s();
    let mut defaulted = Vec::new();
    if I::LANE.is_some() && !message.contains_key("nonce") {
        message.insert(
            "nonce".into(),
            Value::String(crate::store::ledger::seed_nonce().to_string()),
        );
        defaulted.push("nonce");
    }
    if !message.contains_key("deadline") {
        message.insert("deadline".into(), Value::String((now + ttl_s).to_string()));
        defaulted.push("deadline");
    }
    if I::NAME == "RegisterSessionKey" && !message.contains_key("feeAddress") {
        message.insert(
            "feeAddress".into(),
            Value::String(format!("{:#x}", Address::ZERO)),
        );
        defaulted.push("feeAddress");
    }
    let intent = I::from_message(&message, Strictness::Lenient)
        .map_err(|e| AnswerError::input("message", e))?;
    let deadline = deadline_json(&message["deadline"], now);
    intent
        .rules()
        .map_err(|e| AnswerError::input("message", e))?;
    let (checks, warnings) = checks(&intent)?;
    let role = if I::SESSION_SIGNED {
        "session key"
    } else {
        "wallet"
    };
    if let Some(s) = signer {
        if !I::SESSION_SIGNED && s != intent.user() {
            return Err(AnswerError::input(
                "signer",
                format!(
                    "{} is signed by the wallet itself (user {:#x})",
                    I::NAME,
                    intent.user()
                ),
            ));
        }
        if I::SESSION_SIGNED && s == intent.user() {
            return Err(AnswerError::input(
                "signer",
                format!(
                    "{} is signed by a registered session key, not the wallet",
                    I::NAME
                ),
            ));
        }
    }
    let domain = I::DOMAIN.eip712();
    let digest = intent.eip712_signing_hash(&domain);
    let typed = typed_data_json(&intent);
    let request_signer = signer.unwrap_or(intent.user());
    Ok(json!({
        "unsigned": true,
        "primaryType": I::NAME,
        "domainName": I::DOMAIN.name(),
        "signedBy": role,
        "action": I::ACTION,
        "typeHash": format!("{:#x}", intent.eip712_type_hash()),
        "structHash": format!("{:#x}", intent.eip712_hash_struct()),
        "domainSeparator": format!("{:#x}", domain.separator()),
        "digest": format!("{digest:#x}"),
        "signer": signer.map(|s| format!("{s:#x}")),
        "intentId": signer.map(|s| format!("{:#x}", intent_id(digest, s))),
        "defaulted": defaulted,
        "deadline": deadline,
        "checks": checks,
        "warnings": warnings,
        "typedData": typed,
        "request": {
            "method": "eth_signTypedData_v4",
            "params": [format!("{request_signer:#x}"), serde_json::to_string(&typed).expect("JSON")],
        },
    }))
}

/// When a payload lapses, for the person who has to sign it in time: the unix second, the UTC
/// minute, what is left of it and a sentence saying so.
fn deadline_json(deadline: &Value, now: u64) -> Value {
    let unix = match deadline {
        Value::String(s) => s.parse::<u64>().ok(),
        Value::Number(n) => n.as_u64(),
        _ => None,
    };
    match unix {
        Some(d) => json!({
            "unix": d,
            "utc": deadline_utc(d),
            "secondsLeft": d.saturating_sub(now),
            "text": deadline_text(d, now),
        }),
        // A uint256 beyond any date: it never lapses in practice.
        None => {
            json!({"unix": deadline, "text": "the deadline is beyond any date: it does not lapse"})
        }
    }
}

fn deadline_utc(unix_s: u64) -> String {
    // Past the year 9999 the calendar text means nothing; the number still does.
    const LAST: u64 = 253_402_300_799;
    if unix_s > LAST {
        return format!("unix {unix_s}");
    }
    format!("{} UTC", crate::clock::utc_minute_text(unix_s * 1000))
}

/// "sign by 2026-12-02 03:41 UTC (in 60 min): the relayer refuses it after that".
pub fn deadline_text(unix_s: u64, now: u64) -> String {
    let at = deadline_utc(unix_s);
    if unix_s <= now {
        return format!("its deadline {at} has passed: the relayer refuses it (deadline_expired)");
    }
    let left = unix_s - now;
    let left = if left < 120 {
        format!("{left} s")
    } else if left < 7200 {
        format!("{} min", left / 60)
    } else {
        format!("{} h", left / 3600)
    };
    format!("sign by {at} (in {left}): the relayer refuses it after that")
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_sol_types::SolStruct;

    const USER: &str = "0x14791697260e4c9a71f18484c9f997b308e59325";

    /// A message each type takes, its nonce and deadline defaulted.
    fn example(kind: IntentKind) -> Value {
        match kind {
            IntentKind::RegisterSessionKey => json!({"user": USER,
                "key": "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23", "expiry": "99999999999"}),
            IntentKind::OpenPosition => json!({"user": USER, "instrumentId": 0, "isLong": true,
                "size": "10000000000000000000", "leverage": 1000, "useDebt": false}),
            IntentKind::Close => json!({"user": USER, "positionIds": ["400013"]}),
            IntentKind::WithdrawToCore => json!({"user": USER, "amount": "10000000"}),
            IntentKind::Stake | IntentKind::Unstake => json!({"user": USER, "amount": "1"}),
            IntentKind::Claim => json!({"user": USER}),
            IntentKind::CancelIntent => {
                json!({"user": USER, "intentId": format!("0x{}", "ab".repeat(32))})
            }
        }
    }

    fn offline(kind: &str, message: Value) -> Result<Value, AnswerError> {
        encode(
            kind,
            message,
            None,
            &Deadlines::default(),
            Some(&Limits::launch("test")),
        )
    }

    #[test]
    fn every_uint128_field_encodes_its_largest_value() {
        let max = u128::MAX.to_string();
        let mut fields = 0;
        for kind in IntentKind::ALL {
            let base = example(kind);
            let out = offline(kind.name(), base.clone()).unwrap();
            let types = out["typedData"]["types"][kind.name()].as_array().unwrap();
            for field in types.iter().filter(|t| t["type"] == "uint128") {
                let name = field["name"].as_str().unwrap();
                fields += 1;
                // As a decimal string and as a JSON number, both exact.
                let number: Value = serde_json::from_str(&max).unwrap();
                for value in [Value::String(max.clone()), number] {
                    let mut message = base.clone();
                    message[name] = value.clone();
                    let out = offline(kind.name(), message)
                        .unwrap_or_else(|e| panic!("{} {name}={value}: {e}", kind.name()));
                    assert_eq!(out["typedData"]["message"][name], max.as_str());
                    let expect = OpenPosition {
                        user: USER.parse().unwrap(),
                        instrumentId: 0,
                        isLong: true,
                        size: u128::MAX,
                        leverage: 1000,
                        useDebt: false,
                        nonce: out["typedData"]["message"]["nonce"]
                            .as_str()
                            .unwrap()
                            .parse()
                            .unwrap(),
                        deadline: out["typedData"]["message"]["deadline"].as_u64().unwrap(),
                    };
                    let digest = expect.eip712_signing_hash(&OpenPosition::DOMAIN.eip712());
                    assert_eq!(out["digest"], format!("{digest:#x}"));
                    // Far above the market's maximum notional: said, not refused.
                    let warnings = out["warnings"].as_array().unwrap();
                    assert!(
                        warnings[0]
                            .as_str()
                            .unwrap()
                            .contains("(notional_above_maximum) on the launch parameters"),
                        "{warnings:?}"
                    );
                }
            }
        }
        assert_eq!(fields, 1, "OpenPosition.size is the one uint128 field");
    }

    #[test]
    fn market_limits_warn_and_the_protocols_fixed_ranges_refuse() {
        let open = |instrument: u32, size: &str, leverage: u32| {
            json!({"user": USER, "instrumentId": instrument, "isLong": true, "size": size,
                   "leverage": leverage, "useDebt": false})
        };
        let warned = |message: Value| -> Vec<String> {
            let out = offline("OpenPosition", message).unwrap();
            assert!(out["digest"].as_str().unwrap().starts_with("0x"));
            out["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w.as_str().unwrap().to_string())
                .collect()
        };
        let ten = "10000000000000000000";
        assert!(warned(open(0, ten, 1000)).is_empty());
        for (message, says) in [
            (
                open(7, ten, 10),
                "instrumentId: no market 7 on the launch parameters",
            ),
            (open(0, "1", 1000), "(margin_below_minimum)"),
            (open(0, ten, 10), "(notional_below_minimum)"),
        ] {
            let w = warned(message);
            assert_eq!(w.len(), 1, "{w:?}");
            assert!(w[0].contains(says), "{w:?}");
            assert!(
                w[0].contains("mainnet /state/trading of 2026-10-18"),
                "{w:?}"
            );
        }
        for (message, says) in [
            (open(0, ten, 0), "leverage: must be 1 to 1000"),
            (open(0, ten, 1001), "leverage: must be 1 to 1000"),
            (open(0, "0", 10), "size: must be more than 0"),
        ] {
            let e = offline("OpenPosition", message).unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
        }
        // A whole number however written; a fraction or a negative is no uint.
        let mut spelled = open(0, ten, 1);
        spelled["leverage"] = serde_json::from_str("1.0e3").unwrap();
        spelled["instrumentId"] = serde_json::from_str("0.0").unwrap();
        let out = offline("OpenPosition", spelled).unwrap();
        assert_eq!(out["typedData"]["message"]["leverage"], 1000);
        for bad in ["10.5", "-1", "1e-1"] {
            let mut m = open(0, ten, 10);
            m["leverage"] = serde_json::from_str(bad).unwrap();
            let e = offline("OpenPosition", m).unwrap_err().to_string();
            assert!(
                e.contains("leverage: expected a non-negative integer"),
                "{bad}: {e}"
            );
        }
        // Every other type has no market to warn about.
        let out = offline("Claim", json!({"user": USER})).unwrap();
        assert_eq!(out["warnings"], json!([]));
    }
}
