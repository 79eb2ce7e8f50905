//! The protocol pane: TVL, LP, volume, fees, payout queue, relayer health and notices.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::app::App;
use crate::protocol::units::{signed, usd_text};
use crate::text::sanitize_line;

use super::theme::Theme;

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let block = Block::default().borders(Borders::ALL).title(" Protocol ");
    let mut lines = Vec::new();
    match &app.summary {
        Some(s) => {
            lines.push(Line::from(format!(
                "TVL {}   LP {}",
                usd_text(signed(s.balances.tvl)),
                usd_text(s.balances.lp)
            )));
            lines.push(Line::from(format!(
                "volume {}   fees {}   payout queue {}",
                usd_text(signed(s.activity.volume)),
                usd_text(signed(s.fees.lifetime)),
                usd_text(signed(s.balances.queue))
            )));
            lines.push(Line::from(format!("open positions {}", s.activity.open)));
        }
        None => lines.push(Line::styled("summary not loaded yet", theme.dim())),
    }
    if let Some(h) = &app.health {
        lines.push(Line::from(format!(
            "relayer {}",
            if h.is_ready() { "ready" } else { "NOT READY" }
        )));
        if let Some(notices) = h.extra.get("notices").and_then(|n| n.as_array()) {
            for n in notices.iter().take(5) {
                let text =
                    |k: &str| sanitize_line(n.get(k).and_then(|v| v.as_str()).unwrap_or(""), 120);
                lines.push(Line::styled(
                    format!(
                        "notice [{}] {}: {}",
                        text("level"),
                        text("title"),
                        text("body")
                    ),
                    theme.warn(),
                ));
            }
        }
    }
    frame.render_widget(
        Paragraph::new(lines).block(block).wrap(Wrap { trim: true }),
        area,
    );
}

pub(super) fn commands(_app: &App) -> Vec<super::Hint> {
    Vec::new()
}
