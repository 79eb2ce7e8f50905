//! `papertrade-tui typed-data`: the unsigned EIP-712 payload of any intent (seed
//! `papertrade_build_typed_data`), built by `report::typed_data`. Nothing is signed or sent.

use serde_json::Value;

use clap::Args;

use super::Context;
use super::output::say;
use super::output::{CliError, print_json};

#[derive(Debug, Args)]
pub(crate) struct TypedDataArgs {
    /// RegisterSessionKey, OpenPosition, Close, WithdrawToCore, Stake, Unstake, Claim or CancelIntent.
    #[arg(long = "type", value_name = "TYPE")]
    pub kind: String,
    /// The message as a JSON object; uints as decimal strings or numbers. nonce and deadline
    /// default when omitted.
    #[arg(long)]
    pub message: String,
    /// The address that will sign: adds the intent id to the output.
    #[arg(long)]
    pub signer: Option<String>,
    /// Warn about an open's market limits from the shipped launch parameters; no network.
    #[arg(long)]
    pub offline: bool,
}

pub async fn run(ctx: &Context, a: TypedDataArgs) -> Result<(), CliError> {
    let message = super::args::json_text("message", &a.message)?;
    let out = crate::answers::typed_data::typed_data(
        &a.kind,
        message,
        a.signer.as_deref(),
        &ctx.deadlines,
        (!a.offline).then_some(&ctx.http),
    )
    .await?;
    if ctx.json {
        print_json(&out);
    } else {
        print_human(&out);
    }
    Ok(())
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
    if let Some(d) = out["deadline"]["text"].as_str() {
        say!("deadline    {d}");
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
            "checked     {} against {}",
            list("checked"),
            c["checkedAgainst"].as_str().unwrap_or("")
        );
        say!("not checked {} (they need the account)", list("notChecked"));
    }
    for w in out["warnings"].as_array().into_iter().flatten() {
        say!("warning     {}", w.as_str().unwrap_or(""));
    }
    say!("\neth_signTypedData_v4 typed data:");
    say!(
        "{}",
        serde_json::to_string_pretty(&out["typedData"]).expect("JSON")
    );
    say!("\nNothing was signed or sent.");
}
