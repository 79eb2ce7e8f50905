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
/// id. A deadline left out follows `deadlines`, the same policy as the commands' own intents.
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
    let ttl = deadlines.of(kind);
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
        "checks": checks,
        "typedData": typed,
        "request": {
            "method": "eth_signTypedData_v4",
            "params": [format!("{request_signer:#x}"), serde_json::to_string(&typed).expect("JSON")],
        },
    }))
}
