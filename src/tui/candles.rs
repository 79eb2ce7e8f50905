//! The chart's candles, read on demand (`Effect::FetchCandles`).

use std::time::SystemTime;

use tokio::sync::mpsc;

use crate::app::Message;
use crate::client::ExchangeHttp;
use crate::client::market::candles;
use crate::feed::market::{MarketEvent, Source};

/// Candles a chart can use at most (one a column).
const CANDLE_COUNT: u64 = 200;

pub(super) fn spawn(
    http: &ExchangeHttp,
    instrument_id: u32,
    symbol: String,
    interval: &'static str,
    inbox: mpsc::Sender<Message>,
) {
    let http = http.clone();
    tokio::spawn(async move {
        let now_ms = crate::clock::now_unix_ms();
        let event = match candles(&http, &symbol, interval, CANDLE_COUNT, now_ms).await {
            Ok(candles) => MarketEvent::Candles {
                instrument_id,
                interval,
                candles,
                at: SystemTime::now(),
            },
            Err(e) => MarketEvent::Failed {
                source: Source::Candles,
                error: format!("candles: {e}"),
                at: SystemTime::now(),
            },
        };
        let _ = inbox.send(Message::Market(event)).await;
    });
}
