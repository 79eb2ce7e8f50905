//! The Liquidations tab: over a scan of the wallets with the most open notional, the ticket's
//! market's bust ladder around the mark (long busts below it, short busts above, the notional a
//! move to each row would bust, this session's own busts marked) beside the positions closest to
//! bust, with the scan's coverage of open interest and the cascade of the `+`/`-` move above
//! both. Every figure is `analytics::liquidations`'; this file only lays them out.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState, Wrap};

use crate::analytics::liquidations::{
    self as liq, AtRisk, Book, BustMap, ClusterSummary, DEFAULT_CLUSTERS, Danger,
};
use crate::app::App;
use crate::protocol::pretrade::percent_text;
use crate::protocol::trading::Instrument;
use crate::protocol::units::{price_display, signed, usd_compact};
use crate::text::sanitize_line;

use super::columns::{Column, fit, kept, layout};
use super::theme::Theme;
use super::{loaded, short};

const CLOSEST: [Column; 8] = [
    Column::new("#", 2, 1),
    Column::new("WALLET", 11, 10),
    Column::new("SIDE", 5, 10),
    Column::new("LEV", 5, 8),
    Column::new("NOTIONAL", 8, 6),
    Column::new("BUST", 9, 5),
    Column::new("TO BUST", 7, 10),
    Column::new("DANGER", 12, 7),
];

/// The closest-to-bust table at its widest (every column and the spaces between); the ladder
/// takes the rest, and never less than `LADDER_MIN`.
const CLOSEST_FULL: u16 = 2 + 11 + 5 + 5 + 8 + 9 + 7 + 12 + 7;
const LADDER_MIN: u16 = 42;

/// The ladder reaches at least this far either way (hundredths of a percent: 0.25%, about the
/// default bucket) when the cascade move is smaller: at 0% it shows the busts nearest the mark.
const MIN_SPAN_E2: u32 = 25;

/// Width of the cascade column and of a bucket's own figure beside its bar.
const FIGURE: usize = 7;
/// The own-bust marker column (`◆ you↓`).
const YOU: usize = 6;

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let l = &app.explore.liquidations;
    let market = app.ticket_market();
    let title = match market {
        Some((m, _)) => format!(" Liquidations · {} ", sanitize_line(&m.symbol, 12)),
        None => " Liquidations ".to_string(),
    };
    let block = Block::default().borders(Borders::ALL).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [head, body] = Layout::vertical([Constraint::Length(3), Constraint::Min(1)]).areas(inner);
    let say = |frame: &mut Frame, lines: Vec<Line<'static>>| {
        frame.render_widget(
            Paragraph::new(lines)
                .style(theme.text())
                .wrap(Wrap { trim: true }),
            inner,
        );
    };
    let status = loaded::status(&l.scan);
    let Some((m, mark)) = market else {
        return say(
            frame,
            vec![Line::styled("markets not loaded yet", theme.dim())],
        );
    };
    let Some(mark) = mark else {
        return say(
            frame,
            vec![
                Line::from(status),
                Line::styled(
                    format!("no mark for {} yet", sanitize_line(&m.symbol, 12)),
                    theme.dim(),
                ),
            ],
        );
    };
    let (Some(scan), Some(state), Some(book)) = (
        l.scan.value.as_ref(),
        app.trading.as_ref(),
        app.scanned_book(),
    ) else {
        let what = if l.scan.error.is_some() {
            "no scan to show yet: it is read again every 30 s while this tab is open"
        } else {
            "scanning the wallets with the most open notional…"
        };
        return say(
            frame,
            vec![
                Line::from(format!(
                    "{status} · mark {}",
                    price_display(mark, m.price_scale)
                )),
                Line::styled(what, theme.dim()),
            ],
        );
    };
    let positions: Vec<&AtRisk> = book.in_market(Some(m.id)).collect();
    // The ladder fills the pane's height (an odd count, so the mark's row is the middle one) and
    // reaches at least the cascade move either way: `+`/`-` zoom it with the cascade, and the
    // end rows' cumulative figures read against the cascade line.
    let rows = body.height.saturating_sub(1).max(1);
    let rows = usize::from(if rows.is_multiple_of(2) {
        rows - 1
    } else {
        rows
    })
    .max(1);
    let each_side = (rows as u64 - 1) / 2;
    let percent_e2 = (l.cascade_percent * 100).max(MIN_SPAN_E2);
    let span =
        u64::try_from(u128::from(mark) * u128::from(percent_e2) / 10_000).unwrap_or(u64::MAX);
    let bucket = liq::covering_bucket(span, each_side.max(1));
    let map = liq::bust_map(
        &positions,
        mark,
        m.price_scale,
        bucket,
        rows,
        Some(l.cascade_percent * 100),
    );
    let cov = liq::coverage(&book, state, &app.marks, Some(m.id));
    let listed = scan.wallets.len().min(l.wallets);
    let failed = scan.failures(l.wallets).len();
    let mut head_lines = vec![
        // The age (and a failed refresh) first: a long error may push the rest off the line.
        Line::from(format!(
            "{status} · mark {} · ${} buckets",
            price_display(mark, m.price_scale),
            price_display(bucket, m.price_scale),
        )),
        Line::from(format!(
            "scanned {} of top {listed} wallets, {failed} failed · {} positions · {}% of {} OI",
            listed - failed,
            positions.len(),
            percent_text(signed(cov.scanned_usd), cov.total_usd, 1),
            usd_compact(cov.total_usd),
        )),
    ];
    if let Some(c) = &map.cascade {
        head_lines.push(Line::from(format!(
            "±{}% busts {} of longs by {} · {} of shorts by {} · {} pos",
            l.cascade_percent,
            usd_compact(c.totals.long_notional),
            price_display(c.down_price, m.price_scale),
            usd_compact(c.totals.short_notional),
            price_display(c.up_price, m.price_scale),
            c.totals.positions(),
        )));
    }
    frame.render_widget(Paragraph::new(head_lines).style(theme.text()), head);
    if positions.is_empty() {
        frame.render_widget(
            Paragraph::new(format!(
                "no open {} positions among the scanned wallets",
                sanitize_line(&m.symbol, 12)
            ))
            .style(theme.dim()),
            body,
        );
        return;
    }
    let closest_w = CLOSEST_FULL.min(body.width.saturating_sub(LADDER_MIN + 1));
    let [ladder_area, _, closest_area] = Layout::horizontal([
        Constraint::Min(LADDER_MIN),
        Constraint::Length(1),
        Constraint::Length(closest_w),
    ])
    .areas(body);
    draw_ladder(frame, ladder_area, app, m, &map, theme);
    let clusters = liq::clusters(&positions, mark, m.price_scale, bucket, DEFAULT_CLUSTERS);
    draw_closest(frame, closest_area, app, &book, &clusters, theme);
}

/// The bust ladder: highest price on top, one row a bucket (its low price), long busts as a bar
/// to the left of the axis and short busts to the right, the notional a move from the mark to
/// the row would bust, and this session's busts marked.
fn draw_ladder(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    m: &Instrument,
    map: &BustMap,
    theme: &Theme,
) {
    let price_w = map
        .buckets
        .iter()
        .map(|b| price_display(b.low, m.price_scale).chars().count())
        .max()
        .unwrap_or(0);
    // ▶ price ␣ long │ short ␣ cascade ␣ you
    let fixed = 1 + price_w + 1 + 1 + 1 + FIGURE + 1 + YOU;
    let side_w = (usize::from(area.width).saturating_sub(fixed) / 2).max(2);
    // A bucket's own figure beside its bar when there is room for both.
    let figures = side_w >= FIGURE + 1 + 5;
    let bar_w = if figures { side_w - FIGURE - 1 } else { side_w };
    let widest = map
        .buckets
        .iter()
        .map(|b| b.totals.long_notional.max(b.totals.short_notional))
        .max()
        .unwrap_or(0);
    let bar = |notional: u128| -> usize {
        if notional == 0 || widest == 0 {
            0
        } else {
            // At least one cell for any notional, so a small bucket is not lost.
            (notional.saturating_mul(bar_w as u128).div_ceil(widest) as usize).clamp(1, bar_w)
        }
    };
    let first = map.buckets.first().map_or(0, |b| b.low);
    let last = map.buckets.last().map_or(0, |b| b.high);
    let own: Vec<u64> = app
        .positions()
        .iter()
        .filter(|p| p.instrument_id == m.id)
        .map(|p| p.bust_price)
        .collect();
    let mut lines = vec![Line::styled(
        format!(
            " {:>price_w$} {:>side_w$}│{:<side_w$} {:>FIGURE$}",
            "BUST AT", "LONGS ◂", "▸ SHORTS", "CASCADE",
        ),
        theme.dim(),
    )];
    let top = map.buckets.len().saturating_sub(1);
    for (i, b) in map.buckets.iter().enumerate().rev() {
        let at_mark = (b.low..b.high).contains(&map.mark);
        let below = b.high <= map.mark;
        // A move from the mark to this row busts the longs at or above its low (below the mark)
        // or the shorts under its high (above); the mark's own row holds what busts either way
        // inside it.
        let cascade = if at_mark {
            b.cumulative_long.saturating_add(b.cumulative_short)
        } else if below {
            b.cumulative_long
        } else {
            b.cumulative_short
        };
        let mine = own.iter().any(|&bust| (b.low..b.high).contains(&bust));
        let beyond_below = i == 0 && own.iter().any(|&bust| bust < first);
        let beyond_above = i == top && own.iter().any(|&bust| bust >= last);
        let you = match (mine, beyond_below, beyond_above) {
            (true, _, _) => "◆ you",
            (false, true, _) => "◆ you↓",
            (false, _, true) => "◆ you↑",
            _ => "",
        };
        let long = b.totals.long_notional;
        let short = b.totals.short_notional;
        let (long_fig, short_fig) = if figures {
            let fig = |n: u128| {
                if n == 0 {
                    String::new()
                } else {
                    usd_compact(n)
                }
            };
            (
                format!("{:>FIGURE$} ", fig(long)),
                format!(" {:<FIGURE$}", fig(short)),
            )
        } else {
            (String::new(), String::new())
        };
        let price_style = if at_mark { theme.badge() } else { theme.text() };
        let cascade_text = if cascade == 0 {
            "·".to_string()
        } else {
            usd_compact(cascade)
        };
        lines.push(Line::from(vec![
            Span::styled(if at_mark { "▶" } else { " " }, price_style),
            Span::styled(
                format!("{:>price_w$}", price_display(b.low, map.price_scale)),
                price_style,
            ),
            Span::raw(" "),
            Span::raw(long_fig),
            Span::styled(format!("{:>bar_w$}", "█".repeat(bar(long))), theme.gain()),
            Span::styled("│", if at_mark { theme.badge() } else { theme.dim() }),
            Span::styled(format!("{:<bar_w$}", "█".repeat(bar(short))), theme.loss()),
            Span::raw(short_fig),
            Span::raw(" "),
            Span::styled(format!("{cascade_text:>FIGURE$}"), theme.dim()),
            Span::raw(" "),
            Span::styled(you, theme.warn()),
        ]));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The ticket's market's positions nearest to bust, ranked (↑↓ scroll), and below them, when
/// the list leaves room, the largest clusters of busts each side.
fn draw_closest(
    frame: &mut Frame,
    area: Rect,
    app: &App,
    book: &Book,
    clusters: &ClusterSummary,
    theme: &Theme,
) {
    let ranked = liq::closest(book, &app.closest_query());
    let table_h = u16::try_from(ranked.len() + 1).unwrap_or(u16::MAX);
    // A title, a blank line and at least one cluster a side.
    let room = area.height.saturating_sub(table_h);
    let (table_area, clusters_area) = if room >= 4 {
        let [t, _, c] = Layout::vertical([
            Constraint::Length(table_h),
            Constraint::Length(1),
            Constraint::Min(0),
        ])
        .areas(area);
        (t, Some(c))
    } else {
        (area, None)
    };
    let shown = fit(&CLOSEST, table_area.width);
    let (widths, titles) = layout(&CLOSEST, &shown);
    let rows = ranked.iter().enumerate().map(|(i, p)| {
        let mine = app.wallet == Some(p.wallet);
        let cells = [
            (i + 1).to_string(),
            if mine {
                "you".to_string()
            } else {
                short(&p.wallet)
            },
            if p.is_long { "long" } else { "short" }.to_string(),
            format!("{}x", p.leverage),
            usd_compact(p.notional),
            price_display(p.bust, p.price_scale),
            format!("{}%", percent_text(p.room(), u128::from(p.mark), 2)),
            p.danger().label().to_string(),
        ];
        let style = match p.danger() {
            Danger::Liquidatable | Danger::Critical => theme.loss(),
            Danger::High => theme.warn(),
            Danger::Elevated | Danger::Low => Style::default(),
        };
        let row = Row::new(kept(cells, &shown).into_iter().map(Cell::from)).style(style);
        if mine { row.style(theme.warn()) } else { row }
    });
    let cursor = app
        .explore
        .liquidations
        .cursor
        .min(ranked.len().saturating_sub(1));
    let table = Table::new(rows, widths)
        .header(Row::new(titles).style(theme.dim()))
        .row_highlight_style(theme.selected());
    let mut state = TableState::default().with_selected(Some(cursor));
    frame.render_stateful_widget(table, table_area, &mut state);
    if let Some(area) = clusters_area {
        draw_clusters(frame, area, clusters, theme);
    }
}

/// The largest buckets of busts each side: the bucket, its notional, how many positions, and
/// how far the mark is from their notional-weighted bust.
fn draw_clusters(frame: &mut Frame, area: Rect, c: &ClusterSummary, theme: &Theme) {
    let each = usize::from(area.height.saturating_sub(1) / 2);
    let mut lines = vec![Line::styled(
        "largest clusters, % mark to bust",
        theme.dim(),
    )];
    for (side, list) in [("short", &c.shorts), ("long", &c.longs)] {
        for k in list.iter().take(each) {
            let distance = i128::from(k.weighted_bust) - i128::from(c.mark);
            lines.push(Line::from(format!(
                "{side:<5} {:>9} {:>7} ×{:<3} {}%",
                price_display(k.low, c.price_scale),
                usd_compact(k.notional),
                k.positions,
                percent_text(distance.abs(), u128::from(c.mark), 2),
            )));
        }
    }
    frame.render_widget(Paragraph::new(lines).style(theme.text()), area);
}
