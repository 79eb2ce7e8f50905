//! Files of the trading path in the data directory: the per-owner nonce lanes and the JSONL audit
//! log of every signed intent and its fate. Neither ever holds a secret.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use alloy_primitives::{Address, U256};
use serde_json::{Map, Value, json};

use crate::protocol::eip712::NonceLane;
use crate::store::private_files::{
    create_new_private, ensure_data_dir, ensure_private_dir, open_private_append, write_private,
};

/// The next nonce of each lane, per owner, in `<data>/nonces/<owner>.json`. A nonce handed out
/// is spent even if its send fails (§4.3): the file moves on before the value is returned.
pub(crate) struct NonceStore {
    dir: PathBuf,
}

impl NonceStore {
    pub fn new(data_dir: &Path) -> Self {
        Self {
            dir: data_dir.join("nonces"),
        }
    }

    fn lane_key(lane: NonceLane) -> &'static str {
        match lane {
            NonceLane::Exchange => "exchange",
            NonceLane::Staking => "staking",
        }
    }

    /// Hand out the next nonce of `lane` for `owner`, seeding the lane the SDK's way
    /// (`max(1, random 24-bit) × 256`) on first use. Safe across processes (a lock file).
    pub fn next(&self, owner: Address, lane: NonceLane) -> io::Result<U256> {
        ensure_private_dir(&self.dir)?;
        let path = self.dir.join(format!("{owner:#x}.json"));
        let _lock = Lock::acquire(&path.with_extension("lock"))?;
        let mut lanes: Map<String, Value> = match fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|e| io::Error::other(format!("{}: {e}", path.display())))?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Map::new(),
            Err(e) => return Err(e),
        };
        let key = Self::lane_key(lane);
        let current = match lanes.get(key).and_then(Value::as_str) {
            Some(text) => U256::from_str_radix(text, 10).map_err(|_| {
                io::Error::other(format!("{}: {key} is not a number", path.display()))
            })?,
            None => seed_nonce(),
        };
        lanes.insert(key.into(), json!((current + U256::from(1u8)).to_string()));
        write_private(
            &path,
            serde_json::to_string_pretty(&lanes)
                .expect("JSON")
                .as_bytes(),
        )?;
        Ok(current)
    }
}

/// `max(1, random 24-bit) × 256` (§4.3).
pub(crate) fn seed_nonce() -> U256 {
    let r: u32 = rand::random::<u32>() & 0x00ff_ffff;
    U256::from(u64::from(r.max(1)) * 256)
}

/// An exclusive lock file, removed on drop; a lock older than 30 s is considered abandoned.
struct Lock(PathBuf);

impl Lock {
    fn acquire(path: &Path) -> io::Result<Self> {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            match create_new_private(path) {
                Ok(_) => return Ok(Self(path.to_path_buf())),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    let stale = fs::metadata(path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| t.elapsed().ok())
                        .is_some_and(|age| age > Duration::from_secs(30));
                    if stale {
                        let _ = fs::remove_file(path);
                    } else if std::time::Instant::now() > deadline {
                        return Err(io::Error::other(format!(
                            "{} is locked by another process",
                            path.display()
                        )));
                    } else {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// The `outcome` a command records when it stops waiting before the intent's fate is known; a
/// later command that sees the fate appends it.
pub const PENDING: &str = "pending";

/// At most this much of the audit log's end is read to look an intent up (tens of thousands of
/// lines; older intents are not found).
pub const AUDIT_READ_BYTES: u64 = 8 * 1024 * 1024;

/// One intent as this machine's audit log tells it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuditedIntent {
    /// The `signed` line: action, user, signer, market, side, margin, nonce, deadline (no secret,
    /// no signature).
    pub signed: Option<Value>,
    /// The last send step: `accepted`, `refused`, `unknown`, `not_kept`, `id_mismatch`.
    pub submission: Option<String>,
    /// The last fate recorded (`succeeded`, `failed`, …) and how it was learnt.
    pub outcome: Option<String>,
    pub outcome_detail: Option<String>,
}

impl AuditedIntent {
    /// The wallet it was signed for.
    pub fn user(&self) -> Option<Address> {
        self.signed.as_ref()?["user"].as_str()?.parse().ok()
    }

    pub fn json(&self) -> Value {
        let signed = self.signed.as_ref();
        let field = |k: &str| signed.map_or(Value::Null, |s| s[k].clone());
        json!({
            "action": field("action"),
            "user": field("user"),
            "signed_at": field("ts"),
            "market": field("market"),
            "side": field("side"),
            "leverage": field("leverage"),
            "margin_raw": field("marginRaw"),
            "position_ids": field("positionIds"),
            "deadline": field("deadline"),
            "submission": self.submission,
            "outcome": self.outcome,
            "outcome_detail": self.outcome_detail,
        })
    }
}

/// `<data>/audit.jsonl`: one JSON object per line for every signed intent and each step of its
/// fate. Append-only, mode 0600, no secrets (no signatures either).
pub struct AuditLog {
    path: PathBuf,
}

impl AuditLog {
    pub fn new(data_dir: &Path) -> Self {
        Self {
            path: data_dir.join("audit.jsonl"),
        }
    }

    /// Append `event` for `intent_id` with `fields`. Failure to write is reported, not fatal to
    /// the trade that already happened.
    pub(crate) fn record(
        &self,
        event: &str,
        intent_id: Option<alloy_primitives::B256>,
        fields: Value,
    ) -> io::Result<()> {
        // The log sits in the data dir itself, which may be the user's shared folder: it is
        // checked, never chmodded; the file alone is made private.
        if let Some(dir) = self.path.parent() {
            ensure_data_dir(dir)?;
        }
        let mut entry = Map::new();
        entry.insert("ts".into(), json!(crate::clock::now_unix_ms()));
        entry.insert("event".into(), json!(event));
        entry.insert(
            "intentId".into(),
            json!(intent_id.map(|i| format!("{i:#x}"))),
        );
        if let Value::Object(extra) = fields {
            entry.extend(extra);
        }
        let mut line = serde_json::to_string(&Value::Object(entry)).expect("JSON");
        line.push('\n');
        let mut f = open_private_append(&self.path)?;
        f.write_all(line.as_bytes())
    }

    /// What this machine's log says of intent `id` (`None`: it never signed it here). Reads
    /// the newest [`AUDIT_READ_BYTES`] of the log; a line that is not JSON is skipped.
    pub fn intent(&self, id: alloy_primitives::B256) -> Option<AuditedIntent> {
        let wanted = format!("{id:#x}");
        let mut found: Option<AuditedIntent> = None;
        for entry in self.tail_entries() {
            if entry["intentId"].as_str() != Some(wanted.as_str()) {
                continue;
            }
            let a = found.get_or_insert_with(AuditedIntent::default);
            let event = entry["event"].as_str().unwrap_or_default();
            match event {
                "signed" => a.signed = Some(entry.clone()),
                "outcome" => {
                    a.outcome = entry["outcome"].as_str().map(str::to_string);
                    a.outcome_detail = entry["detail"].as_str().map(str::to_string);
                }
                _ => a.submission = Some(event.to_string()),
            }
        }
        found
    }

    /// `wallet`'s intents this log holds with no fate yet: sent (accepted, or no answer) but no
    /// `outcome` line, or only a `pending` one (the command stopped waiting). Each with the
    /// positions it closes (a close's evidence after a resync).
    pub fn unsettled(&self, wallet: Address) -> Vec<(alloy_primitives::B256, Vec<U256>)> {
        let user = format!("{wallet:#x}");
        let mut open: Vec<(alloy_primitives::B256, Vec<U256>)> = Vec::new();
        for entry in self.tail_entries() {
            let Some(id) = entry["intentId"]
                .as_str()
                .and_then(|t| t.parse::<alloy_primitives::B256>().ok())
            else {
                continue;
            };
            match entry["event"].as_str().unwrap_or_default() {
                "signed" if entry["user"].as_str() == Some(user.as_str()) => {
                    let closes = entry["positionIds"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|v| v.as_str()?.parse().ok())
                        .collect();
                    open.push((id, closes));
                }
                // Refused: it never reached the queue, there is no fate to learn.
                "refused" | "not_kept" | "id_mismatch" => open.retain(|(i, _)| *i != id),
                "outcome" if entry["outcome"].as_str() != Some(PENDING) => {
                    open.retain(|(i, _)| *i != id)
                }
                _ => {}
            }
        }
        open
    }

    /// The entries of the log's newest [`AUDIT_READ_BYTES`], oldest first.
    fn tail_entries(&self) -> Vec<Value> {
        use std::io::{Read, Seek, SeekFrom};
        let Ok(mut f) = fs::File::open(&self.path) else {
            return Vec::new();
        };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        let start = len.saturating_sub(AUDIT_READ_BYTES);
        let mut bytes = Vec::new();
        if f.seek(SeekFrom::Start(start)).is_err()
            || f.take(AUDIT_READ_BYTES).read_to_end(&mut bytes).is_err()
        {
            return Vec::new();
        }
        let mut lines = bytes.split(|b| *b == b'\n');
        if start > 0 {
            lines.next(); // begun mid-line
        }
        lines
            .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
            .collect()
    }

    /// Every entry (for `--json` history and tests).
    #[cfg(test)]
    pub(crate) fn entries(&self) -> io::Result<Vec<Value>> {
        let text = match fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonces_advance_per_lane_and_persist() {
        let dir = tempfile::tempdir().unwrap();
        let store = NonceStore::new(dir.path());
        let owner = Address::repeat_byte(7);
        let a = store.next(owner, NonceLane::Exchange).unwrap();
        let b = store.next(owner, NonceLane::Exchange).unwrap();
        assert_eq!(b, a + U256::from(1u8));
        assert!(a >= U256::from(256u16) && a % U256::from(256u16) == U256::ZERO);
        let s = store.next(owner, NonceLane::Staking).unwrap();
        assert_eq!(
            NonceStore::new(dir.path())
                .next(owner, NonceLane::Staking)
                .unwrap(),
            s + U256::from(1u8)
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(dir.path().join(format!("nonces/{owner:#x}.json")))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn audit_appends_lines() {
        let dir = tempfile::tempdir().unwrap();
        let log = AuditLog::new(dir.path());
        log.record("signed", None, json!({"action": "openPosition"}))
            .unwrap();
        log.record("accepted", None, json!({})).unwrap();
        let e = log.entries().unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(e[0]["action"], "openPosition");
    }
}
