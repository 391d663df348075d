//! The edge: one adapter per harness reads its event JSON into an [`Event`] and renders a
//! [`Decision`] back in that harness's exact format.
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
pub mod codex;
pub mod cursor;
pub mod gemini;
mod json;

use crate::decision::{Decision, Verdict};
use crate::event::{Event, Harness};
use serde_json::Value;

pub use json::{flatten_text, string_field};

/// How an "ask" is delivered where the harness cannot ask reliably.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AskMode {
    /// Deny, with a reason that tells the user how to approve once (`intentshield approve`).
    Deny,
    /// Use the harness's own ask (Gemini CLI `decision:"ask"`: interactive sessions only).
    Ask,
}

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
/// Errors: a message naming what is missing or malformed (the caller fails closed).
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

/// Renders a decision for the event it answers.
pub fn render(event: &Event, d: &Decision, opts: &RenderOptions) -> Rendered {
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
/// call to stop (post-tool, session) the error is reported without blocking anything.
pub fn render_error(harness: Harness, event_name: Option<&str>, message: &str) -> Rendered {
    let reason = format!("IntentShield blocked this call because it could not check it: {message}");
    let post_like = event_name.is_some_and(|n| {
        matches!(
            n,
            "PostToolUse"
                | "PostToolUseFailure"
                | "AfterTool"
                | "SessionStart"
                | "SessionEnd"
                | "Stop"
                | "postToolUse"
                | "postToolUseFailure"
                | "afterShellExecution"
                | "afterMCPExecution"
                | "afterFileEdit"
                | "sessionStart"
                | "sessionEnd"
                | "stop"
        )
    });
    match harness {
        Harness::Cursor => {
            if post_like {
                return Rendered::stdout("{}");
            }
            let v = serde_json::json!({
                "permission": "deny",
                "user_message": reason,
                "agent_message": reason,
            });
            Rendered::stdout(v.to_string())
        }
        _ => {
            if post_like {
                // Nothing to block; say so on stderr without failing the harness.
                return Rendered {
                    stdout: String::new(),
                    stderr: format!("intentshield: {message}"),
                    exit_code: 0,
                };
            }
            Rendered {
                stdout: String::new(),
                stderr: reason,
                exit_code: 2,
            }
        }
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
