//! The panes that look at the whole exchange rather than this session's wallet: Leaders,
//! Explorer, Liquidations, and the Protocol tab's history series. Each says what it wants read
//! ([`Fetch`]); the app declares it (`reads`) while the pane is on screen, read at once and
//! every `refresh` while it stays there, never while it is hidden (a quiet session reads
//! nothing it does not show). Answers ([`Fetched`]) are folded by `explore_flow`; the figures are
//! `analytics`'. This file holds the panes' state only.

use std::time::{Duration, SystemTime};

use alloy_primitives::Address;

use crate::analytics::leaderboard::{Leaderboard, Request, WindowRank};
use crate::analytics::liquidations::DEFAULT_WALLETS;
use crate::events::scan::Scan;
use crate::protocol::account::AccountState;
use crate::protocol::leaderboard::{LeaderboardPage, SortDir, SortKey, Window};
use crate::protocol::reads::ProtocolHistory;

/// How often each pane's data is read again while it is on screen.
pub const LEADERBOARD_REFRESH: Duration = Duration::from_secs(30);
pub const WALLET_REFRESH: Duration = Duration::from_secs(15);
/// The scan reads up to 44 account streams: not more often than the client's scan cache keeps one.
pub const SCAN_REFRESH: Duration = Duration::from_secs(30);
pub const SERIES_REFRESH: Duration = Duration::from_secs(60);
/// The Fund tab's HyperCore balance; sooner while a withdrawal is on its way there.
pub const CORE_REFRESH: Duration = Duration::from_secs(15);
pub const CORE_FOLLOW_REFRESH: Duration = Duration::from_secs(3);

/// A read a pane needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetch {
    /// One page of the board, or with a search the top of it (`client::explorer`).
    Leaderboard(Request),
    /// A wallet's account snapshot and its rank in each window.
    Wallet(Address),
    /// The snapshots of the wallets with the most open notional.
    Scan { wallets: usize },
    /// `/query/protocol/history` at one of its intervals.
    ProtocolHistory { interval: &'static str },
    /// A wallet's HyperCore spot USDC (Hyperliquid `/info`), for the Fund tab.
    CoreBalance(Address),
}

/// A wallet as the explorer shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalletRead {
    pub account: AccountState,
    pub ranks: Vec<WindowRank>,
    /// Its leaderboard name, sanitised.
    pub name: Option<String>,
}

/// What a read came back with; errors are already sentences for a person.
#[derive(Debug, Clone)]
pub enum Fetched {
    Leaderboard(Request, Result<Vec<(u64, LeaderboardPage)>, String>),
    Wallet(Address, Result<Box<WalletRead>, String>),
    Scan(usize, Result<Scan, String>),
    ProtocolHistory(&'static str, Result<ProtocolHistory, String>),
    CoreBalance(Address, Result<crate::protocol::funding::SpotUsdc, String>),
}

/// A pane's data: the latest good answer (kept through a failed refresh, which is said beside
/// it), when it came, and the read in flight.
#[derive(Debug, Clone)]
pub struct Loaded<T> {
    pub value: Option<T>,
    /// When `value` arrived.
    pub at: Option<SystemTime>,
    /// Why the latest read failed, if it did.
    pub error: Option<String>,
    /// The read this pane waits for, and since when (an answer to anything else is dropped).
    pub(super) asked: Option<(Fetch, SystemTime)>,
    /// When the latest answer, good or failed, came (a failed one ends the read in flight too).
    answered: Option<SystemTime>,
    /// Bumped to read again at once rather than at the next refresh: the declared read
    /// carries it, so a new count is a new read.
    pub(super) again: u32,
}

impl<T> Default for Loaded<T> {
    fn default() -> Self {
        Self {
            value: None,
            at: None,
            error: None,
            asked: None,
            answered: None,
            again: 0,
        }
    }
}

impl<T> Loaded<T> {
    /// Read again at the next chance rather than at the next refresh (what it shows moved).
    pub(super) fn read_again(&mut self) {
        self.again = self.again.wrapping_add(1);
        self.asked = None;
    }

    /// Whether an answer to `fetch` is the one this pane waits for (an answer to a sort or a
    /// wallet since left behind is dropped).
    pub(super) fn wants(&self, fetch: &Fetch) -> bool {
        self.asked.as_ref().is_some_and(|(asked, _)| asked == fetch)
    }

    /// A read is waiting for its answer and there is nothing to show yet, or only what an
    /// earlier request brought.
    pub fn loading(&self) -> bool {
        self.asked
            .as_ref()
            .is_some_and(|(_, t)| self.answered.is_none_or(|answered| *t > answered))
    }

    pub(super) fn store(&mut self, answer: Result<T, String>, at: SystemTime) {
        self.answered = Some(at);
        match answer {
            Ok(v) => {
                self.value = Some(v);
                self.at = Some(at);
                self.error = None;
            }
            Err(e) => self.error = Some(crate::text::sanitize_line(&e, 300)),
        }
    }
}

/// A line of text being typed (a search, an address). Nothing is read until Enter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Field {
    pub text: String,
    pub typing: bool,
}

/// The Leaders tab.
#[derive(Debug, Clone)]
pub struct LeadersPane {
    pub window: Window,
    pub sort_key: SortKey,
    pub sort_dir: SortDir,
    /// 0-based.
    pub page: u64,
    /// The search applied (Enter), and the one being typed.
    pub query: Option<String>,
    pub search: Field,
    pub cursor: usize,
    pub board: Loaded<Leaderboard>,
}

impl Default for LeadersPane {
    fn default() -> Self {
        Self {
            window: Window::Day,
            sort_key: SortKey::TotalWindowedPnl,
            sort_dir: SortDir::Desc,
            page: 0,
            query: None,
            search: Field::default(),
            cursor: 0,
            board: Loaded::default(),
        }
    }
}

impl LeadersPane {
    pub fn request(&self) -> Request {
        Request {
            window: self.window,
            sort_key: self.sort_key,
            sort_dir: self.sort_dir,
            page: self.page,
            query: self.query.clone(),
        }
    }

    /// The board's last page (0-based), once known.
    pub(super) fn last_page(&self) -> Option<u64> {
        let board = self.board.value.as_ref()?;
        (board.request == self.request() || board.request.query == self.query)
            .then(|| board.total_pages.saturating_sub(1))
    }
}

/// Something the explorer's field found that is not a wallet: looked up in the recent-trades
/// feed the app already polls (and this session's own account).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    Intent(alloy_primitives::B256),
    Position(alloy_primitives::U256),
}

/// The Explorer tab: one wallet, read-only, or an intent or position looked up.
#[derive(Debug, Clone, Default)]
pub struct ExplorerPane {
    pub wallet: Option<Address>,
    /// Shown instead of the wallet while set (a new wallet clears it).
    pub found: Option<Found>,
    pub input: Field,
    pub cursor: usize,
    pub read: Loaded<Box<WalletRead>>,
}

/// The Liquidations tab (its market is the ticket's: `M` moves both).
#[derive(Debug, Clone)]
pub struct LiquidationsPane {
    /// The cascade's move either way, whole percent (0 to 25).
    pub cascade_percent: u32,
    pub wallets: usize,
    pub cursor: usize,
    pub scan: Loaded<Scan>,
}

impl Default for LiquidationsPane {
    fn default() -> Self {
        Self {
            cascade_percent: 5,
            wallets: DEFAULT_WALLETS,
            cursor: 0,
            scan: Loaded::default(),
        }
    }
}

/// The Protocol tab's history charts.
#[derive(Debug, Clone)]
pub struct Series {
    /// One of `ProtocolHistory::INTERVALS`.
    pub interval: &'static str,
    pub history: Loaded<ProtocolHistory>,
}

impl Default for Series {
    fn default() -> Self {
        Self {
            interval: "1h",
            history: Loaded::default(),
        }
    }
}

/// Every exploring pane's state.
#[derive(Debug, Clone, Default)]
pub struct Explore {
    pub leaders: LeadersPane,
    pub explorer: ExplorerPane,
    pub liquidations: LiquidationsPane,
    pub series: Series,
}
