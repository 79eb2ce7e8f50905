//! Carrying out the session-key panel's jobs off the UI loop: scrypt and signing on a blocking
//! thread, the registration built and sent once by the path the command line uses
//! (`client::session_key`). A new key's signer goes to the loop, never into the app; a typed
//! passphrase is dropped (and wiped) as soon as its job is done.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use alloy_primitives::Address;
use tokio::sync::mpsc;

use crate::app::key_setup::{KeyJob, KeyOutcome};
use crate::app::{KeyStatus, Message, SubmitOutcome};
use crate::client::ExchangeHttp;
use crate::client::session_key::{registration, send_registration};
use crate::clock::now_unix_s;
use crate::keys::{
    KeyError, KeyMeta, PASSPHRASE_ENV, Passphrase, SESSION_TTL_SECS, SessionKeys,
    load_owner_keystore,
};
use crate::protocol::eip712::{
    RegisterSessionKey, SessionSigner, Signed, WalletSigner, parse_signature, sign_request_json,
};
use crate::protocol::order::Deadlines;

use super::submit::{Submitter, record_send};

/// The file an external wallet's typed data is written to, in the data dir.
pub const TYPED_DATA_FILE: &str = "register-session-key.json";

/// What a job came to: the app's outcome, and the signer orders are now signed with (a new
/// key) or that is dropped (a cleared one). The signer goes to the submitter, never the app.
struct KeyDone {
    pub outcome: KeyOutcome,
    pub signer: SignerChange,
}

enum SignerChange {
    Keep,
    Use(SessionSigner),
    Drop,
}

#[derive(Clone)]
pub struct KeyWorker {
    http: ExchangeHttp,
    data_dir: PathBuf,
    owner: Address,
    keys: SessionKeys,
    deadlines: Deadlines,
    /// Signs the session's orders: told of a new or cleared key before the app is.
    submitter: Submitter,
    /// The registration whose typed data went to an external wallet, until its signature comes.
    external: Arc<Mutex<Option<RegisterSessionKey>>>,
}

impl KeyWorker {
    pub fn new(
        http: ExchangeHttp,
        data_dir: &Path,
        owner: Address,
        keys: SessionKeys,
        deadlines: Deadlines,
        submitter: Submitter,
    ) -> Self {
        Self {
            http,
            data_dir: data_dir.to_path_buf(),
            owner,
            keys,
            deadlines,
            submitter,
            external: Arc::new(Mutex::new(None)),
        }
    }

    /// Carry `job` out as a task; what it came to arrives as `Message::KeyDone`.
    pub fn spawn(&self, job: KeyJob, inbox: mpsc::Sender<Message>) {
        let worker = self.clone();
        tokio::spawn(async move {
            let done = worker.run(job).await.unwrap_or_else(|why| KeyDone {
                outcome: KeyOutcome::Failed(why),
                signer: SignerChange::Keep,
            });
            match done.signer {
                SignerChange::Use(key) => worker.submitter.use_key(Some(key)),
                SignerChange::Drop => worker.submitter.use_key(None),
                SignerChange::Keep => {}
            }
            let _ = inbox.send(Message::KeyDone(done.outcome)).await;
        });
    }

    async fn run(&self, job: KeyJob) -> Result<KeyDone, String> {
        match job {
            KeyJob::Generate { passphrase } => self.generate(passphrase).await,
            KeyJob::RegisterWithKeystore { path, passphrase } => {
                let signed = self.sign_with_keystore(&path, passphrase).await?;
                self.send(signed).await
            }
            KeyJob::PrepareExternal => self.prepare_external(),
            KeyJob::RegisterWithSignature { signature } => {
                let intent = self
                    .external
                    .lock()
                    .expect("external registration lock")
                    .clone()
                    .ok_or("write the typed data first (e)")?;
                let signature =
                    parse_signature(&signature).map_err(|why| format!("signature: {why}"))?;
                let signed = Signed::from_signature(intent, signature, self.owner)
                    .map_err(|e| format!("signature: {e}; nothing was sent"))?;
                let done = self.send(signed).await?;
                *self.external.lock().expect("external registration lock") = None;
                Ok(done)
            }
            KeyJob::Clear => {
                self.keys.clear(self.owner).map_err(key_text)?;
                Ok(KeyDone {
                    outcome: KeyOutcome::Cleared,
                    signer: SignerChange::Drop,
                })
            }
        }
    }

    async fn generate(&self, passphrase: Option<Passphrase>) -> Result<KeyDone, String> {
        let keys = self.keys.clone();
        let owner = self.owner;
        let (signer, meta) = tokio::task::spawn_blocking(move || {
            let now = now_unix_s();
            keys.generate(owner, now + SESSION_TTL_SECS, now, || {
                passphrase
                    .or_else(|| Passphrase::from_env(PASSPHRASE_ENV))
                    .ok_or(KeyError::PassphraseRequired)
            })
        })
        .await
        .map_err(|e| format!("key generation stopped: {e}"))?
        .map_err(key_text)?;
        Ok(KeyDone {
            outcome: KeyOutcome::Generated(KeyStatus::from(&meta)),
            signer: SignerChange::Use(signer),
        })
    }

    fn stored_key(&self) -> Result<KeyMeta, String> {
        self.keys
            .meta(self.owner)
            .map_err(key_text)?
            .ok_or_else(|| "no session key is stored: n generates one".to_string())
    }

    async fn sign_with_keystore(
        &self,
        path: &str,
        passphrase: Passphrase,
    ) -> Result<Signed<RegisterSessionKey>, String> {
        let meta = self.stored_key()?;
        let wallet = unlock_owner(path, passphrase, self.owner).await?;
        let intent = self.registration(meta.key)?;
        wallet
            .sign(intent)
            .map_err(|e| format!("signing failed: {e}"))
    }

    fn registration(&self, key: Address) -> Result<RegisterSessionKey, String> {
        registration(
            &self.data_dir,
            self.owner,
            key,
            now_unix_s(),
            &self.deadlines,
        )
        .map_err(|e| format!("nonce store: {e}"))
    }

    fn prepare_external(&self) -> Result<KeyDone, String> {
        let meta = self.stored_key()?;
        let intent = self.registration(meta.key)?;
        let request = sign_request_json(self.owner, &intent);
        let path = self.data_dir.join(TYPED_DATA_FILE);
        crate::store::private_files::write_private(
            &path,
            serde_json::to_string_pretty(&request)
                .expect("JSON")
                .as_bytes(),
        )
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        *self.external.lock().expect("external registration lock") = Some(intent);
        Ok(KeyDone {
            outcome: KeyOutcome::TypedData { path },
            signer: SignerChange::Keep,
        })
    }

    /// Send the owner-signed registration once; the stream decides what became of it.
    async fn send(&self, signed: Signed<RegisterSessionKey>) -> Result<KeyDone, String> {
        let id = signed.intent_id();
        let expiry = signed.intent().expiry;
        let submission = send_registration(&self.http, &self.data_dir, &self.keys, &signed)
            .await
            .map_err(|e| e.to_string())?;
        let mut report = SubmitOutcome::default();
        if submission.may_be_queued() {
            report.tracked.push(id);
        }
        record_send(
            &mut report,
            "register session key".into(),
            id,
            &Ok::<_, std::convert::Infallible>(submission),
        );
        Ok(KeyDone {
            outcome: KeyOutcome::Registration {
                report,
                local_expiry: expiry,
            },
            signer: SignerChange::Keep,
        })
    }
}

/// The owner's wallet from its keystore file at `path` (as typed), checked to be `owner`. The
/// passphrase is dropped (and wiped) here.
pub(super) async fn unlock_owner(
    path: &str,
    passphrase: Passphrase,
    owner: Address,
) -> Result<WalletSigner, String> {
    let path = crate::config::expand_home(path);
    let shown = path.display().to_string();
    // scrypt: seconds of CPU at the standard cost, so not on the loop's thread.
    let wallet = tokio::task::spawn_blocking(move || load_owner_keystore(&path, &passphrase))
        .await
        .map_err(|e| format!("owner keystore: {e}"))?
        .map_err(|e| format!("owner keystore {shown}: {e}"))?;
    if wallet.address() != owner {
        return Err(format!(
            "the keystore holds {:#x}, not the owner {owner:#x}; nothing was signed",
            wallet.address()
        ));
    }
    Ok(wallet)
}

fn key_text(e: KeyError) -> String {
    format!("session key: {e}")
}
