//! JSON-RPC framing of the MCP stdio transport: bounded newline-delimited lines in and out,
//! the request id of an oversized line, and `dispatch` of one message or a batch to a
//! handler that says what to do with each member (`Action`).

use serde_json::{json, Value};
use std::io::{self, BufRead, Write};

/// Longest JSON-RPC line accepted in either direction, in bytes (16 MiB).
pub const MAX_LINE: usize = 16 << 20;

/// One line read by [`read_line`].
#[derive(Debug, PartialEq)]
pub enum Line {
    /// A complete line, without its `\n`.
    Full(Vec<u8>),
    /// A line over the limit: its first 4 KiB and its total length in bytes.
    TooLong(Vec<u8>, usize),
    /// End of input.
    Eof,
}

/// Reads one `\n`-terminated line of at most `max` bytes into memory; a longer line is
/// consumed and reported as [`Line::TooLong`]. A last line without `\n` counts as a line.
///
/// # Errors
///
/// An I/O error of the underlying reader (other than `Interrupted`, which is retried); what
/// was read of the line so far is discarded.
pub fn read_line<R: BufRead>(r: &mut R, max: usize, buf: &mut Vec<u8>) -> io::Result<Line> {
    buf.clear();
    let mut total = 0usize;
    let mut over = false;
    // What a too-long line keeps: its start, for the error reply (the request id).
    let keep = max.min(4096);
    loop {
        let avail = match r.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            if total == 0 {
                return Ok(Line::Eof);
            }
            break;
        }
        let (chunk, done) = match crate::text::memchr(b'\n', avail) {
            Some(i) => (&avail[..i], Some(i + 1)),
            None => (avail, None),
        };
        total += chunk.len();
        if !over && total > max {
            over = true;
            buf.truncate(keep);
        }
        if !over {
            buf.extend_from_slice(chunk);
        } else if buf.len() < keep {
            let take = (keep - buf.len()).min(chunk.len());
            buf.extend_from_slice(&chunk[..take]);
        }
        let used = done.unwrap_or(avail.len());
        r.consume(used);
        if done.is_some() {
            break;
        }
    }
    if over {
        Ok(Line::TooLong(std::mem::take(buf), total))
    } else {
        Ok(Line::Full(std::mem::take(buf)))
    }
}

/// The `"id"` of a JSON-RPC message from the start of its text (for oversized lines).
pub(super) fn id_from_prefix(prefix: &[u8]) -> Option<Value> {
    let s = String::from_utf8_lossy(prefix);
    let i = s.find("\"id\"")?;
    let rest = s[i + 4..].trim_start().strip_prefix(':')?.trim_start();
    if let Some(r) = rest.strip_prefix('"') {
        let end = r.find('"')?;
        return Some(Value::String(r[..end].to_string()));
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '-'))
        .unwrap_or(rest.len());
    rest[..end].parse::<i64>().ok().map(Value::from)
}

/// What to do with one message.
pub(super) enum Action {
    /// Relay the original bytes.
    Relay,
    /// Relay this instead.
    Replace(Value),
    /// Do not relay; answer the sender with this.
    Answer(Value),
    /// Do not relay (an answer to the proxy itself).
    Drop,
}

/// The key of a JSON-RPC id in the table of pending requests (its JSON text).
pub(super) fn key(id: &Value) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

/// A JSON-RPC error response to `id`.
pub(super) fn error_response(id: &Value, code: i64, message: &str, data: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message, "data": data}})
}

/// Writes `bytes` as one line and flushes.
pub(super) fn write_line(w: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    w.write_all(bytes)?;
    w.write_all(b"\n")?;
    w.flush()
}

/// Applies `f` to a message or to each member of a batch. Returns what to relay (if anything)
/// and the answers to send back to the sender.
pub(super) fn dispatch(raw: &[u8], f: impl Fn(&Value) -> Action) -> (Option<Vec<u8>>, Vec<Value>) {
    let Ok(v) = serde_json::from_slice::<Value>(raw) else {
        return (Some(raw.to_vec()), Vec::new());
    };
    match &v {
        Value::Array(items) => {
            let mut keep = Vec::new();
            let mut answers = Vec::new();
            let mut changed = false;
            for it in items {
                match f(it) {
                    Action::Relay => keep.push(it.clone()),
                    Action::Replace(x) => {
                        changed = true;
                        keep.push(x)
                    }
                    Action::Answer(a) => {
                        changed = true;
                        answers.push(a)
                    }
                    Action::Drop => changed = true,
                }
            }
            let relay = if !changed {
                Some(raw.to_vec())
            } else if keep.is_empty() {
                None
            } else {
                Some(Value::Array(keep).to_string().into_bytes())
            };
            (relay, answers)
        }
        _ => match f(&v) {
            Action::Relay => (Some(raw.to_vec()), Vec::new()),
            Action::Replace(x) => (Some(x.to_string().into_bytes()), Vec::new()),
            Action::Answer(a) => (None, vec![a]),
            Action::Drop => (None, Vec::new()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    #[test]
    fn bounded_lines() {
        let data = b"abc\n0123456789\nlast";
        let mut r = BufReader::with_capacity(4, &data[..]);
        let mut b = Vec::new();
        assert_eq!(
            read_line(&mut r, 8, &mut b).unwrap(),
            Line::Full(b"abc".to_vec())
        );
        assert_eq!(
            read_line(&mut r, 8, &mut b).unwrap(),
            Line::TooLong(b"01234567".to_vec(), 10)
        );
        assert_eq!(
            read_line(&mut r, 8, &mut b).unwrap(),
            Line::Full(b"last".to_vec())
        );
        assert_eq!(read_line(&mut r, 8, &mut b).unwrap(), Line::Eof);
    }

    #[test]
    fn ids_from_prefixes() {
        assert_eq!(
            id_from_prefix(br#"{"jsonrpc":"2.0","id": 42,"result""#),
            Some(json!(42))
        );
        assert_eq!(id_from_prefix(br#"{"id":"a-1","#), Some(json!("a-1")));
        assert_eq!(id_from_prefix(b"garbage"), None);
    }

    #[test]
    fn over_long_line_keeps_its_start_and_the_next_line() {
        // Read through a small buffer so the long line spans many `fill_buf` calls.
        let mut data = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":""#.to_vec();
        data.resize(20_000, b'a');
        data.extend_from_slice(b"\"}}\n{\"id\":8}\n");
        let mut r = BufReader::with_capacity(1000, &data[..]);
        let mut b = Vec::new();
        match read_line(&mut r, 10_000, &mut b).unwrap() {
            Line::TooLong(prefix, n) => {
                assert_eq!(n, 20_003);
                assert_eq!(prefix.len(), 4096);
                assert_eq!(prefix[..], data[..4096]);
                assert_eq!(id_from_prefix(&prefix), Some(json!(7)));
            }
            other => panic!("expected TooLong, got {other:?}"),
        }
        assert_eq!(
            read_line(&mut r, 10_000, &mut b).unwrap(),
            Line::Full(br#"{"id":8}"#.to_vec())
        );
        assert_eq!(read_line(&mut r, 10_000, &mut b).unwrap(), Line::Eof);
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_full() {
        let mut r = BufReader::with_capacity(3, &b"12345678\n"[..]);
        let mut b = Vec::new();
        assert_eq!(
            read_line(&mut r, 8, &mut b).unwrap(),
            Line::Full(b"12345678".to_vec())
        );
    }

    /// A handler keyed on `"method"`: relay `r`, answer `a`, drop `d`, replace `x`.
    fn by_method(m: &Value) -> Action {
        match m.get("method").and_then(Value::as_str) {
            Some("a") => Action::Answer(json!({"id": m["id"], "result": "answered"})),
            Some("d") => Action::Drop,
            Some("x") => Action::Replace(json!({"id": m["id"], "method": "x2"})),
            _ => Action::Relay,
        }
    }

    #[test]
    fn batch_with_relay_answer_drop_and_replace() {
        let raw = br#"[{"id":1,"method":"r"}, {"id":2,"method":"a"}, {"id":3,"method":"d"}, {"id":4,"method":"x"}]"#;
        let (relay, answers) = dispatch(raw, by_method);
        let relay: Value = serde_json::from_slice(&relay.expect("some members relay")).unwrap();
        assert_eq!(
            relay,
            json!([{"id": 1, "method": "r"}, {"id": 4, "method": "x2"}])
        );
        assert_eq!(answers, vec![json!({"id": 2, "result": "answered"})]);
    }

    #[test]
    fn batch_relayed_untouched_or_not_at_all() {
        // Nothing changed: the same bytes, spacing included.
        let raw = br#"[ {"id":1,"method":"r"} ,{"method":"r"} ]"#;
        assert_eq!(dispatch(raw, by_method), (Some(raw.to_vec()), Vec::new()));
        // Every member answered or dropped: nothing relayed.
        let raw = br#"[{"id":2,"method":"a"},{"id":3,"method":"d"}]"#;
        let (relay, answers) = dispatch(raw, by_method);
        assert_eq!(relay, None);
        assert_eq!(answers.len(), 1);
    }

    #[test]
    fn single_messages_and_malformed_json() {
        let raw = br#"{"id":1, "method":"r"}"#;
        assert_eq!(dispatch(raw, by_method), (Some(raw.to_vec()), Vec::new()));
        assert_eq!(
            dispatch(br#"{"id":2,"method":"a"}"#, by_method),
            (None, vec![json!({"id": 2, "result": "answered"})])
        );
        assert_eq!(
            dispatch(br#"{"id":3,"method":"d"}"#, by_method),
            (None, Vec::new())
        );
        let (relay, _) = dispatch(br#"{"id":4,"method":"x"}"#, by_method);
        assert_eq!(
            serde_json::from_slice::<Value>(&relay.unwrap()).unwrap(),
            json!({"id": 4, "method": "x2"})
        );
        let raw = b"{not json";
        assert_eq!(
            dispatch(raw, |_| Action::Drop),
            (Some(raw.to_vec()), Vec::new())
        );
    }
}
