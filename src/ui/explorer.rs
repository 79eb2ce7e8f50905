//! The Explorer tab: any wallet, read-only — its balance sheet, rank per window, open positions
//! valued at the mark with their distance to bust and what a close pays, and its pending
//! intents. `/` takes an address (or a name, searched on the leaderboard); Enter on a
//! leaderboard row opens one here. Nothing on this tab can sign.

use std::time::SystemTime;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState, Wrap};

use crate::analytics::intents::{WalletView, lookup};
use crate::analytics::liquidations::{Danger, WalletRisk, wallet_risk};
use crate::analytics::wallet::{pending_staking_reward, unrealized};
use crate::app::App;
use crate::app::explore::{Found, WalletRead};
use crate::config::keys::Command;
use crate::protocol::reads::TradeEvent;

use super::history::FeedTable;
use crate::protocol::pretrade::percent_text;
use crate::protocol::units::{price_display, signed, usd_signed_text, usd_text, wad_text};
use crate::text::sanitize_line;

use super::columns::{Column, fit, kept, layout};
use super::theme::Theme;
use super::{loaded, short};

const POSITIONS: [Column; 11] = [
    Column::new("MKT", 5, 10),
    Column::new("SIDE", 5, 10),
    Column::new("LEV", 5, 9),
    Column::new("MARGIN", 11, 8),
    Column::new("ENTRY", 10, 5),
    Column::new("BUST", 10, 10),
    Column::new("TO BUST", 8, 10),
    Column::new("TO BUST $", 10, 3),
    Column::new("RISK", 8, 6),
    Column::new("CLOSE PAYS", 11, 9),
    Column::new("NET PNL", 10, 7),
];

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, now: SystemTime) {
    let x = &app.explore.explorer;
    let title = match (&x.wallet, x.read.value.as_deref()) {
        _ if x.found.is_some() => {
            " Explorer · lookup in the recent-trades feed · read-only ".into()
        }
        (Some(w), Some(r)) if r.account.address == *w => match &r.name {
            Some(n) => format!(" Explorer · {} · {} · read-only ", short(w), n),
            None => format!(" Explorer · {} · read-only ", short(w)),
        },
        (Some(w), _) => format!(" Explorer · {} · read-only ", short(w)),
        (None, _) => " Explorer · read-only ".to_string(),
    };
    let block = Block::default().borders(Borders::ALL).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [input_area, body] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(inner);
    let input = if x.input.typing {
        format!(
            "wallet, intent, position or name: {}▏ (Enter, Esc stops)",
            x.input.text
        )
    } else {
        match &x.wallet {
            Some(w) if x.found.is_some() => format!("Esc goes back to {w:#x}"),
            Some(w) => format!("{w:#x} · {}", loaded::status(&x.read)),
            None => {
                let key = app.keymap.key_of(Command::Margin);
                format!("{key} finds a wallet, an intent or position id, or a name; ⏎ opens a row")
            }
        }
    };
    frame.render_widget(Paragraph::new(input).wrap(Wrap { trim: true }), input_area);
    if let Some(found) = x.found {
        draw_found(frame, body, app, theme, found);
        return;
    }
    if x.wallet.is_none() {
        // Before any wallet: the exchange's latest trades, each a way in.
        let rows: Vec<&TradeEvent> = app.recent_trades.iter().collect();
        let how = FeedTable {
            wallets: true,
            selected: Some(x.cursor.min(rows.len().saturating_sub(1))),
        };
        let title = " The exchange's latest trades · Enter opens the trader's wallet ";
        super::history::draw_trades(frame, body, title, &rows, how, app, theme);
        return;
    }
    let Some(read) = x
        .read
        .value
        .as_deref()
        .filter(|r| Some(r.account.address) == x.wallet)
    else {
        return;
    };
    let (Some(state), now_s) = (app.trading.as_ref(), crate::clock::unix_s(now)) else {
        frame.render_widget(
            Paragraph::new("no market data yet: positions cannot be valued").style(theme.dim()),
            body,
        );
        return;
    };
    let risk = wallet_risk(&read.account, state, &app.marks);
    let sheet = sheet_lines(read, state, &app.marks, now_s, &risk);
    let sheet_height = sheet.len() as u16;
    let pending = read.account.operations.len();
    let pending_height = if pending == 0 {
        0
    } else {
        (pending as u16 + 1).min(6)
    };
    let trades: Vec<&TradeEvent> = app
        .recent_trades
        .iter()
        .filter(|e| e.wallet == read.account.address)
        .collect();
    let trades_height = if trades.is_empty() {
        0
    } else {
        (trades.len() as u16 + 3).min(7)
    };
    let [sheet_area, positions_area, pending_area, trades_area] = Layout::vertical([
        Constraint::Length(sheet_height),
        Constraint::Min(3),
        Constraint::Length(pending_height),
        Constraint::Length(trades_height),
    ])
    .areas(body);
    if !trades.is_empty() {
        super::history::draw_trades(
            frame,
            trades_area,
            " In the exchange's recent-trades feed ",
            &trades,
            FeedTable::default(),
            app,
            theme,
        );
    }
    frame.render_widget(Paragraph::new(sheet).wrap(Wrap { trim: true }), sheet_area);
    draw_positions(frame, positions_area, app, theme, &risk);
    if pending > 0 {
        let mut lines = vec![Line::styled(
            format!("pending intents ({pending})"),
            theme.dim(),
        )];
        for op in &read.account.operations {
            let id = format!("{:#x}", op.intent_id);
            lines.push(Line::from(format!(
                "{}…  {}",
                &id[..12],
                sanitize_line(&op.action, 24)
            )));
        }
        frame.render_widget(Paragraph::new(lines), pending_area);
    }
}

/// An intent or position looked up: what the recent-trades feed (and this session's own
/// account) says of it, and whose it is.
fn draw_found(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, found: Found) {
    let rows = app.found_rows();
    let mut lines = Vec::new();
    match found {
        Found::Intent(id) => {
            let own = app.account.as_ref().map(|account| WalletView {
                account,
                rank: None,
                outcomes: &[],
            });
            let l = lookup(id, &app.recent_trades, own.as_ref());
            lines.push(Line::from(format!("intent {id:#x}")));
            let mut state = format!("state: {}", l.state);
            if let Some((op, _)) = &l.pending {
                state.push_str(&format!(
                    " · queued in this session's account ({})",
                    sanitize_line(&op.action, 24)
                ));
            }
            if let Some(p) = &l.position {
                state.push_str(&format!(" · opened this session's position #{}", p.id));
            }
            lines.push(Line::from(state));
        }
        Found::Position(id) => lines.push(Line::from(format!("position #{id}"))),
    }
    lines.push(Line::styled(
        match rows.first() {
            Some(e) => format!(
                "{} row(s) in the recent-trades feed · wallet {:#x} · Enter opens it · Esc back",
                rows.len(),
                e.wallet
            ),
            None => "not in the recent-trades feed (its last 50 trades): an older one needs its wallet · Esc back".to_string(),
        },
        theme.dim(),
    ));
    let [text_area, table_area] = Layout::vertical([
        Constraint::Length(lines.len() as u16 + 1),
        Constraint::Min(3),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), text_area);
    if !rows.is_empty() {
        let how = FeedTable {
            wallets: true,
            selected: None,
        };
        super::history::draw_trades(frame, table_area, " Feed rows ", &rows, how, app, theme);
    }
}

/// ` (1 critical, 2 high)`: how many positions are in each band held (`preview_wallet_risk`).
fn danger_counts(risk: &WalletRisk) -> String {
    let bands: Vec<String> = Danger::ALL
        .iter()
        .zip(risk.by_danger)
        .filter(|(_, n)| *n > 0)
        .map(|(d, n)| format!("{n} {}", d.label()))
        .collect();
    if bands.is_empty() {
        String::new()
    } else {
        format!(" ({})", bands.join(", "))
    }
}

/// A total over every position, or "—" while one of them cannot be valued (a partial sum would
/// read as the whole).
fn all_closed(risk: &WalletRisk, total: String) -> String {
    if risk.unvalued > 0 {
        "—".into()
    } else {
        total
    }
}

/// The balance sheet: money, counts, PAPER, lifetime figures, keys, ranks.
fn sheet_lines(
    read: &WalletRead,
    state: &crate::protocol::trading::TradingState,
    marks: &std::collections::BTreeMap<u32, u64>,
    now_s: u64,
    risk: &WalletRisk,
) -> Vec<Line<'static>> {
    let a = &read.account;
    let l = &a.lifetime;
    let active = a.session_keys.iter().filter(|k| k.expiry > now_s).count();
    let ranks: Vec<String> = read
        .ranks
        .iter()
        .map(|r| match r.rank {
            Some(n) => format!(
                "{} #{n} {}",
                r.window.name(),
                r.pnl.map_or("—".into(), usd_signed_text)
            ),
            None if r.scanned == 0 => format!("{} unavailable", r.window.name()),
            None => format!("{} not in the top {}", r.window.name(), r.scanned),
        })
        .collect();
    vec![
        Line::from(format!(
            "balance {} · available {} · queued {} · locked {}",
            usd_text(signed(a.balance)),
            usd_text(signed(a.funds.available_balance)),
            usd_text(signed(a.queued)),
            usd_text(signed(a.locked)),
        )),
        Line::from(format!(
            "{} open{} · {} pending · closing all pays {} (net {}) · equity {}",
            a.open_positions.len(),
            danger_counts(risk),
            a.operations.len(),
            all_closed(risk, usd_text(risk.close_pays)),
            unrealized(a, state, marks).map_or("—".into(), usd_signed_text),
            usd_text(risk.equity),
        )),
        Line::from(format!(
            "PAPER {} held · {} staked · reward pending {} · keys {} ({active} active)",
            wad_text(signed(a.paper.balance), 2),
            wad_text(signed(a.paper.staked), 2),
            usd_text(signed(pending_staking_reward(
                a,
                state.acc_reward_per_share
            ))),
            a.session_keys.len(),
        )),
        Line::from(format!(
            "lifetime: deposited {} · withdrawn {} · realised {} · fees {}",
            usd_text(signed(l.deposited)),
            usd_text(signed(l.withdrawn)),
            usd_signed_text(l.realized_pnl),
            usd_text(signed(l.fees_paid)),
        )),
        Line::from(format!("rank (windowed PnL): {}", ranks.join(" · "))),
    ]
}

fn draw_positions(frame: &mut Frame, area: Rect, app: &App, theme: &Theme, risk: &WalletRisk) {
    if risk.positions.is_empty() {
        let text = if risk.unvalued > 0 {
            format!("{} position(s) in markets without a mark", risk.unvalued)
        } else {
            "no open positions".to_string()
        };
        frame.render_widget(Paragraph::new(text).style(theme.dim()), area);
        return;
    }
    let shown = fit(&POSITIONS, area.width);
    let (widths, titles) = layout(&POSITIONS, &shown);
    let rows = risk.positions.iter().map(|p| {
        let at = &p.at;
        let scale = at.price_scale;
        let cells = [
            sanitize_line(&at.symbol, 5),
            if at.is_long { "long" } else { "short" }.to_string(),
            format!("{}x", at.leverage),
            usd_text(signed(at.margin)),
            price_display(at.entry, scale),
            price_display(at.bust, scale),
            if at.past_bust() {
                "PAST".to_string()
            } else {
                format!("{}%", percent_text(at.room(), u128::from(at.mark), 2))
            },
            price_display(u64::try_from(at.room().max(0)).unwrap_or(u64::MAX), scale),
            at.danger().label().to_string(),
            usd_text(p.close_pays),
            usd_signed_text(p.close_net_pnl),
        ];
        let row = Row::new(kept(cells, &shown).into_iter().map(Cell::from));
        if at.danger() <= Danger::High {
            row.style(theme.warn())
        } else {
            row
        }
    });
    let table = Table::new(rows, widths)
        .header(Row::new(titles).style(theme.dim()))
        .row_highlight_style(theme.selected());
    let mut state = TableState::default().with_selected(Some(app.explore.explorer.cursor));
    frame.render_stateful_widget(table, area, &mut state);
}
