//! The footer: the latest toast and the hint bar of what is focused.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use crate::app::App;

use super::theme::Theme;

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let toast = app
        .toasts
        .back()
        .map(|t| {
            Line::styled(
                t.text.clone(),
                if t.error { theme.loss() } else { theme.gain() },
            )
        })
        .unwrap_or_default();
    let bar: Vec<String> = super::hints(app)
        .into_iter()
        .map(|h| format!("{} {}", h.key, h.what))
        .collect();
    let hints = Line::styled(bar.join(" · "), theme.dim());
    frame.render_widget(Paragraph::new(vec![toast, hints]), area);
}
