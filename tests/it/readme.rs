//! The documentation's promise, "every command line here runs as written": each command line
//! of the ```sh blocks, and each `papertrade-tui …` quoted in the prose, of README.md and of
//! every page in docs/ is read, its placeholders are filled from one table, and it is run with
//! the real binary against an in-process simulator — in a pseudo-terminal where the command
//! opens the terminal UI or asks for a confirmation, and stopped with Ctrl-C where it serves
//! until then.
//!
//! A new line in the README or a new page in docs/ is covered without touching this file; one
//! with a placeholder the table does not know, or a program this file has no rule for, fails and
//! says what to add.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use alloy_primitives::Address;
use alloy_signer_local::PrivateKeySigner;
use papertrade_tui::sim::SimConfig;
use serde_json::Value;

use crate::pty::{Collected, Finished, Pty, collect};
use crate::simkit::Sim;

const BIN: &str = env!("CARGO_BIN_EXE_papertrade-tui");
const SESSION_PASS: &str = "readme session passphrase";
const OWNER_PASS: &str = "readme owner passphrase";

/// The pages whose command lines run: README.md, then every `docs/*.md` (read when the test runs,
/// so a new page is covered without touching this file), each as (its path from the repository
/// root, its text).
fn documents() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |rel: &str| {
        std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    };
    let mut pages: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("the docs/ directory")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    pages.sort();
    assert!(!pages.is_empty(), "no page in docs/");
    std::iter::once("README.md".to_string())
        .chain(pages)
        .map(|rel| {
            let text = read(&rel);
            (rel, text)
        })
        .collect()
}

/// One placeholder of the documentation and what stands for it here.
struct Placeholder {
    text: &'static str,
    means: &'static str,
    value: fn(&World) -> Result<String, String>,
}

/// Every placeholder the documentation's command lines use, each with a real value from this
/// test's simulator or machine: only the reader's own values (their wallet, a wallet or a
/// transaction to look at, the simulator's port), which the pages say to put in; every other word runs as written (no
/// elided `0x12…34`, no id from another run, no `[--optional]` synopsis). Matched where it
/// stands as a whole word (not inside a longer one), longest first. A line with a placeholder not
/// listed here fails the test; an entry no line uses fails it too, so the table follows the
/// documentation.
const PLACEHOLDERS: &[Placeholder] = &[
    Placeholder {
        text: "0xYourWallet",
        means: "the reader's wallet: the owner the walkthrough's `key owner-new` made",
        value: |w| Ok(w.owner()?.to_checksum(None)),
    },
    Placeholder {
        text: "0xyourwallet",
        means: "the same wallet, lowercase as the simulator's controls want it",
        value: |w| Ok(format!("{:#x}", w.owner()?)),
    },
    Placeholder {
        text: "0xAnyWallet",
        means: "any wallet to watch: a crowd trader of the simulator",
        value: |w| Ok(format!("{:#x}", w.crowd)),
    },
    Placeholder {
        text: "0xAnyTransaction",
        means: "a HyperEVM transaction to decode: the simulator's latest settlement transaction",
        value: |w| {
            w.sim
                .server
                .shared
                .with_engine(|e| e.settlement_transactions().last().map(|t| t.hash))
                .map(|hash| format!("{hash:#x}"))
                .ok_or_else(|| "the simulator has settled no batch yet".to_string())
        },
    },
    Placeholder {
        text: "0xAnyIntent",
        means: "an intent id to look up: the newest in the simulator's recent-trades feed",
        value: |w| {
            let (status, body) = http(&w.sim.url("/query/protocol/trades/recent"), None)?;
            let json = body.find('{').map_or("", |i| &body[i..]);
            let feed: Value = serde_json::Deserializer::from_str(json)
                .into_iter()
                .next()
                .and_then(Result::ok)
                .ok_or_else(|| format!("the trades feed answered {status} {body:?}"))?;
            feed["events"]
                .as_array()
                .and_then(|events| events.iter().find_map(|e| e["intentId"].as_str()))
                .map(str::to_string)
                .ok_or_else(|| "no trade of the feed names its intent".to_string())
        },
    },
    Placeholder {
        text: "--port 8787",
        means: "a standalone simulator's port: any free one, so runs never collide",
        value: |_| Ok("--port 0".to_string()),
    },
    Placeholder {
        text: "8787",
        means: "the port of the simulator the other lines talk to: the in-process one",
        value: |w| Ok(w.sim.server.addr.port().to_string()),
    },
];

/// What the documentation's prose says a command line prints, checked on that line's output:
/// (a piece of the line as written, strings its stdout must contain).
const CLAIMS: &[(&str, &[&str])] = &[
    (
        "--entry 82800.3 --move 0.1 --json",
        // "The last one reproduces the published example exactly: bust 82674, adjustedPnlUsd
        // 36.99, winFeeUsd 0.74, netPnlUsd 36.25."
        &["82674", "36.99", "0.74", "36.25"],
    ),
    (
        "lookup 0xAnyIntent",
        // "its state (`settled` for an intent the feed lists) and its rows in the
        // recent-trades feed"
        &["settled", "in the recent-trades feed: 1 row"],
    ),
    (
        "decode-tx 0xAnyTransaction --json",
        // "prints whether it was found, its status, block, sender and target and `is_batch`"
        // (the simulator's settlement transactions are batches that succeeded).
        &[
            "\"found\": true",
            "\"status\": \"success\"",
            "\"is_batch\": true",
        ],
    ),
];

/// A command line as a page of the documentation has it.
#[derive(Debug, Clone)]
struct Source {
    /// The page, from the repository root (`README.md`, `docs/trading.md`).
    file: String,
    /// The page's line it starts on (1-based).
    at: usize,
    /// As written, `\` continuations joined.
    text: String,
    /// The lines of one ```sh block are typed into one terminal: an `export` there applies to
    /// the lines after it. Each prose command is a block of its own. Unique across the pages.
    block: usize,
}

impl Source {
    /// Where it is written: `docs/trading.md:21`.
    fn place(&self) -> String {
        format!("{}:{}", self.file, self.at)
    }
}

/// Every command line of every page, in page order, blocks numbered across the pages.
fn all_command_lines(pages: &[(String, String)]) -> Vec<Source> {
    let mut out: Vec<Source> = Vec::new();
    for (file, text) in pages {
        let first = out.last().map_or(0, |s| s.block + 1);
        out.extend(command_lines(text).into_iter().map(|s| Source {
            file: file.clone(),
            block: first + s.block,
            ..s
        }));
    }
    out
}

/// Every command line of one page: the ```sh blocks' lines and the prose's `papertrade-tui …`
/// spans (`file` left empty for the caller to fill).
fn command_lines(readme: &str) -> Vec<Source> {
    let mut out = Vec::new();
    let mut block = 0;
    let mut in_shell: Option<bool> = None;
    let mut pending: Option<(usize, String)> = None;
    let mut paragraph: Vec<(usize, &str)> = Vec::new();
    for (i, line) in readme.lines().enumerate() {
        let at = i + 1;
        let fence = line.trim_start().starts_with("```");
        match in_shell {
            None if fence => {
                prose_commands(&paragraph, &mut block, &mut out);
                paragraph.clear();
                let lang = line.trim_start().trim_start_matches('`').trim();
                in_shell = Some(matches!(lang, "sh" | "bash" | "shell"));
                block += 1;
            }
            None if line.trim().is_empty() => {
                prose_commands(&paragraph, &mut block, &mut out);
                paragraph.clear();
            }
            None => paragraph.push((at, line)),
            Some(_) if fence => {
                assert!(
                    pending.is_none(),
                    "line {at}: a `\\` continues into the fence"
                );
                in_shell = None;
            }
            Some(false) => {}
            Some(true) => {
                // A continued line goes on after one space, as the shell sees it.
                let (start, mut text, line) = match pending.take() {
                    Some((start, text)) => (start, text, line.trim_start()),
                    None => (at, String::new(), line),
                };
                match line.trim_end().strip_suffix('\\') {
                    Some(head) => {
                        text.push_str(head.trim_end());
                        text.push(' ');
                        pending = Some((start, text));
                    }
                    None => {
                        text.push_str(line);
                        let text = text.trim().to_string();
                        if !text.is_empty() {
                            out.push(Source {
                                file: String::new(),
                                at: start,
                                text,
                                block,
                            });
                        }
                    }
                }
            }
        }
    }
    prose_commands(&paragraph, &mut block, &mut out);
    out
}

/// The `papertrade-tui …` code spans of one paragraph (a span may run over a line break).
fn prose_commands(paragraph: &[(usize, &str)], block: &mut usize, out: &mut Vec<Source>) {
    let mut span: Option<(usize, String)> = None;
    for (at, line) in paragraph {
        for (n, piece) in line.split('`').enumerate() {
            // Pieces alternate outside/inside a span; the first of a line continues the state.
            if n > 0 {
                span = match span.take() {
                    None => Some((*at, String::new())),
                    Some((start, text)) => {
                        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                        if text == "papertrade-tui" || text.starts_with("papertrade-tui ") {
                            *block += 1;
                            out.push(Source {
                                file: String::new(),
                                at: start,
                                text,
                                block: *block,
                            });
                        }
                        None
                    }
                };
            }
            if let Some((_, text)) = &mut span {
                text.push_str(piece);
                text.push(' ');
            }
        }
    }
}

/// The line without its `# comment` (a `#` that starts a word outside quotes, as in sh), and
/// the comment.
fn split_comment(line: &str) -> (&str, &str) {
    let mut quote = None;
    let mut word_start = true;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
        } else if let Some(q) = quote {
            if c == q {
                quote = None;
            } else if c == '\\' && q == '"' {
                escaped = true;
            }
        } else if c == '#' && word_start {
            return (line[..i].trim_end(), line[i + 1..].trim());
        } else if c == '\'' || c == '"' {
            quote = Some(c);
        } else if c == '\\' {
            escaped = true;
        }
        word_start = quote.is_none() && c.is_whitespace();
    }
    (line, "")
}

/// The exit status a line's comment announces ("… exits 2"), else 0.
/// Only "exits N", "exit N" and "exit status N" count, N a whole word: "one exit, +0.1%" and
/// "exit at 2450.5" say nothing about the status.
fn expected_status(comment: &str) -> i32 {
    let words: Vec<&str> = comment
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '.' | ')' | '('))
        .filter(|w| !w.is_empty())
        .collect();
    for (i, w) in words.iter().enumerate() {
        if !matches!(*w, "exit" | "exits") {
            continue;
        }
        let next = match words.get(i + 1) {
            Some(&"status" | &"code") => words.get(i + 2),
            other => other,
        };
        if let Some(n) = next.and_then(|n| n.parse().ok()) {
            return n;
        }
    }
    0
}

/// `text` with every placeholder of the table that stands as a whole word replaced, longest
/// first (so `--port 8787` wins over `8787`); the placeholders used are added to `used`.
fn substitute(text: &str, world: &World, used: &mut Vec<&'static str>) -> Result<String, String> {
    let mut order: Vec<&Placeholder> = PLACEHOLDERS.iter().collect();
    order.sort_by_key(|p| std::cmp::Reverse(p.text.len()));
    let mut out = text.to_string();
    for p in order {
        let mut from = 0;
        while let Some(i) = out[from..].find(p.text).map(|i| i + from) {
            let end = i + p.text.len();
            let word_char = |c: char| c.is_alphanumeric() || c == '_';
            let before = out[..i].chars().next_back().is_some_and(word_char);
            let after = out[end..].chars().next().is_some_and(word_char);
            if before || after {
                from = end;
                continue;
            }
            let value = (p.value)(world).map_err(|e| format!("{} ({}): {e}", p.text, p.means))?;
            out.replace_range(i..end, &value);
            from = i + value.len();
            used.push(p.text);
        }
    }
    Ok(out)
}

/// Split like sh: whitespace separates words, '…' is literal, "…" keeps `\"` `\\` `\$` escapes,
/// a backslash outside quotes escapes the next character, and `~/` starting a word is $HOME.
/// Shell syntax the documentation has no business using (pipes, redirections, substitutions, globs)
/// is refused, so a line that needs a real shell is noticed rather than run differently.
fn shell_words(line: &str, home: &Path) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err("unclosed '".into()),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') if matches!(chars.peek(), Some('"' | '\\' | '$' | '`')) => {
                            w.push(chars.next().unwrap())
                        }
                        Some('$' | '`') => return Err("substitution inside \"…\"".into()),
                        Some(c) => w.push(c),
                        None => return Err("unclosed \"".into()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err("a trailing `\\`".into()),
            },
            '~' if word.is_none() && matches!(chars.peek(), Some('/') | None) => {
                word = Some(home.display().to_string());
            }
            '[' | ']' => {
                return Err(
                    "`[…]` in a sh block: a synopsis (`[--flag N]`) does not run as \
                            written; write the command lines it stands for (without the optional \
                            flags, and with them)"
                        .into(),
                );
            }
            '|' | '&' | ';' | '<' | '>' | '(' | ')' | '$' | '`' | '*' | '?' | '{' | '}' => {
                return Err(format!("shell syntax `{c}` this test does not interpret"));
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

/// A placeholder left in a word after substitution, if any: `…`, `<…>`, `0x` followed by what is
/// not hex, or a word in capitals (`N`, `PATH`) that is not a market symbol.
fn leftover_placeholder(word: &str, markets: &[String]) -> Option<String> {
    if word.contains('…') || word.find('<').is_some_and(|i| word[i..].contains('>')) {
        return Some(word.to_string());
    }
    let bytes = word.as_bytes();
    for (i, _) in word.match_indices("0x") {
        if i > 0 && bytes[i - 1].is_ascii_alphanumeric() {
            continue;
        }
        let run: String = word[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if run.chars().any(|c| !c.is_ascii_hexdigit()) {
            return Some(format!("0x{run}"));
        }
    }
    let capitals = word.starts_with(|c: char| c.is_ascii_uppercase())
        && word
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    (capitals && !markets.iter().any(|m| m == word)).then(|| word.to_string())
}

/// The flags before the subcommand that take a value (global flags and the UI's prefill).
const VALUE_FLAGS: &[&str] = &[
    "--api",
    "--info-url",
    "--data-dir",
    "--owner",
    "--key-backend",
    "--watch",
    "--market",
    "--side",
    "--margin",
    "--leverage",
    "--link",
];

/// The subcommand's position in the binary's arguments, if any.
fn subcommand(args: &[String]) -> Option<usize> {
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if !a.starts_with('-') {
            return Some(i);
        }
        i += if VALUE_FLAGS.contains(&a) { 2 } else { 1 };
    }
    None
}

/// How a run of the binary is carried out and judged.
#[derive(Debug, Clone)]
enum How {
    /// The terminal UI in a pseudo-terminal: its first frame shows this mode badge, `q` quits.
    Ui(&'static str),
    /// A writing command without `--yes`, in a pseudo-terminal: it restates, asks, `y` answers.
    Confirm,
    /// Serves until Ctrl-C: wait for it to say so (and answer HTTP when `probe`), then SIGINT.
    Serve { probe: bool },
    /// Runs to completion.
    Once,
}

/// What running one command line means.
#[derive(Debug)]
enum Action {
    /// `export A=B …`: the block's later lines get these variables.
    Export(Vec<(String, String)>),
    /// `curl …`: the real curl when it is installed, else the same request made here.
    Curl(Vec<String>),
    /// `cargo test --locked`: this test is one of the tests it runs.
    ThisTest,
    /// `cargo install --locked --path .`: a release build, too slow for this test; `.ci/run`
    /// runs it and the installed binary's `--version`, completions and man page.
    Install,
    /// `mkdir -p DIR…`: made under the machine's home.
    Mkdir(Vec<PathBuf>),
    /// The binary (`papertrade-tui X` or `cargo run -- X`), run once per way it is meant to run.
    Binary(Vec<String>, Vec<How>),
}

fn action(words: &[String], home: &Path) -> Result<Action, String> {
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    let binary = |args: &[String]| {
        let args = args.to_vec();
        let sub = subcommand(&args);
        let name = sub.map(|i| args[i].as_str());
        let has = |f: &str| args.iter().any(|a| a == f);
        let writes = match name {
            Some("deposit" | "open" | "close" | "cancel" | "withdraw") => true,
            Some("key") => sub
                .and_then(|i| args.get(i + 1))
                .is_some_and(|a| a == "register"),
            _ => false,
        };
        let hows = match name {
            None if ["--version", "-V", "--help", "-h"].iter().any(|f| has(f)) => {
                vec![How::Once]
            }
            None if has("--watch") => vec![How::Ui("WATCH")],
            None | Some("open-link") => vec![How::Ui("LIVE")],
            // With a terminal the demo opens the UI; without one it prints and serves.
            Some("demo") => vec![How::Ui("DEMO"), How::Serve { probe: true }],
            Some("sim") => vec![How::Serve { probe: true }],
            Some("positions") if has("--follow") => vec![How::Serve { probe: false }],
            Some(_) if writes && !has("--yes") => vec![How::Confirm],
            Some(_) => vec![How::Once],
        };
        Action::Binary(args, hows)
    };
    Ok(match w.as_slice() {
        ["papertrade-tui", ..] => binary(&words[1..]),
        ["cargo", "run", rest @ ..] => match rest.iter().position(|a| *a == "--") {
            Some(i) => binary(&words[3 + i..]),
            None if rest.is_empty() => binary(&[]),
            None => return Err("`cargo run` with flags of its own: teach readme.rs".into()),
        },
        ["cargo", "test", ..] => Action::ThisTest,
        ["cargo", "install", "--locked", "--path", "."] => Action::Install,
        ["cargo", "install", ..] => {
            return Err("a `cargo install` other than `--locked --path .`: teach readme.rs".into());
        }
        ["mkdir", "-p", dirs @ ..] if !dirs.is_empty() => {
            Action::Mkdir(dirs.iter().map(PathBuf::from).collect())
        }
        ["export", assignments @ ..] => Action::Export(
            assignments
                .iter()
                .map(|a| {
                    a.split_once('=')
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .ok_or_else(|| format!("`export {a}` sets nothing"))
                })
                .collect::<Result<_, _>>()?,
        ),
        ["curl", ..] => Action::Curl(words[1..].to_vec()),
        _ => {
            return Err(format!(
                "readme.rs has no rule for running `{}` lines (home {}): add one to `action`",
                w.first().unwrap_or(&""),
                home.display()
            ));
        }
    })
}

/// A user's machine: an empty home. Its config keeps the session key in the keystore file, so
/// the test never writes to a real OS keyring where one is reachable.
struct Machine {
    home: tempfile::TempDir,
}

impl Machine {
    fn new() -> Self {
        let home = tempfile::tempdir().unwrap();
        let config = home.path().join(".config/papertrade-tui");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(config.join("config.toml"), "key_backend = \"keystore\"\n").unwrap();
        Self { home }
    }

    fn home(&self) -> &Path {
        self.home.path()
    }
}

struct World {
    sim: Sim,
    /// Where every line runs, but the demos (see `run_binary`).
    machine: Machine,
    /// The reader's wallet: what the walkthrough's `key owner-new` line made (see `learn_owner`).
    owner: OnceLock<Address>,
    crowd: Address,
    markets: Vec<String>,
    curl: Option<PathBuf>,
    used: Mutex<Vec<&'static str>>,
}

impl World {
    /// The owner the walkthrough made, once its `key owner-new` line has run.
    fn owner(&self) -> Result<Address, String> {
        self.owner.get().copied().ok_or_else(|| {
            "no `papertrade-tui key owner-new` line has made the owner yet: the documentation \
             must run it (in a walkthrough block) before any line that names the owner's wallet"
                .to_string()
        })
    }

    /// The environment of every command: the machine's home, the simulator's URLs (which a
    /// line's `--api` or `export` overrides), and the two passphrases in their documented
    /// variables, standing for what the reader types at the prompts.
    fn env(&self, home: &Path) -> Vec<(String, String)> {
        [
            ("PATH", "/usr/bin:/bin".to_string()),
            ("HOME", home.display().to_string()),
            ("PAPERTRADE_API_URL", self.sim.server.base_url()),
            ("PAPERTRADE_INFO_URL", self.sim.server.info_url()),
            ("PAPERTRADE_RPC_URL", self.sim.server.rpc_url()),
            ("PAPERTRADE_TUI_PASSPHRASE", SESSION_PASS.to_string()),
            ("PAPERTRADE_TUI_OWNER_PASSPHRASE", OWNER_PASS.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// What one run did, for the summary and, when it went wrong, the report.
struct Run {
    source: Source,
    how: String,
    argv: Vec<String>,
    status: Option<i32>,
    stdout: String,
    stderr: String,
    problem: Option<String>,
    took: Duration,
}

impl Run {
    fn new(source: &Source, how: impl Into<String>, argv: Vec<String>) -> Self {
        Self {
            source: source.clone(),
            how: how.into(),
            argv,
            status: None,
            stdout: String::new(),
            stderr: String::new(),
            problem: None,
            took: Duration::ZERO,
        }
    }

    fn fail(mut self, problem: impl Into<String>) -> Self {
        self.problem.get_or_insert(problem.into());
        self
    }

    fn report(&self) -> String {
        let tail = |s: &str| {
            let s = s.trim_end();
            let cut = s.len().saturating_sub(4000);
            let cut = (cut..=s.len()).find(|&i| s.is_char_boundary(i)).unwrap();
            s[cut..].to_string()
        };
        format!(
            "{} ({}): {}\n  problem: {}\n  argv: {:?}\n  exit status: {}\n  stdout (in a terminal: the screen):\n{}\n  stderr:\n{}\n",
            self.source.place(),
            self.how,
            self.source.text,
            self.problem.as_deref().unwrap_or("none"),
            self.argv,
            self.status
                .map_or("none (did not exit or was signalled)".into(), |s| s
                    .to_string()),
            tail(&self.stdout),
            tail(&self.stderr),
        )
    }
}

/// Run the lines of one block in order, in one terminal's environment.
fn run_block(sources: &[Source], world: &World) -> Vec<Run> {
    let mut exports: Vec<(String, String)> = Vec::new();
    let mut runs = Vec::new();
    for source in sources {
        runs.extend(run_line(source, world, &mut exports));
    }
    runs
}

fn run_line(source: &Source, world: &World, exports: &mut Vec<(String, String)>) -> Vec<Run> {
    let (line, comment) = split_comment(&source.text);
    let expect = expected_status(comment);
    let mut used = Vec::new();
    let text = match substitute(line, world, &mut used) {
        Ok(t) => t,
        Err(e) => return vec![Run::new(source, "unsubstituted", vec![]).fail(e)],
    };
    world.used.lock().unwrap().extend(used);
    let home = world.machine.home();
    let (text, redirect) = match split_redirect(&text, home) {
        Ok(split) => split,
        Err(e) => return vec![Run::new(source, "unparsed", vec![text]).fail(e)],
    };
    let words = match shell_words(&text, home) {
        Ok(w) => w,
        Err(e) => return vec![Run::new(source, "unparsed", vec![text]).fail(e)],
    };
    if let Some(p) = words
        .iter()
        .find_map(|w| leftover_placeholder(w, &world.markets))
    {
        return vec![Run::new(source, "placeholder", words.clone()).fail(format!(
            "`{p}` does not run as written: write a real value (an elided `0x12…34` or an id \
             from another run will not do); only the reader's own values are named placeholders \
             (PLACEHOLDERS in tests/it/readme.rs, such as 0xYourWallet)"
        ))];
    }
    if words.is_empty() {
        // A comment alone (`# terminal 1`) says where the next lines are typed.
        return Vec::new();
    }
    let act = match action(&words, home) {
        Ok(a) => a,
        Err(e) => return vec![Run::new(source, "unknown", words).fail(e)],
    };
    if redirect.is_some()
        && !matches!(&act, Action::Binary(_, hows) if matches!(hows.as_slice(), [How::Once]))
    {
        return vec![
            Run::new(source, "unparsed", words).fail(
                "`> FILE` is read only after a papertrade-tui command that runs to completion",
            ),
        ];
    }
    let started = Instant::now();
    let mut done = match act {
        Action::Export(vars) => {
            exports.extend(vars);
            vec![Run::new(source, "export", words)]
        }
        Action::Curl(args) => vec![run_curl(source, args, world)],
        Action::Mkdir(dirs) => vec![run_mkdir(source, dirs, home)],
        Action::ThisTest => vec![Run::new(source, "this test's own run", words)],
        Action::Install => vec![Run::new(source, "cargo install: .ci/run runs it", words)],
        Action::Binary(args, hows) => hows
            .into_iter()
            .map(|how| {
                let t = Instant::now();
                let mut run = run_binary(source, &args, how, expect, world, exports);
                run.took = t.elapsed();
                if makes_the_owner(&args) && run.problem.is_none() {
                    run = learn_owner(run, &args, world);
                }
                if let Some(path) = &redirect
                    && run.problem.is_none()
                {
                    run = write_redirect(run, path);
                }
                run
            })
            .collect(),
    };
    for run in &mut done {
        if run.took.is_zero() {
            run.took = started.elapsed();
        }
    }
    done
}

/// A line's trailing `> FILE` (outside quotes): the command before it and the file, `~/`
/// expanded. One redirection at the end, of stdout, is all the pages need; more is refused.
fn split_redirect(line: &str, home: &Path) -> Result<(String, Option<PathBuf>), String> {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '>') => {
                let target = shell_words(&line[i + 1..], home)?;
                return match target.as_slice() {
                    [file] => Ok((line[..i].trim_end().to_string(), Some(PathBuf::from(file)))),
                    _ => Err("`>` must be followed by exactly one file name".into()),
                };
            }
            (None, _) => {}
        }
    }
    Ok((line.to_string(), None))
}

/// What `> FILE` does with a run's stdout, as sh would: the file written (replaced), or the
/// run failed when its directory does not exist. Only under the machine's home.
fn write_redirect(run: Run, path: &Path) -> Run {
    let inside = run.stdout.len();
    match std::fs::write(path, &run.stdout) {
        Ok(()) if inside > 0 => run,
        Ok(()) => run.fail(format!("wrote nothing to {}", path.display())),
        Err(e) => run.fail(format!("cannot write {}: {e}", path.display())),
    }
}

/// `mkdir -p DIR…`, each under the machine's home (the pages' lines make directories in the
/// reader's home only).
fn run_mkdir(source: &Source, dirs: Vec<PathBuf>, home: &Path) -> Run {
    let mut run = Run::new(
        source,
        "mkdir",
        dirs.iter().map(|d| d.display().to_string()).collect(),
    );
    for dir in &dirs {
        if !dir.starts_with(home) {
            return run.fail(format!("{} is outside the home", dir.display()));
        }
        if let Err(e) = std::fs::create_dir_all(dir) {
            return run.fail(format!("mkdir -p {}: {e}", dir.display()));
        }
    }
    run.status = Some(0);
    run
}

/// `key owner-new`: the line that makes the reader's owner wallet.
fn makes_the_owner(args: &[String]) -> bool {
    subcommand(args)
        .is_some_and(|i| args[i] == "key" && args.get(i + 1).is_some_and(|a| a == "owner-new"))
}

/// The owner a `key owner-new` line made, for the lines after it: its `--keystore` file
/// decrypted with the passphrase the reader gave it (the signer crate's reader, not ours), and
/// the address it told the reader to export, which must be that wallet's.
fn learn_owner(run: Run, args: &[String], world: &World) -> Run {
    let path = args
        .iter()
        .enumerate()
        .find_map(|(i, a)| match a.strip_prefix("--keystore=") {
            Some(p) => Some(PathBuf::from(p)),
            None if a == "--keystore" => args.get(i + 1).map(PathBuf::from),
            None => None,
        });
    let Some(path) = path else {
        return run.fail("`key owner-new` without --keystore: the test cannot find the wallet");
    };
    let owner = match PrivateKeySigner::decrypt_keystore(&path, OWNER_PASS) {
        Ok(key) => key.address(),
        Err(e) => {
            return run.fail(format!(
                "the keystore it wrote at {} does not decrypt with the owner passphrase: {e}",
                path.display()
            ));
        }
    };
    let export = format!("export PAPERTRADE_TUI_OWNER={owner:#x}");
    if !run.stdout.lines().any(|l| l.trim() == export) {
        return run.fail(format!(
            "it did not print the line the walkthrough has the reader paste: {export}"
        ));
    }
    match world.owner.set(owner) {
        Ok(()) => run,
        Err(_) => {
            run.fail("a second `key owner-new` line: the walkthrough's placeholders name one owner")
        }
    }
}

/// A plain HTTP/1.1 request on loopback; the status and the body.
fn http(url: &str, body: Option<&str>) -> Result<(u16, String), String> {
    let rest = url.strip_prefix("http://").unwrap_or(url);
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let mut s = TcpStream::connect(host.replace("localhost", "127.0.0.1"))
        .map_err(|e| format!("connect {host}: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let request = match body {
        Some(b) => format!(
            "POST {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{b}",
            b.len()
        ),
        None => format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"),
    };
    s.write_all(request.as_bytes()).map_err(|e| e.to_string())?;
    let mut answer = String::new();
    s.read_to_string(&mut answer).map_err(|e| e.to_string())?;
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("not an HTTP answer: {answer:?}"))?;
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    Ok((status, body.to_string()))
}

fn run_curl(source: &Source, args: Vec<String>, world: &World) -> Run {
    let mut run = Run::new(source, "curl", args.clone());
    if let Some(curl) = &world.curl {
        let out = Command::new(curl)
            .args(&args)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", world.machine.home())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        run.status = out.status.code();
        run.stdout = text(&out.stdout);
        run.stderr = text(&out.stderr);
    } else {
        // The same request curl would make: `-d DATA` is a POST of DATA (as a form, like curl).
        let mut data = None;
        let mut url = None;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "-s" | "--silent" => {}
                "-d" | "--data" => data = it.next().cloned(),
                a if !a.starts_with('-') => url = Some(a.to_string()),
                a => return run.fail(format!("curl flag {a} has no stand-in here")),
            }
        }
        let Some(url) = url else {
            return run.fail("curl without a URL");
        };
        match http(&url, data.as_deref()) {
            Ok((_, body)) => {
                run.status = Some(0);
                run.stdout = body;
            }
            Err(e) => return run.fail(e),
        }
    }
    if run.status != Some(0) {
        return run.fail("curl failed");
    }
    // The practice controls answer {"ok": true, …} when they did what was asked.
    match serde_json::from_str::<Value>(&run.stdout) {
        Ok(v) if v["ok"] == true => run,
        _ => run.fail("the answer is not {\"ok\": true, …}"),
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Wait for `child` until `deadline`; kill it past that.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn run_binary(
    source: &Source,
    args: &[String],
    how: How,
    expect: i32,
    world: &World,
    exports: &[(String, String)],
) -> Run {
    // A demo is a machine of its own: the reader runs it before anything is set up, and its
    // run directory under `<data dir>/demo/` stays out of the walkthrough's data dir.
    let own;
    let home = if subcommand(args).is_some_and(|i| args[i] == "demo") {
        own = Machine::new();
        own.home()
    } else {
        world.machine.home()
    };
    let mut env = world.env(home);
    env.extend(exports.iter().cloned());
    let label = match &how {
        How::Ui(badge) => format!("terminal UI ({badge})"),
        How::Confirm => "asks, answered y".into(),
        How::Serve { .. } => "serves until Ctrl-C".into(),
        How::Once => "runs to completion".into(),
    };
    let run = Run::new(source, label, args.to_vec());
    let mut run = match how {
        How::Ui(badge) => in_terminal(run, args, &env, Some(badge)),
        How::Confirm => in_terminal(run, args, &env, None),
        How::Serve { probe } => serve(run, args, &env, probe),
        How::Once => once(run, args, &env, expect),
    };
    if run.problem.is_none() && run.status != Some(expect) {
        run = run.fail(format!("expected exit status {expect}"));
    }
    run
}

/// The binary with exactly `env`, no stdin, its stdout and stderr collected as they come.
fn spawn(args: &[String], env: &[(String, String)]) -> (Child, Collected, Collected) {
    let mut child = Command::new(BIN)
        .args(args)
        .env_clear()
        .envs(env.iter().cloned())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = collect(child.stdout.take().unwrap());
    let err = collect(child.stderr.take().unwrap());
    (child, out, err)
}

fn once(mut run: Run, args: &[String], env: &[(String, String)], expect: i32) -> Run {
    let (mut child, (out, out_t), (err, err_t)) = spawn(args, env);
    let status = wait_until(&mut child, Instant::now() + Duration::from_secs(40));
    out_t.join().unwrap();
    err_t.join().unwrap();
    run.status = status.and_then(|s| s.code());
    run.stdout = text(&out.lock().unwrap());
    run.stderr = text(&err.lock().unwrap());
    if status.is_none() {
        return run.fail("still running after 40 s");
    }
    if run.status != Some(expect) {
        return run.fail(format!("expected exit status {expect}"));
    }
    if args.iter().any(|a| a == "--json") {
        // With --json stdout holds exactly one JSON document, an error too.
        let docs: Result<Vec<Value>, _> = serde_json::Deserializer::from_str(&run.stdout)
            .into_iter::<Value>()
            .collect();
        match docs {
            Ok(d) if d.len() == 1 && d[0].get("error").is_some() == (expect != 0) => {}
            Ok(d) if d.len() == 1 && expect == 0 => return run.fail("the JSON is an error"),
            Ok(d) if d.len() == 1 => return run.fail("the JSON is not an error"),
            _ => return run.fail("stdout is not exactly one JSON document"),
        }
    } else if expect == 0 && run.stdout.trim().is_empty() {
        return run.fail("printed nothing on stdout");
    } else if expect != 0 && !run.stderr.starts_with("error: ") {
        // A refusal is one line naming what is wrong.
        return run.fail("no `error: …` line on stderr");
    }
    // An example of an open the relayer would refuse teaches an order that cannot be placed:
    // only a line whose comment says it is refused may show one.
    let refused = run.stdout.contains("WOULD BE REFUSED")
        || serde_json::from_str::<Value>(&run.stdout)
            .is_ok_and(|v| v["openValidation"]["accepted"] == false);
    if refused && !split_comment(&run.source.text).1.contains("refused") {
        return run.fail("the relayer would refuse this open; make the example one it accepts");
    }
    for (piece, wants) in CLAIMS {
        if run.source.text.contains(piece)
            && let Some(w) = wants.iter().find(|w| !run.stdout.contains(*w))
        {
            return run.fail(format!("the documentation says it prints {w}; it does not"));
        }
    }
    run
}

fn serve(mut run: Run, args: &[String], env: &[(String, String)], probe: bool) -> Run {
    let (mut child, (out, out_t), (err, err_t)) = spawn(args, env);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut problem = None;
    // It says it serves until Ctrl-C once it is ready ("Ctrl-C stops it.", "…; Ctrl-C stops").
    loop {
        if text(&out.lock().unwrap()).contains("Ctrl-C") {
            break;
        }
        if child.try_wait().unwrap().is_some() {
            problem = Some("exited before saying it serves until Ctrl-C");
            break;
        }
        if Instant::now() > deadline {
            problem = Some("did not say it serves until Ctrl-C within 30 s");
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut probe_problem = None;
    if problem.is_none() && probe {
        let stdout = text(&out.lock().unwrap());
        // The first loopback address it prints, without the punctuation after it.
        let url = stdout.find("http://127.0.0.1:").map(|i| {
            let rest = &stdout[i + "http://127.0.0.1:".len()..];
            let port: String = rest.chars().take_while(char::is_ascii_digit).collect();
            format!("http://127.0.0.1:{port}")
        });
        probe_problem = match url.map(|u| http(&format!("{u}/query/health"), None)) {
            None => Some("printed no http://127.0.0.1:… address".to_string()),
            Some(Ok((200, _))) => None,
            Some(Ok((status, body))) => Some(format!("its /query/health answered {status} {body}")),
            Some(Err(e)) => Some(format!("its address does not answer: {e}")),
        };
    }
    if problem.is_none() {
        // The line is printed just before the Ctrl-C handler is installed: give it a moment.
        std::thread::sleep(Duration::from_millis(500));
        let pid = child.id().to_string();
        let sent = Command::new("sh")
            .args(["-c", "kill -INT \"$1\"", "sh", &pid])
            .status()
            .unwrap();
        assert!(sent.success(), "kill -INT {pid}");
    }
    let status = wait_until(&mut child, Instant::now() + Duration::from_secs(10));
    out_t.join().unwrap();
    err_t.join().unwrap();
    run.status = status.and_then(|s| s.code());
    run.stdout = text(&out.lock().unwrap());
    run.stderr = text(&err.lock().unwrap());
    if let Some(p) = problem.map(str::to_string).or(probe_problem) {
        return run.fail(p);
    }
    if status.is_none() {
        return run.fail("Ctrl-C did not stop it within 10 s");
    }
    run
}

/// In a terminal: the UI (`badge` set) is waited for — its first frame on the alternate screen
/// with the mode badge — and quit with `q`; a confirmation is waited for and answered `y`.
fn in_terminal(
    mut run: Run,
    args: &[String],
    env: &[(String, String)],
    badge: Option<&str>,
) -> Run {
    let mut term = Pty::spawn(args, env);
    let (wanted, answer, within) = match badge {
        Some(b) => (b, &b"q"[..], Duration::from_secs(10)),
        // Signing waits for the outcome on the account stream.
        None => ("[y/N]", &b"y\r"[..], Duration::from_secs(60)),
    };
    let ui = badge.is_some();
    let seen = term.wait_for(Duration::from_secs(20), |s| {
        s.contents().contains(wanted) && (!ui || s.alternate_screen())
    });
    if seen {
        term.keys(answer);
    }
    // Not ready: the screen says why; there is nothing to wait for.
    let within = if seen { within } else { Duration::from_secs(1) };
    let Finished {
        status,
        screen,
        stderr,
        restored,
        ..
    } = term.finish(within);
    run.status = status.and_then(|s| s.code());
    run.stdout = screen;
    run.stderr = stderr;
    if !seen {
        return run.fail(if ui {
            format!("no terminal UI with {wanted:?} appeared")
        } else {
            format!("{wanted:?} never appeared on the screen")
        });
    }
    if status.is_none() {
        return run.fail(format!(
            "still running {}s after {answer:?}",
            within.as_secs()
        ));
    }
    if !restored {
        return run.fail("exited leaving the terminal on the alternate screen");
    }
    run
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_command_line_of_the_readme_and_docs_runs_as_written() {
    let started = Instant::now();
    let sim = Sim::start(SimConfig {
        seed: 21,
        crowd: 2,
        heartbeat_ms: 300,
        relayer_delay_ms: 300,
        ..SimConfig::default()
    })
    .await;
    let (crowd, markets) = sim.server.shared.with_engine(|e| {
        (
            e.crowd.wallets()[0],
            e.markets.iter().map(|m| m.symbol.clone()).collect(),
        )
    });
    let world = Arc::new(World {
        sim,
        machine: Machine::new(),
        owner: OnceLock::new(),
        crowd,
        markets,
        curl: ["/usr/bin/curl", "/bin/curl"]
            .into_iter()
            .map(PathBuf::from)
            .find(|p| p.exists()),
        used: Mutex::new(Vec::new()),
    });

    let pages = documents();
    let sources = all_command_lines(&pages);
    // The pages have about a hundred command lines; far fewer means the extraction broke.
    assert!(
        sources.len() >= 60,
        "only {} command lines found",
        sources.len()
    );
    let mut blocks: Vec<Vec<Source>> = Vec::new();
    for s in sources {
        match blocks.last_mut() {
            Some(b) if b[0].block == s.block => b.push(s),
            _ => blocks.push(vec![s]),
        }
    }
    // A block that sets its terminal or the machine up (`export`, the owner's keystore, funds)
    // is a walkthrough: it runs first and in order, and later lines may use what it made (the
    // owner, its registered session key). Every other line stands alone and runs concurrently.
    let sets_up = |b: &Vec<Source>| {
        b.iter().any(|s| {
            let words: Vec<String> = s.text.split_whitespace().map(String::from).collect();
            match words.first().map(String::as_str) {
                Some("export" | "curl") => true,
                Some("papertrade-tui") => makes_the_owner(&words[1..]),
                _ => false,
            }
        })
    };
    let (walkthroughs, rest): (Vec<_>, Vec<_>) = blocks.into_iter().partition(sets_up);
    let jobs: Vec<Vec<Source>> = rest.into_iter().flatten().map(|s| vec![s]).collect();

    let w = world.clone();
    let runs = tokio::task::spawn_blocking(move || {
        let mut runs: Vec<Run> = walkthroughs.iter().flat_map(|b| run_block(b, &w)).collect();
        let queue = Mutex::new(jobs.into_iter());
        let done = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    loop {
                        let Some(job) = queue.lock().unwrap().next() else {
                            return;
                        };
                        let r = run_block(&job, &w);
                        done.lock().unwrap().extend(r);
                    }
                });
            }
        });
        runs.extend(done.into_inner().unwrap());
        runs
    })
    .await
    .unwrap();

    let mut runs = runs;
    runs.sort_by(|a, b| (&a.source.file, a.source.at).cmp(&(&b.source.file, b.source.at)));
    let mut summary = String::new();
    for r in &runs {
        summary.push_str(&format!(
            "{:<24} {:>6.1}s {:<24} {}{}\n",
            r.source.place(),
            r.took.as_secs_f64(),
            r.how,
            r.argv.join(" "),
            if r.problem.is_some() {
                "   <- FAILED"
            } else {
                ""
            }
        ));
    }
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for r in &runs {
        match kinds.iter_mut().find(|(k, _)| *k == r.how) {
            Some((_, n)) => *n += 1,
            None => kinds.push((&r.how, 1)),
        }
    }
    let lines = {
        let mut at: Vec<String> = runs.iter().map(|r| r.source.place()).collect();
        at.dedup();
        at.len()
    };
    println!(
        "{summary}{lines} command lines in {} pages, {} runs ({}) in {:.1}s",
        pages.len(),
        runs.len(),
        kinds
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect::<Vec<_>>()
            .join(", "),
        started.elapsed().as_secs_f64()
    );

    let mut problems: Vec<String> = runs
        .iter()
        .filter(|r| r.problem.is_some())
        .map(Run::report)
        .collect();
    let used = world.used.lock().unwrap().clone();
    for p in PLACEHOLDERS {
        if !used.contains(&p.text) {
            problems.push(format!(
                "PLACEHOLDERS has {:?} ({}), which no command line of the pages uses: remove it",
                p.text, p.means
            ));
        }
    }
    for (piece, _) in CLAIMS {
        if !runs.iter().any(|r| r.source.text.contains(piece)) {
            problems.push(format!(
                "CLAIMS names a line with {piece:?}, which no page has any more: update it"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} of the documentation's command lines do not run as written:\n\n{}\n{summary}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn command_lines_are_read_as_sh_would() {
    let readme = "intro `papertrade-tui markets` and `cargo x`\nand `papertrade-tui\nquote --x`\n\n\
                  ```sh\nexport A=1   # set\npapertrade-tui a \\\n  --b c   # d\n\n```\n\
                  ```toml\nx = 1\n```\n";
    let lines = command_lines(readme);
    let texts: Vec<&str> = lines.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "papertrade-tui markets",
            "papertrade-tui quote --x",
            "export A=1   # set",
            "papertrade-tui a --b c   # d"
        ]
    );
    assert_eq!(lines.iter().map(|s| s.at).collect::<Vec<_>>(), [1, 2, 6, 7]);
    assert_eq!(lines[2].block, lines[3].block);
    assert_ne!(lines[0].block, lines[1].block);
    // Pages keep their own line numbers; a block never spans two pages.
    let pages = [
        ("a.md", "```sh\nexport A=1\npapertrade-tui x\n```\n"),
        ("b.md", "```sh\npapertrade-tui y\n```\n"),
    ]
    .map(|(f, t)| (f.to_string(), t.to_string()));
    let all = all_command_lines(&pages);
    let places: Vec<String> = all.iter().map(Source::place).collect();
    assert_eq!(places, ["a.md:2", "a.md:3", "b.md:2"]);
    assert_eq!(all[0].block, all[1].block);
    assert_ne!(all[1].block, all[2].block);

    assert_eq!(
        split_comment("a '#b' c#d \"# e\" # f # g"),
        ("a '#b' c#d \"# e\"", "f # g")
    );
    assert_eq!(split_comment("a # exits 2"), ("a", "exits 2"));
    assert_eq!(expected_status("bad input: exits 2"), 2);
    assert_eq!(expected_status("prints the exit codes"), 0);
    let home = Path::new("/h");
    // A synopsis is not a command line; brackets in quotes are a word like any other.
    let synopsis = shell_words("sim --port 1 [--seed N]", home).unwrap_err();
    assert!(synopsis.contains("synopsis"), "{synopsis}");
    assert_eq!(shell_words("a '[y]'", home).unwrap(), ["a", "[y]"]);
    assert_eq!(
        split_redirect("a b > ~/x/y", home).unwrap(),
        ("a b".to_string(), Some(PathBuf::from("/h/x/y")))
    );
    assert_eq!(
        split_redirect("a '>' b", home).unwrap(),
        ("a '>' b".to_string(), None)
    );
    assert!(split_redirect("a > x y", home).is_err());

    assert_eq!(
        shell_words(r#"a 'b c' "d \"e\"" f\ g ~/k x~/y"#, home).unwrap(),
        ["a", "b c", "d \"e\"", "f g", "/h/k", "x~/y"]
    );
    for bad in ["a | b", "a > f", "a $HOME", "a 'b", "a <file>"] {
        assert!(shell_words(bad, home).is_err(), "{bad}");
    }
    let markets = vec!["BTC".to_string()];
    for (word, left) in [
        ("0xYourWallet", Some("0xYourWallet")),
        ("{\"w\":\"0xabcg\"}", Some("0xabcg")),
        ("0x…", Some("0x…")),
        ("N", Some("N")),
        ("BTC", None),
        ("0xAbC123", None),
        ("a0xyz", None),
        ("x/<file>", Some("x/<file>")),
    ] {
        assert_eq!(
            leftover_placeholder(word, &markets).as_deref(),
            left,
            "{word}"
        );
    }
    let args = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    assert_eq!(subcommand(&args("--watch 0xa positions")), Some(2));
    assert_eq!(subcommand(&args("--json --market BTC")), None);
}

/// A heading's anchor as GitHub makes it: lowercase, punctuation dropped, spaces to `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a page's headings (outside code fences).
fn anchors(page: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in page.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(anchor(line.trim_start_matches('#')));
        }
    }
    out
}

/// The relative link targets of a page's prose, `[text](target)`, with their line numbers.
fn relative_links(page: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in page.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for (at, _) in line.match_indices("](") {
            let rest = &line[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            if !target.contains("://") && !target.starts_with("mailto:") {
                out.push((i + 1, target.to_string()));
            }
        }
    }
    out
}

/// Every relative link of the README and docs/ names a file that exists and, for a page, a
/// heading it has: moving a section between pages cannot leave a link pointing nowhere.
#[test]
fn links_between_the_pages_resolve() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pages = documents();
    let mut problems = Vec::new();
    for (file, text) in &pages {
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        for (line, target) in relative_links(text) {
            let (path, fragment) = target.split_once('#').unwrap_or((&target, ""));
            // The target from the repository root, `..` resolved.
            let mut parts: Vec<String> = Vec::new();
            let joined = if path.is_empty() {
                PathBuf::from(file)
            } else {
                dir.join(path)
            };
            for c in joined.components() {
                match c {
                    std::path::Component::ParentDir => {
                        parts.pop();
                    }
                    std::path::Component::Normal(p) => parts.push(p.to_string_lossy().into()),
                    _ => {}
                }
            }
            let rel = parts.join("/");
            let full = root.join(&rel);
            if !full.exists() {
                problems.push(format!("{file}:{line}: {target}: no file {rel}"));
                continue;
            }
            if fragment.is_empty() || !rel.ends_with(".md") {
                continue;
            }
            let linked = std::fs::read_to_string(&full).unwrap();
            if !anchors(&linked).iter().any(|a| a == fragment) {
                problems.push(format!(
                    "{file}:{line}: {target}: {rel} has no heading #{fragment}"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn anchors_and_links_are_read_as_github_writes_them() {
    assert_eq!(
        anchor(" Funding from the UI (`8` Fund)"),
        "funding-from-the-ui-8-fund"
    );
    assert_eq!(
        anchor(" Limits: the network is bounded"),
        "limits-the-network-is-bounded"
    );
    let page = "# A\n[x](b.md#c) and [y](https://z) [w](#a)\n```sh\n[q](nowhere)\n```\n";
    assert_eq!(anchors(page), ["a"]);
    assert_eq!(
        relative_links(page),
        [(2, "b.md#c".to_string()), (2, "#a".to_string())]
    );
}
