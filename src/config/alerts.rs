//! `[alerts]`: when a position's distance to bust crosses a threshold, and how to say so. The
//! settings and their defaults live here, checked when the file is read; the machine that runs
//! them is `app::alerts`.

use std::collections::BTreeSet;
use std::time::Duration;

use serde::Deserialize;

/// How a notification reaches the user's terminal (the bell and the banner need no choice).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `OSC 9` (iTerm2, WezTerm, Ghostty…).
    Osc9,
    /// `OSC 777;notify` (foot, VTE with the notify patch, urxvt, WezTerm, Ghostty).
    Osc777,
    /// kitty's `OSC 99`.
    Osc99,
    /// The terminal bell only.
    Bell,
    /// No escape at all: the banner and the `--follow` event line only.
    None,
}

impl Method {
    pub(crate) fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "osc9" => Method::Osc9,
            "osc777" => Method::Osc777,
            "osc99" => Method::Osc99,
            "bell" => Method::Bell,
            "none" => Method::None,
            _ => return None,
        })
    }
}

/// Where notifications go, decided once at start (from the config or the terminal's
/// environment; the app itself reads neither).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivery {
    pub method: Method,
    /// Inside tmux: escapes are wrapped for passthrough to the outer terminal.
    pub tmux: bool,
}

/// When to warn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    /// Distances to bust in basis points of the mark, deepest last.
    thresholds_bps: Vec<u32>,
    pub cooldown: Duration,
    /// Re-arm above `threshold × (100 + rearm_pct) / 100`.
    pub rearm_pct: u32,
}

impl Rules {
    /// Thresholds in any order (duplicates dropped).
    pub(crate) fn new(thresholds_bps: &[u32], cooldown: Duration, rearm_pct: u32) -> Self {
        let set: BTreeSet<u32> = thresholds_bps.iter().copied().collect();
        Self {
            thresholds_bps: set.into_iter().rev().collect(),
            cooldown,
            rearm_pct,
        }
    }

    /// Deepest last.
    pub(crate) fn thresholds_bps(&self) -> &[u32] {
        &self.thresholds_bps
    }
}

/// The defaults `config.example.toml` explains: 5%, 2%, 0.5%; one minute; 20%.
pub(crate) const DEFAULT_THRESHOLDS_BPS: [u32; 3] = [500, 200, 50];
pub(crate) const DEFAULT_COOLDOWN: Duration = Duration::from_secs(60);
pub(crate) const DEFAULT_REARM_PCT: u32 = 20;

impl Default for Rules {
    fn default() -> Self {
        Self::new(&DEFAULT_THRESHOLDS_BPS, DEFAULT_COOLDOWN, DEFAULT_REARM_PCT)
    }
}

/// `[alerts]`: when a position's distance to bust crosses a threshold, and how to say so.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AlertsConfig {
    /// Off switch (on by default).
    #[serde(default = "on")]
    pub enabled: bool,
    /// Distances to bust in basis points of the mark (500 = 5%).
    pub thresholds_bps: Option<Vec<u32>>,
    /// Seconds before the same threshold of the same position may alert again.
    pub cooldown_s: Option<u64>,
    /// A threshold re-arms once the distance is this many percent of it above it.
    pub rearm_pct: Option<u32>,
    /// `auto`, `osc9`, `osc777`, `osc99`, `bell` or `none`.
    pub notification: Option<String>,
}

fn on() -> bool {
    true
}

impl Default for AlertsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            thresholds_bps: None,
            cooldown_s: None,
            rearm_pct: None,
            notification: None,
        }
    }
}

/// A threshold must leave room for the re-arm band below 100% (a long at 1x is ~100% away).
const MAX_THRESHOLD_BPS: u32 = 9_000;
const MAX_THRESHOLDS: usize = 8;
const MAX_COOLDOWN_S: u64 = 86_400;

impl AlertsConfig {
    /// Every value in range, each problem named by its key.
    pub(crate) fn validate(&self) -> Result<(), String> {
        if let Some(t) = &self.thresholds_bps {
            if t.is_empty() {
                return Err(
                    "alerts.thresholds_bps: give at least one (to turn alerts off, enabled = false)"
                        .into(),
                );
            }
            if t.len() > MAX_THRESHOLDS {
                return Err(format!(
                    "alerts.thresholds_bps: at most {MAX_THRESHOLDS} thresholds, got {}",
                    t.len()
                ));
            }
            if let Some(bad) = t.iter().find(|b| !(1..=MAX_THRESHOLD_BPS).contains(*b)) {
                return Err(format!(
                    "alerts.thresholds_bps: {bad} is out of range; use 1 to {MAX_THRESHOLD_BPS} basis points (500 = 5%)"
                ));
            }
            let unique: std::collections::BTreeSet<&u32> = t.iter().collect();
            if unique.len() != t.len() {
                return Err("alerts.thresholds_bps: a threshold is listed twice".into());
            }
        }
        if let Some(c) = self.cooldown_s
            && c > MAX_COOLDOWN_S
        {
            return Err(format!(
                "alerts.cooldown_s: at most {MAX_COOLDOWN_S} (a day), got {c}"
            ));
        }
        if let Some(r) = self.rearm_pct
            && r > 100
        {
            return Err(format!("alerts.rearm_pct: 0 to 100, got {r}"));
        }
        if let Some(n) = &self.notification
            && n != "auto"
            && Method::parse(n).is_none()
        {
            return Err(format!(
                "alerts.notification: use auto, osc9, osc777, osc99, bell or none, got {n:?}"
            ));
        }
        Ok(())
    }

    /// The rules, or `None` when alerts are off.
    pub(crate) fn rules(&self) -> Option<Rules> {
        self.enabled.then(|| {
            Rules::new(
                self.thresholds_bps
                    .as_deref()
                    .unwrap_or(&DEFAULT_THRESHOLDS_BPS),
                self.cooldown_s
                    .map_or(DEFAULT_COOLDOWN, std::time::Duration::from_secs),
                self.rearm_pct.unwrap_or(DEFAULT_REARM_PCT),
            )
        })
    }

    /// Where notifications go: the configured method, or for `auto` what `detect` finds. Inside
    /// tmux (`detect` says) a configured method is wrapped for passthrough too.
    pub(crate) fn delivery(&self, detect: impl FnOnce() -> Delivery) -> Delivery {
        let found = detect();
        match self.notification.as_deref().and_then(Method::parse) {
            Some(method) => Delivery { method, ..found },
            None => found,
        }
    }
}
