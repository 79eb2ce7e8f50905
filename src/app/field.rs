//! Typing into a field, one way everywhere: a [`TextField`] says which characters a field takes
//! and how many, and edits its text on a key; a [`SecretField`] does the same for a passphrase,
//! which lives only in its `Passphrase` (never copied, never shown). The explorer's search, the
//! Fund tab's amount, a keystore path, a pasted signature and every passphrase are typed
//! through these, so Backspace and the limits work alike on every pane.

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
}
