//! The unsigned EIP-712 payload of any intent (`typed-data`, seed `papertrade_build_typed_data`).
//! Nothing is signed or sent.

use alloy_primitives::Address;
use serde_json::{Map, Value, json};

use crate::client::market_data::MarketData;
use crate::protocol::eip712::{
    CancelIntent, Claim, Close, Intent, IntentKind, OpenPosition, RegisterSessionKey, Stake,
    Strictness, Unstake, WithdrawToCore, intent_id, typed_data_json,
};
use crate::protocol::math::{OpenCheck, check_open};
use crate::protocol::order::Deadlines;

use super::{ReportError, input};

/// `kind` names the intent type, `message` its fields (a JSON object); `signer` adds the intent
/// id. The payload is for another wallet to sign, so a deadline left out is
/// `deadlines.elsewhere_s` (an hour, as the browser terminal signs), not the short deadline of
/// the intents this client signs itself; either way the answer's `deadline` says when it lapses.
pub fn typed_data(
    kind: &str,
    message: Value,
    signer: Option<&str>,
    deadlines: &Deadlines,
) -> Result<Value, ReportError> {
    let kind = IntentKind::parse(kind).ok_or_else(|| {
        let names: Vec<&str> = IntentKind::ALL.iter().map(|k| k.name()).collect();
        ReportError::input(
            "type",
            format!(
                "must be one of {}, got {:?}",
                names.join(", "),
                crate::text::sanitize_line(kind, 40)
            ),
        )
    })?;
    let Value::Object(message) = message else {
        return Err(ReportError::input("message", "must be a JSON object"));
    };
    let signer = signer.map(|s| input::address("signer", s)).transpose()?;
    let ttl = deadlines.elsewhere_s;
    match kind {
        IntentKind::RegisterSessionKey => {
            build::<RegisterSessionKey>(message, signer, ttl, no_checks)
        }
        IntentKind::OpenPosition => build::<OpenPosition>(message, signer, ttl, open_checks),
        IntentKind::Close => build::<Close>(message, signer, ttl, no_checks),
        IntentKind::WithdrawToCore => build::<WithdrawToCore>(message, signer, ttl, no_checks),
        IntentKind::Stake => build::<Stake>(message, signer, ttl, no_checks),
        IntentKind::Unstake => build::<Unstake>(message, signer, ttl, no_checks),
        IntentKind::Claim => build::<Claim>(message, signer, ttl, no_checks),
        IntentKind::CancelIntent => build::<CancelIntent>(message, signer, ttl, no_checks),
    }
}

/// Types whose rules need no market parameters.
fn no_checks<I>(_: &I) -> Result<Option<Value>, ReportError> {
    Ok(None)
}

/// What can be known offline about an open: the §5.4 checks that depend only on the market's
/// parameters (instrument, leverage, margin and notional bounds), run against the shipped launch
/// parameters. What depends on the live exchange is named, not guessed.
fn open_checks(open: &OpenPosition) -> Result<Option<Value>, ReportError> {
    let launch = MarketData::offline();
    let Some(market) = launch.state.market_by_id(open.instrumentId) else {
        let known: Vec<String> = launch
            .state
            .instruments
            .iter()
            .map(|i| format!("{} ({})", i.id, i.symbol))
            .collect();
        return Err(ReportError::input(
            "message",
            format!(
                "instrumentId: no market {} in the launch parameters; markets: {}",
                open.instrumentId,
                known.join(", ")
            ),
        ));
    };
    check_open(&OpenCheck {
        state: &launch.state,
        market,
        is_long: open.isLong,
        margin: open.size,
        leverage: open.leverage,
        use_debt: open.useDebt,
        mark: None,
        funds: None,
        positions: None,
        queued: None,
    })
    .map_err(|r| {
        ReportError::input(
            "message",
            format!("the relayer would refuse this open ({}): {r}", r.code()),
        )
    })?;
    Ok(Some(json!({
        "checkedAgainst": "launch parameters (mainnet /state/trading of 2026-10-18)",
        "passed": ["instrument", "leverage", "margin minimum", "notional bounds"],
        "notCheckedOffline": ["live market status and intake switches", "available balance", "open-interest caps", "one side per market", "session key registration"],
    })))
}

fn build<I: Intent>(
    mut message: Map<String, Value>,
    signer: Option<Address>,
    ttl_s: u64,
    checks: impl Fn(&I) -> Result<Option<Value>, ReportError>,
) -> Result<Value, ReportError> {
    let now = crate::clock::now_unix_s();
    let mut defaulted = Vec::new();
    if I::LANE.is_some() && !message.contains_key("nonce") {
        message.insert(
            "nonce".into(),
            Value::String(crate::client::ledger::seed_nonce().to_string()),
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
        .map_err(|e| ReportError::input("message", e))?;
    let deadline = deadline_json(&message["deadline"], now);
    intent
        .rules()
        .map_err(|e| ReportError::input("message", e))?;
    let checks = checks(&intent)?;
    let role = if I::SESSION_SIGNED {
        "session key"
    } else {
        "wallet"
    };
    if let Some(s) = signer {
        if !I::SESSION_SIGNED && s != intent.user() {
            return Err(ReportError::input(
                "signer",
                format!(
                    "{} is signed by the wallet itself (user {:#x})",
                    I::NAME,
                    intent.user()
                ),
            ));
        }
        if I::SESSION_SIGNED && s == intent.user() {
            return Err(ReportError::input(
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
