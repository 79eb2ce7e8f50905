//! How the exploring panes ask for their data and answer to keys (their state is in
//! `explore`): the read the tab on screen wants, when it is due, folding its answer, and the
//! panes' own keys.

use std::time::{Duration, SystemTime};

use crate::analytics::liquidations::{
    self as liq, Book, ClosestQuery, MAX_CASCADE_PERCENT, MAX_CLOSEST,
};
use crate::protocol::leaderboard::{SortDir, SortKey, Window};
use crate::protocol::reads::ProtocolHistory;

use super::explore::{Fetch, Fetched, Field, Found};
use super::field::TextField;
use super::state::App;
use super::tab::Tab;

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

    /// What the tab on screen wants read, and how often: its pane says (`Pane::read`).
    fn wanted(&self) -> Option<(Fetch, Duration)> {
        super::panes::of(self.tab).read(self)
    }

    /// The read slot of the pane `fetch` belongs to.
    fn slot_of(&self, fetch: &Fetch) -> (u32, Option<&(Fetch, SystemTime)>) {
        let e = &self.explore;
        let (again, asked) = match fetch {
            Fetch::Leaderboard(_) => (e.leaders.board.again, &e.leaders.board.asked),
            Fetch::Wallet(_) => (e.explorer.read.again, &e.explorer.read.asked),
            Fetch::Scan { .. } => (e.liquidations.scan.again, &e.liquidations.scan.asked),
            Fetch::ProtocolHistory { .. } => (e.series.history.again, &e.series.history.asked),
            Fetch::CoreBalance(_) => (self.fund.core.again, &self.fund.core.asked),
        };
        (again, asked.as_ref())
    }

    /// The read the tab on screen declares (see `reads`): what it wants, how often, and how
    /// many times it was asked to read again at once.
    pub(super) fn pane_read(&self) -> Option<(Fetch, u32, Duration)> {
        let (fetch, every) = self.wanted()?;
        let (again, _) = self.slot_of(&fetch);
        Some((fetch, again, every))
    }

    /// Note what the tab on screen now wants (after every message): its answer is the one the
    /// pane waits for, and until it comes the pane says it is reading.
    pub(super) fn note_wanted(&mut self) {
        let Some((fetch, _)) = self.wanted() else {
            return;
        };
        if self
            .slot_of(&fetch)
            .1
            .is_some_and(|(asked, _)| *asked == fetch)
        {
            return;
        }
        let asked = Some((fetch.clone(), self.clock));
        let e = &mut self.explore;
        match fetch {
            Fetch::Leaderboard(_) => e.leaders.board.asked = asked,
            Fetch::Wallet(_) => e.explorer.read.asked = asked,
            Fetch::Scan { .. } => e.liquidations.scan.asked = asked,
            Fetch::ProtocolHistory { .. } => e.series.history.asked = asked,
            Fetch::CoreBalance(_) => self.fund.core.asked = asked,
        }
        self.dirty = true;
    }

    /// Fold an answer; one to a request since replaced is dropped.
    pub(super) fn on_fetched(&mut self, fetched: Fetched, at: SystemTime) {
        let e = &mut self.explore;
        match fetched {
            Fetched::Leaderboard(request, answer) => {
                let fetch = Fetch::Leaderboard(request.clone());
                if e.leaders.board.wants(&fetch) {
                    let board = answer
                        .map(|pages| crate::analytics::leaderboard::leaderboard(request, &pages));
                    e.leaders.board.store(board, at);
                    let rows = e
                        .leaders
                        .board
                        .value
                        .as_ref()
                        .map_or(0, |b| b.accounts.len());
                    e.leaders.cursor = e.leaders.cursor.min(rows.saturating_sub(1));
                } else {
                    return;
                }
            }
            Fetched::Wallet(wallet, answer) => {
                if !e.explorer.read.wants(&Fetch::Wallet(wallet)) {
                    return;
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
            Fetched::CoreBalance(wallet, answer) => {
                if !self.fund.core.wants(&Fetch::CoreBalance(wallet)) {
                    return;
                }
                self.fund.core.store(answer, at);
            }
        }
        self.dirty = true;
    }

    /// The field the keyboard types into on this tab, if one is being typed.
    #[cfg(test)]
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
            if TextField::SEARCH.edit(&mut field.text, action) {
                return true;
            }
            match action {
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
                if self.tab == Tab::Leaders {
                    // The search so far, to refine.
                    e.leaders.search.typing = true;
                } else {
                    // A new wallet: the one shown is in the line above, not in the way.
                    e.explorer.input = Field {
                        text: String::new(),
                        typing: true,
                    };
                }
            }
            (Tab::Leaders, Action::Window) => {
                let l = &mut self.explore.leaders;
                let i = Window::ALL.iter().position(|w| *w == l.window).unwrap_or(0);
                l.window = Window::ALL[(i + 1) % Window::ALL.len()];
                l.page = 0;
            }
            (Tab::Leaders, Action::SortKey) => {
                let l = &mut self.explore.leaders;
                let i = SortKey::ALL
                    .iter()
                    .position(|k| *k == l.sort_key)
                    .unwrap_or(0);
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
                let rows = self
                    .explore
                    .leaders
                    .board
                    .value
                    .as_ref()
                    .map_or(0, |b| b.accounts.len());
                let l = &mut self.explore.leaders;
                l.cursor = step(l.cursor, *action == Action::Down, rows);
            }
            (Tab::Leaders, Action::Review) => self.open_highlighted_wallet(),
            (Tab::Explorer, Action::Review) if self.explore.explorer.found.is_some() => {
                self.open_found_wallet()
            }
            (Tab::Explorer, Action::Escape) if self.explore.explorer.found.is_some() => {
                self.explore.explorer.found = None;
            }
            (Tab::Leaders, Action::Escape) if self.explore.leaders.query.is_some() => {
                let l = &mut self.explore.leaders;
                l.query = None;
                l.search.text.clear();
                l.page = 0;
                l.cursor = 0;
            }
            (Tab::Explorer, Action::Review) if self.explore.explorer.wallet.is_none() => {
                let trader = self.recent_trades.get(self.explore.explorer.cursor);
                match trader.map(|e| e.wallet) {
                    Some(w) => self.open_wallet(w),
                    None => self.toast("no trade highlighted", true),
                }
            }
            // Enter on the exploring tabs opens what they list, never an order review: what a
            // person looks at here is another wallet, not the ticket.
            (Tab::Explorer | Tab::Liquidations, Action::Review) => {}
            (Tab::Explorer, Action::Up | Action::Down) => {
                // The wallet's positions, or before any wallet the exchange's latest trades.
                let x = &self.explore.explorer;
                let rows = match &x.wallet {
                    None => self.recent_trades.len(),
                    Some(_) => x
                        .read
                        .value
                        .as_ref()
                        .map_or(0, |r| r.account.open_positions.len()),
                };
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
                    Query::Hash(id) => self.explore.explorer.found = Some(Found::Intent(id)),
                    Query::Position(id) => self.explore.explorer.found = Some(Found::Position(id)),
                    Query::Name(_) => {
                        // A name is found on the board: the Leaders tab searches it.
                        let l = &mut self.explore.leaders;
                        l.search.text = text.clone();
                        l.query = Some(text);
                        l.page = 0;
                        l.cursor = 0;
                        self.tab = Tab::Leaders;
                        self.toast(
                            "a name: searching the leaderboard (Enter opens a row)",
                            false,
                        );
                    }
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

    /// The feed rows of what the explorer found, newest first.
    pub(crate) fn found_rows(&self) -> Vec<&crate::protocol::reads::TradeEvent> {
        let Some(found) = self.explore.explorer.found else {
            return Vec::new();
        };
        self.recent_trades
            .iter()
            .filter(|e| match found {
                Found::Intent(id) => e.intent_id == Some(id),
                Found::Position(id) => e.position_id.map(alloy_primitives::U256::from) == Some(id),
            })
            .collect()
    }

    /// Enter on a lookup: open the wallet that signed it.
    fn open_found_wallet(&mut self) {
        match self.found_rows().first().map(|e| e.wallet) {
            Some(w) => {
                self.explore.explorer.found = None;
                self.open_wallet(w);
            }
            None => self.toast("not in the recent feed: its wallet is not known here", true),
        }
    }

    /// Show `wallet` in the explorer, read-only.
    pub(crate) fn open_wallet(&mut self, wallet: alloy_primitives::Address) {
        let x = &mut self.explore.explorer;
        if x.wallet != Some(wallet) {
            // Nothing of the last wallet is shown under this one's address, not even its age.
            x.cursor = 0;
            x.read = Default::default();
        }
        x.wallet = Some(wallet);
        x.found = None;
        x.input.text = format!("{wallet:#x}");
        x.input.typing = false;
        self.tab = Tab::Explorer;
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

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use alloy_primitives::Address;

    use super::*;
    use crate::app::action::Action;
    use crate::app::explore::LEADERBOARD_REFRESH;
    use crate::app::message::Message;
    use crate::app::reads::Read;
    use crate::app::state::Mode;
    use crate::protocol::leaderboard::{LeaderRow, LeaderboardPage, LeaderboardSummary, PageInfo};

    fn at(s: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_000 + s)
    }

    fn row(last: u8, name: &str) -> LeaderRow {
        LeaderRow::for_test(
            Address::with_last_byte(last),
            Some(name),
            i128::from(last) * 10i128.pow(18),
        )
    }

    fn page(rows: Vec<LeaderRow>, total: u64) -> LeaderboardPage {
        LeaderboardPage {
            ok: true,
            summary: LeaderboardSummary {
                unique_accounts: total,
                tracked_balance: 0,
            },
            accounts: rows,
            page_info: PageInfo {
                total_pages: total.div_ceil(25),
            },
        }
    }

    /// Fold `message`; the pane reads it newly declares (one still declared is not new).
    fn fetches(app: &mut App, message: Message) -> Vec<Fetch> {
        let before = app.reads();
        app.handle(message);
        app.reads()
            .into_iter()
            .filter(|r| !before.contains(r))
            .filter_map(|(read, _)| match read {
                Read::Pane { fetch, .. } => Some(fetch),
                _ => None,
            })
            .collect()
    }

    fn app_at(s: u64) -> App {
        let mut app = App::new(Mode::Watch, None);
        app.alerts = None;
        assert!(fetches(&mut app, Message::Tick(at(s))).is_empty());
        app
    }

    fn board_request(app: &App) -> Fetch {
        Fetch::Leaderboard(app.explore.leaders.request())
    }

    /// A hidden pane reads nothing; the one on screen declares its read, every refresh, and
    /// wakes the loop for nothing (the runtime keeps the read's time).
    #[test]
    fn only_the_tab_on_screen_reads_at_its_refresh() {
        let mut app = app_at(0);
        assert_eq!(
            app.declared_fetch(),
            None,
            "the trade tab reads nothing of the exchange"
        );
        let first = fetches(&mut app, Message::Action(Action::Tab(Tab::Leaders)));
        assert_eq!(first, vec![board_request(&app)]);
        let declared = app.reads();
        assert!(
            declared
                .iter()
                .any(|(r, every)| matches!(r, Read::Pane { .. }) && *every == LEADERBOARD_REFRESH)
        );
        assert!(fetches(&mut app, Message::Tick(at(29))).is_empty());
        assert_eq!(app.next_wake(), None);
        app.handle(Message::Action(Action::Tab(Tab::Positions)));
        assert_eq!(app.declared_fetch(), None);
        assert_eq!(app.next_wake(), None, "nothing hidden keeps the loop awake");
    }

    /// A new sort is read at once; the answer to the sort left behind is dropped, not shown
    /// under the new title.
    #[test]
    fn a_changed_sort_reads_at_once_and_the_old_answer_is_dropped() {
        let mut app = app_at(0);
        app.handle(Message::Action(Action::Tab(Tab::Leaders)));
        let Fetch::Leaderboard(old) = board_request(&app) else {
            unreachable!()
        };
        let now = fetches(&mut app, Message::Action(Action::SortKey));
        assert_eq!(now, vec![board_request(&app)]);
        assert_eq!(app.explore.leaders.sort_key, SortKey::RealizedPnl);
        app.handle(Message::Fetched(
            Fetched::Leaderboard(old, Ok(vec![(0, page(vec![row(1, "a")], 1))])),
            at(1),
        ));
        assert!(app.explore.leaders.board.value.is_none());
        let Fetch::Leaderboard(new) = board_request(&app) else {
            unreachable!()
        };
        app.handle(Message::Fetched(
            Fetched::Leaderboard(new.clone(), Ok(vec![(0, page(vec![row(2, "b")], 1))])),
            at(2),
        ));
        let board = app.explore.leaders.board.value.as_ref().unwrap();
        assert_eq!(board.request, new);
        assert_eq!(board.accounts[0].address, Address::with_last_byte(2));
        // A refresh that fails keeps the board and says why.
        app.handle(Message::Tick(at(40)));
        app.handle(Message::Fetched(
            Fetched::Leaderboard(new, Err("leaderboard: 503".into())),
            at(41),
        ));
        let b = &app.explore.leaders.board;
        assert_eq!(b.at, Some(at(2)));
        assert!(b.value.is_some());
        assert_eq!(b.error.as_deref(), Some("leaderboard: 503"));
    }

    /// Enter on a row opens that wallet in the explorer, which reads it (read-only: the
    /// session's own wallet is untouched).
    #[test]
    fn enter_on_a_leaderboard_row_opens_the_wallet_in_the_explorer() {
        let mut app = app_at(0);
        app.handle(Message::Action(Action::Tab(Tab::Leaders)));
        let Fetch::Leaderboard(r) = board_request(&app) else {
            unreachable!()
        };
        app.handle(Message::Fetched(
            Fetched::Leaderboard(r, Ok(vec![(0, page(vec![row(7, "x"), row(9, "y")], 60))])),
            at(1),
        ));
        app.handle(Message::Action(Action::Down));
        app.handle(Message::Action(Action::Down));
        assert_eq!(
            app.explore.leaders.cursor, 1,
            "the cursor stops at the last row"
        );
        let read = fetches(&mut app, Message::Action(Action::Review));
        let nine = Address::with_last_byte(9);
        assert_eq!(app.tab, Tab::Explorer);
        assert_eq!(app.explore.explorer.wallet, Some(nine));
        assert_eq!(read, vec![Fetch::Wallet(nine)]);
        assert_eq!(app.wallet, None);
        assert!(app.dialog.is_none(), "Enter here reviews no order");
    }

    /// Pages move within the board's pages, each read at once.
    #[test]
    fn pages_stop_at_the_ends_of_the_board() {
        let mut app = app_at(0);
        app.handle(Message::Action(Action::Tab(Tab::Leaders)));
        app.handle(Message::Action(Action::Page(-1)));
        assert_eq!(app.explore.leaders.page, 0);
        let Fetch::Leaderboard(r) = board_request(&app) else {
            unreachable!()
        };
        // 60 wallets: pages 0, 1, 2.
        app.handle(Message::Fetched(
            Fetched::Leaderboard(r, Ok(vec![(0, page(vec![row(1, "a")], 60))])),
            at(1),
        ));
        for _ in 0..5 {
            app.handle(Message::Action(Action::Page(1)));
        }
        assert_eq!(app.explore.leaders.page, 2);
    }

    /// `/` then an address opens it; a name is searched on the board; anything else is refused
    /// with what to do, and nothing is read for it.
    #[test]
    fn the_explorer_field_opens_an_address_or_searches_a_name() {
        let mut app = app_at(0);
        app.handle(Message::Action(Action::Tab(Tab::Explorer)));
        assert_eq!(app.declared_fetch(), None, "no wallet yet: nothing to read");
        let typed = |app: &mut App, text: &str| {
            app.handle(Message::Action(Action::Search));
            assert!(app.explore_field().is_some());
            for c in text.chars() {
                app.handle(Message::Action(Action::Type(c)));
            }
            fetches(app, Message::Action(Action::Review))
        };
        let address = "0x00000000000000000000000000000000000000aa";
        let read = typed(&mut app, address);
        let aa = Address::with_last_byte(0xaa);
        assert_eq!(read, vec![Fetch::Wallet(aa)]);
        assert_eq!(app.explore_field(), None);
        // A position id is looked up in the feed (nothing more is read); Enter on it opens
        // the wallet that holds it, Esc goes back to the wallet shown.
        let read = typed(&mut app, "12345");
        assert!(read.is_empty());
        let id = alloy_primitives::U256::from(12_345u64);
        assert_eq!(app.explore.explorer.found, Some(Found::Position(id)));
        assert_eq!(
            app.explore.explorer.wallet,
            Some(aa),
            "still the wallet below"
        );
        app.handle(Message::Action(Action::Review));
        assert!(
            app.toasts.back().unwrap().error,
            "not in the feed: nothing to open"
        );
        app.handle(Message::Action(Action::Escape));
        assert_eq!(app.explore.explorer.found, None);
        let read = typed(&mut app, "whale");
        assert_eq!(app.tab, Tab::Leaders);
        assert_eq!(app.explore.leaders.query.as_deref(), Some("whale"));
        assert_eq!(read, vec![board_request(&app)]);
        // Esc on the board clears the search.
        app.handle(Message::Action(Action::Escape));
        assert_eq!(app.explore.leaders.query, None);
    }

    /// Enter on a wallet in the explorer or on the liquidation map reviews no order (it would
    /// on the trade tab): nothing the person is looking at there is the ticket.
    #[test]
    fn enter_on_the_exploring_tabs_reviews_no_order() {
        let mut app = App::new(Mode::Demo, None);
        app.alerts = None;
        app.handle(Message::Tick(at(0)));
        app.open_wallet(Address::with_last_byte(1));
        for tab in [Tab::Explorer, Tab::Liquidations] {
            app.handle(Message::Action(Action::Tab(tab)));
            app.handle(Message::Action(Action::Review));
            assert!(app.dialog.is_none());
            assert!(app.toasts.is_empty(), "{tab:?}: {:?}", app.toasts.back());
        }
        // The trade tab still reviews (here: refused, no markets yet).
        app.handle(Message::Action(Action::Tab(Tab::Trade)));
        app.handle(Message::Action(Action::Review));
        assert!(app.toasts.back().is_some_and(|t| t.error));
    }
}
