//! Desktop notifications by terminal escape: the bytes of `OSC 9`, `OSC 777;notify` and kitty's
//! `OSC 99`, wrapped for tmux passthrough, followed by the bell; and which one a terminal
//! understands, from its environment. Writing to the terminal means it works over SSH too: the
//! escape travels to the user's own terminal.

use std::io::Write;

use crate::app::alerts::Notice;
use crate::config::alerts::{Delivery, Method};

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;
/// String terminator `ESC \`.
const ST: &[u8] = b"\x1b\\";
/// The longest text put in a notification (terminals cut or refuse long ones).
const MAX_CHARS: usize = 200;

/// The bytes to write for `notice`: the notification escape (if any), then the bell.
pub fn bytes(notice: &Notice) -> Vec<u8> {
    let Delivery { method, tmux } = notice.delivery;
    let title = clean(&notice.title);
    let body = clean(&notice.body);
    let escape = match method {
        Method::Osc9 => osc(format!("9;{}", osc9_text(&body)).as_bytes(), End::Bel),
        Method::Osc777 => osc(
            format!(
                "777;notify;{};{}",
                no_semicolon(&title),
                no_semicolon(&body)
            )
            .as_bytes(),
            End::Bel,
        ),
        Method::Osc99 => {
            // kitty: the title as one chunk (d=0: more follows), then the body closes it.
            let mut b = osc(format!("99;i=papertrade:d=0;{title}").as_bytes(), End::St);
            b.extend(osc(
                format!("99;i=papertrade:p=body;{body}").as_bytes(),
                End::St,
            ));
            b
        }
        Method::Bell | Method::None => Vec::new(),
    };
    let mut out = if tmux && !escape.is_empty() {
        tmux_passthrough(&escape)
    } else {
        escape
    };
    // tmux handles a bare bell itself (bell-action, the status line) and passes it on.
    if method != Method::None {
        out.push(BEL);
    }
    out
}

/// Write `notice` to the terminal; a failure to do so is not worth stopping for.
pub fn send(notice: &Notice) {
    let mut out = std::io::stdout();
    let _ = out.write_all(&bytes(notice));
    let _ = out.flush();
}

/// How an OSC ends: BEL is the widest understood for 9 and 777; kitty documents ST for 99.
#[derive(Clone, Copy)]
enum End {
    Bel,
    St,
}

fn osc(payload: &[u8], end: End) -> Vec<u8> {
    let mut b = vec![ESC, b']'];
    b.extend_from_slice(payload);
    match end {
        End::Bel => b.push(BEL),
        End::St => b.extend_from_slice(ST),
    }
    b
}

/// `ESC P tmux; … ESC \` with every ESC inside doubled, so tmux hands it to the outer terminal
/// (tmux 3.3+ needs `set -g allow-passthrough on`).
fn tmux_passthrough(escape: &[u8]) -> Vec<u8> {
    let mut b = b"\x1bPtmux;".to_vec();
    for &c in escape {
        if c == ESC {
            b.push(ESC);
        }
        b.push(c);
    }
    b.extend_from_slice(ST);
    b
}

/// No control character (so nothing can end the escape early or start another), one line.
fn clean(text: &str) -> String {
    crate::text::sanitize_line(text, MAX_CHARS)
}

/// `OSC 9 ; <digits> ;` is a ConEmu / Windows Terminal command (progress, sleep…), not a
/// notification: a text that would read as one gets a prefix.
fn osc9_text(text: &str) -> String {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && text.as_bytes().get(digits) == Some(&b';') {
        format!("papertrade-tui: {text}")
    } else {
        text.to_string()
    }
}

/// `OSC 777` splits its fields on `;`.
fn no_semicolon(text: &str) -> String {
    text.replace(';', ",")
}

/// The method a terminal understands, from its environment (`env` answers a variable's value).
/// Unknown terminals get the bell, which every terminal has. Inside tmux the outer terminal's
/// variables are usually inherited, and `TMUX` says to wrap.
pub fn detect(env: &dyn Fn(&str) -> Option<String>) -> Delivery {
    let var = |k: &str| env(k).filter(|v| !v.is_empty());
    let term = var("TERM").unwrap_or_default();
    let program = var("TERM_PROGRAM").unwrap_or_default();
    let method = if var("KITTY_WINDOW_ID").is_some() || term == "xterm-kitty" {
        Method::Osc99
    } else if program == "iTerm.app"
        || var("ITERM_SESSION_ID").is_some()
        // iTerm2 sets it and SSH forwards LC_* by default, so it survives a login elsewhere.
        || var("LC_TERMINAL").as_deref() == Some("iTerm2")
    {
        Method::Osc9
    } else if program == "WezTerm"
        || program == "ghostty"
        || var("WEZTERM_PANE").is_some()
        || var("GHOSTTY_RESOURCES_DIR").is_some()
        || term == "xterm-ghostty"
        || term.starts_with("foot")
        || term.starts_with("rxvt-unicode")
        || var("VTE_VERSION").is_some()
    {
        Method::Osc777
    } else {
        // ConEmu and Windows Terminal read OSC 9 as their own commands; others ignore it.
        Method::Bell
    };
    Delivery {
        method,
        tmux: var("TMUX").is_some(),
    }
}

/// [`detect`] on this process's environment.
pub fn detect_here() -> Delivery {
    detect(&|k| std::env::var(k).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice(method: Method, tmux: bool, body: &str) -> Notice {
        Notice {
            delivery: Delivery { method, tmux },
            title: "papertrade-tui".into(),
            body: body.into(),
        }
    }

    fn b(method: Method, tmux: bool, body: &str) -> String {
        String::from_utf8(bytes(&notice(method, tmux, body))).unwrap()
    }

    #[test]
    fn each_method_writes_its_exact_bytes() {
        assert_eq!(b(Method::Osc9, false, "BTC 1%"), "\x1b]9;BTC 1%\x07\x07");
        assert_eq!(
            b(Method::Osc777, false, "BTC; 1%"),
            "\x1b]777;notify;papertrade-tui;BTC, 1%\x07\x07"
        );
        assert_eq!(
            b(Method::Osc99, false, "BTC; 1%"),
            "\x1b]99;i=papertrade:d=0;papertrade-tui\x1b\\\x1b]99;i=papertrade:p=body;BTC; 1%\x1b\\\x07"
        );
        assert_eq!(b(Method::Bell, false, "x"), "\x07");
        assert_eq!(b(Method::Bell, true, "x"), "\x07");
        assert_eq!(b(Method::None, true, "x"), "");
    }

    #[test]
    fn inside_tmux_the_escape_is_wrapped_with_every_esc_doubled_and_the_bell_is_not() {
        assert_eq!(
            b(Method::Osc9, true, "hi"),
            "\x1bPtmux;\x1b\x1b]9;hi\x07\x1b\\\x07"
        );
        assert_eq!(
            b(Method::Osc99, true, "hi"),
            "\x1bPtmux;\x1b\x1b]99;i=papertrade:d=0;papertrade-tui\x1b\x1b\\\x1b\x1b]99;i=papertrade:p=body;hi\x1b\x1b\\\x1b\\\x07"
        );
    }

    #[test]
    fn an_osc9_text_that_reads_as_a_conemu_command_is_prefixed() {
        assert_eq!(
            b(Method::Osc9, false, "4;1 BTC"),
            "\x1b]9;papertrade-tui: 4;1 BTC\x07\x07"
        );
        // Digits not followed by `;` are a name, not a command.
        assert_eq!(
            b(Method::Osc9, false, "1000PEPE"),
            "\x1b]9;1000PEPE\x07\x07"
        );
    }

    #[test]
    fn control_characters_never_reach_the_escape() {
        let out = bytes(&notice(
            Method::Osc777,
            false,
            "BTC\x1b]0;owned\x07\u{9c}\r\nnext",
        ));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\x1b]777;notify;papertrade-tui;BTC next\x07\x07"
        );
    }

    #[test]
    fn the_terminal_is_read_from_its_environment() {
        let with = |pairs: &[(&str, &str)]| {
            let pairs: Vec<(String, String)> = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            detect(&move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()))
        };
        let m = |pairs: &[(&str, &str)]| with(pairs).method;
        assert_eq!(m(&[("KITTY_WINDOW_ID", "1")]), Method::Osc99);
        assert_eq!(m(&[("TERM", "xterm-kitty")]), Method::Osc99);
        assert_eq!(m(&[("TERM_PROGRAM", "iTerm.app")]), Method::Osc9);
        assert_eq!(m(&[("LC_TERMINAL", "iTerm2")]), Method::Osc9);
        assert_eq!(m(&[("TERM_PROGRAM", "WezTerm")]), Method::Osc777);
        assert_eq!(m(&[("TERM", "foot")]), Method::Osc777);
        assert_eq!(m(&[("VTE_VERSION", "7600")]), Method::Osc777);
        assert_eq!(m(&[("TERM", "xterm-256color")]), Method::Bell);
        assert_eq!(m(&[("WT_SESSION", "x"), ("TERM", "xterm")]), Method::Bell);
        assert_eq!(m(&[]), Method::Bell);
        let tmux = with(&[
            ("TMUX", "/tmp/tmux-1/default,1,0"),
            ("TERM", "tmux-256color"),
        ]);
        assert!(tmux.tmux);
        assert!(!with(&[("TMUX", "")]).tmux);
    }
}
