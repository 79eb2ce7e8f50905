//! The terminal runtime: one loop that takes keys first, folds network messages into `App`, and
//! draws only when something changed (keys at once, feed updates at most `max_fps` a second),
//! sleeping in between: no timer runs while nothing changes (see `App::next_wake`).
//! The loop runs over any [`Screen`] and any stream of terminal events; [`run`] gives it the
//! real terminal, each frame wrapped in synchronized output, restored on exit, error and panic.

mod explore;
mod frames;
mod fund;
mod key_setup;
mod submit;

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use alloy_primitives::Address;
use futures::{Stream, StreamExt};
use ratatui::backend::Backend;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    DisableMouseCapture, EnableMouseCapture, Event, EventStream, KeyEventKind, MouseButton,
    MouseEventKind,
};
use ratatui::crossterm::execute;
use ratatui::{Frame, Terminal};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::app::{App, Effect, Message};
use crate::client::ExchangeHttp;
use crate::client::history::HistoryFile;
use crate::client::intents::record_fate;
use crate::client::ledger::AuditLog;
use crate::client::live_account::LateFates;
use crate::client::market::{PollRates, spawn_market_poller};
use crate::client::stream::{StreamConfig, spawn_account_stream};
use crate::keys::KeyMeta;
use crate::protocol::eip712::SessionSigner;
use crate::ui::keymap::action;
use crate::ui::{draw, theme::Theme};

/// Everything the UI needs, prepared before the terminal is taken over (passphrases are asked
/// for on the plain terminal first).
pub struct Setup {
    pub app: App,
    pub http: ExchangeHttp,
    /// The session key; `None` in watch mode, where no key material exists in the process.
    pub session: Option<(SessionSigner, KeyMeta)>,
    pub data_dir: PathBuf,
    pub theme: Theme,
    pub rates: PollRates,
    /// Cap on feed-driven redraws per second.
    pub max_fps: u32,
    /// Capture the mouse (off by default, so copy and paste work).
    pub mouse: bool,
    /// How long each kind of intent stays valid.
    pub deadlines: crate::protocol::order::Deadlines,
    /// Where the session key is stored, for the key panel; `None` in watch mode.
    pub keys: Option<crate::keys::SessionKeys>,
}

/// Where the loop's frames go: the real terminal wraps each in synchronized output
/// ([`run`]); a test draws into a `TestBackend` and reads the frames back.
pub trait Screen {
    fn frame(&mut self, render: &mut dyn FnMut(&mut Frame)) -> io::Result<()>;

    /// Ring the bell / raise a desktop notification (escape bytes from `ui::notify`). A screen
    /// that is not a terminal keeps them to itself.
    fn notify(&mut self, _escape: &[u8]) -> io::Result<()> {
        Ok(())
    }
}

/// A plain terminal: each frame drawn as is.
impl<B: Backend> Screen for Terminal<B> {
    fn frame(&mut self, render: &mut dyn FnMut(&mut Frame)) -> io::Result<()> {
        self.draw(|f| render(f))
            .map(|_| ())
            .map_err(|e| io::Error::other(e.to_string()))
    }
}

/// The real terminal: each frame that changes a cell inside a synchronized update, so it never
/// shows half of one; a frame that changes nothing writes nothing (`frames::Frames`).
struct Synchronized(Terminal<frames::Frames<CrosstermBackend<io::Stdout>>>);

impl Screen for Synchronized {
    fn frame(&mut self, render: &mut dyn FnMut(&mut Frame)) -> io::Result<()> {
        self.0.draw(|f| render(f)).map(|_| ())
    }

    fn notify(&mut self, escape: &[u8]) -> io::Result<()> {
        let mut out = io::stdout();
        out.write_all(escape)?;
        out.flush()
    }
}

/// Run the UI on the process's terminal until the user quits.
pub(crate) async fn run(setup: Setup) -> io::Result<()> {
    let mouse = setup.mouse;
    // ratatui::init enters the alternate screen, raw mode, and installs a panic hook that
    // restores the terminal before the panic message prints; its terminal is replaced by one
    // that writes only what changes.
    drop(ratatui::init());
    let mut screen = Synchronized(Terminal::new(frames::Frames::new(CrosstermBackend::new(
        io::stdout(),
    )))?);
    let result = async {
        if mouse {
            execute!(io::stdout(), EnableMouseCapture)?;
        }
        run_loop(setup, &mut screen, EventStream::new()).await
    }
    .await;
    if mouse {
        let _ = execute!(io::stdout(), DisableMouseCapture);
    }
    ratatui::restore();
    result
}

/// The event loop over any screen and any stream of terminal events, until the user quits or
/// the events end: network tasks start here and stop when it returns.
pub async fn run_loop(
    setup: Setup,
    screen: &mut impl Screen,
    mut terminal_events: impl Stream<Item = io::Result<Event>> + Unpin,
) -> io::Result<()> {
    let Setup {
        mut app,
        http,
        session,
        data_dir,
        theme,
        rates,
        max_fps,
        mouse: _,
        deadlines,
        keys,
    } = setup;
    let (market_tx, mut market_rx) = mpsc::channel(256);
    let market_tx_candles = market_tx.clone();
    let _poller = AbortOnDrop(spawn_market_poller(http.clone(), rates, market_tx.clone()));
    let _day_opens = AbortOnDrop(crate::client::market::spawn_day_opens(
        http.clone(),
        Duration::from_secs(300),
        market_tx.clone(),
    ));
    // Whether the wallet has operations queued: the queue rank is polled only then.
    let (queued_tx, queued_rx) = tokio::sync::watch::channel(false);
    let _account_reads = app.wallet.map(|w| {
        AbortOnDrop(crate::client::market::spawn_account_reads(
            http.clone(),
            w,
            Duration::from_secs(3),
            queued_rx,
            market_tx.clone(),
        ))
    });
    let (stream_tx, mut stream_rx) = mpsc::channel(256);
    let _stream = app.wallet.map(|w: Address| {
        AbortOnDrop(spawn_account_stream(
            http.clone(),
            w,
            StreamConfig::default(),
            stream_tx,
        ))
    });
    let (report_tx, mut report_rx) = mpsc::channel::<crate::app::SubmitReport>(64);
    let audit = AuditLog::new(&data_dir);
    // Intents earlier commands of this data dir signed but stopped waiting for: their fates
    // are appended to the audit log as this stream shows them.
    let mut late_fates = app.wallet.map(|w| LateFates::new(&data_dir, w));
    let wallet = app.wallet;
    let new_submitter =
        |key| submit::Submitter::new(http.clone(), key, wallet, &data_dir, deadlines);
    let mut submitter = session.map(|(key, _)| new_submitter(key));
    let key_worker = keys.zip(app.wallet).map(|(keys, owner)| {
        key_setup::KeyWorker::new(http.clone(), &data_dir, owner, keys, deadlines)
    });
    let (key_tx, mut key_rx) = mpsc::channel::<key_setup::KeyDone>(8);
    // The owner signs funding moves; watch mode has no key store, so no worker either.
    let fund_worker = key_worker
        .as_ref()
        .and(app.wallet)
        .map(|owner| fund::FundWorker::new(http.clone(), &data_dir, owner, deadlines));
    let (fund_tx, mut fund_rx) = mpsc::channel::<crate::app::fund::FundOutcome>(8);
    let (fetch_tx, mut fetch_rx) = mpsc::channel::<crate::app::explore::Fetched>(16);
    let reader = explore::Reader::new(http.clone());

    // Feed updates draw at most once a frame; keys at once.
    let frame_time = Duration::from_millis(1000 / u64::from(max_fps.clamp(1, 60)));
    let mut last_frame = Instant::now();
    // The wallet's history file, read once here (bounded) and appended to as closes arrive.
    let mut history = app.wallet.map(|w| HistoryFile::new(&data_dir, w));
    let loaded = history.as_mut().map(HistoryFile::load).unwrap_or_default();
    // The first messages: the history, then the time, so the app can ask for what it needs
    // (candles).
    let mut pending = vec![
        Message::HistoryLoaded(loaded),
        Message::Tick(SystemTime::now()),
    ];
    let mut draw_now = true;
    let mut width = 0u16;
    loop {
        // Fold every message, then run what it asked for. The loop changes no state itself.
        for message in pending.drain(..) {
            for effect in app.handle(message) {
                match effect {
                    Effect::Quit => return Ok(()),
                    Effect::Submit { order, what } => match &submitter {
                        Some(s) => s.spawn(order, what, report_tx.clone()),
                        None => {
                            let report = crate::app::SubmitReport {
                                toasts: vec![(
                                    "no session key in this session: nothing was signed".into(),
                                    true,
                                )],
                                ..Default::default()
                            };
                            let _ = report_tx.try_send(report);
                        }
                    },
                    Effect::FetchCandles {
                        instrument_id,
                        symbol,
                        interval,
                    } => {
                        spawn_candles(
                            &http,
                            instrument_id,
                            symbol,
                            interval,
                            market_tx_candles.clone(),
                        );
                    }
                    Effect::Fetch(fetch) => reader.spawn(fetch, fetch_tx.clone()),
                    Effect::RecordFate(id, resolution) => record_fate(&audit, id, &resolution),
                    Effect::RecordHistory(trade) => {
                        if let Some(Err(e)) = history.as_mut().map(|h| h.append(&trade)) {
                            // Said like any other outcome of the runtime's work.
                            let report = crate::app::SubmitReport {
                                toasts: vec![(format!("history not saved: {e}"), true)],
                                ..Default::default()
                            };
                            let _ = report_tx.try_send(report);
                        }
                    }
                    // A notification that cannot be written is not worth stopping for.
                    Effect::Notify(notice) => {
                        let _ = screen.notify(&crate::ui::notify::bytes(&notice));
                    }
                    Effect::Fund(job) => match &fund_worker {
                        Some(w) => w.spawn(job, fund_tx.clone()),
                        None => {
                            let _ = fund_tx.try_send(crate::app::fund::FundOutcome::Failed(
                                "watch mode is read-only: nothing can be signed".into(),
                            ));
                        }
                    },
                    Effect::Key(job) => match &key_worker {
                        Some(w) => w.spawn(job, key_tx.clone()),
                        None => {
                            let _ = key_tx.try_send(key_setup::KeyDone {
                                outcome: crate::app::key_setup::KeyOutcome::Failed(
                                    "no key store in this session (watch mode)".into(),
                                ),
                                signer: key_setup::SignerChange::Keep,
                            });
                        }
                    },
                }
            }
        }
        let queued = app
            .account
            .as_ref()
            .is_some_and(|a| !a.operations.is_empty());
        queued_tx.send_if_modified(|was| std::mem::replace(was, queued) != queued);
        if draw_now || (app.dirty && last_frame.elapsed() >= frame_time) {
            screen.frame(&mut |f| {
                // The tab bar's labels depend on the width: a click is read at the drawn one.
                width = f.area().width;
                draw(f, &app, &theme, SystemTime::now())
            })?;
            app.dirty = false;
            draw_now = false;
            last_frame = Instant::now();
        }
        // Nothing wakes the loop but events, the next frame while a change waits to be drawn,
        // and the next time the app says time alone changes something: idle is asleep.
        let wake = [
            app.dirty.then(|| last_frame + frame_time),
            app.next_wake().map(|at| {
                Instant::now() + at.duration_since(SystemTime::now()).unwrap_or_default()
            }),
        ]
        .into_iter()
        .flatten()
        .min();
        tokio::select! {
            biased;
            event = terminal_events.next() => match event {
                Some(Ok(Event::Key(key))) if key.kind == KeyEventKind::Press => {
                    if let Some(a) = action(key) {
                        pending.push(Message::Action(a));
                    }
                    draw_now = true;
                }
                Some(Ok(Event::Resize(..))) => draw_now = true,
                Some(Ok(Event::Mouse(m))) => {
                    let action = match m.kind {
                        MouseEventKind::ScrollUp => Some(crate::app::Action::Up),
                        MouseEventKind::ScrollDown => Some(crate::app::Action::Down),
                        // A dialog open over the tabs ignores the click (its pane decides).
                        MouseEventKind::Down(MouseButton::Left) if m.row == crate::ui::TAB_ROW => {
                            crate::ui::tab_at(m.column, width, app.tab).map(crate::app::Action::Tab)
                        }
                        _ => None,
                    };
                    if let Some(a) = action {
                        pending.push(Message::Action(a));
                        draw_now = true;
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e),
                None => return Ok(()),
            },
            Some(report) = report_rx.recv() => {
                pending.push(Message::Submitted(report));
                draw_now = true;
            }
            Some(done) = key_rx.recv() => {
                match done.signer {
                    key_setup::SignerChange::Use(key) => submitter = Some(new_submitter(key)),
                    key_setup::SignerChange::Drop => submitter = None,
                    key_setup::SignerChange::Keep => {}
                }
                pending.push(Message::KeyDone(done.outcome));
                draw_now = true;
            }
            Some(outcome) = fund_rx.recv() => {
                pending.push(Message::FundDone(outcome));
                draw_now = true;
            }
            Some(fetched) = fetch_rx.recv() => {
                pending.push(Message::Fetched(fetched, SystemTime::now()));
            }
            Some(event) = market_rx.recv() => {
                pending.push(Message::Market(event));
                // A poll's answers arrive together: fold them all, then draw once.
                while let Ok(event) = market_rx.try_recv() {
                    pending.push(Message::Market(event));
                }
            }
            Some(event) = stream_rx.recv() => {
                if let Some(late) = late_fates.as_mut() {
                    late.see(&event);
                }
                pending.push(Message::Stream(event, SystemTime::now()))
            }
            _ = sleep_until(wake) => pending.push(Message::Tick(SystemTime::now())),
        }
    }
}

/// Sleep until `at`, or forever.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// Candles a chart can use at most (one a column).
const CANDLE_COUNT: u64 = 200;

fn spawn_candles(
    http: &ExchangeHttp,
    instrument_id: u32,
    symbol: String,
    interval: &'static str,
    tx: mpsc::Sender<crate::feed::market::MarketEvent>,
) {
    use crate::client::market::candles;
    use crate::feed::market::{MarketEvent, Source};
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
        let _ = tx.send(event).await;
    });
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
