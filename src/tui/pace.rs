//! When the loop draws and when it wakes: keys, resizes and the outcome of the user's own jobs
//! draw at once; feed updates at most `max_fps` a second; and nothing wakes the loop but events,
//! the next frame while a change waits to be drawn, and the next time the app says time alone
//! changes something (`App::next_wake`): idle is asleep.

use std::time::{Duration, SystemTime};

use ratatui::crossterm::event::{Event, KeyEventKind};
use tokio::time::Instant;

use crate::app::{App, Message};
use crate::ui::keymap::{action, mouse_action};

pub(super) struct Pace {
    frame_time: Duration,
    last_frame: Instant,
    /// Draw at the next chance, whatever the frame rate.
    now: bool,
}

impl Pace {
    pub(super) fn new(max_fps: u32) -> Self {
        Self {
            frame_time: Duration::from_millis(1000 / u64::from(max_fps.clamp(1, 60))),
            last_frame: Instant::now(),
            now: true,
        }
    }

    /// Whether to draw now, with `dirty` saying whether anything changed since the last frame.
    pub(super) fn due(&self, dirty: bool) -> bool {
        self.now || (dirty && self.last_frame.elapsed() >= self.frame_time)
    }

    pub(super) fn drawn(&mut self) {
        self.now = false;
        self.last_frame = Instant::now();
    }

    /// A terminal event as the message it asks for (keys and clicks beside each other, read
    /// in the state drawn `width` wide); a key or a resize is drawn at once.
    pub(super) fn translate(&mut self, app: &App, event: Event, width: u16) -> Option<Message> {
        let asked = match event {
            Event::Key(key) if key.kind == KeyEventKind::Press => {
                self.now = true;
                action(key)
            }
            Event::Resize(..) => {
                self.now = true;
                None
            }
            Event::Mouse(m) => {
                let asked = mouse_action(m, width, app.tab);
                self.now |= asked.is_some();
                asked
            }
            _ => None,
        };
        asked.map(Message::Action)
    }

    /// A message arrived: the outcome of something the user did is drawn at once.
    pub(super) fn arrived(&mut self, message: &Message) {
        if matches!(
            message,
            Message::Submitted(_) | Message::KeyDone(_) | Message::FundDone(_)
        ) {
            self.now = true;
        }
    }

    /// When the loop must wake though nothing arrives: the next frame while a change waits to
    /// be drawn, and the next time the app says time alone changes something.
    pub(super) fn wake_at(&self, app: &App) -> Option<Instant> {
        [
            app.dirty.then(|| self.last_frame + self.frame_time),
            app.next_wake().map(|at| {
                Instant::now() + at.duration_since(SystemTime::now()).unwrap_or_default()
            }),
        ]
        .into_iter()
        .flatten()
        .min()
    }
}

/// Sleep until `at` (or forever); the time then, for the app.
pub(super) async fn tick_at(at: Option<Instant>) -> Message {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
    Message::Tick(SystemTime::now())
}
