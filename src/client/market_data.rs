//! Where a read's market parameters come from: the live exchange (plus Hyperliquid marks),
//! or the launch parameters shipped in `assets/` for `--offline`. The commands and the assistant
//! tools share it.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::client::ExchangeHttp;
use crate::protocol::trading::{Instrument, TradingState};

use super::FetchError;

/// The real mainnet `/state/trading` capture of 2026-10-18 (§3.1), shipped for `--offline`.
pub const LAUNCH_STATE: &str = include_str!("../../assets/trading_mainnet.json");
const LAUNCH_DESCRIPTION: &str = "launch instrument parameters shipped with papertrade-tui (mainnet /state/trading capture of 2026-10-18)";

pub enum Source {
    Live { api: String, info: String },
    Offline,
}

pub struct MarketData {
    pub state: TradingState,
    pub source: Source,
    /// Raw mark per instrument id, or why there is none.
    marks: BTreeMap<u32, Result<u64, String>>,
}

impl MarketData {
    pub fn offline() -> Self {
        Self {
            state: TradingState::decode(LAUNCH_STATE).expect("shipped asset decodes (tested)"),
            source: Source::Offline,
            marks: BTreeMap::new(),
        }
    }

    /// `/state/trading`, then the marks of `market` (every market when `None`) concurrently.
    pub async fn live(http: &ExchangeHttp, market: Option<&str>) -> Result<Self, FetchError> {
        let state = http.trading_state().await?;
        let only = market.and_then(|name| state.market(name)).map(|m| m.id);
        let wanted: Vec<&Instrument> = state
            .instruments
            .iter()
            .filter(|i| market.is_none() || only == Some(i.id))
            .collect();
        let marks = futures::future::join_all(wanted.iter().map(|i| fetch_mark(http, i))).await;
        let marks = wanted.iter().map(|i| i.id).zip(marks).collect();
        Ok(Self {
            state,
            source: Source::Live {
                api: http.api_url().to_string(),
                info: http.info_url().to_string(),
            },
            marks,
        })
    }

    pub fn mark(&self, market: &Instrument) -> Result<u64, String> {
        match self.marks.get(&market.id) {
            Some(m) => m.clone(),
            None => Err(match self.source {
                Source::Offline => "no live mark offline".to_string(),
                Source::Live { .. } => "mark not fetched".to_string(),
            }),
        }
    }

    /// Fold a poller's event (`positions --follow` keeps its marks current this way).
    pub fn apply(&mut self, event: crate::events::market::MarketEvent) {
        use crate::events::market::MarketEvent;
        match event {
            MarketEvent::Trading(state, _) => self.state = *state,
            MarketEvent::Mark {
                instrument_id, raw, ..
            } => {
                self.marks.insert(instrument_id, Ok(raw));
            }
            _ => {}
        }
    }

    /// The marks known now, raw per instrument id.
    pub fn known_marks(&self) -> BTreeMap<u32, u64> {
        self.marks
            .iter()
            .filter_map(|(id, m)| m.as_ref().ok().map(|m| (*id, *m)))
            .collect()
    }

    pub fn is_offline(&self) -> bool {
        matches!(self.source, Source::Offline)
    }

    /// Which parameters a result used, for JSON.
    pub fn parameters_json(&self) -> Value {
        match &self.source {
            Source::Live { api, info } => json!({
                "source": "live",
                "api": api,
                "infoUrl": info,
                "indexedThroughBlock": self.state.indexed_through_block,
            }),
            Source::Offline => json!({
                "source": "offline",
                "description": LAUNCH_DESCRIPTION,
                "indexedThroughBlock": self.state.indexed_through_block,
            }),
        }
    }

    /// Which parameters a result used, for a person.
    pub fn parameters_line(&self) -> String {
        match &self.source {
            Source::Live { api, .. } => format!(
                "parameters: live from {api} (indexed through block {})",
                self.state.indexed_through_block
            ),
            Source::Offline => format!("parameters: {LAUNCH_DESCRIPTION}; offline, no live data"),
        }
    }
}

/// A market's mark: the frozen mid of a terminal market, else the Hyperliquid l2Book mid.
async fn fetch_mark(http: &ExchangeHttp, market: &Instrument) -> Result<u64, String> {
    if market.terminal {
        return market
            .frozen_mid()
            .ok_or_else(|| "terminal market without a frozen mid".into());
    }
    let book = http
        .l2_book(&market.symbol)
        .await
        .map_err(|e| e.to_string())?;
    book.mid_raw(market.price_scale)
        .map_err(|e| format!("{} book: {e}", market.symbol))
}
