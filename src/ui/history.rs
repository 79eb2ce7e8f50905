//! Positions closed this session and the wallet's entries in the recent-trades feed.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table};

use crate::app::App;
use crate::protocol::units::{signed, usd_signed_text};
use crate::text::sanitize_line;

use super::theme::Theme;

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let trades_height = (app.my_trades.len() as u16 + 3).clamp(3, 12);
    let [closed_area, trades_area] =
        Layout::vertical([Constraint::Min(4), Constraint::Length(trades_height)]).areas(area);
    draw_recent_trades(frame, trades_area, app, theme);
    let area = closed_area;
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" History (this session) ");
    if app.history.is_empty() {
        frame.render_widget(Paragraph::new("no closed positions yet").block(block), area);
        return;
    }
    let symbol = |id: u32| {
        app.trading
            .as_ref()
            .and_then(|s| s.market_by_id(id))
            .map(|m| m.symbol.clone())
            .unwrap_or_default()
    };
    let rows: Vec<Row> = app
        .history
        .iter()
        .map(|c| {
            Row::new(vec![
                Cell::from(c.id.to_string()),
                Cell::from(format!(
                    "{} {}",
                    symbol(c.instrument_id),
                    if c.is_long { "▲L" } else { "▼S" }
                )),
                Cell::from(format!("{}x", c.leverage)),
                Cell::from(usd_signed_text(c.net_pnl)).style(theme.signed(c.net_pnl)),
                Cell::from(if c.liquidated { "liquidated" } else { "closed" }),
                Cell::from(crate::protocol::units::wad_text(signed(c.paper_minted), 2)),
            ])
        })
        .collect();
    let widths = [
        Constraint::Length(8),
        Constraint::Length(7),
        Constraint::Length(6),
        Constraint::Length(12),
        Constraint::Length(11),
        Constraint::Min(8),
    ];
    let header = Row::new(["ID", "MKT", "LEV", "NET PNL", "", "PAPER"]).style(theme.title());
    frame.render_widget(Table::new(rows, widths).header(header).block(block), area);
}

/// The wallet's entries in the protocol's recent-trades feed (opens, closes, liquidations).
fn draw_recent_trades(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    use crate::protocol::stats::TradeKind;
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Recent trades of this wallet ");
    if app.my_trades.is_empty() {
        frame.render_widget(
            Paragraph::new("none in the protocol's recent feed")
                .style(theme.dim())
                .block(block),
            area,
        );
        return;
    }
    let lines: Vec<Line> = app
        .my_trades
        .iter()
        .map(|t| {
            let kind = match t.kind {
                TradeKind::Open => "open ",
                TradeKind::Close => "close",
                TradeKind::Liq => "LIQ  ",
            };
            let side = match t.side {
                crate::protocol::stats::Side::Long => "▲L",
                crate::protocol::stats::Side::Short => "▼S",
            };
            // The feed's figures are the exchange's display floats; its text is untrusted.
            let price = t
                .entry
                .or(t.exit)
                .map(|p| format!("{p}"))
                .unwrap_or_default();
            let pnl = t
                .pnl_usd
                .map(|p| format!(" pnl {p:+.2}"))
                .unwrap_or_default();
            Line::from(format!(
                "{kind} #{} {} {side} {}x notional ${:.2} @ {price}{pnl}",
                t.position_id.map(|p| p.to_string()).unwrap_or_default(),
                sanitize_line(&t.instrument, 12),
                t.leverage,
                t.notional_usd
            ))
        })
        .collect();
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
