//! A drawn screen as text, one line a row with trailing blanks trimmed: how the UI tests read
//! what a person would see.

use papertrade_tui::app::App;
use papertrade_tui::ui::{draw, theme::Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

/// `app` drawn at `width`×`height` in the plain theme, at the app's own clock.
pub fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|f| draw(f, app, &Theme::plain(), app.clock))
        .unwrap();
    text(terminal.backend().buffer())
}

pub fn text(buffer: &Buffer) -> String {
    let area = buffer.area;
    (area.top()..area.bottom())
        .map(|y| {
            let line: String = (area.left()..area.right())
                .map(|x| buffer[(x, y)].symbol())
                .collect();
            line.trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}
