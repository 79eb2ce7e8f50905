//! Registering a session key, one way for the command line and the UI: the owner signs
//! `RegisterSessionKey` for a full lifetime from now (so registering the same key again extends
//! it: the registration replaces the key's expiry), the local expiry follows what was signed,
//! and the intent is sent once, its fate left to the account stream.

use std::path::Path;

use alloy_primitives::Address;
use serde_json::json;

use crate::keys::{KeyError, SESSION_TTL_SECS, SessionKeys};
use crate::protocol::eip712::{NonceLane, RegisterSessionKey, Signed};
use crate::protocol::order::Deadlines;

use super::http::ExchangeHttp;
use super::intents::{Submission, SubmitError, submit};
use crate::store::ledger::{AuditLog, NonceStore};

/// The registration of `key` for `owner` at unix second `now`, with the next exchange nonce.
pub fn registration(
    data_dir: &Path,
    owner: Address,
    key: Address,
    now: u64,
    deadlines: &Deadlines,
) -> std::io::Result<RegisterSessionKey> {
    let nonce = NonceStore::new(data_dir).next(owner, NonceLane::Exchange)?;
    Ok(RegisterSessionKey {
        user: owner,
        key,
        expiry: now + SESSION_TTL_SECS,
        feeAddress: Address::ZERO,
        nonce,
        deadline: now + deadlines.register_s,
    })
}

#[derive(Debug, thiserror::Error)]
pub enum RegistrationError {
    #[error("session key: {0}")]
    Key(#[from] KeyError),
    #[error("{0}")]
    Submit(#[from] SubmitError),
}

/// Record the signed expiry locally, then send the owner-signed registration once. The
/// effective expiry stays the lesser of the local and the registered one until it settles.
pub async fn send_registration(
    http: &ExchangeHttp,
    data_dir: &Path,
    keys: &SessionKeys,
    signed: &Signed<RegisterSessionKey>,
) -> Result<Submission, RegistrationError> {
    let intent = signed.intent();
    keys.set_expiry(intent.user, intent.expiry)?;
    let details = json!({"sessionKey": format!("{:#x}", intent.key), "expiry": intent.expiry});
    Ok(submit(http, &AuditLog::new(data_dir), signed, details).await?)
}
