//! `papertrade-tui key new | register | show | clear`.

use alloy_primitives::Address;
use serde_json::json;

use crate::client::intents::{Submission, submit};
use crate::client::ledger::{AuditLog, NonceStore};
use crate::clock::now_unix_s;
use crate::keys::KeyMeta;
use crate::protocol::eip712::{NonceLane, RegisterSessionKey};

use super::output::{CliError, expect_outcomes, print_json};
use super::session::{
    LiveAccount, SESSION_TTL_SECS, confirm, effective_expiry, key_error, owner, owner_sign,
    passphrase, renewal_warning, session_keys,
};
use super::{Context, KeyCommand};

fn time_text(unix_s: u64) -> String {
    let now = now_unix_s();
    if unix_s > now {
        let left = unix_s - now;
        format!(
            "in {}d {}h {}m",
            left / 86_400,
            left % 86_400 / 3600,
            left % 3600 / 60
        )
    } else {
        format!("{}s ago", now - unix_s)
    }
}

fn meta_json(meta: &KeyMeta) -> serde_json::Value {
    json!({
        "owner": format!("{:#x}", meta.owner),
        "sessionKey": format!("{:#x}", meta.key),
        "backend": meta.backend.label(),
        "createdAt": meta.created_at,
        "localExpiry": meta.expiry,
    })
}

pub async fn run(ctx: &Context, command: KeyCommand) -> Result<(), CliError> {
    let owner = owner(ctx)?;
    match command {
        KeyCommand::New => new(ctx, owner),
        KeyCommand::Register(a) => register(ctx, owner, &a.signing, a.yes, a.wait).await,
        KeyCommand::Show => show(ctx, owner).await,
        KeyCommand::Clear => {
            let removed = session_keys(ctx)?.clear(owner).map_err(key_error)?;
            let labels: Vec<&str> = removed.iter().map(|b| b.label()).collect();
            if ctx.json {
                print_json(&json!({"owner": format!("{owner:#x}"), "removedFrom": labels}));
            } else if labels.is_empty() {
                println!("no session key for {owner:#x} was stored");
            } else {
                println!(
                    "session key of {owner:#x} removed from: {}",
                    removed
                        .iter()
                        .map(|b| b.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            Ok(())
        }
    }
}

fn new(ctx: &Context, owner: Address) -> Result<(), CliError> {
    let keys = session_keys(ctx)?;
    let now = now_unix_s();
    let (_, meta) = keys
        .generate(owner, now + SESSION_TTL_SECS, now, || {
            passphrase(
                "PAPERTRADE_TUI_PASSPHRASE",
                "New passphrase for the session keystore: ",
            )
        })
        .map_err(key_error)?;
    if ctx.json {
        print_json(&json!({"created": meta_json(&meta), "registered": false}));
    } else {
        println!("session key {:#x} for {owner:#x}", meta.key);
        println!(
            "stored in the {} ({})",
            meta.backend,
            ctx.data_dir.display()
        );
        println!(
            "local expiry {} · not registered yet: run `papertrade-tui key register`",
            time_text(meta.expiry)
        );
        println!("It can open, close and cancel; it can never withdraw.");
    }
    Ok(())
}

async fn register(
    ctx: &Context,
    owner: Address,
    signing: &super::OwnerSigning,
    yes: bool,
    wait: super::WaitArgs,
) -> Result<(), CliError> {
    let keys = session_keys(ctx)?;
    let meta = keys.meta(owner).map_err(key_error)?.ok_or_else(|| {
        CliError::Config(format!(
            "no session key for {owner:#x}: run `papertrade-tui key new` first"
        ))
    })?;
    let now = now_unix_s();
    if meta.expiry <= now + crate::protocol::order::Deadlines::default().register_s {
        return Err(CliError::Config(
            "the local key expires within the hour: run `key new` for a fresh one".into(),
        ));
    }
    let mut live = LiveAccount::open(ctx, owner).await?;
    if !signing.external || !ctx.json {
        eprintln!(
            "Register session key {:#x} for {owner:#x} until {} (zero fee address). It can trade, never withdraw.",
            meta.key,
            time_text(meta.expiry)
        );
    }
    if signing.owner_keystore.is_some() {
        confirm(
            yes,
            "Sign RegisterSessionKey with the owner's keystore and send it?",
        )?;
    }
    let nonce = NonceStore::new(&ctx.data_dir)
        .next(owner, NonceLane::Exchange)
        .map_err(|e| CliError::Local(format!("nonce store: {e}")))?;
    let intent = RegisterSessionKey {
        user: owner,
        key: meta.key,
        expiry: meta.expiry,
        feeAddress: Address::ZERO,
        nonce,
        deadline: now + crate::protocol::order::Deadlines::default().register_s,
    };
    let signed = owner_sign(ctx, signing, owner, intent)?;
    let audit = AuditLog::new(&ctx.data_dir);
    let details = json!({"sessionKey": format!("{:#x}", meta.key), "expiry": meta.expiry});
    let submission = submit(&ctx.http, &audit, &signed, details)
        .await
        .map_err(|e| CliError::Malformed(e.to_string()))?;
    let id = signed.intent_id();
    report_submission(ctx, &submission, id)?;
    let outcome = live
        .outcome(id, wait.duration(), &AuditLog::new(&ctx.data_dir))
        .await;
    let registered = live.state.session_key_expiry(meta.key);
    if ctx.json {
        print_json(
            &json!({"intentId": format!("{id:#x}"), "outcome": outcome, "registeredExpiry": registered, "key": meta_json(&meta)}),
        );
    } else {
        match registered {
            Some(exp) => println!(
                "registered: {:#x} can trade for {owner:#x} until {}",
                meta.key,
                time_text(exp)
            ),
            None => {
                println!("registration {outcome}; the key is not in the account's sessionKeys yet")
            }
        }
    }
    expect_outcomes("succeeded", [outcome])
}

/// Say what happened to a send; refusals and unknowns are errors for the caller to see.
pub fn report_submission(
    ctx: &Context,
    submission: &Submission,
    id: alloy_primitives::B256,
) -> Result<(), CliError> {
    match submission {
        Submission::Accepted(a) => {
            if !ctx.json {
                eprintln!(
                    "accepted: intent {id:#x} is {}",
                    serde_json::to_value(a.state)
                        .expect("JSON")
                        .as_str()
                        .unwrap_or("")
                );
            }
            Ok(())
        }
        Submission::Refused {
            status,
            code,
            message,
        } => Err(CliError::Refused {
            code: code.clone(),
            message: crate::protocol::relayer::explain_refusal(
                code,
                &format!("{message} (HTTP {status}); nothing was queued"),
            ),
        }),
        Submission::Unknown { reason } => {
            if !ctx.json {
                eprintln!(
                    "no answer ({reason}); not resending: watching the account stream for intent {id:#x}"
                );
            }
            Ok(())
        }
    }
}

async fn show(ctx: &Context, owner: Address) -> Result<(), CliError> {
    let meta = session_keys(ctx)?.meta(owner).map_err(key_error)?;
    let Some(meta) = meta else {
        if ctx.json {
            print_json(&json!({"owner": format!("{owner:#x}"), "sessionKey": null}));
        } else {
            println!("no session key for {owner:#x}: run `papertrade-tui key new`");
        }
        return Ok(());
    };
    let live = LiveAccount::open(ctx, owner).await?;
    let registered = live.state.session_key_expiry(meta.key);
    let effective = effective_expiry(&meta, &live.state);
    let now = now_unix_s();
    if ctx.json {
        let mut v = meta_json(&meta);
        v["registeredExpiry"] = json!(registered);
        v["effectiveExpiry"] = json!(effective);
        v["usable"] = json!(effective.is_some_and(|e| e > now));
        print_json(&v);
        return Ok(());
    }
    println!("session key {:#x} for {owner:#x}", meta.key);
    println!("stored in   the {}", meta.backend);
    println!("local       expires {}", time_text(meta.expiry));
    match registered {
        Some(r) => println!("registered  expires {}", time_text(r)),
        None => println!("registered  no: run `papertrade-tui key register`"),
    }
    if let Some(e) = effective {
        if e <= now {
            println!("EXPIRED: it can no longer sign; run `key new` and `key register`");
        } else if let Some(w) = renewal_warning(e) {
            println!("{w}");
        }
    }
    Ok(())
}
