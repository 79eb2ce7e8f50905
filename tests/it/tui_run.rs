//! The real UI event loop in-process: the `Setup` the CLI builds, run by `tui::run_loop` on a
//! `TestBackend` with keys from a channel, against whatever exchange the context points at.
//! Each frame the loop draws is published, so a test waits for what it expects to see — woken
//! by the frame that shows it, failing with the screen when it never comes.

use std::io;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::screen::text;
use alloy_primitives::Address;
use futures::channel::mpsc::{UnboundedSender, unbounded};
use papertrade_tui::app::Mode;
use papertrade_tui::cli::{Context, PrefillArgs, ui_prepare, ui_setup};
use papertrade_tui::client::{ExchangeHttp, HttpConfig};
use papertrade_tui::events::market::PollRates;
use papertrade_tui::keys::KeyMeta;
use papertrade_tui::protocol::eip712::SessionSigner;
use papertrade_tui::tui::{Screen, Setup, run_loop};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::layout::Rect;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The terminal size of the pseudo-terminal tests and the README's screenshots.
const SIZE: (u16, u16) = (120, 40);
/// Long enough for a signed intent to settle on a slow machine; only a failing test waits it out.
const PATIENCE: Duration = Duration::from_secs(15);

/// The CLI's context for an exchange at `api`/`info`, the default `[ui]` config and a keystore.
pub fn context(api: &str, info: &str, data_dir: &Path, owner: Option<Address>) -> Context {
    Context {
        json: false,
        http: ExchangeHttp::new(api, info, HttpConfig::default()),
        data_dir: data_dir.to_path_buf(),
        owner: owner.map(|o| format!("{o:#x}")),
        key_backend: Some("keystore".into()),
        watch: None,
        ui: Default::default(),
        deadlines: Default::default(),
        alerts: Default::default(),
        rates: PollRates::default(),
    }
}

/// The UI the command line opens for `ctx` (watching, or live with a key whose passphrase is in
/// the environment), with no prefill and the default poll rates.
pub async fn prepare(ctx: &Context) -> Setup {
    ui_prepare(ctx, &PrefillArgs::default())
        .await
        .unwrap_or_else(|e| panic!("the UI's setup: {e:?}"))
}

/// The UI the command line opens for `wallet` in `mode` with `session` already unlocked (a test
/// cannot hand a passphrase to `prepare`: the environment is the whole process's).
pub fn setup(
    ctx: &Context,
    mode: Mode,
    wallet: Address,
    session: Option<(SessionSigner, KeyMeta)>,
) -> Setup {
    ui_setup(ctx, mode, wallet, session, &PrefillArgs::default())
        .unwrap_or_else(|e| panic!("the UI's setup: {e:?}"))
}

/// A running UI loop.
pub struct Ui {
    keys: UnboundedSender<io::Result<Event>>,
    frames: watch::Receiver<Buffer>,
    /// How many frames the loop has drawn.
    drawn: Arc<AtomicUsize>,
    task: JoinHandle<io::Result<()>>,
}

/// The test's screen: draws like a plain terminal, publishes each frame and counts them.
struct Published {
    terminal: Terminal<TestBackend>,
    frames: watch::Sender<Buffer>,
    drawn: Arc<AtomicUsize>,
}

impl Screen for Published {
    fn frame(&mut self, render: &mut dyn FnMut(&mut ratatui::Frame)) -> io::Result<()> {
        self.terminal.frame(render)?;
        self.drawn.fetch_add(1, Ordering::SeqCst);
        self.frames
            .send_replace(self.terminal.backend().buffer().clone());
        Ok(())
    }
}

impl Ui {
    /// Start the loop on the current runtime.
    pub fn start(setup: Setup) -> Self {
        let (width, height) = SIZE;
        let terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        let (frames_tx, frames) = watch::channel(Buffer::empty(Rect::new(0, 0, width, height)));
        let (keys, key_rx) = unbounded();
        let drawn = Arc::new(AtomicUsize::new(0));
        let task = tokio::spawn({
            let drawn = drawn.clone();
            async move {
                let mut screen = Published {
                    terminal,
                    frames: frames_tx,
                    drawn,
                };
                run_loop(setup, &mut screen, key_rx).await
            }
        });
        Self {
            keys,
            frames,
            drawn,
            task,
        }
    }

    /// How many frames the loop has drawn so far.
    pub fn frames_drawn(&self) -> usize {
        self.drawn.load(Ordering::SeqCst)
    }

    /// Wait until no frame has been drawn for `quiet` (the first answers of every read are
    /// in); the screen then. Fails if the UI never goes quiet.
    pub async fn settle(&mut self, quiet: Duration) -> String {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            self.frames.borrow_and_update();
            match tokio::time::timeout(quiet, self.frames.changed()).await {
                Err(_) => return self.screen(),
                Ok(Err(_)) => panic!(
                    "the UI loop ended; the screen:
{}",
                    self.screen()
                ),
                Ok(Ok(())) if tokio::time::Instant::now() > deadline => panic!(
                    "the UI kept drawing for {PATIENCE:?}; the screen:
{}",
                    self.screen()
                ),
                Ok(Ok(())) => {}
            }
        }
    }

    /// Press each key in turn (`KeyCode`s or `KeyEvent`s).
    pub fn send_keys<K: Into<KeyEvent>>(&self, keys: impl IntoIterator<Item = K>) {
        for key in keys {
            // The loop may have ended; `wait_for` and `quit` say so with the screen.
            let _ = self.keys.unbounded_send(Ok(Event::Key(key.into())));
        }
    }

    /// Type `text`, one key a character.
    pub fn type_text(&self, text: &str) {
        self.send_keys(text.chars().map(KeyCode::Char));
    }

    /// The last frame, one line a row, trailing blanks trimmed.
    pub fn screen(&self) -> String {
        text(&self.frames.borrow())
    }

    /// Wait until a frame shows `text`; the screen that did.
    pub async fn wait_for_text(&mut self, text: &str) -> String {
        self.wait(&format!("{text:?}"), |s| s.contains(text)).await
    }

    /// Wait until a frame is `ready`; the screen that was.
    pub async fn wait_for(&mut self, ready: impl Fn(&str) -> bool) -> String {
        self.wait("the condition", ready).await
    }

    async fn wait(&mut self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let screen = text(&self.frames.borrow_and_update());
            if ready(&screen) {
                return screen;
            }
            match tokio::time::timeout_at(deadline, self.frames.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => panic!("the UI loop ended before {what}; the last screen:\n{screen}"),
                Err(_) => panic!("{what} never appeared in {PATIENCE:?}; the screen:\n{screen}"),
            }
        }
    }

    /// Press `q` and wait for the loop to end; what it returned.
    pub async fn quit(self) -> io::Result<()> {
        self.type_text("q");
        let screen = self.screen();
        tokio::time::timeout(Duration::from_secs(3), self.task)
            .await
            .unwrap_or_else(|_| panic!("q did not end the loop within 3 s; the screen:\n{screen}"))
            .expect("the UI loop panicked")
    }
}
