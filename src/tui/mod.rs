//! The terminal runtime: one loop that takes keys first, folds what the workers sent on the one
//! inbox into `App`, and draws only when something changed (`pace`: keys at once, feed updates
//! at most `max_fps` a second), sleeping in between: no timer of the loop's runs while nothing
//! changes (see `App::next_wake`). What the app asks for is carried out by `effects`; what it
//! declares it needs read is kept running by `reads`. The loop runs over any [`Screen`] and any
//! stream of terminal events; [`run`] gives it the real terminal, each frame wrapped in
//! synchronized output, restored on exit, error and panic.

mod effects;
mod explore;
mod frames;
mod fund;
mod key_setup;
mod pace;
mod reads;
mod submit;
mod tasks;

use std::io::{self, Write};
use std::path::PathBuf;
use std::time::SystemTime;

use futures::{Stream, StreamExt};
use ratatui::backend::Backend;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{DisableMouseCapture, EnableMouseCapture, Event, EventStream};
use ratatui::crossterm::execute;
use ratatui::{Frame, Terminal};
use tokio::sync::mpsc;

use crate::app::App;
use crate::client::ExchangeHttp;
use crate::events::market::PollRates;
use crate::keys::KeyMeta;
use crate::protocol::eip712::SessionSigner;
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

/// Run the UI on the process's terminal until the user quits or `stop` ends (a SIGTERM from a
/// service manager or `kill`): either way the terminal is restored, never left in raw mode on
/// the alternate screen.
pub(crate) async fn run(setup: Setup, stop: impl Future<Output = ()>) -> io::Result<()> {
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
        tokio::select! {
            result = run_loop(setup, &mut screen, EventStream::new()) => result,
            () = stop => Ok(()),
        }
    }
    .await;
    if mouse {
        let _ = execute!(io::stdout(), DisableMouseCapture);
    }
    ratatui::restore();
    result
}

/// The event loop over any screen and any stream of terminal events, until the user quits or
/// the events end: network tasks start here and stop when it returns. Terminal events come
/// first; then whatever the workers sent, folded as one batch and drawn once; then the wake-up
/// the app asked for. The loop changes no state itself and reads no clock for a message.
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
    // The market reads' periods are the app's to declare.
    app.poll = rates;
    let (inbox_tx, mut inbox) = mpsc::channel(INBOX);
    let means = effects::Means {
        http,
        session: session.map(|(key, _)| key),
        data_dir,
        deadlines,
        keys,
        wallet: app.wallet,
    };
    let (mut runner, mut batch) = effects::Runner::start(means, inbox_tx);
    let mut pace = pace::Pace::new(max_fps);
    let mut width = 0u16;
    loop {
        for message in batch.drain(..) {
            for effect in app.handle(message) {
                if let effects::Flow::Quit = runner.run(effect, screen) {
                    return Ok(());
                }
            }
        }
        runner.reads.follow(app.reads());
        if pace.due(app.dirty) {
            screen.frame(&mut |f| {
                // The tab bar's labels depend on the width: a click is read at the drawn one.
                width = f.area().width;
                draw(f, &app, &theme, SystemTime::now())
            })?;
            app.dirty = false;
            pace.drawn();
        }
        let wake = pace.wake_at(&app);
        tokio::select! {
            biased;
            event = terminal_events.next() => match event {
                Some(Ok(event)) => batch.extend(pace.translate(&app, event, width)),
                Some(Err(e)) => return Err(e),
                None => return Ok(()),
            },
            Some(first) = inbox.recv() => {
                // What arrived together (a poll's answers) is folded together, then drawn once.
                pace.arrived(&first);
                batch.push(first);
                while let Ok(next) = inbox.try_recv() {
                    pace.arrived(&next);
                    batch.push(next);
                }
            }
            tick = pace::tick_at(wake) => batch.push(tick),
        }
    }
}

/// How many messages may wait for the loop.
const INBOX: usize = 256;
