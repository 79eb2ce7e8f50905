//! Drawing: a pure function of `App` onto a ratatui frame. Nothing here reads the network or
//! the clock: every pane, the hint bar and the overlays draw at the one `now` the frame is
//! given (not at `App::clock`, the time of the last message).
//!
//! One file per pane, each drawing from `&App`. What the keys do (the hint bar, the `?`
//! overlay's first line) is the focused pane's `commands` (`app::pane`). A new pane is its file
//! and a line in `draw`.

mod chart;
pub(crate) mod columns;
mod dialog;
mod explorer;
mod footer;
mod fund;
mod header;
mod help;
mod history;
mod key_panel;
pub mod keymap;
mod leaders;
mod liquidations;
mod loaded;
mod log;
pub(crate) mod notify;
mod pending;
mod positions;
mod protocol;
pub mod theme;
mod ticket;

use std::time::SystemTime;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

pub(crate) use crate::app::Hint;
use crate::app::freshness::STALE_AFTER;
use crate::app::freshness::age_text;
use crate::app::{App, Tab};
use crate::events::market::Source;
use theme::Theme;

pub use header::{TAB_ROW, tab_at};

pub(crate) const MIN_WIDTH: u16 = 80;
pub(crate) const MIN_HEIGHT: u16 = 24;

fn short(address: &alloy_primitives::Address) -> String {
    let full = format!("{address:#x}");
    format!("{}…{}", &full[..6], &full[full.len() - 4..])
}

/// The oldest of `sources` past its limit (each with the age past which a pane calls it stale),
/// as a pane's title says it: ` · STALE 2m`; empty while every one is fresh.
fn stale_text(app: &App, sources: &[(Source, std::time::Duration)], now: SystemTime) -> String {
    sources
        .iter()
        .filter_map(|(source, limit)| app.freshness.age(*source, now).filter(|a| a > limit))
        .max()
        .map(|age| format!(" · STALE {}", age_text(Some(age))))
        .unwrap_or_default()
}

/// A pane's bordered block, its title in the warning style once its data is stale.
fn pane_block(title: String, stale: bool, theme: &Theme) -> Block<'static> {
    let title = if stale {
        ratatui::text::Line::styled(title, theme.warn())
    } else {
        ratatui::text::Line::from(title)
    };
    Block::default().borders(Borders::ALL).title(title)
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
    let [header_area, tabs, body, footer_area] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(1),
        Constraint::Min(10),
        Constraint::Length(2),
    ])
    .areas(area);
    header::draw(frame, header_area, app, theme, now);
    header::draw_tabs(frame, tabs, app, theme);
    match app.tab {
        Tab::Trade => {
            let [left, ticket_area] =
                Layout::horizontal([Constraint::Min(30), Constraint::Length(40)]).areas(body);
            ticket::draw(frame, ticket_area, app, theme, now);
            let [chart_area, positions_area] =
                Layout::vertical([Constraint::Percentage(60), Constraint::Min(4)]).areas(left);
            chart::draw_chart(frame, chart_area, app, theme, now);
            positions::draw(frame, positions_area, app, theme, now);
        }
        Tab::Positions => {
            let pending = app.account.as_ref().map_or(0, |a| a.operations.len())
                + app.unanswered_at(now).count();
            let pending = u16::try_from(pending).unwrap_or(u16::MAX);
            let [top, bottom] = Layout::vertical([
                Constraint::Min(5),
                Constraint::Length(pending.saturating_add(3).min(10)),
            ])
            .areas(body);
            positions::draw(frame, top, app, theme, now);
            pending::draw(frame, bottom, app, theme, now);
        }
        Tab::History => history::draw(frame, body, app, theme),
        Tab::Protocol => protocol::draw(frame, body, app, theme, now),
        Tab::Leaders => leaders::draw(frame, body, app, theme),
        Tab::Explorer => explorer::draw(frame, body, app, theme, now),
        Tab::Liquidations => liquidations::draw(frame, body, app, theme),
        Tab::Fund => fund::draw(frame, body, app, theme),
    }
    footer::draw(frame, footer_area, app, theme, now);
    draw_banner(frame, body, app, theme);
    if app.dialog.is_some() {
        dialog::draw(frame, area, app, theme);
    } else if app.key_panel.is_some() {
        key_panel::draw(frame, area, app, theme, now);
    } else if app.help {
        help::draw(frame, area, app, theme, now);
    } else if app.show_log {
        log::draw(frame, area, app, theme);
    }
}

/// The latest distance-to-bust alert, across the top of the body so no pane hides it.
fn draw_banner(frame: &mut Frame, body: Rect, app: &App, theme: &Theme) {
    let Some(alert) = &app.banner else { return };
    let area = Rect::new(body.x, body.y, body.width, 1);
    let text = format!(" ⚠ NEAR BUST  {} · Esc dismisses ", alert.text());
    frame.render_widget(ratatui::widgets::Clear, area);
    frame.render_widget(Paragraph::new(text).style(theme.alert()), area);
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
