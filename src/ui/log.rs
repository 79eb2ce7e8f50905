//! The message log overlay (`e`): every outcome, refusal and note of this session, newest first,
//! with its time (UTC), so nothing a toast said is lost to the one after it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::App;

use super::theme::Theme;

/// `HH:MM:SS` of a unix time, in UTC (the terminal's zone is not known to the process).
pub(super) fn time_of_day(at: std::time::SystemTime) -> String {
    let s = crate::clock::unix_s(at) % 86_400;
    format!("{:02}:{:02}:{:02}", s / 3600, s % 3600 / 60, s % 60)
}

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let lines: Vec<Line> = if app.toasts.is_empty() {
        vec![Line::from("no messages yet")]
    } else {
        app.toasts
            .iter()
            .rev()
            .map(|t| {
                Line::from(vec![
                    Span::styled(format!("{} ", time_of_day(t.at)), theme.dim()),
                    Span::styled(
                        t.text.clone(),
                        if t.error { theme.loss() } else { theme.text() },
                    ),
                ])
            })
            .collect()
    };
    let height = area.height.saturating_sub(2).max(3);
    let inner = super::overlay(
        frame,
        area,
        110,
        height,
        "Messages, newest first, UTC (Esc closes)",
    );
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
