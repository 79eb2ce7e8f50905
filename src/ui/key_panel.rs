//! The session-key panel (`g`): the key as the exchange lists it, and the steps that generate,
//! register, renew or clear it. A passphrase field shows one dot a character, never the text.

use std::time::SystemTime;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::field::OwnerUnlock;
use crate::app::key_setup::{KeyPanel, KeyStep, Waiting};
use crate::app::{App, KeyState};
use crate::keys::SESSION_TTL_SECS;

use super::short;
use super::theme::Theme;

/// Whole days and hours of `secs`, for a person.
fn span_text(secs: u64) -> String {
    if secs >= 86_400 {
        format!("{}d {}h", secs / 86_400, secs % 86_400 / 3600)
    } else {
        format!("{}h {}m", secs / 3600, secs % 3600 / 60)
    }
}

fn masked(chars: usize) -> String {
    format!("{}▏", "•".repeat(chars.min(40)))
}

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
    let Some(panel) = &app.key_panel else { return };
    let now_s = crate::clock::unix_s(now);
    let mut lines = Vec::new();
    if let Some(owner) = &app.wallet {
        lines.push(Line::from(format!("owner     {owner:#x}")));
    }
    lines.push(match &app.key {
        Some(k) => Line::from(format!("key       {:#x} · {}", k.address, k.backend)),
        None => Line::styled(
            "key       none stored: trading is not enabled",
            theme.warn(),
        ),
    });
    let (exchange, warn) = match app.key_state(now_s) {
        KeyState::Valid { until } => (
            format!(
                "exchange  registered, usable for {}",
                span_text(until - now_s)
            ),
            app.key_needs_renewal(now_s).is_some(),
        ),
        KeyState::Registering => ("exchange  registration queued…".into(), false),
        KeyState::NotRegistered => ("exchange  not registered".into(), true),
        KeyState::Expired => ("exchange  EXPIRED".into(), true),
        KeyState::Unknown => ("exchange  account not read yet".into(), false),
        KeyState::Missing => ("exchange  —".into(), false),
    };
    lines.push(if warn {
        Line::styled(exchange, theme.warn())
    } else {
        Line::from(exchange)
    });
    let width = 92.min(area.width);
    demo_lines(&mut lines, app, width.saturating_sub(2) as usize, theme);
    lines.push(Line::from(""));
    step_lines(&mut lines, panel, app, theme);
    if let Some((text, error)) = &panel.status {
        lines.push(Line::from(""));
        // Statuses quote the exchange's refusals and file paths: untrusted text.
        let text = crate::text::sanitize_line(text, 400);
        lines.push(Line::styled(
            text,
            if *error { theme.loss() } else { theme.gain() },
        ));
    }
    let height = (lines.len() as u16 + 6).min(area.height);
    let inner = super::overlay(frame, area, width, height, "Session key (Esc closes)");
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// A demo's export line, for scripting against it from another terminal while the UI runs:
/// as `export` commands that each fit the panel's `width`, so a terminal's copy of a row (or of
/// all of them) runs as pasted; a row never wraps mid-value.
fn demo_lines(lines: &mut Vec<Line<'static>>, app: &App, width: usize, theme: &Theme) {
    if app.demo_environment.is_empty() {
        return;
    }
    lines.push(Line::from(""));
    lines.push(Line::styled(
        "From another terminal, these point papertrade-tui commands at this demo:",
        theme.dim(),
    ));
    let mut group: Vec<(String, String)> = Vec::new();
    for var in &app.demo_environment {
        group.push(var.clone());
        if group.len() > 1 && crate::text::export_line(&group).chars().count() > width {
            let last = group.pop().expect("pushed above");
            lines.push(export_row(&group));
            group = vec![last];
        }
    }
    lines.push(export_row(&group));
}

fn export_row(vars: &[(String, String)]) -> Line<'static> {
    // The data dir comes from the environment: shown, never interpreted by the terminal.
    Line::from(crate::text::sanitize_line(
        &crate::text::export_line(vars),
        400,
    ))
}

fn step_lines(lines: &mut Vec<Line<'static>>, panel: &KeyPanel, app: &App, theme: &Theme) {
    let key = app
        .key
        .as_ref()
        .map(|k| short(&k.address))
        .unwrap_or_else(|| "—".into());
    let days = SESSION_TTL_SECS / 86_400;
    match &panel.step {
        KeyStep::Menu => {
            lines.push(Line::from(
                "n  generate a new session key (OS keyring, else an encrypted file)",
            ));
            lines.push(Line::from(format!(
                "r  register or renew for {days} days: the owner signs with their keystore file"
            )));
            lines.push(Line::from(
                "e  register or renew: an external wallet signs the typed data, paste the signature",
            ));
            lines.push(Line::from("c  clear the stored key"));
            lines.push(Line::styled(
                "The session key opens, closes and cancels; it can never withdraw.",
                theme.dim(),
            ));
        }
        KeyStep::NewPassphrase { first, typing } => {
            lines.push(Line::from(
                "The new key goes to an encrypted keystore file; its passphrase unlocks it \
                 each time the UI starts.",
            ));
            let which = if first.is_some() { "again" } else { "new" };
            lines.push(Line::from(format!(
                "passphrase ({which}): {}",
                masked(typing.chars())
            )));
        }
        KeyStep::Owner(OwnerUnlock::Path(path)) => {
            lines.push(Line::from(
                "The owner's Web3 Secret Storage keystore file (made by `papertrade-tui key \
                 owner-new`, Foundry or geth):",
            ));
            lines.push(Line::from(format!(
                "file: {}▏",
                crate::text::sanitize_line(path, 200)
            )));
        }
        KeyStep::Owner(OwnerUnlock::Passphrase { path, typing }) => {
            lines.push(Line::from(format!(
                "Enter signs RegisterSessionKey with {}: key {key} for the owner, {days} days \
                 from now, zero fee address; and sends it once.",
                crate::text::sanitize_line(path, 120)
            )));
            lines.push(Line::from(format!(
                "owner keystore passphrase: {}",
                masked(typing.chars())
            )));
        }
        KeyStep::Signature { text } => {
            if let Some(path) = &panel.typed_data {
                lines.push(Line::from(format!(
                    "RegisterSessionKey for key {key}, {days} days: typed data \
                     (eth_signTypedData_v4) in {}",
                    path.display()
                )));
            }
            lines.push(Line::from(
                "Sign it with the owner's wallet and paste the 0x… signature (it must recover \
                 to the owner):",
            ));
            let count = text.chars().count();
            let shown = if count > 24 {
                let head: String = text.chars().take(12).collect();
                let tail: String = text.chars().skip(count - 6).collect();
                format!(
                    "{}…{} ({count} of 132 characters)",
                    crate::text::sanitize_line(&head, 12),
                    crate::text::sanitize_line(&tail, 6)
                )
            } else {
                crate::text::sanitize_line(text, 24)
            };
            lines.push(Line::from(format!("signature: {shown}▏")));
        }
        KeyStep::ConfirmClear => {
            let backend = app.key.as_ref().map_or("store", |k| k.backend);
            lines.push(Line::styled(
                format!(
                    "Remove session key {key} from the {backend}? A new key trades only after \
                     the owner signs again. y removes it; any other key keeps it."
                ),
                theme.warn(),
            ));
        }
        KeyStep::Working(w) => lines.push(Line::styled(
            match w {
                Waiting::Generate => "generating and storing the key (scrypt: a few seconds)…",
                Waiting::Keystore => "unlocking the owner keystore, signing, sending once…",
                Waiting::TypedData => "writing the typed data…",
                Waiting::Signature => "checking the signature, sending once…",
                Waiting::Clear => "removing the key…",
            },
            theme.dim(),
        )),
    }
}
