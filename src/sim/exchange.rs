//! The simulated exchange as the server runs it: the engine and the crowd that trades on it.
//! Time moves here. Each engine tick settles what is due, then the crowd signs intents and
//! submits them through intake like any client, so the engine never knows the crowd exists
//! (engine ← intake ← crowd ← exchange, no cycle).

use std::ops::{Deref, DerefMut};

use super::crowd::Crowd;
use super::engine::{Engine, SimConfig};

/// The seed salt of the crowd's generator, forked from the engine's after the markets'.
const CROWD_SALT: u64 = 0xc40d;

pub struct Exchange {
    engine: Engine,
    /// The simulated traders (their wallets are public: tests and the demo follow one).
    pub crowd: Crowd,
}

impl Exchange {
    /// A fresh exchange at `now_ms`: the engine, the crowd funded and registered as if it joined
    /// before the start, and the first history point, which counts the crowd.
    pub(crate) fn new(cfg: SimConfig, now_ms: u64) -> Self {
        let mut engine = Engine::new(cfg.clone(), now_ms);
        let rng = engine.rng.fork(CROWD_SALT);
        let crowd = Crowd::spawn(&mut engine, cfg.crowd, rng);
        engine.record_history();
        Self { engine, crowd }
    }

    /// Move time to `now_ms`, the crowd trading on every tick.
    pub(crate) fn advance(&mut self, now_ms: u64) {
        let crowd = &mut self.crowd;
        self.engine
            .advance_with(now_ms, |engine| crowd.trade(engine));
    }
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
