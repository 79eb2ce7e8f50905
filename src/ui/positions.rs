//! The positions table: what a close pays now, bust, distance, risk.

use std::time::SystemTime;

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table};

use crate::app::{App, Command, Tab};
use crate::feed::market::Source;
use crate::protocol::units::{price_display as price, signed, usd_signed_text, usd_text};
use crate::quote::{Position, percent_text};

use super::theme::Theme;
use super::{Hint, STALE_AFTER, age_text};

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
    // Beside the ticket on a narrow terminal only the essentials fit.
    let compact = area.width < 70;
    // A pane whose data is old says so in its title.
    let stale = match app.freshness.age(Source::Account, now) {
        Some(age) if age <= STALE_AFTER => String::new(),
        Some(age) => format!("— STALE {} ", age_text(Some(age))),
        None => "— no account data yet ".into(),
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .title(format!(" Positions ({}) {stale}", app.positions().len()));
    let Some(state) = &app.trading else {
        frame.render_widget(
            Paragraph::new("waiting for market data…").block(block),
            area,
        );
        return;
    };
    if app.positions().is_empty() {
        frame.render_widget(Paragraph::new("no open positions").block(block), area);
        return;
    }
    let fee = state.win_fee_rate();
    let rows: Vec<Row> = app
        .positions()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            // A position in a market the trading state does not list is still shown (and can be
            // selected and closed); what needs the market's parameters is marked unknown.
            let m = state.market_by_id(p.instrument_id);
            let mark = m.and_then(|m| app.marks.get(&m.id).copied());
            let (pays, risk, distance, style) = match (m, mark) {
                (Some(m), Some(mark)) => {
                    let sc = Position::held(m, p).scenario(fee, mark);
                    let net = sc.net_pnl(p.margin);
                    let risk = crate::protocol::math::risk_bps(
                        p.entry_price,
                        p.bust_price,
                        mark,
                        p.is_long,
                    );
                    // How far the mark may still move against the position, as a percent of it.
                    let room = crate::protocol::math::room_to_bust(mark, p.bust_price, p.is_long);
                    let distance = format!("{}%", percent_text(room, u128::from(mark), 2));
                    (
                        usd_signed_text(net),
                        risk_bar(risk),
                        distance,
                        theme.signed(net),
                    )
                }
                (None, _) => ("market ?".into(), String::new(), "—".into(), theme.warn()),
                (Some(_), None) => ("—".into(), String::new(), "—".into(), theme.text()),
            };
            let symbol = m
                .map(|m| m.symbol.clone())
                .unwrap_or_else(|| format!("#{}", p.instrument_id));
            let at_scale = |raw: u64| {
                m.map(|m| price(raw, m.price_scale))
                    .unwrap_or_else(|| "?".into())
            };
            let mark_flag = if app.marked.contains(&p.id) {
                "●"
            } else {
                " "
            };
            let side = format!("{symbol} {}", if p.is_long { "▲L" } else { "▼S" });
            let cells = if compact {
                vec![
                    Cell::from(format!("{mark_flag}{}", p.id)),
                    Cell::from(side),
                    Cell::from(format!("{}x", p.leverage)),
                    Cell::from(pays).style(style),
                ]
            } else {
                vec![
                    Cell::from(format!("{mark_flag}{}", p.id)),
                    Cell::from(side),
                    Cell::from(format!("{}x", p.leverage)),
                    Cell::from(usd_text(signed(p.margin))),
                    Cell::from(at_scale(p.entry_price)),
                    Cell::from(at_scale(p.bust_price)),
                    Cell::from(distance),
                    Cell::from(pays).style(style),
                    Cell::from(risk),
                ]
            };
            let row = Row::new(cells);
            if i == app.position_cursor && app.tab == Tab::Positions {
                row.style(theme.selected())
            } else {
                row
            }
        })
        .collect();
    let (widths, header) = if compact {
        (
            vec![
                Constraint::Length(8),
                Constraint::Length(7),
                Constraint::Length(6),
                Constraint::Min(9),
            ],
            Row::new(["ID", "MKT", "LEV", "CLOSE PAYS"]),
        )
    } else {
        (
            vec![
                Constraint::Length(8),
                Constraint::Length(7),
                Constraint::Length(5),
                Constraint::Length(8),
                Constraint::Length(9),
                Constraint::Length(9),
                Constraint::Length(7),
                Constraint::Length(10),
                Constraint::Min(10),
            ],
            Row::new([
                "ID", "MKT", "LEV", "MARGIN", "ENTRY", "BUST", "TO BUST", "PAYS NOW", "RISK",
            ]),
        )
    };
    let header = header.style(theme.title());
    frame.render_widget(Table::new(rows, widths).header(header).block(block), area);
}

/// A five-cell bar of how far the mark has gone toward bust.
fn risk_bar(bps: u32) -> String {
    let filled = (bps as usize * 5).div_ceil(10_000).min(5);
    format!(
        "{}{} {:>3}%",
        "█".repeat(filled),
        "░".repeat(5 - filled),
        bps / 100
    )
}

pub(super) fn commands(app: &App) -> Vec<Hint> {
    vec![
        Hint::fixed("↑↓", "move"),
        Hint::command(app, Command::Mark, "mark"),
        Hint::command(app, Command::Close, "close"),
    ]
}
