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
        } else if let Some(intro) = c1_introducer(c) {
            // The 8-bit forms of CSI, OSC, DCS…: their parameters go with them.
            skip_sequence(intro, &mut chars);
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

/// Sanitise every string (and object key) of a JSON document in place, so untrusted text from
/// the network reaches a program's terminal no more dangerous than it reaches ours. Strings are
/// not shortened: a program may need all of a notice.
pub fn sanitize_json(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) if s.chars().any(needs_cleaning) => *s = sanitize_line(s, usize::MAX),
        Value::Array(items) => items.iter_mut().for_each(sanitize_json),
        Value::Object(map) => {
            if map.keys().any(|k| k.chars().any(needs_cleaning)) {
                let old = std::mem::take(map);
                for (k, v) in old {
                    map.insert(sanitize_line(&k, usize::MAX), v);
                }
            }
            map.values_mut().for_each(sanitize_json);
        }
        _ => {}
    }
}

/// Whether `sanitize_line` would change anything but runs of ordinary spaces.
fn needs_cleaning(c: char) -> bool {
    c.is_control() || is_format_char(c) || (c.is_whitespace() && c != ' ')
}

fn is_format_char(c: char) -> bool {
    matches!(c, '\u{61c}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

/// The ESC-sequence letter an 8-bit C1 introducer stands for (CSI → `[`, OSC → `]`, …).
fn c1_introducer(c: char) -> Option<char> {
    match c {
        '\u{9b}' => Some('['),
        '\u{9d}' => Some(']'),
        '\u{90}' => Some('P'),
        '\u{9e}' => Some('^'),
        '\u{9f}' => Some('_'),
        '\u{98}' => Some('X'),
        _ => None,
    }
}

/// Skip the rest of an escape sequence after ESC: CSI (`[` … final byte), OSC/DCS/PM/APC/SOS
/// (… BEL or ESC `\`), or a single following character.
fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    if let Some(intro) = chars.next() {
        skip_sequence(intro, chars);
    }
}

/// Skip a sequence's body once its introducer (`[`, `]`, `P`…) is known.
fn skip_sequence(intro: char, chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match intro {
        '[' => {
            for c in chars.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&c) {
                    break;
                }
            }
        }
        ']' | 'P' | '^' | '_' | 'X' => {
            while let Some(c) = chars.next() {
                if c == '\u{7}' || c == '\u{9c}' {
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

/// `export A=1 B=2`, each value quoted for sh where it needs it (a data dir with a space), so
/// the line runs as pasted.
pub fn export_line<K: AsRef<str>>(vars: &[(K, String)]) -> String {
    let words: Vec<String> = vars
        .iter()
        .map(|(k, v)| format!("{}={}", k.as_ref(), shell_word(v)))
        .collect();
    format!("export {}", words.join(" "))
}

/// `s` as one sh word: as it is when made of safe characters only, else single-quoted.
fn shell_word(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_-./:@%+,=".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
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
        // 8-bit introducers take their parameters with them.
        assert_eq!(sanitize_line("a\u{9b}31mb", 80), "ab");
        assert_eq!(sanitize_line("a\u{9d}0;title\u{9c}b", 80), "ab");
        assert_eq!(sanitize_line("a\u{61c}b", 80), "ab");
    }

    #[test]
    fn json_documents_are_cleaned_everywhere() {
        let mut v = serde_json::json!({
            "pausedActions": ["open\u{9b}2J", "\u{202e}esolc"],
            "notice": {"title\u{1b}[31m": "a\nb\u{7}"},
            "n": 5,
            "fine": "0xabc",
        });
        sanitize_json(&mut v);
        assert_eq!(
            v,
            serde_json::json!({
                "pausedActions": ["open", "esolc"],
                "notice": {"title": "a b"},
                "n": 5,
                "fine": "0xabc",
            })
        );
    }

    #[test]
    fn export_lines_run_as_pasted() {
        let vars = [
            ("A", "http://127.0.0.1:8787/info".to_string()),
            ("B", "/home/x/my data".to_string()),
            ("C", "it's".to_string()),
            ("D", String::new()),
        ];
        assert_eq!(
            export_line(&vars),
            r"export A=http://127.0.0.1:8787/info B='/home/x/my data' C='it'\''s' D=''"
        );
    }
}
