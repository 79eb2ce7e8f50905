//! Asking for a passphrase on the controlling terminal, without echo.

use super::{KeyError, Passphrase};

/// Prompt on the controlling terminal (not stdin/stdout, which may be piped) without echo.
/// With no terminal (cron, CI, a service) this fails with [`KeyError::PassphraseRequired`],
/// whose message says to use the environment variable instead.
pub fn prompt_passphrase(prompt: &str) -> Result<Passphrase, KeyError> {
    if !has_terminal() {
        return Err(KeyError::PassphraseRequired);
    }
    read_hidden(prompt)
        .map(Passphrase::new)
        .map_err(|e| KeyError::Io(format!("cannot read the passphrase from the terminal: {e}")))
}

/// Echo goes off before the prompt is written, so nothing typed the moment the prompt appears
/// (a fast typist, a password manager's auto-type) is ever shown; it comes back on every exit
/// from here, including an error.
#[cfg(unix)]
fn read_hidden(prompt: &str) -> std::io::Result<String> {
    use std::io::{BufRead, Write};

    use rustix::termios::{LocalModes, OptionalActions, tcgetattr, tcsetattr};

    struct Restore<'a>(&'a std::fs::File, rustix::termios::Termios);
    impl Drop for Restore<'_> {
        fn drop(&mut self) {
            let _ = tcsetattr(self.0, OptionalActions::Now, &self.1);
        }
    }

    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")?;
    let saved = tcgetattr(&tty)?;
    let mut quiet = saved.clone();
    quiet.local_modes.remove(LocalModes::ECHO);
    // The Enter still moves to the next line.
    quiet.local_modes.insert(LocalModes::ECHONL);
    tcsetattr(&tty, OptionalActions::Now, &quiet)?;
    let _restore = Restore(&tty, saved);
    (&tty).write_all(prompt.as_bytes())?;
    (&tty).flush()?;
    let mut line = String::new();
    std::io::BufReader::new(&tty).read_line(&mut line)?;
    let text = line.trim_end_matches(['\r', '\n']).to_string();
    super::wipe(&mut line);
    Ok(text)
}

#[cfg(not(unix))]
fn read_hidden(prompt: &str) -> std::io::Result<String> {
    rpassword::prompt_password(prompt)
}

/// The prompt reads and writes `/dev/tty`; opening it is how we learn there is a terminal.
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
