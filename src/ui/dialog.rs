//! The confirm dialog: it restates exactly what `y` will sign, and nothing else signs.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use alloy_primitives::U256;

use crate::app::App;
use crate::protocol::pretrade::percent_text;
use crate::protocol::units::{price_display as price, signed, usd_signed_text, usd_text};
use crate::text::sanitize_line;

use super::overlay;
use super::theme::Theme;

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    use crate::app::Dialog;
    let Some(dialog) = &app.dialog else { return };
    if let Dialog::Close { ids } = dialog {
        return draw_close(frame, area, app, ids, theme);
    }
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
                    crate::app::side::arrow_word(*is_long)
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
            if app.ticket.review == Some(crate::app::Prefilled::Link) {
                lines.push(Line::styled(
                    "These values came from a link someone else wrote: check each one.",
                    theme.warn(),
                ));
            }
            "Confirm open"
        }
        Dialog::Close { .. } => unreachable!("drawn by draw_close"),
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
    lines.push(Line::styled(CONFIRM_LINE, theme.badge()));
    let inner = overlay(frame, area, 76, lines.len() as u16 + 2, title);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), inner);
}

const CONFIRM_LINE: &str = "y  sign with the session key and send    n / Esc  cancel";

/// Every position the close will send, what each pays at the mark now, the total and how
/// many intents go out. The list scrolls; the header, the total and the y/n line never leave
/// the screen.
fn draw_close(frame: &mut Frame, area: Rect, app: &App, ids: &[U256], theme: &Theme) {
    let batches = ids.len().div_ceil(crate::protocol::eip712::MAX_CLOSE_IDS);
    let valued = app.valued();
    let rows: Vec<Line> = ids
        .iter()
        .map(|id| match valued.iter().find(|v| v.position.id == *id) {
            Some(v) => {
                let p = v.position;
                let what = format!(
                    "#{id} {} {} {}x margin {}",
                    sanitize_line(&v.symbol(), 12),
                    crate::app::side::arrow(p.is_long),
                    p.leverage,
                    usd_text(signed(p.margin))
                );
                match &v.value {
                    Some(c) if c.liquidated => Line::styled(
                        format!("{what} → LIQUIDATED at the mark: pays $0.00"),
                        theme.loss(),
                    ),
                    Some(c) => Line::styled(
                        format!(
                            "{what} → pays {} (net {})",
                            usd_text(c.returns),
                            usd_signed_text(c.net)
                        ),
                        theme.signed(c.net),
                    ),
                    None => Line::from(format!("{what} → not valued (no mark or market)")),
                }
            }
            None => Line::from(format!("#{id} (no longer open)")),
        })
        .collect();
    let total = match app.totals(Some(ids)) {
        Some(t) => format!(
            "total at the marks now: pays {} · net {}",
            usd_text(t.returns),
            usd_signed_text(t.net)
        ),
        None => "total: not known (a position cannot be valued)".into(),
    };
    // Header, blank, total, note, blank, y/n around the list, plus the border.
    let fixed = 6u16;
    let height = (rows.len() as u16 + fixed + 2).min(area.height);
    let visible = usize::from(height.saturating_sub(fixed + 2)).max(1);
    let first = app.dialog_scroll.min(rows.len().saturating_sub(visible));
    let shown = rows.len().min(visible);
    let mut lines = vec![
        Line::styled(
            format!(
                "CLOSE {} position(s) in {batches} intent(s) of at most {}",
                ids.len(),
                crate::protocol::eip712::MAX_CLOSE_IDS
            ),
            theme.title(),
        ),
        Line::from(if rows.len() > shown {
            format!(
                "rows {}–{} of {} (↑↓ scroll)",
                first + 1,
                first + shown,
                rows.len()
            )
        } else {
            String::new()
        }),
    ];
    lines.extend(rows.into_iter().skip(first).take(shown));
    lines.push(Line::styled(total, theme.title()));
    lines.push(Line::from(
        "Each settles at the mark when processed (deadband, impact haircut, 2% win fee).",
    ));
    lines.push(Line::from(""));
    lines.push(Line::styled(CONFIRM_LINE, theme.badge()));
    let inner = overlay(frame, area, 100, height, "Confirm close");
    // No wrapping: each line is one row, so the y/n line is always the last one drawn.
    frame.render_widget(Paragraph::new(lines), inner);
}
