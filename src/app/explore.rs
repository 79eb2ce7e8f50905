//! The panes that look at the whole exchange rather than this session's wallet: Leaders,
//! Explorer, Liquidations, and the Protocol tab's history series. Each says what it wants read
//! ([`Fetch`]); the app asks the runtime for it when the pane comes on screen and every
//! `refresh` while it stays there, never while it is hidden (a quiet session reads nothing it
//! does not show). Answers ([`Fetched`]) are folded here; the figures are `analytics`'.

use std::time::{Duration, SystemTime};

use alloy_primitives::Address;

use crate::analytics::leaderboard::{Leaderboard, Request, WindowRank};
use crate::analytics::liquidations::{
    self as liq, Book, ClosestQuery, DEFAULT_WALLETS, MAX_CASCADE_PERCENT, MAX_CLOSEST,
    scanned::Scan,
};
use crate::protocol::account::AccountState;
use crate::protocol::leaderboard::{LeaderboardPage, SortDir, SortKey, Window};
use crate::protocol::stats::ProtocolHistory;

use super::action::Effect;
use super::state::App;
use super::tab::Tab;

/// How often each pane's data is read again while it is on screen.
pub const LEADERBOARD_REFRESH: Duration = Duration::from_secs(30);
pub const WALLET_REFRESH: Duration = Duration::from_secs(15);
/// The scan reads up to 44 account streams: not more often than the client's scan cache keeps one.
pub const SCAN_REFRESH: Duration = Duration::from_secs(30);
pub const SERIES_REFRESH: Duration = Duration::from_secs(60);

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
    asked: Option<(Fetch, SystemTime)>,
    /// When the latest answer, good or failed, came (a failed one ends the read in flight too).
    answered: Option<SystemTime>,
}

impl<T> Default for Loaded<T> {
    fn default() -> Self {
        Self {
            value: None,
            at: None,
            error: None,
            asked: None,
            answered: None,
        }
    }
}

impl<T> Loaded<T> {
    /// Whether `wanted` must be read now: never asked, asked for something else, or asked
    /// `every` ago (every read is bounded in time, so its answer has come by then).
    fn due(&self, wanted: &Fetch, now: SystemTime, every: Duration) -> bool {
        match &self.asked {
            None => true,
            Some((asked, _)) if asked != wanted => true,
            Some((_, at)) => now.duration_since(*at).is_ok_and(|age| age >= every),
        }
    }

    /// When the read of `wanted` is next due by time alone.
    fn next_due(&self, wanted: &Fetch, every: Duration) -> Option<SystemTime> {
        match &self.asked {
            Some((asked, at)) if asked == wanted => Some(*at + every),
            _ => None,
        }
    }

    /// Whether an answer to `fetch` is the one this pane waits for (an answer to a sort or a
    /// wallet since left behind is dropped).
    fn wants(&self, fetch: &Fetch) -> bool {
        self.asked.as_ref().is_some_and(|(asked, _)| asked == fetch)
    }

    /// A read is waiting for its answer and there is nothing to show yet, or only what an
    /// earlier request brought.
    pub fn loading(&self) -> bool {
        self.asked
            .as_ref()
            .is_some_and(|(_, t)| self.answered.is_none_or(|answered| *t > answered))
    }

    fn store(&mut self, answer: Result<T, String>, at: SystemTime) {
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

/// Longest search or address typed.
const FIELD_MAX: usize = 66;

impl Field {
    fn push(&mut self, c: char) {
        if !c.is_control() && self.text.chars().count() < FIELD_MAX {
            self.text.push(c);
        }
    }
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
    fn last_page(&self) -> Option<u64> {
        let board = self.board.value.as_ref()?;
        (board.request == self.request() || board.request.query == self.query)
            .then(|| board.total_pages.saturating_sub(1))
    }
}

/// The Explorer tab: one wallet, read-only.
#[derive(Debug, Clone, Default)]
pub struct ExplorerPane {
    pub wallet: Option<Address>,
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

impl App {
    /// The scanned wallets' open positions valued at the marks, once a scan and the markets
    /// are in (the Liquidations tab's every figure is computed from it).
    pub fn scanned_book(&self) -> Option<Book> {
        let l = &self.explore.liquidations;
        let scan = l.scan.value.as_ref()?;
        let state = self.trading.as_ref()?;
        Some(liq::book(&scan.accounts(l.wallets), state, &self.marks))
    }

    /// The Liquidations tab's closest-to-bust list: the ticket's market, both sides, as many
    /// as the seed allows.
    pub fn closest_query(&self) -> ClosestQuery {
        ClosestQuery {
            instrument_id: self.ticket_market().map(|(m, _)| m.id),
            is_long: None,
            max_distance_e5: None,
            limit: MAX_CLOSEST,
        }
    }

    /// How many rows the closest-to-bust list has now (its cursor stays within them).
    fn closest_rows(&self) -> usize {
        self.scanned_book()
            .map_or(0, |book| liq::closest(&book, &self.closest_query()).len())
    }

    /// What the tab on screen wants read, and how often.
    fn wanted(&self) -> Option<(Fetch, Duration)> {
        let e = &self.explore;
        match self.tab {
            Tab::Leaders => Some((Fetch::Leaderboard(e.leaders.request()), LEADERBOARD_REFRESH)),
            Tab::Explorer => e.explorer.wallet.map(|w| (Fetch::Wallet(w), WALLET_REFRESH)),
            Tab::Liquidations => Some((
                Fetch::Scan {
                    wallets: e.liquidations.wallets,
                },
                SCAN_REFRESH,
            )),
            Tab::Protocol => Some((
                Fetch::ProtocolHistory {
                    interval: e.series.interval,
                },
                SERIES_REFRESH,
            )),
            Tab::Trade | Tab::Positions | Tab::History => None,
        }
    }

    /// Whether `fetch` is due, by the state of the pane it belongs to.
    fn fetch_due(&self, fetch: &Fetch, every: Duration) -> bool {
        let e = &self.explore;
        let now = self.clock;
        match fetch {
            Fetch::Leaderboard(_) => e.leaders.board.due(fetch, now, every),
            Fetch::Wallet(_) => e.explorer.read.due(fetch, now, every),
            Fetch::Scan { .. } => e.liquidations.scan.due(fetch, now, every),
            Fetch::ProtocolHistory { .. } => e.series.history.due(fetch, now, every),
        }
    }

    fn mark_asked(&mut self, fetch: Fetch) {
        let asked = Some((fetch.clone(), self.clock));
        let e = &mut self.explore;
        match fetch {
            Fetch::Leaderboard(_) => e.leaders.board.asked = asked,
            Fetch::Wallet(_) => e.explorer.read.asked = asked,
            Fetch::Scan { .. } => e.liquidations.scan.asked = asked,
            Fetch::ProtocolHistory { .. } => e.series.history.asked = asked,
        }
    }

    /// The read the tab on screen needs now, if any (after every message, as the candles are).
    pub(super) fn explore_fetch(&mut self) -> Option<Effect> {
        // Before the first tick the app has no time to stamp a request with.
        if self.clock == SystemTime::UNIX_EPOCH {
            return None;
        }
        let (fetch, every) = self.wanted()?;
        if !self.fetch_due(&fetch, every) {
            return None;
        }
        self.mark_asked(fetch.clone());
        self.dirty = true;
        Some(Effect::Fetch(fetch))
    }

    /// When the tab on screen next reads again by time alone.
    pub(super) fn explore_due(&self) -> Option<SystemTime> {
        let (fetch, every) = self.wanted()?;
        let e = &self.explore;
        match fetch {
            Fetch::Leaderboard(_) => e.leaders.board.next_due(&fetch, every),
            Fetch::Wallet(_) => e.explorer.read.next_due(&fetch, every),
            Fetch::Scan { .. } => e.liquidations.scan.next_due(&fetch, every),
            Fetch::ProtocolHistory { .. } => e.series.history.next_due(&fetch, every),
        }
    }

    /// Fold an answer; one to a request since replaced is dropped.
    pub(super) fn on_fetched(&mut self, fetched: Fetched, at: SystemTime) {
        let e = &mut self.explore;
        match fetched {
            Fetched::Leaderboard(request, answer) => {
                let fetch = Fetch::Leaderboard(request.clone());
                if e.leaders.board.wants(&fetch) {
                    let board =
                        answer.map(|pages| crate::analytics::leaderboard::leaderboard(request, &pages));
                    e.leaders.board.store(board, at);
                    let rows = e.leaders.board.value.as_ref().map_or(0, |b| b.accounts.len());
                    e.leaders.cursor = e.leaders.cursor.min(rows.saturating_sub(1));
                } else {
                    return;
                }
            }
            Fetched::Wallet(wallet, answer) => {
                if !e.explorer.read.wants(&Fetch::Wallet(wallet)) {
                    return;
                }
                // A new wallet's answer replaces the last one's, good or bad.
                if e.explorer.read.value.as_ref().is_some_and(|r| r.account.address != wallet) {
                    e.explorer.read.value = None;
                    e.explorer.read.at = None;
                }
                e.explorer.read.store(answer, at);
            }
            Fetched::Scan(wallets, answer) => {
                if !e.liquidations.scan.wants(&Fetch::Scan { wallets }) {
                    return;
                }
                e.liquidations.scan.store(answer, at);
                let rows = self.closest_rows();
                let l = &mut self.explore.liquidations;
                l.cursor = l.cursor.min(rows.saturating_sub(1));
            }
            Fetched::ProtocolHistory(interval, answer) => {
                if !e.series.history.wants(&Fetch::ProtocolHistory { interval }) {
                    return;
                }
                e.series.history.store(answer, at);
            }
        }
        self.dirty = true;
    }

    /// The field the keyboard types into on this tab, if one is being typed.
    pub(crate) fn explore_field(&self) -> Option<&Field> {
        let e = &self.explore;
        match self.tab {
            Tab::Leaders if e.leaders.search.typing => Some(&e.leaders.search),
            Tab::Explorer if e.explorer.input.typing => Some(&e.explorer.input),
            _ => None,
        }
    }

    fn explore_field_mut(&mut self) -> Option<&mut Field> {
        let e = &mut self.explore;
        match self.tab {
            Tab::Leaders if e.leaders.search.typing => Some(&mut e.leaders.search),
            Tab::Explorer if e.explorer.input.typing => Some(&mut e.explorer.input),
            _ => None,
        }
    }

    /// Apply a key meant for an exploring pane; whether it was one.
    pub(super) fn explore_action(&mut self, action: &super::action::Action) -> bool {
        use super::action::Action;
        if let Some(field) = self.explore_field_mut() {
            match action {
                Action::Type(c) => field.push(*c),
                Action::Backspace => {
                    field.text.pop();
                }
                Action::Escape => field.typing = false,
                Action::Confirm | Action::Review => {
                    field.typing = false;
                    self.submit_field();
                }
                _ => return false,
            }
            return true;
        }
        match (self.tab, action) {
            (Tab::Leaders | Tab::Explorer, Action::Search) => {
                let e = &mut self.explore;
                let field = if self.tab == Tab::Leaders {
                    &mut e.leaders.search
                } else {
                    &mut e.explorer.input
                };
                field.typing = true;
            }
            (Tab::Leaders, Action::Window) => {
                let l = &mut self.explore.leaders;
                let i = Window::ALL.iter().position(|w| *w == l.window).unwrap_or(0);
                l.window = Window::ALL[(i + 1) % Window::ALL.len()];
                l.page = 0;
            }
            (Tab::Leaders, Action::SortKey) => {
                let l = &mut self.explore.leaders;
                let i = SortKey::ALL.iter().position(|k| *k == l.sort_key).unwrap_or(0);
                l.sort_key = SortKey::ALL[(i + 1) % SortKey::ALL.len()];
                l.page = 0;
            }
            (Tab::Leaders, Action::SortDir) => {
                let l = &mut self.explore.leaders;
                l.sort_dir = match l.sort_dir {
                    SortDir::Desc => SortDir::Asc,
                    SortDir::Asc => SortDir::Desc,
                };
                l.page = 0;
            }
            (Tab::Leaders, Action::Page(d)) => {
                let l = &mut self.explore.leaders;
                let last = l.last_page().unwrap_or(u64::MAX);
                let next = l.page.saturating_add_signed(*d).min(last);
                if next != l.page {
                    l.page = next;
                    l.cursor = 0;
                }
            }
            (Tab::Leaders, Action::Up | Action::Down) => {
                let rows = self.explore.leaders.board.value.as_ref().map_or(0, |b| b.accounts.len());
                let l = &mut self.explore.leaders;
                l.cursor = step(l.cursor, *action == Action::Down, rows);
            }
            (Tab::Leaders, Action::Review) => self.open_highlighted_wallet(),
            (Tab::Leaders, Action::Escape) if self.explore.leaders.query.is_some() => {
                let l = &mut self.explore.leaders;
                l.query = None;
                l.search.text.clear();
                l.page = 0;
                l.cursor = 0;
            }
            (Tab::Explorer, Action::Up | Action::Down) => {
                let rows = self
                    .explore
                    .explorer
                    .read
                    .value
                    .as_ref()
                    .map_or(0, |r| r.account.open_positions.len());
                let x = &mut self.explore.explorer;
                x.cursor = step(x.cursor, *action == Action::Down, rows);
            }
            (Tab::Liquidations, Action::Cascade(d)) => {
                let l = &mut self.explore.liquidations;
                l.cascade_percent = l
                    .cascade_percent
                    .saturating_add_signed(*d)
                    .min(MAX_CASCADE_PERCENT);
            }
            (Tab::Liquidations, Action::Up | Action::Down) => {
                // The list is the ticket's market's: `m` may have shortened it since.
                let rows = self.closest_rows();
                let l = &mut self.explore.liquidations;
                let from = l.cursor.min(rows.saturating_sub(1));
                l.cursor = step(from, *action == Action::Down, rows);
            }
            (Tab::Protocol, Action::ChartInterval) => {
                let s = &mut self.explore.series;
                let all = ProtocolHistory::INTERVALS;
                let i = all.iter().position(|x| *x == s.interval).unwrap_or(0);
                s.interval = all[(i + 1) % all.len()];
            }
            _ => return false,
        }
        true
    }

    /// Enter in a field: a search applies on the board; an address (or a name, found on the
    /// board) opens in the explorer.
    fn submit_field(&mut self) {
        use crate::analytics::search::{Query, classify};
        match self.tab {
            Tab::Leaders => {
                let l = &mut self.explore.leaders;
                let q = l.search.text.trim().to_string();
                l.query = (!q.is_empty()).then_some(q);
                l.page = 0;
                l.cursor = 0;
            }
            Tab::Explorer => {
                let text = self.explore.explorer.input.text.trim().to_string();
                match classify(&text) {
                    Query::Wallet(address) => self.open_wallet(address),
                    Query::Name(_) => {
                        // A name is found on the board: the Leaders tab searches it.
                        let l = &mut self.explore.leaders;
                        l.search.text = text.clone();
                        l.query = Some(text);
                        l.page = 0;
                        l.cursor = 0;
                        self.tab = Tab::Leaders;
                        self.toast("a name: searching the leaderboard (Enter opens a row)", false);
                    }
                    other => self.toast(
                        format!(
                            "the explorer opens a wallet (0x + 40 hex) or finds a name; that is {} {} — try `papertrade-tui search`",
                            article(other.kind()),
                            other.kind()
                        ),
                        true,
                    ),
                }
            }
            _ => {}
        }
    }

    /// Open the highlighted leaderboard row's wallet in the explorer.
    fn open_highlighted_wallet(&mut self) {
        let l = &self.explore.leaders;
        let address = l
            .board
            .value
            .as_ref()
            .and_then(|b| b.accounts.get(l.cursor))
            .map(|r| r.address);
        match address {
            Some(a) => self.open_wallet(a),
            None => self.toast("no wallet highlighted", true),
        }
    }

    /// Show `wallet` in the explorer, read-only.
    pub(crate) fn open_wallet(&mut self, wallet: alloy_primitives::Address) {
        let x = &mut self.explore.explorer;
        if x.wallet != Some(wallet) {
            x.cursor = 0;
        }
        x.wallet = Some(wallet);
        x.input.text = format!("{wallet:#x}");
        x.input.typing = false;
        self.tab = Tab::Explorer;
    }
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// A cursor moved one row within `rows`.
fn step(cursor: usize, down: bool, rows: usize) -> usize {
    if down {
        (cursor + 1).min(rows.saturating_sub(1))
    } else {
        cursor.saturating_sub(1)
    }
}
