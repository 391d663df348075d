//! The edge: everything the guard knows about each harness, one module per harness.
//!
//! `harness/<name>/` owns that harness's wire structs and parsing into the neutral [`Event`]
//! (`parse`), its event-name table and abilities in one `const SPEC` ([`HarnessSpec`], reached
//! with [`Harness::spec`]), how it renders a [`Decision`] and an internal error (`render`,
//! `render_error`), its settings files, and the inverse used by `doctor`, `demo` and the tests
//! (`build_event`, `read_answer`, `verdict_word`; see [`probe`]). [`Tool::new`](crate::event::Tool::new)
//! ([`tool`]) turns arguments into the neutral tool fields, so nothing below this module knows
//! an argument name of any harness. This module holds what is shared and the one dispatch on
//! [`Harness`]. To add a harness: a new `harness/<name>/` with the same items, a variant of
//! [`Harness`], and an arm in each dispatch here.
//!
//! Contracts (see `../shared/hook-protocols.md` §0, §6, §9, §10; the observed behaviour of the
//! real programs wins over their documentation):
//! - Claude Code: JSON `hookSpecificOutput` on exit 0; `updatedInput` when we rewrite.
//! - Codex CLI: only documented fields (unknown ones make the hook "Failed", which fails open);
//!   no "ask", no bare "allow": ask becomes a deny that says how to approve.
//! - Cursor: always valid JSON on permission events (invalid JSON is a deny there).
//! - Gemini CLI: "ask" works only interactively, so it is mapped to deny unless configured.
//!
//! Internal errors are rendered by [`render_error`]: exit 2 with the reason on stderr for
//! Claude Code, Codex and Gemini CLI (all three honour it), the deny JSON for Cursor.

pub mod claude;
mod claude_shape;
pub mod codex;
pub mod cursor;
pub mod gemini;
pub mod json;
pub mod probe;
pub mod spec;
pub mod tool;

use crate::decision::{Decision, Verdict};
use crate::event::{Event, Harness};
use serde_json::Value;

pub use crate::config::AskMode;
pub use json::{flatten_text, string_field};
pub use probe::{Answer, Build, Call, Ids, Session};
pub use spec::HarnessSpec;

/// Options that change rendering.
#[derive(Debug, Clone, Copy)]
pub struct RenderOptions {
    /// Gemini CLI's mapping of "ask" (`--gemini-ask` / `INTENTSHIELD_GEMINI_ASK`); default deny.
    pub gemini_ask: AskMode,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            gemini_ask: AskMode::Deny,
        }
    }
}

/// What the hook process prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// Exactly what goes to stdout (may be empty).
    pub stdout: String,
    /// What goes to stderr (may be empty).
    pub stderr: String,
    /// Process exit status.
    pub exit_code: i32,
}

impl Rendered {
    /// Exit 0 with the given stdout and nothing on stderr.
    pub fn stdout(s: impl Into<String>) -> Rendered {
        Rendered {
            stdout: s.into(),
            stderr: String::new(),
            exit_code: 0,
        }
    }

    /// Exit 0, nothing printed: "no opinion" for Claude Code, Codex and Gemini CLI.
    pub fn silent() -> Rendered {
        Rendered::stdout("")
    }
}

/// Reads a harness's event JSON into the neutral event.
///
/// # Errors
///
/// A message naming what is missing or malformed (the caller fails closed).
pub fn parse(harness: Harness, raw: &Value) -> Result<Event, String> {
    if !raw.is_object() {
        return Err("event is not a JSON object".into());
    }
    match harness {
        Harness::Claude => claude::parse(raw),
        Harness::Codex => codex::parse(raw),
        Harness::Cursor => cursor::parse(raw),
        Harness::Gemini => gemini::parse(raw),
    }
}

/// Guesses which harness sent `raw` from its shape (hook-protocols.md §0, "Rules that follow").
///
/// Only used to catch Cursor running hooks from Claude Code's settings files (§3.6): Cursor
/// sends `cursor_version` and camelCase event names, and must be answered in its own format.
pub fn sniff(raw: &Value) -> Option<Harness> {
    let name = raw.get("hook_event_name").and_then(Value::as_str)?;
    if raw.get("cursor_version").is_some()
        || name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
    {
        return Some(Harness::Cursor);
    }
    if raw.get("timestamp").is_some() {
        return Some(Harness::Gemini);
    }
    let transcript = raw
        .get("transcript_path")
        .and_then(Value::as_str)
        .unwrap_or("");
    if raw.get("turn_id").is_some() || transcript.contains("/.codex/") {
        return Some(Harness::Codex);
    }
    Some(Harness::Claude)
}

/// The verdict the harness is told for `d`, as the audit records it. It differs from the
/// policy's verdict in one case: Claude Code's answer to a rewrite (`updated_input` on an
/// allowed PreToolUse) is "ask", since "allow" would skip the user's permission prompt
/// (hook-protocols.md §9; see `claude::render`), unless the user approved that very call.
pub fn answered_verdict(event: &Event, d: &Decision) -> Verdict {
    let claude_rewrite = event.harness == Harness::Claude
        && event.kind == crate::event::EventKind::PreTool
        && d.verdict == Verdict::Allow
        && d.updated_input.is_some()
        && d.reason != crate::decision::Reason::Approved;
    if claude_rewrite {
        Verdict::Ask
    } else {
        d.verdict
    }
}

/// Renders a decision for the event it answers.
///
/// An event name the harness's table does not know that was read as a tool call
/// ([`HarnessSpec::is_unknown_call`]) has no known answer format: a deny, and an ask (which
/// may not work there), is the block every harness honours on a call (exit 2 with the reason
/// on stderr; Cursor's deny JSON), and no objection is the harness's silence.
pub fn render(event: &Event, d: &Decision, opts: &RenderOptions) -> Rendered {
    if event
        .harness
        .spec()
        .is_unknown_call(&event.event_name, event.kind)
    {
        let (block, reason) = ask_as_deny(d);
        return match (event.harness, block) {
            (Harness::Cursor, true) => cursor::deny_json(&reason),
            (Harness::Cursor, false) => Rendered::stdout("{}"),
            (_, true) => Rendered {
                stdout: String::new(),
                stderr: reason,
                exit_code: 2,
            },
            (_, false) => Rendered::silent(),
        };
    }
    match event.harness {
        Harness::Claude => claude::render(event, d),
        Harness::Codex => codex::render(event, d),
        Harness::Cursor => cursor::render(event, d),
        Harness::Gemini => gemini::render(event, d, opts),
    }
}

/// Renders the fail-closed answer for an error that happened before or while deciding.
///
/// `event_name` is the harness's event name when it could be read. On events that carry no
/// call to stop (post-tool, session) the error is reported without blocking anything. The name
/// is looked up in every harness's table: a Cursor payload can arrive on a Claude Code hook.
pub fn render_error(harness: Harness, event_name: Option<&str>, message: &str) -> Rendered {
    let no_call =
        event_name.is_some_and(|n| Harness::ALL.iter().any(|h| h.spec().carries_no_call(n)));
    match harness {
        Harness::Claude => claude::render_error(no_call, message),
        Harness::Codex => codex::render_error(no_call, message),
        Harness::Cursor => cursor::render_error(no_call, message),
        Harness::Gemini => gemini::render_error(no_call, message),
    }
}

/// The reason given when a call is blocked because it could not be checked.
pub(crate) fn error_reason(message: &str) -> String {
    format!("IntentShield blocked this call because it could not check it: {message}")
}

/// The fail-closed answer of the harnesses that honour exit 2 (Claude Code, Codex, Gemini
/// CLI): exit 2 with the reason on stderr, or, when the event carries no call to stop, the
/// message on stderr with exit 0 (nothing to block, and the harness must not fail).
pub(crate) fn exit2_error(no_call: bool, message: &str) -> Rendered {
    if no_call {
        return Rendered {
            stdout: String::new(),
            stderr: format!("intentshield: {message}"),
            exit_code: 0,
        };
    }
    Rendered {
        stdout: String::new(),
        stderr: error_reason(message),
        exit_code: 2,
    }
}

/// The text that asks a person to approve on harnesses without a usable "ask".
pub fn approval_hint(d: &Decision) -> String {
    match d.audit_id {
        Some(id) => format!(
            "IntentShield needs your approval: {} [{}]. If you want this call to run, run `intentshield approve {id}` and ask the agent to retry.",
            d.message,
            d.reason.code()
        ),
        None => format!(
            "IntentShield needs your approval: {} [{}].",
            d.message,
            d.reason.code()
        ),
    }
}

/// The one-line reason shown to the model and the user for a deny or ask.
pub fn reason_line(d: &Decision) -> String {
    format!("IntentShield: {} [{}]", d.message, d.reason.code())
}

/// The verdict as delivered on harnesses that cannot ask.
pub(crate) fn ask_as_deny(d: &Decision) -> (bool, String) {
    match d.verdict {
        Verdict::Deny => (true, reason_line(d)),
        Verdict::Ask => (true, approval_hint(d)),
        Verdict::Allow => (false, String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parse_needs_an_object() {
        for h in Harness::ALL {
            assert_eq!(
                parse(h, &json!([1])).unwrap_err(),
                "event is not a JSON object"
            );
        }
    }

    #[test]
    fn sniffs_the_sender() {
        let s = |v| sniff(&v);
        assert_eq!(
            s(json!({"hook_event_name": "preToolUse"})),
            Some(Harness::Cursor)
        );
        assert_eq!(
            s(json!({"hook_event_name": "BeforeTool", "timestamp": "t"})),
            Some(Harness::Gemini)
        );
        assert_eq!(
            s(json!({"hook_event_name": "PreToolUse", "turn_id": "t"})),
            Some(Harness::Codex)
        );
        assert_eq!(
            s(json!({"hook_event_name": "PreToolUse"})),
            Some(Harness::Claude)
        );
        assert_eq!(s(json!({})), None);
    }

    #[test]
    fn errors_on_events_without_a_call_block_nothing_whoever_named_them() {
        // A Cursor event name on a Claude Code hook, and the other way round.
        assert_eq!(
            render_error(Harness::Claude, Some("afterShellExecution"), "m").exit_code,
            0
        );
        assert_eq!(
            render_error(Harness::Cursor, Some("Stop"), "m").stdout,
            "{}"
        );
        assert_eq!(
            render_error(Harness::Gemini, Some("BeforeTool"), "m").exit_code,
            2
        );
        assert_eq!(render_error(Harness::Codex, None, "m").exit_code, 2);
    }
}
