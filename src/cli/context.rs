//! The global flags and the config file, turned into the `Context` every command runs with.

use std::path::PathBuf;

use clap::Args;

use crate::client::{ExchangeHttp, HttpConfig};
use crate::config::{self, FileConfig};

use super::output::CliError;
use super::session;

/// The flags every command takes (before or after its name).
#[derive(Debug, Args)]
pub(crate) struct GlobalArgs {
    /// Print JSON for programs instead of tables (errors too).
    #[arg(long, global = true)]
    pub json: bool,
    /// Exchange origin.
    #[arg(long, global = true, env = "PAPERTRADE_API_URL", value_name = "URL")]
    pub api: Option<String>,
    /// Hyperliquid info endpoint for marks and candles.
    #[arg(
        long = "info-url",
        global = true,
        env = "PAPERTRADE_INFO_URL",
        value_name = "URL"
    )]
    pub info_url: Option<String>,
    /// HyperEVM JSON-RPC endpoint (a deposit verifies its proxy there).
    #[arg(
        long = "rpc-url",
        global = true,
        env = "PAPERTRADE_RPC_URL",
        value_name = "URL"
    )]
    pub rpc_url: Option<String>,
    /// Directory for keys, nonces, the audit log and logs.
    #[arg(
        long = "data-dir",
        global = true,
        env = "PAPERTRADE_TUI_DATA_DIR",
        value_name = "DIR"
    )]
    pub data_dir: Option<PathBuf>,
    /// The wallet (owner) this client trades for.
    #[arg(long, global = true, env = "PAPERTRADE_TUI_OWNER", value_name = "0x…")]
    pub owner: Option<String>,
    /// Where the session key lives: keyring (OS keyring) or keystore (encrypted file).
    #[arg(long = "key-backend", global = true, value_name = "keyring|keystore")]
    pub key_backend: Option<String>,
    /// Read-only on any wallet: the terminal UI or `positions`; nothing can be signed.
    #[arg(long, global = true, value_name = "0x…")]
    pub watch: Option<String>,
}

/// Everything a command needs from the environment.
pub struct Context {
    pub json: bool,
    pub http: ExchangeHttp,
    pub data_dir: PathBuf,
    /// `--owner` or config `owner`, validated when a command needs it.
    pub owner: Option<String>,
    /// `--key-backend` or config `key_backend`.
    pub key_backend: Option<String>,
    /// `--watch`: the wallet read read-only; with it set, signing is locked process-wide.
    pub watch: Option<alloy_primitives::Address>,
    /// The config file's `[ui]`.
    pub ui: crate::config::UiConfig,
    /// How long each kind of intent stays valid (`[deadlines]`).
    pub deadlines: crate::protocol::order::Deadlines,
    /// The config file's `[alerts]`.
    pub alerts: crate::config::AlertsConfig,
    /// The config file's `[poll]` rates.
    pub rates: crate::events::market::PollRates,
}

impl Context {
    /// The context `global` and the config file give, and the log's guard (keep it for the
    /// run). `watch` is the `--watch` wallet, already checked against the command. The data
    /// dir is checked before anything is written to it (the log first): an unusable or
    /// world-writable one is refused here, the same way for every command.
    pub(crate) fn load(
        global: GlobalArgs,
        watch: Option<alloy_primitives::Address>,
    ) -> Result<(Context, Option<tracing_appender::non_blocking::WorkerGuard>), CliError> {
        let file = FileConfig::load().map_err(|e| CliError::Config(e.to_string()))?;
        let api = global
            .api
            .or(file.api_url)
            .unwrap_or_else(|| config::DEFAULT_API_URL.to_string());
        let info = global
            .info_url
            .or(file.info_url)
            .unwrap_or_else(|| config::DEFAULT_INFO_URL.to_string());
        config::check_url(&api).map_err(|m| CliError::input("api", m))?;
        config::check_url(&info).map_err(|m| CliError::input("info-url", m))?;
        let rpc = global
            .rpc_url
            .or(file.rpc_url)
            .unwrap_or_else(|| config::DEFAULT_RPC_URL.to_string());
        config::check_url(&rpc).map_err(|m| CliError::input("rpc-url", m))?;
        let data_dir = match (global.data_dir, file.data_dir) {
            (Some(given), _) => {
                config::resolve_data_dir(&given, false).map_err(CliError::Environment)?
            }
            (None, Some(given)) => {
                config::resolve_data_dir(&given, true).map_err(CliError::Config)?
            }
            (None, None) => config::default_data_dir(),
        };
        crate::store::private_files::ensure_data_dir(&data_dir)
            .map_err(|e| CliError::Environment(e.to_string()))?;
        let log_guard = crate::logging::init(&data_dir);
        // Checked whether or not the command stores a key: a typo is never silently ignored.
        if let Some(b) = &global.key_backend {
            session::backend(b).map_err(|m| CliError::input("key-backend", m))?;
        } else if let Some(b) = &file.key_backend {
            session::backend(b).map_err(|m| CliError::Config(format!("config key_backend {m}")))?;
        }
        let key_backend = global.key_backend.or(file.key_backend);
        let ctx = Context {
            json: global.json,
            http: ExchangeHttp::new(&api, &info, HttpConfig::default()).with_rpc_url(&rpc),
            data_dir,
            owner: global.owner.or(file.owner),
            key_backend,
            watch,
            ui: file.ui,
            // Checked when the file was read.
            deadlines: file.deadlines.deadlines().map_err(CliError::Config)?,
            alerts: file.alerts,
            rates: crate::events::market::PollRates::or_default(
                file.poll.and_then(|p| p.markets()),
                file.poll.and_then(|p| p.protocol()),
            ),
        };
        Ok((ctx, log_guard))
    }
}
