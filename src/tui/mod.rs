//! The terminal runtime: one loop that takes keys first, folds network messages into `App`, and
//! draws only when something changed (keys at once, feed updates at most `max_fps` a second),
//! each frame wrapped in synchronized output. The terminal is restored on exit, error and panic.

mod submit;

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use alloy_primitives::Address;
use futures::StreamExt;
use ratatui::crossterm::event::{
    DisableMouseCapture, EnableMouseCapture, Event, EventStream, KeyEventKind, MouseButton,
    MouseEventKind,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use tokio::sync::mpsc;

use crate::app::{App, Effect};
use crate::client::ExchangeHttp;
use crate::client::intents::record_fate;
use crate::client::ledger::AuditLog;
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
}

/// Run the UI until the user quits.
pub async fn run(setup: Setup) -> std::io::Result<()> {
    let Setup {
        mut app,
        http,
        session,
        data_dir,
        theme,
        rates,
        max_fps,
        mouse,
    } = setup;
    let (market_tx, mut market_rx) = mpsc::channel(256);
    let market_tx_candles = market_tx.clone();
    let _poller = AbortOnDrop(spawn_market_poller(http.clone(), rates, market_tx.clone()));
    let _day_opens = AbortOnDrop(crate::client::market::spawn_day_opens(
        http.clone(),
        Duration::from_secs(300),
        market_tx.clone(),
    ));
    let _account_reads = app.wallet.map(|w| {
        AbortOnDrop(crate::client::market::spawn_account_reads(
            http.clone(),
            w,
            Duration::from_secs(3),
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
    let submitter =
        session.map(|(key, _)| submit::Submitter::new(http.clone(), key, app.wallet, &data_dir));

    // ratatui::init enters the alternate screen, raw mode, and installs a panic hook that
    // restores the terminal before the panic message prints.
    let mut terminal = ratatui::init();
    if mouse {
        execute!(std::io::stdout(), EnableMouseCapture)?;
    }
    let result = async {
        let mut keys = EventStream::new();
        let mut tick = tokio::time::interval(Duration::from_millis(1000 / u64::from(max_fps.clamp(1, 60))));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut draw_now = true;
        // Candles are fetched when the market or interval changes, and refreshed now and then.
        let mut candles_fetched: Option<((u32, &'static str), tokio::time::Instant)> = None;
        loop {
            let want = app.ticket_market().map(|(m, _)| (m.id, app.chart_interval));
            let stale = candles_fetched.is_none_or(|(what, at)| Some(what) != want || at.elapsed() > CANDLE_REFRESH);
            if let (Some(what), true) = (want, stale) {
                candles_fetched = Some((what, tokio::time::Instant::now()));
                spawn_candles(&http, &app, what, market_tx_candles.clone());
            }
            if draw_now {
                frame(&mut terminal, &app, &theme)?;
                app.dirty = false;
                draw_now = false;
            }
            tokio::select! {
                biased;
                event = keys.next() => match event {
                    Some(Ok(Event::Key(key))) if key.kind == KeyEventKind::Press => {
                        if let Some(a) = action(&app, key) {
                            for effect in app.update(a) {
                                match effect {
                                    Effect::Quit => return Ok(()),
                                    Effect::Submit { order, what } => match &submitter {
                                        Some(s) => s.spawn(order, what, report_tx.clone()),
                                        None => app.toast("no session key in this session: nothing was signed", true),
                                    },
                                }
                            }
                        }
                        draw_now = true;
                    }
                    Some(Ok(Event::Resize(..))) => draw_now = true,
                    Some(Ok(Event::Mouse(m))) => {
                        let action = match m.kind {
                            MouseEventKind::ScrollUp => Some(crate::app::Action::Up),
                            MouseEventKind::ScrollDown => Some(crate::app::Action::Down),
                            MouseEventKind::Down(MouseButton::Left)
                                if m.row == crate::ui::TAB_ROW && app.dialog.is_none() =>
                            {
                                crate::ui::tab_at(m.column).map(crate::app::Action::Tab)
                            }
                            _ => None,
                        };
                        if let Some(a) = action {
                            app.update(a);
                            draw_now = true;
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return Err(e),
                    None => return Ok(()),
                },
                Some(report) = report_rx.recv() => {
                    app.on_submitted(report);
                    draw_now = true;
                }
                Some(event) = market_rx.recv() => app.on_market(event),
                Some(event) = stream_rx.recv() => {
                    for (id, resolution) in app.on_stream(event, SystemTime::now()) {
                        record_fate(&audit, id, &resolution);
                    }
                }
                // Feed updates draw at most once a tick; nothing is drawn while idle.
                _ = tick.tick() => draw_now = app.dirty,
            }
        }
    }
    .await;
    if mouse {
        let _ = execute!(std::io::stdout(), DisableMouseCapture);
    }
    ratatui::restore();
    result
}

/// Draw one frame inside a synchronized update so the terminal never shows half of it.
fn frame(terminal: &mut ratatui::DefaultTerminal, app: &App, theme: &Theme) -> std::io::Result<()> {
    let mut out = std::io::stdout();
    execute!(out, BeginSynchronizedUpdate)?;
    let drawn = terminal.draw(|f| draw(f, app, theme, SystemTime::now()));
    execute!(out, EndSynchronizedUpdate)?;
    out.flush()?;
    drawn.map(|_| ())
}

/// How often the chart's candles are fetched again.
const CANDLE_REFRESH: Duration = Duration::from_secs(20);
/// Candles a chart can use at most (one a column).
const CANDLE_COUNT: u64 = 200;

fn spawn_candles(
    http: &ExchangeHttp,
    app: &App,
    (id, interval): (u32, &'static str),
    tx: mpsc::Sender<crate::feed::market::MarketEvent>,
) {
    use crate::client::market::candles;
    use crate::feed::market::{MarketEvent, Source};
    let Some(symbol) = app
        .trading
        .as_ref()
        .and_then(|s| s.market_by_id(id))
        .map(|m| m.symbol.clone())
    else {
        return;
    };
    let http = http.clone();
    tokio::spawn(async move {
        let now_ms = crate::clock::now_unix_ms();
        let event = match candles(&http, &symbol, interval, CANDLE_COUNT, now_ms).await {
            Ok(candles) => MarketEvent::Candles {
                instrument_id: id,
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
