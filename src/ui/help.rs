//! The `?` overlay: first what the pane underneath answers to, then every key that does
//! something, from the live keymap. A key it does not list does nothing.

use std::time::SystemTime;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::App;
use crate::config::keys::Command;

use super::keymap;
use super::theme::Theme;

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
    let row = |key: &str, what: &str| {
        Line::from(vec![
            Span::styled(format!("{key:>9}  "), theme.title()),
            Span::raw(what.to_string()),
        ])
    };
    // One line of what the pane underneath answers to, then every key.
    let here: Vec<String> = app
        .pane_hints(now)
        .into_iter()
        .map(|h| format!("{} {}", h.key, h.what))
        .collect();
    let mut lines = vec![row("here", &here.join(" · "))];
    if !app.demo_environment.is_empty() {
        let panel = app.keymap.key_of(Command::SessionKey);
        lines.push(row(
            "demo",
            &format!("{panel} key panel: export lines for scripts in another terminal"),
        ));
    }
    lines.extend(
        keymap::help_lines(&app.keymap)
            .iter()
            .map(|(key, what)| row(key, what)),
    );
    let inner = super::overlay(frame, area, 76, lines.len() as u16 + 2, "Keys (Esc closes)");
    frame.render_widget(Paragraph::new(lines), inner);
}
