//! The runtime's hands: everything `App::handle` asks for (`Effect`) is carried out here, by the
//! workers this runner owns — the submitter, the session-key and Fund workers, the exploring
//! panes' reader, the audit log and the wallet's history file. Nothing here waits on the
//! network: each job is a task whose answer comes back as a `Message` on the one inbox, stamped
//! by the task that received it.

use std::path::PathBuf;
use std::time::SystemTime;

use alloy_primitives::Address;
use tokio::sync::mpsc;

use crate::app::fund::FundOutcome;
use crate::app::key_setup::KeyOutcome;
use crate::app::{Effect, Message, SubmitOutcome};
use crate::client::ExchangeHttp;
use crate::client::intents::record_fate;
use crate::client::live_account::LateFates;
use crate::client::stream::{StreamConfig, spawn_stamped_account_stream};
use crate::keys::SessionKeys;
use crate::protocol::eip712::SessionSigner;
use crate::protocol::order::Deadlines;
use crate::store::history::HistoryFile;
use crate::store::ledger::AuditLog;

use super::Screen;
use super::fund::FundWorker;
use super::key_setup::KeyWorker;
use super::reads::Reads;
use super::submit::Submitter;
use super::tasks::Task;

/// What the runner works with, from the `Setup`.
pub(super) struct Means {
    pub http: ExchangeHttp,
    /// The session key; `None` in watch mode.
    pub session: Option<SessionSigner>,
    pub data_dir: PathBuf,
    pub deadlines: Deadlines,
    /// Where the session key is stored; `None` in watch mode.
    pub keys: Option<SessionKeys>,
    /// The wallet this session trades or watches.
    pub wallet: Option<Address>,
}

/// Whether the loop goes on after an effect.
pub(super) enum Flow {
    Go,
    Quit,
}

pub(super) struct Runner {
    inbox: mpsc::Sender<Message>,
    submitter: Submitter,
    /// `None` in watch mode: no key store, and so nothing for the owner to sign either.
    key_worker: Option<KeyWorker>,
    fund_worker: Option<FundWorker>,
    /// The reads the app declares, each a task.
    pub(super) reads: Reads,
    audit: AuditLog,
    history: Option<HistoryFile>,
    /// The wallet's account stream, stopped with the runner.
    _stream: Option<Task>,
}

impl Runner {
    /// The workers, and the wallet's account stream started; the first messages to fold (what
    /// the history file holds, then the time, so the app can ask for what it needs).
    pub(super) fn start(means: Means, inbox: mpsc::Sender<Message>) -> (Self, Vec<Message>) {
        let Means {
            http,
            session,
            data_dir,
            deadlines,
            keys,
            wallet,
        } = means;
        let submitter = Submitter::new(http.clone(), session, wallet, &data_dir, deadlines);
        let key_worker = keys.zip(wallet).map(|(keys, owner)| {
            KeyWorker::new(
                http.clone(),
                &data_dir,
                owner,
                keys,
                deadlines,
                submitter.clone(),
            )
        });
        let fund_worker = key_worker
            .as_ref()
            .and(wallet)
            .map(|owner| FundWorker::new(http.clone(), &data_dir, owner, deadlines));
        // Intents earlier commands of this data dir signed but stopped waiting for: their fates
        // are appended to the audit log as the stream shows them.
        let stream = wallet.map(|w| {
            let mut late = LateFates::new(&data_dir, w);
            Task(spawn_stamped_account_stream(
                http.clone(),
                w,
                StreamConfig::default(),
                inbox.clone(),
                move |event, at| {
                    late.see(&event);
                    Message::Stream(event, at)
                },
            ))
        });
        // The wallet's history file, read once here (bounded) and appended to as closes arrive.
        let mut history = wallet.map(|w| HistoryFile::new(&data_dir, w));
        let loaded = history.as_mut().map(HistoryFile::load).unwrap_or_default();
        let runner = Self {
            reads: Reads::new(http, inbox.clone()),
            inbox,
            submitter,
            key_worker,
            fund_worker,
            audit: AuditLog::new(&data_dir),
            history,
            _stream: stream,
        };
        let first = vec![
            Message::HistoryLoaded(loaded),
            Message::Tick(SystemTime::now()),
        ];
        (runner, first)
    }

    /// Carry out one effect.
    pub(super) fn run(&mut self, effect: Effect, screen: &mut impl Screen) -> Flow {
        match effect {
            Effect::Quit => return Flow::Quit,
            Effect::Submit { order, what } => self.submitter.spawn(order, what, self.inbox.clone()),
            Effect::RecordFate(id, resolution) => record_fate(&self.audit, id, &resolution),
            Effect::RecordHistory(trade) => {
                if let Some(Err(e)) = self.history.as_mut().map(|h| h.append(&trade)) {
                    // Said like any other outcome of the runtime's work.
                    self.say(format!("history not saved: {e}"));
                }
            }
            // A notification that cannot be written is not worth stopping for.
            Effect::Notify(notice) => {
                let _ = screen.notify(&crate::ui::notify::bytes(&notice));
            }
            Effect::Fund(job) => match &self.fund_worker {
                Some(w) => w.spawn(job, self.inbox.clone()),
                None => self.answer(Message::FundDone(FundOutcome::Failed(
                    "watch mode is read-only: nothing can be signed".into(),
                ))),
            },
            Effect::Key(job) => match &self.key_worker {
                Some(w) => w.spawn(job, self.inbox.clone()),
                None => self.answer(Message::KeyDone(KeyOutcome::Failed(
                    "no key store in this session (watch mode)".into(),
                ))),
            },
        }
        Flow::Go
    }

    /// An error of the runtime's own work, in the message log.
    fn say(&self, text: String) {
        self.answer(Message::Submitted(SubmitOutcome {
            toasts: vec![(text, true)],
            ..Default::default()
        }));
    }

    /// An answer known at once, folded with the next batch.
    fn answer(&self, message: Message) {
        let _ = self.inbox.try_send(message);
    }
}
