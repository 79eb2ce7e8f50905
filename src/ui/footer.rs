//! The footer: the latest message (for a few seconds; notes until dismissed) and the hint bar
//! of what is focused.

use ratatui::Frame;
use ratatui::layout::Rect;
use std::time::SystemTime;

use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::{App, Command};

use super::theme::Theme;

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
    // The latest fresh message (or a note until dismissed); older ones are in the log.
    let toast = app
        .toasts
        .current(now)
        .map(|t| {
            let more = match app.toasts.other_fresh(now) {
                0 => String::new(),
                n => format!(
                    "  (+{n} more: {} log)",
                    app.keymap.key_of(Command::Messages)
                ),
            };
            Line::from(vec![
                Span::styled(
                    t.text.clone(),
                    if t.error { theme.loss() } else { theme.gain() },
                ),
                Span::styled(more, theme.dim()),
            ])
        })
        .unwrap_or_default();
    let bar: Vec<String> = super::hints(app)
        .into_iter()
        .map(|h| format!("{} {}", h.key, h.what))
        .collect();
    let hints = Line::styled(bar.join(" · "), theme.dim());
    frame.render_widget(Paragraph::new(vec![toast, hints]), area);
}
