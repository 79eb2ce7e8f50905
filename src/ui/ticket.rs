//! The order ticket with its exact pre-trade panel, and the Trade tab's layout around it.

use std::time::SystemTime;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::app::App;
use crate::app::ticket::{Typing, typed_market};
use crate::events::market::Source;
use crate::protocol::pretrade::percent_text;
use crate::protocol::units::{price_display as price, signed, usd_signed_text, usd_text};
use crate::text::sanitize_line;

use super::theme::Theme;
use super::{STALE_AFTER, age_text};

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
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
    let side = Span::styled(
        crate::app::side::arrow_word(t.is_long),
        if t.is_long {
            theme.gain()
        } else {
            theme.loss()
        },
    );
    let cursor = if t.editing_margin { "▏" } else { "" };
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!("{} ", market.symbol), theme.title()),
            side,
            Span::raw(format!("  {}x", t.leverage)),
        ]),
        Line::from(format!(
            "margin ${}{cursor}{}",
            t.margin_text,
            if t.use_debt {
                " from queued (debt)"
            } else {
                ""
            }
        )),
        leverage_slider(t.leverage, app.ticket_leverage_ceiling()),
    ];
    // A leverage or market being typed: what Enter would set, or why not yet.
    match &t.typing {
        Some(Typing::Leverage(text)) => lines.insert(
            1,
            Line::styled(format!("type leverage: {text}▏x"), theme.title()),
        ),
        Some(Typing::Market(text)) => {
            let picks = app
                .trading
                .as_ref()
                .map(|s| match typed_market(s, text) {
                    Ok(i) => format!("→ {}", sanitize_line(&s.instruments[i].symbol, 12)),
                    Err(_) => "(no single match yet)".into(),
                })
                .unwrap_or_default();
            lines.insert(
                1,
                Line::styled(format!("type market: {text}▏ {picks}"), theme.title()),
            );
        }
        None => {}
    }
    if let Some(from) = t.review {
        lines.insert(
            0,
            Line::styled(
                format!(
                    "⚑ {}: check each value; nothing is signed until you confirm",
                    from.words()
                ),
                theme.badge(),
            ),
        );
    }
    let now_s = crate::clock::unix_s(now);
    // The key comes first: without one nothing below can be signed, and the fix is one key.
    let key_problem = app.mode.can_trade() && app.key_gate(now_s).is_err();
    if !app.mode.can_trade() {
        lines.push(Line::styled(
            "read-only (watch): trading keys are off",
            theme.warn(),
        ));
    } else if let Err(why) = app.key_gate(now_s) {
        lines.push(Line::styled(format!("✗ {why}"), theme.warn()));
    } else if let Some(left) = app.key_needs_renewal(now_s) {
        lines.push(Line::styled(
            format!(
                "session key expires in {} min: {} renews it",
                left / 60,
                app.key_setup_key()
            ),
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
    match t.preview(state, mark, app.account.as_ref()) {
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
            // What Review would refuse besides the relayer's rules: the key, the relayer, the
            // mark's age. Said here so a trader sees it before pressing Enter.
            if app.mode.can_trade()
                && !key_problem
                && let Err(why) = app.trade_gate(Some(market.id), now)
            {
                lines.push(Line::styled(
                    format!("✗ cannot sign now: {why}"),
                    theme.warn(),
                ));
            }
            lines.push(Line::styled(
                format!(
                    "max margin {} ({})",
                    usd_text(signed(p.capacity.max_margin)),
                    p.capacity.limit.label()
                ),
                theme.dim(),
            ));
            lines.push(Line::from("net PnL of a close, after all fees:"));
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
