//! `demo` as a new user meets it: the export line the scripted round trip needs is on screen
//! before, during (key panel) and after the terminal UI, and each run's throwaway wallet is gone
//! when the run ends, killed runs' included.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::pty::Pty;
use crate::support::text;

fn env(home: &Path) -> Vec<(String, String)> {
    [
        ("PATH", "/usr/bin:/bin".to_string()),
        ("HOME", home.display().to_string()),
        ("XDG_CONFIG_HOME", home.join("config").display().to_string()),
        (
            "PAPERTRADE_TUI_DATA_DIR",
            home.join("data").display().to_string(),
        ),
    ]
    .map(|(k, v)| (k.to_string(), v))
    .to_vec()
}

/// The variables of `export A=1 B=2` (values without quotes, as the test's paths are).
fn exported(line: &str) -> Vec<(String, String)> {
    line.trim()
        .strip_prefix("export ")
        .unwrap_or_else(|| panic!("not an export line: {line:?}"))
        .split_whitespace()
        .map(|w| {
            let (k, v) = w.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect()
}

/// The variables the key panel's `export` rows set, read between the panel's borders (the UI
/// underneath shows beside it); a row still being drawn is left out.
fn panel_exports(panel: &str) -> Vec<(String, String)> {
    panel
        .lines()
        .filter_map(|l| l.find("│export ").map(|i| &l[i + "│".len()..]))
        .map(|l| l.split('│').next().unwrap().trim().to_string())
        .filter(|r| r.split_whitespace().skip(1).all(|w| w.contains('=')))
        .flat_map(|r| exported(&r))
        .collect()
}

/// `demo` in a terminal: the export line is printed before the alternate screen (so it is
/// there above the UI, and in the scrollback), the key panel shows it as lines that run as
/// pasted — another terminal's commands reach the demo with them while the UI runs — `?` says
/// where it is, and after `q` it is printed again with what undoes it.
#[test]
fn the_demo_in_a_terminal_shows_its_export_line_before_during_and_after_the_ui() {
    let home = tempfile::tempdir().unwrap();
    let args: Vec<String> = ["demo", "--crowd", "2", "--warmup-hours", "0"]
        .map(String::from)
        .to_vec();
    let mut term = Pty::spawn(&args, &env(home.path()));
    term.expect("notional");
    term.keys(b"?");
    term.expect("export lines for scripts in another terminal");
    term.keys(b"\x1b");
    // ESC and a key at once read as Alt+key: the next key only once the overlay has gone.
    assert!(term.wait_for(Duration::from_secs(20), |s| {
        !s.contents().contains("Keys (Esc closes)")
    }));
    term.keys(b"g");
    term.expect("point papertrade-tui commands at this demo");
    // The panel may be mid-draw when its title appears: read it once its last row is there.
    assert!(
        term.wait_for(Duration::from_secs(20), |s| panel_exports(&s.contents())
            .iter()
            .any(|(k, _)| k == "PAPERTRADE_TUI_OWNER_PASSPHRASE")),
        "the panel never showed every export row:\n{}",
        term.contents()
    );
    let panel = term.contents();
    let vars = panel_exports(&panel);
    let names: Vec<&str> = vars.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "PAPERTRADE_API_URL",
            "PAPERTRADE_INFO_URL",
            "PAPERTRADE_RPC_URL",
            "PAPERTRADE_TUI_OWNER",
            "PAPERTRADE_TUI_DATA_DIR",
            "PAPERTRADE_TUI_PASSPHRASE",
            "PAPERTRADE_TUI_OWNER_PASSPHRASE",
        ],
        "{panel}"
    );
    // Pasted in another terminal while the UI runs, they reach the demo's practice wallet.
    let owner = &vars[3].1;
    let out = Command::new(env!("CARGO_BIN_EXE_papertrade-tui"))
        .args(["positions", "--json"])
        .env_clear()
        .envs(env(home.path()))
        .envs(vars.iter().cloned())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let positions: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        positions["address"].as_str(),
        Some(owner.as_str()),
        "{positions}"
    );

    term.keys(b"\x1b");
    assert!(term.wait_for(Duration::from_secs(20), |s| {
        !s.contents().contains("Session key (Esc closes)")
    }));
    term.keys(b"q");
    let end = term.finish(Duration::from_secs(20));
    assert_eq!(end.status.and_then(|s| s.code()), Some(0), "{}", end.stderr);
    assert!(end.restored);
    let words: Vec<String> = vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let line = format!("export {}", words.join(" "));
    let before_ui = end
        .drawn
        .find("\u{1b}[?1049h")
        .expect("the alternate screen");
    let printed: Vec<usize> = end.drawn.match_indices(&line).map(|(i, _)| i).collect();
    assert_eq!(printed.len(), 2, "printed before and after:\n{}", end.drawn);
    assert!(printed[0] < before_ui, "printed before the UI started");
    assert!(printed[1] > end.drawn.rfind("\u{1b}[?1049l").unwrap());
    assert!(end.screen.contains("DEMO stopped"), "{}", end.screen);
    assert!(
        end.screen.contains("unset PAPERTRADE_API_URL"),
        "{}",
        end.screen
    );
}

/// Each run keeps its practice wallet in a directory of its own and deletes it when it stops
/// (here by SIGTERM, as a service manager stops it); a run that was killed leaves one, which
/// the next demo deletes, as it deletes what versions that kept one wallet per run directly in
/// `demo/` left. The directory of a run still going is left alone.
#[test]
fn a_demo_run_leaves_no_practice_wallet_behind() {
    let home = tempfile::tempdir().unwrap();
    let root = home.path().join("data/demo");
    std::fs::create_dir_all(&root).unwrap();
    // A process id that is certainly gone: a child that has exited and been waited for.
    let mut gone = Command::new("true").spawn().unwrap();
    let dead_pid = gone.id();
    gone.wait().unwrap();
    let killed = root.join(format!("run-{dead_pid}"));
    std::fs::create_dir_all(killed.join("owner")).unwrap();
    std::fs::write(killed.join("owner/owner.json"), "{}").unwrap();
    let old_layout = root.join("keys/session-0x00000000000000000000000000000000000000aa.json");
    std::fs::create_dir_all(old_layout.parent().unwrap()).unwrap();
    std::fs::write(&old_layout, "{}").unwrap();
    let live = root.join(format!("run-{}", std::process::id()));
    std::fs::create_dir_all(&live).unwrap();

    let mut demo = Command::new(env!("CARGO_BIN_EXE_papertrade-tui"))
        .args(["demo", "--crowd", "2", "--warmup-hours", "0"])
        .env_clear()
        .envs(env(home.path()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(demo.stdout.take().unwrap());
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut export = None;
    let mut line = String::new();
    while Instant::now() < deadline {
        line.clear();
        if stdout.read_line(&mut line).unwrap() == 0 {
            break;
        }
        if line.trim().starts_with("export ") {
            export = Some(line.clone());
        }
        if line.contains("Ctrl-C stops the demo") {
            break;
        }
    }
    let vars = exported(&export.expect("the export line"));
    let run_dir = Path::new(
        &vars
            .iter()
            .find(|(k, _)| k == "PAPERTRADE_TUI_DATA_DIR")
            .unwrap()
            .1,
    )
    .to_path_buf();
    assert_eq!(run_dir.parent(), Some(root.as_path()));
    assert!(run_dir.join("owner/owner.json").is_file());
    let session_keystores = std::fs::read_dir(run_dir.join("keys"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("session-0x"))
        .count();
    assert!(
        session_keystores > 0,
        "the session key is in the run's directory"
    );
    assert!(!killed.exists(), "a killed run's wallet is deleted");
    assert!(
        !old_layout.parent().unwrap().exists(),
        "the old layout's keystores are deleted"
    );
    assert!(live.exists(), "a running demo's directory is kept");

    let term = Command::new("kill")
        .args(["-TERM", &demo.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let status = demo.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    assert!(!run_dir.exists(), "the run's practice wallet outlived it");
    let left: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left, [live.file_name().unwrap().to_owned()]);
}

/// A demo in a terminal stopped by SIGTERM (a service manager, `kill`) restores the terminal,
/// says it stopped and exits 0, as `q` does; before, the signal killed it in raw mode on the
/// alternate screen.
#[test]
fn a_terminal_demo_stops_cleanly_on_sigterm() {
    let home = tempfile::tempdir().unwrap();
    let args: Vec<String> = ["demo", "--crowd", "2", "--warmup-hours", "0"]
        .map(String::from)
        .to_vec();
    let term = Pty::spawn(&args, &env(home.path()));
    term.expect("notional");
    term.signal("TERM");
    let end = term.finish(Duration::from_secs(20));
    assert_eq!(end.status.and_then(|s| s.code()), Some(0), "{}", end.stderr);
    assert!(
        end.restored,
        "left on the alternate screen:\n{}",
        end.screen
    );
    assert!(end.screen.contains("DEMO stopped"), "{}", end.screen);
}
