//! Untrusted text (names, notices, error messages from the network) made safe for a terminal.

/// Strip control characters and escape sequences, collapse whitespace to single spaces, and cut
/// to `max_chars` characters (with `…`). The result can never move the cursor or recolour.
pub fn sanitize_line(text: &str, max_chars: usize) -> String {
    let mut clean: Vec<char> = Vec::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut pending_space = false;
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            skip_escape(&mut chars);
        } else if c.is_whitespace() {
            pending_space = !clean.is_empty();
        } else if !(c.is_control() || is_format_char(c)) {
            // C0, DEL and C1 controls and bidi/format characters are dropped above.
            if pending_space {
                clean.push(' ');
                pending_space = false;
            }
            clean.push(c);
        }
    }
    if clean.len() > max_chars {
        clean.truncate(max_chars.saturating_sub(1));
        clean.push('…');
    }
    clean.into_iter().collect()
}

fn is_format_char(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

/// Skip the rest of an escape sequence after ESC: CSI (`[` … final byte), OSC/DCS/PM/APC/SOS
/// (… BEL or ESC `\`), or a single following character.
fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.next() {
        Some('[') => {
            for c in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&c) {
                    break;
                }
            }
        }
        Some(']' | 'P' | '^' | '_' | 'X') => {
            while let Some(c) = chars.next() {
                if c == '\u{7}' {
                    break;
                }
                if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                    chars.next();
                    break;
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_escapes_and_controls() {
        assert_eq!(sanitize_line("hi\u{1b}[2J\u{1b}[31mthere", 80), "hithere");
        assert_eq!(sanitize_line("a\u{1b}]0;title\u{7}b", 80), "ab");
        assert_eq!(sanitize_line("a\u{1b}]8;;http://x\u{1b}\\b", 80), "ab");
        assert_eq!(
            sanitize_line("line\r\nnext\tcol\u{0}\u{9b}", 80),
            "line next col"
        );
        assert_eq!(sanitize_line("\u{202e}evil", 80), "evil");
        assert_eq!(sanitize_line("abcdefgh", 5), "abcd…");
        assert_eq!(sanitize_line("abcde", 5), "abcde");
        assert_eq!(sanitize_line("  spaced   out  ", 80), "spaced out");
    }
}
