//! `get_leaderboard` and `preview_top_traders`: ranked wallets for a window and sort, 25 per
//! page, with a name or address search.
//!
//! The rank is the true 1-based place in the exchange's sorted order: the row's offset in the
//! pages read plus one, whatever the search keeps. The search runs here over the pages read
//! because the exchange's search parameter is unknown (§10.2); a search over part of the
//! leaderboard says so (`complete: false`).

use alloy_primitives::Address;
use serde_json::{Value, json};

use crate::protocol::leaderboard::{Board, LeaderRow, LeaderboardPage, SortDir, SortKey, Window};

use crate::protocol::units::{usd_signed_text, usd_text, wad_text};

use super::{clean_name, raw, usd};

/// Rows per page, as the explorer serves them [S2].
pub const PAGE_SIZE: usize = 25;

/// One wallet with its true rank; the name already sanitised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranked {
    pub rank: u64,
    pub address: Address,
    pub name: Option<String>,
    pub row: LeaderRow,
}

/// The rows of pages read in order, each ranked by its place: `(offset of the page's first row,
/// page)`. Names are sanitised on the way.
pub fn rank_pages<'a>(
    pages: impl IntoIterator<Item = (u64, &'a LeaderboardPage)>,
) -> impl Iterator<Item = Ranked> {
    pages.into_iter().flat_map(|(offset, page)| {
        page.accounts
            .iter()
            .enumerate()
            .map(move |(i, row)| Ranked {
                rank: offset + i as u64 + 1,
                address: row.address,
                name: clean_name(row.leaderboard_name.as_deref()),
                row: row.clone(),
            })
    })
}

/// Whether `ranked` matches a search: a fragment of its address (hex, with or without `0x`) or
/// of its sanitised name, case-insensitively. An empty search matches everything.
pub fn matches(ranked: &Ranked, query: &str) -> bool {
    let q = query.trim().to_lowercase();
    if q.is_empty() {
        return true;
    }
    let address = format!("{:#x}", ranked.address);
    let hex = q.strip_prefix("0x").unwrap_or(&q);
    if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) && address.contains(hex) {
        return true;
    }
    ranked
        .name
        .as_deref()
        .is_some_and(|n| n.to_lowercase().contains(&q))
}

/// What was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub window: Window,
    pub sort_key: SortKey,
    pub sort_dir: SortDir,
    /// 0-based.
    pub page: u64,
    pub query: Option<String>,
}

/// One page of the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaderboard {
    pub request: Request,
    /// Wallets on the whole leaderboard (`summary.uniqueAccounts`).
    pub total_accounts: u64,
    /// With a search: how many of the rows read matched.
    pub matched: Option<u64>,
    /// Pages of `PAGE_SIZE` in the answer (the whole board, or the matches).
    pub total_pages: u64,
    pub accounts: Vec<Ranked>,
    /// Rows read to answer (a search reads several pages).
    pub scanned: u64,
    /// Whether every row of the leaderboard was read (always true without a search).
    pub complete: bool,
}

/// The fold: rank the pages read, keep the search's matches, cut the requested page. Without a
/// search the pages read are the requested page itself and come back whole.
pub fn leaderboard(request: Request, pages: &[(u64, LeaderboardPage)]) -> Leaderboard {
    let total_accounts = pages.first().map_or(0, |(_, p)| p.summary.unique_accounts);
    let rows = rank_pages(pages.iter().map(|(o, p)| (*o, p)));
    let scanned: u64 = pages.iter().map(|(_, p)| p.accounts.len() as u64).sum();
    match request.query.as_deref().filter(|q| !q.trim().is_empty()) {
        None => Leaderboard {
            accounts: rows.collect(),
            total_pages: total_accounts.div_ceil(PAGE_SIZE as u64),
            matched: None,
            scanned,
            complete: true,
            total_accounts,
            request,
        },
        Some(query) => {
            let hits: Vec<Ranked> = rows.filter(|r| matches(r, query)).collect();
            let matched = hits.len() as u64;
            let skip = usize::try_from(request.page)
                .unwrap_or(usize::MAX)
                .saturating_mul(PAGE_SIZE);
            Leaderboard {
                accounts: hits.into_iter().skip(skip).take(PAGE_SIZE).collect(),
                total_pages: matched.div_ceil(PAGE_SIZE as u64),
                matched: Some(matched),
                complete: scanned >= total_accounts,
                scanned,
                total_accounts,
                request,
            }
        }
    }
}

/// A figure of the sort key for a person.
pub fn figure_text(key: SortKey, value: Option<i128>) -> String {
    match value {
        None => "—".into(),
        Some(v) if key.is_count() => v.to_string(),
        Some(v) if key == SortKey::PaperTotal => wad_text(v, 2),
        // PnL carries its sign; balances, notional and volume are amounts.
        Some(v)
            if matches!(
                key,
                SortKey::TotalWindowedPnl | SortKey::RealizedPnl | SortKey::CurrentUnrealizedPnl
            ) =>
        {
            usd_signed_text(v)
        }
        Some(v) => usd_text(v),
    }
}

impl Ranked {
    /// The figures every table of the board shows, for a person: windowed PnL, volume, open
    /// positions, and the sort key's own.
    pub fn figures(&self, key: SortKey) -> [String; 4] {
        let r = &self.row;
        [
            figure_text(SortKey::TotalWindowedPnl, r.total_windowed_pnl),
            figure_text(SortKey::TotalVolume, r.total_volume),
            figure_text(
                SortKey::CurrentOpenPositionCount,
                r.current_open_position_count,
            ),
            figure_text(key, r.figure(key)),
        ]
    }
}

/// A wallet's rank and windowed PnL in a board sorted by `totalWindowedPnl` descending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowRank {
    pub window: Window,
    pub rank: Option<u64>,
    pub pnl: Option<i128>,
    /// Rows read looking for it; `complete` when that was the whole board.
    pub scanned: u64,
    pub complete: bool,
}

/// Where `wallet` stands in the pages read of one window's board.
pub fn window_rank(
    window: Window,
    wallet: Address,
    pages: &[(u64, LeaderboardPage)],
) -> WindowRank {
    let total = pages.first().map_or(0, |(_, p)| p.summary.unique_accounts);
    let scanned: u64 = pages.iter().map(|(_, p)| p.accounts.len() as u64).sum();
    let found = rank_pages(pages.iter().map(|(o, p)| (*o, p))).find(|r| r.address == wallet);
    WindowRank {
        window,
        rank: found.as_ref().map(|r| r.rank),
        pnl: found.and_then(|r| r.row.total_windowed_pnl),
        scanned,
        complete: scanned >= total,
    }
}

/// `wallet`'s rank in each window's board (the pages read of it, None where it could not be
/// read), and its name as the first board that lists it gives it.
pub fn window_ranks(
    wallet: Address,
    boards: &[(Window, Option<Board>)],
) -> (Vec<WindowRank>, Option<String>) {
    let mut name = None;
    let mut ranks = Vec::new();
    for (w, pages) in boards {
        match pages {
            Some(pages) => {
                if name.is_none() {
                    name = rank_pages(pages.iter().map(|(o, p)| (*o, p)))
                        .find(|r| r.address == wallet)
                        .and_then(|r| r.name);
                }
                ranks.push(window_rank(*w, wallet, pages));
            }
            None => ranks.push(WindowRank {
                window: *w,
                rank: None,
                pnl: None,
                scanned: 0,
                complete: false,
            }),
        }
    }
    (ranks, name)
}

/// The board's figure of one row as JSON: dollars (PAPER for `paperTotal`, a count for the
/// position count) and the exact raw value.
fn figures(row: &LeaderRow) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    for key in SortKey::ALL {
        let name = snake(key.name());
        let value = row.figure(key);
        if key.is_count() {
            out.insert(name, json!(value));
            continue;
        }
        let unit = if key == SortKey::PaperTotal {
            ""
        } else {
            "_usd"
        };
        out.insert(format!("{name}{unit}"), value.map_or(Value::Null, usd));
        out.insert(format!("{name}_raw"), value.map_or(Value::Null, raw));
    }
    out
}

/// `totalWindowedPnl` → `total_windowed_pnl`.
fn snake(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

impl Ranked {
    pub fn json(&self) -> Value {
        let mut out = serde_json::Map::new();
        out.insert("rank".into(), json!(self.rank));
        out.insert("address".into(), json!(format!("{:#x}", self.address)));
        out.insert("leaderboard_name".into(), json!(self.name));
        out.extend(figures(&self.row));
        Value::Object(out)
    }
}

impl Leaderboard {
    /// `get_leaderboard`'s structured result: `window`, `page`, `total_accounts`, `accounts`.
    pub fn json(&self) -> Value {
        let r = &self.request;
        json!({
            "window": r.window.name(),
            "page": r.page,
            "total_accounts": self.total_accounts,
            "accounts": self.accounts.iter().map(Ranked::json).collect::<Vec<_>>(),
            "sort_key": r.sort_key.name(),
            "sort_dir": r.sort_dir.name(),
            "page_size": PAGE_SIZE,
            "total_pages": self.total_pages,
            "query": r.query,
            "matched": self.matched,
            "scanned_accounts": self.scanned,
            "complete": self.complete,
        })
    }
}

/// `preview_top_traders`: the first `limit` wallets by windowed PnL, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopTraders {
    pub window: Window,
    pub traders: Vec<Ranked>,
    pub total_accounts: u64,
}

/// The top of a board read sorted by `totalWindowedPnl` descending from rank 1.
pub fn top_traders(window: Window, limit: usize, first_page: &LeaderboardPage) -> TopTraders {
    TopTraders {
        window,
        traders: rank_pages([(0, first_page)]).take(limit).collect(),
        total_accounts: first_page.summary.unique_accounts,
    }
}

impl TopTraders {
    pub fn json(&self) -> Value {
        json!({
            "window": self.window.name(),
            "sortKey": SortKey::TotalWindowedPnl.name(),
            "totalAccounts": self.total_accounts,
            "traders": self.traders.iter().map(|t| json!({
                "rank": t.rank,
                "address": format!("{:#x}", t.address),
                "name": t.name,
                "windowedPnlUsd": t.row.total_windowed_pnl.map_or(Value::Null, usd),
                "windowedPnlRaw": t.row.total_windowed_pnl.map_or(Value::Null, raw),
                "realizedPnlUsd": t.row.realized_pnl.map_or(Value::Null, usd),
                "volumeUsd": t.row.total_volume.map_or(Value::Null, usd),
                "openPositions": t.row.current_open_position_count,
            })).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::leaderboard::{LeaderboardSummary, PageInfo};

    fn row(last: u8, name: Option<&str>, pnl: i128) -> LeaderRow {
        LeaderRow::for_test(Address::with_last_byte(last), name, pnl)
    }

    fn page(rows: Vec<LeaderRow>, total: u64) -> LeaderboardPage {
        LeaderboardPage {
            ok: true,
            summary: LeaderboardSummary {
                unique_accounts: total,
                tracked_balance: 0,
            },
            accounts: rows,
            page_info: PageInfo { total_pages: 1 },
        }
    }

    fn request(page: u64, query: Option<&str>) -> Request {
        Request {
            window: Window::All,
            sort_key: SortKey::TotalWindowedPnl,
            sort_dir: SortDir::Desc,
            page,
            query: query.map(str::to_string),
        }
    }

    #[test]
    fn ranks_are_the_place_in_the_board_not_in_the_matches() {
        let first = page(
            (1..=3)
                .map(|i| {
                    row(
                        i,
                        Some(if i == 3 { "Tortoise" } else { "x" }),
                        10 - i as i128,
                    )
                })
                .collect(),
            5,
        );
        let second = page(vec![row(4, Some("tortoise two"), 1), row(5, None, 0)], 5);
        let pages = vec![(0, first), (3, second)];
        let board = leaderboard(request(0, Some("TORTOISE")), &pages);
        let ranks: Vec<u64> = board.accounts.iter().map(|r| r.rank).collect();
        assert_eq!(ranks, vec![3, 4]);
        assert_eq!(board.matched, Some(2));
        assert!(board.complete);
        // An address fragment finds the wallet too.
        let by_address = leaderboard(request(0, Some("0x00000000000000000005")), &pages);
        assert_eq!(by_address.accounts[0].rank, 5);
        // The second page of matches is empty.
        assert!(
            leaderboard(request(1, Some("tortoise")), &pages)
                .accounts
                .is_empty()
        );
    }

    #[test]
    fn hostile_names_are_sanitised_and_empty_ones_dropped() {
        let p = page(
            vec![
                row(1, Some("\u{1b}[31mRED\u{1b}[0m\nx"), 1),
                row(2, Some("\u{7}"), 0),
            ],
            2,
        );
        let ranked: Vec<Ranked> = rank_pages([(0, &p)]).collect();
        assert_eq!(ranked[0].name.as_deref(), Some("RED x"));
        assert_eq!(ranked[1].name, None);
    }

    #[test]
    fn a_window_rank_is_found_or_reported_missing() {
        let p = page(vec![row(1, None, 9), row(2, None, 5)], 4);
        let pages = vec![(0, p)];
        let r = window_rank(Window::Day, Address::with_last_byte(2), &pages);
        assert_eq!((r.rank, r.pnl, r.complete), (Some(2), Some(5), false));
        let missing = window_rank(Window::Day, Address::with_last_byte(9), &pages);
        assert_eq!(missing.rank, None);
    }

    /// What the client's per-window scans gave, ranked in one place: the name from the first
    /// board that lists the wallet, an unread board as "not ranked, nothing scanned".
    #[test]
    fn window_ranks_take_the_name_from_the_first_board_and_mark_unread_ones() {
        let me = Address::with_last_byte(2);
        let day = page(vec![row(1, None, 9), row(2, Some("Hare"), 5)], 2);
        let week = page(vec![row(2, Some("Hare II"), 7)], 3);
        let boards = [
            (Window::Day, Some(vec![(0, day)])),
            (Window::Week, Some(vec![(0, week)])),
            (Window::Month, None),
        ];
        let (ranks, name) = window_ranks(me, &boards);
        assert_eq!(name.as_deref(), Some("Hare"));
        let got: Vec<_> = ranks
            .iter()
            .map(|r| (r.window, r.rank, r.pnl, r.scanned, r.complete))
            .collect();
        assert_eq!(
            got,
            [
                (Window::Day, Some(2), Some(5), 2, true),
                (Window::Week, Some(1), Some(7), 1, false),
                (Window::Month, None, None, 0, false),
            ]
        );
    }

    #[test]
    fn figures_are_named_after_the_sort_keys() {
        let v = rank_pages([(0, &page(vec![row(1, None, -1_500_000_000_000_000_000)], 1))])
            .next()
            .unwrap()
            .json();
        assert_eq!(v["total_windowed_pnl_usd"], json!(-1.5));
        assert_eq!(v["total_windowed_pnl_raw"], "-1500000000000000000");
        assert_eq!(v["current_open_position_count"], 1);
        assert!(v["paper_total"].is_null());
    }
}
