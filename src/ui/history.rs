//! The wallet's local history of closed positions (kept in the data dir, so it survives a
//! restart) with its totals, and the wallet's entries in the protocol's recent-trades feed.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState, Wrap};

use crate::app::App;
use crate::protocol::history::ClosedTrade;
use crate::protocol::pretrade::percent_text;
use crate::protocol::reads::{Side, TradeEvent, TradeKind};
use crate::protocol::units::{
    group_thousands, price_display, scale_decimals, scaled_of_display_f64, signed, usd_signed_text,
    usd_text, wad_text,
};
use crate::text::sanitize_line;

use super::columns::{Column, fit, kept, layout};
use super::short;
use super::theme::Theme;

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let trades_height = (app.my_trades.len() as u16 + 3).clamp(3, 12);
    let [closed_area, trades_area] =
        Layout::vertical([Constraint::Min(4), Constraint::Length(trades_height)]).areas(area);
    draw_closed(frame, closed_area, app, theme);
    draw_recent_trades(frame, trades_area, app, theme);
}

const CLOSED: [Column; 9] = [
    Column::new("TIME (UTC)", 17, 8),
    Column::new("ID", 8, 10),
    Column::new("MKT", 7, 10),
    Column::new("LEV", 5, 4),
    Column::new("ENTRY", 9, 6),
    Column::new("EXIT", 9, 6),
    Column::new("NET PNL", 11, 10),
    Column::new("PAPER", 8, 3),
    Column::new("", 10, 9),
];

/// The closed positions this client recorded for the wallet, newest first, with their totals.
fn draw_closed(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let wallet = app.wallet.as_ref().map(short).unwrap_or_default();
    // Since when no close is missing: every view of a history says it.
    let coverage = app.history.coverage();
    let block = Block::default().borders(Borders::ALL).title(format!(
        " History of {wallet} · {} closed · {} ",
        app.history.len(),
        coverage.since_text()
    ));
    // What was missed before that, when something was: a line of its own.
    let complete = coverage
        .gaps
        .last()
        .map(|g| format!("before that, {}", g.describe()))
        .unwrap_or_default();
    if app.history.is_empty() {
        frame.render_widget(
            Paragraph::new(vec![
                Line::from("no closed positions recorded for this wallet yet"),
                Line::styled(complete, theme.dim()),
            ])
            .wrap(Wrap { trim: true })
            .block(block),
            area,
        );
        return;
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let totals = totals_line(app);
    let [totals_area, complete_area, table_area, legend_area] = Layout::vertical([
        Constraint::Length(lines_for(&totals, inner.width)),
        Constraint::Length(if complete.is_empty() {
            0
        } else {
            lines_for(&complete, inner.width)
        }),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    frame.render_widget(
        Paragraph::new(totals).wrap(Wrap { trim: true }),
        totals_area,
    );
    frame.render_widget(
        Paragraph::new(complete)
            .style(theme.dim())
            .wrap(Wrap { trim: true }),
        complete_area,
    );
    // A page of rows at a time, the one holding the cursor: only what is seen is formatted.
    let page = usize::from(table_area.height.saturating_sub(1)).max(1);
    let total = app.history.len();
    let cursor = app.history_cursor.min(total - 1);
    let first = cursor / page * page;
    let mut legend = "~ time this client saw it · — not known here".to_string();
    if total > page {
        legend.push_str(&format!(
            " · rows {}–{} of {total}",
            first + 1,
            (first + page).min(total)
        ));
    }
    frame.render_widget(Paragraph::new(legend).style(theme.dim()), legend_area);
    let shown = fit(&CLOSED, table_area.width);
    let rows: Vec<Row> = (first..(first + page).min(total))
        .filter_map(|n| app.history.nth_newest(n))
        .map(|t| Row::new(kept(closed_cells(app, t, theme), &shown)))
        .collect();
    let (widths, titles) = layout(&CLOSED, &shown);
    let table = Table::new(rows, widths)
        .header(Row::new(titles).style(theme.title()))
        .row_highlight_style(theme.selected());
    let mut state = TableState::default().with_selected(Some(cursor - first));
    frame.render_stateful_widget(table, table_area, &mut state);
}

/// Lines `text` takes wrapped at `width`, at most two (a narrow terminal keeps its rows for the
/// table; the rest of a longer text is cut, and `history ADDR` says it whole).
fn lines_for(text: &str, width: u16) -> u16 {
    if text.chars().count() > usize::from(width) {
        2
    } else {
        1
    }
}

/// `12 closed · net +$3.21 · win rate 58.3% (7 won, 2 liquidated) · PAPER minted 12.34`
fn totals_line(app: &App) -> String {
    let t = app.history.totals();
    let rate = t.win_rate_bps().map_or_else(
        || "—".to_string(),
        |bps| format!("{}%", percent_text(i128::from(bps), 10_000, 1)),
    );
    format!(
        "{} closed · net {} · win rate {rate} ({} won, {} liquidated) · PAPER minted {}",
        t.closed,
        usd_signed_text(t.net_pnl),
        t.wins,
        t.liquidated,
        paper_text(t.paper_minted)
    )
}

/// PAPER (18 dp) for a person: `1,252.77`.
fn paper_text(paper: u128) -> String {
    group_thousands(&wad_text(signed(paper), 2))
}

fn closed_cells<'a>(app: &App, t: &ClosedTrade, theme: &Theme) -> Vec<Cell<'a>> {
    let c = &t.closed;
    let market = app
        .trading
        .as_ref()
        .and_then(|s| s.market_by_id(c.instrument_id));
    let symbol = t
        .symbol
        .clone()
        .or_else(|| market.map(|m| m.symbol.clone()))
        .unwrap_or_else(|| format!("#{}", c.instrument_id));
    // The record's own scale goes with its prices; a record without one uses the market's.
    let scale = t
        .price_scale
        .or(market.map(|m| m.price_scale))
        .filter(|s| scale_decimals(*s).is_some());
    let at_scale = |raw: Option<u64>| match (raw, scale) {
        (Some(raw), Some(scale)) => price_display(raw, scale),
        _ => "—".into(),
    };
    let (time, seen) = t.time_ms();
    let time = format!(
        "{}{}",
        if seen { "~" } else { "" },
        crate::clock::utc_minute_text(time)
    );
    vec![
        Cell::from(time),
        Cell::from(c.id.to_string()),
        Cell::from(format!(
            "{} {}",
            sanitize_line(&symbol, 4),
            crate::app::side::arrow_letter(c.is_long)
        )),
        Cell::from(format!("{}x", c.leverage)),
        Cell::from(at_scale(t.entry_raw)),
        Cell::from(at_scale(t.exit_raw)),
        Cell::from(usd_signed_text(c.net_pnl)).style(theme.signed(c.net_pnl)),
        Cell::from(paper_text(c.paper_minted)),
        if c.liquidated {
            Cell::from("LIQUIDATED").style(theme.loss())
        } else {
            Cell::from("closed")
        },
    ]
}

const FEED: [Column; 8] = [
    Column::new("TIME (UTC)", 16, 7),
    Column::new("KIND", 5, 10),
    Column::new("ID", 8, 10),
    Column::new("MKT", 7, 10),
    Column::new("LEV", 5, 4),
    Column::new("NOTIONAL", 11, 5),
    Column::new("PRICE", 9, 8),
    Column::new("PNL", 10, 9),
];

/// The wallet's entries in the protocol's recent-trades feed (opens, closes, liquidations).
fn draw_recent_trades(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let rows: Vec<&TradeEvent> = app.my_trades.iter().collect();
    draw_trades(
        frame,
        area,
        " Recent trades of this wallet (the exchange's feed of the last 50 trades) ",
        &rows,
        FeedTable::default(),
        app,
        theme,
    );
}

/// Rows of the exchange's recent-trades feed as a table in the app's units (the History tab's
/// own wallet, the explorer's wallet or intent).
/// How a feed table is drawn: whose rows it lists, and the highlighted row if it has a cursor.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct FeedTable {
    /// Rows of many wallets: each row names its wallet.
    pub wallets: bool,
    pub selected: Option<usize>,
}

const WALLET: Column = Column::new("WALLET", 13, 9);

pub(super) fn draw_trades(
    frame: &mut Frame,
    area: Rect,
    title: &str,
    trades: &[&TradeEvent],
    how: FeedTable,
    app: &App,
    theme: &Theme,
) {
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title.to_string());
    if trades.is_empty() {
        frame.render_widget(
            Paragraph::new("none in the protocol's recent feed")
                .style(theme.dim())
                .block(block),
            area,
        );
        return;
    }
    let columns: Vec<Column> = how
        .wallets
        .then_some(WALLET)
        .into_iter()
        .chain(FEED)
        .collect();
    let shown = fit(&columns, area.width.saturating_sub(2));
    let rows: Vec<Row> = trades
        .iter()
        .map(|t| {
            let wallet = how.wallets.then(|| Cell::from(short(&t.wallet)));
            let cells = wallet.into_iter().chain(feed_cells(app, t, theme));
            Row::new(kept(cells, &shown))
        })
        .collect();
    let (widths, titles) = layout(&columns, &shown);
    let table = Table::new(rows, widths)
        .header(Row::new(titles).style(theme.title()))
        .row_highlight_style(theme.selected())
        .block(block);
    let mut state = TableState::default().with_selected(how.selected);
    frame.render_stateful_widget(table, area, &mut state);
}

fn feed_cells<'a>(app: &App, t: &TradeEvent, theme: &Theme) -> Vec<Cell<'a>> {
    let (kind, kind_style) = match t.kind {
        TradeKind::Open => ("open", theme.text()),
        TradeKind::Close => ("close", theme.text()),
        TradeKind::Liq => ("LIQ", theme.loss()),
    };
    let scale = app
        .trading
        .as_ref()
        .and_then(|s| s.market_by_id(t.instrument_id))
        .map(|m| m.price_scale);
    // The feed's figures are the exchange's display floats, read as the decimals they were
    // sent as; one finer than the market's precision is shown as sent.
    let price = t.entry.or(t.exit).map_or_else(
        || "—".to_string(),
        |x| {
            scale
                .and_then(|s| Some((s, scale_decimals(s)?)))
                .and_then(|(s, d)| match scaled_of_display_f64(x, d)? {
                    (false, raw) => Some(price_display(u64::try_from(raw).ok()?, s)),
                    (true, _) => None,
                })
                .unwrap_or_else(|| format!("{x}"))
        },
    );
    let wad = |x: f64| {
        let (negative, wad) = scaled_of_display_f64(x, 18)?;
        let wad = i128::try_from(wad).ok()?;
        Some(if negative { -wad } else { wad })
    };
    let notional = wad(t.notional_usd).map_or_else(|| format!("{}", t.notional_usd), usd_text);
    let (pnl, pnl_style) = match t.pnl_usd {
        None => ("—".to_string(), theme.text()),
        Some(x) => match wad(x) {
            Some(w) => (usd_signed_text(w), theme.signed(w)),
            None => (format!("{x}"), theme.text()),
        },
    };
    vec![
        Cell::from(crate::clock::utc_minute_text(t.ts)),
        Cell::from(kind).style(kind_style),
        Cell::from(t.position_id.map(|p| p.to_string()).unwrap_or_default()),
        Cell::from(format!(
            "{} {}",
            sanitize_line(&t.instrument, 4),
            crate::app::side::arrow_letter(t.side == Side::Long)
        )),
        Cell::from(format!("{}x", t.leverage)),
        Cell::from(notional),
        Cell::from(price),
        Cell::from(pnl).style(pnl_style),
    ]
}
