//! The two header lines (mode, marks, relayer, balances, key, data ages) and the tab bar.

use std::time::{Duration, SystemTime};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::{App, KeyState, Tab};
use crate::events::market::Source;
use crate::protocol::pretrade::percent_text;
use crate::protocol::units::{
    group_thousands, price_display as price, signed, usd_signed_text, usd_text, wad_text,
};

use super::theme::Theme;
use super::{STALE_AFTER, age_text, short};

/// A piece of a header line: shown whole or not at all. When a line is wider than the screen
/// the least important pieces go first (the rightmost of equals first), so a number or the key's
/// state is never cut short.
struct Field {
    spans: Vec<Span<'static>>,
    keep: u8,
}

/// Never dropped: without it the line would mislead (the mode, the connection, the key).
const ALWAYS: u8 = u8::MAX;

impl Field {
    fn new(keep: u8, spans: impl IntoIterator<Item = Span<'static>>) -> Self {
        Self {
            spans: spans.into_iter().collect(),
            keep,
        }
    }

    fn width(&self) -> usize {
        self.spans.iter().map(Span::width).sum()
    }
}

/// The fields that fit in `width`, in their order.
fn fitted(mut fields: Vec<Field>, width: u16) -> Line<'static> {
    while fields.iter().map(Field::width).sum::<usize>() > usize::from(width) {
        let least = fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.keep < ALWAYS)
            .min_by_key(|(i, f)| (f.keep, std::cmp::Reverse(*i)))
            .map(|(i, _)| i);
        match least {
            Some(i) => fields.remove(i),
            None => break,
        };
    }
    Line::from(fields.into_iter().flat_map(|f| f.spans).collect::<Vec<_>>())
}

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
    let lines = vec![
        fitted(market_fields(app, theme, now), area.width),
        fitted(account_fields(app, theme, now), area.width),
    ];
    frame.render_widget(Paragraph::new(lines), area);
}

/// The first line: the mode, each market's mark (the first markets kept longest) with its 24 h
/// change (dropped first), and the connection.
fn market_fields(app: &App, theme: &Theme, now: SystemTime) -> Vec<Field> {
    let mut fields = vec![Field::new(
        ALWAYS,
        [Span::styled(
            format!(" {} ", app.mode.badge()),
            theme.badge(),
        )],
    )];
    // An operator notice not yet read on the Protocol tab, on every tab.
    match app.notices.unread() {
        0 => {}
        n => fields.push(Field::new(
            ALWAYS,
            [Span::styled(
                format!(" ⚑ {n} NOTICE{} (4) ", if n == 1 { "" } else { "S" }),
                theme.alert(),
            )],
        )),
    }
    if let Some(state) = &app.trading {
        if state.trading_paused {
            fields.push(Field::new(
                ALWAYS,
                [Span::styled(" TRADING PAUSED ", theme.warn())],
            ));
        }
        for (i, m) in state.instruments.iter().enumerate() {
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
            let gap = if i == 0 { "" } else { " " };
            let rank = u8::try_from(i).unwrap_or(u8::MAX);
            fields.push(Field::new(
                40u8.saturating_sub(rank).max(20),
                [Span::raw(format!("{gap} {} {mark}{flag}", m.symbol))],
            ));
            // 24 h change, with an arrow as well as colour.
            if let (Some(now), Some(then)) = (app.marks.get(&m.id), app.day_open.get(&m.id)) {
                let change = i128::from(*now) - i128::from(*then);
                let arrow = if change >= 0 { "▲" } else { "▼" };
                fields.push(Field::new(
                    10,
                    [Span::styled(
                        format!(
                            " {arrow}{}%",
                            percent_text(change.abs(), u128::from(*then), 2)
                        ),
                        theme.signed(change),
                    )],
                ));
            }
        }
    } else {
        // Drawn at once, before the exchange answers: the UI is alive and says what it waits for.
        fields.push(Field::new(
            ALWAYS,
            [Span::styled(" connecting to the exchange…", theme.warn())],
        ));
    }
    // One status for the stream, the polls and the relayer: a dead exchange never looks alive.
    let connection = app.connection(now);
    let style = if connection.is_up() {
        theme.dim()
    } else {
        theme.warn()
    };
    fields.push(Field::new(
        ALWAYS,
        [Span::styled(format!(" │ {}", connection.text()), style)],
    ));
    fields
}

/// The second line: the wallet and its money (the balance kept longest, PAPER dropped first),
/// the session key's state (never dropped) and the data's age once stale.
fn account_fields(app: &App, theme: &Theme, now: SystemTime) -> Vec<Field> {
    let mut fields = Vec::new();
    match (&app.wallet, &app.account) {
        (Some(w), Some(a)) => {
            fields.push(Field::new(30, [Span::raw(format!(" {}", short(w)))]));
            fields.push(Field::new(
                60,
                [Span::raw(format!(" {}", usd_text(signed(a.balance))))],
            ));
            fields.push(Field::new(
                40,
                [Span::raw(format!(
                    " avail {}",
                    usd_text(signed(a.funds.available_balance))
                ))],
            ));
            if a.queued > 0 {
                fields.push(Field::new(
                    25,
                    [Span::raw(format!(" queued {}", usd_text(signed(a.queued))))],
                ));
            }
            // What the account is worth if every position closed at the mark now, and the open
            // positions' net PnL; unknown while any position cannot be valued.
            match app.totals(None) {
                Some(t) if !a.open_positions.is_empty() => {
                    let equity =
                        signed(a.balance.saturating_add(a.queued)).saturating_add(t.returns);
                    fields.push(Field::new(
                        45,
                        [Span::raw(format!(" equity {}", usd_text(equity)))],
                    ));
                    fields.push(Field::new(
                        50,
                        [Span::styled(
                            format!(" open {}", usd_signed_text(t.net)),
                            theme.signed(t.net),
                        )],
                    ));
                }
                Some(_) => {}
                None => fields.push(Field::new(45, [Span::raw(" equity —")])),
            }
            let paper = a.paper.balance.saturating_add(a.paper.staked);
            if paper > 0 {
                fields.push(Field::new(
                    10,
                    [Span::raw(format!(
                        " PAPER {}",
                        group_thousands(&wad_text(signed(paper), 2))
                    ))],
                ));
            }
        }
        (Some(w), None) => fields.push(Field::new(
            ALWAYS,
            [Span::raw(format!(" {} (syncing…)", short(w)))],
        )),
        _ => {}
    }
    if let Some(k) = &app.key {
        // The key as the account stream lists it, not as it was when the UI started.
        let now_s = crate::clock::unix_s(now);
        let (text, style) = match app.key_state(now_s) {
            KeyState::Valid { until } => {
                let left = until.saturating_sub(now_s);
                let left_text = if left >= 86_400 {
                    format!("{}d", left / 86_400)
                } else {
                    format!("{}m", left / 60)
                };
                let style = if left < 3600 {
                    theme.warn()
                } else {
                    theme.dim()
                };
                (format!("key {left_text}"), style)
            }
            KeyState::NotRegistered => ("KEY NOT REGISTERED".into(), theme.warn()),
            KeyState::Registering => ("key registering…".into(), theme.dim()),
            KeyState::Expired => ("KEY EXPIRED".into(), theme.warn()),
            KeyState::Unknown | KeyState::Missing => ("key …".into(), theme.dim()),
        };
        fields.push(Field::new(ALWAYS, [Span::styled(" │", style)]));
        // Where the key lives goes before the key's state does.
        fields.push(Field::new(
            5,
            [Span::styled(format!(" {}", k.backend), style)],
        ));
        fields.push(Field::new(
            ALWAYS,
            [Span::styled(format!(" {text}"), style)],
        ));
    } else if app.mode.can_trade() {
        fields.push(Field::new(
            ALWAYS,
            [Span::styled(
                format!(" │ NO SESSION KEY ({})", app.key_setup_key()),
                theme.warn(),
            )],
        ));
    }
    // Ages only once stale: a ticking counter would redraw (and send bytes) every second while
    // nothing changes, and the connection status already says when something is wrong.
    let stream_age = app.freshness.age(Source::Account, now);
    let poll_age = app.freshness.age(Source::Trading, now);
    let stale = |a: Option<Duration>| a.is_some_and(|a| a > STALE_AFTER);
    if stale(stream_age) || stale(poll_age) {
        fields.push(Field::new(
            55,
            [Span::styled(
                format!(
                    " │ data {}/{} old",
                    age_text(stream_age),
                    age_text(poll_age)
                ),
                theme.warn(),
            )],
        ));
    }
    fields
}

/// The tab bar's screen row (below the two header lines).
pub const TAB_ROW: u16 = 2;

/// Each tab's label (`Tab::label`) in a bar `width` wide with `chosen` on screen: every label
/// in full when they fit (one space before the first and after each), else the short ones for
/// the others. Drawing and mouse clicks both read it.
fn labels(width: u16, chosen: Tab) -> impl Iterator<Item = (Tab, &'static str)> {
    let full: usize = Tab::ALL
        .iter()
        .map(|t| t.label().0.chars().count() + 1)
        .sum::<usize>()
        + 1;
    let short = full > usize::from(width);
    Tab::ALL.iter().map(move |&tab| {
        let (long, brief) = tab.label();
        (tab, if short && tab != chosen { brief } else { long })
    })
}

/// Which tab a click at `column` of a tab bar `width` wide hits.
pub fn tab_at(column: u16, width: u16, chosen: Tab) -> Option<Tab> {
    let mut start = 0u16;
    for (tab, label) in labels(width, chosen) {
        let end = start + label.chars().count() as u16 + 1 + u16::from(start == 0);
        if column < end {
            return Some(tab);
        }
        start = end;
    }
    None
}

pub(super) fn draw_tabs(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let mut spans = vec![Span::raw(" ")];
    for (t, label) in labels(area.width, app.tab) {
        let style = if t == app.tab {
            theme.selected()
        } else {
            theme.text()
        };
        spans.push(Span::styled(label, style));
        spans.push(Span::raw(" "));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
