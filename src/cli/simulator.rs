//! `papertrade-tui sim` and `papertrade-tui demo`.

use std::net::{IpAddr, SocketAddr};

use alloy_primitives::U256;
use serde_json::json;

use crate::protocol::eip712::{RegisterSessionKey, SessionSigner, WalletSigner};
use crate::protocol::units::{WAD, parse_scaled};
use crate::sim::{SimConfig, SimServer, intake};

use super::output::{CliError, print_json, usd};
use super::{Context, DemoArgs, EngineArgs, SimArgs};

fn config(a: &EngineArgs, controls: bool) -> SimConfig {
    SimConfig {
        seed: a.seed.unwrap_or_else(rand::random),
        relayer_delay_ms: a.relayer_delay_ms,
        crowd: a.crowd,
        heartbeat_ms: a.heartbeat_ms.max(100),
        controls,
        manual_clock: a.manual_clock,
        ..SimConfig::default()
    }
}

async fn wait_for_ctrl_c() {
    // If the signal handler cannot be installed, serve until killed.
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

pub async fn sim(ctx: &Context, a: SimArgs) -> Result<(), CliError> {
    let host: IpAddr = a
        .host
        .parse()
        .map_err(|_| CliError::input("host", format!("must be an IP address, got {:?}", a.host)))?;
    let cfg = config(&a.engine, !a.no_controls);
    let seed = cfg.seed;
    let server = SimServer::start(cfg, SocketAddr::new(host, a.port))
        .await
        .map_err(|e| CliError::input("port", format!("cannot listen on {host}:{}: {e}", a.port)))?;
    if ctx.json {
        print_json(&json!({"api": server.base_url(), "infoUrl": server.info_url(), "seed": seed}));
    } else {
        println!(
            "papertrade-tui simulator (seed {seed}) serving at {}",
            server.base_url()
        );
        println!("  exchange API  {}", server.base_url());
        println!("  Hyperliquid   {}", server.info_url());
        if !a.no_controls {
            println!(
                "  controls      POST {}/sim/{{fund,price,market,trading,intake,notice,faults,clock}}",
                server.base_url()
            );
        }
        println!(
            "point any command at it: papertrade-tui markets --api {} --info-url {}",
            server.base_url(),
            server.info_url()
        );
        println!("Ctrl-C stops it.");
    }
    wait_for_ctrl_c().await;
    server.stop().await;
    Ok(())
}

pub async fn demo(ctx: &Context, a: DemoArgs) -> Result<(), CliError> {
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
    let cfg = config(&a.engine, true);
    let server = SimServer::start(cfg, SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .map_err(|e| CliError::Network(format!("cannot start the simulator: {e}")))?;
    // A throwaway wallet, funded, with a session key registered through the real intent path.
    let wallet = WalletSigner::random();
    let session = SessionSigner::random();
    let registered = server.shared.with_engine(|e| {
        e.fund(wallet.address(), balance);
        let now = e.now_s();
        let register = RegisterSessionKey {
            user: wallet.address(),
            key: session.address(),
            expiry: now + 30 * 86_400,
            feeAddress: Default::default(),
            nonce: U256::from(256u64),
            deadline: now + 3600,
        };
        let post = wallet.sign(register).ok().and_then(|s| s.post());
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
    if ctx.json {
        print_json(&json!({
            "api": server.base_url(),
            "infoUrl": server.info_url(),
            "wallet": format!("{:#x}", wallet.address()),
            "sessionKey": format!("{:#x}", session.address()),
        }));
    } else {
        println!(
            "DEMO: a simulated Papertrade on {}; no funds, no network.",
            server.base_url()
        );
        println!(
            "wallet {:#x} holds {} of practice money.",
            wallet.address(),
            usd(crate::protocol::units::signed(balance))
        );
        println!(
            "try: papertrade-tui quote --market BTC --side long --margin 50 --leverage 100 --api {} --info-url {}",
            server.base_url(),
            server.info_url()
        );
        println!("The terminal UI will open here once it lands; Ctrl-C stops the demo.");
    }
    wait_for_ctrl_c().await;
    server.stop().await;
    Ok(())
}
