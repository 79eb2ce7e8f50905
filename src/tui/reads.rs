//! The one way the UI reads on a schedule: after each fold the loop hands the app's declared
//! reads (`App::reads`) to [`Reads::follow`], which keeps one task per read — a read still
//! declared keeps its task, one no longer declared is stopped, a new one starts. A task reads at
//! once, then every period; each answer goes to the inbox stamped when it arrived.
//!
//! A read that comes back to what it filled last (a pane shown again, the same sort) waits out
//! the rest of its period from its last run rather than reading twice: what the screen shows is
//! still that fresh.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::app::Message;
use crate::app::reads::Read;
use crate::client::ExchangeHttp;
use crate::client::market;

use super::explore::Reader;
use super::tasks::Task;

pub(super) struct Reads {
    http: ExchangeHttp,
    /// The exploring panes' reads, with their caches.
    panes: Reader,
    inbox: mpsc::Sender<Message>,
    running: Vec<Running>,
    /// The last read of each slot that stopped, and when it last ran.
    stopped: Vec<(Read, Option<Instant>)>,
}

struct Running {
    read: Read,
    every: Duration,
    /// When its task last started a read that came back.
    last: Arc<Mutex<Option<Instant>>>,
    _task: Task,
}

impl Reads {
    pub(super) fn new(http: ExchangeHttp, inbox: mpsc::Sender<Message>) -> Self {
        Self {
            panes: Reader::new(http.clone()),
            http,
            inbox,
            running: Vec::new(),
            stopped: Vec::new(),
        }
    }

    /// Make the running reads the `declared` ones.
    pub(super) fn follow(&mut self, declared: Vec<(Read, Duration)>) {
        let (keep, stop): (Vec<_>, Vec<_>) = std::mem::take(&mut self.running)
            .into_iter()
            .partition(|r| declared.contains(&(r.read.clone(), r.every)));
        self.running = keep;
        for gone in stop {
            let last = *gone.last.lock().expect("read clock lock");
            self.stopped.retain(|(r, _)| r.slot() != gone.read.slot());
            self.stopped.push((gone.read, last));
        }
        for (read, every) in declared {
            if self.running.iter().any(|r| r.read == read) {
                continue;
            }
            let now = Instant::now();
            let first = self
                .stopped
                .iter()
                .find(|(r, _)| *r == read)
                .and_then(|(_, last)| *last)
                .map_or(now, |last| (last + every).max(now));
            let last = Arc::new(Mutex::new(None));
            let task = Task(tokio::spawn(run(
                self.http.clone(),
                self.panes.clone(),
                self.inbox.clone(),
                read.clone(),
                every,
                first,
                last.clone(),
            )));
            self.running.push(Running {
                read,
                every,
                last,
                _task: task,
            });
        }
    }
}

/// Read `read` at `first`, then every `every`, until stopped or the inbox is gone.
async fn run(
    http: ExchangeHttp,
    panes: Reader,
    inbox: mpsc::Sender<Message>,
    read: Read,
    every: Duration,
    first: Instant,
    last: Arc<Mutex<Option<Instant>>>,
) {
    let mut at = first;
    loop {
        tokio::time::sleep_until(at).await;
        let started = Instant::now();
        for message in read_once(&http, &panes, &read).await {
            if inbox.send(message).await.is_err() {
                return;
            }
        }
        // Only a read that came back counts: one stopped half-way is read again at once.
        *last.lock().expect("read clock lock") = Some(started);
        // A read slower than its period goes again at once, never twice at a time.
        at = (started + every).max(Instant::now());
    }
}

/// One read, as the messages it answers with.
async fn read_once(http: &ExchangeHttp, panes: &Reader, read: &Read) -> Vec<Message> {
    let events = match read {
        Read::Trading => market::read_trading(http).await,
        Read::Marks(markets) => market::read_marks(http, markets).await,
        Read::Protocol => market::read_protocol(http).await,
        Read::DayOpens => market::read_day_opens(http).await,
        Read::RecentTrades => vec![market::read_recent_trades(http).await],
        Read::QueueRank(wallet) => vec![market::read_queue_rank(http, *wallet).await],
        Read::Candles {
            instrument_id,
            symbol,
            interval,
        } => vec![market::read_chart_candles(http, *instrument_id, symbol, interval).await],
        Read::Pane { fetch, .. } => return vec![panes.read(fetch.clone()).await],
    };
    events.into_iter().map(Message::Market).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http() -> ExchangeHttp {
        // Nothing listens there: every read fails at once, which is all these tests need.
        ExchangeHttp::new(
            "http://127.0.0.1:9",
            "http://127.0.0.1:9/info",
            crate::client::HttpConfig {
                attempts: 1,
                ..Default::default()
            },
        )
    }

    /// A read still declared keeps its task; one no longer declared is stopped; a new one
    /// starts at once; one declared again before its period is over waits out the rest.
    #[tokio::test(start_paused = true)]
    async fn the_running_reads_follow_the_declared_ones() {
        let (tx, mut rx) = mpsc::channel(64);
        let mut reads = Reads::new(http(), tx);
        let every = Duration::from_secs(60);
        // The trading state's read stays out of the way of the protocol's.
        let slow = Duration::from_secs(600);
        let t0 = Instant::now();
        reads.follow(vec![(Read::Trading, slow), (Read::Protocol, every)]);
        let task_of = |reads: &Reads, read: &Read| {
            reads
                .running
                .iter()
                .find(|r| r.read == *read)
                .map(|r| r._task.0.id())
        };
        let trading = task_of(&reads, &Read::Trading).unwrap();
        // Both read at once: the trading state's answer, the summary's and the health's.
        for _ in 0..3 {
            rx.recv().await.expect("an answer");
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        reads.follow(vec![(Read::Trading, slow)]);
        assert_eq!(task_of(&reads, &Read::Trading), Some(trading), "kept");
        assert_eq!(task_of(&reads, &Read::Protocol), None, "stopped");
        let last = reads.stopped[0].1.expect("it came back once");
        assert!(last >= t0 && last < t0 + Duration::from_secs(1));
        // Declared again: its next read is a period after the last, not now.
        reads.follow(vec![(Read::Trading, slow), (Read::Protocol, every)]);
        assert_ne!(task_of(&reads, &Read::Protocol), None, "started again");
        let early = last + every - Duration::from_secs(1);
        assert!(
            tokio::time::timeout_at(early, rx.recv()).await.is_err(),
            "nothing read before its period is out"
        );
        tokio::time::timeout_at(last + every + Duration::from_secs(1), rx.recv())
            .await
            .expect("read once its period is out");
    }
}
