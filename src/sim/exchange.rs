//! The simulated exchange as the server runs it: the engine and the crowd that trades on it.
//! Time moves here. Each engine tick settles what is due, then the crowd signs intents and
//! submits them through intake like any client, so the engine never knows the crowd exists
//! (engine ← intake ← crowd ← exchange, no cycle).

use std::ops::{Deref, DerefMut};

use super::crowd::Crowd;
use super::engine::{Engine, SimConfig};

/// The seed salt of the crowd's generator, forked from the engine's after the markets'.
const CROWD_SALT: u64 = 0xc40d;

const MINUTE_MS: u64 = 60_000;
const HOUR_MS: u64 = 60 * MINUTE_MS;
const DAY_MS: u64 = 24 * HOUR_MS;

pub struct Exchange {
    engine: Engine,
    /// The simulated traders (their wallets are public: tests and the demo follow one).
    pub crowd: Crowd,
}

impl Exchange {
    /// A fresh exchange at `now_ms`: the engine, founded `cfg.warmup_ms` earlier with the crowd
    /// funded and registered as if it joined before that, the first history point (which counts
    /// the crowd), then the warm-up's past replayed up to `now_ms` (see [`past_steps`]). With
    /// no warm-up the exchange is founded at `now_ms` and has no past.
    pub(crate) fn new(cfg: SimConfig, now_ms: u64) -> Self {
        let mut engine = Engine::new(cfg.clone(), now_ms);
        let start_ms = now_ms.saturating_sub(cfg.warmup_ms);
        engine.rewind(start_ms);
        let rng = engine.rng.fork(CROWD_SALT);
        let mut crowd = Crowd::spawn(&mut engine, cfg.crowd, rng);
        engine.record_history();
        engine.replay_with(&past_steps(start_ms, now_ms), |engine, step_ms| {
            let age_ms = now_ms - engine.now_ms();
            crowd.trade_past(engine, step_ms, age_ms)
        });
        // Nobody can be watching yet: the founding and the past are in every snapshot.
        engine.drain_outbox();
        Self { engine, crowd }
    }

    /// Move time to `now_ms`, the crowd trading on every tick.
    pub(crate) fn advance(&mut self, now_ms: u64) {
        let crowd = &mut self.crowd;
        self.engine
            .advance_with(now_ms, |engine| crowd.trade(engine));
    }
}

/// The times a warm-up from `start_ms` steps through up to `now_ms` (which is the last):
/// hourly while older than a day, every ten minutes within the last day, every minute within the
/// last hour, so the 1h and 1d history have a point per interval and the 1m series one a minute
/// for the last hour, at a cost that grows by only 24 steps a day of past.
fn past_steps(start_ms: u64, now_ms: u64) -> Vec<u64> {
    let mut times = Vec::new();
    let mut t = now_ms;
    while t > start_ms {
        times.push(t);
        let step = match now_ms - t {
            age if age < HOUR_MS => MINUTE_MS,
            age if age < DAY_MS => 10 * MINUTE_MS,
            _ => HOUR_MS,
        };
        t = t.saturating_sub(step);
    }
    times.reverse();
    times
}

/// Everything else is the engine's: requests, tests and the demo read and change it through the
/// exchange they locked.
impl Deref for Exchange {
    type Target = Engine;

    fn deref(&self) -> &Engine {
        &self.engine
    }
}

impl DerefMut for Exchange {
    fn deref_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_steps_coarsen_with_age_and_end_now() {
        let now = 1_791_862_800_000;
        assert!(past_steps(now, now).is_empty());
        let steps = past_steps(now - 3 * DAY_MS, now);
        assert_eq!(steps.last(), Some(&now));
        assert!(steps.windows(2).all(|w| w[0] < w[1]));
        assert!(steps[0] > now - 3 * DAY_MS && steps[0] <= now - 3 * DAY_MS + HOUR_MS);
        let within = |age: u64| steps.iter().filter(|t| now - **t < age).count();
        assert_eq!(within(HOUR_MS), 60);
        assert_eq!(within(DAY_MS), 60 + 23 * 6);
        assert_eq!(steps.len(), 60 + 23 * 6 + 2 * 24);
    }
}
