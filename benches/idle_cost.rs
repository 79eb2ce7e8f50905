//! What staying current costs: the `--watch` UI in a 120x40 pseudo-terminal (util-linux
//! `script`) against the simulator on loopback, in two markets:
//!
//! - idle: a quiet market. The simulator runs on its manual clock, moved on for a while first so
//!   the crowd opens positions, then left standing: marks and the watched account stay as they
//!   are, while the UI keeps polling, the account stream keeps its heartbeats and the chart's
//!   candles keep being fetched, exactly as against a quiet exchange.
//! - pinned: the real clock, every market's price pinned where it stands (`/sim/price`) and the
//!   crowd stopped with its positions open: time runs (blocks, heartbeats, candle refetches) and
//!   nothing shown moves. Nothing may be written to the terminal.
//! - live: the simulator on the real clock, prices walking and the crowd trading.
//!
//! For each, after a settle: the UI process's CPU time over a window (utime+stime from
//! `/proc/PID/stat`, and the threads' `schedstat` run time, which counts nanoseconds rather
//! than clock ticks) as % of one core, and the bytes and frames it wrote to the terminal a
//! second.
//!
//! `cargo bench --bench idle_cost` measures (release; 60 s windows after a 15 s settle;
//! `IDLE_COST_WINDOW_S` and `IDLE_COST_SETTLE_S` override, and `IDLE_COST_BIN` runs another
//! build of the binary, e.g. an older commit's, against the same simulator). `cargo test --bench
//! idle_cost`, as CI runs it, goes through the same steps with 2 s windows on the debug build,
//! so it keeps working; its figures mean nothing. Linux only (`/proc`).

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use alloy_primitives::Address;
use papertrade_tui::sim::{SimConfig, SimServer};

const ROWS: u16 = 40;
const COLS: u16 = 120;
/// Begin synchronized update: the real terminal wraps every frame in it, so it counts frames.
const FRAME_START: &[u8] = b"\x1b[?2026h";

fn main() {
    let measuring = std::env::args().any(|a| a == "--bench");
    let seconds = |name: &str, bench: u64, test: u64| {
        let default = if measuring { bench } else { test };
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(Duration::from_secs(default), Duration::from_secs)
    };
    let window = seconds("IDLE_COST_WINDOW_S", 60, 2);
    let settle = seconds("IDLE_COST_SETTLE_S", 15, 2);
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");

    println!(
        "idle_cost: papertrade-tui --watch in a {COLS}x{ROWS} pseudo-terminal, simulator on loopback"
    );
    println!("machine: {}", machine());
    if let Ok(binary) = std::env::var("IDLE_COST_BIN") {
        println!("binary: {binary}");
    }
    if !measuring {
        println!("(test mode: debug build, short windows; the figures mean nothing)");
    }
    println!("load before: {}", load());
    println!(
        "{:<6} {:>8} {:>14} {:>16} {:>9} {:>9}",
        "market", "window", "cpu utime+st", "cpu schedstat", "pty B/s", "frames/s"
    );
    for market in [Market::Idle, Market::Pinned, Market::Live] {
        let sample = runtime.block_on(measure(market, settle, window));
        println!(
            "{:<6} {:>7.0}s {:>13.3}% {:>15.3}% {:>9.1} {:>9.2}",
            market.name(),
            sample.window.as_secs_f64(),
            sample.cpu_ticks_percent,
            sample.cpu_schedstat_percent,
            sample.bytes_per_s,
            sample.frames_per_s,
        );
    }
    println!("load after: {}", load());
}

#[derive(Clone, Copy)]
enum Market {
    Idle,
    Pinned,
    Live,
}

impl Market {
    fn name(self) -> &'static str {
        match self {
            Market::Idle => "idle",
            Market::Pinned => "pinned",
            Market::Live => "live",
        }
    }
}

struct Sample {
    window: Duration,
    cpu_ticks_percent: f64,
    cpu_schedstat_percent: f64,
    bytes_per_s: f64,
    frames_per_s: f64,
}

async fn measure(market: Market, settle: Duration, window: Duration) -> Sample {
    let sim = SimServer::start(
        SimConfig {
            seed: 11,
            crowd: 12,
            manual_clock: matches!(market, Market::Idle),
            ..SimConfig::default()
        },
        SocketAddr::from(([127, 0, 0, 1], 0)),
    )
    .await
    .expect("the simulator on loopback");
    match market {
        // Ten minutes of trading, then the clock stands still.
        Market::Idle => {
            let http = reqwest::Client::new();
            for _ in 0..20 {
                let r = http
                    .post(format!("{}/sim/clock", sim.base_url()))
                    .header("content-type", "application/json")
                    .body(r#"{"advanceMs":"30000"}"#)
                    .send()
                    .await
                    .expect("/sim/clock");
                assert!(r.status().is_success(), "/sim/clock: {}", r.status());
            }
        }
        // The crowd holds its opening positions and stops; each price stays where it is.
        Market::Pinned => {
            let mids = sim.shared.with_engine(|e| {
                e.crowd.stop();
                e.trading
                    .instruments
                    .iter()
                    .filter_map(|m| Some((m.symbol.clone(), e.mark(m.id)?, m.price_scale)))
                    .collect::<Vec<_>>()
            });
            let http = reqwest::Client::new();
            for (symbol, raw, scale) in mids {
                let price = match scale.ilog10() as usize {
                    0 => raw.to_string(),
                    decimals => format!("{}.{:0decimals$}", raw / scale, raw % scale),
                };
                let r = http
                    .post(format!("{}/sim/price", sim.base_url()))
                    .header("content-type", "application/json")
                    .body(format!(r#"{{"market":"{symbol}","price":"{price}"}}"#))
                    .send()
                    .await
                    .expect("/sim/price");
                assert!(r.status().is_success(), "/sim/price: {}", r.status());
            }
        }
        // The crowd acts every 20 s on average: give it a moment to hold positions.
        Market::Live => tokio::time::sleep(settle.min(Duration::from_secs(5))).await,
    }
    let wallet = busiest_wallet(&sim);
    let home = tempfile::tempdir().expect("a temporary home");
    let ui = tokio::task::block_in_place(|| Ui::start(&sim, wallet, home.path()));
    // The first frame, then the first answers of every read and the chart's candles.
    ui.wait_for_first_frame(Duration::from_secs(30));
    tokio::time::sleep(settle).await;
    let (t0, cpu0, ns0, bytes0, frames0) = (
        Instant::now(),
        ui.cpu_ticks(),
        ui.schedstat_ns(),
        ui.bytes(),
        ui.frames(),
    );
    tokio::time::sleep(window).await;
    let elapsed = t0.elapsed().as_secs_f64();
    let ticks = (ui.cpu_ticks() - cpu0) as f64 / clock_ticks_per_second();
    let ns = ui.schedstat_ns().saturating_sub(ns0) as f64 / 1e9;
    let sample = Sample {
        window: t0.elapsed(),
        cpu_ticks_percent: 100.0 * ticks / elapsed,
        cpu_schedstat_percent: 100.0 * ns / elapsed,
        bytes_per_s: (ui.bytes() - bytes0) as f64 / elapsed,
        frames_per_s: (ui.frames() - frames0) as f64 / elapsed,
    };
    tokio::task::block_in_place(|| ui.quit());
    sample
}

/// The crowd wallet holding the most positions with nothing queued (so the watched account is
/// as quiet as the market in the idle run).
fn busiest_wallet(sim: &SimServer) -> Address {
    sim.shared.with_engine(|e| {
        e.crowd
            .wallets()
            .into_iter()
            .max_by_key(|w| {
                e.account(*w).map_or((false, 0), |a| {
                    (a.state.operations.is_empty(), a.state.open_positions.len())
                })
            })
            .expect("a crowd")
    })
}

/// The UI under `script`, its output counted as it arrives.
struct Ui {
    script: Child,
    stdin: ChildStdin,
    pid: u32,
    bytes: Arc<AtomicU64>,
    frames: Arc<AtomicU64>,
    reader: std::thread::JoinHandle<()>,
}

impl Ui {
    fn start(sim: &SimServer, wallet: Address, home: &Path) -> Self {
        let binary = std::env::var("IDLE_COST_BIN")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_papertrade-tui").to_string());
        let inner = format!(
            "stty rows {ROWS} cols {COLS}; exec '{binary}' --api '{}' --info-url '{}' --watch {wallet:#x}",
            sim.base_url(),
            sim.info_url()
        );
        let mut script = Command::new("script")
            .args(["-qfec", &inner, "/dev/null"])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("TERM", "xterm-256color")
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("PAPERTRADE_TUI_DATA_DIR", home.join("data"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("util-linux script (the bsdutils package)");
        let stdin = script.stdin.take().unwrap();
        let mut stdout = script.stdout.take().unwrap();
        let bytes = Arc::new(AtomicU64::new(0));
        let frames = Arc::new(AtomicU64::new(0));
        let reader = {
            let (bytes, frames) = (bytes.clone(), frames.clone());
            std::thread::spawn(move || {
                let mut chunk = [0u8; 16384];
                // The last few bytes of the previous chunk, so a marker split across two
                // chunks is still counted once.
                let mut carry: Vec<u8> = Vec::new();
                while let Ok(n) = stdout.read(&mut chunk) {
                    if n == 0 {
                        return;
                    }
                    carry.extend_from_slice(&chunk[..n]);
                    let found = carry
                        .windows(FRAME_START.len())
                        .filter(|w| *w == FRAME_START)
                        .count();
                    frames.fetch_add(found as u64, Ordering::Relaxed);
                    bytes.fetch_add(n as u64, Ordering::Relaxed);
                    let keep = carry.len().min(FRAME_START.len() - 1);
                    carry.drain(..carry.len() - keep);
                }
            })
        };
        let pid = ui_pid(script.id(), Path::new(&binary), Duration::from_secs(10));
        Self {
            script,
            stdin,
            pid,
            bytes,
            frames,
            reader,
        }
    }

    fn wait_for_first_frame(&self, within: Duration) {
        let deadline = Instant::now() + within;
        while self.frames() == 0 {
            assert!(
                Instant::now() < deadline,
                "the UI drew nothing in {within:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    fn frames(&self) -> u64 {
        self.frames.load(Ordering::Relaxed)
    }

    /// utime + stime of the whole process (exited threads included), in clock ticks.
    fn cpu_ticks(&self) -> u64 {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.pid)).expect("the UI is running");
        // After the command name's closing parenthesis: field 3 (state) onwards.
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        let field = |n: usize| fields[n - 3].parse::<u64>().unwrap();
        field(14) + field(15)
    }

    /// Time on a CPU of the process's live threads, in nanoseconds (0 where the kernel keeps
    /// no schedstat).
    fn schedstat_ns(&self) -> u64 {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{}/task", self.pid)) else {
            return 0;
        };
        tasks
            .flatten()
            .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
            .filter_map(|s| s.split(' ').next()?.parse::<u64>().ok())
            .sum()
    }

    /// `q`, as a user would quit; killed if it does not end.
    fn quit(mut self) {
        let _ = self.stdin.write_all(b"q");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.script.try_wait().ok().flatten().is_none() {
            if Instant::now() > deadline {
                let _ = self.script.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.script.wait();
        drop(self.stdin);
        let _ = self.reader.join();
    }
}

/// The UI's process id: `script`'s child once its shell has exec'd `binary`.
fn ui_pid(script: u32, binary: &Path, within: Duration) -> u32 {
    let binary = binary.canonicalize().expect("the binary exists");
    let deadline = Instant::now() + within;
    loop {
        let children = std::fs::read_to_string(format!("/proc/{script}/task/{script}/children"))
            .unwrap_or_default();
        for pid in children
            .split_whitespace()
            .filter_map(|p| p.parse::<u32>().ok())
        {
            if std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == binary) {
                return pid;
            }
        }
        assert!(
            Instant::now() < deadline,
            "{} did not start under script",
            binary.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn clock_ticks_per_second() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}

fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown CPU", |(_, m)| m.trim());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{model}, {cores} cores")
}

/// The 1, 5 and 15 minute load averages.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}
