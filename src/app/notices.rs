//! The relayer's operator notices (untrusted text from its health answer). Each new one goes into
//! the message log once and stays unread — a badge in the header on every tab — until the
//! Protocol tab, which lists them all, is on screen.

use std::collections::BTreeSet;

use crate::protocol::stats::RelayerHealth;
use crate::text::sanitize_line;

use super::state::App;
use super::tab::Tab;

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
}

impl App {
    /// Fold the notices of a health answer: a new one is logged (once a session) and unread
    /// unless the Protocol tab is on screen; one the relayer no longer lists is no longer unread.
    pub(crate) fn fold_notices(&mut self) {
        let listed = self.health.as_ref().map(notice_texts).unwrap_or_default();
        let before = self.notices.unread.len();
        self.notices.unread.retain(|t| listed.contains(t));
        for text in listed {
            if self.notices.seen.insert(text.clone()) {
                self.toast(format!("operator notice {text}"), false);
                if self.tab != Tab::Protocol {
                    self.notices.unread.insert(text);
                }
            }
        }
        if self.notices.unread.len() != before {
            self.dirty = true;
        }
    }

    /// The Protocol tab is on screen: every listed notice is read.
    pub(crate) fn read_notices(&mut self) {
        if !self.notices.unread.is_empty() {
            self.notices.unread.clear();
            self.dirty = true;
        }
    }
}
