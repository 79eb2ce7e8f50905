//! The Protocol tab: the protocol overview (`get_protocol_overview`: TVL, LP, volume, open
//! positions, PAPER, fees, and per market the mark, open interest against its caps, the leverage
//! ceiling and whether it is paused), the relayer's health and notices, and the history series
//! (`/query/protocol/history`) as small charts at the interval `C` picks. Figures are the
//! app's reads and `analytics::overview`'s; notices are untrusted text, sanitised.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row, Sparkline, Table};

use std::time::SystemTime;

use crate::analytics::overview::{HISTORY_COLUMNS, base_to_usd, chart_series, is_cumulative};
use crate::app::App;
use crate::app::freshness::{HEALTH_STALE_AFTER, STALE_AFTER, age_text};
use crate::app::notices::notice_texts;
use crate::config::keys::Command;
use crate::events::market::Source;
use crate::protocol::pretrade::percent_text;
use crate::protocol::reads::{ProtocolHistory, Summary};
use crate::protocol::trading::{Cap, Instrument, TradingState};
use crate::protocol::units::{
    group_thousands, price_display, scaled_of_display_f64, signed, usd_compact, usd_text, wad_text,
};
use crate::text::sanitize_line;

use super::columns::{Column, fit, kept, layout};
use super::loaded;
use super::theme::Theme;

/// Notices shown at most (the relayer's own; each one line).
const NOTICES: usize = 5;
/// From this inner width the overview's dollar figures are exact, below it compact.
const EXACT_FROM: u16 = 110;

const MARKETS: [Column; 6] = [
    Column::new("MARKET", 7, 10),
    Column::new("MARK", 10, 10),
    Column::new("STATUS", 9, 10),
    Column::new("MAX LEV", 7, 8),
    Column::new("LONG OI / CAP", 19, 9),
    Column::new("SHORT OI / CAP", 19, 9),
];

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
    // The overview, the markets and the relayer are the exchange's: once any is stale the
    // title says how old the oldest is.
    let stale = super::stale_text(
        app,
        &[
            (Source::Summary, HEALTH_STALE_AFTER),
            (Source::Trading, STALE_AFTER),
            (Source::RelayerHealth, HEALTH_STALE_AFTER),
        ],
        now,
    );
    let title = format!(" Protocol{stale} ");
    let block = super::pane_block(title, !stale.is_empty(), theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let exact = inner.width >= EXACT_FROM;
    let mut top = overview_lines(app.summary.as_ref(), app.trading.as_ref(), exact, theme);
    top.extend(relayer_lines(app, theme, now));
    let markets = app.trading.as_ref().map_or(0, |t| t.instruments.len());
    let table_h = if markets == 0 { 0 } else { markets + 1 };
    let [top_area, table_area, history_area] = Layout::vertical([
        Constraint::Length(u16::try_from(top.len()).unwrap_or(u16::MAX)),
        Constraint::Length(u16::try_from(table_h).unwrap_or(u16::MAX)),
        Constraint::Min(0),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(top).style(theme.text()), top_area);
    if let Some(t) = &app.trading {
        draw_markets(frame, table_area, app, t, theme);
    }
    draw_history(frame, history_area, app, theme);
}

/// The summary's figures and whether trading is open.
fn overview_lines(
    summary: Option<&Summary>,
    trading: Option<&TradingState>,
    exact: bool,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let Some(s) = summary else {
        return vec![Line::styled("summary not loaded yet", theme.dim())];
    };
    let money = |wad: u128| {
        if exact {
            usd_text(signed(wad))
        } else {
            usd_compact(wad)
        }
    };
    let lp = if s.balances.lp < 0 {
        format!("-{}", money(s.balances.lp.unsigned_abs()))
    } else {
        money(s.balances.lp.unsigned_abs())
    };
    let trading_text = match trading {
        Some(t) if t.trading_paused => "trading PAUSED",
        Some(_) => "trading open",
        None => "trading: markets not loaded",
    };
    vec![
        Line::from(format!(
            "TVL {} · LP {lp} · margin {} · payout queue {}",
            money(s.balances.tvl),
            money(s.balances.margin),
            money(s.balances.queue),
        )),
        Line::from(format!(
            "volume {} · {} open positions · fees pending {} · lifetime {}",
            money(s.activity.volume),
            group_thousands(&s.activity.open.to_string()),
            money(s.fees.pending),
            money(s.fees.lifetime),
        )),
        Line::from(format!(
            "PAPER supply {} · staked {} ({}%) · mints {} per $1 lost · {trading_text}",
            group_thousands(&wad_text(signed(s.paper.supply), 0)),
            group_thousands(&wad_text(signed(s.paper.staked), 0)),
            percent_text(signed(s.paper.staked), s.paper.supply, 1),
            // The mint curve's point now (`paper-mint`): what a losing close earns.
            wad_text(
                signed(crate::analytics::mint::estimate(s, crate::analytics::mint::ONE_USD).rate),
                4
            ),
        )),
    ]
}

/// The relayer's readiness and its notices (untrusted: sanitised, one line each). Once its
/// health is stale or its read fails, the line says when it was last heard and what it said
/// then, never a bare "ready".
fn relayer_lines(app: &App, theme: &Theme, now: SystemTime) -> Vec<Line<'static>> {
    let error = app
        .freshness
        .error(Source::RelayerHealth)
        .map(|e| format!(" · last read failed: {}", sanitize_line(e, 80)))
        .unwrap_or_default();
    let Some(h) = &app.health else {
        return vec![match error.is_empty() {
            true => Line::styled("relayer health not read yet", theme.dim()),
            false => Line::styled(format!("relayer not heard from yet{error}"), theme.warn()),
        }];
    };
    let said = if h.is_ready() { "ready" } else { "NOT READY" };
    let age = app.freshness.age(Source::RelayerHealth, now);
    let heard = app
        .freshness
        .last_ok(Source::RelayerHealth)
        .map(super::log::time_of_day)
        .unwrap_or_else(|| "—".into());
    let mut out = vec![
        if age.is_some_and(|a| a > HEALTH_STALE_AFTER) || !error.is_empty() {
            Line::styled(
                format!(
                    "relayer STALE: last heard {heard} UTC, {} ago ({said} then){error}",
                    age_text(age)
                ),
                theme.warn(),
            )
        } else if h.is_ready() {
            Line::from("relayer ready")
        } else {
            Line::styled("relayer NOT READY", theme.warn())
        },
    ];
    for text in notice_texts(h).into_iter().take(NOTICES) {
        out.push(Line::styled(format!("notice {text}"), theme.warn()));
    }
    out
}

/// One side's open interest against its cap, in USD at the mark: `$1.20M / $5.00M 24%`.
fn oi_text(oi: u128, cap: Cap, mark: Option<u64>, m: &Instrument) -> String {
    let Some(mark) = mark else {
        return "no mark".into();
    };
    let oi_usd = base_to_usd(oi, mark, m);
    match cap {
        Cap::Unlimited => format!("{} / no cap", usd_compact(oi_usd)),
        Cap::Limit(c) => format!(
            "{} / {} {}%",
            usd_compact(oi_usd),
            usd_compact(base_to_usd(c, mark, m)),
            percent_text(signed(oi), c, 0),
        ),
    }
}

fn draw_markets(frame: &mut Frame, area: Rect, app: &App, t: &TradingState, theme: &Theme) {
    let shown = fit(&MARKETS, area.width);
    let (widths, titles) = layout(&MARKETS, &shown);
    let rows = t.instruments.iter().map(|m| {
        let mark = app.marks.get(&m.id).copied();
        let status = m.status(t.trading_paused);
        let cells = [
            sanitize_line(&m.symbol, 7),
            mark.map_or("—".into(), |r| price_display(r, m.price_scale)),
            status.label().to_string(),
            format!("{}x", t.leverage_ceiling(m)),
            oi_text(m.long_oi, m.long_cap, mark, m),
            oi_text(m.short_oi, m.short_cap, mark, m),
        ];
        let row = Row::new(kept(cells, &shown).into_iter().map(Cell::from));
        if m.openable() && !t.trading_paused {
            row
        } else {
            row.style(theme.warn())
        }
    });
    frame.render_widget(
        Table::new(rows, widths).header(Row::new(titles).style(theme.dim())),
        area,
    );
}

/// A history value for a person: dollars compact (or to the cent when `exact`), counts whole.
fn value_text(column: &str, v: f64, exact: bool) -> String {
    if matches!(column, "trades" | "users") {
        return group_thousands(&format!("{:.0}", v.max(0.0)));
    }
    let text = |m: u128| {
        if exact {
            usd_text(signed(m))
        } else {
            usd_compact(m)
        }
    };
    match scaled_of_display_f64(v, 18) {
        Some((true, m)) if m > 0 => format!("-{}", text(m)),
        Some((_, m)) => text(m),
        None => "—".into(),
    }
}

fn column_title(column: &str) -> &'static str {
    match column {
        "tvl" => "TVL",
        "volume" => "volume",
        "traderPnl" => "trader PnL",
        "trades" => "trades",
        _ => "series",
    }
}

/// The history series as small charts, two by two, each with its latest value.
fn draw_history(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    if area.height < 2 {
        return;
    }
    let s = &app.explore.series;
    let [title_area, charts_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
    let key = app.keymap.key_of(Command::Chart);
    frame.render_widget(
        Paragraph::new(format!(
            "history · {} intervals ({key}: 1m 1h 1d) · {}",
            s.interval,
            loaded::status(&s.history)
        ))
        .style(theme.title()),
        title_area,
    );
    let Some(history) = s.history.value.as_ref() else {
        return;
    };
    if charts_area.height < 2 {
        return;
    }
    let rows =
        Layout::vertical([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)]).split(charts_area);
    let cells: Vec<Rect> = rows
        .iter()
        .flat_map(|r| {
            Layout::horizontal([Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)])
                .spacing(1)
                .split(*r)
                .to_vec()
        })
        .collect();
    for (column, cell) in HISTORY_COLUMNS.iter().zip(cells) {
        draw_series(frame, cell, history, column, s.interval, theme);
    }
}

/// One chart: its title, latest value and number of points on the first line, the points that
/// fit below (the latest on the right).
fn draw_series(
    frame: &mut Frame,
    area: Rect,
    history: &ProtocolHistory,
    column: &str,
    interval: &str,
    theme: &Theme,
) {
    let points = chart_series(history, column);
    let [label_area, spark_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
    let per = if is_cumulative(column) {
        format!(" per {interval}")
    } else {
        String::new()
    };
    // As many of the latest points as there are columns: the label says how many of how many.
    let shown = &points[points.len().saturating_sub(usize::from(spark_area.width))..];
    let count = match (shown.len(), points.len()) {
        (n, all) if n < all => format!("last {n} of {all}"),
        (_, 1) => "1 pt".to_string(),
        (_, all) => format!("{all} pts"),
    };
    let (lo, hi) = shown
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (_, v)| {
            (lo.min(*v), hi.max(*v))
        });
    let mut label = match points.last() {
        Some((_, v)) => format!(
            "{}{per} {} · {count}",
            column_title(column),
            value_text(column, *v, false),
        ),
        // A counter's first point has no interval before it to measure.
        None if is_cumulative(column) => {
            format!("{}{per} · no interval closed yet", column_title(column))
        }
        None => format!("{}{per} · no points yet", column_title(column)),
    };
    // The chart spans its own lowest to highest point: say which, where there is room, to the
    // cent when the short figures would read the same (a small move drawn full height).
    let mut ends = (value_text(column, lo, false), value_text(column, hi, false));
    if ends.0 == ends.1 {
        ends = (value_text(column, lo, true), value_text(column, hi, true));
    }
    let range = format!(" · {}–{}", ends.0, ends.1);
    if shown.len() > 1 && label.chars().count() + range.chars().count() <= usize::from(area.width) {
        label.push_str(&range);
    }
    frame.render_widget(Paragraph::new(label).style(theme.text()), label_area);
    if spark_area.height == 0 || shown.is_empty() {
        return;
    }
    // The range of the points shown spread over the chart's height in eighths of a row, the
    // lowest point one eighth up so it is still drawn (a glance, not data: floats are fine).
    let steps = u64::from(spark_area.height) * 8;
    let data: Vec<u64> = shown
        .iter()
        .map(|(_, v)| {
            if hi > lo {
                1 + (((v - lo) / (hi - lo)) * (steps - 1) as f64).round() as u64
            } else {
                1
            }
        })
        .collect();
    frame.render_widget(
        Sparkline::default()
            .data(data)
            .max(steps)
            .style(theme.badge()),
        spark_area,
    );
}
