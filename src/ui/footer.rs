//! The footer: the latest message (for a few seconds; notes until dismissed) and the hint bar
//! of what is focused.

use ratatui::Frame;
use ratatui::layout::Rect;
use std::time::SystemTime;

use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::App;
use crate::config::keys::Command;

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
    let hints = Line::styled(bar(app.hints(now), area.width), theme.dim());
    frame.render_widget(Paragraph::new(vec![toast, hints]), area);
}

/// The hint bar in `width` columns: when it does not fit, the tabs and quit hints go first,
/// then the pane's last hints, and "help" stays (the help lists every key).
fn bar(mut hints: Vec<super::Hint>, width: u16) -> String {
    let text = |hints: &[super::Hint]| {
        hints
            .iter()
            .map(|h| format!("{} {}", h.key, h.what))
            .collect::<Vec<_>>()
            .join(" · ")
    };
    let fits = |hints: &[super::Hint]| text(hints).chars().count() <= usize::from(width);
    for what in ["tabs", "quit"] {
        if fits(&hints) {
            break;
        }
        hints.retain(|h| h.what != what);
    }
    while !fits(&hints) && hints.len() > 1 {
        let last_other = hints.iter().rposition(|h| h.what != "help");
        match last_other {
            Some(i) => hints.remove(i),
            None => break,
        };
    }
    text(&hints)
}

#[cfg(test)]
mod tests {
    use super::super::Hint;
    use super::bar;

    #[test]
    fn a_bar_too_wide_drops_tabs_and_quit_then_the_last_pane_hints_and_keeps_help() {
        let hints = || {
            vec![
                Hint::fixed("⏎", "open"),
                Hint::fixed("/", "search"),
                Hint::fixed("1-8", "tabs"),
                Hint::fixed("?", "help"),
                Hint::fixed("Q", "quit"),
            ]
        };
        let all = "⏎ open · / search · 1-8 tabs · ? help · Q quit";
        assert_eq!(bar(hints(), 80), all);
        assert_eq!(bar(hints(), 30), "⏎ open · / search · ? help");
        assert_eq!(bar(hints(), 16), "⏎ open · ? help");
        assert_eq!(bar(hints(), 3), "? help", "help is the last to stay");
    }
}
