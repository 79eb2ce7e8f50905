//! The positions table: what a close pays now, bust, distance, risk.

use std::time::SystemTime;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table};

use crate::app::{App, Tab};
use crate::events::market::Source;
use crate::protocol::pretrade::percent_text;
use crate::protocol::units::{price_display as price, signed, usd_signed_text, usd_text};

use super::columns::{Column, fit, kept, layout};
use super::theme::Theme;
use super::{STALE_AFTER, age_text};

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
    // A pane whose data is old says so in its title: the account stream, and the marks its
    // MARK, TO BUST and CLOSE PAYS are read at.
    let marks_age = app
        .positions()
        .iter()
        .filter_map(|p| app.freshness.age(Source::Mark(p.instrument_id), now))
        .filter(|age| *age > STALE_AFTER)
        .max();
    let stale = match (app.freshness.age(Source::Account, now), marks_age) {
        (None, _) => "— no account data yet ".into(),
        (Some(age), _) if age > STALE_AFTER => format!("— STALE {} ", age_text(Some(age))),
        (Some(_), Some(age)) => format!("— marks STALE {} ", age_text(Some(age))),
        (Some(_), None) => String::new(),
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
    let _ = state;
    let shown = fit(&COLUMNS, area.width.saturating_sub(2));
    let rows: Vec<Row> = app
        .valued()
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let p = v.position;
            // A position in a market the trading state does not list is still shown (and can be
            // selected and closed); what needs the market's parameters is marked unknown.
            let at_scale = |raw: u64| {
                v.market
                    .map(|m| price(raw, m.price_scale))
                    .unwrap_or_else(|| "?".into())
            };
            let unknown = if v.market.is_none() {
                "market ?"
            } else {
                "—"
            };
            let (net, returns, distance, risk, style) = match (&v.value, v.mark) {
                (Some(c), Some(mark)) => (
                    usd_signed_text(c.net),
                    if c.liquidated {
                        "$0 liq".into()
                    } else {
                        usd_text(c.returns)
                    },
                    format!("{}%", percent_text(c.room, u128::from(mark), 2)),
                    risk_bar(c.risk_bps),
                    theme.signed(c.net),
                ),
                _ => (
                    unknown.into(),
                    "—".into(),
                    "—".into(),
                    String::new(),
                    if v.market.is_none() {
                        theme.warn()
                    } else {
                        theme.text()
                    },
                ),
            };
            let mark_flag = if app.marked.contains(&p.id) {
                "●"
            } else {
                " "
            };
            let all = [
                Cell::from(format!("{mark_flag}{}", p.id)),
                Cell::from(format!(
                    "{} {}",
                    v.symbol(),
                    crate::app::side::arrow_letter(p.is_long)
                )),
                Cell::from(format!("{}x", p.leverage)),
                Cell::from(usd_text(signed(p.margin))),
                Cell::from(at_scale(p.entry_price)),
                Cell::from(v.mark.map_or_else(|| "—".into(), at_scale)),
                Cell::from(at_scale(p.bust_price)),
                Cell::from(distance),
                Cell::from(returns).style(style),
                Cell::from(net).style(style),
                Cell::from(risk),
            ];
            let row = Row::new(kept(all, &shown));
            if i == app.position_cursor && app.tab == Tab::Positions {
                row.style(theme.selected())
            } else {
                row
            }
        })
        .collect();
    let (widths, titles) = layout(&COLUMNS, &shown);
    let header = Row::new(titles).style(theme.title());
    frame.render_widget(Table::new(rows, widths).header(header).block(block), area);
}

/// The positions table's columns. Bust and the distance to it matter most after what the row is.
const COLUMNS: [Column; 11] = [
    Column::new("ID", 8, 10),
    Column::new("MKT", 7, 10),
    Column::new("LEV", 5, 6),
    Column::new("MARGIN", 9, 3),
    Column::new("ENTRY", 9, 2),
    Column::new("MARK", 9, 4),
    Column::new("BUST", 9, 9),
    Column::new("TO BUST", 7, 9),
    Column::new("CLOSE PAYS", 10, 7),
    Column::new("NET PNL", 10, 8),
    Column::new("RISK", 10, 5),
];

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
