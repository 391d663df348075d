//! Audit export: one decision as one line in JSON Lines, CEF or OCSF, for `intentshield log
//! --format` and for the optional sink the hook writes itself (`[export]` in the config file,
//! [`sink`]).
//!
//! Every line is a single line (no raw newline anywhere in it), so that a collector tailing the
//! file (Vector, Fluent Bit) reads one event per line. The formats:
//! - `jsonl`: the audit row as `log --json` prints it (`id`, `ts`, `time`, `harness`, `session`,
//!   `event`, `tool`, `decision`, `reason`, `rules`, `args_digest`, `args`, `message`,
//!   `critical`, `approver`, `prev_hash`, `row_hash`);
//! - `cef`: ArcSight Common Event Format, version 0 ([`cef`]);
//! - `ocsf`: an OCSF API Activity event (class 6003) with the Security Control profile
//!   ([`ocsf`]).

pub mod cef;
pub mod ocsf;
pub mod sink;

use crate::state::AuditRow;
use serde_json::{json, Value};

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON object per line (the `log --json` shape).
    Jsonl,
    /// ArcSight Common Event Format, version 0.
    Cef,
    /// OCSF API Activity (class 6003).
    Ocsf,
}

impl Format {
    /// Parses `jsonl|json|cef|ocsf` (`json` is `jsonl`).
    ///
    /// # Errors
    ///
    /// Any other text: `invalid export format '<s>': expected jsonl, cef or ocsf`.
    pub fn from_name(s: &str) -> Result<Format, String> {
        match s {
            "jsonl" | "json" => Ok(Format::Jsonl),
            "cef" => Ok(Format::Cef),
            "ocsf" => Ok(Format::Ocsf),
            _ => Err(format!(
                "invalid export format '{s}': expected jsonl, cef or ocsf"
            )),
        }
    }

    /// `jsonl`, `cef` or `ocsf`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            Format::Cef => "cef",
            Format::Ocsf => "ocsf",
        }
    }

    /// One decision as one line of this format, without the trailing newline.
    pub fn line(self, r: &AuditRow) -> String {
        match self {
            Format::Jsonl => jsonl(r).to_string(),
            Format::Cef => cef::line(r),
            Format::Ocsf => ocsf::event(r).to_string(),
        }
    }
}

/// The product name every format reports.
pub const PRODUCT: &str = "IntentShield";
/// The product version every format reports (the crate's version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The JSON Lines object of one audit row (also what `log --json` prints). `chain` is the
/// row's hash-chain status (`ok`, `broken`, `unchained`) when the caller checked it.
pub fn jsonl(r: &AuditRow) -> Value {
    let mut v = json!({
        "id": r.id,
        "ts": r.ts,
        "time": crate::commands::log::fmt_iso(r.ts),
        "harness": r.harness,
        "session": r.session_id,
        "event": r.event,
        "tool": r.tool,
        "decision": r.verdict,
        "reason": r.reason_code,
        "rules": rules(r),
        "args_digest": r.args_digest,
        "args": r.args,
        "message": r.message,
        "critical": critical(r),
        "approver": r.approver,
        "prev_hash": r.prev_hash,
        "row_hash": r.row_hash,
    });
    if let (Some(c), Some(o)) = (r.chain, v.as_object_mut()) {
        o.insert("chain".into(), Value::from(c.name()));
    }
    v
}

/// The matched rules of a row as a JSON array (the stored text parsed; `[]` when unreadable).
pub fn rules(r: &AuditRow) -> Value {
    serde_json::from_str::<Value>(&r.rules)
        .ok()
        .filter(Value::is_array)
        .unwrap_or_else(|| Value::Array(Vec::new()))
}

/// The resolved critical values of a row as JSON (the stored text parsed; the text itself
/// when it is not JSON; null when none were recorded).
pub fn critical(r: &AuditRow) -> Value {
    match &r.critical {
        None => Value::Null,
        Some(t) => serde_json::from_str::<Value>(t).unwrap_or_else(|_| Value::from(t.as_str())),
    }
}

/// Cuts `s` to at most `max` bytes on a character boundary, marking a cut with `…`.
pub fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}
