//! The Leaders tab: the exchange's leaderboard for any window, sort key and direction, a page at
//! a time, with a name or address search (`/`). Enter opens the highlighted wallet in the
//! explorer. Ranks are the board's true places (`analytics::leaderboard`).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState};

use crate::analytics::leaderboard::Leaderboard;
use crate::app::App;
use crate::protocol::leaderboard::{SortDir, SortKey};
use crate::protocol::units::group_thousands;
use crate::text::sanitize_line;

use super::columns::{Column, fit, kept, layout};
use super::theme::Theme;
use super::{loaded, short};

const COLUMNS: [Column; 7] = [
    Column::new("RANK", 6, 10),
    Column::new("WALLET", 13, 10),
    Column::new("NAME", 18, 7),
    Column::new("PNL", 13, 9),
    Column::new("VOLUME", 14, 5),
    Column::new("OPEN", 5, 4),
    // The sort key's own figure (its title is the key's).
    Column::new("", 16, 10),
];

/// The sort keys' column titles.
fn key_title(key: SortKey) -> &'static str {
    match key {
        SortKey::TotalWindowedPnl => "WINDOW PNL",
        SortKey::RealizedPnl => "REALISED",
        SortKey::CurrentUnrealizedPnl => "UNREALISED",
        SortKey::CurrentBalance => "BALANCE",
        SortKey::CurrentQueued => "QUEUED",
        SortKey::CurrentOpenNotional => "OPEN NOTIONAL",
        SortKey::TotalVolume => "VOLUME",
        SortKey::PaperTotal => "PAPER",
        SortKey::CurrentOpenPositionCount => "POSITIONS",
    }
}

pub(super) fn draw(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let l = &app.explore.leaders;
    let arrow = match l.sort_dir {
        SortDir::Desc => "↓",
        SortDir::Asc => "↑",
    };
    let board = l.board.value.as_ref();
    let pages = board.map_or("…".to_string(), |b| b.total_pages.max(1).to_string());
    let block = Block::default().borders(Borders::ALL).title(format!(
        " Leaderboard · {} · {} {arrow} · page {} of {pages} ",
        l.window.name(),
        l.sort_key.name(),
        l.page + 1,
    ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [status_area, table_area] =
        Layout::vertical([Constraint::Length(2), Constraint::Min(1)]).areas(inner);
    frame.render_widget(
        Paragraph::new(status_lines(app, board)).style(theme.text()),
        status_area,
    );
    let Some(board) = board else {
        return;
    };
    if board.accounts.is_empty() {
        let text = if l.query.is_some() {
            "no wallet matches the search (Esc clears it)"
        } else {
            "no wallets on this page"
        };
        frame.render_widget(Paragraph::new(text).style(theme.dim()), table_area);
        return;
    }
    let mut columns = COLUMNS;
    columns[6].title = key_title(l.sort_key);
    // The sort key's figure is already a column for three keys: not twice.
    let duplicate = matches!(
        l.sort_key,
        SortKey::TotalWindowedPnl | SortKey::TotalVolume | SortKey::CurrentOpenPositionCount
    );
    let columns = &columns[..if duplicate { 6 } else { 7 }];
    let shown = fit(columns, table_area.width);
    let (widths, titles) = layout(columns, &shown);
    let rows = board.accounts.iter().map(|r| {
        let [pnl, volume, open, figure] = r.figures(l.sort_key);
        let cells = [
            r.rank.to_string(),
            short(&r.address),
            r.name.clone().unwrap_or_else(|| "—".into()),
            pnl,
            volume,
            open,
            figure,
        ];
        let mine = app.wallet == Some(r.address);
        // `kept` stops at the columns drawn: the sort key's own cell goes when it is a duplicate.
        let row = Row::new(kept(cells, &shown).into_iter().map(Cell::from));
        if mine { row.style(theme.warn()) } else { row }
    });
    let table = Table::new(rows, widths)
        .header(Row::new(titles).style(theme.dim()))
        .row_highlight_style(theme.selected());
    let mut state = TableState::default().with_selected(Some(l.cursor));
    frame.render_stateful_widget(table, table_area, &mut state);
}

/// The board's size and age, and the search (being typed, or applied and what it found).
fn status_lines(app: &App, board: Option<&Leaderboard>) -> Vec<Line<'static>> {
    let l = &app.explore.leaders;
    let mut first = String::new();
    if let Some(b) = board {
        first.push_str(&format!(
            "{} wallets · ",
            group_thousands(&b.total_accounts.to_string())
        ));
    }
    first.push_str(&loaded::status(&l.board));
    let second = if l.search.typing {
        format!("search: {}▏ (Enter applies, Esc stops)", l.search.text)
    } else {
        match (&l.query, board) {
            (Some(q), Some(b)) => format!(
                "search \"{}\": {} match(es) in the {} wallets read{} · Esc clears",
                sanitize_line(q, 40),
                b.matched.unwrap_or(0),
                group_thousands(&b.scanned.to_string()),
                if b.complete {
                    ""
                } else {
                    " (not the whole board)"
                }
            ),
            (Some(q), None) => format!("search \"{}\"…", sanitize_line(q, 40)),
            (None, _) => "ranks are the board's own; your wallet is highlighted".into(),
        }
    };
    vec![Line::from(first), Line::from(second)]
}
