//! `<data>/history/<wallet>.jsonl`: the wallet's closed trades as this machine saw them, one
//! record a line (`protocol::history::ClosedTrade`), and the marks that say how far back they
//! are complete (`protocol::coverage::Mark`), append-only, mode 0600 in a 0700 directory. Every
//! process that follows the wallet's account stream appends to it (the UI, `--watch`, and each
//! command through `LiveAccount`). A later line for the same position fills what an earlier one
//! lacked; reading merges them.
//! Reading is bounded (the newest [`MAX_READ_BYTES`]); a line that is not a record is skipped
//! and counted, never fatal. No secret is ever in it.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use alloy_primitives::Address;

use crate::protocol::history::{HistoryLine, LoadedHistory, decode_lines};
use crate::store::private_files::{ensure_private_dir, io_error, open_private_append};

/// At most this much of the file's end is read (thousands of records; the rest is older).
pub const MAX_READ_BYTES: u64 = 8 * 1024 * 1024;

pub struct HistoryFile {
    dir: PathBuf,
    path: PathBuf,
    /// The file ends inside a line (a write torn by a crash): the next append starts a new one.
    torn_tail: bool,
}

impl HistoryFile {
    pub fn new(data_dir: &Path, wallet: Address) -> Self {
        let dir = data_dir.join("history");
        Self {
            path: dir.join(format!("{wallet:#x}.jsonl")),
            dir,
            torn_tail: false,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the file holds now (nothing when there is none yet). Never fails: what went wrong
    /// is in the answer.
    pub fn load(&mut self) -> LoadedHistory {
        self.load_bounded(MAX_READ_BYTES)
    }

    fn load_bounded(&mut self, cap: u64) -> LoadedHistory {
        match self.read_tail(cap) {
            Ok(None) => LoadedHistory::default(),
            Ok(Some((bytes, partial_first))) => {
                self.torn_tail = bytes.last().is_some_and(|b| *b != b'\n');
                LoadedHistory {
                    truncated: partial_first,
                    ..decode_lines(&bytes, partial_first)
                }
            }
            Err(e) => LoadedHistory {
                error: Some(e.to_string()),
                ..LoadedHistory::default()
            },
        }
    }

    /// The last `cap` bytes of the file (plus the byte before them), and whether they start
    /// after the file's beginning; `None` when there is no file.
    fn read_tail(&self, cap: u64) -> io::Result<Option<(Vec<u8>, bool)>> {
        // The directory is checked first: one someone else planted is refused, not read.
        if !self.dir.exists() {
            return Ok(None);
        }
        ensure_private_dir(&self.dir)?;
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error("open", &self.path, &e)),
        };
        let len = file
            .metadata()
            .map_err(|e| io_error("check", &self.path, &e))?
            .len();
        let start = len.saturating_sub(cap);
        // From one byte early: if that byte ends a line, the first line read is whole, and
        // `decode_lines` drops only the empty piece before it.
        let from = start.saturating_sub(1);
        file.seek(SeekFrom::Start(from))
            .map_err(|e| io_error("read", &self.path, &e))?;
        let mut bytes = Vec::new();
        file.take(cap + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| io_error("read", &self.path, &e))?;
        Ok(Some((bytes, start > 0)))
    }

    /// Append one record or mark. A failure is reported, not fatal: the close already happened.
    pub fn append(&mut self, entry: &HistoryLine) -> io::Result<()> {
        ensure_private_dir(&self.dir)?;
        let mut line = String::new();
        if self.torn_tail {
            line.push('\n');
        }
        line.push_str(&entry.to_line());
        line.push('\n');
        let mut f = open_private_append(&self.path)?;
        f.write_all(line.as_bytes())
            .map_err(|e| io_error("write", &self.path, &e))?;
        self.torn_tail = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::account::ClosedPosition;
    use crate::protocol::history::{ClosedTrade, TradeHistory};
    use alloy_primitives::U256;

    fn trade(id: u64) -> HistoryLine {
        HistoryLine::Trade(record(id))
    }

    fn record(id: u64) -> ClosedTrade {
        ClosedTrade {
            closed: ClosedPosition {
                id: U256::from(id),
                instrument_id: 0,
                is_long: true,
                margin: 10_000_000_000_000_000_000,
                leverage: 100,
                liquidated: false,
                net_pnl: -108_141_232_449_579_150,
                paper_minted: 2_766_363_925_334_821_349,
            },
            symbol: Some("BTC".into()),
            price_scale: Some(10),
            entry_raw: Some(832_245),
            opened_at_ms: Some(1_791_862_800_000),
            exit_raw: None,
            closed_at_ms: None,
            seen_at_ms: 1_791_862_861_000,
        }
    }

    fn wallet() -> Address {
        Address::repeat_byte(0xa9)
    }

    #[test]
    fn records_survive_a_new_process_private_and_merged() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            HistoryFile::new(dir.path(), wallet()).load(),
            LoadedHistory::default(),
            "no file yet is an empty history"
        );
        let mut file = HistoryFile::new(dir.path(), wallet());
        let first = record(1);
        file.append(&HistoryLine::Trade(first.clone())).unwrap();
        let mut filled = first.clone();
        filled.exit_raw = Some(832_155);
        filled.closed_at_ms = Some(1_791_862_860_000);
        file.append(&HistoryLine::Trade(filled.clone())).unwrap();
        file.append(&trade(2)).unwrap();
        let loaded = HistoryFile::new(dir.path(), wallet()).load();
        assert_eq!((loaded.trades.len(), loaded.skipped), (3, 0));
        let mut h = TradeHistory::new();
        assert_eq!(h.extend(loaded.trades), 0);
        assert_eq!(h.len(), 2, "one record per position");
        assert_eq!(h.newest_first().nth(1), Some(&filled));
        assert_eq!(
            file.path(),
            dir.path()
                .join(format!("history/{:#x}.jsonl", wallet()))
                .as_path()
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(file.path()), 0o600);
            assert_eq!(mode(&dir.path().join("history")), 0o700);
        }
    }

    #[test]
    fn a_corrupt_line_is_skipped_and_a_torn_tail_does_not_swallow_the_next_record() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = HistoryFile::new(dir.path(), wallet());
        file.append(&trade(1)).unwrap();
        // A crash mid-write: half a record, no newline.
        let half = &record(2).to_line()[..40];
        std::fs::OpenOptions::new()
            .append(true)
            .open(file.path())
            .unwrap()
            .write_all(half.as_bytes())
            .unwrap();
        let mut file = HistoryFile::new(dir.path(), wallet());
        let loaded = file.load();
        assert_eq!((loaded.trades.len(), loaded.skipped), (1, 1));
        file.append(&trade(3)).unwrap();
        let loaded = HistoryFile::new(dir.path(), wallet()).load();
        let ids: Vec<U256> = loaded.trades.iter().map(|t| t.id()).collect();
        assert_eq!(ids, [U256::from(1u64), U256::from(3u64)]);
        assert_eq!(loaded.skipped, 1);
    }

    #[test]
    fn only_the_newest_bytes_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = HistoryFile::new(dir.path(), wallet());
        for id in 0..10 {
            file.append(&trade(id)).unwrap();
        }
        let line = record(0).to_line().len() as u64 + 1;
        // Exactly three whole lines, then three and a half: the half is dropped uncounted.
        for (cap, ids) in [(3 * line, 7..10), (3 * line + line / 2, 7..10)] {
            let loaded = HistoryFile::new(dir.path(), wallet()).load_bounded(cap);
            let got: Vec<U256> = loaded.trades.iter().map(|t| t.id()).collect();
            let want: Vec<U256> = ids.map(U256::from).collect();
            assert_eq!(got, want, "cap {cap}");
            assert_eq!((loaded.skipped, loaded.truncated), (0, true));
        }
        let whole = HistoryFile::new(dir.path(), wallet()).load_bounded(10 * line);
        assert_eq!((whole.trades.len(), whole.truncated), (10, false));
    }

    #[cfg(unix)]
    #[test]
    fn an_unreadable_file_is_reported_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = HistoryFile::new(dir.path(), wallet());
        std::fs::create_dir_all(file.path()).unwrap();
        let loaded = file.load();
        assert!(loaded.error.is_some(), "{loaded:?}");
        assert!(file.append(&trade(1)).is_err());
    }
}
