//! What the account commands share: the owner, the session key and its expiry, a live account
//! (stream) to check against and learn outcomes from, confirmation, and the owner's signature.

use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

use alloy_primitives::{Address, B256};

use clap::Args;

use crate::client::intents::{record_fate, record_stopped_waiting};
use crate::store::ledger::AuditLog;

use crate::clock::now_unix_s;
use crate::events::account::StreamEvent;
use crate::events::intents::{IntentWatch, Resolution};
use crate::keys::{
    Backend, KeyError, KeyMeta, Passphrase, ScryptCost, SessionKeys, load_owner_keystore,
    prompt_new_passphrase, prompt_passphrase,
};
use crate::protocol::account::AccountState;
use crate::protocol::eip712::{
    SessionSigner, Signed, WalletIntent, WalletSigner, parse_signature, sign_request_json,
};
use crate::protocol::hypercore_send::{SignedSpotSend, SpotSend};

pub use crate::client::live_account::LiveAccount;

use super::output::CliError;
use super::output::say;
use super::{Context, args};

/// How the owner's wallet signs (register, withdraw).
#[derive(Debug, Args)]
pub(crate) struct OwnerSigning {
    /// The owner's keystore file (Foundry/geth format); passphrase prompted or from
    /// PAPERTRADE_TUI_OWNER_PASSPHRASE.
    #[arg(
        long = "owner-keystore",
        value_name = "PATH",
        conflicts_with = "external"
    )]
    pub owner_keystore: Option<std::path::PathBuf>,
    /// Sign in your own wallet: print the eth_signTypedData_v4 JSON, read the signature from stdin.
    #[arg(long)]
    pub external: bool,
    /// Also write the typed data to this file (with --external).
    #[arg(long = "typed-data-out", value_name = "FILE")]
    pub typed_data_out: Option<std::path::PathBuf>,
}

use crate::keys::RENEW_WITHIN_SECS;

pub fn owner(ctx: &Context) -> Result<Address, CliError> {
    let text = ctx.owner.as_deref().ok_or_else(|| {
        CliError::input(
            "owner",
            "is required: pass --owner 0x… or set owner in the config file",
        )
    })?;
    let owner = args::address("owner", text)?;
    if owner == Address::ZERO {
        return Err(CliError::input(
            "owner",
            "is the zero address, which no one can sign for",
        ));
    }
    Ok(owner)
}

pub fn forced_backend(ctx: &Context) -> Result<Option<Backend>, CliError> {
    ctx.key_backend
        .as_deref()
        .map(backend)
        .transpose()
        .map_err(|m| CliError::input("key-backend", m))
}

/// `keyring` or `keystore` (any case), or why not. Checked for every command when the program
/// starts, so a typo is never ignored by a command that stores no key.
pub fn backend(text: &str) -> Result<Backend, String> {
    match text.to_ascii_lowercase().as_str() {
        "keyring" => Ok(Backend::Keyring),
        "keystore" => Ok(Backend::Keystore),
        _ => Err(format!(
            "must be keyring or keystore, got {:?}",
            crate::text::sanitize_line(text, 24)
        )),
    }
}

/// The session keys of the data dir; new keystores at the standard scrypt cost unless
/// `$PAPERTRADE_TUI_KEYSTORE_SCRYPT_LOG_N` says otherwise (tests and slow machines).
pub fn session_keys(ctx: &Context) -> Result<SessionKeys, CliError> {
    let cost = ScryptCost::from_env().map_err(CliError::Environment)?;
    Ok(SessionKeys::new(&ctx.data_dir, forced_backend(ctx)?).with_scrypt(cost))
}

/// A passphrase from `var`, else asked on the terminal.
pub fn passphrase(var: &str, prompt: &str) -> Result<Passphrase, KeyError> {
    match Passphrase::from_env(var) {
        Some(p) => Ok(p),
        None => prompt_passphrase(prompt),
    }
}

/// A passphrase for a keystore about to be written: from `var`, else typed twice on the
/// terminal, so a typo cannot strand the key it protects.
pub fn new_passphrase(var: &str, prompt: &str) -> Result<Passphrase, KeyError> {
    match Passphrase::from_env(var) {
        Some(p) => Ok(p),
        None => prompt_new_passphrase(prompt),
    }
}

pub fn key_error(e: KeyError) -> CliError {
    CliError::Key(format!("session key: {e}"))
}

/// The session key's effective expiry: the earlier of the local and the registered one.
pub fn effective_expiry(meta: &KeyMeta, account: &AccountState) -> Option<u64> {
    account
        .session_key_expiry(meta.key)
        .map(|registered| registered.min(meta.expiry))
}

/// Unlock the owner's session key and make sure it may still sign: registered and unexpired.
pub fn usable_session_key(
    ctx: &Context,
    owner: Address,
    account: &AccountState,
) -> Result<(SessionSigner, KeyMeta), CliError> {
    let keys = session_keys(ctx)?;
    let meta = keys.meta(owner).map_err(key_error)?.ok_or_else(|| {
        CliError::Key(format!(
            "no session key for {owner:#x}: run `papertrade-tui key new` then `key register`"
        ))
    })?;
    let now = now_unix_s();
    let Some(expiry) = effective_expiry(&meta, account) else {
        return Err(CliError::Key(format!(
            "session key {:#x} is not registered for {owner:#x}: run `papertrade-tui key register`",
            meta.key
        )));
    };
    if expiry <= now {
        return Err(CliError::Key(format!(
            "session key {:#x} expired; nothing was signed. Run `key register` to extend it (the owner signs again)",
            meta.key
        )));
    }
    let (signer, meta) = keys
        .load(owner, || {
            passphrase("PAPERTRADE_TUI_PASSPHRASE", "Session key passphrase: ")
        })
        .map_err(key_error)?
        .ok_or_else(|| {
            CliError::Key("the session key's secret is missing from its backend".into())
        })?;
    Ok((signer, meta))
}

/// A warning when the key is in its last hour (or `None`).
pub fn renewal_warning(expiry: u64) -> Option<String> {
    let now = now_unix_s();
    (expiry > now && expiry - now < RENEW_WITHIN_SECS).then(|| {
        format!(
            "warning: the session key expires in {} min; extend it with `key register`",
            (expiry - now) / 60
        )
    })
}

impl LiveAccount {
    /// Wait until every intent in `watch` resolves or `timeout` passes; the resolutions, in order,
    /// each appended to the audit log, and the closed rows seen on the way.
    pub async fn resolve(
        &mut self,
        watch: &mut IntentWatch,
        timeout: Duration,
        audit: &AuditLog,
    ) -> (
        Vec<(B256, Resolution)>,
        Vec<crate::protocol::account::ClosedPosition>,
    ) {
        // The snapshot already held may show an `unknown` send queued.
        let mut out = watch.on_event(&StreamEvent::Synced(Box::new(self.state.clone())));
        let mut closed = Vec::new();
        let deadline = tokio::time::Instant::now() + timeout;
        while !watch.is_empty() {
            match tokio::time::timeout_at(deadline, self.next()).await {
                Ok(Some(event)) => {
                    if let StreamEvent::Patched { closed: rows, .. } = &event {
                        closed.extend(rows.iter().cloned());
                    }
                    out.extend(watch.on_event(&event));
                }
                Ok(None) | Err(_) => break,
            }
        }
        for (id, r) in &out {
            record_fate(audit, *id, r);
        }
        // Stopped waiting: what is known is recorded now, the fate by whoever sees it later.
        for id in watch.pending_ids() {
            let queued = self.state.operations.iter().any(|o| o.intent_id == id);
            record_stopped_waiting(audit, id, queued);
        }
        (out, closed)
    }
}

impl LiveAccount {
    /// Follow one intent to its fate (recorded in the audit log): its label, or `pending`.
    pub async fn outcome(&mut self, id: B256, timeout: Duration, audit: &AuditLog) -> &'static str {
        let mut watch = IntentWatch::new();
        watch.track(id);
        let (resolved, _) = self.resolve(&mut watch, timeout, audit).await;
        resolved
            .first()
            .map(|(_, r)| r.label())
            .unwrap_or("pending")
    }
}

/// Ask before signing unless `--yes`; without a terminal, `--yes` is required.
pub fn confirm(yes: bool, question: &str) -> Result<(), CliError> {
    if yes {
        return Ok(());
    }
    if !std::io::stdin().is_terminal() {
        return Err(CliError::input(
            "yes",
            "confirmation needed and there is no terminal: review the above and pass --yes",
        ));
    }
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::input("yes", format!("could not read the answer: {e}")))?;
    if matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(())
    } else {
        Err(CliError::input("yes", "not confirmed; nothing was signed"))
    }
}

/// The owner's signature on `intent`: from their keystore file, or from their own wallet through
/// the printed eth_signTypedData_v4 JSON and a pasted signature that must recover to the owner.
pub fn owner_sign<I: WalletIntent>(
    ctx: &Context,
    signing: &OwnerSigning,
    owner: Address,
    intent: I,
) -> Result<Signed<I>, CliError> {
    if let Some(wallet) = owner_wallet(signing, owner)? {
        return wallet
            .sign(intent)
            .map_err(|e| CliError::Local(format!("signing failed: {e}")));
    }
    let signature = pasted_signature(ctx, signing, &sign_request_json(owner, &intent))?;
    Signed::from_signature(intent, signature, owner)
        .map_err(|e| CliError::input("signature", e.to_string()))
}

/// The owner's signature on a HyperCore `spotSend`, the same two ways as [`owner_sign`].
pub fn owner_sign_spot_send(
    ctx: &Context,
    signing: &OwnerSigning,
    owner: Address,
    send: SpotSend,
) -> Result<SignedSpotSend, CliError> {
    if let Some(wallet) = owner_wallet(signing, owner)? {
        return wallet
            .sign_spot_send(send)
            .map_err(|e| CliError::Local(format!("signing failed: {e}")));
    }
    let signature = pasted_signature(ctx, signing, &send.sign_request_json(owner))?;
    SignedSpotSend::from_signature(send, signature, owner)
        .map_err(|e| CliError::input("signature", e.to_string()))
}

/// The owner's wallet unlocked from `--owner-keystore` (and checked to be the owner), `None`
/// for `--external`; an error when neither is given.
fn owner_wallet(signing: &OwnerSigning, owner: Address) -> Result<Option<WalletSigner>, CliError> {
    let Some(path) = &signing.owner_keystore else {
        if signing.external {
            return Ok(None);
        }
        return Err(CliError::input(
            "owner-keystore",
            "the owner's signature is needed: pass --owner-keystore PATH or --external",
        ));
    };
    // Nobody types a passphrase for a file that cannot be a keystore.
    crate::keys::check_keystore_file(path)
        .map_err(|e| CliError::Key(format!("owner keystore: {e}")))?;
    let pass = passphrase(
        "PAPERTRADE_TUI_OWNER_PASSPHRASE",
        "Owner keystore passphrase: ",
    )
    .map_err(key_error)?;
    let wallet = load_owner_keystore(path, &pass)
        .map_err(|e| CliError::Key(format!("owner keystore: {e}")))?;
    if wallet.address() != owner {
        return Err(CliError::input(
            "owner-keystore",
            format!(
                "the keystore holds {:#x}, not the owner {owner:#x}",
                wallet.address()
            ),
        ));
    }
    Ok(Some(wallet))
}

/// Show an external wallet `request` (and write it to `--typed-data-out`), then read the
/// pasted 65-byte signature from stdin.
fn pasted_signature(
    ctx: &Context,
    signing: &OwnerSigning,
    request: &serde_json::Value,
) -> Result<alloy_primitives::Signature, CliError> {
    if let Some(path) = &signing.typed_data_out {
        crate::store::private_files::write_private(
            path,
            serde_json::to_string_pretty(request)
                .expect("JSON")
                .as_bytes(),
        )
        .map_err(|e| {
            CliError::input(
                "typed-data-out",
                format!("cannot write {}: {e}", path.display()),
            )
        })?;
    }
    // Typed data as one line for the wallet, the prompt on stderr. With --json, stdout carries
    // exactly one document (the command's result), so the request goes to stderr as well.
    let line = serde_json::to_string(request).expect("JSON");
    if ctx.json {
        eprintln!("{line}");
    } else {
        say!("{line}");
    }
    eprintln!(
        "Sign the typed data above with the owner's wallet (eth_signTypedData_v4) and paste the 0x… signature:"
    );
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| CliError::input("signature", format!("could not read it: {e}")))?;
    parse_signature(&line).map_err(|why| CliError::input("signature", why))
}
