//! An incremental server-sent-events parser. Pure: bytes in, items out.
//!
//! Framing follows the standard ("Interpreting an event stream", WHATWG HTML §9.2.6), which the
//! exchange's stream uses (§3.2): lines end in CRLF, LF or CR; a leading BOM is dropped; a line
//! starting with `:` is a comment; `field: value` drops one space after the colon, and a line
//! without a colon is a field with an empty value; `data` lines join with `\n`; `event` names
//! the event (`message` when unnamed or empty); `id` sets the last event id, which then stays
//! (one holding NUL is ignored); a blank line dispatches, unless no `data` came; an unfinished
//! event at the end of the stream is dropped.
//!
//! It is ours rather than `eventsource-stream`/`reqwest-eventsource` on purpose:
//! - one event is capped at [`SSE_EVENT_CAP`] (data, name and the unfinished line together):
//!   those crates buffer an event without bound, so `data:` lines that never meet a blank line
//!   grow until memory runs out;
//! - comments are reported (the stream opens with `: connected`, and a comment is a sign of
//!   life); those crates drop them;
//! - `retry:` is ignored: reconnect timing is the client's own, with backoff and jitter, so a
//!   server cannot ask for a reconnect storm;
//! - non-UTF-8 fails the stream rather than being replaced: the exchange sends JSON, and a
//!   corrupt frame must lead to a resync, not to a decoded guess.

use super::limits::{SSE_EVENT_CAP, bytes_text};

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// `message` when the server names none.
    pub event: String,
    pub data: String,
    /// The last event id in effect (ids persist across events); `None` when none or empty.
    pub id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem {
    Event(SseEvent),
    /// A comment line, without the colon and one leading space (`: connected` → `connected`).
    Comment(String),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    #[error("an event exceeded {}, the client's limit", bytes_text(SSE_EVENT_CAP))]
    EventTooLarge,
    #[error("the stream is not UTF-8")]
    NotUtf8,
}

/// Feeds arbitrary byte chunks; yields complete items. After an error every later feed returns
/// the same error: the stream must be reopened.
#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of the line not yet ended.
    buffer: Vec<u8>,
    /// The previous chunk ended in CR: a LF starting this one belongs to the same line end.
    after_cr: bool,
    /// The first line has been read (only it may start with a BOM).
    started: bool,
    event: String,
    /// The data lines so far, each followed by `\n`.
    data: String,
    last_id: Option<String>,
    failed: Option<SseError>,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Add bytes; returns every item they complete.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseItem>, SseError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let result = self.split(chunk);
        if let Err(e) = &result {
            // Free what a hostile stream made us hold, and refuse anything more.
            self.failed = Some(e.clone());
            self.buffer = Vec::new();
            self.data = String::new();
            self.event = String::new();
        }
        result
    }

    fn split(&mut self, mut chunk: &[u8]) -> Result<Vec<SseItem>, SseError> {
        let mut items = Vec::new();
        if let Some(first) = chunk.first()
            && std::mem::take(&mut self.after_cr)
            && *first == b'\n'
        {
            chunk = &chunk[1..];
        }
        while let Some(end) = chunk.iter().position(|b| *b == b'\n' || *b == b'\r') {
            let line = if self.buffer.is_empty() {
                &chunk[..end]
            } else {
                self.buffer.extend_from_slice(&chunk[..end]);
                &self.buffer[..]
            };
            let line = std::str::from_utf8(line)
                .map_err(|_| SseError::NotUtf8)?
                .to_string();
            self.buffer.clear();
            self.line(&line, &mut items)?;
            let mut next = end + 1;
            if chunk[end] == b'\r' {
                match chunk.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    // The CR ended the line; a LF may still follow in the next chunk.
                    None => self.after_cr = true,
                }
            }
            chunk = &chunk[next..];
        }
        // Count the unfinished line before holding it, so no chunk grows an event past the cap.
        if self.buffer.len() + chunk.len() + self.data.len() + self.event.len() > SSE_EVENT_CAP {
            return Err(SseError::EventTooLarge);
        }
        self.buffer.extend_from_slice(chunk);
        Ok(items)
    }

    fn line(&mut self, line: &str, items: &mut Vec<SseItem>) -> Result<(), SseError> {
        let line = if std::mem::replace(&mut self.started, true) {
            line
        } else {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        };
        if line.is_empty() {
            self.dispatch(items);
            return Ok(());
        }
        if let Some(comment) = line.strip_prefix(':') {
            items.push(SseItem::Comment(
                comment.strip_prefix(' ').unwrap_or(comment).to_string(),
            ));
            return Ok(());
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => value.clone_into(&mut self.event),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            "id" if !value.contains('\0') => self.last_id = Some(value.to_string()),
            // `retry` is deliberately ignored (see the header); unknown fields as the standard says.
            _ => {}
        }
        if self.data.len() + self.event.len() > SSE_EVENT_CAP {
            return Err(SseError::EventTooLarge);
        }
        Ok(())
    }

    fn dispatch(&mut self, items: &mut Vec<SseItem>) {
        let event = std::mem::take(&mut self.event);
        if self.data.is_empty() {
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop(); // the last line's `\n`
        items.push(SseItem::Event(SseEvent {
            event: if event.is_empty() {
                "message".into()
            } else {
                event
            },
            data,
            id: self.last_id.clone().filter(|id| !id.is_empty()),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(items: Vec<SseItem>) -> Vec<SseEvent> {
        items
            .into_iter()
            .filter_map(|i| match i {
                SseItem::Event(e) => Some(e),
                SseItem::Comment(_) => None,
            })
            .collect()
    }

    fn parse_in_chunks(text: &[u8], size: usize) -> Vec<SseItem> {
        let mut p = SseParser::new();
        let mut all = Vec::new();
        for chunk in text.chunks(size) {
            all.extend(p.feed(chunk).unwrap());
        }
        all
    }

    #[test]
    fn parses_the_recorded_stream_shape_in_any_chunking() {
        let text = ": connected\n\nevent: liveness\ndata: {\"heartbeatIntervalMs\":10000}\n\nevent: wallet\ndata: {\"a\":\ndata: 1}\n\nevent: heartbeat\r\ndata: null\r\n\r\n";
        for size in [1, 2, 3, 7, text.len()] {
            let all = parse_in_chunks(text.as_bytes(), size);
            assert_eq!(all[0], SseItem::Comment("connected".into()));
            let e = events(all);
            assert_eq!(e.len(), 3, "chunk {size}");
            assert_eq!(e[0].event, "liveness");
            assert_eq!(e[1].data, "{\"a\":\n1}");
            assert_eq!(e[2].event, "heartbeat");
            assert_eq!(e[2].data, "null");
        }
    }

    #[test]
    fn data_without_space_and_default_event() {
        let mut p = SseParser::new();
        let e = events(p.feed(b"data:x\nid: 7\n\n").unwrap());
        assert_eq!(
            e,
            vec![SseEvent {
                event: "message".into(),
                data: "x".into(),
                id: Some("7".into())
            }]
        );
        assert_eq!(p.feed(&[0xff, b'\n']), Err(SseError::NotUtf8));
        assert_eq!(p.feed(b"data: fine\n\n"), Err(SseError::NotUtf8));
    }

    #[test]
    fn framing_follows_the_standard() {
        // CR alone ends lines, and ends them at once: nothing waits for a byte that may not come.
        let mut p = SseParser::new();
        let e = events(p.feed(b"event: a\rdata: 1\r\r").unwrap());
        assert_eq!((e[0].event.as_str(), e[0].data.as_str()), ("a", "1"));
        // ...and a LF starting the next chunk is the rest of that CRLF, not a blank line.
        let mut p = SseParser::new();
        assert!(p.feed(b"data: 1\r").unwrap().is_empty());
        assert!(
            p.feed(b"").unwrap().is_empty(),
            "an empty chunk changes nothing"
        );
        assert!(p.feed(b"\ndata: 2\r").unwrap().is_empty());
        assert_eq!(events(p.feed(b"\n\r\n").unwrap())[0].data, "1\n2");

        let text = "\u{feff}: hi\n\nevent:\ndata\n\nevent: named\n\n\
                    id: 1\ndata:  two spaces\nretry: 0\nfoo: bar\n\n\
                    data: keeps the id\n\nid: a\0b\ndata: NUL id ignored\n\nid\ndata: reset\n\n";
        let all = parse_in_chunks(text.as_bytes(), 5);
        assert_eq!(all[0], SseItem::Comment("hi".into()), "the BOM is dropped");
        let e = events(all);
        let got: Vec<(&str, &str, Option<&str>)> = e
            .iter()
            .map(|e| (e.event.as_str(), e.data.as_str(), e.id.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                // `event:` empty names nothing; `data` without a colon is an empty data line.
                ("message", "", None),
                // `event: named` with no data dispatches nothing.
                ("message", " two spaces", Some("1")),
                ("message", "keeps the id", Some("1")),
                ("message", "NUL id ignored", Some("1")),
                ("message", "reset", None),
            ]
        );
        // An unfinished event at the end of the stream is never dispatched.
        assert!(events(parse_in_chunks(b"data: half\n", 3)).is_empty());
    }

    #[test]
    fn an_event_is_capped_however_its_bytes_arrive() {
        let line = format!("data: {}\n", "x".repeat(64 * 1024));
        let lines = SSE_EVENT_CAP / line.len() + 1;
        // Many short data lines and no blank line: each line is small, the event is not.
        let mut p = SseParser::new();
        let mut result = Ok(Vec::new());
        for _ in 0..lines {
            result = p.feed(line.as_bytes());
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result, Err(SseError::EventTooLarge));
        assert_eq!(p.feed(b"\n"), Err(SseError::EventTooLarge), "stays failed");
        // One line that never ends, in small pieces.
        let mut p = SseParser::new();
        let piece = vec![b'y'; 4096];
        let fed = (0..SSE_EVENT_CAP / piece.len() + 1).find(|_| p.feed(&piece).is_err());
        assert!(fed.is_some());
        // An event just under the cap still passes, and the next one starts from nothing.
        let mut p = SseParser::new();
        let mut big = "data: ".to_string();
        big.push_str(&"z".repeat(SSE_EVENT_CAP - 16));
        big.push_str("\n\n");
        assert_eq!(events(p.feed(big.as_bytes()).unwrap()).len(), 1);
        assert_eq!(events(p.feed(big.as_bytes()).unwrap()).len(), 1);
    }
}
