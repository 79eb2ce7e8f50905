//! The real binary in a pseudo-terminal (util-linux `script` allocates one, 40x120), fed keys,
//! with what it draws read through a vt100 parser as a terminal would show it. Waits are woken
//! by each chunk the binary writes, so nothing here sleeps.

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub const ROWS: u16 = 40;
pub const COLS: u16 = 120;

/// What the binary has written so far.
struct Drawn {
    parser: vt100::Parser,
    bytes: Vec<u8>,
    /// The terminal closed: the binary (and `script`) exited.
    closed: bool,
}

pub struct Pty {
    child: Child,
    stdin: ChildStdin,
    drawn: Arc<(Mutex<Drawn>, Condvar)>,
    reader: JoinHandle<()>,
    stderr: (Arc<Mutex<Vec<u8>>>, JoinHandle<()>),
}

/// How a run ended.
pub struct Finished {
    /// `None`: it had not exited in time and was killed.
    pub status: Option<ExitStatus>,
    /// The last screen.
    pub screen: String,
    /// Every byte drawn, escapes included.
    pub drawn: String,
    pub stderr: String,
    /// The terminal was left on its main screen (a UI that quits must leave the alternate one).
    pub restored: bool,
}

impl Pty {
    /// Start the binary with `args` and only `env` (plus `TERM`) in its environment.
    pub fn spawn(args: &[String], env: &[(String, String)]) -> Self {
        let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
        let argv: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_papertrade-tui"))
            .chain(args.iter().map(String::as_str))
            .map(quote)
            .collect();
        let inner = format!("stty rows {ROWS} cols {COLS}; exec {}", argv.join(" "));
        let mut child = Command::new("script")
            .args(["-qfec", &inner, "/dev/null"])
            .env_clear()
            .envs(env.iter().cloned())
            .env("TERM", "xterm-256color")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("util-linux script");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let stderr = collect(child.stderr.take().unwrap());
        let drawn = Arc::new((
            Mutex::new(Drawn {
                parser: vt100::Parser::new(ROWS, COLS, 0),
                bytes: Vec::new(),
                closed: false,
            }),
            Condvar::new(),
        ));
        let reader = {
            let drawn = drawn.clone();
            std::thread::spawn(move || {
                let mut chunk = [0u8; 8192];
                loop {
                    let n = stdout.read(&mut chunk).unwrap_or(0);
                    let mut d = drawn.0.lock().unwrap();
                    if n == 0 {
                        d.closed = true;
                        drawn.1.notify_all();
                        return;
                    }
                    d.parser.process(&chunk[..n]);
                    d.bytes.extend_from_slice(&chunk[..n]);
                    drawn.1.notify_all();
                }
            })
        };
        Self {
            child,
            stdin,
            drawn,
            reader,
            stderr,
        }
    }

    pub fn keys(&mut self, bytes: &[u8]) {
        // A program that already exited has closed the terminal; its status tells why.
        let _ = self.stdin.write_all(bytes);
        let _ = self.stdin.flush();
    }

    /// Send the program itself (not the `script` around it) a signal, as `kill -SIGNAL` does.
    pub fn signal(&self, signal: &str) {
        let script = self.child.id();
        let children = std::fs::read_to_string(format!("/proc/{script}/task/{script}/children"))
            .expect("the program's pid");
        let pid = children
            .split_whitespace()
            .next()
            .expect("the program runs");
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), pid])
            .status()
            .unwrap();
        assert!(sent.success(), "kill -{signal} {pid}");
    }

    /// What the terminal shows now.
    pub fn contents(&self) -> String {
        self.drawn.0.lock().unwrap().parser.screen().contents()
    }

    /// Wait until the screen is `ready`; false if the program exits or `within` passes first.
    pub fn wait_for(&self, within: Duration, ready: impl Fn(&vt100::Screen) -> bool) -> bool {
        self.wait_until(Instant::now() + within, |d| ready(d.parser.screen()))
    }

    /// Wait (up to 20 s) until the screen shows `text`; fail with the screen if it never does.
    pub fn expect(&self, text: &str) {
        if !self.wait_for(Duration::from_secs(20), |s| s.contents().contains(text)) {
            panic!("{text:?} never appeared; the screen:\n{}", self.contents());
        }
    }

    /// Wait for the exit (killing the program past `within`) and collect what it left.
    pub fn finish(mut self, within: Duration) -> Finished {
        let exited = self.wait_until(Instant::now() + within, |d| d.closed);
        if !exited {
            let _ = self.child.kill();
        }
        let status = self.child.wait().ok().filter(|_| exited);
        drop(self.stdin);
        self.reader.join().unwrap();
        self.stderr.1.join().unwrap();
        let d = self.drawn.0.lock().unwrap();
        let stderr = String::from_utf8_lossy(&self.stderr.0.lock().unwrap()).into_owned();
        Finished {
            status,
            screen: d.parser.screen().contents(),
            drawn: String::from_utf8_lossy(&d.bytes).into_owned(),
            stderr,
            restored: !d.parser.screen().alternate_screen(),
        }
    }

    /// Block until `done` holds or the terminal closes (then `done` decides) or the deadline.
    fn wait_until(&self, deadline: Instant, done: impl Fn(&Drawn) -> bool) -> bool {
        let (lock, woken) = &*self.drawn;
        let mut d = lock.lock().unwrap();
        loop {
            if done(&d) {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if d.closed || left.is_zero() {
                return false;
            }
            d = woken.wait_timeout(d, left).unwrap().0;
        }
    }
}

/// Collect a pipe's bytes on a thread.
/// A pipe's bytes so far, and the thread reading it.
pub type Collected = (Arc<Mutex<Vec<u8>>>, JoinHandle<()>);

pub fn collect(mut pipe: impl Read + Send + 'static) -> Collected {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let sink = buf.clone();
    let handle = std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        while let Ok(n) = pipe.read(&mut chunk) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&chunk[..n]);
        }
    });
    (buf, handle)
}
