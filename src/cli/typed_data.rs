//! `papertrade-tui typed-data`: the unsigned EIP-712 payload of any intent (seed
//! `papertrade_build_typed_data`). Nothing is signed or sent.

use alloy_primitives::Address;
use serde_json::{Map, Value, json};

use crate::protocol::eip712::{
    CancelIntent, Claim, Close, Intent, IntentKind, OpenPosition, RegisterSessionKey, Stake,
    Strictness, Unstake, WithdrawToCore, intent_id, typed_data_json,
};

use super::output::{CliError, print_json};
use super::{Context, TypedDataArgs, args};

/// Intents live an hour by default, as the SDK's (§4.3).
pub const DEFAULT_TTL_SECS: u64 = 3600;

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
    let out = match kind {
        IntentKind::RegisterSessionKey => build::<RegisterSessionKey>(message, signer),
        IntentKind::OpenPosition => build::<OpenPosition>(message, signer),
        IntentKind::Close => build::<Close>(message, signer),
        IntentKind::WithdrawToCore => build::<WithdrawToCore>(message, signer),
        IntentKind::Stake => build::<Stake>(message, signer),
        IntentKind::Unstake => build::<Unstake>(message, signer),
        IntentKind::Claim => build::<Claim>(message, signer),
        IntentKind::CancelIntent => build::<CancelIntent>(message, signer),
    }?;
    if ctx.json {
        print_json(&out);
    } else {
        print_human(&out);
    }
    Ok(())
}

fn build<I: Intent>(
    mut message: Map<String, Value>,
    signer: Option<Address>,
) -> Result<Value, CliError> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut defaulted = Vec::new();
    if I::LANE.is_some() && !message.contains_key("nonce") {
        message.insert(
            "nonce".into(),
            Value::String(crate::client::ledger::seed_nonce().to_string()),
        );
        defaulted.push("nonce");
    }
    if !message.contains_key("deadline") {
        message.insert(
            "deadline".into(),
            Value::String((now + DEFAULT_TTL_SECS).to_string()),
        );
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
        "typedData": typed,
        "request": {
            "method": "eth_signTypedData_v4",
            "params": [format!("{request_signer:#x}"), serde_json::to_string(&typed).expect("JSON")],
        },
    }))
}

fn print_human(out: &Value) {
    let s = |k: &str| out[k].as_str().unwrap_or("").to_string();
    println!(
        "{} (unsigned; signed by the {})",
        s("primaryType"),
        s("signedBy")
    );
    println!(
        "domain      {} · separator {}",
        s("domainName"),
        s("domainSeparator")
    );
    println!("struct hash {}", s("structHash"));
    println!("digest      {}", s("digest"));
    if let Some(id) = out["intentId"].as_str() {
        println!("intent id   {id} (when signed by {})", s("signer"));
    }
    if let Some(d) = out["defaulted"].as_array().filter(|d| !d.is_empty()) {
        let names: Vec<&str> = d.iter().filter_map(Value::as_str).collect();
        println!("defaulted   {}", names.join(", "));
    }
    println!("\neth_signTypedData_v4 typed data:");
    println!(
        "{}",
        serde_json::to_string_pretty(&out["typedData"]).expect("JSON")
    );
    println!("\nNothing was signed or sent.");
}
