//! The protocol's status (the health tools of three seeds): `/state/trading`, the relayer's
//! health and the summary, read together; `analytics::status` words them.

use serde_json::Value;

use crate::analytics::status::{self, Inputs};
use crate::client::ExchangeHttp;
use crate::client::explorer as reads;
use crate::protocol::reads::RelayerHealth;

use super::AnswerError;

pub async fn status(http: &ExchangeHttp) -> Result<Value, AnswerError> {
    let none = std::collections::BTreeMap::new();
    let (trading, health, summary) = tokio::join!(
        http.trading_state(),
        http.get_json::<RelayerHealth>("/relayer/health", &none),
        reads::summary(http),
    );
    let trading = trading?;
    let health = health.map_err(|e| e.to_string());
    let summary = summary.map_err(|e| e.to_string());
    Ok(status::status_json(&Inputs {
        trading: &trading,
        accepted_actions: super::markets::accepted_actions(&trading),
        health: health.as_ref().map_err(Clone::clone),
        summary: summary.as_ref().map_err(Clone::clone),
    }))
}
