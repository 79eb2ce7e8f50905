//! A hostile exchange on loopback and the real binary against it: endless and oversize bodies,
//! events that never end, servers that accept and then say nothing, patches that never apply,
//! and escape sequences in every string. Each test bounds what the client may spend (bytes,
//! memory, time, connections) and what it must say ("stream lost", a named limit).
//!
//! The server is raw HTTP/1.1 over a tokio `TcpListener` rather than axum so it can misbehave in
//! ways a framework would not let it: no response at all, a body that never ends, a length it
//! never sends.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use papertrade_tui::client::limits;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{MAINNET_TRADING, command, text};

/// The watched wallet (no key material is involved: `positions --watch`).
const WALLET: &str = "0x00000000000000000000000000000000000000aa";
/// The deposit proxy the hostile relayer names.
const PROXY: &str = "0x00000000000000000000000000000000000000bb";

/// However hostile, the fixture never sends more than this on one connection, so a client that
/// fails to stop cannot take the test machine down with it; it then holds the connection open.
const SERVER_CEILING: u64 = 96 << 20;

/// Room for what the kernel and hyper buffer between the fixture's writes and the client's
/// parser on loopback (socket buffers of a few MiB each way, a read buffer).
const BUFFER_SLACK: u64 = 16 << 20;

/// What a plain endpoint answers.
#[derive(Clone)]
pub enum Reply {
    Json(String),
    Status(u16, String),
    /// A chunked body that never ends, under this status.
    Endless(u16),
    /// `Content-Length` declares this many bytes; the body then never ends.
    Declared(u64),
    /// One byte every 50 ms, forever, under a `Content-Length` that is never reached.
    Trickle,
    /// Read the request, never answer.
    Silent,
    /// `429 Too Many Requests` with `Retry-After` in whole seconds.
    TooMany(u64),
}

/// One account-stream connection.
#[derive(Clone)]
pub struct Conn {
    /// `false`: accept the request and never answer it, not even the status line.
    pub headers: bool,
    /// Raw SSE text written at once after the headers.
    pub opening: String,
    pub tail: Tail,
}

#[derive(Clone, Copy)]
pub enum Tail {
    /// Say nothing more; keep the connection open.
    Hold,
    Heartbeats(Duration),
    /// `data:` lines with no blank line, ever.
    EndlessData,
}

impl Conn {
    pub fn silent() -> Self {
        Self {
            headers: false,
            opening: String::new(),
            tail: Tail::Hold,
        }
    }

    pub fn headers_only() -> Self {
        Self {
            headers: true,
            opening: String::new(),
            tail: Tail::Hold,
        }
    }

    /// `: connected`, liveness, a snapshot at `revision`, then `tail`.
    pub fn synced(heartbeat_ms: u64, revision: u64, tail: Tail) -> Self {
        Self {
            headers: true,
            opening: format!(
                ": connected\n\n{}{}",
                liveness(heartbeat_ms),
                wallet_event(&snapshot(revision))
            ),
            tail,
        }
    }

    pub fn then(mut self, more: &str) -> Self {
        self.opening.push_str(more);
        self
    }
}

pub struct Plan {
    pub trading: Reply,
    /// `None`: a sane book for every coin.
    pub book: Option<Reply>,
    pub rank: Reply,
    /// `POST /intents`.
    pub intents: Reply,
    /// Stream connections in order; the last one repeats.
    pub streams: VecDeque<Conn>,
    /// The stream of one wallet (lowercase `0x…`), whatever `streams` holds.
    pub wallet_streams: Vec<(String, Conn)>,
    /// `GET /state/leaderboard/accounts` answers in order; the last one repeats.
    pub leaderboard: VecDeque<Reply>,
    /// `POST /funding/deposits/check`.
    pub deposits: Reply,
    /// `POST /evm`, the HyperEVM JSON-RPC a deposit verifies its proxy on.
    pub evm: Reply,
}

impl Plan {
    /// The default endpoints with these stream connections, in order (the last repeats).
    pub fn with_streams(streams: impl IntoIterator<Item = Conn>) -> Self {
        Self {
            streams: streams.into_iter().collect(),
            ..Self::default()
        }
    }
}

impl Default for Plan {
    fn default() -> Self {
        Self {
            trading: Reply::Json(MAINNET_TRADING.to_string()),
            book: None,
            rank: Reply::Json(r#"{"ok":true,"queueRevision":"1","entries":[]}"#.into()),
            intents: Reply::Status(404, r#"{"ok":false,"error":"not_found"}"#.into()),
            streams: VecDeque::from([Conn::synced(
                1000,
                1,
                Tail::Heartbeats(Duration::from_millis(300)),
            )]),
            wallet_streams: Vec::new(),
            leaderboard: VecDeque::from([Reply::Json(leaderboard_page(&[]))]),
            deposits: Reply::Json(format!(r#"{{"proxy":"{PROXY}"}}"#)),
            evm: Reply::Silent,
        }
    }
}

/// The next of `replies`: the first, taken, while more follow; the last repeats.
fn next_of<T: Clone>(replies: &mut VecDeque<T>) -> T {
    if replies.len() > 1 {
        replies.pop_front().unwrap()
    } else {
        replies[0].clone()
    }
}

/// One connection the fixture served: which path, when, and how many bytes it wrote.
#[derive(Clone)]
pub struct Served {
    pub path: String,
    pub at: Instant,
    pub bytes: Arc<AtomicU64>,
}

pub struct Hostile {
    pub addr: SocketAddr,
    served: Arc<Mutex<Vec<Served>>>,
    _runtime: tokio::runtime::Runtime,
}

impl Hostile {
    pub fn start(plan: Plan) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let plan = Arc::new(Mutex::new(plan));
        let served = Arc::new(Mutex::new(Vec::new()));
        let log = served.clone();
        runtime.spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(handle(socket, plan.clone(), log.clone()));
            }
        });
        Self {
            addr,
            served,
            _runtime: runtime,
        }
    }

    pub fn api(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn info(&self) -> String {
        format!("http://{}/info", self.addr)
    }

    /// Every connection to `path` so far.
    pub fn served(&self, path: &str) -> Vec<Served> {
        let all = self.served.lock().unwrap();
        all.iter().filter(|s| s.path == path).cloned().collect()
    }

    /// `args` plus this fixture's `--api` and `--info-url`.
    pub fn args(&self, args: &[&str]) -> Vec<String> {
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.extend(["--api".into(), self.api(), "--info-url".into(), self.info()]);
        all
    }
}

async fn handle(mut socket: TcpStream, plan: Arc<Mutex<Plan>>, log: Arc<Mutex<Vec<Served>>>) {
    let Some((path, body)) = read_request(&mut socket).await else {
        return;
    };
    let route = path.split('?').next().unwrap_or_default().to_string();
    let bytes = Arc::new(AtomicU64::new(0));
    log.lock().unwrap().push(Served {
        path: route.clone(),
        at: Instant::now(),
        bytes: bytes.clone(),
    });
    let mut out = Out { socket, bytes };
    let (conn, reply) = {
        let mut plan = plan.lock().unwrap();
        match route.as_str() {
            "/state/user/live" => {
                let wallet = path.split("wallet=").nth(1).unwrap_or_default();
                let conn = match plan.wallet_streams.iter().find(|(w, _)| w == wallet) {
                    Some((_, conn)) => conn.clone(),
                    None => next_of(&mut plan.streams),
                };
                (Some(conn), None)
            }
            "/state/leaderboard/accounts" => (None, Some(next_of(&mut plan.leaderboard))),
            "/state/trading" => (None, Some(plan.trading.clone())),
            "/info" => {
                let request: Value = serde_json::from_slice(&body).unwrap_or_default();
                let reply = match (&plan.book, request["type"].as_str()) {
                    (Some(reply), Some("l2Book")) => reply.clone(),
                    (None, Some("l2Book")) => {
                        Reply::Json(book(request["coin"].as_str().unwrap_or_default()))
                    }
                    _ => Reply::Json("[]".into()),
                };
                (None, Some(reply))
            }
            r if r.starts_with("/queue-rank/") => (None, Some(plan.rank.clone())),
            "/intents" => (None, Some(plan.intents.clone())),
            "/funding/deposits/check" => (None, Some(plan.deposits.clone())),
            "/evm" => (None, Some(plan.evm.clone())),
            _ => (
                None,
                Some(Reply::Status(
                    404,
                    r#"{"ok":false,"error":"not_found"}"#.into(),
                )),
            ),
        }
    };
    let _ = match (conn, reply) {
        (Some(conn), _) => stream(&mut out, conn).await,
        (None, Some(reply)) => answer(&mut out, reply).await,
        (None, None) => Ok(()),
    };
}

/// The request's path and body (requests are small; anything odd ends the connection).
async fn read_request(socket: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 || buf.len() > 64 * 1024 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let path = head.split_whitespace().nth(1)?.to_string();
    let length = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((path, body))
}

struct Out {
    socket: TcpStream,
    bytes: Arc<AtomicU64>,
}

impl Out {
    async fn write(&mut self, data: &[u8]) -> std::io::Result<()> {
        self.socket.write_all(data).await?;
        self.bytes.fetch_add(data.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    fn sent(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Keep the connection open, saying nothing, until the client hangs up.
    async fn hold(&mut self) -> std::io::Result<()> {
        let mut sink = [0u8; 1024];
        while self.socket.read(&mut sink).await? > 0 {}
        Ok(())
    }
}

async fn answer(out: &mut Out, reply: Reply) -> std::io::Result<()> {
    let head = |status: u16, extra: &str| {
        format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\nconnection: close\r\n{extra}\r\n"
        )
    };
    let status = match &reply {
        Reply::Status(status, _) => *status,
        _ => 200,
    };
    match reply {
        Reply::Json(body) | Reply::Status(_, body) => {
            let extra = format!("content-length: {}\r\n", body.len());
            out.write(head(status, &extra).as_bytes()).await?;
            out.write(body.as_bytes()).await
        }
        Reply::Endless(status) => {
            out.write(head(status, "transfer-encoding: chunked\r\n").as_bytes())
                .await?;
            let piece = vec![b'1'; 64 * 1024];
            out.write(b"1\r\n[\r\n").await?;
            while out.sent() < SERVER_CEILING {
                out.write(format!("{:x}\r\n", piece.len()).as_bytes())
                    .await?;
                out.write(&piece).await?;
                out.write(b"\r\n").await?;
            }
            out.hold().await
        }
        Reply::Declared(length) => {
            let extra = format!("content-length: {length}\r\n");
            out.write(head(200, &extra).as_bytes()).await?;
            let piece = vec![b' '; 64 * 1024];
            while out.sent() < SERVER_CEILING.min(length) {
                out.write(&piece).await?;
            }
            out.hold().await
        }
        Reply::Trickle => {
            out.write(head(200, "content-length: 1000000\r\n").as_bytes())
                .await?;
            loop {
                out.write(b" ").await?;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        Reply::Silent => out.hold().await,
        Reply::TooMany(seconds) => {
            let body = r#"{"ok":false,"error":"rate_limited"}"#;
            let extra = format!(
                "retry-after: {seconds}\r\ncontent-length: {}\r\n",
                body.len()
            );
            out.write(head(429, &extra).as_bytes()).await?;
            out.write(body.as_bytes()).await
        }
    }
}

async fn stream(out: &mut Out, conn: Conn) -> std::io::Result<()> {
    if !conn.headers {
        return out.hold().await;
    }
    // No length and no chunking: the body runs until the connection closes, as SSE allows.
    out.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n").await?;
    out.write(conn.opening.as_bytes()).await?;
    match conn.tail {
        Tail::Hold => out.hold().await,
        Tail::Heartbeats(every) => loop {
            tokio::time::sleep(every).await;
            out.write(b"event: heartbeat\ndata: null\n\n").await?;
        },
        Tail::EndlessData => {
            let mut line = b"data: ".to_vec();
            line.extend(std::iter::repeat_n(b'x', 64 * 1024));
            line.push(b'\n');
            while out.sent() < SERVER_CEILING {
                out.write(&line).await?;
            }
            out.hold().await
        }
    }
}

pub fn liveness(heartbeat_ms: u64) -> String {
    format!("event: liveness\ndata: {{\"heartbeatIntervalMs\":{heartbeat_ms}}}\n\n")
}

pub fn wallet_event(data: &str) -> String {
    format!("event: wallet\ndata: {data}\n\n")
}

/// A consistent snapshot of `WALLET`: $1000, nothing open.
pub fn snapshot(revision: u64) -> String {
    snapshot_of(WALLET, revision)
}

/// A consistent snapshot of `wallet`: $1000, nothing open.
pub fn snapshot_of(wallet: &str, revision: u64) -> String {
    let usd = "1000000000000000000000";
    format!(
        r#"{{"address":"{wallet}","indexedThroughBlock":100,"indexedThroughTimestamp":1791862827,"sessionKeys":[],"walletRevision":90,"queueRevision":"1","balance":"{usd}","queued":"0","locked":"0","funds":{{"reservedBalance":"0","reservedQueued":"0","availableBalance":"{usd}","availableQueued":"0"}},"queueNodeCount":0,"consumableDebt":"0","paper":{{"balance":"0","staked":"0","pendingBase":"0","rewardDebt":"0"}},"lifetime":{{"depositedRaw":"{usd}","withdrawnRaw":"0","realizedPnlRaw":"0","feesPaidRaw":"0","tradedNotionalRaw":"0","paperRewardsClaimedRaw":"0"}},"openPositions":[],"operations":[],"accountRevision":{revision}}}"#
    )
}

/// A well-formed patch on top of `base` that removes a position nobody holds: out of sync.
pub fn unappliable_patch(base: u64) -> String {
    format!(
        r#"{{"address":"{WALLET}","accountRevision":{},"baseAccountRevision":{base},"addedPositions":[],"removedPositionIds":["411276"],"addedOperations":[],"removedOperationIds":[]}}"#,
        base + 1
    )
}

/// One leaderboard page listing `wallets` (a single page), open notional descending.
pub fn leaderboard_page(wallets: &[&str]) -> String {
    let rows: Vec<String> = wallets
        .iter()
        .enumerate()
        .map(|(i, w)| {
            format!(
                r#"{{"address":"{w}","leaderboardName":null,"currentOpenNotional":"{}"}}"#,
                (wallets.len() - i) as u128 * 1_000_000_000_000_000_000_000
            )
        })
        .collect();
    format!(
        r#"{{"ok":true,"summary":{{"uniqueAccounts":{},"trackedBalance":"0"}},"accounts":[{}],"pageInfo":{{"totalPages":1}}}}"#,
        wallets.len(),
        rows.join(",")
    )
}

fn book(coin: &str) -> String {
    let (bid, ask) = match coin {
        "ETH" => ("2500.00", "2500.02"),
        _ => ("82800.0", "82800.6"),
    };
    format!(
        r#"{{"coin":"{coin}","time":1791862483000,"levels":[[{{"px":"{bid}","sz":"1.5","n":3}}],[{{"px":"{ask}","sz":"2.0","n":4}}]]}}"#
    )
}

/// The real binary, running; stdout arrives line by line with the instant it was read.
struct Running {
    child: Child,
    lines: mpsc::Receiver<(Instant, Vec<u8>)>,
    seen: Vec<(Instant, Vec<u8>)>,
    stderr: Arc<Mutex<Vec<u8>>>,
    readers: Vec<std::thread::JoinHandle<()>>,
    _home: tempfile::TempDir,
}

impl Running {
    fn spawn(args: &[String]) -> Self {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let (mut command, home) = command(&refs);
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, lines) = mpsc::channel();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let out_reader = std::thread::spawn(move || {
            loop {
                let mut line = Vec::new();
                match stdout.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if tx.send((Instant::now(), line)).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = stderr.clone();
        let mut err = child.stderr.take().unwrap();
        let err_reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    return;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Self {
            child,
            lines,
            seen: Vec::new(),
            stderr,
            readers: vec![out_reader, err_reader],
            _home: home,
        }
    }

    /// The first stdout line after those already taken that `pred` accepts, and when it came.
    fn until(
        &mut self,
        what: &str,
        within: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> (Instant, String) {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((at, line)) => {
                    self.seen.push((at, line.clone()));
                    let line = text(&line);
                    if pred(&line) {
                        return (at, line);
                    }
                }
                Err(_) => panic!(
                    "no {what} within {within:?}\nstdout:\n{}\nstderr:\n{}",
                    self.stdout_text(),
                    text(&self.stderr.lock().unwrap())
                ),
            }
        }
    }

    /// Everything read from stdout so far (including what `until` passed over).
    fn stdout_bytes(&mut self) -> Vec<u8> {
        while let Ok(line) = self.lines.try_recv() {
            self.seen.push(line);
        }
        self.seen.iter().flat_map(|(_, l)| l.clone()).collect()
    }

    fn stdout_text(&mut self) -> String {
        text(&self.stdout_bytes())
    }

    /// The process's peak resident memory (Linux; `None` elsewhere).
    fn peak_rss_bytes(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let kib = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))?
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse::<u64>()
            .ok()?;
        Some(kib * 1024)
    }

    /// Wait for the exit (killing it after `within`): status, stdout, stderr, how long it took.
    fn finish(mut self, within: Duration) -> (Option<i32>, Vec<u8>, Vec<u8>, Duration) {
        let start = Instant::now();
        let code = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status.code();
            }
            if start.elapsed() > within {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // The pipes close with the process: the readers end once they have everything.
        for reader in self.readers.drain(..) {
            reader.join().unwrap();
        }
        let out = self.stdout_bytes();
        let err = self.stderr.lock().unwrap().clone();
        (code, out, err, start.elapsed())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The follow lines of `positions --follow --json` (one compact object per line).
fn follow_event(line: &str) -> Option<Value> {
    line.starts_with("{\"event\"")
        .then(|| serde_json::from_str(line).ok())
        .flatten()
}

fn is_event(line: &str, name: &str) -> bool {
    follow_event(line).is_some_and(|v| v["event"] == name)
}

fn mib(bytes: usize) -> String {
    format!("{} MiB", bytes >> 20)
}

#[test]
fn an_event_that_never_ends_is_cut_at_the_cap_and_the_stream_resyncs() {
    let plan = Plan::with_streams([
        Conn::synced(1000, 1, Tail::EndlessData),
        Conn::synced(1000, 2, Tail::Heartbeats(Duration::from_millis(300))),
    ]);
    let server = Hostile::start(plan);
    let mut app =
        Running::spawn(&server.args(&["positions", "--watch", WALLET, "--follow", "--json"]));
    let (_, lost) = app.until("a disconnect", Duration::from_secs(15), |l| {
        is_event(l, "disconnected")
    });
    let reason = follow_event(&lost).unwrap()["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        reason.contains("event") && reason.contains(&mib(limits::SSE_EVENT_CAP)),
        "{reason}"
    );
    app.until("a resync", Duration::from_secs(10), |l| {
        follow_event(l).is_some_and(|v| v["event"] == "synced" && v["accountRevision"] == 2)
    });
    let first = &server.served("/state/user/live")[0];
    let sent = first.bytes.load(Ordering::Relaxed);
    assert!(
        sent <= limits::SSE_EVENT_CAP as u64 + BUFFER_SLACK,
        "the client read {sent} bytes of one event"
    );
    if let Some(peak) = app.peak_rss_bytes() {
        assert!(peak < 160 << 20, "peak RSS {peak} bytes");
    }
}

#[test]
fn endless_and_oversize_bodies_fail_naming_the_endpoint_and_its_cap() {
    for reply in [Reply::Endless(200), Reply::Declared(1_500_000_000)] {
        let plan = Plan {
            trading: reply,
            ..Plan::default()
        };
        let server = Hostile::start(plan);
        let app = Running::spawn(&server.args(&["markets"]));
        let (code, _, err, took) = app.finish(Duration::from_secs(20));
        let err = text(&err);
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.contains("/state/trading") && err.contains(&mib(limits::TRADING_STATE_CAP)),
            "{err}"
        );
        assert!(took < Duration::from_secs(5), "took {took:?}: {err}");
        let sent: u64 = server
            .served("/state/trading")
            .iter()
            .map(|s| s.bytes.load(Ordering::Relaxed))
            .sum();
        assert!(
            sent <= limits::TRADING_STATE_CAP as u64 + BUFFER_SLACK,
            "the client read {sent} bytes"
        );
    }
    // A mark's book too: the market stays listed, its mark names the limit it broke.
    let plan = Plan {
        book: Some(Reply::Endless(200)),
        ..Plan::default()
    };
    let server = Hostile::start(plan);
    let app = Running::spawn(&server.args(&["markets", "--json"]));
    let (code, out, err, _) = app.finish(Duration::from_secs(20));
    assert_eq!(code, Some(0), "{}", text(&err));
    let v: Value = serde_json::from_slice(&out).unwrap();
    let error = v["markets"][0]["markError"].as_str().unwrap_or_default();
    assert!(
        error.contains("l2Book") && error.contains(&mib(limits::INFO_BOOK_CAP)),
        "{v}"
    );
}

#[test]
fn a_server_silent_at_any_stage_is_noticed_and_the_stream_recovers() {
    let plan = Plan::with_streams([
        // Synced, then nothing: no heartbeat, no close.
        Conn::synced(1000, 1, Tail::Hold),
        // Accepts and never answers the request.
        Conn::silent(),
        // Answers the headers and then never sends an event.
        Conn::headers_only(),
        Conn::synced(1000, 2, Tail::Heartbeats(Duration::from_millis(300))),
    ]);
    let server = Hostile::start(plan);
    let mut app = Running::spawn(&server.args(&["positions", "--watch", WALLET, "--follow"]));
    let (mut last, _) = app.until("following", Duration::from_secs(10), |l| {
        l.starts_with("following")
    });
    // Each stage is given up after three of the server's own 1 s heartbeats, plus the backoff.
    let bound = 3 * limits::HEARTBEAT_MIN + Duration::from_secs(2);
    for stage in ["silence after the snapshot", "no headers", "no first event"] {
        let (at, line) = app.until(stage, bound * 2, |l| l.starts_with("stream lost"));
        assert!(
            at - last <= bound,
            "{stage}: {:?} after the previous step: {line}",
            at - last
        );
        last = at;
    }
    app.until("a resync", Duration::from_secs(10), |l| {
        l.starts_with("synced")
    });
    assert_eq!(server.served("/state/user/live").len(), 4);
}

#[test]
fn a_patch_that_never_applies_backs_off_instead_of_storming() {
    let plan = Plan::with_streams([
        Conn::synced(1000, 1, Tail::Hold).then(&wallet_event(&unappliable_patch(1)))
    ]);
    let server = Hostile::start(plan);
    let mut app =
        Running::spawn(&server.args(&["positions", "--watch", WALLET, "--follow", "--json"]));
    // Counted, not slept: five disconnects, each reconnect no sooner than the wait announced
    // before it. A storm reconnects as fast as the patch arrives, again and again.
    let mut waits = Vec::new();
    for _ in 0..5 {
        let (_, line) = app.until("a disconnect", Duration::from_secs(15), |l| {
            is_event(l, "disconnected")
        });
        waits.push(follow_event(&line).unwrap()["retryInMs"].as_u64().unwrap());
    }
    let opened = server.served("/state/user/live");
    assert!(opened.len() >= 5, "{} connections", opened.len());
    for (k, wait) in waits.iter().take(4).enumerate() {
        let gap = opened[k + 1].at - opened[k].at;
        assert!(
            gap >= Duration::from_millis(*wait),
            "reconnect {} after {gap:?}, {wait} ms announced",
            k + 1
        );
    }
    // Backoff doubles from 250 ms with jitter in [½, 1] of each step, up to its ceiling.
    assert!(waits[0] >= 125, "{waits:?}");
    assert!(waits.windows(2).all(|w| w[0] <= w[1]), "{waits:?}");
    assert!(
        waits
            .iter()
            .all(|w| *w <= limits::STREAM_BACKOFF_MAX.as_millis() as u64)
    );
}

#[test]
fn a_tiny_heartbeat_claim_is_clamped_and_causes_no_reconnects() {
    // The server claims 1 ms but beats every 400 ms: trusting the claim, or a floor below the
    // real beat, would drop the stream between two beats, again and again.
    let plan = Plan::with_streams([Conn::synced(
        1,
        1,
        Tail::Heartbeats(Duration::from_millis(400)),
    )]);
    let server = Hostile::start(plan);
    let mut app =
        Running::spawn(&server.args(&["positions", "--watch", WALLET, "--follow", "--json"]));
    app.until("the account", Duration::from_secs(10), |l| {
        l.starts_with('{')
    });
    // Counted, not slept: the server writes five more beats (2 s) on the one connection. The
    // old 100 ms floor gave up after 300 ms of quiet; the clamp allows 3 s.
    let beat = b"event: heartbeat\ndata: null\n\n".len() as u64;
    let stream = &server.served("/state/user/live")[0];
    let written = || stream.bytes.load(Ordering::Relaxed);
    let (before, deadline) = (written(), Instant::now() + Duration::from_secs(15));
    while written() < before + 5 * beat {
        assert!(
            Instant::now() < deadline,
            "the server stopped beating: {}",
            app.stdout_text()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        server.served("/state/user/live").len(),
        1,
        "{}",
        app.stdout_text()
    );
    assert!(!app.stdout_text().contains("disconnected"));
}

/// ESC, BEL, CSI, OSC and C1 controls in every string the exchange sends.
const NASTY: &str = r"\u001b[2J\u001b]0;owned\u0007\u009b31m\r\u0008evil";

/// No C0 control but newline and tab, no DEL, no C1 control: nothing a terminal would act on.
fn assert_inert(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let bad: Vec<char> = text
        .chars()
        .filter(|c| (c.is_control() && *c != '\n' && *c != '\t') || *c == '\u{7f}')
        .collect();
    assert!(
        bad.is_empty(),
        "{what}: control characters {bad:?} in:\n{text}"
    );
}

#[test]
fn escape_sequences_from_the_exchange_never_reach_the_terminal() {
    let trading = MAINNET_TRADING.replace("\"BTC\"", &format!("\"BTC{NASTY}\""));
    let refusal = format!(r#"{{"ok":false,"error":"{NASTY}","message":"{NASTY}"}}"#);
    let book = format!(
        r#"{{"coin":"{NASTY}","time":1,"levels":[[{{"px":"{NASTY}","sz":"1","n":1}}],[{{"px":"1","sz":"1","n":1}}]]}}"#
    );
    for (label, plan) in [
        (
            "a symbol",
            Plan {
                trading: Reply::Json(trading),
                ..Plan::default()
            },
        ),
        (
            "a refusal",
            Plan {
                trading: Reply::Status(400, refusal.clone()),
                ..Plan::default()
            },
        ),
        (
            "a book",
            Plan {
                book: Some(Reply::Json(book)),
                ..Plan::default()
            },
        ),
    ] {
        let server = Hostile::start(plan);
        let app = Running::spawn(&server.args(&["markets"]));
        let (code, out, err, _) = app.finish(Duration::from_secs(20));
        assert!(code.is_some(), "{label}: hung");
        assert_inert(label, &out);
        assert_inert(label, &err);
    }

    // The stream: a patch whose outcome is an escape sequence, named events and comments made
    // of raw control bytes, a rank with a hostile id; then an error body on the reconnect.
    let raw = "\u{1b}[2J\u{1b}]0;owned\u{7}";
    let outcome = format!(
        r#"{{"address":"{WALLET}","accountRevision":2,"baseAccountRevision":1,"addedPositions":[],"removedPositionIds":[],"addedOperations":[],"removedOperationIds":[],"intentOutcomes":[["0x{}","{NASTY}"]]}}"#,
        "ab".repeat(32)
    );
    let mut plan = Plan {
        rank: Reply::Json(format!(
            r#"{{"ok":true,"queueRevision":"1","entries":[{{"intentId":"{NASTY}","position":"1"}}]}}"#
        )),
        ..Plan::default()
    };
    plan.streams = VecDeque::from([
        Conn::synced(1000, 1, Tail::Hold).then(&format!(
            ":{raw}\n\nevent: {raw}\ndata: {raw}\n\n{}",
            wallet_event(&outcome)
        )),
        Conn {
            headers: true,
            opening: String::new(),
            tail: Tail::Hold,
        },
    ]);
    let server = Hostile::start(plan);
    let mut app = Running::spawn(&server.args(&["positions", "--watch", WALLET, "--follow"]));
    app.until("the bad patch", Duration::from_secs(10), |l| {
        l.starts_with("stream lost")
    });
    let (_, out, err, _) = app.finish(Duration::ZERO);
    assert_inert("the stream", &out);
    assert_inert("the stream", &err);
}

#[test]
fn the_stream_request_and_its_first_event_are_bounded_from_the_first_connection() {
    use papertrade_tui::client::stream::{StreamConfig, spawn_account_stream};
    use papertrade_tui::client::{ExchangeHttp, HttpConfig};
    use papertrade_tui::events::account::StreamEvent;
    let plan = Plan::with_streams([
        Conn::silent(),
        Conn::headers_only(),
        Conn::synced(1000, 1, Tail::Heartbeats(Duration::from_millis(300))),
    ]);
    let server = Hostile::start(plan);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let reasons = runtime.block_on(async {
        let http = ExchangeHttp::new(&server.api(), &server.info(), HttpConfig::default());
        // Before any liveness, the configured heartbeat bounds the wait: 3 × 100 ms here.
        let config = StreamConfig {
            default_heartbeat: Duration::from_millis(100),
            backoff_base: Duration::from_millis(10),
            ..StreamConfig::default()
        };
        let (tx, mut rx) = tokio::sync::mpsc::channel(64);
        let _task = spawn_account_stream(http, WALLET.parse().unwrap(), config, tx);
        let mut reasons = Vec::new();
        loop {
            match tokio::time::timeout(Duration::from_secs(2), rx.recv()).await {
                Ok(Some(StreamEvent::Disconnected { reason, .. })) => reasons.push(reason),
                Ok(Some(StreamEvent::Synced(_))) => return reasons,
                Ok(Some(_)) => {}
                other => panic!("{other:?} after {reasons:?}"),
            }
        }
    });
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(
        reasons[0].contains("no answer to the stream request"),
        "{reasons:?}"
    );
    assert!(reasons[1].contains("no frame or heartbeat"), "{reasons:?}");
}

#[test]
fn a_read_is_bounded_in_time_per_attempt_and_in_total() {
    use papertrade_tui::client::{ExchangeHttp, HttpConfig};
    let config = HttpConfig {
        request_timeout: Duration::from_millis(300),
        read_deadline: Duration::from_millis(800),
        attempts: 10,
        base_backoff: Duration::from_millis(100),
        ..HttpConfig::default()
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    // A body that trickles in is cut by the attempt's own timeout (it covers the body).
    // A server that never answers is retried, but only until the read's deadline: ten attempts
    // with doubling waits would otherwise take almost a minute.
    for (reply, within) in [
        (Reply::Trickle, config.request_timeout),
        (Reply::Silent, config.read_deadline),
    ] {
        let server = Hostile::start(Plan {
            trading: reply,
            ..Plan::default()
        });
        let http = ExchangeHttp::new(&server.api(), &server.info(), config.clone());
        let start = Instant::now();
        let result = runtime.block_on(http.trading_state());
        let took = start.elapsed();
        assert!(result.is_err());
        assert!(
            took < within + Duration::from_millis(500),
            "{took:?}: {:?}",
            result.err()
        );
    }
}

#[test]
fn error_bodies_and_submission_answers_are_capped_too() {
    use papertrade_tui::client::{ExchangeHttp, FetchError, HttpConfig};
    let server = Hostile::start(Plan {
        trading: Reply::Endless(400),
        intents: Reply::Endless(200),
        ..Plan::default()
    });
    let http = ExchangeHttp::new(&server.api(), &server.info(), HttpConfig::default());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let start = Instant::now();
    // A refusal is still reported by its status; only its unreadable detail is dropped.
    let refused = runtime.block_on(http.trading_state());
    assert!(
        matches!(
            refused,
            Err(FetchError::Status {
                status: 400,
                detail: None,
                ..
            })
        ),
        "{refused:?}"
    );
    // A submission whose answer never ends may or may not have been queued: no answer.
    let answer = runtime.block_on(http.post_intent("/intents", "{}"));
    let reason = answer.unwrap_err().0;
    assert!(
        reason.contains(&limits::bytes_text(limits::ANSWER_CAP)),
        "{reason}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    for path in ["/state/trading", "/intents"] {
        let sent = server.served(path)[0].bytes.load(Ordering::Relaxed);
        assert!(
            sent <= limits::ANSWER_CAP as u64 + BUFFER_SLACK,
            "{path}: {sent} bytes"
        );
    }
}

#[test]
fn an_oversize_leaderboard_page_is_refused_within_its_cap_naming_it() {
    // The board itself and the scan behind the liquidation views read it the same way.
    for (args, reply) in [
        (&["leaderboard"][..], Reply::Endless(200)),
        (&["leaderboard"][..], Reply::Declared(1_500_000_000)),
        (&["bust-map", "--market", "BTC"][..], Reply::Endless(200)),
    ] {
        let server = Hostile::start(Plan {
            leaderboard: VecDeque::from([reply]),
            ..Plan::default()
        });
        let app = Running::spawn(&server.args(args));
        let (code, _, err, took) = app.finish(Duration::from_secs(20));
        let err = text(&err);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(
            err.contains("/state/leaderboard/accounts")
                && err.contains(&mib(limits::LEADERBOARD_CAP)),
            "{args:?}: {err}"
        );
        assert!(took < Duration::from_secs(10), "{args:?} took {took:?}");
        let sent: u64 = server
            .served("/state/leaderboard/accounts")
            .iter()
            .map(|s| s.bytes.load(Ordering::Relaxed))
            .sum();
        assert!(
            sent <= limits::LEADERBOARD_CAP as u64 + BUFFER_SLACK,
            "{args:?}: the client read {sent} bytes"
        );
    }
}

#[test]
fn a_stalled_snapshot_in_a_scan_fails_that_wallet_alone() {
    use papertrade_tui::client::scan::SNAPSHOT_TIMEOUT;
    let wallets = [
        "0x00000000000000000000000000000000000000a1",
        "0x00000000000000000000000000000000000000a2",
        "0x00000000000000000000000000000000000000a3",
    ];
    let synced = |w: &str| Conn {
        headers: true,
        opening: format!(
            ": connected\n\n{}{}",
            liveness(1000),
            wallet_event(&snapshot_of(w, 1))
        ),
        tail: Tail::Heartbeats(Duration::from_millis(300)),
    };
    // The second wallet's stream answers its headers and then says nothing.
    let server = Hostile::start(Plan {
        leaderboard: VecDeque::from([Reply::Json(leaderboard_page(&wallets))]),
        wallet_streams: vec![
            (wallets[0].into(), synced(wallets[0])),
            (wallets[1].into(), Conn::headers_only()),
            (wallets[2].into(), synced(wallets[2])),
        ],
        ..Plan::default()
    });
    let app = Running::spawn(&server.args(&["bust-map", "--market", "BTC", "--json"]));
    let (code, out, err, took) = app.finish(SNAPSHOT_TIMEOUT * 3);
    assert_eq!(code, Some(0), "{}", text(&err));
    let v: Value = serde_json::from_slice(&out).unwrap();
    let scan = &v["scan"];
    assert_eq!(scan["walletsListed"], 3, "{scan}");
    assert_eq!(scan["walletsScanned"], 2, "{scan}");
    let failed = scan["walletsFailed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "{scan}");
    assert_eq!(failed[0]["wallet"], wallets[1]);
    assert!(
        failed[0]["reason"]
            .as_str()
            .unwrap()
            .contains("no snapshot in time"),
        "{scan}"
    );
    // The stall costs its own timeout, read beside the others, not one after another.
    assert!(took >= SNAPSHOT_TIMEOUT, "{took:?}");
    assert!(took < SNAPSHOT_TIMEOUT + Duration::from_secs(8), "{took:?}");
}

#[test]
fn a_429_on_the_leaderboard_is_retried_after_its_retry_after_and_not_before() {
    let wallets = ["0x00000000000000000000000000000000000000a1"];
    let server = Hostile::start(Plan {
        leaderboard: VecDeque::from([Reply::TooMany(2), Reply::Json(leaderboard_page(&wallets))]),
        ..Plan::default()
    });
    let app = Running::spawn(&server.args(&["leaderboard", "--json"]));
    let (code, out, err, _) = app.finish(Duration::from_secs(20));
    assert_eq!(code, Some(0), "{}", text(&err));
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["accounts"][0]["address"], wallets[0], "{v}");
    let served = server.served("/state/leaderboard/accounts");
    assert_eq!(served.len(), 2, "one refusal, one retry");
    let waited = served[1].at - served[0].at;
    assert!(waited >= Duration::from_secs(2), "retried after {waited:?}");
    assert!(waited < Duration::from_secs(4), "retried after {waited:?}");
}

#[test]
fn a_leaderboard_page_that_says_ok_false_is_an_error_not_an_empty_board() {
    let refused = leaderboard_page(&[]).replace(r#""ok":true"#, r#""ok":false"#);
    for args in [&["leaderboard"][..], &["bust-map", "--market", "BTC"][..]] {
        let server = Hostile::start(Plan {
            leaderboard: VecDeque::from([Reply::Json(refused.clone())]),
            ..Plan::default()
        });
        let app = Running::spawn(&server.args(args));
        let (code, _, err, _) = app.finish(Duration::from_secs(20));
        let err = text(&err);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(err.contains("ok: false"), "{args:?}: {err}");
    }
}

/// A deposit's reads — the relayer's proxy, its check on HyperEVM — are bounded like every
/// other: an endless or silent answer fails naming what was read, in bounded time and bytes,
/// and nothing is ever sent to Hyperliquid's `/exchange`.
#[test]
fn a_deposits_reads_are_bounded_and_nothing_is_sent_when_they_fail() {
    let cases = [
        (
            Plan {
                deposits: Reply::Endless(200),
                ..Plan::default()
            },
            "/funding/deposits/check",
            Some(limits::ANSWER_CAP),
        ),
        (
            Plan {
                evm: Reply::Endless(200),
                ..Plan::default()
            },
            "computeProxyAddress",
            Some(1 << 20),
        ),
        (Plan::default(), "/evm: no complete answer within 30s", None),
    ];
    for (plan, named, cap) in cases {
        let server = Hostile::start(plan);
        let rpc = format!("{}/evm", server.api());
        let mut args = server.args(&["deposit", "--amount", "25", "--external", "--yes"]);
        args.extend(["--owner".into(), WALLET.into(), "--rpc-url".into(), rpc]);
        let app = Running::spawn(&args);
        let (code, _, err, took) = app.finish(Duration::from_secs(90));
        let err = text(&err);
        assert_eq!(code, Some(1), "{named}: {err}");
        assert!(err.contains(named), "{named}: {err}");
        if let Some(cap) = cap {
            assert!(err.contains(&limits::bytes_text(cap)), "{named}: {err}");
            assert!(took < Duration::from_secs(10), "{named} took {took:?}");
        } else {
            // Silent: every attempt is cut at its timeout, the whole read at its 30 s deadline
            // (and room for the process to start).
            assert!(took < Duration::from_secs(45), "{named} took {took:?}");
        }
        let sent: u64 = server
            .served("/funding/deposits/check")
            .iter()
            .chain(server.served("/evm").iter())
            .map(|s| s.bytes.load(Ordering::Relaxed))
            .sum();
        assert!(
            sent <= (1 << 20) + BUFFER_SLACK,
            "{named}: the client read {sent} bytes"
        );
        assert!(
            server.served("/exchange").is_empty(),
            "{named}: nothing may be sent when the plan cannot be made"
        );
    }
}

/// `decode_transaction` against a hostile HyperEVM node (one answer to both reads): a plain
/// transfer that reverted is reported as no Papertrade batch; an answer about another
/// transaction, an endless body and an error with escape sequences are tool errors that say
/// what happened, bounded in bytes, with nothing of the escapes.
#[test]
fn decode_transaction_believes_no_hostile_node() {
    use papertrade_tui::client::{ExchangeHttp, HttpConfig};
    use papertrade_tui::mcp::{Reads, Server};
    use papertrade_tui::protocol::order::Deadlines;
    use rmcp::model::ProtocolVersion;

    const HASH: &str = "0x57c85e286520d205709f1fce287fce8944322e0e43155062efeac931fcb01a1a";
    // Read as a transaction and as its receipt alike: each reader takes its own fields.
    let both = |hash: &str, to: &str, status: &str| {
        Reply::Json(format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"hash":"{hash}","transactionHash":"{hash}","from":"{WALLET}","to":"{to}","input":"0xa9059cbb0000","blockNumber":"0x2dd7f0c","status":"{status}"}}}}"#
        ))
    };
    let cases: Vec<(Reply, Result<&str, &str>)> = vec![
        (both(HASH, PROXY, "0x0"), Ok("reverted")),
        (
            both(&format!("0x{}", "11".repeat(32)), PROXY, "0x1"),
            Err("another transaction"),
        ),
        (Reply::Endless(200), Err("exceeds 1 MiB")),
        (
            Reply::Json(
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"\u001b[2Jboom\u0007"}}"#
                    .into(),
            ),
            Err("the node answered"),
        ),
    ];
    for (evm, want) in cases {
        let server = Hostile::start(Plan {
            evm,
            ..Plan::default()
        });
        let reads = Reads {
            http: ExchangeHttp::new(&server.api(), &server.info(), HttpConfig::default())
                .with_rpc_url(&format!("{}/evm", server.api())),
            data_dir: std::env::temp_dir().join("papertrade-tui-mcp-test-no-history"),
            deadlines: Deadlines::default(),
        };
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let (result, took) = runtime.block_on(async {
            let client =
                crate::mcp::connect(Server::new(reads, &[]), ProtocolVersion::V_2025_06_18).await;
            let started = Instant::now();
            let r = crate::mcp::call(
                &client,
                "decode_transaction",
                serde_json::json!({"tx_hash": HASH}),
            )
            .await;
            let took = started.elapsed();
            client.cancel().await.unwrap();
            (r, took)
        });
        let said = result.content[0].as_text().unwrap().text.clone();
        assert!(took < Duration::from_secs(10), "{want:?} took {took:?}");
        assert!(
            !said.contains('\u{1b}') && !said.contains('\u{7}'),
            "{said:?}"
        );
        match want {
            Ok(status) => {
                assert_ne!(result.is_error, Some(true), "{said}");
                let v = result.structured_content.clone().unwrap();
                assert_eq!(v["found"], true);
                assert_eq!(v["status"], status);
                assert_eq!(v["is_batch"], false);
                assert_eq!(v["block_number"], 48_070_412);
                assert_eq!(v["to"], PROXY);
                assert!(v.get("intents").is_none());
                let note = v["intents_note"].as_str().unwrap();
                assert!(note.starts_with("Not a Papertrade batch"), "{note}");
            }
            Err(named) => {
                assert_eq!(result.is_error, Some(true), "{said}");
                assert!(said.contains("HyperEVM could not be read"), "{said}");
                assert!(said.contains(named), "{named}: {said}");
            }
        }
        let sent: u64 = server
            .served("/evm")
            .iter()
            .map(|s| s.bytes.load(Ordering::Relaxed))
            .sum();
        assert!(
            sent <= 2 * ((1 << 20) + BUFFER_SLACK),
            "{want:?}: {sent} bytes"
        );
        drop(runtime);
        drop(server);
    }
}
