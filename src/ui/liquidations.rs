//! The Liquidations tab: over a scan of the wallets with the most open notional, the ticket's
//! market's bust map around the mark and the positions closest to bust, with the scan's coverage
//! of open interest beside every figure.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::analytics::liquidations as liq;
use crate::app::{App, Command};
use crate::protocol::units::{signed, usd_text};
use crate::quote::percent_text;
use crate::text::sanitize_line;

use super::theme::Theme;
use super::{Hint, loaded};

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let l = &app.explore.liquidations;
    let market = app.ticket_market();
    let title = match market {
        Some((m, _)) => format!(" Liquidations · {} ", sanitize_line(&m.symbol, 12)),
        None => " Liquidations ".to_string(),
    };
    let block = Block::default().borders(Borders::ALL).title(title);
    let mut lines = vec![Line::from(loaded::status(&l.scan))];
    if let (Some(scan), Some(state), Some((m, Some(mark)))) =
        (l.scan.value.as_ref(), app.trading.as_ref(), market)
    {
        let book = liq::book(&scan.accounts(l.wallets), state, &app.marks);
        let cov = liq::coverage(&book, state, &app.marks, Some(m.id));
        let positions: Vec<&liq::AtRisk> = book.in_market(Some(m.id)).collect();
        let map = liq::bust_map(
            &positions,
            mark,
            m.price_scale,
            liq::default_bucket(mark),
            liq::DEFAULT_BUCKETS,
            Some(l.cascade_percent * 100),
        );
        lines.push(Line::from(format!(
            "{} positions of {} wallets · coverage {}% of {} open interest",
            positions.len(),
            scan.accounts(l.wallets).len(),
            percent_text(signed(cov.scanned_usd), cov.total_usd, 1),
            usd_text(signed(cov.total_usd)),
        )));
        if let Some(c) = &map.cascade {
            lines.push(Line::from(format!(
                "a ±{}% move busts {} of longs and {} of shorts ({} positions)",
                l.cascade_percent,
                usd_text(signed(c.totals.long_notional)),
                usd_text(signed(c.totals.short_notional)),
                c.totals.positions(),
            )));
        }
    }
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .style(theme.text())
            .wrap(Wrap { trim: true }),
        area,
    );
}

pub(super) fn commands(app: &App) -> Vec<Hint> {
    vec![
        Hint::command(app, Command::Market, "market"),
        Hint::command(app, Command::CascadeUp, "cascade +1%"),
        Hint::command(app, Command::CascadeDown, "−1%"),
    ]
}
