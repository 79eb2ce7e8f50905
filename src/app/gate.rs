//! Whether the exchange can be trusted with an order now, said once: the connection status the
//! header shows, the session key as the account stream lists it, and the gate Review and the
//! close/cancel dialogs pass through. A dead exchange must never look alive, and an order must
//! never be signed against a mark nobody has seen for a while or a key the exchange dropped.

use std::time::SystemTime;

use crate::events::market::Source;

use super::freshness::{HEALTH_STALE_AFTER, STALE_AFTER, age_text};
use super::state::App;

/// How the exchange looks from here, worst first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Connection {
    /// Nothing has arrived yet.
    Connecting,
    /// Neither the market polls nor the account stream are getting answers.
    Down(String),
    /// Some of it works; each problem named.
    Degraded(Vec<String>),
    Up,
}

impl Connection {
    /// The header's words.
    pub fn text(&self) -> String {
        match self {
            Connection::Connecting => "connecting…".into(),
            Connection::Down(why) if answered_badly(why) => {
                format!("EXCHANGE ANSWER MALFORMED: {why}")
            }
            Connection::Down(why) => format!("EXCHANGE UNREACHABLE: {why}"),
            Connection::Degraded(problems) => problems.join(" · "),
            Connection::Up => "connected".into(),
        }
    }

    pub(crate) fn is_up(&self) -> bool {
        *self == Connection::Up
    }
}

/// Whether a read's failure is an answer that arrived but could not be read (malformed, or
/// larger than its cap), as `FetchError` words it, rather than no answer at all: the exchange is
/// then reachable, and saying "unreachable" would send the trader to check their network.
fn answered_badly(why: &str) -> bool {
    why.contains(": malformed answer") || why.contains(": the answer exceeds")
}

/// The session key as the exchange sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyState {
    /// No key in this session (watch mode, or not set up).
    Missing,
    /// The account's `sessionKeys` do not list it (never registered, or dropped).
    NotRegistered,
    /// Not listed yet, with a registration queued: the relayer takes the key's intents meanwhile
    /// (they are settled only if the registration settles first), and the indexer may lag (§4.7).
    Registering,
    /// Listed, but its effective expiry (the lesser of the registered and the local) has passed.
    Expired,
    /// Usable until this unix second.
    Valid { until: u64 },
    /// The account has not been read yet.
    Unknown,
}

impl App {
    /// One status for the stream, the polls and the relayer, at `now`.
    pub(crate) fn connection(&self, now: SystemTime) -> Connection {
        let age = |s| self.freshness.age(s, now);
        let stale = |s| age(s).is_none_or(|a| a > STALE_AFTER);
        if self.trading.is_none() && self.account.is_none() {
            return match self.freshness.error(Source::Trading) {
                Some(e) => Connection::Down(crate::text::sanitize_line(e, 80)),
                None => Connection::Connecting,
            };
        }
        let polls_failing =
            self.freshness.error(Source::Trading).is_some() || stale(Source::Trading);
        let stream_lost = self.wallet.is_some()
            && (self.freshness.error(Source::Account).is_some() || stale(Source::Account));
        if polls_failing && (stream_lost || self.wallet.is_none()) {
            let why = self
                .freshness
                .error(Source::Trading)
                .map(|e| crate::text::sanitize_line(e, 80))
                .unwrap_or_else(|| match age(Source::Trading) {
                    Some(a) => format!("no answer for {}", age_text(Some(a))),
                    None => "no answer yet".into(),
                });
            return Connection::Down(why);
        }
        let mut problems = Vec::new();
        if stream_lost {
            problems.push(match self.freshness.error(Source::Account) {
                Some(_) => "account stream lost, resyncing".to_string(),
                None => format!("account stream quiet {}", age_text(age(Source::Account))),
            });
        }
        if polls_failing {
            problems.push(format!(
                "market data {} old",
                age_text(age(Source::Trading))
            ));
        }
        if let Some(why) = self.relayer_problem(now) {
            problems.push(why);
        }
        if problems.is_empty() {
            Connection::Up
        } else {
            Connection::Degraded(problems)
        }
    }

    /// Why the relayer cannot be trusted to take an intent now, if it cannot.
    fn relayer_problem(&self, now: SystemTime) -> Option<String> {
        let age = self.freshness.age(Source::RelayerHealth, now);
        match &self.health {
            None if self.freshness.error(Source::RelayerHealth).is_some() => {
                Some("relayer unreachable".into())
            }
            None => Some("relayer not heard from yet".into()),
            Some(_) if self.freshness.error(Source::RelayerHealth).is_some() => {
                Some("relayer unreachable".into())
            }
            Some(_) if age.is_none_or(|a| a > HEALTH_STALE_AFTER) => {
                Some(format!("relayer last heard {} ago", age_text(age)))
            }
            Some(h) if !h.is_ready() => Some("relayer not ready".into()),
            Some(_) => None,
        }
    }

    /// The session key, followed on the account stream (`sessionKeys`), at unix second `now_s`.
    pub(crate) fn key_state(&self, now_s: u64) -> KeyState {
        let Some(key) = &self.key else {
            return KeyState::Missing;
        };
        let Some(account) = &self.account else {
            return KeyState::Unknown;
        };
        match account.session_key_expiry(key.address) {
            // The operation does not name the key; a queued registration of this wallet is
            // taken to be this key's (the UI registers no other).
            None if account
                .operations
                .iter()
                .any(|o| o.action == "registerSessionKey") =>
            {
                KeyState::Registering
            }
            None => KeyState::NotRegistered,
            Some(registered) => {
                let until = registered.min(key.local_expiry);
                if until <= now_s {
                    KeyState::Expired
                } else {
                    KeyState::Valid { until }
                }
            }
        }
    }

    /// Why the session key cannot sign at unix second `now_s`, if it cannot, with the fix.
    pub(crate) fn key_gate(&self, now_s: u64) -> Result<(), String> {
        let fix = self.key_setup_key();
        match self.key_state(now_s) {
            KeyState::Valid { .. } | KeyState::Registering => {}
            KeyState::Missing => {
                return Err(format!(
                    "trading is not enabled: no session key ({fix} sets one up)"
                ));
            }
            KeyState::Unknown => return Err("the account is not synced yet".into()),
            KeyState::NotRegistered => {
                return Err(format!(
                    "the exchange does not list the session key (not registered or revoked): \
                     {fix} registers it with the owner's signature"
                ));
            }
            KeyState::Expired => {
                return Err(format!(
                    "the session key expired: {fix} renews it (the owner signs again)"
                ));
            }
        }
        Ok(())
    }

    /// Why nothing may be signed at `now`, if so: the key and the relayer (every order), and for
    /// an open also the age of its market's mark.
    pub(crate) fn trade_gate(
        &self,
        open_instrument: Option<u32>,
        now: SystemTime,
    ) -> Result<(), String> {
        self.key_gate(crate::clock::unix_s(now))?;
        if let Connection::Down(why) = self.connection(now) {
            return Err(if answered_badly(&why) {
                format!("the exchange's answers cannot be read ({why})")
            } else {
                format!("the exchange is unreachable ({why})")
            });
        }
        if let Some(why) = self.relayer_problem(now) {
            return Err(why);
        }
        if let Some(id) = open_instrument {
            match self.freshness.age(Source::Mark(id), now) {
                Some(a) if a <= self.max_mark_age => {}
                Some(a) => {
                    return Err(format!(
                        "the mark is {} old (limit {}s): an open fills at the mark when \
                         processed, so it is not signed against a price nobody has seen lately",
                        age_text(Some(a)),
                        self.max_mark_age.as_secs()
                    ));
                }
                None => return Err("there is no mark for this market yet".into()),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Mode;
    use crate::client::FetchError;
    use crate::events::market::MarketEvent;
    use crate::protocol::wire::DecodeError;

    fn down_with(error: FetchError) -> String {
        let mut app = App::new(Mode::Demo, None);
        let now = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000);
        app.freshness.apply(&MarketEvent::Failed {
            source: Source::Trading,
            error: error.to_string(),
            at: now,
        });
        app.connection(now).text()
    }

    #[test]
    fn a_malformed_answer_is_not_called_unreachable() {
        let url = "http://127.0.0.1:1/state/trading".to_string();
        let header = down_with(FetchError::Malformed {
            url: url.clone(),
            error: DecodeError::new("instruments", "expected an array"),
        });
        assert!(
            header.starts_with("EXCHANGE ANSWER MALFORMED: "),
            "{header}"
        );
        let header = down_with(FetchError::TooLarge {
            url: url.clone(),
            endpoint: "/state/trading".into(),
            cap: 1 << 20,
        });
        assert!(
            header.starts_with("EXCHANGE ANSWER MALFORMED: "),
            "{header}"
        );
        let header = down_with(FetchError::Unreachable {
            url,
            reason: "connection refused".into(),
        });
        assert!(header.starts_with("EXCHANGE UNREACHABLE: "), "{header}");
    }
}
