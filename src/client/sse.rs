//! An incremental server-sent-events parser (the standard rules the exchange's stream follows,
//! §3.2): `event:`/`data:`/`id:` lines, one optional space after the colon, `:` comments, a blank
//! line ends an event, several `data:` lines join with `\n`. Pure: bytes in, events out.

/// One dispatched event. Comments are reported too (`: connected`), as `comment`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// `message` when the server names none.
    pub event: String,
    pub data: String,
    pub id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem {
    Event(SseEvent),
    Comment(String),
}

/// Feeds arbitrary byte chunks; yields complete items.
#[derive(Debug, Default)]
pub struct SseParser {
    buffer: Vec<u8>,
    event: Option<String>,
    data: Vec<String>,
    id: Option<String>,
}

/// The longest line accepted; a longer one means a broken or hostile stream.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    #[error("a stream line exceeded {MAX_LINE} bytes")]
    LineTooLong,
    #[error("the stream is not UTF-8")]
    NotUtf8,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Add bytes; returns every item they complete.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseItem>, SseError> {
        self.buffer.extend_from_slice(chunk);
        let mut items = Vec::new();
        while let Some(end) = self.buffer.iter().position(|b| *b == b'\n' || *b == b'\r') {
            // CRLF counts as one line end.
            let skip = if self.buffer[end] == b'\r' && self.buffer.get(end + 1) == Some(&b'\n') {
                2
            } else if self.buffer[end] == b'\r' && end + 1 == self.buffer.len() {
                // A lone CR at the end of a chunk may be half of a CRLF: wait for more.
                break;
            } else {
                1
            };
            let line: Vec<u8> = self.buffer.drain(..end + skip).take(end).collect();
            let line = String::from_utf8(line).map_err(|_| SseError::NotUtf8)?;
            if let Some(item) = self.line(&line) {
                items.push(item);
            }
        }
        if self.buffer.len() > MAX_LINE {
            return Err(SseError::LineTooLong);
        }
        Ok(items)
    }

    fn line(&mut self, line: &str) -> Option<SseItem> {
        if line.is_empty() {
            if self.data.is_empty() && self.event.is_none() {
                self.id = None;
                return None;
            }
            let event = SseEvent {
                event: self.event.take().unwrap_or_else(|| "message".into()),
                data: std::mem::take(&mut self.data).join("\n"),
                id: self.id.take(),
            };
            return Some(SseItem::Event(event));
        }
        if let Some(comment) = line.strip_prefix(':') {
            return Some(SseItem::Comment(
                comment.strip_prefix(' ').unwrap_or(comment).to_string(),
            ));
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => self.data.push(value.to_string()),
            "id" => self.id = Some(value.to_string()),
            _ => {} // `retry` and unknown fields are ignored, as the standard says.
        }
        None
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

    #[test]
    fn parses_the_recorded_stream_shape_in_any_chunking() {
        let text = ": connected\n\nevent: liveness\ndata: {\"heartbeatIntervalMs\":10000}\n\nevent: wallet\ndata: {\"a\":\ndata: 1}\n\nevent: heartbeat\r\ndata: null\r\n\r\n";
        for size in [1, 2, 3, 7, text.len()] {
            let mut p = SseParser::new();
            let mut all = Vec::new();
            for chunk in text.as_bytes().chunks(size) {
                all.extend(p.feed(chunk).unwrap());
            }
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
    }
}
