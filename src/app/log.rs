//! What the app tells the trader: outcomes, refusals and notes. Every message goes to the log
//! (a key opens it, with times); the footer shows the latest for a few seconds, or a sticky note
//! until it is dismissed, so a burst of messages is never lost to the one that came last.

use std::collections::VecDeque;
use std::time::{Duration, SystemTime};

/// How long a message stays in the footer: long enough to read, short enough that an old
/// outcome is not mistaken for a new one. Errors stay longer.
pub const TOAST_FOR: Duration = Duration::from_secs(8);
pub const ERROR_TOAST_FOR: Duration = Duration::from_secs(20);
/// Messages the log keeps.
pub const LOG_LEN: usize = 500;

/// One message, stamped with the app's time when it was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Toast {
    pub text: String,
    pub error: bool,
    pub at: SystemTime,
    /// Shown until dismissed (Esc), not for a few seconds.
    pub sticky: bool,
    /// What it reports ended at this instant (the stream it said was lost is back): it leaves
    /// the footer then, whatever time it had left. The log keeps it.
    pub ended: Option<SystemTime>,
}

impl Toast {
    /// When it leaves the footer (unless it is a note).
    fn expires(&self) -> SystemTime {
        let ttl = if self.error {
            ERROR_TOAST_FOR
        } else {
            TOAST_FOR
        };
        let expires = self.at + ttl;
        self.ended.map_or(expires, |e| e.min(expires))
    }

    fn live_at(&self, now: SystemTime) -> bool {
        now < self.expires()
    }
}

/// Every message of the session, oldest first (at most [`LOG_LEN`]).
#[derive(Debug, Clone, Default)]
pub struct MessageLog {
    entries: VecDeque<Toast>,
}

impl MessageLog {
    /// Add a message made at `at`; `sticky` keeps it in the footer until dismissed.
    pub fn push(&mut self, text: &str, error: bool, sticky: bool, at: SystemTime) {
        self.entries.push_back(Toast {
            // The footer cuts at the width; the log shows the whole message.
            text: crate::text::sanitize_line(text, 300),
            error,
            at,
            sticky,
            ended: None,
        });
        while self.entries.len() > LOG_LEN {
            self.entries.pop_front();
        }
    }

    pub fn back(&self) -> Option<&Toast> {
        self.entries.back()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Toast> {
        self.entries.iter()
    }

    /// The footer's message at `now`: the latest one still fresh, else the latest sticky note.
    pub fn current(&self, now: SystemTime) -> Option<&Toast> {
        let latest = self.entries.back()?;
        if latest.live_at(now) && !latest.sticky {
            return Some(latest);
        }
        self.entries
            .iter()
            .rev()
            .find(|t| t.sticky)
            .or_else(|| latest.live_at(now).then_some(latest))
    }

    /// How many other messages are still fresh at `now` (the footer says "+N more").
    pub fn other_fresh(&self, now: SystemTime) -> usize {
        self.entries
            .iter()
            .filter(|t| !t.sticky && t.live_at(now))
            .count()
            .saturating_sub(1)
    }

    /// The condition the messages matching `reports` told of is over at `at`: they leave the
    /// footer (a "lost" message must not outlive the recovery by its remaining seconds).
    pub fn end(&mut self, reports: impl Fn(&Toast) -> bool, at: SystemTime) {
        for t in self.entries.iter_mut().filter(|t| reports(t)) {
            t.ended = Some(t.ended.map_or(at, |e| e.min(at)));
        }
    }

    /// Dismiss the sticky notes; whether there was one.
    pub fn dismiss_notes(&mut self) -> bool {
        let mut any = false;
        for t in self.entries.iter_mut().filter(|t| t.sticky) {
            t.sticky = false;
            any = true;
        }
        any
    }

    /// The first instant after `after` at which the footer may show something else with time
    /// alone: a message expiring (notes included: one may be the latest message).
    pub fn next_change(&self, after: SystemTime) -> Option<SystemTime> {
        self.entries
            .iter()
            .map(Toast::expires)
            .filter(|t| *t > after)
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    #[test]
    fn messages_expire_notes_stay_and_the_log_keeps_everything() {
        let t0 = UNIX_EPOCH + Duration::from_secs(1_000);
        let mut log = MessageLog::default();
        log.push("ticket prefilled: review it", false, true, t0);
        log.push("market \"DOGE\" dropped", true, false, t0);
        log.push("queued", false, false, t0);
        assert_eq!(log.current(t0).unwrap().text, "queued");
        assert_eq!(log.other_fresh(t0), 1);
        // Once the latest message has expired, the note is what the footer keeps.
        let later = t0 + TOAST_FOR;
        assert_eq!(log.next_change(t0), Some(later));
        assert_eq!(
            log.current(later).unwrap().text,
            "ticket prefilled: review it"
        );
        assert!(log.dismiss_notes());
        assert_eq!(log.current(later), None);
        // The error expires later; after it, time changes nothing.
        assert_eq!(log.next_change(later), Some(t0 + ERROR_TOAST_FOR));
        assert_eq!(log.next_change(t0 + ERROR_TOAST_FOR), None);
        assert_eq!(log.len(), 3, "the log keeps every message");
        for i in 0..LOG_LEN {
            log.push(&format!("{i}"), false, false, later);
        }
        assert_eq!(log.len(), LOG_LEN);
        assert_eq!(log.iter().next().unwrap().text, "0");
    }
}
