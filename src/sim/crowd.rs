//! Simulated traders: they open and close positions through the same signed-intent path as any
//! client, so the trade feed, open interest, leaderboard and liquidations have life.

use alloy_primitives::{B256, U256};

use crate::protocol::eip712::{Close, OpenPosition, SessionSigner, WalletSigner};
use crate::protocol::trading::TradingState;
use crate::protocol::units::WAD;

use super::engine::{Engine, QueuedAction};
use super::intake;
use super::rng::Rng;
use super::settle::SeededOpen;

/// How often, on average, each simulated trader acts.
const MEAN_ACTION_INTERVAL_MS: f64 = 20_000.0;
/// How often each acts in a warm-up's past: far less often than live, and less often still
/// beyond the last week, so a month of past costs a start of under a second in a debug build
/// (each move is checked, queued and settled like a live one).
const PAST_ACTION_INTERVAL_MS: f64 = 12.0 * 3_600_000.0;
const OLD_PAST_ACTION_INTERVAL_MS: f64 = 72.0 * 3_600_000.0;
const OLD_PAST_MS: u64 = 7 * 24 * 3_600_000;
const LEVERAGES: [u32; 9] = [2, 5, 10, 25, 50, 100, 250, 500, 1000];
/// A new position's notional as a share of what the trader has available (basis points), one
/// picked at random and independent of the leverage: a 2x and a 1000x trader of the same
/// wallet size hold books of the same size, so the top of the book by open notional spans
/// leverages (and its busts lie from 0.1% to 50% from entry) instead of being all 1000x, as a
/// margin picked regardless of leverage makes it.
const NOTIONAL_OF_AVAILABLE_BPS: [u128; 9] = [
    500, 1_000, 2_000, 3_500, 5_000, 7_500, 10_000, 15_000, 20_000,
];
/// At most this share of what is available goes into one position's margin (basis points), so
/// a low-leverage trader keeps funds for its other positions.
const MAX_MARGIN_OF_AVAILABLE_BPS: u128 = 5_000;
/// At most this many positions each trader already holds when the simulator starts, so bust
/// maps, open interest and the leaderboard have shape from the first second.
const MAX_OPENING_POSITIONS: u64 = 3;
/// How far from today's mark an opening position's entry may lie (basis points), as if opened
/// while the price was elsewhere; narrower for high leverage, whose bust is closer to entry.
const OPENING_SPREAD_BPS: u64 = 300;
/// How long before the start an opening position may have been opened.
const OPENING_AGE_MS: u64 = 6 * 3600 * 1000;
/// Leaderboard names, some deliberately hostile: clients must sanitise untrusted text.
const NAMES: [&str; 12] = [
    "satoshi_fan",
    "degen.eth",
    "\u{1b}[31mRED ALERT\u{1b}[0m",
    "leverage enjoyer",
    "mid-curve",
    "ngmi\u{7}",
    "whale 🐋",
    "\u{202e}gnol",
    "tortoise",
    "liq me daddy",
    "0xBEEF",
    "line\nbreak",
];

#[derive(Debug, Clone)]
struct Trader {
    wallet: WalletSigner,
    session: SessionSigner,
    rng: Rng,
    nonce: u64,
}

#[derive(Debug, Clone, Default)]
pub struct Crowd {
    traders: Vec<Trader>,
    /// Stopped: the traders hold what they hold and do nothing more.
    stopped: bool,
}

impl Crowd {
    /// Create `n` funded traders with registered session keys (as if they joined before the
    /// simulator started), valid for 30 days after any warm-up.
    pub(crate) fn spawn(engine: &mut Engine, n: usize, mut rng: Rng) -> Self {
        let expiry = engine.now_s() + engine.cfg.warmup_ms / 1000 + 30 * 24 * 3600;
        let traders = (0..n)
            .filter_map(|i| {
                let mut own = rng.fork(i as u64);
                let wallet = WalletSigner::from_bytes(&own.bytes32().into()).ok()?;
                let session = SessionSigner::from_bytes(&own.bytes32().into()).ok()?;
                let funds = own.range(2_000, 50_000) as u128 * WAD;
                engine.fund(wallet.address(), funds);
                engine.commit(wallet.address(), |tx| {
                    Engine::add_session_key(tx, session.address(), expiry)
                });
                engine.set_name(wallet.address(), NAMES[i % NAMES.len()]);
                let nonce = own.range(1, 0xff_ffff) * 256;
                opening_book(engine, wallet.address(), &mut own);
                Some(Trader {
                    wallet,
                    session,
                    rng: own,
                    nonce,
                })
            })
            .collect();
        Self {
            traders,
            stopped: false,
        }
    }

    /// The traders keep their positions and stop trading: the clock runs on and, with the
    /// prices pinned, nothing on the exchange moves (the idle benchmark's pinned market).
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    pub fn wallets(&self) -> Vec<alloy_primitives::Address> {
        self.traders.iter().map(|t| t.wallet.address()).collect()
    }
}

/// The positions a trader already holds at the start: up to [`MAX_OPENING_POSITIONS`], each in a
/// random listed market (one side per market, as the exchange requires), leverage and size, with
/// an entry spread around the mark. Those the open checks refuse, or whose bust the mark has
/// already passed, are skipped (see `Engine::seed_position`).
fn opening_book(engine: &mut Engine, wallet: alloy_primitives::Address, rng: &mut Rng) {
    let markets: Vec<u32> = engine
        .trading
        .instruments
        .iter()
        .filter(|m| m.openable())
        .map(|m| m.id)
        .collect();
    if markets.is_empty() {
        return;
    }
    let mut sides: Vec<(u32, bool)> = Vec::new();
    for _ in 0..rng.range(0, MAX_OPENING_POSITIONS) {
        let instrument_id = markets[rng.range(0, markets.len() as u64 - 1) as usize];
        let is_long = match sides.iter().find(|(m, _)| *m == instrument_id) {
            Some((_, side)) => *side,
            None => rng.chance(0.5),
        };
        let available = engine
            .account(wallet)
            .map_or(0, |a| a.state.funds.available_balance);
        let (leverage, margin) = size(rng, &engine.trading, available);
        let Some(mark) = engine.mark(instrument_id) else {
            continue;
        };
        // ±spread, tighter as leverage grows: at 1000x a bust lies 0.1% from entry.
        let spread = OPENING_SPREAD_BPS.min(8_000 / u64::from(leverage)).max(1);
        let offset = rng.range(0, 2 * spread) as i128 - spread as i128;
        let entry = (i128::from(mark) * (10_000 + offset) / 10_000) as u64;
        let opened_at_ms = engine
            .now_ms()
            .saturating_sub(rng.range(60_000, OPENING_AGE_MS));
        let open = SeededOpen {
            instrument_id,
            is_long,
            margin,
            leverage,
            entry,
            opened_at_ms,
        };
        if engine.seed_position(wallet, open) {
            sides.push((instrument_id, is_long));
        }
    }
}

/// A new position's leverage and margin (whole dollars) for a trader with `available`: any
/// leverage, a notional that is a random share of `available` ([`NOTIONAL_OF_AVAILABLE_BPS`]),
/// the margin that gives it at that leverage, at most [`MAX_MARGIN_OF_AVAILABLE_BPS`] of
/// `available` and at least the exchange's minimums. Integers throughout; the open checks still
/// decide (a margin the funds cannot cover is refused there).
fn size(rng: &mut Rng, trading: &TradingState, available: u128) -> (u32, u128) {
    let leverage = LEVERAGES[rng.range(0, LEVERAGES.len() as u64 - 1) as usize];
    let share = NOTIONAL_OF_AVAILABLE_BPS
        [rng.range(0, NOTIONAL_OF_AVAILABLE_BPS.len() as u64 - 1) as usize];
    let notional = available / 10_000 * share;
    let min_margin =
        (trading.minimum_open_notional / u128::from(leverage)).max(trading.minimum_trade_size);
    let margin = (notional / u128::from(leverage))
        .min(available / 10_000 * MAX_MARGIN_OF_AVAILABLE_BPS)
        .max(min_margin);
    // Whole dollars, rounded up so the minimums hold.
    (leverage, margin.div_ceil(WAD) * WAD)
}

/// What one trader does on its turn.
enum Move {
    Open {
        instrument_id: u32,
        is_long: bool,
        margin: u128,
        leverage: u32,
    },
    Close(U256),
    /// Broke traders top up now and then, as real ones deposit.
    Deposit(u128),
}

impl Crowd {
    /// One tick of the crowd: each trader acts with the chance that makes its mean interval
    /// [`MEAN_ACTION_INTERVAL_MS`], submitting through intake like any client.
    pub(crate) fn trade(&mut self, engine: &mut Engine) {
        if self.stopped {
            return;
        }
        let p = engine.cfg.tick_ms as f64 / MEAN_ACTION_INTERVAL_MS;
        self.act(engine, p);
    }

    /// Each trader acts with chance `p`, submitting through intake like any client.
    fn act(&mut self, engine: &mut Engine, p: f64) {
        for t in &mut self.traders {
            if !t.rng.chance(p) {
                continue;
            }
            let Some(next) = t.decide(engine) else {
                continue;
            };
            match t.sign(engine, next) {
                Ok(body) => {
                    // Refusals (a cap reached, funds short) are part of life; the crowd moves on.
                    let _ = intake::submit(engine, &body);
                }
                Err(Some(amount)) => engine.fund(t.wallet.address(), amount),
                Err(None) => {}
            }
        }
    }

    /// One step of a warm-up's past, `step_ms` long and `age_ms` before the present: each
    /// trader acts with the chance that makes its mean interval [`PAST_ACTION_INTERVAL_MS`]
    /// ([`OLD_PAST_ACTION_INTERVAL_MS`] past [`OLD_PAST_MS`]), at most once a step. The same
    /// decisions as live, queued unsigned for the same relayer (see `intake::queue_past`):
    /// signing and recovering every move of a month costs seconds, which a start cannot spend.
    pub(crate) fn trade_past(&mut self, engine: &mut Engine, step_ms: u64, age_ms: u64) {
        let interval = if age_ms > OLD_PAST_MS {
            OLD_PAST_ACTION_INTERVAL_MS
        } else {
            PAST_ACTION_INTERVAL_MS
        };
        let p = step_ms as f64 / interval;
        for t in &mut self.traders {
            if !t.rng.chance(p) {
                continue;
            }
            let wallet = t.wallet.address();
            let action = match t.decide(engine) {
                Some(Move::Open {
                    instrument_id,
                    is_long,
                    margin,
                    leverage,
                }) => QueuedAction::Open {
                    instrument_id,
                    is_long,
                    margin,
                    leverage,
                    use_debt: false,
                },
                Some(Move::Close(id)) => QueuedAction::Close { ids: vec![id] },
                Some(Move::Deposit(amount)) => {
                    engine.fund(wallet, amount);
                    continue;
                }
                None => continue,
            };
            let id = B256::from(t.rng.bytes32());
            // Refusals are part of life here too.
            let _ = intake::queue_past(engine, wallet, id, action);
        }
    }
}

impl Trader {
    /// Close a position now and then, otherwise open one in a random market, side, leverage
    /// and size. Reads the engine, changes nothing.
    fn decide(&mut self, engine: &Engine) -> Option<Move> {
        let state = &engine.account(self.wallet.address())?.state;
        self.nonce += 1;
        let closing_possible = !state.open_positions.is_empty() && state.operations.is_empty();
        if closing_possible && self.rng.chance(0.45) {
            let pick = self.rng.range(0, state.open_positions.len() as u64 - 1) as usize;
            return Some(Move::Close(state.open_positions[pick].id));
        }
        if state.funds.available_balance < 200 * WAD {
            return self
                .rng
                .chance(0.2)
                .then(|| Move::Deposit(self.rng.range(1_000, 10_000) as u128 * WAD));
        }
        let markets: Vec<u32> = engine
            .trading
            .instruments
            .iter()
            .filter(|m| m.openable())
            .map(|m| m.id)
            .collect();
        if markets.is_empty() {
            return None;
        }
        let instrument_id = markets[self.rng.range(0, markets.len() as u64 - 1) as usize];
        // Keep to one side per market, as the exchange requires.
        let is_long = state
            .open_positions
            .iter()
            .find(|p| p.instrument_id == instrument_id)
            .map_or_else(|| self.rng.chance(0.5), |p| p.is_long);
        let (leverage, margin) = size(
            &mut self.rng,
            &engine.trading,
            state.funds.available_balance,
        );
        Some(Move::Open {
            instrument_id,
            is_long,
            margin,
            leverage,
        })
    }

    /// The signed `POST /intents` body of a move, by the trader's session key (Ok), or the
    /// deposit to make instead (Err(Some)), or nothing if it cannot be signed (Err(None)).
    fn sign(&self, engine: &Engine, next: Move) -> Result<serde_json::Value, Option<u128>> {
        let user = self.wallet.address();
        let deadline = engine.now_s() + 600;
        let nonce = U256::from(self.nonce);
        let post = match next {
            Move::Deposit(amount) => return Err(Some(amount)),
            Move::Close(id) => self
                .session
                .sign(Close {
                    user,
                    positionIds: vec![id],
                    nonce,
                    deadline,
                })
                .ok()
                .and_then(|s| s.post()),
            Move::Open {
                instrument_id,
                is_long,
                margin,
                leverage,
            } => self
                .session
                .sign(OpenPosition {
                    user,
                    instrumentId: instrument_id,
                    isLong: is_long,
                    size: margin,
                    leverage,
                    useDebt: false,
                    nonce,
                    deadline,
                })
                .ok()
                .and_then(|s| s.post()),
        };
        post.map(|p| p.body).ok_or(None)
    }
}
