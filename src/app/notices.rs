//! The relayer's operator notices (untrusted text from its health answer). Each new one goes into
//! the message log once and stays unread — a badge in the header on every tab — until the
//! Protocol tab, which lists them all, is on screen.

use std::collections::BTreeSet;

use crate::protocol::reads::RelayerHealth;
use crate::text::sanitize_line;

/// A notice's fields are cut to this many characters each.
const FIELD_CHARS: usize = 120;

/// What a notice says, as every place shows it: `[level] title: body`, sanitised, one line.
pub(crate) fn notice_texts(health: &RelayerHealth) -> Vec<String> {
    let Some(notices) = health.extra.get("notices").and_then(|n| n.as_array()) else {
        return Vec::new();
    };
    notices
        .iter()
        .map(|n| {
            let field = |k: &str| {
                sanitize_line(n.get(k).and_then(|v| v.as_str()).unwrap_or(""), FIELD_CHARS)
            };
            format!("[{}] {}: {}", field("level"), field("title"), field("body"))
        })
        .collect()
}

/// The notices this session has seen, and which of them are still unread.
#[derive(Debug, Default, Clone)]
pub struct Notices {
    seen: BTreeSet<String>,
    unread: BTreeSet<String>,
}

impl Notices {
    /// Notices listed now that the trader has not seen on the Protocol tab.
    pub fn unread(&self) -> usize {
        self.unread.len()
    }

    /// Fold the notices a health answer lists: those new this session (to log), each unread
    /// unless the Protocol tab is on screen; one the relayer no longer lists is no longer unread.
    /// Also whether the unread count changed.
    pub(crate) fn fold(&mut self, listed: Vec<String>, on_screen: bool) -> (Vec<String>, bool) {
        let before = self.unread.len();
        self.unread.retain(|t| listed.contains(t));
        let mut new = Vec::new();
        for text in listed {
            if self.seen.insert(text.clone()) {
                if !on_screen {
                    self.unread.insert(text.clone());
                }
                new.push(text);
            }
        }
        (new, self.unread.len() != before)
    }

    /// The Protocol tab is on screen: every listed notice is read. Whether that changed anything.
    pub(crate) fn read(&mut self) -> bool {
        let had = !self.unread.is_empty();
        self.unread.clear();
        had
    }
}
