//! Asking for a passphrase on the controlling terminal, without echo.

use super::{KeyError, Passphrase};

/// Prompt on the controlling terminal (not stdin/stdout, which may be piped) without echo.
/// With no terminal (cron, CI, a service) this fails with [`KeyError::PassphraseRequired`],
/// whose message says to use the environment variable instead.
pub fn prompt_passphrase(prompt: &str) -> Result<Passphrase, KeyError> {
    if !has_terminal() {
        return Err(KeyError::PassphraseRequired);
    }
    rpassword::prompt_password(prompt)
        .map(Passphrase::new)
        .map_err(|e| KeyError::Io(format!("cannot read the passphrase from the terminal: {e}")))
}

/// rpassword reads and writes `/dev/tty`; opening it is how we learn there is a terminal.
#[cfg(unix)]
fn has_terminal() -> bool {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .is_ok()
}

#[cfg(not(unix))]
fn has_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal()
}

/// A new passphrase, typed twice: one that is empty or not repeated exactly is refused, so a
/// typo cannot lock a freshly written keystore.
pub fn prompt_new_passphrase(prompt: &str) -> Result<Passphrase, KeyError> {
    let first = prompt_passphrase(prompt)?;
    if first.is_empty() {
        return Err(KeyError::EmptyPassphrase);
    }
    let again = prompt_passphrase("Type it again: ")?;
    if again.expose() != first.expose() {
        return Err(KeyError::PassphraseMismatch);
    }
    Ok(first)
}
