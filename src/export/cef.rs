//! ArcSight Common Event Format (CEF), version 0:
//! `CEF:0|Device Vendor|Device Product|Device Version|Signature ID|Name|Severity|Extension`.
//!
//! Escaping, as the format's specification states it: in the seven header fields a pipe is
//! `\|` and a backslash `\\`; in extension values a backslash is `\\`, an equals sign `\=`,
//! and a newline (line feed or carriage return) is `\n` or `\r`. The header may hold no
//! newline at all, so any control character there becomes a space. Extension keys are fixed
//! ASCII names and need no escaping; a pipe in an extension value is left as it is.
//!
//! What the fields hold: vendor and product `IntentShield`, the crate's version, the stable
//! reason code as Signature ID, `intentshield <decision>: <reason code>` as Name, and Severity
//! 1 (allow), 5 (ask) or 8 (deny) on CEF's 0-10 scale. Extension keys: `rt` (time, ms since the
//! epoch), `externalId` (audit row id), `act` (allow, ask or deny), `cat` (the harness event),
//! `app` (the harness), `msg` (the one-line reason), `fileHash` (SHA-256 of the arguments as
//! sent), and custom strings with their labels: `cs1` session, `cs2` tool, `cs3` row hash,
//! `cs4` previous row hash, `cs5` arguments (masked, capped), `cs6` matched rules; `suser` the
//! approver of an approved call.

use super::{cut, PRODUCT, VERSION};
use crate::state::AuditRow;

/// CEF severity (0-10) of a decision: allow 1, ask 5, deny 8 (anything else 8).
pub fn severity(verdict: &str) -> u8 {
    match verdict {
        "allow" => 1,
        "ask" => 5,
        _ => 8,
    }
}

/// A header field escaped: `\` → `\\`, `|` → `\|`, control characters → space.
pub fn escape_header(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// An extension value escaped: `\` → `\\`, `=` → `\=`, LF → `\n`, CR → `\r`, any other control
/// character → space.
pub fn escape_value(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '=' => out.push_str("\\="),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Longest extension value written (bytes, before escaping): keeps a line well under the
/// sink's line limit.
const VALUE_MAX: usize = 1024;

/// One audit row as one CEF line.
pub fn line(r: &AuditRow) -> String {
    let name = format!("intentshield {}: {}", r.verdict, r.reason_code);
    let mut out = format!(
        "CEF:0|{}|{}|{}|{}|{}|{}|",
        escape_header(PRODUCT),
        escape_header(PRODUCT),
        escape_header(VERSION),
        escape_header(&r.reason_code),
        escape_header(&name),
        severity(&r.verdict)
    );
    let mut ext: Vec<(&str, String)> = vec![
        ("rt", (r.ts.saturating_mul(1000)).to_string()),
        ("externalId", r.id.to_string()),
        ("act", r.verdict.clone()),
        ("cat", r.event.clone()),
        ("app", r.harness.clone()),
        ("cs1Label", "session".into()),
        ("cs1", r.session_id.clone()),
    ];
    if let Some(t) = &r.tool {
        ext.push(("cs2Label", "tool".into()));
        ext.push(("cs2", t.clone()));
    }
    if let Some(h) = &r.row_hash {
        ext.push(("cs3Label", "rowHash".into()));
        ext.push(("cs3", h.clone()));
    }
    if let Some(h) = &r.prev_hash {
        ext.push(("cs4Label", "prevHash".into()));
        ext.push(("cs4", h.clone()));
    }
    if let Some(a) = &r.args {
        ext.push(("cs5Label", "args".into()));
        ext.push(("cs5", a.clone()));
    }
    ext.push(("cs6Label", "rules".into()));
    ext.push(("cs6", super::rules(r).to_string()));
    if let Some(d) = &r.args_digest {
        ext.push(("fileHash", d.clone()));
    }
    if let Some(a) = &r.approver {
        ext.push(("suser", a.clone()));
    }
    ext.push(("msg", r.message.clone()));
    let mut first = true;
    for (k, v) in ext {
        if !first {
            out.push(' ');
        }
        first = false;
        out.push_str(k);
        out.push('=');
        out.push_str(&escape_value(&cut(&v, VALUE_MAX)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_header(r"a|b\c"), r"a\|b\\c");
        assert_eq!(escape_header("a\nb"), "a b");
        assert_eq!(escape_value("a=b\\c\nd\re|f"), r"a\=b\\c\nd\re|f");
    }
}
