//! `papertrade-tui sim` and `papertrade-tui demo`.

use std::io::IsTerminal;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

use alloy_primitives::U256;
use serde_json::json;

use clap::Args;

use crate::protocol::eip712::{RegisterSessionKey, WalletSigner};
use crate::protocol::units::{WAD, parse_scaled};
use crate::sim::{SimConfig, SimServer, intake};

use super::Context;
use super::interactive::PrefillArgs;
use super::output::say;
use super::output::{CliError, print_json, usd};

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

/// The practice wallet's passphrase: a throwaway key guarding nothing of value.
const DEMO_PASSPHRASE: &str = "demo";

struct Practice {
    wallet: WalletSigner,
    session_key: alloy_primitives::Address,
    owner_keystore: PathBuf,
}

/// One demo run's files: its throwaway owner keystore, session keystore, audit log and history,
/// in `<data dir>/demo/run-<pid>/`, the data dir its export line names. They guard practice money
/// on an exchange that lives only as long as the run, so they are deleted when the run ends
/// (dropped: on return, on an error, on a panic); a run that was killed leaves its directory to
/// the next demo, which deletes every one whose process is gone.
struct DemoFiles {
    dir: PathBuf,
}

impl DemoFiles {
    fn create(data_dir: &Path) -> Result<Self, CliError> {
        let error = |e: std::io::Error| CliError::Local(format!("demo data dir: {e}"));
        let root = data_dir.join("demo");
        crate::store::private_files::ensure_private_dir(&root).map_err(error)?;
        remove_abandoned_runs(&root);
        let dir = root.join(format!("run-{}", std::process::id()));
        // Ours by name: what is there is a dead run's that had the same process id.
        if dir.symlink_metadata().is_ok() {
            remove_entry(&dir).map_err(error)?;
        }
        // Private: it serves as the demo's data dir, which is otherwise only checked.
        crate::store::private_files::ensure_private_dir(&dir).map_err(error)?;
        Ok(Self { dir })
    }
}

impl Drop for DemoFiles {
    fn drop(&mut self) {
        if let Err(e) = remove_entry(&self.dir) {
            tracing::warn!("cannot remove the demo's files {}: {e}", self.dir.display());
        }
    }
}

/// Everything under `<data dir>/demo/` but the directories of demo runs still going: the files
/// of runs that were killed, and those of versions that kept one practice wallet per run
/// directly in it (the session keystores that piled up).
fn remove_abandoned_runs(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let running = name
            .to_str()
            .and_then(|n| n.strip_prefix("run-"))
            .and_then(|pid| pid.parse::<u32>().ok())
            .is_some_and(process_is_running);
        if !running && let Err(e) = remove_entry(&entry.path()) {
            tracing::warn!("cannot remove {}: {e}", entry.path().display());
        }
    }
}

/// Whether a process with this id exists (anyone's: a demo of another user is not ours to
/// judge, and its directory is not under our data dir anyway).
#[cfg(unix)]
fn process_is_running(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        Err(e) => e == rustix::io::Errno::PERM,
    }
}

/// Without a portable liveness check, every run directory is taken to be in use: only its own
/// run deletes it.
#[cfg(not(unix))]
fn process_is_running(_pid: u32) -> bool {
    true
}

/// A file, a symlink (not what it points to) or a whole directory.
fn remove_entry(path: &Path) -> std::io::Result<()> {
    match path.symlink_metadata() {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// The variables that point a shell's commands at this demo, in the order the line sets them.
fn demo_environment(
    server: &SimServer,
    owner: alloy_primitives::Address,
    dir: &Path,
) -> Vec<(&'static str, String)> {
    vec![
        ("PAPERTRADE_API_URL", server.base_url()),
        ("PAPERTRADE_INFO_URL", server.info_url()),
        ("PAPERTRADE_RPC_URL", server.rpc_url()),
        ("PAPERTRADE_TUI_OWNER", format!("{owner:#x}")),
        ("PAPERTRADE_TUI_DATA_DIR", dir.display().to_string()),
        ("PAPERTRADE_TUI_PASSPHRASE", DEMO_PASSPHRASE.to_string()),
        (
            "PAPERTRADE_TUI_OWNER_PASSPHRASE",
            DEMO_PASSPHRASE.to_string(),
        ),
    ]
}

/// A fresh practice owner (keystore file) and its session key (keystore backend) in `dir`.
fn practice_wallet(dir: &Path) -> Result<Practice, CliError> {
    let owner_dir = dir.join("owner");
    crate::store::private_files::ensure_private_dir(&owner_dir)
        .map_err(|e| CliError::Local(format!("demo data dir: {e}")))?;
    let wallet = WalletSigner::random();
    alloy_signer_local::PrivateKeySigner::encrypt_keystore(
        &owner_dir,
        &mut rand::thread_rng(),
        wallet.secret_bytes(),
        DEMO_PASSPHRASE,
        Some("owner.json"),
    )
    .map_err(|e| CliError::Local(format!("demo owner keystore: {e}")))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            owner_dir.join("owner.json"),
            std::fs::Permissions::from_mode(0o600),
        )
        .map_err(|e| CliError::Local(format!("demo owner keystore: {e}")))?;
    }
    // The cheapest scrypt cost: the practice key guards play money behind the published
    // passphrase "demo", so the standard cost would only slow the demo's start.
    let cheap =
        crate::keys::ScryptCost::new(crate::keys::MIN_SCRYPT_LOG_N).map_err(CliError::Local)?;
    let keys =
        crate::keys::SessionKeys::new(dir, Some(crate::keys::Backend::Keystore)).with_scrypt(cheap);
    let now = crate::clock::now_unix_s();
    let (_, meta) = keys
        .generate(wallet.address(), now + 30 * 86_400, now, || {
            Ok(crate::keys::Passphrase::new(DEMO_PASSPHRASE.into()))
        })
        .map_err(|e| CliError::Local(format!("demo session key: {e}")))?;
    Ok(Practice {
        wallet,
        session_key: meta.key,
        owner_keystore: owner_dir.join("owner.json"),
    })
}

/// The engine's config from the flags. clap has range-checked them already; `check` runs
/// again so a bound added to the engine alone cannot be missed here (exit 2, naming the flag).
fn config(a: &EngineArgs, controls: bool) -> Result<SimConfig, CliError> {
    let cfg = SimConfig {
        seed: a.seed.unwrap_or_else(rand::random),
        relayer_delay_ms: a.relayer_delay_ms,
        crowd: a.crowd,
        heartbeat_ms: a.heartbeat_ms,
        controls,
        manual_clock: a.manual_clock,
        warmup_ms: a.warmup_hours * 3_600_000,
        sweep_delay_ms: a.sweep_delay_ms,
        ..SimConfig::default()
    };
    cfg.check().map_err(CliError::Usage)?;
    Ok(cfg)
}

/// What a simulator reachable from other machines hands them.
fn exposure(no_controls: bool) -> &'static str {
    if no_controls {
        "use the simulated exchange (read every practice account, submit signed intents)"
    } else {
        "use the simulated exchange and its /sim controls (fund any wallet, move prices, pause \
         markets, post operator notices, inject faults)"
    }
}

pub async fn sim(ctx: &Context, a: SimArgs) -> Result<(), CliError> {
    let host: IpAddr = a
        .host
        .parse()
        .map_err(|_| CliError::input("host", format!("must be an IP address, got {:?}", a.host)))?;
    let exposes = exposure(a.no_controls);
    crate::local_server::check_bind(
        SocketAddr::new(host, a.port),
        a.allow_remote,
        exposes,
        "--host 127.0.0.1",
    )
    .map_err(|m| CliError::input("host", m))?;
    let cfg = config(&a.engine, !a.no_controls)?;
    let seed = cfg.seed;
    let server = SimServer::start(cfg, SocketAddr::new(host, a.port))
        .await
        .map_err(|e| CliError::input("port", format!("cannot listen on {host}:{}: {e}", a.port)))?;
    let stop = super::stop_signal();
    if ctx.json {
        print_json(
            &json!({"api": server.base_url(), "infoUrl": server.info_url(), "rpcUrl": server.rpc_url(), "seed": seed}),
        );
    } else {
        say!(
            "papertrade-tui simulator (seed {seed}) serving at {}",
            server.base_url()
        );
        say!("  exchange API  {}", server.base_url());
        say!(
            "  Hyperliquid   {} (and /exchange beside it)",
            server.info_url()
        );
        say!("  HyperEVM RPC  {}", server.rpc_url());
        if !a.no_controls {
            say!(
                "  controls      POST {}/sim/{{fund,fund-core,price,market,trading,intake,notice,faults,clock}} (Content-Type: application/json)",
                server.base_url()
            );
        }
        say!(
            "point any command at it: papertrade-tui markets --api {} --info-url {}",
            server.base_url(),
            server.info_url()
        );
        say!("Ctrl-C (or SIGTERM) stops it.");
    }
    if !host.is_loopback() {
        // Said on stderr even with --json: the one warning that must not be missed.
        eprintln!(
            "warning: serving on {host}, beyond this machine: anyone who can connect can {exposes}"
        );
    }
    // SIGTERM too, as `demo` and `mcp --http`: a service manager's stop is a clean stop.
    stop.await;
    server.stop().await;
    Ok(())
}

pub async fn demo(ctx: &Context, a: DemoArgs) -> Result<(), CliError> {
    // A link that cannot be read is bad input before anything starts.
    a.prefill.ticket()?;
    let balance = parse_scaled(&a.balance, 6)
        .ok()
        .filter(|b| *b > 0)
        .ok_or_else(|| {
            CliError::input(
                "balance",
                format!("must be a positive USD amount, got {:?}", a.balance),
            )
        })?
        * (WAD / 1_000_000);
    let cfg = config(&a.engine, true)?;
    let server = SimServer::start(cfg, SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .map_err(|e| CliError::Network(format!("cannot start the simulator: {e}")))?;
    // A throwaway wallet, funded, with a session key registered through the real intent path,
    // both kept in this run's practice data dir so the other commands work against the demo
    // at once; all of it is deleted when the run ends (`files` dropped).
    let files = DemoFiles::create(&ctx.data_dir)?;
    let demo_dir = files.dir.clone();
    let practice = practice_wallet(&demo_dir)?;
    let owner = practice.wallet.address();
    let registered = server.shared.with_engine(|e| {
        e.fund(owner, balance);
        // The same practice money on HyperCore, so `deposit` can be tried too.
        e.core
            .credit(owner, balance / crate::protocol::funding::WAD_PER_CORE_WEI);
        let now = e.now_s();
        let register = RegisterSessionKey {
            user: owner,
            key: practice.session_key,
            expiry: now + 30 * 86_400,
            feeAddress: Default::default(),
            nonce: U256::from(256u64),
            deadline: now + crate::protocol::order::Deadlines::default().register_s,
        };
        let post = practice.wallet.sign(register).ok().and_then(|s| s.post());
        post.map(|p| intake::submit(e, &p.body))
    });
    match registered {
        Some(Ok(_)) => {}
        Some(Err(r)) => {
            return Err(CliError::Network(format!(
                "demo session key refused: {}",
                r.message
            )));
        }
        None => {
            return Err(CliError::Network(
                "demo session key could not be signed".into(),
            ));
        }
    }
    let environment = demo_environment(&server, owner, &demo_dir);
    let exports = crate::text::export_line(&environment);
    // With a terminal, the demo opens the UI on the practice wallet; otherwise it serves.
    if !ctx.json && std::io::stdout().is_terminal() {
        // Printed before the alternate screen hides it (and there again when the UI quits): a
        // script in another terminal needs it while the UI runs. The key panel shows it too.
        say!(
            "DEMO: a simulated Papertrade on {}; practice money, no network.",
            server.base_url()
        );
        say!(
            "To script against it from another terminal while the UI runs (`g` in the UI shows it too):"
        );
        say!("  {exports}");
        let keys = crate::keys::SessionKeys::new(&demo_dir, Some(crate::keys::Backend::Keystore));
        let session = keys
            .load(owner, || {
                Ok(crate::keys::Passphrase::new(DEMO_PASSPHRASE.into()))
            })
            .map_err(|e| CliError::Local(format!("demo session key: {e}")))?;
        let demo_ctx = super::Context {
            json: false,
            http: crate::client::ExchangeHttp::new(
                &server.base_url(),
                &server.info_url(),
                Default::default(),
            )
            .with_rpc_url(&server.rpc_url()),
            data_dir: demo_dir.clone(),
            owner: Some(format!("{owner:#x}")),
            key_backend: Some("keystore".into()),
            watch: None,
            ui: ctx.ui.clone(),
            deadlines: ctx.deadlines,
            alerts: ctx.alerts.clone(),
            rates: crate::events::market::PollRates {
                markets: std::time::Duration::from_millis(1000),
                protocol: std::time::Duration::from_secs(5),
            },
        };
        let mut setup = super::interactive::setup(
            &demo_ctx,
            crate::app::Mode::Demo,
            owner,
            session,
            &a.prefill,
        )?;
        // The key panel's renewal asks for the owner keystore: the demo's own, filled in.
        setup.app.owner_keystore_path = practice.owner_keystore.display().to_string();
        setup.app.owner_passphrase_hint = Some(format!(
            "the practice owner's keystore passphrase is {DEMO_PASSPHRASE:?}"
        ));
        setup.app.demo_environment = environment
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let result = super::interactive::launch(setup).await;
        let served_at = server.base_url();
        server.stop().await;
        drop(files);
        if result.is_ok() {
            let names: Vec<&str> = environment.iter().map(|(k, _)| *k).collect();
            say!(
                "DEMO stopped: its exchange ({served_at}) and practice wallet are gone. A terminal that pasted"
            );
            say!("  {exports}");
            say!(
                "points at nothing now; `unset {}` undoes it.",
                names.join(" ")
            );
        }
        return result;
    }
    let stop = super::stop_signal();
    if ctx.json {
        print_json(&json!({
            "api": server.base_url(),
            "infoUrl": server.info_url(),
            "rpcUrl": server.rpc_url(),
            "wallet": format!("{owner:#x}"),
            "sessionKey": format!("{:#x}", practice.session_key),
            "dataDir": demo_dir,
            "ownerKeystore": practice.owner_keystore,
            "passphrase": DEMO_PASSPHRASE,
            "export": exports,
        }));
    } else {
        say!(
            "DEMO: a simulated Papertrade on {}; practice money, no network.",
            server.base_url()
        );
        say!(
            "wallet {owner:#x} holds {} on Papertrade and as much HyperCore spot USDC; its session key is registered.",
            usd(crate::protocol::units::signed(balance))
        );
        say!("\nIn another terminal:\n  {exports}");
        say!(
            "  papertrade-tui deposit --amount 25 --owner-keystore {}",
            practice.owner_keystore.display()
        );
        say!("  papertrade-tui open --market BTC --side long --margin 50 --leverage 100");
        say!("  papertrade-tui positions --follow");
        say!("  papertrade-tui close --all");
        say!(
            "  papertrade-tui withdraw --amount 25 --owner-keystore {}",
            practice.owner_keystore.display()
        );
        say!(
            "\nServing without a terminal (run `demo` in a terminal for the UI); Ctrl-C stops the demo and deletes its files."
        );
    }
    // SIGTERM too: a service manager's stop deletes the demo's files as Ctrl-C does.
    stop.await;
    server.stop().await;
    drop(files);
    Ok(())
}
