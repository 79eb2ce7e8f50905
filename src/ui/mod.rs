//! Drawing: a pure function of `App` onto a ratatui frame. Nothing here reads the network or
//! the clock except through `App` and the `now` it is given.

mod chart;
pub mod keymap;
pub mod theme;

use std::time::{Duration, SystemTime};

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Wrap};

use crate::app::{App, Tab};
use crate::client::market::Source;
use crate::protocol::units::{price_display as price, signed, usd_signed_text, usd_text};
use crate::quote::{Position, percent_text};
use crate::text::sanitize_line;
use theme::Theme;

pub const MIN_WIDTH: u16 = 80;
pub const MIN_HEIGHT: u16 = 24;
/// A source older than this many seconds is shown as stale.
const STALE_AFTER: Duration = Duration::from_secs(30);

fn short(address: &alloy_primitives::Address) -> String {
    let full = format!("{address:#x}");
    format!("{}…{}", &full[..6], &full[full.len() - 4..])
}

fn age_text(age: Option<Duration>) -> String {
    match age {
        None => "—".into(),
        Some(a) if a.as_secs() < 60 => format!("{}s", a.as_secs()),
        Some(a) => format!("{}m", a.as_secs() / 60),
    }
}

/// Draw the whole screen.
pub fn draw(frame: &mut Frame, app: &App, theme: &Theme, now: SystemTime) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let msg = format!(
            "The terminal is {}x{}; papertrade-tui needs at least {MIN_WIDTH}x{MIN_HEIGHT}. Enlarge it or press q to quit.",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(msg).wrap(Wrap { trim: true }), area);
        return;
    }
    let [header, tabs, body, footer] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(1),
        Constraint::Min(10),
        Constraint::Length(2),
    ])
    .areas(area);
    draw_header(frame, header, app, theme, now);
    draw_tabs(frame, tabs, app, theme);
    match app.tab {
        Tab::Trade => draw_trade(frame, body, app, theme, now),
        Tab::Positions => {
            let pending = app.account.as_ref().map_or(0, |a| a.operations.len()) as u16;
            let [top, bottom] = Layout::vertical([
                Constraint::Min(5),
                Constraint::Length((pending + 3).min(10)),
            ])
            .areas(body);
            draw_positions(frame, top, app, theme, now);
            draw_pending(frame, bottom, app, theme, now);
        }
        Tab::History => draw_history(frame, body, app, theme),
        Tab::Protocol => draw_protocol(frame, body, app, theme),
    }
    draw_footer(frame, footer, app, theme);
    if let Some(dialog) = &app.dialog {
        draw_dialog(frame, area, dialog, theme);
    } else if app.help {
        draw_help(frame, area, app, theme);
    }
}

/// A centred box of `width`×`height` inside `area`, cleared.
fn overlay(frame: &mut Frame, area: Rect, width: u16, height: u16, title: &str) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    frame.render_widget(ratatui::widgets::Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(format!(" {title} "));
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    inner
}

fn draw_dialog(frame: &mut Frame, area: Rect, dialog: &crate::app::Dialog, theme: &Theme) {
    use crate::app::Dialog;
    let mut lines = Vec::new();
    let title = match dialog {
        Dialog::Open {
            symbol,
            price_scale,
            is_long,
            margin,
            leverage,
            use_debt,
            mark,
            bust,
            ..
        } => {
            let notional = margin.saturating_mul(u128::from(*leverage));
            lines.push(Line::styled(
                format!(
                    "OPEN {} {symbol} {leverage}x",
                    if *is_long { "▲ LONG" } else { "▼ SHORT" }
                ),
                theme.title(),
            ));
            lines.push(Line::from(format!(
                "margin {} (exactly {} USD){}",
                usd_text(signed(*margin)),
                crate::protocol::units::format_scaled(*margin, 18),
                if *use_debt {
                    " from the queued balance"
                } else {
                    ""
                }
            )));
            lines.push(Line::from(format!(
                "notional {}",
                usd_text(signed(notional))
            )));
            lines.push(Line::from(format!(
                "entry ≈ {} (fills at the mark when the relayer processes it)",
                price(*mark, *price_scale)
            )));
            let distance = percent_text(i128::from(mark.abs_diff(*bust)), u128::from(*mark), 3);
            lines.push(Line::from(format!(
                "bust {} ({distance}% away)",
                price(*bust, *price_scale)
            )));
            lines.push(Line::styled(
                format!("A {distance}% move against you liquidates it: the whole margin is lost."),
                theme.warn(),
            ));
            "Confirm open"
        }
        Dialog::Close { ids } => {
            let batches = ids.len().div_ceil(crate::protocol::eip712::MAX_CLOSE_IDS);
            lines.push(Line::styled(
                format!("CLOSE {} position(s) in {batches} intent(s)", ids.len()),
                theme.title(),
            ));
            let list: Vec<String> = ids.iter().take(12).map(|i| format!("#{i}")).collect();
            lines.push(Line::from(list.join(" ")));
            lines.push(Line::from(
                "Each settles at the mark when the relayer processes it.",
            ));
            "Confirm close"
        }
        Dialog::Cancel { intent_id, action } => {
            lines.push(Line::styled(
                format!("CANCEL {}", sanitize_line(action, 24)),
                theme.title(),
            ));
            lines.push(Line::from(format!("{intent_id:#x}")));
            lines.push(Line::from("Only works while it is still queued."));
            "Confirm cancel"
        }
    };
    lines.push(Line::from(""));
    lines.push(Line::styled(
        "y  sign with the session key and send    n / Esc  cancel",
        theme.badge(),
    ));
    let inner = overlay(frame, area, 76, lines.len() as u16 + 2, title);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), inner);
}

fn draw_help(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let lines: Vec<Line> = keymap::help_lines(&app.keymap)
        .into_iter()
        .map(|(keys, what)| {
            Line::from(vec![
                Span::styled(format!("{keys:>9}  "), theme.title()),
                Span::raw(what),
            ])
        })
        .collect();
    let inner = overlay(frame, area, 76, lines.len() as u16 + 2, "Keys (Esc closes)");
    frame.render_widget(Paragraph::new(lines), inner);
}

fn draw_header(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
    let mut markets = vec![Span::styled(
        format!(" {} ", app.mode.badge()),
        theme.badge(),
    )];
    if let Some(state) = &app.trading {
        if state.trading_paused {
            markets.push(Span::styled(" TRADING PAUSED ", theme.warn()));
        }
        for m in &state.instruments {
            let mark = app
                .marks
                .get(&m.id)
                .map(|r| price(*r, m.price_scale))
                .unwrap_or_else(|| "—".into());
            let status = m.status(state.trading_paused);
            let flag = match status.label() {
                "active" => String::new(),
                other => format!(" [{other}]"),
            };
            markets.push(Span::raw(format!(" {} {mark}", m.symbol)));
            // 24 h change, with an arrow as well as colour.
            if let (Some(now), Some(then)) = (app.marks.get(&m.id), app.day_open.get(&m.id)) {
                let change = i128::from(*now) - i128::from(*then);
                let arrow = if change >= 0 { "▲" } else { "▼" };
                markets.push(Span::styled(
                    format!(
                        " {arrow}{}%",
                        percent_text(change.abs(), u128::from(*then), 2)
                    ),
                    theme.signed(change),
                ));
            }
            markets.push(Span::raw(format!("{flag} ")));
        }
    } else {
        // Drawn at once, before the exchange answers: the UI is alive and says what it waits for.
        markets.push(Span::styled(" connecting to the exchange… ", theme.warn()));
    }
    if let Some(h) = &app.health {
        let (text, style) = if h.is_ready() {
            ("relayer ready", theme.dim())
        } else {
            ("RELAYER NOT READY", theme.warn())
        };
        markets.push(Span::styled(format!("│ {text}"), style));
    }
    let mut account = Vec::new();
    match (&app.wallet, &app.account) {
        (Some(w), Some(a)) => {
            let queued = if a.queued > 0 {
                format!(" queued {}", usd_text(signed(a.queued)))
            } else {
                String::new()
            };
            let paper = if a.paper.balance + a.paper.staked > 0 {
                format!(
                    " PAPER {}",
                    crate::protocol::units::wad_text(signed(a.paper.balance + a.paper.staked), 2)
                )
            } else {
                String::new()
            };
            account.push(Span::raw(format!(
                " {} {} avail {}{queued}{paper} ",
                short(w),
                usd_text(signed(a.balance)),
                usd_text(signed(a.funds.available_balance)),
            )));
        }
        (Some(w), None) => account.push(Span::raw(format!(" {} (syncing…) ", short(w)))),
        _ => {}
    }
    if let Some(k) = &app.key {
        let left = k.local_expiry.saturating_sub(
            now.duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
        );
        let style = if left < 3600 {
            theme.warn()
        } else {
            theme.dim()
        };
        let left_text = if left >= 86_400 {
            format!("{}d", left / 86_400)
        } else {
            format!("{}m", left / 60)
        };
        account.push(Span::styled(
            format!("│ {} key {left_text} ", k.backend),
            style,
        ));
    }
    let stream_age = app.freshness.age(Source::Account, now);
    let poll_age = app.freshness.age(Source::Trading, now);
    let stale = |a: Option<Duration>| a.is_none_or(|a| a > STALE_AFTER);
    let style = if stale(stream_age) || stale(poll_age) {
        theme.warn()
    } else {
        theme.dim()
    };
    account.push(Span::styled(
        format!("│ data {}/{}", age_text(stream_age), age_text(poll_age)),
        style,
    ));
    frame.render_widget(
        Paragraph::new(vec![Line::from(markets), Line::from(account)]),
        area,
    );
}

/// The tab bar's labels, in order; drawing and mouse clicks both read it.
const TABS: [(Tab, &str); 4] = [
    (Tab::Trade, "1 Trade"),
    (Tab::Positions, "2 Positions"),
    (Tab::History, "3 History"),
    (Tab::Protocol, "4 Protocol"),
];
/// The tab bar's screen row (below the two header lines).
pub const TAB_ROW: u16 = 2;

/// Which tab a click at `column` of the tab bar hits.
pub fn tab_at(column: u16) -> Option<Tab> {
    let mut start = 0u16;
    for (tab, label) in TABS {
        let end = start + label.chars().count() as u16 + 2;
        if column < end {
            return Some(tab);
        }
        start = end;
    }
    None
}

fn draw_tabs(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let spans: Vec<Span> = TABS
        .iter()
        .map(|(t, label)| {
            let style = if *t == app.tab {
                theme.selected()
            } else {
                theme.text()
            };
            Span::styled(format!(" {label} "), style)
        })
        .collect();
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn draw_trade(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
    let [left, ticket] =
        Layout::horizontal([Constraint::Min(30), Constraint::Length(40)]).areas(area);
    draw_ticket(frame, ticket, app, theme, now);
    let [chart_area, positions] =
        Layout::vertical([Constraint::Percentage(60), Constraint::Min(4)]).areas(left);
    chart::draw_chart(frame, chart_area, app, theme);
    draw_positions(frame, positions, app, theme, now);
}

fn draw_ticket(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Order ticket ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let t = &app.ticket;
    let Some((market, mark)) = app.ticket_market() else {
        frame.render_widget(Paragraph::new("waiting for market data…"), inner);
        return;
    };
    let side = if t.is_long {
        Span::styled("▲ LONG", theme.gain())
    } else {
        Span::styled("▼ SHORT", theme.loss())
    };
    let cursor = if t.editing_margin { "▏" } else { "" };
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!("{} ", market.symbol), theme.title()),
            side,
            Span::raw(format!("  {}x", t.leverage)),
        ]),
        Line::from(format!("margin ${}{cursor}", t.margin_text)),
        leverage_slider(
            t.leverage,
            app.trading
                .as_ref()
                .map_or(1000, |s| s.leverage_ceiling(market)),
        ),
    ];
    if !app.mode.can_trade() {
        lines.push(Line::styled(
            "read-only (watch): trading keys are off",
            theme.warn(),
        ));
    }
    if let Some(age) = app.freshness.age(Source::Mark(market.id), now)
        && age > STALE_AFTER
    {
        lines.push(Line::styled(
            format!("mark STALE: {} old", age_text(Some(age))),
            theme.warn(),
        ));
    }
    let Some(mark) = mark else {
        lines.push(Line::from("no mark yet"));
        frame.render_widget(Paragraph::new(lines), inner);
        return;
    };
    let Some(state) = &app.trading else { return };
    match t.preview(state, mark, app.funds()) {
        Err(e) => lines.push(Line::styled(e, theme.warn())),
        Ok(p) => {
            lines.push(Line::from(format!(
                "notional {} · entry ≈ {}",
                usd_text(signed(p.position.notional())),
                price(mark, market.price_scale)
            )));
            lines.push(Line::from(format!(
                "bust {} ({}% away)",
                price(p.bust, market.price_scale),
                percent_text(i128::from(mark.abs_diff(p.bust)), u128::from(mark), 3)
            )));
            lines.push(match &p.validation {
                Ok(()) => Line::styled("✓ passes the open checks", theme.gain()),
                Err(r) => Line::styled(format!("✗ {r}"), theme.loss()),
            });
            lines.push(Line::styled(
                format!(
                    "max margin {} ({})",
                    usd_text(signed(p.capacity.max_margin)),
                    p.capacity.limit.label()
                ),
                theme.dim(),
            ));
            lines.push(Line::from("a close pays, after all fees:"));
            for (label, s) in &p.scenarios {
                let net = s.net_pnl(p.position.margin);
                let note = if s.liquidated { " liq" } else { "" };
                lines.push(Line::from(vec![
                    Span::raw(format!(
                        " {label:>5} {:>10} ",
                        price(s.exit, market.price_scale)
                    )),
                    Span::styled(
                        format!("{:>11}{note}", usd_signed_text(net)),
                        theme.signed(net),
                    ),
                ]));
            }
        }
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

fn draw_positions(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
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
                    let room = i128::from(mark) - i128::from(p.bust_price);
                    let room = if p.is_long { room } else { -room };
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

fn draw_pending(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
    let now_s = now
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let ops = app
        .account
        .as_ref()
        .map_or(&[][..], |a| a.operations.as_slice());
    let block = Block::default()
        .borders(Borders::ALL)
        .title(format!(" Pending ({}) ", ops.len()));
    if ops.is_empty() {
        frame.render_widget(Paragraph::new("no queued intents").block(block), area);
        return;
    }
    let symbol = |id: Option<u32>| {
        id.and_then(|i| app.trading.as_ref()?.market_by_id(i))
            .map(|m| m.symbol.clone())
            .unwrap_or_default()
    };
    let rows: Vec<Row> = ops
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let id = format!("{:#x}", o.intent_id);
            let detail = match (o.is_long, o.amount, o.leverage) {
                (Some(l), Some(a), Some(lev)) => {
                    format!(
                        "{} {} {} {lev}x",
                        symbol(o.instrument_id),
                        if l { "▲L" } else { "▼S" },
                        usd_text(signed(a))
                    )
                }
                _ => o
                    .close_position_ids
                    .as_ref()
                    .map(|ids| format!("{} position(s)", ids.len()))
                    .unwrap_or_default(),
            };
            let rank = app
                .queue_ranks
                .get(&o.intent_id)
                .map_or("rank —".to_string(), |r| format!("rank {r}"));
            let row = Row::new(vec![
                Cell::from(format!("{}…", &id[..12])),
                Cell::from(rank),
                Cell::from(sanitize_line(&o.action, 16)),
                Cell::from(detail),
                Cell::from(format!(
                    "{}s old · {}",
                    now_s.saturating_sub(o.accepted_at_ms / 1000),
                    if o.deadline > now_s {
                        format!("expires in {}s", o.deadline - now_s)
                    } else {
                        "deadline passed".into()
                    }
                )),
            ]);
            if app.pending_focus && i == app.pending_cursor {
                row.style(theme.selected())
            } else {
                row
            }
        })
        .collect();
    let widths = [
        Constraint::Length(14),
        Constraint::Length(8),
        Constraint::Length(16),
        Constraint::Length(24),
        Constraint::Min(10),
    ];
    frame.render_widget(Table::new(rows, widths).block(block), area);
}

/// `lev ▕████······▏ 100x / 1000`: where the leverage sits in 1..=max (log scale, as steps are).
fn leverage_slider(leverage: u32, max: u32) -> Line<'static> {
    const CELLS: usize = 20;
    let position = |l: u32| (f64::from(l.max(1)).ln() / f64::from(max.max(2)).ln()).clamp(0.0, 1.0);
    let filled = (position(leverage) * CELLS as f64).round() as usize;
    Line::from(format!(
        "lev ▕{}{}▏ {leverage}x/{max}",
        "█".repeat(filled),
        "·".repeat(CELLS - filled)
    ))
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

fn draw_history(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
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

fn draw_protocol(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
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

fn draw_footer(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let toast = app
        .toasts
        .back()
        .map(|t| {
            Line::styled(
                t.text.clone(),
                if t.error { theme.loss() } else { theme.gain() },
            )
        })
        .unwrap_or_default();
    let hints = Line::styled(keymap::hints(&app.keymap), theme.dim());
    frame.render_widget(Paragraph::new(vec![toast, hints]), area);
}
