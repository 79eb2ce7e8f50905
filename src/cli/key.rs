//! `papertrade-tui key new | register | show | clear | owner-new`.

use std::path::Path;

use alloy_primitives::Address;
use serde_json::json;

use clap::{Args, Subcommand};

use crate::client::intents::Submission;
use crate::client::session_key::{RegistrationError, registration, send_registration};
use crate::clock::now_unix_s;
use crate::keys::{
    KeyError, KeyMeta, OWNER_PASSPHRASE_ENV, PASSPHRASE_ENV, SESSION_TTL_SECS, ScryptCost,
    create_owner_keystore,
};
use crate::store::ledger::AuditLog;

use super::Context;
use super::args::WaitArgs;
use super::output::say;
use super::output::{CliError, expect_outcomes, print_json};
use super::session::{
    LiveAccount, OwnerSigning, confirm, effective_expiry, key_error, new_passphrase, owner,
    owner_sign, renewal_warning, session_keys,
};

#[derive(Debug, Subcommand)]
pub(crate) enum KeyCommand {
    /// Generate a fresh session key for the owner and store it (keyring, else keystore file).
    New(NewKeyArgs),
    /// Register the session key: the owner's wallet signs RegisterSessionKey.
    Register(RegisterArgs),
    /// Show the session key: address, backend, local and registered expiry.
    Show,
    /// Remove the session key from wherever it is stored.
    Clear,
    /// For practice: generate an owner wallet and write it as a keystore file (a hot key on
    /// disk; for real funds use your own wallet). Needs no owner configured.
    OwnerNew(OwnerNewArgs),
}

#[derive(Debug, Args)]
pub(crate) struct OwnerNewArgs {
    /// Where to write the Web3 Secret Storage file (refused if anything is there); passphrase
    /// prompted twice or from PAPERTRADE_TUI_OWNER_PASSPHRASE.
    #[arg(long, value_name = "PATH")]
    pub keystore: std::path::PathBuf,
}

#[derive(Debug, Args)]
pub(crate) struct NewKeyArgs {
    /// Replace a stored key even if the exchange has it registered and unexpired (the new key
    /// then needs the owner's signature, `key register`, before it can trade).
    #[arg(long)]
    pub replace: bool,
}

#[derive(Debug, Args)]
pub(crate) struct RegisterArgs {
    #[command(flatten)]
    pub signing: OwnerSigning,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,
}

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
    // The practice owner is made before there is one to configure.
    if let KeyCommand::OwnerNew(a) = &command {
        return owner_new(ctx, &a.keystore);
    }
    let owner = owner(ctx)?;
    match command {
        KeyCommand::OwnerNew(_) => unreachable!("handled above"),
        KeyCommand::New(a) => new(ctx, owner, a.replace).await,
        KeyCommand::Register(a) => register(ctx, owner, &a.signing, a.yes, a.wait).await,
        KeyCommand::Show => show(ctx, owner).await,
        KeyCommand::Clear => {
            let removed = session_keys(ctx)?.clear(owner).map_err(key_error)?;
            let labels: Vec<&str> = removed.iter().map(|b| b.label()).collect();
            if ctx.json {
                print_json(&json!({"owner": format!("{owner:#x}"), "removedFrom": labels}));
            } else if labels.is_empty() {
                say!("no session key for {owner:#x} was stored");
            } else {
                say!(
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

async fn new(ctx: &Context, owner: Address, replace: bool) -> Result<(), CliError> {
    let keys = session_keys(ctx)?;
    let now = now_unix_s();
    let replacing = match keys.meta(owner).map_err(key_error)? {
        Some(old) if !replace => {
            refuse_replacing_a_live_key(ctx, owner, &old, now).await?;
            Some(old)
        }
        old => old,
    };
    let (_, meta) = keys
        .generate(owner, now + SESSION_TTL_SECS, now, || {
            new_passphrase(PASSPHRASE_ENV, "New passphrase for the session keystore: ")
        })
        .map_err(key_error)?;
    let replaced = replacing.as_ref().map(|old| format!("{:#x}", old.key));
    if ctx.json {
        print_json(
            &json!({"created": meta_json(&meta), "registered": false, "replaced": replaced}),
        );
    } else {
        if let Some(old) = &replaced {
            say!("replaced session key {old}");
        }
        say!("session key {:#x} for {owner:#x}", meta.key);
        say!(
            "stored in the {} ({})",
            meta.backend,
            ctx.data_dir.display()
        );
        say!(
            "local expiry {} · not registered yet: run `papertrade-tui key register`",
            time_text(meta.expiry)
        );
        say!("It can open, close and cancel; it can never withdraw.");
    }
    Ok(())
}

/// Said wherever `key owner-new` reports: what the file it wrote is, and what it is not.
const PRACTICE_NOTE: &str = "For practice: this is a hot key in a file on this disk, guarded by \
     its passphrase alone. For real funds use your own wallet: any Web3 Secret Storage keystore \
     works with --owner-keystore (Foundry, geth), or sign in your wallet with --external.";

/// `key owner-new --keystore PATH`: a fresh owner wallet in a keystore file at exactly `path`.
/// Checked before the passphrase is asked for: an existing `path` (it may be someone's key) and
/// the scrypt cost. The secret is never shown; the address and the export line are.
fn owner_new(ctx: &Context, path: &Path) -> Result<(), CliError> {
    match path.symlink_metadata() {
        Ok(_) => {
            return Err(CliError::input(
                "keystore",
                format!(
                    "{} already exists; nothing was written (choose a new path: an existing \
                     keystore is never replaced)",
                    path.display()
                ),
            ));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(CliError::input(
                "keystore",
                format!("cannot check {}: {e}", path.display()),
            ));
        }
    }
    let cost = ScryptCost::from_env().map_err(CliError::Environment)?;
    let owner_error = |e: KeyError| CliError::Key(format!("owner keystore: {e}"));
    let pass = new_passphrase(
        OWNER_PASSPHRASE_ENV,
        "New passphrase for the owner keystore: ",
    )
    .map_err(owner_error)?;
    let address = create_owner_keystore(path, &pass, cost).map_err(owner_error)?;
    let shown = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let export = format!("export PAPERTRADE_TUI_OWNER={address:#x}");
    if ctx.json {
        print_json(&json!({
            "address": format!("{address:#x}"),
            "keystore": shown.display().to_string(),
            "export": export,
            "practice": true,
            "note": PRACTICE_NOTE,
        }));
    } else {
        say!("owner wallet {address:#x}");
        say!(
            "keystore     {} (Web3 Secret Storage, mode 0600)",
            shown.display()
        );
        say!("{PRACTICE_NOTE}");
        say!(
            "Make it the owner of the commands that follow (or `owner = \"{address:#x}\"` in the config file):"
        );
        say!("{export}");
    }
    Ok(())
}

/// A stored key the exchange has registered and unexpired is the one trading works with: a new
/// key silently put in its place cannot sign until the owner signs again. Refuse unless
/// `--replace`, and refuse when the exchange cannot say (an unchecked replacement is the same
/// surprise). An unregistered or expired key is replaced without asking.
async fn refuse_replacing_a_live_key(
    ctx: &Context,
    owner: Address,
    old: &KeyMeta,
    now: u64,
) -> Result<(), CliError> {
    let live = LiveAccount::open(&ctx.http, owner, Some(&ctx.data_dir)).await.map_err(|e| {
        CliError::input(
            "replace",
            format!(
                "session key {:#x} is stored for {owner:#x} and the exchange could not be asked \
                 whether it is registered ({e}); pass --replace to replace it anyway",
                old.key
            ),
        )
    })?;
    match effective_expiry(old, &live.state) {
        Some(expiry) if expiry > now => Err(CliError::input(
            "replace",
            format!(
                "session key {:#x} is registered for {owner:#x} and can trade until {}. A new key \
                 cannot trade until the owner signs RegisterSessionKey for it (`key register`); \
                 to extend this one instead run `key register`. Pass --replace to replace it",
                old.key,
                time_text(expiry)
            ),
        )),
        _ => Ok(()),
    }
}

async fn register(
    ctx: &Context,
    owner: Address,
    signing: &OwnerSigning,
    yes: bool,
    wait: WaitArgs,
) -> Result<(), CliError> {
    let keys = session_keys(ctx)?;
    let meta = keys.meta(owner).map_err(key_error)?.ok_or_else(|| {
        CliError::Key(format!(
            "no session key for {owner:#x}: run `papertrade-tui key new` first"
        ))
    })?;
    let now = now_unix_s();
    let mut live = LiveAccount::open(&ctx.http, owner, Some(&ctx.data_dir)).await?;
    let intent = registration(&ctx.data_dir, owner, meta.key, now, &ctx.deadlines)
        .map_err(|e| CliError::Local(format!("nonce store: {e}")))?;
    let expiry = intent.expiry;
    let renewing = live.state.session_key_expiry(meta.key);
    if !signing.external || !ctx.json {
        eprintln!(
            "{} session key {:#x} for {owner:#x} until {} (zero fee address). It can trade, never withdraw.",
            if renewing.is_some() {
                "Extend"
            } else {
                "Register"
            },
            meta.key,
            time_text(expiry)
        );
    }
    if signing.owner_keystore.is_some() {
        confirm(
            yes,
            "Sign RegisterSessionKey with the owner's keystore and send it?",
        )?;
    }
    let signed = owner_sign(ctx, signing, owner, intent)?;
    let meta = KeyMeta { expiry, ..meta };
    let submission = send_registration(&ctx.http, &ctx.data_dir, &keys, &signed)
        .await
        .map_err(|e| match e {
            RegistrationError::Key(e) => key_error(e),
            RegistrationError::Submit(e) => CliError::Malformed(e.to_string()),
        })?;
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
            Some(exp) => say!(
                "registered: {:#x} can trade for {owner:#x} until {}",
                meta.key,
                time_text(exp)
            ),
            None => {
                say!("registration {outcome}; the key is not in the account's sessionKeys yet")
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
        } => Err(CliError::refused(
            code,
            crate::protocol::relayer::explain_refusal(
                code,
                &format!("{message} (HTTP {status}); nothing was queued"),
            ),
        )),
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
            say!("no session key for {owner:#x}: run `papertrade-tui key new`");
        }
        return Ok(());
    };
    let live = LiveAccount::open(&ctx.http, owner, Some(&ctx.data_dir)).await?;
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
    say!("session key {:#x} for {owner:#x}", meta.key);
    say!("stored in   the {}", meta.backend);
    say!("local       expires {}", time_text(meta.expiry));
    match registered {
        Some(r) => say!("registered  expires {}", time_text(r)),
        None => say!("registered  no: run `papertrade-tui key register`"),
    }
    if let Some(e) = effective {
        if e <= now {
            say!("EXPIRED: it can no longer sign; run `key new` and `key register`");
        } else if let Some(w) = renewal_warning(e) {
            say!("{w}");
        }
    }
    Ok(())
}
