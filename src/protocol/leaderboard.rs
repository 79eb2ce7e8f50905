//! `GET /state/leaderboard/accounts` (§3.3): its query vocabulary and its answer.
//!
//! Known (CODE, [DEPOS]): `page` (0-based), `pageSize` (200 tried, 25 as the fallback),
//! `sortDir`, `sortKey`, `window`; the answer's `ok`, `summary.uniqueAccounts`,
//! `summary.trackedBalance`, `accounts[].address`, `accounts[].leaderboardName`,
//! `pageInfo.totalPages`. The nine sort keys are named by the explorer's `get_leaderboard` [S2].
//! INFERRED: one row field per sort key, named like the key (§3.3 "Other row fields: unknown"),
//! so every figure is optional here and a row without it still decodes. The name/address search
//! parameter is unknown (§10.2): searching is done by the client over the pages it reads.

use alloy_primitives::Address;
use serde::{Deserialize, Serialize};

use super::wire::{dec, hex, opt_dec};

/// The leaderboard's time windows (§3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Window {
    Day,
    Week,
    Month,
    All,
}

impl Window {
    pub const ALL: [Window; 4] = [Window::Day, Window::Week, Window::Month, Window::All];

    /// The wire (and seed argument) name.
    pub fn name(self) -> &'static str {
        match self {
            Window::Day => "24h",
            Window::Week => "7d",
            Window::Month => "30d",
            Window::All => "all",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|w| w.name() == text.trim())
    }
}

/// The nine sort keys of `get_leaderboard` [S2], in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SortKey {
    TotalWindowedPnl,
    RealizedPnl,
    CurrentUnrealizedPnl,
    CurrentBalance,
    CurrentQueued,
    CurrentOpenNotional,
    TotalVolume,
    PaperTotal,
    CurrentOpenPositionCount,
}

impl SortKey {
    pub const ALL: [SortKey; 9] = [
        SortKey::TotalWindowedPnl,
        SortKey::RealizedPnl,
        SortKey::CurrentUnrealizedPnl,
        SortKey::CurrentBalance,
        SortKey::CurrentQueued,
        SortKey::CurrentOpenNotional,
        SortKey::TotalVolume,
        SortKey::PaperTotal,
        SortKey::CurrentOpenPositionCount,
    ];

    /// The wire names, in the order of `ALL` (the exchange's query and the commands' choices).
    pub const NAMES: [&'static str; 9] = {
        let mut names = [""; 9];
        let mut i = 0;
        while i < names.len() {
            names[i] = SortKey::ALL[i].name();
            i += 1;
        }
        names
    };

    pub const fn name(self) -> &'static str {
        match self {
            SortKey::TotalWindowedPnl => "totalWindowedPnl",
            SortKey::RealizedPnl => "realizedPnl",
            SortKey::CurrentUnrealizedPnl => "currentUnrealizedPnl",
            SortKey::CurrentBalance => "currentBalance",
            SortKey::CurrentQueued => "currentQueued",
            SortKey::CurrentOpenNotional => "currentOpenNotional",
            SortKey::TotalVolume => "totalVolume",
            SortKey::PaperTotal => "paperTotal",
            SortKey::CurrentOpenPositionCount => "currentOpenPositionCount",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == text.trim())
    }

    /// Whether the figure is a count rather than a wad.
    pub fn is_count(self) -> bool {
        self == SortKey::CurrentOpenPositionCount
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortDir {
    Asc,
    Desc,
}

impl SortDir {
    pub fn name(self) -> &'static str {
        match self {
            SortDir::Asc => "asc",
            SortDir::Desc => "desc",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text.trim() {
            "asc" => Some(SortDir::Asc),
            "desc" => Some(SortDir::Desc),
            _ => None,
        }
    }
}

/// The pages read of one board, in order: `(offset of the page's first row, page)`.
pub type Board = Vec<(u64, LeaderboardPage)>;

/// One answer page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaderboardPage {
    pub ok: bool,
    pub summary: LeaderboardSummary,
    pub accounts: Vec<LeaderRow>,
    pub page_info: PageInfo,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaderboardSummary {
    pub unique_accounts: u64,
    #[serde(with = "dec")]
    pub tracked_balance: u128,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageInfo {
    pub total_pages: u64,
}

/// One account row. `leaderboard_name` is untrusted text. The figures are wads (the count a
/// plain number) and INFERRED (see the module note): `None` when the row does not carry them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaderRow {
    #[serde(with = "hex")]
    pub address: Address,
    #[serde(default)]
    pub leaderboard_name: Option<String>,
    #[serde(default, with = "opt_dec")]
    pub total_windowed_pnl: Option<i128>,
    #[serde(default, with = "opt_dec")]
    pub realized_pnl: Option<i128>,
    #[serde(default, with = "opt_dec")]
    pub current_unrealized_pnl: Option<i128>,
    #[serde(default, with = "opt_dec")]
    pub current_balance: Option<i128>,
    #[serde(default, with = "opt_dec")]
    pub current_queued: Option<i128>,
    #[serde(default, with = "opt_dec")]
    pub current_open_notional: Option<i128>,
    #[serde(default, with = "opt_dec")]
    pub total_volume: Option<i128>,
    #[serde(default, with = "opt_dec")]
    pub paper_total: Option<i128>,
    #[serde(default, with = "opt_dec")]
    pub current_open_position_count: Option<i128>,
}

impl LeaderRow {
    /// The row's figure for `key`, when it carries one.
    /// A row with only a windowed PnL and one open position (for tests of the folds).
    #[cfg(test)]
    pub(crate) fn for_test(address: Address, name: Option<&str>, pnl: i128) -> Self {
        Self {
            address,
            leaderboard_name: name.map(str::to_string),
            total_windowed_pnl: Some(pnl),
            realized_pnl: None,
            current_unrealized_pnl: None,
            current_balance: None,
            current_queued: None,
            current_open_notional: None,
            total_volume: None,
            paper_total: None,
            current_open_position_count: Some(1),
        }
    }

    pub fn figure(&self, key: SortKey) -> Option<i128> {
        match key {
            SortKey::TotalWindowedPnl => self.total_windowed_pnl,
            SortKey::RealizedPnl => self.realized_pnl,
            SortKey::CurrentUnrealizedPnl => self.current_unrealized_pnl,
            SortKey::CurrentBalance => self.current_balance,
            SortKey::CurrentQueued => self.current_queued,
            SortKey::CurrentOpenNotional => self.current_open_notional,
            SortKey::TotalVolume => self.total_volume,
            SortKey::PaperTotal => self.paper_total,
            SortKey::CurrentOpenPositionCount => self.current_open_position_count,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::wire::decode;

    #[test]
    fn decodes_the_known_fields_and_tolerates_missing_figures() {
        // Only the fields a working client reads (§3.3): the figures are absent.
        let page: LeaderboardPage = decode(
            "leaderboard",
            r#"{"ok":true,"summary":{"uniqueAccounts":2,"trackedBalance":"5"},
                "accounts":[{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","leaderboardName":null}],
                "pageInfo":{"totalPages":1}}"#,
        )
        .unwrap();
        assert_eq!(page.accounts[0].figure(SortKey::TotalWindowedPnl), None);
        let row: LeaderRow = decode(
            "row",
            r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","leaderboardName":"x","realizedPnl":"-7","currentOpenPositionCount":3}"#,
        )
        .unwrap();
        assert_eq!(row.figure(SortKey::RealizedPnl), Some(-7));
        assert_eq!(row.figure(SortKey::CurrentOpenPositionCount), Some(3));
        assert!(decode::<LeaderRow>("row", r#"{"address":"0x12"}"#).is_err());
    }

    #[test]
    fn the_vocabulary_round_trips() {
        for k in SortKey::ALL {
            assert_eq!(SortKey::parse(k.name()), Some(k));
        }
        for w in Window::ALL {
            assert_eq!(Window::parse(w.name()), Some(w));
        }
        assert_eq!(Window::parse("1y"), None);
        assert_eq!(SortKey::parse("pnl"), None);
        assert_eq!(SortDir::parse("desc"), Some(SortDir::Desc));
    }
}
