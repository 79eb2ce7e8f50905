//! The command line, shaped as slumber's: this file holds the command enum and the dispatch;
//! each command's file holds its arguments (a clap `Args` struct) and the function that runs
//! it; `context.rs` turns the global flags and the config file into the `Context` every command
//! runs with; `argv.rs` reads what clap leaves to the program; `output.rs` is how commands speak.

mod account;
mod args;
mod argv;
mod context;
mod explorer;
mod funding;
mod interactive;
mod key;
mod liquidations;
mod markets;
mod mcp;
mod output;
mod protocol_views;
mod quote;
mod reprint;
mod session;
mod shell;
mod signal;
mod simulator;
mod trade;
mod typed_data;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use context::Context;
pub use interactive::{PrefillArgs, prepare as ui_prepare, setup as ui_setup};
pub(crate) use output::CliError;
pub(crate) use signal::stop_signal;

use context::GlobalArgs;

#[derive(Debug, Parser)]
#[command(
    name = "papertrade-tui",
    version,
    about = "Trade Papertrade perps from a terminal (unofficial). 1000x leverage can lose the whole margin.",
    propagate_version = true
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(flatten)]
    pub prefill: PrefillArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Every market: mark, status, leverage and size limits, open interest and caps, minimums, fee.
    Markets,
    /// Quote an open: bust price, whether the relayer would accept it, and what a close pays.
    Quote(quote::QuoteArgs),
    /// Bust price, distance and validity at every leverage step for one margin.
    Ladder(quote::LadderArgs),
    /// What closing a position pays at an exit (default: the live mark).
    CloseQuote(quote::CloseQuoteArgs),
    /// The unsigned EIP-712 payload of an intent: domain, types, message, digest, wallet request.
    TypedData(typed_data::TypedDataArgs),
    /// The session key: create, register with the owner's signature, show, clear; a practice owner.
    #[command(subcommand)]
    Key(key::KeyCommand),
    /// Positions, pending intents and balances of an account (read-only with --watch).
    Positions(account::PositionsArgs),
    /// Open a position (signed by the session key after the open checks and a confirmation).
    Open(trade::OpenArgs),
    /// Close positions (batches of 12 ids, each its own intent).
    Close(trade::CloseArgs),
    /// Cancel a queued intent.
    Cancel(trade::CancelArgs),
    /// Deposit USDC from the owner's HyperCore spot account (a spotSend signed by the owner's wallet).
    Deposit(funding::DepositArgs),
    /// Withdraw USDC to the owner's HyperCore spot account (signed by the owner's wallet).
    Withdraw(funding::WithdrawArgs),
    /// Run the local exchange simulator (a strict Papertrade on loopback) until Ctrl-C.
    Sim(simulator::SimArgs),
    /// Practice with no funds and no network: the simulator in-process and a funded throwaway wallet.
    Demo(simulator::DemoArgs),
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
    Mcp(mcp::McpArgs),
    /// Open the terminal UI with a browser terminal link's ticket prefilled (nothing is signed
    /// until you confirm); the same as `--link URL`.
    OpenLink(interactive::OpenLinkArgs),
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
            if let Some(negative) = argv::negative_value(&e, &raw) {
                return negative.report(json);
            }
            return CliError::Usage(argv::one_line(&e)).report(json);
        }
    };
    // `mcp` over stdio owns stdout for the protocol: its errors go to stderr, as text.
    let protocol_on_stdout = matches!(&cli.command, Some(Command::Mcp(a)) if a.http.is_none());
    if let Err(e) = argv::global_given_once(&raw) {
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

fn run(cli: Cli) -> Result<(), CliError> {
    // Generated from the command line's definitions alone: no config is read and nothing is
    // written, so they work on a machine where nothing is set up yet (and in a package build).
    match cli.command {
        Some(Command::Completions(a)) => return shell::completions(a),
        Some(Command::Man(a)) => return shell::man(a),
        _ => {}
    }
    let watch = watch_and_prefill(&cli)?;
    let (ctx, _log_guard) = Context::load(cli.global, watch)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let Some(command) = cli.command else {
        return runtime.block_on(interactive::run(&ctx, &cli.prefill));
    };
    tracing::info!(?command, api = ctx.http.api_url(), "command");
    // tokio reads stdin on a blocking thread that cannot be cancelled: once the stdio server
    // has stopped (a signal), the process ends without waiting for a line that may never come.
    let reads_stdin = matches!(&command, Command::Mcp(a) if a.http.is_none());
    let result = runtime.block_on(async {
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
            Command::Withdraw(a) => funding::withdraw(&ctx, a).await,
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
            Command::Mcp(a) => mcp::run(&ctx, a).await,
            Command::OpenLink(a) => interactive::open_link(&ctx, a).await,
            Command::Completions(a) => shell::completions(a),
            Command::Man(a) => shell::man(a),
        }
    });
    if reads_stdin {
        runtime.shutdown_background();
    }
    result
}

/// The `--watch` wallet, checked against the command, and signing locked process-wide when it
/// is given: `--watch` is read-only wherever it appears, and a command that would sign is
/// refused outright. The prefill flags before a subcommand are refused too (they would be
/// silently lost: they fill the UI's ticket). Checked before the config is read or anything
/// is written.
fn watch_and_prefill(cli: &Cli) -> Result<Option<alloy_primitives::Address>, CliError> {
    let watch = cli
        .global
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
    Ok(watch)
}
