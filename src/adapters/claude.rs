//! Claude Code adapter.
//!
//! Input (hook-protocols.md §1.2, Agent SDK `BaseHookInput`): `session_id`, `cwd`,
//! `hook_event_name` (PascalCase), and per event `prompt`, `tool_name`, `tool_input`,
//! `tool_response`, `error`, `mcp_server: {name, source}`. MCP tools are named
//! `mcp__<server>__<tool>` (plugins: `mcp__plugin_<plugin>_<server>__<tool>`).
//!
//! Output (§1.3): `hookSpecificOutput` with `permissionDecision` `deny|ask|allow`,
//! `permissionDecisionReason`, `updatedInput` (a whole replacement of `tool_input`; sent with
//! "ask", never with an unrequested "allow"),
//! `additionalContext`; PostToolUse `updatedToolOutput` (2.1.121+). An empty stdout on exit 0 is
//! "no opinion": the user's permission rules decide.

use super::{flatten_text, string_field, Rendered};
use crate::decision::{Decision, Reason, Verdict};
use crate::event::{Event, EventKind, Harness, McpTool, Tool, ToolKind};
use serde_json::{json, Map, Value};

/// Parses a Claude Code event.
pub fn parse(raw: &Value) -> Result<Event, String> {
    parse_common(Harness::Claude, raw)
}

/// Shared by Claude Code and Codex, whose inputs have the same shape (Codex adds `turn_id` and
/// `model`; its `apply_patch` puts the patch text in `tool_input.command`).
pub(crate) fn parse_common(harness: Harness, raw: &Value) -> Result<Event, String> {
    let name = string_field(raw, "hook_event_name").ok_or("missing hook_event_name")?;
    let kind = match name {
        "UserPromptSubmit" => EventKind::PromptSubmit,
        "PreToolUse" => EventKind::PreTool,
        "PostToolUse" | "PostToolUseFailure" => EventKind::PostTool,
        "SessionStart" => EventKind::SessionStart,
        "SessionEnd" => EventKind::SessionEnd,
        _ => EventKind::Other,
    };
    let mut ev = Event::new(harness, kind, name);
    ev.session_id = string_field(raw, "session_id").unwrap_or("").to_string();
    ev.cwd = string_field(raw, "cwd").map(str::to_string);
    match kind {
        EventKind::PromptSubmit => {
            ev.prompt = Some(string_field(raw, "prompt").unwrap_or("").to_string());
        }
        EventKind::PreTool | EventKind::PostTool => {
            let tool_name = string_field(raw, "tool_name").ok_or("missing tool_name")?;
            let input = raw.get("tool_input").cloned().unwrap_or(Value::Null);
            let server_hint = raw
                .get("mcp_server")
                .and_then(|s| s.get("name"))
                .and_then(Value::as_str);
            ev.tool = Some(tool(harness, tool_name, input, server_hint));
            if kind == EventKind::PostTool {
                if name == "PostToolUseFailure" {
                    ev.output = Some(string_field(raw, "error").unwrap_or("").to_string());
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
        }
        _ => {}
    }
    if ev.session_id.is_empty() {
        return Err("missing session_id".into());
    }
    Ok(ev)
}

/// Builds the neutral tool from a Claude Code or Codex tool name.
fn tool(harness: Harness, name: &str, input: Value, server_hint: Option<&str>) -> Tool {
    if let Some(rest) = name.strip_prefix("mcp__") {
        let (server, tool) = match rest.split_once("__") {
            Some((s, t)) => (s.to_string(), t.to_string()),
            None => (String::new(), rest.to_string()),
        };
        let server = server_hint.map(str::to_string).unwrap_or(server);
        return Tool {
            name: name.to_string(),
            kind: ToolKind::Mcp,
            mcp: Some(McpTool { server, tool }),
            input,
        };
    }
    let kind = match (harness, name) {
        (_, "Bash" | "BashOutput" | "KillShell" | "shell" | "exec_command" | "local_shell") => {
            if name == "BashOutput" || name == "KillShell" {
                ToolKind::Other
            } else {
                ToolKind::Shell
            }
        }
        (_, "Read" | "Glob" | "Grep" | "LS" | "NotebookRead") => ToolKind::FileRead,
        (_, "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "apply_patch") => ToolKind::FileWrite,
        (_, "WebFetch" | "WebSearch") => ToolKind::WebFetch,
        _ => ToolKind::Other,
    };
    Tool {
        name: name.to_string(),
        kind,
        mcp: None,
        input,
    }
}

/// Renders a decision for Claude Code.
pub fn render(event: &Event, d: &Decision) -> Rendered {
    match event.kind {
        EventKind::PreTool => {
            let mut h = Map::new();
            h.insert("hookEventName".into(), json!("PreToolUse"));
            match d.verdict {
                Verdict::Deny => {
                    h.insert("permissionDecision".into(), json!("deny"));
                    h.insert(
                        "permissionDecisionReason".into(),
                        json!(super::reason_line(d)),
                    );
                }
                Verdict::Ask => {
                    h.insert("permissionDecision".into(), json!("ask"));
                    h.insert(
                        "permissionDecisionReason".into(),
                        json!(super::reason_line(d)),
                    );
                    if let Some(u) = &d.updated_input {
                        h.insert("updatedInput".into(), u.clone());
                    }
                }
                Verdict::Allow => {
                    let Some(u) = &d.updated_input else {
                        return match &d.context {
                            Some(c) => Rendered::stdout(
                                json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":c}})
                                    .to_string(),
                            ),
                            None => Rendered::silent(),
                        };
                    };
                    // A rewrite needs a decision, and "allow" would skip the user's permission
                    // prompt (observed, hook-protocols.md §9): a server could then get its calls
                    // auto-approved by asking for the agent's name. So a rewrite asks, unless
                    // the user already approved this very call with `intentshield approve`.
                    let decision = if d.reason == Reason::Approved {
                        "allow"
                    } else {
                        "ask"
                    };
                    h.insert("permissionDecision".into(), json!(decision));
                    h.insert(
                        "permissionDecisionReason".into(),
                        json!(super::reason_line(d)),
                    );
                    h.insert("updatedInput".into(), u.clone());
                }
            }
            if let Some(c) = &d.context {
                h.insert("additionalContext".into(), json!(c));
            }
            Rendered::stdout(json!({ "hookSpecificOutput": h }).to_string())
        }
        EventKind::PostTool => {
            if d.context.is_none() && d.replace_output.is_none() {
                return Rendered::silent();
            }
            let hook_event = if event.event_name == "PostToolUseFailure" {
                "PostToolUseFailure"
            } else {
                "PostToolUse"
            };
            let mut h = Map::new();
            h.insert("hookEventName".into(), json!(hook_event));
            if let Some(c) = &d.context {
                h.insert("additionalContext".into(), json!(c));
            }
            if let (Some(r), "PostToolUse") = (&d.replace_output, hook_event) {
                h.insert("updatedToolOutput".into(), json!(r));
            }
            Rendered::stdout(json!({ "hookSpecificOutput": h }).to_string())
        }
        EventKind::PromptSubmit if d.verdict == Verdict::Deny => {
            Rendered::stdout(json!({"decision":"block","reason":super::reason_line(d)}).to_string())
        }
        _ => Rendered::silent(),
    }
}
