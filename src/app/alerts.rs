//! Distance-to-bust alerts as a pure state machine: readings of each position's room to bust go
//! in (with the time the caller was given), alert events come out. The UI, `--watch` and
//! `positions --follow` all run this one machine, so they cannot disagree on when to warn.
//!
//! Rules, per position and threshold:
//! - a threshold fires when the distance falls to or below it from above (a crossing), once;
//! - it re-arms only when the distance climbs back above the threshold by `rearm_pct` percent of
//!   it (hysteresis), so a mark wobbling around a threshold is one alert, not a stream;
//! - a crossing inside `cooldown` of that threshold's last alert waits for the cooldown to pass
//!   and fires then if the distance is still below (late, but never lost);
//! - several thresholds crossed at once are one alert, naming the deepest;
//! - a position first seen already inside a threshold has not crossed it: no alert for where the
//!   trader chose to open (a 200x position starts ~0.4% from bust), only for what comes after.

use std::collections::{BTreeMap, BTreeSet};
use std::time::SystemTime;

use alloy_primitives::U256;

use crate::protocol::account::Position;
use crate::protocol::math::room_to_bust;
use crate::protocol::trading::TradingState;

/// A desktop notification (and bell) the runtime should send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub delivery: Delivery,
    pub title: String,
    pub body: String,
}

/// The alert settings (how to notify, when to warn) are the config file's (`[alerts]`); they
/// live in `config::alerts` and keep their old paths here.
use crate::config::alerts::{Delivery, Rules};

/// One position's distance to bust now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reading {
    pub position_id: U256,
    pub market: String,
    pub is_long: bool,
    pub leverage: u32,
    /// [`room_to_bust`] at `mark`; the distance is `room / mark`.
    pub room: i128,
    pub mark: u64,
    pub bust: u64,
    pub price_scale: u64,
}

impl Reading {
    /// Exactly: `room / mark <= bps / 10_000`.
    fn at_or_below(&self, bps: u32) -> bool {
        self.room * 10_000 <= i128::from(bps) * i128::from(self.mark)
    }

    /// Exactly: `room / mark > bps × (100 + pct) / 1_000_000`.
    fn above_rearm(&self, bps: u32, pct: u32) -> bool {
        self.room * 1_000_000 > i128::from(bps) * i128::from(100 + pct) * i128::from(self.mark)
    }
}

/// The readings of every open position with a listed market and a mark (the rest cannot be
/// measured and are left out).
pub(crate) fn readings(
    positions: &[Position],
    state: &TradingState,
    marks: &BTreeMap<u32, u64>,
) -> Vec<Reading> {
    positions
        .iter()
        .filter_map(|p| {
            let m = state.market_by_id(p.instrument_id)?;
            let mark = *marks.get(&m.id)?;
            Some(Reading {
                position_id: p.id,
                market: m.symbol.clone(),
                is_long: p.is_long,
                leverage: p.leverage,
                room: room_to_bust(mark, p.bust_price, p.is_long),
                mark,
                bust: p.bust_price,
                price_scale: m.price_scale,
            })
        })
        .collect()
}

/// A threshold crossed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    pub(crate) reading: Reading,
    pub threshold_bps: u32,
}

impl Alert {
    /// "BTC ▲ 10x #17: 0.42% to bust (below 0.5%)"; the market name is the exchange's text.
    pub(crate) fn text(&self) -> String {
        let r = &self.reading;
        format!(
            "{} {} {}x #{}: {}% to bust (below {})",
            crate::text::sanitize_line(&r.market, 16),
            super::side::arrow(r.is_long),
            r.leverage,
            r.position_id,
            crate::protocol::pretrade::percent_text(r.room, u128::from(r.mark), 2),
            bps_text(self.threshold_bps)
        )
    }
}

impl Alert {
    /// The notification for it (the title names the program: OSC 9 shows the body alone).
    pub(crate) fn notice(&self, delivery: Delivery) -> Notice {
        Notice {
            delivery,
            title: "papertrade-tui: near bust".into(),
            body: self.text(),
        }
    }
}

/// Basis points as a short percent: 500 → "5%", 50 → "0.5%", 5 → "0.05%".
pub(crate) fn bps_text(bps: u32) -> String {
    let whole = bps / 100;
    let frac = bps % 100;
    if frac == 0 {
        format!("{whole}%")
    } else {
        let frac = format!("{frac:02}");
        format!("{whole}.{}%", frac.trim_end_matches('0'))
    }
}

#[derive(Debug, Clone, Copy)]
struct Arm {
    armed: bool,
    last_fired: Option<SystemTime>,
}

/// The machine: per position and threshold, whether it may fire and when it last did.
#[derive(Debug, Clone)]
pub struct Alerts {
    rules: Rules,
    arms: BTreeMap<U256, Vec<Arm>>,
}

impl Alerts {
    pub(crate) fn new(rules: Rules) -> Self {
        Self {
            rules,
            arms: BTreeMap::new(),
        }
    }

    /// When a cooldown that holds back an armed threshold ends: a crossing inside it fires then
    /// if the position is still below, so the app must be measured again at that time.
    pub(crate) fn next_cooldown_end(&self) -> Option<SystemTime> {
        self.arms
            .values()
            .flatten()
            .filter(|arm| arm.armed)
            .filter_map(|arm| arm.last_fired)
            .map(|at| at + self.rules.cooldown)
            .min()
    }

    /// Fold the readings of every measurable position at `now`; the alerts to raise. A position
    /// missing from `readings` is forgotten (closed, or no longer measurable).
    pub(crate) fn observe(&mut self, readings: &[Reading], now: SystemTime) -> Vec<Alert> {
        let present: BTreeSet<U256> = readings.iter().map(|r| r.position_id).collect();
        self.arms.retain(|id, _| present.contains(id));
        let rules = &self.rules;
        let mut out = Vec::new();
        for r in readings {
            let Some(arms) = self.arms.get_mut(&r.position_id) else {
                // First sight: what it is already inside of was not crossed.
                let arms = rules
                    .thresholds_bps()
                    .iter()
                    .map(|t| Arm {
                        armed: !r.at_or_below(*t),
                        last_fired: None,
                    })
                    .collect();
                self.arms.insert(r.position_id, arms);
                continue;
            };
            for (arm, t) in arms.iter_mut().zip(rules.thresholds_bps()) {
                if !arm.armed && r.above_rearm(*t, rules.rearm_pct) {
                    arm.armed = true;
                }
            }
            // Thresholds are deepest last: the last crossed one names the alert.
            let crossed: Vec<usize> = (0..arms.len())
                .filter(|i| arms[*i].armed && r.at_or_below(rules.thresholds_bps()[*i]))
                .collect();
            let Some(&deepest) = crossed.last() else {
                continue;
            };
            // A clock that went backwards (an error here) is no reason to stay silent.
            let cooling = arms[deepest]
                .last_fired
                .is_some_and(|at| now.duration_since(at).is_ok_and(|age| age < rules.cooldown));
            if cooling {
                continue;
            }
            for i in crossed {
                arms[i] = Arm {
                    armed: false,
                    last_fired: Some(now),
                };
            }
            out.push(Alert {
                reading: r.clone(),
                threshold_bps: rules.thresholds_bps()[deepest],
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const T0: SystemTime = SystemTime::UNIX_EPOCH;

    fn at(s: u64) -> SystemTime {
        T0 + Duration::from_secs(s)
    }

    /// A long at mark 10_000 with `room_bps` basis points of room (bust = mark − room).
    fn reading(id: u64, room_bps: i128) -> Reading {
        Reading {
            position_id: U256::from(id),
            market: "BTC".into(),
            is_long: true,
            leverage: 10,
            room: room_bps,
            mark: 10_000,
            bust: 0,
            price_scale: 10,
        }
    }

    const NONE: [u32; 0] = [];

    fn thresholds(alerts: &[Alert]) -> Vec<u32> {
        alerts.iter().map(|a| a.threshold_bps).collect()
    }

    fn machine() -> Alerts {
        Alerts::new(Rules::new(&[50, 500, 200], Duration::from_secs(60), 20))
    }

    #[test]
    fn a_downward_crossing_fires_once_per_threshold() {
        let mut a = machine();
        assert!(a.observe(&[reading(1, 900)], at(0)).is_empty());
        assert_eq!(thresholds(&a.observe(&[reading(1, 501)], at(1))), NONE);
        // At the threshold exactly counts as crossed.
        assert_eq!(thresholds(&a.observe(&[reading(1, 500)], at(2))), [500]);
        assert_eq!(thresholds(&a.observe(&[reading(1, 400)], at(3))), NONE);
        assert_eq!(thresholds(&a.observe(&[reading(1, 199)], at(4))), [200]);
        assert_eq!(thresholds(&a.observe(&[reading(1, 150)], at(5))), NONE);
        assert_eq!(thresholds(&a.observe(&[reading(1, 10)], at(6))), [50]);
        assert_eq!(thresholds(&a.observe(&[reading(1, 5)], at(7))), NONE);
        // Long after every cooldown, still inside: still nothing (once means once).
        assert_eq!(thresholds(&a.observe(&[reading(1, 5)], at(7_000))), NONE);
    }

    #[test]
    fn thresholds_crossed_together_are_one_alert_naming_the_deepest() {
        let mut a = machine();
        a.observe(&[reading(1, 900)], at(0));
        let alerts = a.observe(&[reading(1, 100)], at(1));
        assert_eq!(thresholds(&alerts), [200]);
        assert_eq!(alerts[0].text(), "BTC ▲ 10x #1: 1.00% to bust (below 2%)");
        // The shallower one went with it: it does not fire late.
        assert_eq!(thresholds(&a.observe(&[reading(1, 100)], at(200))), NONE);
    }

    #[test]
    fn no_alert_for_where_a_position_starts_or_per_position_mixups() {
        let mut a = machine();
        assert!(
            a.observe(&[reading(1, 40), reading(2, 900)], at(0))
                .is_empty()
        );
        let alerts = a.observe(&[reading(1, 30), reading(2, 450)], at(1));
        assert_eq!(alerts.len(), 1);
        assert_eq!(alerts[0].reading.position_id, U256::from(2u64));
    }

    #[test]
    fn re_arms_only_above_the_hysteresis_band() {
        let mut a = machine();
        a.observe(&[reading(1, 900)], at(0));
        assert_eq!(thresholds(&a.observe(&[reading(1, 450)], at(1))), [500]);
        // 5% × 1.2 = 6%: back above 5% but inside the band is not a new crossing.
        a.observe(&[reading(1, 600)], at(100));
        assert_eq!(thresholds(&a.observe(&[reading(1, 450)], at(101))), NONE);
        // Above the band, then down again (outside the cooldown): a new crossing.
        a.observe(&[reading(1, 601)], at(200));
        assert_eq!(thresholds(&a.observe(&[reading(1, 450)], at(201))), [500]);
    }

    #[test]
    fn a_crossing_in_the_cooldown_waits_and_fires_if_still_below() {
        let mut a = machine();
        a.observe(&[reading(1, 900)], at(0));
        assert_eq!(thresholds(&a.observe(&[reading(1, 450)], at(10))), [500]);
        // Fired and disarmed: no cooldown holds anything back.
        assert_eq!(a.next_cooldown_end(), None);
        a.observe(&[reading(1, 700)], at(20));
        // Re-armed inside the cooldown: the app must look again when it ends.
        assert_eq!(a.next_cooldown_end(), Some(at(70)));
        assert_eq!(thresholds(&a.observe(&[reading(1, 450)], at(30))), NONE);
        assert_eq!(thresholds(&a.observe(&[reading(1, 450)], at(69))), NONE);
        assert_eq!(thresholds(&a.observe(&[reading(1, 450)], at(70))), [500]);
        assert_eq!(a.next_cooldown_end(), None);
        assert_eq!(thresholds(&a.observe(&[reading(1, 450)], at(200))), NONE);
        // Recovered during the cooldown: nothing owed.
        a.observe(&[reading(1, 700)], at(210));
        a.observe(&[reading(1, 450)], at(220));
        a.observe(&[reading(1, 700)], at(225));
        assert_eq!(thresholds(&a.observe(&[reading(1, 700)], at(300))), NONE);
    }

    #[test]
    fn a_closed_position_is_forgotten() {
        let mut a = machine();
        a.observe(&[reading(1, 900)], at(0));
        a.observe(&[], at(1));
        // Seen again (the id came back after a resync, already inside): first sight, silent.
        assert!(a.observe(&[reading(1, 450)], at(2)).is_empty());
    }

    #[test]
    fn shorts_and_prices_at_scale_use_the_exact_room() {
        let state = crate::protocol::trading::TradingState::decode(include_str!(
            "../../assets/trading_mainnet.json"
        ))
        .unwrap();
        let short = Position {
            id: U256::from(7u64),
            instrument_id: 0,
            is_long: false,
            use_debt: false,
            entry_price: 800_000,
            margin: 0,
            leverage: 20,
            bust_price: 839_965,
            opened_at_ms: 0,
            intent_id: None,
        };
        let marks = [(0u32, 800_000u64)].into();
        let r = readings(std::slice::from_ref(&short), &state, &marks);
        assert_eq!(r[0].room, 39_965);
        // 39_965 / 800_000 = 4.9956%: inside 5%, not inside 4.99%.
        assert!(r[0].at_or_below(500) && !r[0].at_or_below(499));
        assert_eq!(bps_text(50), "0.5%");
        assert_eq!(bps_text(5), "0.05%");
        assert_eq!(bps_text(125), "1.25%");
    }
}
