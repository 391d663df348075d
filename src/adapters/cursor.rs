//! Cursor adapter.
//!
//! Input (hook-protocols.md §3.2, `@cursor/sdk` 1.0.32 hooks runtime): `conversation_id`,
//! `generation_id`, `session_id` (defaults to `conversation_id`), camelCase `hook_event_name`,
//! `workspace_roots`, and per event: `beforeShellExecution {command, cwd}`,
//! `beforeMCPExecution {tool_name, tool_input (a JSON-encoded string), mcp_server_name}`,
//! `beforeReadFile {file_path, content}`, `preToolUse {tool_name, tool_input}` (MCP tools as
//! `MCP:<tool>`), `afterShellExecution {command, output}`, `afterMCPExecution {result_json}`,
//! `postToolUse {tool_output}`, `beforeSubmitPrompt {prompt}`.
//!
//! Output (§3.3): flat `{permission, user_message, agent_message}` ("ask" only on
//! `beforeShellExecution`, the one event whose ask the verified runtime honours); `updated_input` and
//! `additional_context` on `preToolUse`; `additional_context` on `postToolUse`. Invalid JSON on
//! a permission event is a deny, so we always print a JSON object (`{}` for no opinion).

use super::{flatten_text, string_field, Rendered};
use crate::decision::{Decision, Verdict};
use crate::event::{Event, EventKind, Harness, McpTool, Tool, ToolKind};
use serde_json::{json, Map, Value};

/// Parses a Cursor event.
pub fn parse(raw: &Value) -> Result<Event, String> {
    let name = string_field(raw, "hook_event_name").ok_or("missing hook_event_name")?;
    let kind = match name {
        "beforeSubmitPrompt" => EventKind::PromptSubmit,
        "preToolUse" | "beforeShellExecution" | "beforeMCPExecution" | "beforeReadFile" => {
            EventKind::PreTool
        }
        "postToolUse" | "postToolUseFailure" | "afterShellExecution" | "afterMCPExecution" => {
            EventKind::PostTool
        }
        "sessionStart" => EventKind::SessionStart,
        "sessionEnd" => EventKind::SessionEnd,
        _ => EventKind::Other,
    };
    let mut ev = Event::new(Harness::Cursor, kind, name);
    ev.session_id = string_field(raw, "session_id")
        .or_else(|| string_field(raw, "conversation_id"))
        .unwrap_or("")
        .to_string();
    ev.cwd = string_field(raw, "cwd").map(str::to_string).or_else(|| {
        raw.get("workspace_roots")
            .and_then(|r| r.get(0))
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    match name {
        "beforeSubmitPrompt" => {
            ev.prompt = Some(string_field(raw, "prompt").unwrap_or("").to_string());
        }
        "beforeShellExecution" | "afterShellExecution" => {
            let command = string_field(raw, "command").ok_or("missing command")?;
            ev.tool = Some(Tool {
                name: "Shell".into(),
                kind: ToolKind::Shell,
                mcp: None,
                input: json!({"command": command, "cwd": string_field(raw, "cwd")}),
            });
            if kind == EventKind::PostTool {
                ev.output = Some(string_field(raw, "output").unwrap_or("").to_string());
            }
        }
        "beforeMCPExecution" | "afterMCPExecution" => {
            let tool_name = string_field(raw, "tool_name").ok_or("missing tool_name")?;
            let server = string_field(raw, "mcp_server_name").unwrap_or("");
            ev.tool = Some(Tool {
                name: tool_name.to_string(),
                kind: ToolKind::Mcp,
                mcp: Some(McpTool {
                    server: server.to_string(),
                    tool: tool_name.to_string(),
                }),
                input: decode_input(raw.get("tool_input")),
            });
            if kind == EventKind::PostTool {
                let result = raw.get("result_json").unwrap_or(&Value::Null);
                ev.output = Some(match result {
                    Value::String(s) => match serde_json::from_str::<Value>(s) {
                        Ok(v) => flatten_text(&v),
                        Err(_) => s.clone(),
                    },
                    v => flatten_text(v),
                });
            }
        }
        "beforeReadFile" => {
            let path = string_field(raw, "file_path").ok_or("missing file_path")?;
            ev.tool = Some(Tool {
                name: "Read".into(),
                kind: ToolKind::FileRead,
                mcp: None,
                input: json!({ "file_path": path }),
            });
        }
        "preToolUse" | "postToolUse" | "postToolUseFailure" => {
            let tool_name = string_field(raw, "tool_name").ok_or("missing tool_name")?;
            ev.tool = Some(tool(tool_name, decode_input(raw.get("tool_input"))));
            if kind == EventKind::PostTool {
                if name == "postToolUseFailure" {
                    ev.output = Some(string_field(raw, "error_message").unwrap_or("").to_string());
                    ev.output_is_error = true;
                } else {
                    let out = raw.get("tool_output").unwrap_or(&Value::Null);
                    ev.output = Some(match out {
                        Value::String(s) => match serde_json::from_str::<Value>(s) {
                            Ok(v @ (Value::Object(_) | Value::Array(_))) => flatten_text(&v),
                            _ => s.clone(),
                        },
                        v => flatten_text(v),
                    });
                }
            }
        }
        _ => {}
    }
    if ev.session_id.is_empty() {
        return Err("missing session_id and conversation_id".into());
    }
    Ok(ev)
}

/// Cursor sends MCP arguments as a JSON-encoded string on beforeMCPExecution.
fn decode_input(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => serde_json::from_str(s).unwrap_or_else(|_| json!({ "input": s })),
        Some(v) => v.clone(),
        None => Value::Null,
    }
}

fn tool(name: &str, input: Value) -> Tool {
    if let Some(t) = name.strip_prefix("MCP:") {
        return Tool {
            name: name.to_string(),
            kind: ToolKind::Mcp,
            mcp: Some(McpTool {
                server: String::new(),
                tool: t.to_string(),
            }),
            input,
        };
    }
    let kind = match name {
        "Shell" => ToolKind::Shell,
        "Read" | "Grep" | "List" | "Glob" | "ReadLints" => ToolKind::FileRead,
        "Write" | "Edit" | "Delete" | "MultiEdit" => ToolKind::FileWrite,
        "Fetch" | "WebSearch" | "WebFetch" => ToolKind::WebFetch,
        _ => ToolKind::Other,
    };
    Tool {
        name: name.to_string(),
        kind,
        mcp: None,
        input,
    }
}

/// True for the six events whose answer is a permission (§3.1).
fn is_permission_event(name: &str) -> bool {
    matches!(
        name,
        "beforeShellExecution"
            | "beforeMCPExecution"
            | "beforeReadFile"
            | "beforeTabFileRead"
            | "subagentStart"
            | "preToolUse"
    )
}

/// Renders a decision for Cursor. Always a JSON object.
pub fn render(event: &Event, d: &Decision) -> Rendered {
    let name = event.event_name.as_str();
    let mut out = Map::new();
    if is_permission_event(name) {
        match d.verdict {
            Verdict::Deny => {
                out.insert("permission".into(), json!("deny"));
                out.insert("user_message".into(), json!(super::reason_line(d)));
                out.insert("agent_message".into(), json!(super::reason_line(d)));
            }
            Verdict::Ask if name != "beforeShellExecution" => {
                // beforeReadFile accepts only allow|deny; on beforeMCPExecution and preToolUse
                // the verified runtime (`@cursor/sdk` 1.0.32, hook-protocols.md §3.3) acts only
                // on deny, so an "ask" there would let the call run. Only the shell event's ask
                // is known to prompt; elsewhere the ask is a deny that says how to approve.
                out.insert("permission".into(), json!("deny"));
                out.insert("user_message".into(), json!(super::approval_hint(d)));
                out.insert("agent_message".into(), json!(super::approval_hint(d)));
            }
            Verdict::Ask => {
                out.insert("permission".into(), json!("ask"));
                out.insert("user_message".into(), json!(super::reason_line(d)));
                out.insert("agent_message".into(), json!(super::reason_line(d)));
            }
            Verdict::Allow => {
                if let Some(u) = &d.updated_input {
                    if name == "preToolUse" {
                        // The rewrite alone: Cursor's own permission flow still applies,
                        // unless the user approved this call with `intentshield approve`.
                        if d.reason == crate::decision::Reason::Approved {
                            out.insert("permission".into(), json!("allow"));
                        }
                        out.insert("updated_input".into(), u.clone());
                    }
                }
            }
        }
        if name == "preToolUse" {
            if let Some(c) = &d.context {
                out.insert("additional_context".into(), json!(c));
            }
        }
    } else if matches!(name, "postToolUse" | "postToolUseFailure") {
        if let Some(c) = &d.context {
            out.insert("additional_context".into(), json!(c));
        }
        if let (Some(r), Some(t)) = (&d.replace_output, &event.tool) {
            if t.kind == ToolKind::Mcp && name == "postToolUse" {
                out.insert(
                    "updated_mcp_tool_output".into(),
                    json!({"content":[{"type":"text","text":r}]}),
                );
            }
        }
    } else if name == "beforeSubmitPrompt" && d.verdict == Verdict::Deny {
        out.insert("continue".into(), json!(false));
        out.insert("user_message".into(), json!(super::reason_line(d)));
    }
    Rendered::stdout(Value::Object(out).to_string())
}
