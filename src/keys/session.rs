//! One session key per owner: its secret in the keyring or a keystore file, its metadata in
//! `<data_dir>/keys/session-<owner>.meta.json`.

use std::path::{Path, PathBuf};

use alloy_primitives::{Address, B256};

use super::{Backend, KeyError, KeyMeta, Passphrase, files, keystore, os_keyring};
use crate::protocol::eip712::SessionSigner;

/// The session keys kept in one data directory.
#[derive(Debug, Clone)]
pub struct SessionKeys {
    dir: PathBuf,
    forced: Option<Backend>,
    scrypt: keystore::ScryptCost,
}

impl SessionKeys {
    /// Keys under `<data_dir>/keys/`. `forced` is `--key-backend`; `None` picks the keyring
    /// when one works, else the keystore file.
    pub fn new(data_dir: &Path, forced: Option<Backend>) -> Self {
        Self {
            dir: data_dir.join("keys"),
            forced,
            scrypt: keystore::ScryptCost::default(),
        }
    }

    /// Write new keystore files at `cost` instead of the standard one (reading always uses the
    /// parameters in the file, so keys written at any cost still unlock).
    pub(crate) fn with_scrypt(mut self, cost: keystore::ScryptCost) -> Self {
        self.scrypt = cost;
        self
    }

    /// The directory the key files live in.
    #[cfg(test)]
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Which backend a new key would go to: the forced one, else the keyring if a credential
    /// store is set up, else the keystore file.
    pub(crate) fn preferred_backend(&self) -> Backend {
        match self.forced {
            Some(backend) => backend,
            None if os_keyring::available() => Backend::Keyring,
            None => Backend::Keystore,
        }
    }

    /// Generate a fresh session key for `owner`, store its secret, write its metadata, and
    /// remove any previous key of that owner from the other backend. `passphrase` is called
    /// only when the keystore file is used, including when a keyring write fails and the key
    /// falls back to the file (only without a forced backend).
    pub(crate) fn generate(
        &self,
        owner: Address,
        expiry: u64,
        now: u64,
        passphrase: impl FnOnce() -> Result<Passphrase, KeyError>,
    ) -> Result<(SessionSigner, KeyMeta), KeyError> {
        files::ensure_private_dir(&self.dir)?;
        let signer = SessionSigner::random();
        let backend = self.store_secret(owner, &signer.secret_bytes(), passphrase)?;
        let meta = KeyMeta {
            owner,
            key: signer.address(),
            created_at: now,
            expiry,
            backend,
        };
        // If this fails after the secret was stored, `load` sees the mismatch (Corrupt) and
        // `clear` still removes everything: there is no state that cannot be cleared.
        self.write_meta(&meta)?;
        self.remove_stale_copy(owner, backend);
        Ok((signer, meta))
    }

    /// The metadata only: no unlock, no keyring access. `None` if no key is stored.
    pub(crate) fn meta(&self, owner: Address) -> Result<Option<KeyMeta>, KeyError> {
        let path = self.meta_path(owner);
        let Some(bytes) = files::read_optional(&path)? else {
            return Ok(None);
        };
        let meta: KeyMeta = serde_json::from_slice(&bytes)
            .map_err(|e| KeyError::Corrupt(format!("{}: {e}", path.display())))?;
        if meta.owner != owner {
            return Err(KeyError::Corrupt(format!(
                "{}: written for another owner",
                path.display()
            )));
        }
        Ok(Some(meta))
    }

    /// Unlock the key: from the keyring, or by decrypting the keystore file (`passphrase` is
    /// called only then). The unlocked key must be the one the metadata names.
    pub fn load(
        &self,
        owner: Address,
        passphrase: impl FnOnce() -> Result<Passphrase, KeyError>,
    ) -> Result<Option<(SessionSigner, KeyMeta)>, KeyError> {
        let Some(meta) = self.meta(owner)? else {
            return Ok(None);
        };
        let secret = match meta.backend {
            Backend::Keyring => fetch_from_keyring(owner)?,
            Backend::Keystore => self.read_keystore(owner, passphrase)?,
        };
        let signer = SessionSigner::from_bytes(&secret).map_err(|_| {
            KeyError::Corrupt("the stored secret is not a valid secp256k1 key".into())
        })?;
        if signer.address() != meta.key {
            return Err(KeyError::Corrupt(format!(
                "the stored secret belongs to {:#x}, not to the recorded session key {:#x}",
                signer.address(),
                meta.key
            )));
        }
        Ok(Some((signer, meta)))
    }

    /// Update the local expiry (after a renewal registration).
    pub fn set_expiry(&self, owner: Address, expiry: u64) -> Result<(), KeyError> {
        let mut meta = self.meta(owner)?.ok_or(KeyError::NotFound)?;
        meta.expiry = expiry;
        self.write_meta(&meta)
    }

    /// Remove the key from every backend it may be in, whatever the metadata says, then the
    /// metadata. Returns the backends that held a secret. Every removal is attempted; the first
    /// failure is returned after the others ran.
    pub(crate) fn clear(&self, owner: Address) -> Result<Vec<Backend>, KeyError> {
        let mut tally = Tally::default();
        tally.removed(Backend::Keyring, self.clear_keyring(owner));
        tally.removed(
            Backend::Keystore,
            files::remove_if_present(&self.keystore_path(owner)).map_err(KeyError::from),
        );
        tally.check(files::sweep_temps(&self.dir, &keystore_name(owner)).map_err(KeyError::from));
        tally.check(files::sweep_temps(&self.dir, &meta_name(owner)).map_err(KeyError::from));
        // The metadata stays while a secret may remain, so the key is still listed and a
        // later `clear` can finish the job.
        if tally.first_error.is_none() {
            tally.check(
                files::remove_if_present(&self.meta_path(owner))
                    .map(drop)
                    .map_err(KeyError::from),
            );
        }
        tally.finish()
    }

    fn clear_keyring(&self, owner: Address) -> Result<bool, KeyError> {
        if os_keyring::available() {
            return os_keyring::delete(owner);
        }
        // Without a store nothing can be deleted; that is only an error if the key is there.
        match self.meta(owner) {
            Ok(Some(meta)) if meta.backend == Backend::Keyring => Err(KeyError::Keyring(
                "the key is in the OS keyring, which is not reachable now; nothing was removed from it".into(),
            )),
            _ => Ok(false),
        }
    }

    fn store_secret(
        &self,
        owner: Address,
        secret: &B256,
        passphrase: impl FnOnce() -> Result<Passphrase, KeyError>,
    ) -> Result<Backend, KeyError> {
        match self.forced {
            Some(Backend::Keyring) => store_in_keyring(owner, secret).map(|()| Backend::Keyring),
            Some(Backend::Keystore) => self
                .write_keystore(owner, secret, passphrase)
                .map(|()| Backend::Keystore),
            None => self.store_anywhere(owner, secret, passphrase),
        }
    }

    /// Keyring if it takes the secret, else the keystore file. A keyring can exist and still
    /// refuse writes (collection locked, no prompter), so the write itself is the test.
    fn store_anywhere(
        &self,
        owner: Address,
        secret: &B256,
        passphrase: impl FnOnce() -> Result<Passphrase, KeyError>,
    ) -> Result<Backend, KeyError> {
        if os_keyring::available() {
            match os_keyring::store(owner, secret) {
                Ok(()) => return Ok(Backend::Keyring),
                Err(err) => {
                    tracing::warn!("OS keyring write failed, using the keystore file: {err}")
                }
            }
        }
        self.write_keystore(owner, secret, passphrase)
            .map(|()| Backend::Keystore)
    }

    fn write_keystore(
        &self,
        owner: Address,
        secret: &B256,
        passphrase: impl FnOnce() -> Result<Passphrase, KeyError>,
    ) -> Result<(), KeyError> {
        let passphrase = passphrase()?;
        if passphrase.is_empty() {
            return Err(KeyError::EmptyPassphrase);
        }
        keystore::write(
            &self.dir,
            &keystore_name(owner),
            secret,
            &passphrase,
            self.scrypt,
        )
    }

    fn read_keystore(
        &self,
        owner: Address,
        passphrase: impl FnOnce() -> Result<Passphrase, KeyError>,
    ) -> Result<B256, KeyError> {
        let path = self.keystore_path(owner);
        // Checked before asking, so nobody types a passphrase for a file that is gone.
        if !files::exists(&path)? {
            return Err(KeyError::NotFound);
        }
        keystore::read(&path, &passphrase()?)
    }

    /// After a new key is stored, the previous key may still sit in the other backend.
    /// Removing it is best effort: the new key is already in place and the old one is replaced
    /// on the exchange at registration; a failure is logged (no secret in it).
    fn remove_stale_copy(&self, owner: Address, kept: Backend) {
        let removed = match kept {
            Backend::Keyring => {
                files::remove_if_present(&self.keystore_path(owner)).map_err(KeyError::from)
            }
            Backend::Keystore if os_keyring::available() => os_keyring::delete(owner),
            Backend::Keystore => Ok(false),
        };
        if let Err(err) = removed {
            tracing::warn!("could not remove the previous session key's copy: {err}");
        }
    }

    fn write_meta(&self, meta: &KeyMeta) -> Result<(), KeyError> {
        files::ensure_private_dir(&self.dir)?;
        let json = serde_json::to_vec_pretty(meta)
            .map_err(|e| KeyError::Corrupt(format!("cannot encode key metadata: {e}")))?;
        Ok(files::write_atomic(
            &self.dir,
            &meta_name(meta.owner),
            &json,
        )?)
    }

    fn keystore_path(&self, owner: Address) -> PathBuf {
        self.dir.join(keystore_name(owner))
    }

    fn meta_path(&self, owner: Address) -> PathBuf {
        self.dir.join(meta_name(owner))
    }
}

/// What `clear` removed, and its first failure.
#[derive(Default)]
struct Tally {
    held: Vec<Backend>,
    first_error: Option<KeyError>,
}

impl Tally {
    fn removed(&mut self, backend: Backend, result: Result<bool, KeyError>) {
        match result {
            Ok(true) => self.held.push(backend),
            Ok(false) => {}
            Err(err) => self.check(Err(err)),
        }
    }

    fn check(&mut self, result: Result<(), KeyError>) {
        if let Err(err) = result {
            self.first_error.get_or_insert(err);
        }
    }

    fn finish(self) -> Result<Vec<Backend>, KeyError> {
        match self.first_error {
            Some(err) => Err(err),
            None => Ok(self.held),
        }
    }
}

/// `session-0x<owner, lowercase hex>`: the keyring user name and the files' stem.
fn stem(owner: Address) -> String {
    os_keyring::user(owner)
}

fn keystore_name(owner: Address) -> String {
    format!("{}.json", stem(owner))
}

fn meta_name(owner: Address) -> String {
    format!("{}.meta.json", stem(owner))
}

fn store_in_keyring(owner: Address, secret: &B256) -> Result<(), KeyError> {
    if !os_keyring::available() {
        return Err(KeyError::NoKeyring);
    }
    os_keyring::store(owner, secret)
}

fn fetch_from_keyring(owner: Address) -> Result<B256, KeyError> {
    if !os_keyring::available() {
        return Err(KeyError::NoKeyring);
    }
    os_keyring::fetch(owner)
}
