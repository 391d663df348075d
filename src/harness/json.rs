//! Small helpers for reading untrusted event JSON, shared by every harness.

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// Upper bound on the text flattened out of one tool output (bytes). Larger outputs are cut;
/// the cut is at a character boundary.
pub const MAX_FLATTENED: usize = 16 * 1024 * 1024;

/// A string field, or `None` when absent or not a string.
pub fn string_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A lenient string field for the wire structs: a JSON string gives `Some`, any other value
/// (number, object, null, ...) or an absent field gives `None`, never an error. This keeps the
/// wire structs exactly as forgiving as reading fields one by one: a field of the wrong type
/// counts as missing.
///
/// # Errors
///
/// Only the deserializer's own errors (never for a `&serde_json::Value` input).
pub fn lenient_str<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de str>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<&'de str>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
            Ok(Some(s))
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            // Only borrowed input is read (events are parsed into a `Value` first).
            Ok(None)
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_any(V)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(None)
        }
    }
    d.deserialize_any(V)
}

/// Flattens a tool result into the text the model reads.
///
/// Shapes handled: a string; an MCP `CallToolResult` (`{content:[{type:"text",text}...],
/// structuredContent}`); a list of content blocks (Claude Code's MCP `tool_response`); Gemini's
/// `{llmContent, returnDisplay, error}`; Claude's Bash `{stdout, stderr}`. Anything else: every
/// string leaf, in document order, one per line. Depth is bounded (64).
pub fn flatten_text(v: &Value) -> String {
    let mut out = String::new();
    collect(v, &mut out, 0);
    out
}

fn push(out: &mut String, s: &str) {
    if out.len() >= MAX_FLATTENED {
        return;
    }
    if !out.is_empty() {
        out.push('\n');
    }
    let room = MAX_FLATTENED - out.len();
    if s.len() <= room {
        out.push_str(s);
    } else {
        out.push_str(crate::text::cap(s, room));
    }
}

fn collect(v: &Value, out: &mut String, depth: usize) {
    if depth > 64 {
        return;
    }
    match v {
        Value::String(s) => push(out, s),
        Value::Array(items) => {
            for i in items {
                collect(i, out, depth + 1);
            }
        }
        Value::Object(map) => {
            // Gemini CLI: the model reads llmContent; returnDisplay repeats it for the screen.
            if let Some(llm) = map.get("llmContent") {
                collect(llm, out, depth + 1);
                if let Some(e) = map.get("error") {
                    collect(e, out, depth + 1);
                }
                return;
            }
            for (k, val) in map {
                // Keys that carry no text the model reads.
                if matches!(
                    k.as_str(),
                    "type" | "mimeType" | "isError" | "interrupted" | "isImage" | "annotations"
                ) {
                    continue;
                }
                collect(val, out, depth + 1);
            }
        }
        Value::Number(n) => push(out, &n.to_string()),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn flattens_mcp_content_blocks() {
        let v = json!({"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"isError":false});
        assert_eq!(flatten_text(&v), "a\nb");
    }

    #[test]
    fn flattens_gemini_llm_content() {
        let v = json!({"llmContent":[{"text":"x"}],"returnDisplay":"x"});
        assert_eq!(flatten_text(&v), "x");
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut v = json!("leaf");
        for _ in 0..100 {
            v = json!([v]);
        }
        assert_eq!(flatten_text(&v), "");
    }
}
