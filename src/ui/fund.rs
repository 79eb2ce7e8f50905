//! The Fund tab: the owner's HyperCore spot USDC and the Papertrade balance side by side, and
//! the deposit and withdraw forms with their route, fee and minimum; a move's review restates
//! exactly what the owner's wallet will sign, then its progress until it has arrived.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::app::App;
use crate::app::field::OwnerUnlock;
use crate::app::fund::{FundForm, FundStep};
use crate::protocol::eip712::MIN_WITHDRAW_USDC;
use crate::protocol::funding::{ACTIVATION_FEE_USDC, MIN_DEPOSIT_USDC, usdc_text};
use crate::protocol::units::{signed, usd_text};

use super::loaded;
use super::log::time_of_day;
use super::theme::Theme;

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(42), Constraint::Percentage(58)]).areas(area);
    draw_balances(frame, left, app, theme);
    draw_forms(frame, right, app, theme);
}

/// A label and its figure, the figure right-aligned to `width` (on its own line when both do
/// not fit).
fn row(width: u16, label: &str, value: String) -> Vec<Line<'static>> {
    let width = usize::from(width);
    let used = label.chars().count() + value.chars().count();
    if used < width {
        vec![Line::from(format!(
            "{label}{value:>pad$}",
            pad = width - label.chars().count()
        ))]
    } else {
        vec![
            Line::from(label.to_string()),
            Line::from(format!("{value:>width$}")),
        ]
    }
}

fn draw_balances(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let block = Block::default().borders(Borders::ALL).title(" Balances ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let core = &app.fund.core;
    let w = inner.width;
    let mut lines = vec![Line::styled(
        "HyperCore spot USDC (the source)",
        theme.title(),
    )];
    match core.value {
        Some(spot) => {
            // Exactly, to the USDC unit the spotSend moves.
            lines.extend(row(w, "  total", usdc_text(spot.total_usdc())));
            lines.extend(row(w, "  free to send", usdc_text(spot.available_usdc())));
        }
        None => lines.push(Line::from("  USDC not read yet")),
    }
    lines.push(Line::styled(
        format!("  {}", loaded::status(core)),
        theme.dim(),
    ));
    lines.push(Line::from(""));
    lines.push(Line::styled("Papertrade", theme.title()));
    match &app.account {
        Some(a) => {
            let usd = |wad: u128| usd_text(signed(wad));
            lines.extend(row(w, "  balance", usd(a.balance)));
            lines.extend(row(w, "  available", usd(a.funds.available_balance)));
            lines.extend(row(w, "  locked in positions", usd(a.locked)));
            lines.extend(row(w, "  queued profit", usd(a.queued)));
            lines.extend(row(w, "  deposited, lifetime", usd(a.lifetime.deposited)));
            lines.extend(row(w, "  withdrawn, lifetime", usd(a.lifetime.withdrawn)));
            lines.push(Line::styled(
                "  queued profit is paid as the LP can: usable as margin (useDebt), not withdrawable until paid",
                theme.dim(),
            ));
        }
        None => lines.push(Line::from("  waiting for the account stream…")),
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

fn draw_forms(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let block = Block::default()
        .borders(Borders::ALL)
        .title(" Deposit · Withdraw ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let f = &app.fund;
    let mut lines = Vec::new();
    if !app.mode.can_trade() {
        lines.push(Line::styled(
            "read-only (watch): balances only; nothing can be signed",
            theme.warn(),
        ));
    }
    let typing = matches!(f.step, FundStep::Amount);
    // Once a move is under way its form alone stays, so the review fits the screen.
    let forms: &[FundForm] = match f.step {
        FundStep::Idle | FundStep::Amount => &[FundForm::Deposit, FundForm::Withdraw],
        _ => std::slice::from_ref(&f.form),
    };
    for &form in forms {
        let chosen = f.form == form;
        let (title, route) = match form {
            FundForm::Deposit => (
                "Deposit  HyperCore spot → Papertrade",
                format!(
                    "spotSend to your deposit proxy (verified on HyperEVM) · min {} · +{} activation fee the first time · one at a time",
                    usdc_text(MIN_DEPOSIT_USDC),
                    usdc_text(ACTIVATION_FEE_USDC)
                ),
            ),
            FundForm::Withdraw => (
                "Withdraw Papertrade → HyperCore spot",
                format!(
                    "WithdrawToCore, route hypercore · min {} · from the available balance only",
                    usdc_text(MIN_WITHDRAW_USDC)
                ),
            ),
        };
        let marker = if chosen { "▶ " } else { "  " };
        let style = if chosen { theme.title() } else { theme.text() };
        lines.push(Line::styled(format!("{marker}{title}"), style));
        let cursor = if chosen && typing { "▏" } else { "" };
        let text = f.text(form);
        lines.push(Line::from(vec![
            Span::raw("  amount "),
            Span::styled(
                format!("{}{cursor}", if text.is_empty() { "–" } else { text }),
                if chosen && typing {
                    theme.selected()
                } else {
                    theme.text()
                },
            ),
            Span::raw(" USDC"),
        ]));
        if forms.len() > 1 {
            lines.push(Line::styled(format!("  {route}"), theme.dim()));
        }
    }
    lines.push(Line::from(""));
    if let Some((text, error)) = &f.status {
        let style = if *error { theme.warn() } else { theme.text() };
        lines.push(Line::styled(text.clone(), style));
    }
    match &f.step {
        FundStep::Idle | FundStep::Amount => {}
        FundStep::Checking => lines.push(Line::from(
            "reading the deposit proxy (verified on HyperEVM) and the balances…",
        )),
        FundStep::Review(review) => {
            for l in &review.lines {
                lines.push(Line::from(l.clone()));
            }
            lines.push(Line::styled(
                "y  sign with the OWNER's keystore, never the session key · n cancel",
                theme.badge(),
            ));
        }
        FundStep::Owner {
            review,
            unlock: OwnerUnlock::Path(path),
        } => {
            lines.push(Line::from(review.lines[0].clone()));
            lines.push(Line::from(format!("owner keystore file: {path}▏")));
        }
        FundStep::Owner {
            review,
            unlock: OwnerUnlock::Passphrase { typing, .. },
        } => {
            lines.push(Line::from(review.lines[0].clone()));
            lines.push(Line::from(format!(
                "owner keystore passphrase: {}▏",
                "•".repeat(typing.chars())
            )));
            if let Some(hint) = &app.owner_passphrase_hint {
                lines.push(Line::styled(hint.clone(), theme.dim()));
            }
        }
        FundStep::Sending(review) => {
            lines.push(Line::from(review.lines[0].clone()));
            lines.push(Line::from(
                "signing with the owner's wallet and sending, once…",
            ));
        }
        FundStep::Following(follow) => lines.push(Line::from(format!(
            "{} of {} USDC on its way since {} UTC: {} (Esc stops waiting here)",
            follow.form.name(),
            usdc_text(follow.amount),
            time_of_day(follow.since),
            match follow.form {
                FundForm::Deposit => "the sweeper credits it in about a minute",
                FundForm::Withdraw => "watching the HyperCore spot USDC",
            }
        ))),
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
