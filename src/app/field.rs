//! Typing into a field, one way everywhere: a [`TextField`] says which characters a field takes
//! and how many, and edits its text on a key; a [`SecretField`] does the same for a passphrase,
//! which lives only in its `Passphrase` (never copied, never shown). The explorer's search, the
//! Fund tab's amount, a keystore path, a pasted signature and every passphrase are typed
//! through these, so Backspace and the limits work alike on every pane. The owner's keystore is
//! unlocked one way too ([`OwnerUnlock`]), wherever the owner signs.

use crate::keys::Passphrase;

use super::action::Action;

/// What a text field takes: at most `max` characters, each one `accepts` lets in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TextField {
    max: usize,
    accepts: fn(char) -> bool,
}

/// Anything printable: a search, an address, a name.
fn printable(c: char) -> bool {
    !c.is_control()
}

/// A USDC amount as typed: digits, a point, thousands commas.
fn amount_char(c: char) -> bool {
    c.is_ascii_digit() || c == '.' || c == ','
}

impl TextField {
    /// A search or an address on the exploring panes.
    pub(crate) const SEARCH: Self = Self {
        max: 66,
        accepts: printable,
    };
    /// A file path or a pasted signature.
    pub(crate) const LONG: Self = Self {
        max: 4096,
        accepts: printable,
    };
    /// The Fund tab's amount (8 integer digits, a point, 6 decimals, and room for commas).
    pub(crate) const AMOUNT: Self = Self {
        max: 20,
        accepts: amount_char,
    };

    /// Apply a key to `text`: a character it takes is added, Backspace removes the last one.
    /// Whether the key was one a field answers to (a refused character still is).
    pub(crate) fn edit(self, text: &mut String, action: &Action) -> bool {
        match action {
            Action::Type(c) => {
                if (self.accepts)(*c) && text.chars().count() < self.max {
                    text.push(*c);
                }
                true
            }
            Action::Backspace => {
                text.pop();
                true
            }
            _ => false,
        }
    }
}

/// A passphrase being typed (masked on screen; `Passphrase` bounds and owns it).
pub(crate) struct SecretField;

impl SecretField {
    /// Apply a key to `typing`, as [`TextField::edit`] does.
    pub(crate) fn edit(typing: &mut Passphrase, action: &Action) -> bool {
        match action {
            Action::Type(c) => {
                typing.push(*c);
                true
            }
            Action::Backspace => {
                typing.pop();
                true
            }
            _ => false,
        }
    }
}

pub use super::key_setup::OwnerUnlock;

/// What a key did to an [`OwnerUnlock`].
#[derive(Debug)]
pub(crate) enum Unlock {
    /// Still typing (or a key the step does not take).
    Typing,
    /// Enter on an empty field: why nothing moved.
    Refused(&'static str),
    /// Esc: back to the step before (the typed passphrase goes with it).
    Back,
    /// Both typed: sign with these.
    Done {
        path: String,
        passphrase: Passphrase,
    },
}

impl OwnerUnlock {
    /// Start at the path, filled with the one last typed.
    pub(crate) fn start(last_path: &str) -> Self {
        OwnerUnlock::Path(last_path.to_string())
    }

    /// Apply a key; a path confirmed is kept in `last_path` (a path, never a secret).
    pub(crate) fn update(&mut self, action: &Action, last_path: &mut String) -> Unlock {
        let enter = matches!(action, Action::Confirm | Action::Review);
        match self {
            OwnerUnlock::Path(path) => {
                if TextField::LONG.edit(path, action) {
                    Unlock::Typing
                } else if *action == Action::Escape {
                    Unlock::Back
                } else if enter && path.trim().is_empty() {
                    Unlock::Refused("type the owner keystore file's path")
                } else if enter {
                    *last_path = path.trim().to_string();
                    *self = OwnerUnlock::Passphrase {
                        path: last_path.clone(),
                        typing: Passphrase::typing(),
                    };
                    Unlock::Typing
                } else {
                    Unlock::Typing
                }
            }
            OwnerUnlock::Passphrase { path, typing } => {
                if SecretField::edit(typing, action) {
                    Unlock::Typing
                } else if *action == Action::Escape {
                    Unlock::Back
                } else if enter && typing.is_empty() {
                    Unlock::Refused("the passphrase is empty")
                } else if enter {
                    Unlock::Done {
                        path: path.clone(),
                        passphrase: std::mem::replace(typing, Passphrase::typing()),
                    }
                } else {
                    Unlock::Typing
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_takes_its_characters_up_to_its_length_and_backspace_removes_one() {
        let mut text = String::new();
        for c in "12a,5.0\u{7}".chars() {
            assert!(TextField::AMOUNT.edit(&mut text, &Action::Type(c)));
        }
        assert_eq!(text, "12,5.0");
        assert!(TextField::AMOUNT.edit(&mut text, &Action::Backspace));
        assert_eq!(text, "12,5.");
        assert!(!TextField::AMOUNT.edit(&mut text, &Action::Escape));
        let mut search = "x".repeat(66);
        TextField::SEARCH.edit(&mut search, &Action::Type('y'));
        assert_eq!(search.len(), 66, "full");
        let mut secret = Passphrase::typing();
        for c in "hunter2".chars() {
            SecretField::edit(&mut secret, &Action::Type(c));
        }
        SecretField::edit(&mut secret, &Action::Backspace);
        assert_eq!(secret.chars(), 6);
    }

    #[test]
    fn the_owner_unlock_takes_a_path_then_a_passphrase_and_refuses_empty_ones() {
        let mut last = String::new();
        let mut unlock = OwnerUnlock::start("");
        assert!(matches!(
            unlock.update(&Action::Confirm, &mut last),
            Unlock::Refused(why) if why.contains("path")
        ));
        for c in "/k.json".chars() {
            unlock.update(&Action::Type(c), &mut last);
        }
        assert!(matches!(
            unlock.update(&Action::Review, &mut last),
            Unlock::Typing
        ));
        assert_eq!(last, "/k.json");
        assert!(matches!(
            unlock.update(&Action::Confirm, &mut last),
            Unlock::Refused("the passphrase is empty")
        ));
        unlock.update(&Action::Type('p'), &mut last);
        match unlock.update(&Action::Confirm, &mut last) {
            Unlock::Done { path, passphrase } => {
                assert_eq!(path, "/k.json");
                assert_eq!(passphrase.chars(), 1);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            unlock.update(&Action::Escape, &mut last),
            Unlock::Back
        ));
    }
}
