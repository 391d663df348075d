//! The event shape Claude Code and Codex CLI share (hook-protocols.md §1.2, §2.2): Codex adds
//! `turn_id` and `model`, and its `apply_patch` puts the patch text in `tool_input.command`.
//! Both harness modules parse through here with their own spec; neither calls the other. Gemini
//! CLI's events (§4.2) have the same top-level fields (`session_id`, `cwd`, `hook_event_name`,
//! `prompt`, `tool_name`, `tool_input`), so it parses through [`parse_with`] with its own tools.

use super::json::{flatten_text, lenient_str};
use super::spec::{HarnessSpec, HookEvent};
use crate::event::{Event, EventKind, McpTool, Tool, ToolKind};
use serde::Deserialize;
use serde_json::Value;

/// The event names Claude Code (§1.1) and Codex CLI (§2.1) both use, and what each is.
pub(crate) const EVENTS: &[HookEvent] = &[
    HookEvent::other("UserPromptSubmit", EventKind::PromptSubmit, false),
    HookEvent::pre("PreToolUse"),
    HookEvent::post("PostToolUse"),
    HookEvent::post("PostToolUseFailure"),
    // Permission events name a call that `PreToolUse` has already decided (§1.2, §2.2): read,
    // not checked again (a second check would use up a one-time approval twice).
    HookEvent::other("PermissionRequest", EventKind::Other, false),
    HookEvent::other("PermissionDenied", EventKind::Other, false),
    HookEvent::other("SessionStart", EventKind::SessionStart, true),
    HookEvent::other("SessionEnd", EventKind::SessionEnd, true),
    HookEvent::other("Stop", EventKind::Other, true),
];

/// The names of the events `build` makes for Claude Code and Codex CLI, in the order
/// [`Build::name`](super::probe::Build::name) takes them.
pub(crate) const BUILD_NAMES: [&str; 4] = [
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "SessionStart",
];

/// The fields of a Claude Code or Codex CLI event we read. Every string field is lenient (a
/// value of another type counts as absent); `tool_input` and `tool_response` are read from the
/// raw value, so a large tool output is never copied.
#[derive(Debug, Deserialize)]
pub(crate) struct Wire<'a> {
    /// `PreToolUse`, `UserPromptSubmit`, ...
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub hook_event_name: Option<&'a str>,
    /// The harness's session id.
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub session_id: Option<&'a str>,
    /// The agent's working directory.
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub cwd: Option<&'a str>,
    /// `UserPromptSubmit`: the prompt.
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub prompt: Option<&'a str>,
    /// Tool events: the tool's name.
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub tool_name: Option<&'a str>,
    /// `PostToolUseFailure`: the error text.
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub error: Option<&'a str>,
    /// `SessionStart`: `startup`, `resume`, `clear`, `compact` (Claude Code also `fork`).
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub source: Option<&'a str>,
    /// The conversation's transcript file (all three harnesses send it on every event).
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub transcript_path: Option<&'a str>,
}

/// Parses a Claude Code or Codex CLI event of the harness `spec` describes.
///
/// # Errors
///
/// A message naming what is missing (`hook_event_name`, `tool_name`, `session_id`).
pub(crate) fn parse(spec: &HarnessSpec, raw: &Value) -> Result<Event, String> {
    parse_with(spec, raw, |ev, w, tool_name, input| {
        let server_hint = raw
            .get("mcp_server")
            .and_then(|s| s.get("name"))
            .and_then(Value::as_str);
        let t = tool(tool_name, input, server_hint);
        // Codex CLI runs its shell tools' argv arrays as argv (§2.2).
        ev.tool = Some(if spec.harness == crate::event::Harness::Codex {
            t.with_argv()
        } else {
            t
        });
        if ev.kind == EventKind::PostTool {
            if ev.event_name == "PostToolUseFailure" {
                ev.output = Some(w.error.unwrap_or("").to_string());
                ev.output_is_error = true;
            } else {
                let resp = raw.get("tool_response").unwrap_or(&Value::Null);
                ev.output_is_error = resp
                    .get("isError")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                ev.output = Some(flatten_text(resp));
            }
        }
    })
}

/// Parses a Claude-shaped event of the harness `spec` describes: the event name, its kind
/// (from `spec`), session id, cwd, prompt and session-start `source`; for a tool event,
/// `tool_event` gets the event so far, the wire fields, the tool's name and its `tool_input`
/// (null when absent) and fills in the tool and its output.
///
/// An event name the spec does not know is [`EventKind::Other`], unless it carries a tool
/// name and arguments (`tool_name` and a non-null `tool_input`): then it is read as a
/// [`EventKind::PreTool`] event, so a renamed or new before-tool event is checked and fails
/// closed instead of passing as housekeeping.
///
/// # Errors
///
/// A message naming what is missing (`hook_event_name`, `tool_name` on a tool event,
/// `session_id`), or serde's message when the event is not a JSON object.
pub(crate) fn parse_with<'a>(
    spec: &HarnessSpec,
    raw: &'a Value,
    tool_event: impl FnOnce(&mut Event, &Wire<'a>, &'a str, Value),
) -> Result<Event, String> {
    let w = Wire::deserialize(raw).map_err(|e| e.to_string())?;
    let name = w.hook_event_name.ok_or("missing hook_event_name")?;
    let carries_call = w.tool_name.is_some() && raw.get("tool_input").is_some_and(|v| !v.is_null());
    let kind = match spec.kind(name) {
        Some(k) => k,
        None if carries_call => EventKind::PreTool,
        None => EventKind::Other,
    };
    let mut ev = Event::new(spec.harness, kind, name);
    ev.session_id = w.session_id.unwrap_or("").to_string();
    ev.cwd = w.cwd.map(str::to_string);
    match kind {
        EventKind::SessionStart => {
            ev.source = w
                .source
                .map(|s| s.chars().take(crate::event::MAX_SOURCE).collect());
        }
        EventKind::PromptSubmit => {
            ev.prompt = Some(w.prompt.unwrap_or("").to_string());
            ev.transcript = w
                .transcript_path
                .filter(|p| p.len() <= crate::event::MAX_TRANSCRIPT_PATH)
                .map(str::to_string);
        }
        EventKind::PreTool | EventKind::PostTool => {
            let tool_name = w.tool_name.ok_or("missing tool_name")?;
            let input = raw.get("tool_input").cloned().unwrap_or(Value::Null);
            tool_event(&mut ev, &w, tool_name, input);
        }
        _ => {}
    }
    if ev.session_id.is_empty() {
        return Err("missing session_id".into());
    }
    Ok(ev)
}

/// Builds the neutral tool from a Claude Code or Codex tool name.
fn tool(name: &str, input: Value, server_hint: Option<&str>) -> Tool {
    if let Some(rest) = name.strip_prefix("mcp__") {
        let (server, tool) = match rest.split_once("__") {
            Some((s, t)) => (s.to_string(), t.to_string()),
            None => (String::new(), rest.to_string()),
        };
        let server = server_hint.map(str::to_string).unwrap_or(server);
        return Tool::new(name, ToolKind::Mcp, Some(McpTool { server, tool }), input);
    }
    let kind = match name {
        "Bash" | "shell" | "exec_command" | "local_shell" => ToolKind::Shell,
        "BashOutput" | "KillShell" => ToolKind::Other,
        "Read" | "Glob" | "Grep" | "LS" | "NotebookRead" => ToolKind::FileRead,
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "apply_patch" => ToolKind::FileWrite,
        "WebFetch" | "WebSearch" => ToolKind::WebFetch,
        _ => ToolKind::Other,
    };
    Tool::new(name, kind, None, input)
}
