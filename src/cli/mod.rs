//! The command line: clap definitions and the scriptable (non-TUI) commands.

mod account;
mod args;
mod explorer;
mod funding;
mod interactive;
mod key;
mod liquidations;
mod markets;
mod output;
mod protocol_views;
mod quote;
mod reprint;
mod session;
mod shell;
mod simulator;
mod trade;
mod typed_data;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::client::{ExchangeHttp, HttpConfig};
use crate::config::{self, FileConfig};

pub use interactive::{prepare as ui_prepare, setup as ui_setup};
pub(crate) use output::CliError;

#[derive(Debug, Parser)]
#[command(
    name = "papertrade-tui",
    version,
    about = "Trade Papertrade perps from a terminal (unofficial). 1000x leverage can lose the whole margin.",
    propagate_version = true
)]
pub(crate) struct Cli {
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
    #[command(flatten)]
    pub prefill: PrefillArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Prefill the UI's ticket, like the browser terminal's deep links: invalid values are
/// dropped one by one with a note; nothing is signed until confirmed.
#[derive(Debug, Args, Default)]
pub struct PrefillArgs {
    #[arg(long = "market", value_name = "SYMBOL")]
    pub market: Option<String>,
    #[arg(long = "side", value_name = "long|short")]
    pub side: Option<String>,
    #[arg(long = "margin", value_name = "USD")]
    pub margin: Option<String>,
    #[arg(long = "leverage", value_name = "N")]
    pub leverage: Option<String>,
    /// A browser terminal link (`…/?market=BTC&side=long&margin=50&leverage=10`, as
    /// `build_trade_plan` returns): its values prefill the ticket under a review banner.
    #[arg(long = "link", value_name = "URL", conflicts_with_all = ["market", "side", "margin", "leverage"])]
    pub link: Option<String>,
}

impl PrefillArgs {
    fn is_given(&self) -> bool {
        self.link.is_some()
            || self.market.is_some()
            || self.side.is_some()
            || self.margin.is_some()
            || self.leverage.is_some()
    }

    /// The ticket these flags or this link fill, the notes of what a link dropped, and where
    /// it came from; `None` when nothing is prefilled. An unreadable link is bad input.
    pub fn ticket(
        &self,
    ) -> Result<
        Option<(
            crate::report::deep_link::LinkTicket,
            Vec<String>,
            crate::app::Prefilled,
        )>,
        CliError,
    > {
        if let Some(link) = &self.link {
            let (ticket, notes) = crate::report::deep_link::parse(link)?;
            return Ok(Some((ticket, notes, crate::app::Prefilled::Link)));
        }
        let ticket = crate::report::deep_link::LinkTicket {
            market: self.market.clone(),
            side: self.side.clone(),
            margin: self.margin.clone(),
            leverage: self.leverage.clone(),
        };
        Ok((!ticket.is_empty()).then_some((ticket, Vec::new(), crate::app::Prefilled::Flags)))
    }
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Every market: mark, status, leverage and size limits, open interest and caps, minimums, fee.
    Markets,
    /// Quote an open: bust price, whether the relayer would accept it, and what a close pays.
    Quote(QuoteArgs),
    /// Bust price, distance and validity at every leverage step for one margin.
    Ladder(LadderArgs),
    /// What closing a position pays at an exit (default: the live mark).
    CloseQuote(CloseQuoteArgs),
    /// The unsigned EIP-712 payload of an intent: domain, types, message, digest, wallet request.
    TypedData(TypedDataArgs),
    /// The session key: create, register with the owner's signature, show, clear; a practice owner.
    #[command(subcommand)]
    Key(KeyCommand),
    /// Positions, pending intents and balances of an account (read-only with --watch).
    Positions(PositionsArgs),
    /// Open a position (signed by the session key after the open checks and a confirmation).
    Open(OpenArgs),
    /// Close positions (batches of 12 ids, each its own intent).
    Close(CloseArgs),
    /// Cancel a queued intent.
    Cancel(CancelArgs),
    /// Deposit USDC from the owner's HyperCore spot account (a spotSend signed by the owner's wallet).
    Deposit(DepositArgs),
    /// Withdraw USDC to the owner's HyperCore spot account (signed by the owner's wallet).
    Withdraw(WithdrawArgs),
    /// Run the local exchange simulator (a strict Papertrade on loopback) until Ctrl-C.
    Sim(SimArgs),
    /// Practice with no funds and no network: the simulator in-process and a funded throwaway wallet.
    Demo(DemoArgs),
    /// Ranked wallets for a window: nine sort keys, both directions, pages of 25, a name search.
    Leaderboard(explorer::LeaderboardArgs),
    /// Any wallet's balance sheet: balances, PAPER, lifetime figures, session keys, ranks.
    Wallet(explorer::WalletArgs),
    /// Any wallet's pending intents with their relayer queue rank.
    Intents(explorer::IntentsArgs),
    /// Where one intent id is: the trades feed, a wallet's queue and stream.
    Lookup(explorer::LookupArgs),
    /// One HyperEVM transaction: found, status, block, whether it is a Papertrade settlement batch.
    DecodeTx(explorer::DecodeTxArgs),
    /// Any wallet's closed and liquidated trades, newest first, paged (what can be derived).
    History(explorer::HistoryArgs),
    /// The protocol: TVL, LP, volume, PAPER, fees, each market's mark, OI and caps, history.
    Overview(protocol_views::OverviewArgs),
    /// The latest opens, closes and liquidations across traders.
    Trades(protocol_views::TradesArgs),
    /// Hyperliquid candles of a market, as data.
    Candles(protocol_views::CandlesArgs),
    /// Classify a string (address, intent id, position id, name) and resolve it.
    Search(explorer::SearchArgs),
    /// The top traders by windowed PnL.
    TopTraders(explorer::TopTradersArgs),
    /// PAPER minted for a loss basis at the current point of the mint curve.
    PaperMint(protocol_views::PaperMintArgs),
    /// Bust notional per price bucket around the mark, coverage, and the cascade of a % move.
    BustMap(liquidations::BustMapArgs),
    /// Open positions of the scanned wallets ranked by distance to their bust price.
    ClosestToBust(liquidations::ClosestArgs),
    /// The largest clusters of bust prices each side of the mark.
    BustClusters(liquidations::ClustersArgs),
    /// One wallet's positions with bust, distance and danger, and its account-level risk.
    WalletRisk(liquidations::WalletRiskArgs),
    /// The scan's bust prices over the whole range, regrouped onto a bucket size.
    LiquidationMap(liquidations::LiquidationMapArgs),
    /// Serve the seed MCP servers' read-only tools to an assistant over stdio, or Streamable HTTP
    /// with --http (nothing signs).
    Mcp(McpArgs),
    /// Open the terminal UI with a browser terminal link's ticket prefilled (nothing is signed
    /// until you confirm); the same as `--link URL`.
    OpenLink(OpenLinkArgs),
    /// Print the shell completion script (bash, zsh, fish, powershell or elvish) on stdout.
    Completions(shell::CompletionsArgs),
    /// Print the man page (roff) on stdout: the program's, or one subcommand's.
    Man(shell::ManArgs),
}

impl Command {
    /// The subcommand as typed, for messages.
    fn name(&self) -> &'static str {
        match self {
            Command::Markets => "markets",
            Command::Quote(_) => "quote",
            Command::Ladder(_) => "ladder",
            Command::CloseQuote(_) => "close-quote",
            Command::TypedData(_) => "typed-data",
            Command::Key(_) => "key",
            Command::Positions(_) => "positions",
            Command::Open(_) => "open",
            Command::Close(_) => "close",
            Command::Cancel(_) => "cancel",
            Command::Deposit(_) => "deposit",
            Command::Withdraw(_) => "withdraw",
            Command::Sim(_) => "sim",
            Command::Demo(_) => "demo",
            Command::Leaderboard(_) => "leaderboard",
            Command::Wallet(_) => "wallet",
            Command::Intents(_) => "intents",
            Command::Lookup(_) => "lookup",
            Command::DecodeTx(_) => "decode-tx",
            Command::History(_) => "history",
            Command::Overview(_) => "overview",
            Command::Trades(_) => "trades",
            Command::Candles(_) => "candles",
            Command::Search(_) => "search",
            Command::TopTraders(_) => "top-traders",
            Command::PaperMint(_) => "paper-mint",
            Command::BustMap(_) => "bust-map",
            Command::ClosestToBust(_) => "closest-to-bust",
            Command::BustClusters(_) => "bust-clusters",
            Command::WalletRisk(_) => "wallet-risk",
            Command::LiquidationMap(_) => "liquidation-map",
            Command::Mcp(_) => "mcp",
            Command::OpenLink(_) => "open-link",
            Command::Completions(_) => "completions",
            Command::Man(_) => "man",
        }
    }

    /// Whether `--watch` may stand with this command: `positions` reads the watched wallet, and
    /// the explorer's and the liquidation commands only ever read (they name their wallet themselves). Everything
    /// else is refused with it, so a read-only flag can never sit on a command that signs.
    fn reads_a_watched_wallet(&self) -> bool {
        matches!(
            self,
            Command::Positions(_)
                | Command::Leaderboard(_)
                | Command::Wallet(_)
                | Command::Intents(_)
                | Command::Lookup(_)
                | Command::DecodeTx(_)
                | Command::History(_)
                | Command::Overview(_)
                | Command::Trades(_)
                | Command::Candles(_)
                | Command::Search(_)
                | Command::TopTraders(_)
                | Command::PaperMint(_)
                | Command::BustMap(_)
                | Command::ClosestToBust(_)
                | Command::BustClusters(_)
                | Command::WalletRisk(_)
                | Command::OpenLink(_)
                | Command::LiquidationMap(_)
        )
    }
}

#[derive(Debug, Subcommand)]
pub(crate) enum KeyCommand {
    /// Generate a fresh session key for the owner and store it (keyring, else keystore file).
    New(NewKeyArgs),
    /// Register the session key: the owner's wallet signs RegisterSessionKey.
    Register(RegisterArgs),
    /// Show the session key: address, backend, local and registered expiry.
    Show,
    /// Remove the session key from wherever it is stored.
    Clear,
    /// For practice: generate an owner wallet and write it as a keystore file (a hot key on
    /// disk; for real funds use your own wallet). Needs no owner configured.
    OwnerNew(OwnerNewArgs),
}

#[derive(Debug, Args)]
pub(crate) struct OwnerNewArgs {
    /// Where to write the Web3 Secret Storage file (refused if anything is there); passphrase
    /// prompted twice or from PAPERTRADE_TUI_OWNER_PASSPHRASE.
    #[arg(long, value_name = "PATH")]
    pub keystore: PathBuf,
}

#[derive(Debug, Args)]
pub(crate) struct NewKeyArgs {
    /// Replace a stored key even if the exchange has it registered and unexpired (the new key
    /// then needs the owner's signature, `key register`, before it can trade).
    #[arg(long)]
    pub replace: bool,
}

/// How the owner's wallet signs (register, withdraw).
#[derive(Debug, Args)]
pub(crate) struct OwnerSigning {
    /// The owner's keystore file (Foundry/geth format); passphrase prompted or from
    /// PAPERTRADE_TUI_OWNER_PASSPHRASE.
    #[arg(
        long = "owner-keystore",
        value_name = "PATH",
        conflicts_with = "external"
    )]
    pub owner_keystore: Option<PathBuf>,
    /// Sign in your own wallet: print the eth_signTypedData_v4 JSON, read the signature from stdin.
    #[arg(long)]
    pub external: bool,
    /// Also write the typed data to this file (with --external).
    #[arg(long = "typed-data-out", value_name = "FILE")]
    pub typed_data_out: Option<PathBuf>,
}

/// How long a writing command follows the account stream for its intents' fate.
#[derive(Debug, Args, Clone, Copy)]
pub(crate) struct WaitArgs {
    /// Seconds to follow the account stream for the outcome before exiting 5 (still pending);
    /// 0 returns right after sending. Nothing is ever resent.
    #[arg(long = "wait", value_name = "SECS", default_value_t = 90,
          value_parser = clap::value_parser!(u64).range(0..=3600))]
    pub secs: u64,
}

impl WaitArgs {
    pub(crate) fn duration(self) -> std::time::Duration {
        std::time::Duration::from_secs(self.secs)
    }
}

#[derive(Debug, Args)]
pub(crate) struct RegisterArgs {
    #[command(flatten)]
    pub signing: OwnerSigning,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub(crate) struct PositionsArgs {
    /// Keep streaming changes until Ctrl-C.
    #[arg(long)]
    pub follow: bool,
}

#[derive(Debug, Args)]
pub(crate) struct OpenArgs {
    #[command(flatten)]
    pub position: MarketArgs,
    /// Whole-number leverage, 1 to the market maximum.
    #[arg(long, allow_hyphen_values = true)]
    pub leverage: String,
    /// Take the margin from the queued (owed) balance.
    #[arg(long = "use-debt")]
    pub use_debt: bool,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CloseArgs {
    /// Position ids to close.
    #[arg(
        value_name = "POSITION_ID",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    pub ids: Vec<String>,
    /// Close every open position.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CancelArgs {
    /// The queued intent's id (0x + 64 hex).
    #[arg(value_name = "INTENT_ID")]
    pub intent_id: String,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub(crate) struct DepositArgs {
    /// USDC to deposit (at least 10, at most 6 decimals); a 1 USDC activation fee comes on top
    /// the first time.
    #[arg(long)]
    pub amount: String,
    #[command(flatten)]
    pub signing: OwnerSigning,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub(crate) struct WithdrawArgs {
    /// USDC to withdraw (at least 10, at most 6 decimals).
    #[arg(long)]
    pub amount: String,
    #[command(flatten)]
    pub signing: OwnerSigning,
    #[command(flatten)]
    pub wait: WaitArgs,
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SimArgs {
    /// Address to listen on (loopback by default; any other needs --allow-remote).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Allow a --host other machines can reach: anyone who can connect can use the simulated
    /// exchange and, unless --no-controls, its /sim controls (fund wallets, move prices, post
    /// operator notices).
    #[arg(long)]
    pub allow_remote: bool,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8787)]
    pub port: u16,
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    /// Serve only the real API: no /sim/* practice controls.
    #[arg(long)]
    pub no_controls: bool,
}

#[derive(Debug, Args)]
pub(crate) struct EngineArgs {
    /// Seed of the price walk and the crowd: the same seed gives the same market.
    #[arg(long)]
    pub seed: Option<u64>,
    /// How long the relayer leaves an accepted intent queued before settling it (0 to 3600000:
    /// intents expire within the hour anyway).
    #[arg(
        long,
        default_value_t = 1500,
        value_parser = clap::value_parser!(u64).range(0..=crate::sim::engine::MAX_RELAYER_DELAY_MS)
    )]
    pub relayer_delay_ms: u64,
    /// Simulated traders besides you (0 to 1000); they start holding positions.
    #[arg(
        long,
        default_value_t = 300,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new()
            .range(0..=crate::sim::engine::MAX_CROWD as u64)
    )]
    pub crowd: usize,
    /// Account-stream heartbeat interval (100 to 60000).
    #[arg(
        long,
        default_value_t = 10_000,
        value_parser = clap::value_parser!(u64)
            .range(crate::sim::engine::MIN_HEARTBEAT_MS..=crate::sim::engine::MAX_HEARTBEAT_MS)
    )]
    pub heartbeat_ms: u64,
    /// Time moves only when POST /sim/clock says so (repeatable runs with --seed).
    #[arg(long)]
    pub manual_clock: bool,
    /// Hours of past the exchange starts with (0 to 1440): the crowd trades through them along
    /// the charted prices, so leaderboard windows, the trades feed and protocol history have
    /// shape from the start. 0: no past.
    #[arg(
        long,
        default_value_t = DEFAULT_WARMUP_HOURS,
        value_parser = clap::value_parser!(u64).range(0..=crate::sim::engine::MAX_WARMUP_MS / 3_600_000)
    )]
    pub warmup_hours: u64,
    /// How long the deposit sweeper takes to credit USDC sent to a deposit proxy (0 to 600000;
    /// the real one takes about a minute).
    #[arg(
        long,
        default_value_t = 3_000,
        value_parser = clap::value_parser!(u64).range(0..=crate::sim::engine::MAX_SWEEP_DELAY_MS)
    )]
    pub sweep_delay_ms: u64,
}

/// 32 days: past the 30-day window, so every leaderboard window (24h, 7d, 30d, all) differs.
const DEFAULT_WARMUP_HOURS: u64 = 32 * 24;

#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    #[command(flatten)]
    pub(crate) engine: EngineArgs,
    /// Starting balance of the demo wallet in USD.
    #[arg(long, default_value = "10000")]
    pub balance: String,
    /// The practice ticket, prefilled as the terminal UI's is.
    #[command(flatten)]
    pub prefill: PrefillArgs,
}

#[derive(Debug, Args)]
pub(crate) struct OpenLinkArgs {
    /// The browser terminal link, such as https://papertrade-terminal.pages.dev/?market=BTC&side=long&margin=50&leverage=10
    #[arg(value_name = "URL")]
    pub url: String,
}

#[derive(Debug, Args)]
pub(crate) struct MarketArgs {
    /// Market symbol or id (BTC, ETH, 0, 1).
    #[arg(long)]
    pub market: String,
    /// long or short.
    #[arg(long)]
    pub side: String,
    /// Margin in USD (at most 6 decimals).
    #[arg(long, allow_hyphen_values = true)]
    pub margin: String,
}

#[derive(Debug, Args)]
pub(crate) struct QuoteArgs {
    #[command(flatten)]
    pub position: MarketArgs,
    /// Whole-number leverage, 1 to 1000.
    #[arg(long, allow_hyphen_values = true)]
    pub leverage: String,
    /// Entry price in USD (default: the live mark; required with --offline).
    #[arg(long, allow_hyphen_values = true)]
    pub entry: Option<String>,
    /// One exit price in USD.
    #[arg(long, conflicts_with = "move_pct", allow_hyphen_values = true)]
    pub exit: Option<String>,
    /// One signed price move from entry in percent (0.1 is +0.1%).
    #[arg(long = "move", value_name = "PCT", allow_hyphen_values = true)]
    pub move_pct: Option<String>,
    /// Use the shipped launch parameters; no network.
    #[arg(long)]
    pub offline: bool,
}

#[derive(Debug, Args)]
pub(crate) struct LadderArgs {
    #[command(flatten)]
    pub position: MarketArgs,
    /// Entry price in USD (default: the live mark; required with --offline).
    #[arg(long, allow_hyphen_values = true)]
    pub entry: Option<String>,
    /// Use the shipped launch parameters; no network.
    #[arg(long)]
    pub offline: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CloseQuoteArgs {
    #[command(flatten)]
    pub position: MarketArgs,
    /// The position's leverage.
    #[arg(long, allow_hyphen_values = true)]
    pub leverage: String,
    /// The position's entry price in USD.
    #[arg(long, allow_hyphen_values = true)]
    pub entry: String,
    /// Exit price in USD (default: the live mark; required with --offline).
    #[arg(long, allow_hyphen_values = true)]
    pub exit: Option<String>,
    /// Use the shipped launch parameters; no network.
    #[arg(long)]
    pub offline: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TypedDataArgs {
    /// RegisterSessionKey, OpenPosition, Close, WithdrawToCore, Stake, Unstake, Claim or CancelIntent.
    #[arg(long = "type", value_name = "TYPE")]
    pub kind: String,
    /// The message as a JSON object; uints as decimal strings or numbers. nonce and deadline
    /// default when omitted.
    #[arg(long)]
    pub message: String,
    /// The address that will sign: adds the intent id to the output.
    #[arg(long)]
    pub signer: Option<String>,
    /// Warn about an open's market limits from the shipped launch parameters; no network.
    #[arg(long)]
    pub offline: bool,
}

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Expose only this seed server's tools, under exactly its names (repeatable; default: all).
    #[arg(long, value_name = "SEED",
          value_parser = clap::builder::PossibleValuesParser::new(crate::mcp::Seed::NAMES))]
    pub only: Vec<String>,
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (IP:PORT; port 0 picks one).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// With --http: allow an address other machines can reach (anyone who can connect can use
    /// the tools).
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
    /// With --http: calls per minute per client (source) address, a batch counting each of its
    /// messages; all clients together get five times this.
    #[arg(long, value_name = "N", requires = "http", default_value_t = crate::mcp::DEFAULT_RATE_PER_MINUTE,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub rate_per_minute: u32,
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
    pub rates: crate::client::market::PollRates,
}

/// Parse the command line, run the command, report any error; the process exit code.
pub fn main() -> ExitCode {
    let raw: Vec<String> = std::env::args().collect();
    let json = raw.iter().skip(1).any(|a| a == "--json");
    let cli = match Cli::try_parse_from(&raw) {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            if let Some(negative) = negative_value(&e, &raw) {
                return negative.report(json);
            }
            return CliError::Usage(one_line(&e)).report(json);
        }
    };
    // `mcp` over stdio owns stdout for the protocol: its errors go to stderr, as text.
    let protocol_on_stdout = matches!(&cli.command, Some(Command::Mcp(a)) if a.http.is_none());
    if let Err(e) = global_given_once(&raw) {
        return e.report(json && !protocol_on_stdout);
    }
    let code = match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => e.report(json && !protocol_on_stdout),
    };
    // A probe for tests (watch mode must construct no signer); says nothing secret.
    if std::env::var_os("PAPERTRADE_TUI_REPORT_SIGNERS").is_some() {
        eprintln!(
            "signers-constructed: {}",
            crate::protocol::eip712::signers_constructed()
        );
    }
    code
}

/// The global flags that take a value. clap refuses one given twice at the same level, but
/// takes the last silently when it stands before and after the subcommand
/// (`--watch A positions --watch B`): which wallet, which exchange was meant is a guess.
const GLOBAL_VALUE_FLAGS: [&str; 7] = [
    "--api",
    "--info-url",
    "--rpc-url",
    "--data-dir",
    "--owner",
    "--key-backend",
    "--watch",
];

/// Refuse a global flag given twice with different values (the same value twice is harmless).
fn global_given_once(raw: &[String]) -> Result<(), CliError> {
    for flag in GLOBAL_VALUE_FLAGS {
        let prefix = format!("{flag}=");
        let mut values: Vec<&str> = Vec::new();
        let mut args = raw.iter().skip(1).take_while(|a| *a != "--");
        while let Some(arg) = args.next() {
            if arg == flag {
                values.extend(args.next().map(String::as_str));
            } else if let Some(v) = arg.strip_prefix(&prefix) {
                values.push(v);
            }
        }
        if let Some(other) = values.iter().find(|v| v.trim() != values[0].trim()) {
            return Err(CliError::input(
                flag.trim_start_matches('-'),
                format!(
                    "is given twice with different values ({:?} and {:?}); give it once, \
                     nothing was done",
                    crate::text::sanitize_line(values[0], 60),
                    crate::text::sanitize_line(other, 60)
                ),
            ));
        }
    }
    Ok(())
}

/// A negative number given to a flag that takes none, said as that: clap reads `--amount -1` as
/// an unknown argument `-1`, and `--page -1` as a digit it cannot parse. No flag of this
/// program takes a negative number except those that parse their own (`--move`, prices).
fn negative_value(e: &clap::Error, raw: &[String]) -> Option<CliError> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let text = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let is_negative_number = |v: &str| {
        v.strip_prefix('-')
            .is_some_and(|n| n.parse::<f64>().is_ok())
    };
    let (flag, value) = match e.kind() {
        ErrorKind::UnknownArgument => {
            // clap names only the first "short flag" of `-10.5`: `-1`.
            let named = text(ContextKind::InvalidArg)?;
            let at = raw
                .iter()
                .skip(1)
                .position(|a| a.starts_with(&named) && is_negative_number(a))?
                + 1;
            let flag = raw.get(at - 1).filter(|f| f.starts_with("--"))?;
            (flag.trim_start_matches('-').to_string(), raw[at].clone())
        }
        ErrorKind::ValueValidation | ErrorKind::InvalidValue => {
            let value = text(ContextKind::InvalidValue)?;
            let arg = text(ContextKind::InvalidArg)?;
            let flag = arg
                .strip_prefix("--")?
                .split([' ', '='])
                .next()?
                .to_string();
            (flag, value)
        }
        _ => return None,
    };
    is_negative_number(&value).then(|| {
        CliError::input(
            &flag,
            format!(
                "cannot be negative, got {:?}",
                crate::text::sanitize_line(&value, 24)
            ),
        )
    })
}

/// clap's message in one line: the problem, the arguments it names, no usage block.
fn one_line(e: &clap::Error) -> String {
    let text = e.to_string();
    let mut lines = text.lines();
    let first = lines
        .next()
        .unwrap_or("invalid command line")
        .trim_start_matches("error: ");
    let named: Vec<&str> = lines
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .filter(|l| l.starts_with('-') || l.starts_with('<'))
        .collect();
    let first = first.trim_end_matches(':');
    if named.is_empty() {
        format!("{first} (see --help)")
    } else {
        format!("{first}: {} (see --help)", named.join(", "))
    }
}

fn run(cli: Cli) -> Result<(), CliError> {
    // Generated from the command line's definitions alone: no config is read and nothing is
    // written, so they work on a machine where nothing is set up yet (and in a package build).
    match cli.command {
        Some(Command::Completions(a)) => return shell::completions(a),
        Some(Command::Man(a)) => return shell::man(a),
        _ => {}
    }
    let file = FileConfig::load().map_err(|e| CliError::Config(e.to_string()))?;
    let api = cli
        .api
        .or(file.api_url)
        .unwrap_or_else(|| config::DEFAULT_API_URL.to_string());
    let info = cli
        .info_url
        .or(file.info_url)
        .unwrap_or_else(|| config::DEFAULT_INFO_URL.to_string());
    config::check_url(&api).map_err(|m| CliError::input("api", m))?;
    config::check_url(&info).map_err(|m| CliError::input("info-url", m))?;
    let rpc = cli
        .rpc_url
        .or(file.rpc_url)
        .unwrap_or_else(|| config::DEFAULT_RPC_URL.to_string());
    config::check_url(&rpc).map_err(|m| CliError::input("rpc-url", m))?;
    let data_dir = match (cli.data_dir, file.data_dir) {
        (Some(given), _) => config::resolve_data_dir(&given, false),
        (None, Some(given)) => config::resolve_data_dir(&given, true),
        (None, None) => Ok(config::default_data_dir()),
    }
    .map_err(CliError::Config)?;
    // Before anything is written to it (the log first): an unusable or world-writable data dir
    // is refused here, the same way for every command.
    crate::private_files::ensure_data_dir(&data_dir)
        .map_err(|e| CliError::Config(e.to_string()))?;
    let _log_guard = crate::logging::init(&data_dir);

    // `--watch` is read-only wherever it appears: it locks signing for the whole process before
    // anything else runs, and a command that would sign is refused outright.
    let watch = cli
        .watch
        .as_deref()
        .map(|w| args::address("watch", w))
        .transpose()?;
    // The prefill flags before a subcommand would be silently lost: they fill the UI's ticket.
    if let Some(command) = &cli.command
        && cli.prefill.is_given()
    {
        return Err(CliError::input(
            if cli.prefill.link.is_some() {
                "link"
            } else {
                "market"
            },
            format!(
                "and the other prefill flags fill the terminal UI's ticket and cannot stand before `{}`; \
                 for practice put them after `demo`, nothing was done",
                command.name()
            ),
        ));
    }
    if watch.is_some() {
        if let Some(command) = &cli.command
            && !command.reads_a_watched_wallet()
        {
            return Err(CliError::input(
                "watch",
                format!(
                    "is read-only and applies to the terminal UI, `positions` and the \
                     explorer's and liquidation read-only commands only; `{}` cannot be combined with it, \
                     nothing was done",
                    command.name()
                ),
            ));
        }
        crate::protocol::eip712::lock_read_only();
    }
    // Checked whether or not the command stores a key: a typo is never silently ignored.
    if let Some(b) = &cli.key_backend {
        session::backend(b).map_err(|m| CliError::input("key-backend", m))?;
    } else if let Some(b) = &file.key_backend {
        session::backend(b).map_err(|m| CliError::Config(format!("config key_backend {m}")))?;
    }
    let key_backend = cli.key_backend.or(file.key_backend);
    let ctx = Context {
        json: cli.json,
        http: ExchangeHttp::new(&api, &info, HttpConfig::default()).with_rpc_url(&rpc),
        data_dir,
        owner: cli.owner.or(file.owner),
        key_backend,
        watch,
        ui: file.ui,
        // Checked when the file was read.
        deadlines: file.deadlines.deadlines().map_err(CliError::Config)?,
        alerts: file.alerts,
        rates: crate::client::market::PollRates::or_default(
            file.poll.and_then(|p| p.markets()),
            file.poll.and_then(|p| p.protocol()),
        ),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let Some(command) = cli.command else {
        return runtime.block_on(interactive::run(&ctx, &cli.prefill));
    };
    tracing::info!(?command, api, "command");
    runtime.block_on(async {
        match command {
            Command::Markets => markets::run(&ctx).await,
            Command::Quote(a) => quote::quote(&ctx, a).await,
            Command::Ladder(a) => quote::ladder(&ctx, a).await,
            Command::CloseQuote(a) => quote::close_quote(&ctx, a).await,
            Command::TypedData(a) => typed_data::run(&ctx, a).await,
            Command::Key(k) => key::run(&ctx, k).await,
            Command::Positions(a) => account::positions(&ctx, a).await,
            Command::Open(a) => trade::open(&ctx, a).await,
            Command::Close(a) => trade::close(&ctx, a).await,
            Command::Cancel(a) => trade::cancel(&ctx, a).await,
            Command::Deposit(a) => funding::deposit(&ctx, a).await,
            Command::Withdraw(a) => trade::withdraw(&ctx, a).await,
            Command::Sim(a) => simulator::sim(&ctx, a).await,
            Command::Demo(a) => simulator::demo(&ctx, a).await,
            Command::Leaderboard(a) => explorer::leaderboard(&ctx, a).await,
            Command::Wallet(a) => explorer::wallet(&ctx, a).await,
            Command::Intents(a) => explorer::intents(&ctx, a).await,
            Command::Lookup(a) => explorer::lookup(&ctx, a).await,
            Command::DecodeTx(a) => explorer::decode_tx(&ctx, a).await,
            Command::History(a) => explorer::history(&ctx, a).await,
            Command::Overview(a) => protocol_views::overview(&ctx, a).await,
            Command::Trades(a) => protocol_views::trades(&ctx, a).await,
            Command::Candles(a) => protocol_views::candles(&ctx, a).await,
            Command::Search(a) => explorer::search(&ctx, a).await,
            Command::TopTraders(a) => explorer::top_traders(&ctx, a).await,
            Command::PaperMint(a) => protocol_views::paper_mint(&ctx, a).await,
            Command::BustMap(a) => liquidations::bust_map(&ctx, a).await,
            Command::ClosestToBust(a) => liquidations::closest_to_bust(&ctx, a).await,
            Command::BustClusters(a) => liquidations::bust_clusters(&ctx, a).await,
            Command::WalletRisk(a) => liquidations::wallet_risk(&ctx, a).await,
            Command::LiquidationMap(a) => liquidations::liquidation_map(&ctx, a).await,
            Command::Mcp(a) => mcp(&ctx, a).await,
            Command::OpenLink(a) => {
                let prefill = PrefillArgs {
                    link: Some(a.url),
                    ..PrefillArgs::default()
                };
                interactive::run(&ctx, &prefill).await
            }
            Command::Completions(a) => shell::completions(a),
            Command::Man(a) => shell::man(a),
        }
    })
}

/// `mcp`: the assistants' server on stdio until the client hangs up, or over HTTP until Ctrl-C
/// or SIGTERM. Read-only by construction (no tool reaches a signer), so signing is locked for
/// the whole process too.
async fn mcp(ctx: &Context, a: McpArgs) -> Result<(), CliError> {
    crate::protocol::eip712::lock_read_only();
    let only: Vec<crate::mcp::Seed> = a
        .only
        .iter()
        .filter_map(|s| crate::mcp::Seed::parse(s))
        .collect();
    let reads = crate::mcp::Reads {
        http: ctx.http.clone(),
        data_dir: ctx.data_dir.clone(),
        deadlines: ctx.deadlines,
    };
    let Some(http) = a.http else {
        return crate::mcp::serve_stdio(reads, &only)
            .await
            .map_err(CliError::Local);
    };
    let addr: std::net::SocketAddr = http.trim().parse().map_err(|_| {
        CliError::input(
            "http",
            format!("must be IP:PORT such as 127.0.0.1:8765, got {http:?}"),
        )
    })?;
    crate::local_server::check_bind(
        addr,
        a.allow_remote,
        "use its tools (and read the exchange through this machine)",
        "127.0.0.1:PORT",
    )
    .map_err(|m| CliError::input("http", m))?;
    let server = crate::mcp::HttpServer::start(reads, &only, addr, a.rate_per_minute)
        .await
        .map_err(|e| CliError::input("http", format!("cannot listen on {addr}: {e}")))?;
    let stop = stop_signal();
    // The one line on stderr (stdout stays as clean as over stdio): where it serves.
    eprintln!(
        "papertrade-tui MCP server (read-only) at {}; Ctrl-C stops it.",
        server.url()
    );
    stop.await;
    server.stop().await;
    Ok(())
}

/// Ctrl-C or (on Unix) SIGTERM. The handlers are installed when this is called, before a server
/// says it is ready, so a stop sent right after that line is a clean stop, never the default
/// abrupt one; the future ends at the first signal. A handler that cannot be installed is not
/// waited for (with neither, the server runs until killed).
fn stop_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{Signal, SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt()).ok();
        let mut terminate = signal(SignalKind::terminate()).ok();
        async move {
            async fn first(signal: Option<&mut Signal>) {
                match signal {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            }
            tokio::select! {
                _ = first(interrupt.as_mut()) => {}
                _ = first(terminate.as_mut()) => {}
            }
        }
    }
    #[cfg(not(unix))]
    async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
