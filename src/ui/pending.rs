//! Queued intents with their place in the relayer's queue, age and deadline.

use std::time::SystemTime;

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table};

use crate::app::{App, SendFate, Unanswered};
use crate::protocol::units::{signed, usd_text};
use crate::text::sanitize_line;

use super::theme::Theme;

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
    let now_s = crate::clock::unix_s(now);
    let ops = app
        .account
        .as_ref()
        .map_or(&[][..], |a| a.operations.as_slice());
    let unanswered: Vec<&Unanswered> = app.unanswered_at(now).collect();
    let title = if unanswered.is_empty() {
        format!(" Pending ({}) ", ops.len())
    } else {
        format!(
            " Pending ({}) · not queued ({}) ",
            ops.len(),
            unanswered.len()
        )
    };
    let block = Block::default().borders(Borders::ALL).title(title);
    if ops.is_empty() && unanswered.is_empty() {
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
                        crate::app::side::arrow_letter(l),
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
        .chain(unanswered.iter().map(|u| unanswered_row(u, theme)))
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

/// A send that is not in the queue as far as this client knows: what became of it, and what the
/// trader can rely on (a send with no answer is watched, never resent).
fn unanswered_row<'a>(u: &Unanswered, theme: &Theme) -> Row<'a> {
    let id = u.intent_id.map_or("—".to_string(), |id| {
        format!("{}…", &format!("{id:#x}")[..12])
    });
    let (state, note) = match &u.fate {
        SendFate::NoAnswer => (
            "NO ANSWER",
            "may be queued: the stream decides; not resent".to_string(),
        ),
        SendFate::Refused(code) => (
            "REFUSED",
            format!(
                "{}: nothing was queued (e: the reason)",
                sanitize_line(code, 32)
            ),
        ),
        SendFate::NotSent => ("NOT SENT", "nothing left this machine (e: why)".to_string()),
    };
    Row::new(vec![
        Cell::from(id),
        Cell::from(""),
        Cell::from(state),
        Cell::from(sanitize_line(&u.what, 24)),
        Cell::from(note),
    ])
    .style(theme.warn())
}
