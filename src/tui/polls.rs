//! The market polls, at the rates written here and in `PollRates`; their events go to the inbox.

use std::time::Duration;

use tokio::sync::{mpsc, watch};

use crate::app::{App, Message};
use crate::client::ExchangeHttp;
use crate::client::market::{PollRates, spawn_account_reads, spawn_day_opens, spawn_market_poller};

use super::tasks::Task;

pub(super) struct Polls {
    _tasks: Vec<Task>,
    queued: watch::Sender<bool>,
}

impl Polls {
    pub(super) fn start(
        http: &ExchangeHttp,
        rates: PollRates,
        wallet: Option<alloy_primitives::Address>,
        inbox: mpsc::Sender<Message>,
    ) -> Self {
        let (tx, mut rx) = mpsc::channel(256);
        let forward = tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                if inbox.send(Message::Market(event)).await.is_err() {
                    return;
                }
            }
        });
        let (queued, queued_rx) = watch::channel(false);
        let mut tasks = vec![
            Task(forward),
            Task(spawn_market_poller(http.clone(), rates, tx.clone())),
            Task(spawn_day_opens(
                http.clone(),
                Duration::from_secs(300),
                tx.clone(),
            )),
        ];
        if let Some(w) = wallet {
            tasks.push(Task(spawn_account_reads(
                http.clone(),
                w,
                Duration::from_secs(3),
                queued_rx,
                tx,
            )));
        }
        Self {
            _tasks: tasks,
            queued,
        }
    }

    pub(super) fn follow(&self, app: &App) {
        let queued = app
            .account
            .as_ref()
            .is_some_and(|a| !a.operations.is_empty());
        self.queued
            .send_if_modified(|was| std::mem::replace(was, queued) != queued);
    }
}
