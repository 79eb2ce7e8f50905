//! Listing markets (three seeds' tools): `report::markets`.

use serde_json::{Value, json};

use crate::client::market_data::MarketData;

use super::{Answer, Args, Failure, Reads};

/// Which seed's market list: the same list, named as each seed names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarketsView {
    /// `papertrade_markets`: optional `market` to return only that one.
    Sdk,
    /// `list_markets`: adds `acceptedActions`.
    Terminal,
    /// `get_markets`.
    Risk,
}

pub(super) async fn markets(
    reads: &Reads,
    view: MarketsView,
    a: &Args<'_>,
) -> Result<Answer, Failure> {
    let only = a.text("market");
    let data = MarketData::live(&reads.http, only.as_deref())
        .await
        .map_err(|e| Failure::from_report(e.into(), &[]))?;
    let mut value = crate::answers::markets::markets_json(&data);
    if let Some(symbol) = &only
        && let Some(list) = value["markets"].as_array_mut()
    {
        list.retain(|m| {
            m["symbol"]
                .as_str()
                .is_some_and(|s| s.eq_ignore_ascii_case(symbol))
        });
        if list.is_empty() {
            return Err(Failure(format!(
                "Invalid argument market: no market {:?} is live. Call the tool without market to see them all; nothing was done.",
                crate::text::sanitize_line(symbol, 24)
            )));
        }
    }
    if view == MarketsView::Terminal {
        value["acceptedActions"] = json!(crate::answers::markets::accepted_actions(&data.state));
    }
    let list: Vec<String> = value["markets"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            format!(
                "{} mark {} ({}, up to {}x)",
                m["symbol"].as_str().unwrap_or(""),
                match &m["markPrice"] {
                    Value::Null => "unavailable".to_string(),
                    p => p.to_string(),
                },
                m["status"].as_str().unwrap_or(""),
                m["maxLeverage"],
            )
        })
        .collect();
    let text = format!(
        "{} market(s): {}. Trading {}; minimum margin ${}, minimum notional ${}.",
        list.len(),
        list.join("; "),
        if value["tradingPaused"] == json!(true) {
            "is PAUSED"
        } else {
            "is open"
        },
        value["limits"]["minMarginUsd"],
        value["limits"]["minNotionalUsd"],
    );
    Ok(Answer { text, value })
}
