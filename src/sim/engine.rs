//! The simulated exchange's state and clock. Pure: no I/O, no async, and no idea who trades on
//! it: `Exchange` pairs it with the crowd and drives its ticks; the HTTP server holds that in a
//! mutex, calls it, and broadcasts the patches it leaves in its outbox.

use std::collections::{HashMap, HashSet, VecDeque};

use alloy_primitives::{Address, B256, U256};

use crate::protocol::account::{
    AccountState, ClosedPosition, Funds, IntentOutcome, Lifetime, Operation, Outcome, Paper, Patch,
    Position, SessionKeyEntry, StatePatch,
};
use crate::protocol::eip712::NonceLane;
use crate::protocol::reads::TradeEvent;
use crate::protocol::trading::{Intake, IntakeSource, TradingState};
use crate::protocol::units::WAD;

use super::market::MarketSim;
use super::rng::Rng;

/// Papertrade's genesis (§1): block 47854413 at 2026-10-06 22:42:00 UTC. One block a second.
pub const GENESIS_MS: u64 = 1_791_326_520_000;
pub const GENESIS_BLOCK: u64 = 47_854_413;
/// A fixed start for the manual clock, so seeded runs repeat exactly.
pub const MANUAL_START_MS: u64 = 1_791_862_800_000;

/// At most this many simulated traders. Each is an account with history that grows as it
/// trades (one acts about every 20 s); a thousand already keeps the queue busier than the real
/// exchange's, while a hundred million ate memory at 20 MB/s without a word.
pub const MAX_CROWD: usize = 1_000;
/// At most an hour of relayer delay: an intent's deadline is at most an hour out (§4.3), so a
/// longer delay would only expire everything; it also keeps `accepted + delay` far from u64.
pub const MAX_RELAYER_DELAY_MS: u64 = 3_600_000;
/// Heartbeats from 100 ms (faster is mostly heartbeat traffic; the old silent clamp) to 60 s
/// (slower and a client cannot tell a stalled stream from a quiet one for a minute).
pub const MIN_HEARTBEAT_MS: u64 = 100;
pub const MAX_HEARTBEAT_MS: u64 = 60_000;
/// The price-walk step: a zero step would never advance, an hour would never move.
pub const MIN_TICK_MS: u64 = 10;
pub const MAX_TICK_MS: u64 = 60_000;
/// At most 60 days of warm-up: past the 30-day leaderboard window, within the year of charted
/// prices it replays (see `MarketSim::replay_at`).
pub const MAX_WARMUP_MS: u64 = 60 * 24 * 3_600_000;
/// At most ten minutes of sweeper delay: the real one takes about a minute.
pub const MAX_SWEEP_DELAY_MS: u64 = 600_000;

/// How the simulator behaves.
#[derive(Debug, Clone)]
pub struct SimConfig {
    pub seed: u64,
    /// How long an accepted intent waits in the queue before the relayer settles it.
    pub relayer_delay_ms: u64,
    /// Simulated traders besides the user.
    pub crowd: usize,
    /// Advertised in `liveness`; heartbeats are sent at this interval.
    pub heartbeat_ms: u64,
    /// Serve the `/sim/*` practice controls.
    pub controls: bool,
    /// Time moves only when `/sim/clock` says so (repeatable runs).
    pub manual_clock: bool,
    /// Price-walk and relayer step.
    pub tick_ms: u64,
    /// The LP pool at start (wad).
    pub initial_lp: u128,
    /// How much past the exchange has at start: it is founded this long before the start and
    /// the crowd trades through that time along the charted prices (see `Exchange::new`), so
    /// leaderboard windows, the trade feed and protocol history have shape. 0: no past.
    pub warmup_ms: u64,
    /// How long the relayer's sweeper takes to credit USDC sent to a deposit proxy (the real
    /// one: about a minute).
    pub sweep_delay_ms: u64,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            relayer_delay_ms: 1_500,
            crowd: 12,
            heartbeat_ms: 10_000,
            controls: true,
            manual_clock: false,
            tick_ms: 250,
            initial_lp: 4_500_000 * WAD,
            warmup_ms: 0,
            sweep_delay_ms: 3_000,
        }
    }
}

impl SimConfig {
    /// Refuse knobs outside their bounds (see the constants above). The command line enforces
    /// the same ranges in clap; this catches configs built in code (demo, tests, embedders).
    /// The message names the flag that sets the field (or the field, if no flag does).
    pub(crate) fn check(&self) -> Result<(), String> {
        let within = |name: &str, value: u64, lo: u64, hi: u64| {
            if (lo..=hi).contains(&value) {
                Ok(())
            } else {
                Err(format!("{name} must be {lo} to {hi}, got {value}"))
            }
        };
        within("--crowd", self.crowd as u64, 0, MAX_CROWD as u64)?;
        within(
            "--relayer-delay-ms",
            self.relayer_delay_ms,
            0,
            MAX_RELAYER_DELAY_MS,
        )?;
        within(
            "--heartbeat-ms",
            self.heartbeat_ms,
            MIN_HEARTBEAT_MS,
            MAX_HEARTBEAT_MS,
        )?;
        within("tick_ms", self.tick_ms, MIN_TICK_MS, MAX_TICK_MS)?;
        within("warmup_ms", self.warmup_ms, 0, MAX_WARMUP_MS)?;
        within(
            "--sweep-delay-ms",
            self.sweep_delay_ms,
            0,
            MAX_SWEEP_DELAY_MS,
        )
    }
}

/// One account as the exchange keeps it.
#[derive(Debug, Clone)]
pub struct Account {
    pub state: AccountState,
    pub(crate) used_nonces: HashSet<(NonceLane, U256)>,
    pub name: Option<String>,
    /// (time ms, realized net PnL) of every close, for windowed leaderboards.
    pub realized: Vec<(u64, i128)>,
    /// (time ms, notional) of every leg, for volume.
    pub volume: Vec<(u64, u128)>,
}

impl Account {
    pub(crate) fn new(address: Address) -> Self {
        Self {
            state: AccountState {
                address,
                indexed_through_block: 0,
                indexed_through_timestamp: 0,
                session_keys: Vec::new(),
                wallet_revision: 0,
                queue_revision: 0,
                balance: 0,
                queued: 0,
                locked: 0,
                funds: Funds::default(),
                queue_node_count: 0,
                consumable_debt: 0,
                paper: Paper::default(),
                lifetime: Lifetime::default(),
                open_positions: Vec::new(),
                operations: Vec::new(),
                account_revision: 1,
            },
            used_nonces: HashSet::new(),
            name: None,
            realized: Vec::new(),
            volume: Vec::new(),
        }
    }
}

/// An accepted intent waiting for the relayer.
#[derive(Debug, Clone)]
pub struct Queued {
    pub id: B256,
    pub wallet: Address,
    /// Who signed it; a session key's authority is checked again at settlement.
    pub signer: Address,
    pub session_signed: bool,
    pub accepted_ms: u64,
    pub deadline: u64,
    pub action: QueuedAction,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueuedAction {
    Open {
        instrument_id: u32,
        is_long: bool,
        margin: u128,
        leverage: u32,
        use_debt: bool,
    },
    Close {
        ids: Vec<U256>,
    },
    Withdraw {
        usdc: u128,
    },
    Register {
        key: Address,
        expiry: u64,
    },
    Stake {
        amount: u128,
    },
    Unstake {
        amount: u128,
    },
    Claim,
}

impl QueuedAction {
    pub(crate) fn name(&self) -> &'static str {
        match self {
            QueuedAction::Open { .. } => "openPosition",
            QueuedAction::Close { .. } => "closePositions",
            QueuedAction::Withdraw { .. } => "withdrawToCore",
            QueuedAction::Register { .. } => "registerSessionKey",
            QueuedAction::Stake { .. } => "paperStake",
            QueuedAction::Unstake { .. } => "paperUnstake",
            QueuedAction::Claim => "paperClaim",
        }
    }
}

/// An operator notice, shown by `/relayer/health` (untrusted text for clients).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Notice {
    pub title: String,
    pub body: String,
    pub level: String,
}

/// Protocol-wide money and counters (wads unless said).
#[derive(Debug, Clone, Default)]
pub(crate) struct Pool {
    pub lp: i128,
    pub lp_high_water: i128,
    /// FIFO of (wallet, amount) owed to winners the LP could not pay at once.
    pub payout_queue: VecDeque<(Address, u128)>,
    pub volume: u128,
    pub volume_by_market: HashMap<u32, Vec<(u64, u128)>>,
    /// The sum of each market's `volume_by_market`, kept as it grows: a history point reads it
    /// every step of a warm-up, where summing the list each time grew with the square of it.
    pub volume_total_by_market: HashMap<u32, u128>,
    pub fees_lifetime: u128,
    /// Staker half of fees not yet distributed (nobody staked).
    pub fees_pending: u128,
    pub paper_supply: u128,
    pub paper_staked: u128,
    /// Distributed staker rewards per staked PAPER, scale 1e27.
    pub acc_reward_per_share: U256,
    pub staking_rewards: u128,
    pub trader_pnl: i128,
    pub liquidation_volume: u128,
    pub trades: u64,
    pub paper_revenue: u128,
}

/// One minute of protocol history (the `/query/protocol/history` columns).
#[derive(Debug, Clone, Copy, Default)]
pub struct HistoryPoint {
    pub t: u64,
    pub tvl: u128,
    pub staking_rewards: u128,
    pub volume: u128,
    pub volume_btc: u128,
    pub volume_eth: u128,
    pub trader_pnl: i128,
    pub users: u64,
    pub liquidation: u128,
    pub trades: u64,
    pub paper_supply: u128,
    pub paper_staked: u128,
    pub paper_revenue: u128,
}

/// Collected changes of one account commit, turned into one patch.
#[derive(Debug, Default)]
pub(crate) struct Delta {
    pub added_positions: Vec<Position>,
    pub removed_position_ids: Vec<U256>,
    pub closed_positions: Vec<ClosedPosition>,
    pub added_operations: Vec<Operation>,
    pub removed_operation_ids: Vec<B256>,
    pub intent_outcomes: Vec<IntentOutcome>,
}

/// A transaction on one account: change balances directly, lists through the methods, and
/// [`Engine::commit`] derives the rest (locked, available funds, revisions) and the patch.
pub struct AccountTx<'a> {
    pub state: &'a mut AccountState,
    pub(crate) delta: Delta,
}

impl AccountTx<'_> {
    pub(crate) fn add_position(&mut self, p: Position) {
        self.state.open_positions.push(p.clone());
        self.delta.added_positions.push(p);
    }

    pub(crate) fn remove_position(&mut self, id: U256) -> Option<Position> {
        let i = self.state.open_positions.iter().position(|p| p.id == id)?;
        let p = self.state.open_positions.remove(i);
        self.delta.removed_position_ids.push(id);
        Some(p)
    }

    pub(crate) fn add_operation(&mut self, op: Operation) {
        self.state.operations.push(op.clone());
        self.delta.added_operations.push(op);
    }

    pub(crate) fn remove_operation(&mut self, id: B256) {
        if let Some(i) = self.state.operations.iter().position(|o| o.intent_id == id) {
            self.state.operations.remove(i);
            self.delta.removed_operation_ids.push(id);
        }
    }

    pub(crate) fn outcome(&mut self, id: B256, outcome: Outcome) {
        self.delta.intent_outcomes.push(IntentOutcome {
            intent_id: id,
            outcome,
        });
    }

    pub(crate) fn closed(&mut self, row: ClosedPosition) {
        self.delta.closed_positions.push(row);
    }
}

pub struct Engine {
    pub cfg: SimConfig,
    now_ms: u64,
    last_tick_ms: u64,
    pub(crate) rng: Rng,
    pub trading: TradingState,
    /// Parallel to `trading.instruments`.
    pub markets: Vec<MarketSim>,
    pub accounts: HashMap<Address, Account>,
    pub queue: VecDeque<Queued>,
    pub queue_revision: u64,
    pub(crate) pool: Pool,
    pub(crate) trades_feed: VecDeque<TradeEvent>,
    pub next_trade_seq: u64,
    pub next_position_id: u128,
    pub history: Vec<HistoryPoint>,
    pub notices: Vec<Notice>,
    /// All intake closed (`intake_paused`), beside per-action pauses in `trading.intake`.
    pub intake_all_paused: bool,
    /// HyperCore spot USDC, the deposit proxies and the sweeper (funding, §7).
    pub(crate) core: super::hypercore::HyperCore,
    /// The synthetic settlement transactions, one per relayer batch (INFERRED, `chain`).
    pub(crate) chain: super::chain::Chain,
    outbox: Vec<(Address, Patch)>,
}

impl Engine {
    /// A fresh exchange at `now_ms`, with no accounts and no history yet: whoever founds it
    /// (see `Exchange::new`) adds its first accounts, then records the first history point.
    pub(crate) fn new(cfg: SimConfig, now_ms: u64) -> Self {
        let mut rng = Rng::new(cfg.seed);
        let mut trading = TradingState::decode(include_str!("../../assets/trading_mainnet.json"))
            .expect("shipped launch state decodes");
        // A fresh exchange: no open interest yet; the launch caps and parameters stand.
        for m in &mut trading.instruments {
            m.long_oi = 0;
            m.short_oi = 0;
        }
        trading.intake = Intake {
            revision: now_ms.saturating_mul(1000),
            paper_stake_minimum: 1000 * WAD,
            paused_actions: Vec::new(),
            max_net_open_interest: None,
            source: IntakeSource::Controls,
        };
        let starts = [("BTC", 828_003u64, 0.55f64), ("ETH", 250_001, 0.70)];
        let markets = trading
            .instruments
            .iter()
            .map(|i| {
                let (_, start, vol) = starts
                    .iter()
                    .find(|(s, _, _)| *s == i.symbol)
                    .copied()
                    .unwrap_or(("", 100 * i.price_scale, 0.8));
                let child = rng.fork(u64::from(i.id) + 1);
                MarketSim::new(&i.symbol, i.price_scale, start, vol, now_ms, child)
            })
            .collect();
        let mut engine = Self {
            cfg: cfg.clone(),
            now_ms,
            last_tick_ms: now_ms,
            rng,
            trading,
            markets,
            accounts: HashMap::new(),
            queue: VecDeque::new(),
            queue_revision: 1,
            pool: Pool {
                lp: cfg.initial_lp as i128,
                lp_high_water: cfg.initial_lp as i128,
                ..Pool::default()
            },
            trades_feed: VecDeque::new(),
            next_trade_seq: 1,
            next_position_id: 400_001,
            history: Vec::new(),
            notices: Vec::new(),
            intake_all_paused: false,
            core: Default::default(),
            chain: Default::default(),
            outbox: Vec::new(),
        };
        engine.sync_indexer();
        engine
    }

    /// The synthetic settlement transactions still remembered, oldest first (simulator only).
    pub fn settlement_transactions(&self) -> impl Iterator<Item = &super::chain::SettlementTx> {
        self.chain.all()
    }

    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    pub fn now_s(&self) -> u64 {
        self.now_ms / 1000
    }

    pub(crate) fn block(&self) -> u64 {
        GENESIS_BLOCK + self.now_ms.saturating_sub(GENESIS_MS) / 1000
    }

    fn sync_indexer(&mut self) {
        self.trading.indexed_through_block = self.block();
    }

    /// Move simulated time to `now_ms` with nothing trading but what is already queued.
    #[cfg(test)]
    pub(crate) fn advance(&mut self, now_ms: u64) {
        self.advance_with(now_ms, |_| {});
    }

    /// Move simulated time to `now_ms` one tick at a time: walk prices, liquidate, settle due
    /// intents, then let `between` act on the engine (the exchange's crowd trades there, through
    /// intake like any client), then record history.
    pub(crate) fn advance_with(&mut self, now_ms: u64, mut between: impl FnMut(&mut Engine)) {
        // Checked: a tick past u64 would wrap to the distant past and loop for ever.
        while let Some(next) = self
            .last_tick_ms
            .checked_add(self.cfg.tick_ms)
            .filter(|next| *next <= now_ms)
        {
            self.last_tick_ms = next;
            self.now_ms = next;
            self.tick(&mut between);
        }
        if now_ms > self.now_ms {
            self.now_ms = now_ms;
        }
        self.sync_indexer();
    }

    /// Found the exchange at `start_ms`, before the present its markets were made at: the
    /// clock and every market's mid go back to then (the charted price), before anyone trades.
    /// [`Engine::replay_with`] then brings it back to the present along the same prices.
    pub(crate) fn rewind(&mut self, start_ms: u64) {
        self.now_ms = start_ms;
        self.last_tick_ms = start_ms;
        for m in &mut self.markets {
            m.replay_at(start_ms);
        }
        self.sync_indexer();
    }

    /// Replay the past at each of `times` (ascending, after the founding time): the markets at
    /// their charted prices, liquidations, due intents, then `between` with the step's length
    /// (the crowd trades there), the relayer settling what it queued before the next step (coarse
    /// steps would otherwise outlast the intents' deadlines), and a history point per step.
    /// The clock ends at the last time, with the markets back at their present mid.
    pub(crate) fn replay_with(&mut self, times: &[u64], mut between: impl FnMut(&mut Engine, u64)) {
        for (i, &t) in times.iter().enumerate() {
            let step = t.saturating_sub(self.last_tick_ms);
            self.now_ms = t;
            self.last_tick_ms = t;
            for m in &mut self.markets {
                m.replay_at(t);
            }
            self.sync_indexer();
            self.liquidate_crossed();
            self.process_due();
            between(self, step);
            let next = times.get(i + 1).copied().unwrap_or(t);
            self.now_ms = t.saturating_add(self.cfg.relayer_delay_ms).min(next).max(t);
            self.sync_indexer();
            self.process_due();
            self.record_history();
        }
        self.now_ms = self.last_tick_ms;
        self.sync_indexer();
    }

    fn tick(&mut self, between: &mut impl FnMut(&mut Engine)) {
        let now = self.now_ms;
        let dt = self.cfg.tick_ms;
        for m in &mut self.markets {
            m.step(now, dt);
        }
        self.sync_indexer();
        // Liquidations go before any other action (launch phase, §8).
        self.liquidate_crossed();
        self.process_due();
        // The relayer's sweeper credits the deposits that are due.
        for (owner, wad) in self.core.take_due(now) {
            self.fund(owner, wad);
        }
        between(self);
        if self
            .history
            .last()
            .is_none_or(|h| now / 60_000 > h.t / 60_000)
        {
            self.record_history();
        }
    }

    /// The mark the exchange settles a market at now: its mid, or the frozen mid when terminal.
    pub fn mark(&self, instrument_id: u32) -> Option<u64> {
        let i = self
            .trading
            .instruments
            .iter()
            .position(|m| m.id == instrument_id)?;
        let inst = &self.trading.instruments[i];
        if inst.terminal {
            return inst.frozen_mid();
        }
        Some(self.markets[i].mid())
    }

    pub(crate) fn market_index(&self, instrument_id: u32) -> Option<usize> {
        self.trading
            .instruments
            .iter()
            .position(|m| m.id == instrument_id)
    }

    pub fn account(&self, wallet: Address) -> Option<&Account> {
        self.accounts.get(&wallet)
    }

    /// The wallet's account, created empty on first use (as the indexer shows any address).
    pub(crate) fn account_mut(&mut self, wallet: Address) -> &mut Account {
        self.accounts
            .entry(wallet)
            .or_insert_with(|| Account::new(wallet))
    }

    /// The snapshot a new stream starts from (an empty account for an unknown wallet).
    pub(crate) fn snapshot(&mut self, wallet: Address) -> AccountState {
        let block = self.block();
        let now_s = self.now_s();
        let queue_revision = self.queue_revision;
        let mut s = self.account_mut(wallet).state.clone();
        s.indexed_through_block = block;
        s.indexed_through_timestamp = now_s;
        s.queue_revision = queue_revision;
        s.open_positions.sort_by_key(|p| std::cmp::Reverse(p.id));
        s
    }

    /// Run `f` on `wallet`'s account and publish the result as one patch.
    pub fn commit<R>(&mut self, wallet: Address, f: impl FnOnce(&mut AccountTx) -> R) -> R {
        let block = self.block();
        let now_s = self.now_s();
        self.queue_revision += 1;
        let queue_revision = self.queue_revision;
        let acct = self
            .accounts
            .entry(wallet)
            .or_insert_with(|| Account::new(wallet));
        let mut tx = AccountTx {
            state: &mut acct.state,
            delta: Delta::default(),
        };
        let result = f(&mut tx);
        let delta = tx.delta;
        let s = &mut acct.state;
        s.locked = s.open_positions.iter().map(|p| p.margin).sum();
        s.funds.available_balance = s.balance - s.funds.reserved_balance;
        s.funds.available_queued = s.queued - s.funds.reserved_queued;
        s.indexed_through_block = block;
        s.indexed_through_timestamp = now_s;
        s.wallet_revision = block;
        s.queue_revision = queue_revision;
        s.open_positions.sort_by_key(|p| std::cmp::Reverse(p.id));
        s.operations.sort_by_key(|o| o.accepted_at_ms);
        let base = s.account_revision;
        s.account_revision += 1;
        debug_assert!(s.check_consistency().is_ok(), "{:?}", s.check_consistency());
        let patch = Patch {
            address: wallet,
            account_revision: s.account_revision,
            base_account_revision: base,
            state: StatePatch {
                indexed_through_block: Some(block),
                indexed_through_timestamp: Some(now_s),
                session_keys: Some(s.session_keys.clone()),
                wallet_revision: Some(block),
                queue_revision: Some(queue_revision),
                balance: Some(s.balance),
                queued: Some(s.queued),
                locked: Some(s.locked),
                funds: Some(s.funds.clone()),
                queue_node_count: Some(s.queue_node_count),
                consumable_debt: Some(s.consumable_debt),
                paper: Some(s.paper.clone()),
            },
            lifetime: Some(s.lifetime.clone()),
            added_positions: delta.added_positions,
            removed_position_ids: delta.removed_position_ids,
            closed_positions: delta.closed_positions,
            added_operations: delta.added_operations,
            removed_operation_ids: delta.removed_operation_ids,
            intent_outcomes: delta.intent_outcomes,
        };
        self.outbox.push((wallet, patch));
        result
    }

    /// Patches produced since the last drain, in order.
    pub(crate) fn drain_outbox(&mut self) -> Vec<(Address, Patch)> {
        std::mem::take(&mut self.outbox)
    }

    /// Credit a deposit (the `/sim/fund` control; the real sweeper does this for USDC sent to the
    /// deposit proxy).
    pub(crate) fn fund(&mut self, wallet: Address, amount: u128) {
        self.commit(wallet, |tx| {
            tx.state.balance += amount;
            tx.state.lifetime.deposited += amount;
        });
    }

    pub(crate) fn set_name(&mut self, wallet: Address, name: &str) {
        self.account_mut(wallet).name = Some(name.to_string());
    }

    /// A session key registered on the account (not merely queued) and unexpired.
    pub(crate) fn session_key_registered(&self, wallet: Address, key: Address) -> bool {
        let now = self.now_s();
        self.accounts.get(&wallet).is_some_and(|a| {
            a.state
                .session_keys
                .iter()
                .any(|k| k.key == key && k.expiry > now)
        })
    }

    /// Registered session keys that have not expired.
    pub(crate) fn session_key_valid(&self, wallet: Address, key: Address) -> bool {
        let now = self.now_s();
        let registered = self.accounts.get(&wallet).is_some_and(|a| {
            a.state
                .session_keys
                .iter()
                .any(|k| k.key == key && k.expiry > now)
        });
        // A registration still in the queue counts: the relayer executes it first (§4.7).
        let pending = self.queue.iter().any(|q| {
            q.wallet == wallet && matches!(q.action, QueuedAction::Register { key: k, expiry } if k == key && expiry > now)
        });
        registered || pending
    }

    pub fn add_session_key(tx: &mut AccountTx, key: Address, expiry: u64) {
        tx.state.session_keys.retain(|k| k.key != key);
        tx.state.session_keys.push(SessionKeyEntry { key, expiry });
    }

    pub(crate) fn tvl(&self) -> u128 {
        let accounts = self.accounts.values().fold(0u128, |sum, a| {
            sum.saturating_add(a.state.balance)
                .saturating_add(a.state.queued)
                .saturating_add(a.state.locked)
        });
        accounts
            .saturating_add(self.pool.lp.max(0) as u128)
            .saturating_add(self.pool.fees_pending)
    }

    pub(crate) fn record_history(&mut self) {
        let by = |id: u32| -> u128 {
            self.pool
                .volume_total_by_market
                .get(&id)
                .copied()
                .unwrap_or(0)
        };
        let point = HistoryPoint {
            t: self.now_ms,
            tvl: self.tvl(),
            staking_rewards: self.pool.staking_rewards,
            volume: self.pool.volume,
            volume_btc: by(0),
            volume_eth: by(1),
            trader_pnl: self.pool.trader_pnl,
            users: self
                .accounts
                .values()
                .filter(|a| a.state.lifetime.deposited > 0)
                .count() as u64,
            liquidation: self.pool.liquidation_volume,
            trades: self.pool.trades,
            paper_supply: self.pool.paper_supply,
            paper_staked: self.pool.paper_staked,
            paper_revenue: self.pool.paper_revenue,
        };
        self.history.push(point);
        // 400 days of minutes is plenty.
        if self.history.len() > 576_000 {
            self.history.drain(..1000);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Configs built in code (demo, tests) meet the same bounds as the flags.
    #[test]
    fn the_config_check_names_the_knob_out_of_range() {
        assert_eq!(SimConfig::default().check(), Ok(()));
        let bad = [
            (
                SimConfig {
                    crowd: 100_000_000,
                    ..SimConfig::default()
                },
                "--crowd",
            ),
            (
                SimConfig {
                    relayer_delay_ms: u64::MAX,
                    ..SimConfig::default()
                },
                "--relayer-delay-ms",
            ),
            (
                SimConfig {
                    heartbeat_ms: 10,
                    ..SimConfig::default()
                },
                "--heartbeat-ms",
            ),
            (
                SimConfig {
                    tick_ms: 0,
                    ..SimConfig::default()
                },
                "tick_ms",
            ),
        ];
        for (cfg, name) in bad {
            let err = cfg.check().expect_err(name);
            assert!(err.starts_with(name), "{err}");
        }
        let edges = SimConfig {
            crowd: MAX_CROWD,
            relayer_delay_ms: MAX_RELAYER_DELAY_MS,
            heartbeat_ms: MIN_HEARTBEAT_MS,
            ..SimConfig::default()
        };
        assert_eq!(edges.check(), Ok(()));
    }
}
