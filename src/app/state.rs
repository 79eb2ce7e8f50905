//! The UI's whole state, folded from network messages and keys. Pure: no I/O, no async, so every
//! screen can be built from a fixture and every key sequence tested.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::SystemTime;

use alloy_primitives::{Address, B256, U256};

use super::freshness::Freshness;
use super::log::MessageLog;
use super::tab::Tab;
use crate::events::account::StreamEvent;
use crate::events::intents::{IntentWatch, Resolution};
use crate::events::market::{MarketEvent, Source};
use crate::protocol::account::{AccountState, Operation};
use crate::protocol::history::{HistoryLine, TradeHistory};
use crate::protocol::order::Order;
use crate::protocol::reads::{RelayerHealth, Summary};
use crate::protocol::trading::TradingState;

use super::key_setup::KeyStatus;
use super::ticket::{Ticket, Typing, typed_leverage, typed_market};

/// What the session may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Trading with the stored session key against the live exchange.
    Live,
    /// Read-only: no key material is loaded.
    Watch,
    /// Trading against the embedded simulator.
    Demo,
}

impl Mode {
    pub(crate) fn badge(self) -> &'static str {
        match self {
            Mode::Live => "LIVE",
            Mode::Watch => "WATCH",
            Mode::Demo => "DEMO",
        }
    }

    pub(crate) fn can_trade(self) -> bool {
        !matches!(self, Mode::Watch)
    }
}

/// What a confirm dialog restates; confirming signs exactly this.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dialog {
    Open {
        instrument_id: u32,
        symbol: String,
        price_scale: u64,
        is_long: bool,
        /// wad
        margin: u128,
        leverage: u32,
        use_debt: bool,
        /// The mark at review; it fills at the mark when processed.
        mark: u64,
        bust: u64,
    },
    Close {
        ids: Vec<U256>,
    },
    Cancel {
        intent_id: B256,
        action: String,
    },
}

impl Dialog {
    /// The market of an open (whose mark must be fresh to sign it).
    pub(crate) fn open_instrument(&self) -> Option<u32> {
        match self {
            Dialog::Open { instrument_id, .. } => Some(*instrument_id),
            _ => None,
        }
    }

    /// A short name of the order, for toasts.
    pub(crate) fn what(&self) -> String {
        match self {
            Dialog::Open {
                symbol, leverage, ..
            } => format!("open {symbol} {leverage}x"),
            Dialog::Close { ids } => format!("close {} position(s)", ids.len()),
            Dialog::Cancel { .. } => "cancel".into(),
        }
    }

    /// The order confirming this dialog runs: exactly the values it shows.
    pub(crate) fn order(&self) -> Order {
        match self {
            Dialog::Open {
                instrument_id,
                is_long,
                margin,
                leverage,
                use_debt,
                ..
            } => Order::Open {
                instrument_id: *instrument_id,
                is_long: *is_long,
                margin: *margin,
                leverage: *leverage,
                use_debt: *use_debt,
            },
            Dialog::Close { ids } => Order::Close { ids: ids.clone() },
            Dialog::Cancel { intent_id, .. } => Order::Cancel { target: *intent_id },
        }
    }
}

/// The chart's intervals, as the browser terminal offers them; `C` cycles.
pub const CHART_INTERVALS: [&str; 6] = ["1m", "5m", "15m", "1h", "4h", "1d"];

#[derive(Debug)]
pub struct App {
    pub mode: Mode,
    pub wallet: Option<Address>,
    pub key: Option<KeyStatus>,
    pub trading: Option<TradingState>,
    /// Raw mark per instrument id.
    pub marks: BTreeMap<u32, u64>,
    pub summary: Option<Summary>,
    pub health: Option<RelayerHealth>,
    pub account: Option<AccountState>,
    pub freshness: Freshness,
    /// The account stream broke and has not synced since: its heartbeats before the new
    /// snapshot prove a connection, not an account in sync.
    pub(crate) account_lost: bool,
    /// The price 24 h ago per instrument id (raw), for the header's change.
    pub day_open: BTreeMap<u32, u64>,
    /// Place in the relayer queue of each queued intent of the wallet.
    pub queue_ranks: BTreeMap<B256, u64>,
    /// The wallet's trades in the protocol's recent feed, newest first.
    pub(crate) my_trades: Vec<crate::protocol::reads::TradeEvent>,
    /// The protocol's recent-trades feed as last polled (every wallet's), newest first.
    pub recent_trades: Vec<crate::protocol::reads::TradeEvent>,
    /// The chart's interval and the candles last fetched for (market, interval).
    pub chart_interval: &'static str,
    pub candles: Option<(u32, &'static str, Vec<crate::protocol::hyperliquid::Candle>)>,
    /// The wallet's closed trades: loaded from its history file at start (`Message::HistoryLoaded`)
    /// and added to as the stream reports closes.
    pub history: TradeHistory,
    /// The highlighted row of the history table (0 = newest).
    pub history_cursor: usize,
    /// Lines the runtime must append to the history file (`Effect::RecordHistory`).
    pub(super) history_unsaved: Vec<HistoryLine>,
    pub watch: IntentWatch,
    /// Every message of the session; the footer shows the latest (`MessageLog::current`).
    pub toasts: MessageLog,
    /// A prefill not yet checked against the exchange's markets (the UI opens before the first
    /// trading state arrives).
    pub prefill: Option<super::ticket::PendingPrefill>,
    pub ticket: Ticket,
    pub tab: Tab,
    /// The Fund tab: HyperCore and Papertrade balances, deposit and withdraw.
    pub fund: super::fund::FundPane,
    /// Said under the owner passphrase field (the demo's practice owner: its passphrase).
    pub owner_passphrase_hint: Option<String>,
    /// A demo's variables that point another terminal's commands at it (its export line), for
    /// the key panel; empty outside a demo.
    pub demo_environment: Vec<(String, String)>,
    /// Cursor and marked rows in the positions table.
    pub position_cursor: usize,
    pub marked: BTreeSet<U256>,
    pub pending_cursor: usize,
    /// The cursor is in the pending list (below the positions).
    pub pending_focus: bool,
    pub dialog: Option<Dialog>,
    /// The first row the close dialog shows (its list scrolls with ↑↓).
    pub dialog_scroll: usize,
    pub help: bool,
    /// The message log overlay is open.
    pub show_log: bool,
    pub keymap: crate::config::keys::Keymap,
    /// Something changed since the last frame.
    pub dirty: bool,
    /// The latest time a message brought (the app reads no clock).
    pub clock: SystemTime,
    /// The oldest mark an open may be reviewed or confirmed against (`[ui] max_mark_age_s`).
    pub max_mark_age: std::time::Duration,
    /// Distance-to-bust alerts; `None` when the config turns them off.
    pub alerts: Option<super::alerts::Alerts>,
    /// Where alert notifications go (decided at start from the config and the terminal).
    pub delivery: crate::config::alerts::Delivery,
    /// The latest alert, shown until Esc or until its position is gone.
    pub banner: Option<super::alerts::Alert>,
    /// The session-key panel, while open.
    pub key_panel: Option<super::key_setup::KeyPanel>,
    /// What this session can do about its key.
    pub key_setup: super::key_setup::KeySetup,
    /// The owner keystore path last typed in the panel (a path, never a secret).
    pub owner_keystore_path: String,
    /// Sends that did not reach the queue as far as this client knows, and when they came back.
    pub unanswered: VecDeque<(super::submission::Unanswered, SystemTime)>,
    /// The panes over the whole exchange (Leaders, Explorer, Liquidations, Protocol series).
    pub explore: super::explore::Explore,
    /// The relayer's operator notices: logged once, unread until the Protocol tab shows them.
    pub notices: super::notices::Notices,
    /// How often the market reads are repeated (`[poll]`; see `reads`).
    pub poll: crate::events::market::PollRates,
}

/// How many unanswered sends are kept (oldest dropped first).
const UNANSWERED_KEPT: usize = 50;

/// How often the chart's candles are fetched again.
/// How a message saying the account stream broke begins (it ends when the stream syncs again).
const STREAM_LOST: &str = "account stream lost:";

pub const CANDLE_REFRESH: std::time::Duration = std::time::Duration::from_secs(20);

impl App {
    pub fn new(mode: Mode, wallet: Option<Address>) -> Self {
        Self {
            mode,
            wallet,
            key: None,
            trading: None,
            marks: BTreeMap::new(),
            summary: None,
            health: None,
            account: None,
            freshness: Freshness::default(),
            account_lost: false,
            day_open: BTreeMap::new(),
            queue_ranks: BTreeMap::new(),
            my_trades: Vec::new(),
            recent_trades: Vec::new(),
            chart_interval: "15m",
            candles: None,
            history: TradeHistory::new(),
            history_cursor: 0,
            history_unsaved: Vec::new(),
            watch: IntentWatch::new(),
            toasts: MessageLog::default(),
            fund: Default::default(),
            owner_passphrase_hint: None,
            demo_environment: Vec::new(),
            prefill: None,
            clock: SystemTime::UNIX_EPOCH,
            max_mark_age: crate::config::DEFAULT_MAX_MARK_AGE,
            ticket: Ticket::default(),
            tab: Tab::Trade,
            position_cursor: 0,
            marked: BTreeSet::new(),
            pending_cursor: 0,
            pending_focus: false,
            dialog: None,
            dialog_scroll: 0,
            help: false,
            show_log: false,
            keymap: crate::config::keys::Keymap::default(),
            dirty: true,
            alerts: Some(super::alerts::Alerts::new(
                crate::config::alerts::Rules::default(),
            )),
            delivery: crate::config::alerts::Delivery {
                method: crate::config::alerts::Method::Bell,
                tmux: false,
            },
            banner: None,
            key_panel: None,
            key_setup: Default::default(),
            owner_keystore_path: String::new(),
            unanswered: VecDeque::new(),
            explore: Default::default(),
            notices: Default::default(),
            poll: Default::default(),
        }
    }

    /// A command no pane took: the ticket's keys (they work from any tab), the tabs, the
    /// overlays' toggles, the positions' cursor and closes.
    pub(super) fn anywhere(
        &mut self,
        action: super::action::Action,
    ) -> Vec<super::message::Effect> {
        use super::action::Action;
        let ceiling = self.ticket_leverage_ceiling();
        match action {
            // Taken before any pane is asked.
            Action::Quit | Action::Key(_) => {}
            Action::KeySetup => self.open_key_panel(),
            Action::TypeLeverage | Action::PickMarket => {
                self.tab = Tab::Trade;
                self.ticket.editing_margin = false;
                self.ticket.typing = Some(if action == Action::TypeLeverage {
                    Typing::Leverage(String::new())
                } else {
                    Typing::Market(String::new())
                });
            }
            Action::Side(long) => {
                self.ticket.is_long = long;
                if !self.mode.can_trade() {
                    self.toast(
                        "watch mode: the ticket only quotes; nothing can be signed",
                        true,
                    );
                }
            }
            Action::FocusMargin => {
                self.tab = Tab::Trade;
                self.ticket.editing_margin = true;
            }
            Action::NextMarket => {
                let count = self.trading.as_ref().map_or(0, |s| s.instruments.len());
                self.ticket.next_market(count);
                self.ticket
                    .nudge_leverage(0, self.ticket_leverage_ceiling());
            }
            Action::Leverage(d) => self.ticket.nudge_leverage(d, ceiling),
            Action::ToggleDebt => {
                self.ticket.use_debt = !self.ticket.use_debt;
                // Said, since the ticket may not be on screen: the next open's funds change.
                self.toast(
                    if self.ticket.use_debt {
                        "ticket: the margin comes from the queued balance (debt)"
                    } else {
                        "ticket: the margin comes from the available balance"
                    },
                    false,
                );
            }
            Action::Tab(t) => {
                self.tab = t;
                self.pending_focus = false;
                if t == Tab::Protocol {
                    self.notices.read();
                }
            }
            Action::ToggleHelp => self.help = !self.help,
            Action::ToggleLog => self.show_log = !self.show_log,
            Action::ChartInterval => {
                let i = CHART_INTERVALS
                    .iter()
                    .position(|x| *x == self.chart_interval)
                    .unwrap_or(0);
                self.chart_interval = CHART_INTERVALS[(i + 1) % CHART_INTERVALS.len()];
            }
            Action::Escape => {
                // Leaving a typed leverage or market changes nothing.
                if self.ticket.typing.take().is_none()
                    && self.dialog.take().is_none()
                    && !std::mem::take(&mut self.help)
                    && !std::mem::take(&mut self.show_log)
                    && self.banner.take().is_none()
                    && self.ticket.review.take().is_none()
                    && !self.toasts.dismiss_notes()
                {
                    self.ticket.editing_margin = false;
                }
            }
            // The exploring panes' keys elsewhere (`explore_action` took them on their panes).
            Action::Search
            | Action::Window
            | Action::SortKey
            | Action::SortDir
            | Action::Page(_)
            | Action::Cascade(_) => {}
            Action::Up => self.move_cursor(-1),
            Action::Down => self.move_cursor(1),
            Action::ToggleMark => self.toggle_marked(),
            Action::Type(c) => self.ticket.type_char(c),
            Action::Backspace => self.ticket.backspace(),
            // Only a dialog is confirmed (its overlay takes it).
            Action::Confirm => {}
            Action::Review | Action::CloseSelected | Action::CancelPending
                if !self.mode.can_trade() =>
            {
                self.toast(
                    "watch mode is read-only: no key is loaded, nothing can be signed",
                    true,
                );
            }
            Action::Review => {
                self.ticket.editing_margin = false;
                match self.review() {
                    Ok(d) => self.dialog = Some(d),
                    Err(why) => self.toast(why, true),
                }
            }
            Action::CloseSelected | Action::CancelPending if self.gate_refuses(None) => {}
            Action::CloseSelected => {
                let selected = self.close_selection();
                // A position whose close is already queued would make the relayer refuse the
                // whole batch (`position_closing`): leave it out, and say so.
                let (skipped, ids): (Vec<U256>, Vec<U256>) = selected.iter().partition(|id| {
                    self.account
                        .as_ref()
                        .is_some_and(|a| a.queued_close_of(**id).is_some())
                });
                let skipped_text = skipped
                    .iter()
                    .map(|id| format!("#{id}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                if selected.is_empty() {
                    self.toast("no position selected", true);
                } else if ids.is_empty() {
                    self.toast(
                        format!("a close is already queued for {skipped_text}"),
                        true,
                    );
                } else {
                    if !skipped.is_empty() {
                        self.toast(
                            format!("skipped {skipped_text}: a close is already queued"),
                            false,
                        );
                    }
                    self.dialog_scroll = 0;
                    self.dialog = Some(Dialog::Close { ids });
                }
            }
            Action::CancelPending => {
                let op = self
                    .account
                    .as_ref()
                    .and_then(|a| a.operations.get(self.pending_cursor));
                match op {
                    Some(op) => {
                        self.dialog = Some(Dialog::Cancel {
                            intent_id: op.intent_id,
                            action: op.action.clone(),
                        })
                    }
                    None => self.toast("no pending intent selected", true),
                }
            }
        }
        Vec::new()
    }

    /// `y` in the confirm dialog: sign and send exactly what it restates, if the checks still
    /// pass (the dialog may have waited while the mark aged or the exchange went away).
    pub(super) fn confirm_dialog(&mut self) -> Vec<super::message::Effect> {
        let Some(d) = self.dialog.take() else {
            return Vec::new();
        };
        if self.gate_refuses(d.open_instrument()) {
            return Vec::new();
        }
        if d.open_instrument().is_some() {
            // Reviewed and confirmed: the outside values are the trader's now.
            self.ticket.review = None;
        }
        vec![super::message::Effect::Submit {
            order: d.order(),
            what: d.what(),
        }]
    }

    /// Enter on a typed leverage or market: set it if it is one, else say why and keep the field
    /// open (nothing changes).
    pub(super) fn apply_typing(&mut self) {
        let Some(state) = &self.trading else {
            self.toast("no market data yet", true);
            return;
        };
        let result = match &self.ticket.typing {
            Some(Typing::Leverage(text)) => match self.ticket_market() {
                Some((m, _)) => {
                    typed_leverage(text, state.leverage_ceiling(m), &m.symbol).map(|l| (None, l))
                }
                None => Err("no market selected".into()),
            },
            Some(Typing::Market(text)) => typed_market(state, text).map(|i| {
                let ceiling = state.leverage_ceiling(&state.instruments[i]);
                (Some(i), self.ticket.leverage.clamp(1, ceiling.max(1)))
            }),
            None => return,
        };
        match result {
            Ok((market, leverage)) => {
                if let Some(i) = market {
                    self.ticket.market = i;
                }
                self.ticket.leverage = leverage;
                self.ticket.typing = None;
            }
            Err(why) => self.toast(why, true),
        }
    }

    /// Whether [`trade_gate`](App::trade_gate) refuses now; if it does, the toast says why.
    fn gate_refuses(&mut self, open_instrument: Option<u32>) -> bool {
        match self.trade_gate(open_instrument, self.clock) {
            Ok(()) => false,
            Err(why) => {
                self.toast(format!("nothing was signed: {why}"), true);
                true
            }
        }
    }

    /// The open the ticket describes, if the checks pass now.
    fn review(&self) -> Result<Dialog, String> {
        let state = self.trading.as_ref().ok_or("no market data yet")?;
        let (market, mark) = self.ticket_market().ok_or("no market selected")?;
        let mark = mark.ok_or_else(|| format!("no mark for {} yet", market.symbol))?;
        let p = self.ticket.preview(state, mark, self.account.as_ref())?;
        p.validation
            .map_err(|r| format!("the relayer would refuse it: {r}"))?;
        self.trade_gate(Some(market.id), self.clock)?;
        Ok(Dialog::Open {
            instrument_id: market.id,
            symbol: market.symbol.clone(),
            price_scale: market.price_scale,
            is_long: self.ticket.is_long,
            margin: p.position.margin,
            leverage: p.position.leverage,
            use_debt: self.ticket.use_debt,
            mark,
            bust: p.bust,
        })
    }

    fn move_cursor(&mut self, delta: i64) {
        let positions = self.positions().len();
        let pending = self.account.as_ref().map_or(0, |a| a.operations.len());
        if self.pending_focus {
            let next = self.pending_cursor as i64 + delta;
            if next < 0 {
                self.pending_focus = false;
                self.position_cursor = positions.saturating_sub(1);
            } else {
                self.pending_cursor = (next as usize).min(pending.saturating_sub(1));
            }
        } else {
            let next = self.position_cursor as i64 + delta;
            if next >= positions as i64 && pending > 0 {
                self.pending_focus = true;
                self.pending_cursor = 0;
            } else {
                self.position_cursor = next.clamp(0, positions.saturating_sub(1) as i64) as usize;
            }
        }
    }

    /// A message for the footer and the log.
    pub fn toast(&mut self, text: impl Into<String>, error: bool) {
        self.toasts.push(&text.into(), error, false, self.clock);
        self.dirty = true;
    }

    /// A message that stays in the footer until Esc dismisses it (a prefilled ticket's review
    /// reminder must not vanish under the next outcome).
    pub fn note(&mut self, text: impl Into<String>) {
        self.toasts.push(&text.into(), false, true, self.clock);
        self.dirty = true;
    }

    /// Fold a market-data event. Only a change is drawn: a poll that brings the same data again
    /// leaves `dirty` alone unless it changes what the screen says of its freshness.
    pub(crate) fn on_market(&mut self, event: MarketEvent) {
        let mut changed = self
            .freshness
            .event_shows(&event, |s| self.age_shown_after(s));
        self.freshness.apply(&event);
        match event {
            // The indexer's block alone moved: kept, not drawn (nothing shows it).
            MarketEvent::Trading(state, _)
                if self
                    .trading
                    .as_ref()
                    .is_some_and(|t| t.same_apart_from_block(&state)) =>
            {
                self.trading = Some(*state);
            }
            MarketEvent::Trading(state, _) => {
                changed = true;
                if self.ticket.market >= state.instruments.len() {
                    self.ticket.market = 0;
                }
                // A prefill waits for the first list of markets to be checked.
                if let Some(p) = self.prefill.take() {
                    self.resolve_prefill(p, &state);
                }
                self.ticket.fit_minimums(&state);
                self.trading = Some(*state);
            }
            MarketEvent::Mark {
                instrument_id, raw, ..
            } => changed |= self.marks.insert(instrument_id, raw) != Some(raw),
            MarketEvent::Summary(s, _) => {
                changed |= self
                    .summary
                    .as_ref()
                    .is_none_or(|old| !old.same_figures(&s));
                self.summary = Some(*s);
            }
            MarketEvent::RelayerHealth(h, _) => {
                changed |= replace(&mut self.health, *h);
                let listed = self
                    .health
                    .as_ref()
                    .map(super::notices::notice_texts)
                    .unwrap_or_default();
                let (new, unread_changed) = self.notices.fold(listed, self.tab == Tab::Protocol);
                changed |= unread_changed;
                for text in new {
                    self.toast(format!("operator notice {text}"), false);
                }
            }
            MarketEvent::DayOpen {
                instrument_id, raw, ..
            } => changed |= self.day_open.insert(instrument_id, raw) != Some(raw),
            MarketEvent::QueueRank(rank, _) => {
                let ranks: BTreeMap<B256, u64> = rank
                    .entries
                    .iter()
                    .map(|e| (e.intent_id, e.position))
                    .collect();
                changed |= ranks != self.queue_ranks;
                self.queue_ranks = ranks;
            }
            MarketEvent::RecentTrades(trades, _) => {
                let wallet = self.wallet;
                let mine: Vec<_> = trades
                    .events
                    .iter()
                    .filter(|e| Some(e.wallet) == wallet)
                    .cloned()
                    .collect();
                changed |= mine != self.my_trades;
                self.my_trades = mine;
                // Shown on the exploring tabs only while they are on screen.
                changed |= self.tab.explores() && trades.events != self.recent_trades;
                self.recent_trades = trades.events;
                let unsaved = self.history_unsaved.len();
                self.history_from_feed();
                changed |= self.history_unsaved.len() != unsaved;
            }
            MarketEvent::Candles {
                instrument_id,
                interval,
                candles,
                ..
            } => {
                // An answer to an older read (the market or interval changed since) is
                // dropped, so it cannot replace the chart the user is looking at.
                let current = self
                    .ticket_market()
                    .is_none_or(|(m, _)| (m.id, self.chart_interval) == (instrument_id, interval));
                if current {
                    changed |= replace(&mut self.candles, (instrument_id, interval, candles));
                }
            }
            MarketEvent::Failed { .. } => {}
        }
        if changed {
            self.dirty = true;
        }
    }

    /// Fold the report of an owner-signed send (a registration, a withdrawal) for the panel
    /// that made it: its first line, whether anything may be queued, and the fates to record.
    pub(crate) fn on_owner_sent(
        &mut self,
        report: super::submission::SubmitOutcome,
    ) -> (String, bool, Vec<super::message::Effect>) {
        let queued = !report.tracked.is_empty();
        let text = report
            .toasts
            .first()
            .map(|(t, _)| t.clone())
            .unwrap_or_default();
        let fates = self
            .on_submitted(report)
            .into_iter()
            .map(|(id, r)| super::message::Effect::RecordFate(id, r))
            .collect();
        (text, queued, fates)
    }

    /// Fold what carrying out an order produced: track what may be queued, say what happened.
    /// Returns the intents whose fate the stream had already reported.
    pub(crate) fn on_submitted(
        &mut self,
        report: super::submission::SubmitOutcome,
    ) -> Vec<(B256, Resolution)> {
        for (text, error) in report.toasts {
            self.toast(text, error);
        }
        for u in report.unanswered {
            if self.unanswered.len() == UNANSWERED_KEPT {
                self.unanswered.pop_front();
            }
            self.unanswered.push_back((u, self.clock));
        }
        let mut resolved = Vec::new();
        for id in &report.tracked {
            let closes = report
                .closes
                .iter()
                .find(|(c, _)| c == id)
                .map(|(_, ids)| ids.clone())
                .unwrap_or_default();
            if let Some(r) = self.watch.track_or_resolve(*id, closes) {
                self.toast_outcome(*id, &r, None);
                resolved.push((*id, r));
            }
        }
        self.settle_unanswered(&resolved);
        self.dirty = true;
        resolved
    }

    /// A send with no answer leaves Pending once the stream settles it.
    fn settle_unanswered(&mut self, resolved: &[(B256, Resolution)]) {
        self.unanswered.retain(|(u, _)| {
            u.fate != super::submission::SendFate::NoAnswer
                || !resolved.iter().any(|(id, _)| u.intent_id == Some(*id))
        });
    }

    /// Sends Pending lists at `now` (the frame's time): no answer (until settled, and not while
    /// the queue shows them) and refused or unsent ones for a minute.
    pub(crate) fn unanswered_at(
        &self,
        now: SystemTime,
    ) -> impl Iterator<Item = &super::submission::Unanswered> {
        let queued = |id: &Option<B256>| {
            self.account
                .as_ref()
                .is_some_and(|a| a.operations.iter().any(|o| Some(o.intent_id) == *id))
        };
        self.unanswered
            .iter()
            .filter(move |(u, at)| match u.fate {
                super::submission::SendFate::NoAnswer => !queued(&u.intent_id),
                _ => now
                    .duration_since(*at)
                    .is_ok_and(|age| age < super::submission::UNANSWERED_FOR),
            })
            .map(|(u, _)| u)
    }

    /// Fold an account-stream event received at `at` (the loop stamps it; the app reads no clock):
    /// state, closed positions into history, outcomes as toasts. Returns the intents it resolved
    /// (the runtime appends them to the audit log).
    pub(crate) fn on_stream(
        &mut self,
        event: StreamEvent,
        at: SystemTime,
    ) -> Vec<(B256, Resolution)> {
        let resolved = self.watch.on_event(&event);
        // The queued operations as they were (a failure's figures, for its likely reason); each
        // outcome is said once the event's state is in (an open's position and fill).
        let queued_before: Vec<Operation> = self
            .account
            .as_ref()
            .map(|a| {
                a.operations
                    .iter()
                    .filter(|o| resolved.iter().any(|(id, _)| *id == o.intent_id))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        let mut settled = None;
        let unanswered = self.unanswered.len();
        self.settle_unanswered(&resolved);
        // A heartbeat, or a snapshot or patch that leaves the account as it was, is drawn only
        // if it changes what the screen says of the stream's freshness.
        let mut changed = !matches!(event, StreamEvent::Disconnected { .. })
            && self.freshness.success_shows(
                Source::Account,
                at,
                self.age_shown_after(Source::Account),
            );
        changed |= self.unanswered.len() != unanswered;
        match event {
            StreamEvent::Synced(state) => {
                // Said once the stream is back, so "resyncing" is not the last word, and the
                // "lost" messages leave the footer now rather than when their time runs out.
                if std::mem::take(&mut self.account_lost) {
                    self.toasts
                        .end(|t| t.text.starts_with(STREAM_LOST), self.clock);
                    self.toast("account stream back: synced", false);
                }
                self.freshness.record_ok(Source::Account, at);
                // A fresh view of the account: how far back the history is complete.
                self.mark_history(&state, at, true);
                changed |= replace(&mut self.account, *state);
            }
            StreamEvent::Patched { state, closed, .. } => {
                changed |= !closed.is_empty();
                self.freshness.record_ok(Source::Account, at);
                if !closed.is_empty() {
                    // What came back: one summary per settlement (said after the outcomes, so
                    // it is the footer's latest word).
                    settled = Some(super::settlement::summary(&closed, |id| {
                        self.trading
                            .as_ref()
                            .and_then(|t| t.market_by_id(id))
                            .map_or_else(|| format!("#{id}"), |m| m.symbol.clone())
                    }));
                }
                // Before the new state replaces the old: the entries are on the positions held.
                let moved = !closed.is_empty()
                    || self
                        .account
                        .as_ref()
                        .is_some_and(|a| crate::protocol::coverage::positions_changed(a, &state));
                if !closed.is_empty() {
                    self.record_closes(closed, at);
                }
                if moved {
                    self.mark_history(&state, at, false);
                }
                changed |= replace(&mut self.account, *state);
            }
            // A heartbeat of a connection not yet synced (the new connection's `liveness`
            // comes before its snapshot) does not end the loss.
            StreamEvent::Alive if self.account_lost => {}
            StreamEvent::Alive => self.freshness.record_ok(Source::Account, at),
            StreamEvent::Disconnected { reason, .. } => {
                self.account_lost = true;
                self.freshness.record_error(Source::Account, reason.clone());
                self.toast(format!("{STREAM_LOST} {reason}; resyncing"), true)
            }
        }
        for (id, resolution) in &resolved {
            let op = queued_before.iter().find(|o| o.intent_id == *id);
            self.toast_outcome(*id, resolution, op);
        }
        if let Some((text, bad)) = settled {
            self.toast(text, bad);
        }
        // Keep selections on rows that still exist.
        let held: BTreeSet<U256> = self.positions().iter().map(|p| p.id).collect();
        self.marked.retain(|id| held.contains(id));
        self.position_cursor = self.position_cursor.min(held.len().saturating_sub(1));
        self.pending_cursor = self.pending_cursor.min(
            self.account
                .as_ref()
                .map_or(0, |a| a.operations.len())
                .saturating_sub(1),
        );
        if changed {
            self.dirty = true;
        }
        resolved
    }

    /// Say how an intent ended: an open by its position and fill (`opened #405791 BTC ▲ 100x at
    /// 82,700.2`), a failure with what likely refused it (`op`: the operation as it was queued).
    fn toast_outcome(&mut self, id: B256, resolution: &Resolution, op: Option<&Operation>) {
        let short = format!("{id:#x}");
        let short = &short[..10];
        let label = resolution.label();
        if label == "succeeded"
            && let Some(text) = self.opened_text(id)
        {
            self.toast(text, false);
            return;
        }
        let error = !matches!(label, "succeeded" | "cancelled");
        let text = match (label, op.and_then(|op| self.failure_guess(op))) {
            ("failed", Some(guess)) => guess.text(),
            ("failed", None) => "failed (the exchange gives no reason, and its figures are not \
                                 known here to check)"
                .into(),
            _ => label.to_string(),
        };
        self.toast(format!("intent {short}… {text}"), error);
    }

    /// `opened #405791 BTC ▲ 100x at 82,700.2`, once the account holds the position `id` opened.
    fn opened_text(&self, id: B256) -> Option<String> {
        let p = self.positions().iter().find(|p| p.intent_id == Some(id))?;
        let market = self.trading.as_ref()?.market_by_id(p.instrument_id)?;
        Some(format!(
            "opened #{} {} {} {}x at {}",
            p.id,
            market.symbol,
            super::side::arrow(p.is_long),
            p.leverage,
            crate::protocol::units::price_display(p.entry_price, market.price_scale)
        ))
    }

    /// The relayer's checks re-run for a failed `op` on the state now (just after the failure).
    fn failure_guess(&self, op: &Operation) -> Option<crate::protocol::failure::FailureGuess> {
        let (trading, account) = (self.trading.as_ref()?, self.account.as_ref()?);
        let mark = op.instrument_id.and_then(|i| self.marks.get(&i).copied());
        Some(crate::protocol::failure::FailureGuess::of(
            op,
            trading,
            mark,
            account,
            crate::clock::unix_s(self.clock),
        ))
    }

    /// The one entry point: fold a message, say what the runtime must do.
    pub fn handle(&mut self, message: super::message::Message) -> Vec<super::message::Effect> {
        use super::message::{Effect, Message};
        // What time alone changes on the screen up to the clock this message brings is a change
        // to draw (the runtime sends a `Tick` at `next_wake`; any message may move the clock).
        let time_changes = self.next_screen_change(self.clock);
        let mut effects = match message {
            Message::Action(a) => self.update(a),
            Message::Market(event) => {
                if let MarketEvent::Trading(_, at) = &event {
                    self.clock = self.clock.max(*at);
                }
                self.on_market(event);
                Vec::new()
            }
            Message::Stream(event, at) => {
                self.clock = self.clock.max(at);
                let effects = self
                    .on_stream(event, at)
                    .into_iter()
                    .map(|(id, r)| Effect::RecordFate(id, r))
                    .collect();
                self.fund_follow();
                effects
            }
            Message::Submitted(report) => self
                .on_submitted(report)
                .into_iter()
                .map(|(id, r)| Effect::RecordFate(id, r))
                .collect(),
            Message::KeyDone(outcome) => {
                self.dirty = true;
                self.on_key_outcome(outcome)
            }
            Message::Fetched(fetched, at) => {
                self.clock = self.clock.max(at);
                self.on_fetched(fetched, at);
                self.fund_follow();
                Vec::new()
            }
            Message::FundDone(outcome) => self.on_fund_outcome(outcome),
            Message::HistoryLoaded(loaded) => {
                self.load_history(loaded);
                Vec::new()
            }
            Message::Tick(now) => {
                self.clock = self.clock.max(now);
                // A refused or unsent order leaves Pending a minute on (its wake is in
                // `next_screen_change`).
                let expired = |at: SystemTime, now: SystemTime| {
                    now.duration_since(at)
                        .is_ok_and(|a| a >= super::submission::UNANSWERED_FOR)
                };
                let before_len = self.unanswered.len();
                self.unanswered.retain(|(u, at)| {
                    u.fate == super::submission::SendFate::NoAnswer || !expired(*at, self.clock)
                });
                if self.unanswered.len() != before_len {
                    self.dirty = true;
                }
                self.fund_follow();
                Vec::new()
            }
        };
        if time_changes.is_some_and(|t| t <= self.clock) {
            self.dirty = true;
        }
        self.note_wanted();
        effects.extend(self.check_alerts());
        effects.extend(self.history_unsaved.drain(..).map(Effect::RecordHistory));
        effects
    }

    /// Measure every position against the alert thresholds at the app's clock: a crossing
    /// raises the banner and asks the runtime for the bell and a notification.
    fn check_alerts(&mut self) -> Vec<super::message::Effect> {
        use super::alerts::readings;
        use crate::config::alerts::Method;
        let Some(state) = &self.trading else {
            return Vec::new();
        };
        // Every message passes here: with alerts off and no banner there is nothing to measure.
        if self.alerts.is_none() && self.banner.is_none() {
            return Vec::new();
        }
        let now = readings(self.positions(), state, &self.marks);
        if self.banner.as_ref().is_some_and(|b| {
            !self
                .positions()
                .iter()
                .any(|p| p.id == b.reading.position_id)
        }) {
            self.banner = None;
            self.dirty = true;
        }
        let Some(alerts) = self.alerts.as_mut() else {
            return Vec::new();
        };
        let raised = alerts.observe(&now, self.clock);
        let mut effects = Vec::new();
        for alert in raised {
            if self.delivery.method != Method::None {
                effects.push(super::message::Effect::Notify(alert.notice(self.delivery)));
            }
            self.banner = Some(alert);
            self.dirty = true;
        }
        effects
    }

    pub(crate) fn positions(&self) -> &[crate::protocol::account::Position] {
        self.account
            .as_ref()
            .map_or(&[], |a| a.open_positions.as_slice())
    }

    /// The ticket's market and its mark, when both are known.
    pub(crate) fn ticket_market(
        &self,
    ) -> Option<(&crate::protocol::trading::Instrument, Option<u64>)> {
        let state = self.trading.as_ref()?;
        let m = state.instruments.get(self.ticket.market)?;
        Some((m, self.marks.get(&m.id).copied()))
    }

    /// The ticket market's leverage ceiling; the protocol's own before the markets are read.
    pub(crate) fn ticket_leverage_ceiling(&self) -> u32 {
        self.ticket_market()
            .and_then(|(m, _)| self.trading.as_ref().map(|s| s.leverage_ceiling(m)))
            .unwrap_or(crate::protocol::trading::MAX_LEVERAGE)
    }

    /// Toggle the mark on the highlighted position (Space).
    pub(crate) fn toggle_marked(&mut self) {
        if let Some(p) = self.positions().get(self.position_cursor).map(|p| p.id) {
            if !self.marked.remove(&p) {
                self.marked.insert(p);
            }
            self.dirty = true;
        }
    }

    /// What `x` closes: the marked rows, else the highlighted one.
    pub fn close_selection(&self) -> Vec<U256> {
        if self.marked.is_empty() {
            self.positions()
                .get(self.position_cursor)
                .map(|p| vec![p.id])
                .unwrap_or_default()
        } else {
            self.positions()
                .iter()
                .map(|p| p.id)
                .filter(|id| self.marked.contains(id))
                .collect()
        }
    }
}

/// Set `slot` to `value`; whether that changed it.
fn replace<T: PartialEq>(slot: &mut Option<T>, value: T) -> bool {
    let changed = slot.as_ref() != Some(&value);
    *slot = Some(value);
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::Message;
    use crate::events::market::MarketEvent;
    use crate::protocol::account::Frame;
    use crate::protocol::trading::TradingState;

    const SNAPSHOT: &str = r#"{"address":"0xa9f28db0543b215eb2705740f10258c3d000cefd","indexedThroughBlock":48399590,"indexedThroughTimestamp":1791862827,"sessionKeys":[],"walletRevision":48399562,"queueRevision":"881","balance":"1000000000000000000000","queued":"0","locked":"20000000000000000000","funds":{"reservedBalance":"0","reservedQueued":"0","availableBalance":"1000000000000000000000","availableQueued":"0"},"queueNodeCount":0,"consumableDebt":"0","paper":{"balance":"0","staked":"0","pendingBase":"0","rewardDebt":"0"},"lifetime":{"depositedRaw":"0","withdrawnRaw":"0","realizedPnlRaw":"0","feesPaidRaw":"0","tradedNotionalRaw":"0","paperRewardsClaimedRaw":"0"},"openPositions":[["411277",0,false,false,"832045","10000000000000000000",100,"839965",1791862800000,null],["411276",0,true,false,"832245","10000000000000000000",100,"824315",1791862800000,null]],"operations":[],"accountRevision":2}"#;

    #[test]
    fn selection_follows_the_positions() {
        let mut app = App::new(Mode::Watch, None);
        let Frame::Snapshot(s) = Frame::decode(SNAPSHOT).unwrap() else {
            panic!()
        };
        app.on_stream(StreamEvent::Synced(s.clone()), SystemTime::UNIX_EPOCH);
        assert_eq!(app.close_selection(), vec![U256::from(411_277u64)]);
        app.position_cursor = 1;
        app.toggle_marked();
        app.position_cursor = 0;
        app.toggle_marked();
        assert_eq!(app.close_selection().len(), 2);
        // One position leaves: its mark goes with it.
        let mut fewer = s.clone();
        fewer.open_positions.remove(0);
        fewer.locked = 10_000_000_000_000_000_000;
        app.on_stream(StreamEvent::Synced(fewer), SystemTime::UNIX_EPOCH);
        assert_eq!(app.close_selection(), vec![U256::from(411_276u64)]);
    }

    /// An open's outcome names its position and fill; a failure names what likely refused it.
    #[test]
    fn outcomes_say_the_position_or_the_likely_reason() {
        use crate::protocol::account::{IntentOutcome, Outcome};
        let t = |s: u64| SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(s);
        let wallet = "0xa9f28db0543b215eb2705740f10258c3d000cefd"
            .parse()
            .unwrap();
        let mut app = App::new(Mode::Watch, Some(wallet));
        let mut trading =
            TradingState::decode(include_str!("../../assets/trading_mainnet.json")).unwrap();
        app.handle(Message::Market(MarketEvent::Trading(
            Box::new(trading.clone()),
            t(1_791_862_800),
        )));
        let Frame::Snapshot(s) = Frame::decode(SNAPSHOT).unwrap() else {
            panic!()
        };
        app.handle(Message::Stream(
            StreamEvent::Synced(s.clone()),
            t(1_791_862_801),
        ));
        let eth = trading
            .instruments
            .iter()
            .find(|m| m.symbol == "ETH")
            .unwrap()
            .id;
        let (ok_id, bad_id) = (B256::repeat_byte(1), B256::repeat_byte(2));
        app.handle(Message::Submitted(
            super::super::submission::SubmitOutcome {
                tracked: vec![ok_id, bad_id],
                ..Default::default()
            },
        ));
        // Both queued: an ETH open of each.
        let op = |id| Operation {
            intent_id: id,
            action: "openPosition".into(),
            instrument_id: Some(eth),
            is_long: Some(true),
            use_debt: Some(false),
            amount: Some(100 * crate::protocol::units::WAD),
            leverage: Some(10),
            accepted_at_ms: 1,
            deadline: 1_791_866_400,
            close_position_ids: None,
        };
        let mut queued = s.clone();
        queued.operations = vec![op(ok_id), op(bad_id)];
        let patch = |state: &AccountState, outcomes: Vec<IntentOutcome>| {
            Message::Stream(
                StreamEvent::Patched {
                    state: Box::new(state.clone()),
                    closed: Vec::new(),
                    outcomes,
                },
                t(1_791_862_802),
            )
        };
        app.handle(patch(&queued, Vec::new()));
        // The first fills at 2,500.1 as position 405791.
        let mut filled = queued.clone();
        filled.operations.remove(0);
        let mut p = filled.open_positions[0].clone();
        p.id = U256::from(405_791u64);
        p.instrument_id = eth;
        p.entry_price = 250_010;
        p.is_long = true;
        p.leverage = 10;
        p.intent_id = Some(ok_id);
        filled.open_positions.push(p);
        app.handle(patch(
            &filled,
            vec![IntentOutcome {
                intent_id: ok_id,
                outcome: Outcome::Succeeded,
            }],
        ));
        assert_eq!(
            app.toasts.back().unwrap().text,
            "opened #405791 ETH ▲ 10x at 2,500.10"
        );
        // ETH pauses; the second fails: that is the likely reason.
        let index = trading
            .instruments
            .iter()
            .position(|m| m.id == eth)
            .unwrap();
        trading.instruments[index].paused = true;
        app.handle(Message::Market(MarketEvent::Trading(
            Box::new(trading),
            t(1_791_862_803),
        )));
        let mut failed = filled.clone();
        failed.operations.clear();
        app.handle(patch(
            &failed,
            vec![IntentOutcome {
                intent_id: bad_id,
                outcome: Outcome::Failed,
            }],
        ));
        let said = &app.toasts.back().unwrap().text;
        assert!(
            said.starts_with("intent 0x02020202… failed — likely: ETH")
                && said.contains("paused")
                && said.ends_with("(inferred)"),
            "{said}"
        );
    }

    /// The app's clock is the messages' (paused: nothing moves it but the test). A new
    /// connection says `liveness` before its snapshot; the loss ends with the snapshot, and the
    /// "lost" message leaves the footer then, not 20 s after it was said.
    #[test]
    fn a_lost_stream_is_said_until_the_resync_and_not_after() {
        let t = |ms: u64| SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(ms);
        let mut app = App::new(Mode::Watch, None);
        let Frame::Snapshot(s) = Frame::decode(SNAPSHOT).unwrap() else {
            panic!()
        };
        app.handle(Message::Stream(StreamEvent::Synced(s.clone()), t(1_000)));
        app.handle(Message::Stream(
            StreamEvent::Disconnected {
                reason: "the stream ended".into(),
                retry_in: std::time::Duration::from_millis(250),
            },
            t(2_000),
        ));
        let footer = |app: &App, at| app.toasts.current(at).map(|m| m.text.clone());
        assert_eq!(
            footer(&app, t(2_100)).as_deref(),
            Some("account stream lost: the stream ended; resyncing")
        );
        // The reconnect: a heartbeat first, still not in sync.
        app.handle(Message::Stream(StreamEvent::Alive, t(2_300)));
        assert!(
            app.freshness.error(Source::Account).is_some(),
            "not synced yet"
        );
        assert!(footer(&app, t(2_300)).unwrap().contains("resyncing"));
        app.handle(Message::Stream(StreamEvent::Synced(s), t(2_301)));
        assert_eq!(
            footer(&app, t(2_400)).as_deref(),
            Some("account stream back: synced")
        );
        assert_eq!(app.toasts.other_fresh(t(2_400)), 0, "the lost one is over");
        // Once the "back" message has been read, the footer is quiet: no "resyncing" 20 s on.
        let later = t(2_301) + super::super::log::TOAST_FOR;
        assert_eq!(footer(&app, later), None);
        assert_eq!(app.toasts.len(), 2, "the log keeps both");
        assert_eq!(app.freshness.error(Source::Account), None);
    }
}
