//! `papertrade-tui typed-data`: the unsigned EIP-712 payload of any intent (seed
//! `papertrade_build_typed_data`). Nothing is signed or sent.

use alloy_primitives::Address;
use serde_json::{Map, Value, json};

use crate::protocol::eip712::{
    CancelIntent, Claim, Close, Intent, IntentKind, OpenPosition, RegisterSessionKey, Stake,
    Strictness, Unstake, WithdrawToCore, intent_id, typed_data_json,
};

use crate::protocol::math::{OpenCheck, check_open};

use super::output::say;
use super::output::{CliError, print_json};
use super::{Context, TypedDataArgs, args};

pub fn run(ctx: &Context, a: TypedDataArgs) -> Result<(), CliError> {
    let kind = IntentKind::parse(&a.kind).ok_or_else(|| {
        let names: Vec<&str> = IntentKind::ALL.iter().map(|k| k.name()).collect();
        CliError::input(
            "type",
            format!("must be one of {}, got {:?}", names.join(", "), a.kind),
        )
    })?;
    let message: Value = serde_json::from_str(&a.message)
        .map_err(|e| CliError::input("message", format!("is not JSON: {e}")))?;
    let Value::Object(message) = message else {
        return Err(CliError::input("message", "must be a JSON object"));
    };
    let signer = a
        .signer
        .as_deref()
        .map(|s| args::address("signer", s))
        .transpose()?;
    // A deadline left out follows the same policy as the commands' own intents.
    let ttl = ctx.deadlines.of(kind);
    let out = match kind {
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
    }?;
    if ctx.json {
        print_json(&out);
    } else {
        print_human(&out);
    }
    Ok(())
}

/// Types whose rules need no market parameters.
fn no_checks<I>(_: &I) -> Result<Option<Value>, CliError> {
    Ok(None)
}

/// What can be known offline about an open: the §5.4 checks that depend only on the market's
/// parameters (instrument, leverage, margin and notional bounds), run against the shipped launch
/// parameters. What depends on the live exchange is named, not guessed.
fn open_checks(open: &OpenPosition) -> Result<Option<Value>, CliError> {
    let launch = super::market_data::MarketData::offline();
    let Some(market) = launch.state.market_by_id(open.instrumentId) else {
        let known: Vec<String> = launch
            .state
            .instruments
            .iter()
            .map(|i| format!("{} ({})", i.id, i.symbol))
            .collect();
        return Err(CliError::input(
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
        CliError::input(
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
    checks: impl Fn(&I) -> Result<Option<Value>, CliError>,
) -> Result<Value, CliError> {
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
        .map_err(|e| CliError::input("message", e))?;
    intent.rules().map_err(|e| CliError::input("message", e))?;
    let checks = checks(&intent)?;
    let role = if I::SESSION_SIGNED {
        "session key"
    } else {
        "wallet"
    };
    if let Some(s) = signer {
        if !I::SESSION_SIGNED && s != intent.user() {
            return Err(CliError::input(
                "signer",
                format!(
                    "{} is signed by the wallet itself (user {:#x})",
                    I::NAME,
                    intent.user()
                ),
            ));
        }
        if I::SESSION_SIGNED && s == intent.user() {
            return Err(CliError::input(
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

fn print_human(out: &Value) {
    let s = |k: &str| out[k].as_str().unwrap_or("").to_string();
    say!(
        "{} (unsigned; signed by the {})",
        s("primaryType"),
        s("signedBy")
    );
    say!(
        "domain      {} · separator {}",
        s("domainName"),
        s("domainSeparator")
    );
    say!("struct hash {}", s("structHash"));
    say!("digest      {}", s("digest"));
    if let Some(id) = out["intentId"].as_str() {
        say!("intent id   {id} (when signed by {})", s("signer"));
    }
    if let Some(d) = out["defaulted"].as_array().filter(|d| !d.is_empty()) {
        let names: Vec<&str> = d.iter().filter_map(Value::as_str).collect();
        say!("defaulted   {}", names.join(", "));
    }
    if let Some(c) = out["checks"].as_object() {
        let list = |k: &str| {
            c[k].as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default()
        };
        say!(
            "checked     {} against the {}",
            list("passed"),
            c["checkedAgainst"].as_str().unwrap_or("")
        );
        say!(
            "not checked {} (they need the live exchange)",
            list("notCheckedOffline")
        );
    }
    say!("\neth_signTypedData_v4 typed data:");
    say!(
        "{}",
        serde_json::to_string_pretty(&out["typedData"]).expect("JSON")
    );
    say!("\nNothing was signed or sent.");
}
