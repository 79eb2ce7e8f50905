//! `--watch`: read-only wherever it appears, no signer built, on the command line and in the UI.

use std::process::Command;

use alloy_primitives::Address;
use papertrade_tui::sim::SimConfig;
use ratatui::crossterm::event::KeyCode;
use serde_json::Value;

use crate::simkit::Sim;
use crate::support::open_args;
use crate::tui_run::{self, Ui};

use super::user::{live_sim, ready_user, signers, text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_mode_constructs_no_signer() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    // The probe counts: an open constructs signers…
    let out = user
        .run(&open_args("BTC", "short", "20", "100", &["--json"]))
        .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(signers(&out) >= 1);
    // …watching constructs none, even with a key and its passphrase at hand.
    let out = user
        .run(&[
            "positions",
            "--watch",
            &format!("{:#x}", user.owner()),
            "--json",
        ])
        .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(signers(&out), 0);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["mode"], "watch");
    assert_eq!(v["positions"].as_array().unwrap().len(), 1);
    // Watching a crowd wallet of another simulator instance works with no owner at all.
    let crowd = Sim::start(SimConfig {
        seed: 2,
        crowd: 3,
        ..SimConfig::default()
    })
    .await;
    let wallet = crowd.server.shared.with_engine(|e| e.crowd.wallets()[0]);
    let mut c = Command::new(env!("CARGO_BIN_EXE_papertrade-tui"));
    let api = crowd.server.base_url();
    let info = crowd.server.info_url();
    let dir = tempfile::tempdir().unwrap();
    c.args([
        "positions",
        "--watch",
        &format!("{wallet:#x}"),
        "--api",
        &api,
        "--info-url",
        &info,
        "--json",
    ])
    .env_clear()
    .env("HOME", dir.path())
    .env("PAPERTRADE_TUI_DATA_DIR", dir.path())
    .env("PAPERTRADE_TUI_REPORT_SIGNERS", "1");
    let out = tokio::task::spawn_blocking(move || c.output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(signers(&out), 0);
}

/// `--watch` is read-only wherever it appears: before or after the subcommand, every command
/// that would sign is refused with exit 2, no signer is built and the account is untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_anywhere_refuses_every_writing_command() {
    let sim = live_sim().await;
    let user = ready_user(&sim, 1000).await;
    let position = user.open_long("BTC", "50", "25").await;
    let audit_before = std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap();
    let watched = format!("{:#x}", Address::with_last_byte(1));
    let queued = format!("{:#x}", alloy_primitives::B256::with_last_byte(7));
    let keystore = user.owner_keystore.to_str().unwrap().to_string();
    let writing: Vec<Vec<&str>> = vec![
        open_args("BTC", "long", "50", "25", &[]),
        vec!["close", "--all", "--yes"],
        vec!["close", &position, "--yes"],
        vec!["cancel", &queued, "--yes"],
        vec![
            "withdraw",
            "--amount",
            "10",
            "--owner-keystore",
            &keystore,
            "--yes",
        ],
        vec!["key", "new"],
        vec!["key", "register", "--owner-keystore", &keystore, "--yes"],
        vec!["key", "clear"],
        vec!["demo"],
        vec!["sim", "--port", "0"],
    ];
    for command in &writing {
        for before in [true, false] {
            let mut args: Vec<&str> = Vec::new();
            if before {
                args.extend(["--watch", &watched]);
            }
            args.extend(command.iter().copied());
            if !before {
                args.extend(["--watch", &watched]);
            }
            let out = user.run(&args).await;
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains("--watch: is read-only"), "{args:?}: {err}");
            assert_eq!(signers(&out), 0, "{args:?}");
        }
    }
    let listed = user.json(&["positions"]).await;
    assert_eq!(listed["positions"].as_array().unwrap().len(), 1);
    assert_eq!(listed["positions"][0]["positionId"], position.as_str());
    let audit_after = std::fs::read_to_string(user.data().join("audit.jsonl")).unwrap();
    assert_eq!(audit_before, audit_after, "nothing was signed or sent");
    assert_eq!(user.json(&["key", "show"]).await["usable"], true);
    // …and where it belongs, before or after `positions`, it reads the watched wallet.
    for args in [
        vec!["--watch", &watched, "positions", "--json"],
        vec!["positions", "--watch", &watched, "--json"],
    ] {
        let out = user.run(&args).await;
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["mode"], "watch");
        assert_eq!(v["address"], watched.as_str());
        assert_eq!(signers(&out), 0);
    }
}

/// `--watch` on a crowd wallet of the simulator: read-only, no key in the process, and B + Enter
/// says why instead of opening a dialog.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watching_a_crowd_wallet_in_the_ui_is_read_only() {
    let sim = Sim::start(SimConfig {
        seed: 2,
        crowd: 3,
        ..SimConfig::default()
    })
    .await;
    let wallet = sim.server.shared.with_engine(|e| e.crowd.wallets()[0]);
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = tui_run::context(
        &sim.server.base_url(),
        &sim.server.info_url(),
        dir.path(),
        None,
    );
    // The command line also locks signing process-wide for `--watch` before any command runs
    // (pinned through `positions --watch` by `watch_mode_constructs_no_signer`); a test binary
    // shares its process with tests that sign, so none is taken here.
    ctx.watch = Some(wallet);
    let setup = tui_run::prepare(&ctx).await;
    assert!(setup.session.is_none(), "no key material when watching");
    let mut ui = Ui::start(setup);
    ui.wait_for(|s| s.contains("WATCH") && s.contains("notional"))
        .await;
    ui.type_text("b");
    ui.send_keys([KeyCode::Enter]);
    // The ticket always says "read-only" and `b` is answered too: wait for Enter's answer.
    let after = ui.wait_for_text("no key is loaded").await;
    assert!(
        !after.contains("Confirm"),
        "no dialog in watch mode:\n{after}"
    );
    ui.quit().await.expect("the loop ends cleanly on q");
}
