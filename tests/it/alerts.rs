//! Distance-to-bust alerts end to end: the real `positions --follow --json` against the
//! simulator while its price is walked toward a position's bust.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;

use crate::simkit::Sim;
use crate::support::command;

/// The follow process and its stdout, line by line.
struct Follow {
    child: Child,
    lines: mpsc::UnboundedReceiver<String>,
    seen: Vec<String>,
    _home: tempfile::TempDir,
}

impl Follow {
    fn spawn(sim: &Sim, wallet: &str, config: &str) -> Self {
        Self::spawn_as(sim, wallet, config, true)
    }

    /// `positions --follow` for a person (`json` false) or as JSON lines.
    fn spawn_as(sim: &Sim, wallet: &str, config: &str, json: bool) -> Self {
        let api = sim.server.base_url();
        let info = sim.server.info_url();
        let mut args = vec![
            "positions",
            "--watch",
            wallet,
            "--follow",
            "--api",
            &api,
            "--info-url",
            &info,
        ];
        if json {
            args.push("--json");
        }
        let (mut c, home) = command(&args);
        let path = home.path().join("config.toml");
        std::fs::write(&path, config).unwrap();
        c.env("PAPERTRADE_TUI_CONFIG", &path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = c.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::unbounded_channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Self {
            child,
            lines,
            seen: Vec::new(),
            _home: home,
        }
    }

    /// Read lines until one satisfies `f` (at most 15 s); that line as JSON.
    async fn until(&mut self, what: &str, f: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        loop {
            let line = tokio::time::timeout_at(deadline, self.lines.recv())
                .await
                .unwrap_or_else(|_| panic!("timed out waiting for {what}: {:#?}", self.seen))
                .unwrap_or_else(|| panic!("output ended waiting for {what}: {:#?}", self.seen));
            self.seen.push(line.clone());
            if let Ok(v) = serde_json::from_str::<Value>(&line)
                && f(&v)
            {
                return v;
            }
        }
    }
}

impl Follow {
    /// Read lines until one satisfies `f` (at most 15 s); that line.
    async fn until_line(&mut self, what: &str, f: impl Fn(&str) -> bool) -> String {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        loop {
            let line = tokio::time::timeout_at(deadline, self.lines.recv())
                .await
                .unwrap_or_else(|_| panic!("timed out waiting for {what}: {:#?}", self.seen))
                .unwrap_or_else(|| panic!("output ended waiting for {what}: {:#?}", self.seen));
            self.seen.push(line.clone());
            if f(&line) {
                return line;
            }
        }
    }
}

impl Drop for Follow {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The ETH price (2 decimals) at which a long busting at `bust` is `bps` from bust.
fn price_at_distance(bust: u64, bps: u64) -> String {
    let raw = bust * 10_000 / (10_000 - bps) + 1;
    format!("{}.{:02}", raw / 100, raw % 100)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_json_is_one_object_per_line_with_one_alert_per_crossing() {
    let sim = Sim::manual().await;
    let mut t = sim.trader(1_000).await;
    let mut stream = sim.stream(t.address()).await;
    sim.pin("ETH", "2500.00").await;
    // $200 at 10x: ~10% from bust, outside every default threshold.
    let (body, id) = t.open(sim.now_s(), 1, true, 200, 10);
    let (status, answer) = sim.post("/intents", &body).await;
    assert_eq!(status, 200, "{answer}");
    sim.advance(1_000).await;
    assert_eq!(stream.outcome(id).await.0, "succeeded");
    let bust = stream.fold.state().unwrap().open_positions[0].bust_price;

    let mut follow = Follow::spawn(&sim, &t.wallet_hex(), "[poll]\nmarkets_ms = 250\n");
    let first = follow.until("the account", |_| true).await;
    assert_eq!(first["event"], "account", "{first}");
    assert_eq!(first["positions"].as_array().unwrap().len(), 1);

    // Down through 5%, 2% and 0.5%, waiting for each alert before the next move.
    for (bps, threshold) in [(400, 500), (150, 200), (40, 50)] {
        sim.pin("ETH", &price_at_distance(bust, bps)).await;
        let alert = follow.until("an alert", |v| v["event"] == "alert").await;
        assert_eq!(alert["thresholdBps"], threshold, "{alert}");
        assert_eq!(alert["market"], "ETH");
        assert_eq!(alert["side"], "long");
        let distance = alert["distanceToLiquidationPct"].as_f64().unwrap();
        let at = bps as f64 / 100.0;
        assert!((distance - at).abs() < 0.01, "{distance} vs {at}: {alert}");
    }
    // Through bust: the liquidation arrives, and no further alert came before it.
    let at_bust = format!("{}.{:02}", bust / 100, bust % 100);
    sim.pin("ETH", &at_bust).await;
    let patch = follow
        .until("the liquidation", |v| {
            v["event"] == "patch" && v["closed"][0]["liquidated"] == true
        })
        .await;
    assert_eq!(patch["positions"], 0, "{patch}");

    let alerts: Vec<&String> = follow
        .seen
        .iter()
        .filter(|l| l.contains("\"event\":\"alert\""))
        .collect();
    assert_eq!(alerts.len(), 3, "{:#?}", follow.seen);
    for line in &follow.seen {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not one JSON object per line ({e}): {line:?}"));
        assert!(v["event"].is_string(), "{line}");
    }
}

/// The human `positions --follow` keeps its table current: a mark moved by the simulator shows
/// in MARK, TO BUST and CLOSE PAYS, and a position opened meanwhile appears, without a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_followed_table_follows_the_marks_and_the_account() {
    let sim = Sim::manual().await;
    let mut t = sim.trader(1_000).await;
    let mut stream = sim.stream(t.address()).await;
    sim.pin("ETH", "2500.00").await;
    let (body, id) = t.open(sim.now_s(), 1, true, 200, 10);
    let (status, answer) = sim.post("/intents", &body).await;
    assert_eq!(status, 200, "{answer}");
    sim.advance(1_000).await;
    assert_eq!(stream.outcome(id).await.0, "succeeded");
    let first = stream.fold.state().unwrap().open_positions[0]
        .id
        .to_string();
    let row_of = |id: &str, line: &str| line.trim_start().starts_with(&format!("{id} "));

    let mut follow = Follow::spawn_as(&sim, &t.wallet_hex(), "[poll]\nmarkets_ms = 250\n", false);
    let row = follow
        .until_line("the first table", |l| row_of(&first, l))
        .await;
    assert!(row.contains("2,500.00"), "the mark at start: {row}");
    follow
        .until_line("the follow line", |l| l.starts_with("following"))
        .await;

    // The mark moves: the row is printed again at the new mark, with what a close pays there.
    sim.pin("ETH", "2450.00").await;
    let moved = follow
        .until_line("the row at the new mark", |l| {
            row_of(&first, l) && l.contains("2,450.00")
        })
        .await;
    assert_ne!(moved, row, "TO BUST and CLOSE PAYS moved with the mark");

    // A position opened meanwhile appears in the table.
    let (body, id) = t.open(sim.now_s(), 1, true, 100, 20);
    let (status, answer) = sim.post("/intents", &body).await;
    assert_eq!(status, 200, "{answer}");
    sim.advance(1_000).await;
    assert_eq!(stream.outcome(id).await.0, "succeeded");
    let second = stream
        .fold
        .state()
        .unwrap()
        .open_positions
        .iter()
        .map(|p| p.id.to_string())
        .find(|p| *p != first)
        .expect("the second position");
    let row = follow
        .until_line("the new position's row", |l| row_of(&second, l))
        .await;
    assert!(row.contains("20x"), "{row}");
}

/// `positions --follow` stops cleanly on SIGTERM (exit 0), as on Ctrl-C and as `sim`, `demo`
/// and `mcp` do: one stop signal for every command that runs until stopped. It was killed by
/// the signal before.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn follow_stops_on_sigterm() {
    let sim = Sim::manual().await;
    let t = sim.trader(1_000).await;
    let mut follow = Follow::spawn(&sim, &t.wallet_hex(), "");
    let first = follow.until("the account", |_| true).await;
    assert_eq!(first["event"], "account", "{first}");
    let term = std::process::Command::new("kill")
        .args(["-TERM", &follow.child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    // Bounded: a follow that ignored the signal is killed by the drop and fails here.
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = follow.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "positions --follow ignored SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(status.code(), Some(0), "{status:?}");
}
