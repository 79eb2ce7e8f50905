//! The confirm dialog: it restates exactly what `y` will sign, and nothing else signs.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use crate::protocol::units::{price_display as price, signed, usd_text};
use crate::quote::percent_text;
use crate::text::sanitize_line;

use super::theme::Theme;
use super::{Hint, overlay};

pub(super) fn draw(frame: &mut Frame, area: Rect, dialog: &crate::app::Dialog, theme: &Theme) {
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

/// Only these two keys work while a dialog is open.
pub(super) fn commands() -> Vec<Hint> {
    vec![
        Hint::fixed("Y", "sign and send"),
        Hint::fixed("N/Esc", "cancel"),
    ]
}
