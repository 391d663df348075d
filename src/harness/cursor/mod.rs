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

pub mod build;
mod render;

pub use build::{event as build_event, read_answer, verdict_word};
pub use render::{deny_json, render, render_error};

use super::json::{flatten_text, lenient_str};
use super::spec::{
    ConfigFiles, Events, FailClosed, HarnessSpec, HookEvent, ProtectedConfig, SettingsPaths,
    SwitchValue,
};
use crate::event::{Event, EventKind, Harness, McpTool, Tool, ToolKind};
use serde::Deserialize;
use serde_json::{json, Value};

/// Cursor's event names (§3.1) and abilities.
pub const SPEC: HarnessSpec = HarnessSpec {
    harness: Harness::Cursor,
    events: &[
        HookEvent::other("beforeSubmitPrompt", EventKind::PromptSubmit, false),
        HookEvent::pre("preToolUse"),
        HookEvent::pre("beforeShellExecution"),
        HookEvent::pre("beforeMCPExecution"),
        HookEvent::pre("beforeReadFile"),
        // Permission events we do not read as tool calls.
        HookEvent {
            name: "beforeTabFileRead",
            kind: EventKind::Other,
            no_call: false,
            permission: true,
        },
        HookEvent {
            name: "subagentStart",
            kind: EventKind::Other,
            no_call: false,
            permission: true,
        },
        HookEvent::post("postToolUse"),
        HookEvent::post("postToolUseFailure"),
        HookEvent::post("afterShellExecution"),
        HookEvent::post("afterMCPExecution"),
        HookEvent::other("afterFileEdit", EventKind::Other, true),
        HookEvent::other("sessionStart", EventKind::SessionStart, true),
        HookEvent::other("sessionEnd", EventKind::SessionEnd, true),
        HookEvent::other("stop", EventKind::Other, true),
    ],
    // `updated_input` is honoured on preToolUse only (§3.3).
    rewrite: Events::Only(&["preToolUse"]),
    // The verified runtime (`@cursor/sdk` 1.0.32) prompts only on the shell event's ask.
    ask: Events::Only(&["beforeShellExecution"]),
    ask_opt_in: false,
    always_json: true,
    fail_closed: Some(FailClosed {
        key: "failClosed",
        value: SwitchValue::Bool(true),
    }),
    settings: SettingsPaths {
        user: "~/.cursor/hooks.json",
        project: ".cursor/hooks.json",
        config_toml: None,
    },
    protected: ProtectedConfig {
        dir: ".cursor",
        whole_home_dir: true,
        files: ConfigFiles::Named(&["hooks.json", "mcp.json", "cli.json", "permissions.json"]),
        rule: "protect.cursor_config",
    },
};

/// The string fields of a Cursor event we read (lenient: a value of another type counts as
/// absent); `workspace_roots`, `tool_input`, `tool_output` and `result_json` are read from the
/// raw value.
#[derive(Debug, Deserialize)]
struct Wire<'a> {
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    hook_event_name: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    session_id: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    conversation_id: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    cwd: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    prompt: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    transcript_path: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    command: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    output: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    tool_name: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    mcp_server_name: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    file_path: Option<&'a str>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    error_message: Option<&'a str>,
}

/// Parses a Cursor event.
///
/// # Errors
///
/// A message naming what is missing or malformed (the caller fails closed).
pub fn parse(raw: &Value) -> Result<Event, String> {
    let w = Wire::deserialize(raw).map_err(|e| e.to_string())?;
    let name = w.hook_event_name.ok_or("missing hook_event_name")?;
    // An event name we do not know that carries a call (a tool name with arguments, or a shell
    // command) is checked like `preToolUse` / `beforeShellExecution`, and fails closed like one.
    let present = |k: &str| raw.get(k).is_some_and(|v| !v.is_null());
    let unknown_call = if w.tool_name.is_some() && present("tool_input") {
        Some(UnknownCall::Tool)
    } else if present("command") {
        Some(UnknownCall::Shell)
    } else {
        None
    };
    let kind = match (SPEC.kind(name), unknown_call) {
        (Some(k), _) => k,
        (None, Some(_)) => EventKind::PreTool,
        (None, None) => EventKind::Other,
    };
    let mut ev = Event::new(Harness::Cursor, kind, name);
    ev.session_id = w.session_id.or(w.conversation_id).unwrap_or("").to_string();
    ev.cwd = w.cwd.map(str::to_string).or_else(|| {
        raw.get("workspace_roots")
            .and_then(|r| r.get(0))
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    match name {
        "beforeSubmitPrompt" => {
            ev.prompt = Some(w.prompt.unwrap_or("").to_string());
            ev.transcript = w
                .transcript_path
                .filter(|p| p.len() <= crate::event::MAX_TRANSCRIPT_PATH)
                .map(str::to_string);
        }
        "beforeShellExecution" | "afterShellExecution" => {
            let command = w.command.ok_or("missing command")?;
            ev.tool = Some(Tool::new(
                "Shell",
                ToolKind::Shell,
                None,
                json!({"command": command, "cwd": w.cwd}),
            ));
            if kind == EventKind::PostTool {
                ev.output = Some(w.output.unwrap_or("").to_string());
            }
        }
        "beforeMCPExecution" | "afterMCPExecution" => {
            let tool_name = w.tool_name.ok_or("missing tool_name")?;
            let server = w.mcp_server_name.unwrap_or("");
            ev.tool = Some(Tool::new(
                tool_name,
                ToolKind::Mcp,
                Some(McpTool {
                    server: server.to_string(),
                    tool: tool_name.to_string(),
                }),
                decode_input(raw.get("tool_input")),
            ));
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
            let path = w.file_path.ok_or("missing file_path")?;
            ev.tool = Some(Tool::new(
                "Read",
                ToolKind::FileRead,
                None,
                json!({ "file_path": path }),
            ));
        }
        "preToolUse" | "postToolUse" | "postToolUseFailure" => {
            let tool_name = w.tool_name.ok_or("missing tool_name")?;
            ev.tool = Some(tool(tool_name, decode_input(raw.get("tool_input"))));
            if kind == EventKind::PostTool {
                if name == "postToolUseFailure" {
                    ev.output = Some(w.error_message.unwrap_or("").to_string());
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
        // A name we do not know, carrying a call (`kind` is only `PreTool` then).
        _ if kind == EventKind::PreTool => match (unknown_call, w.tool_name) {
            (Some(UnknownCall::Tool), Some(tool_name)) => {
                ev.tool = Some(tool(tool_name, decode_input(raw.get("tool_input"))));
            }
            _ => {
                // The command as sent: one that is not a string is denied as unanalysable.
                let command = raw.get("command").cloned().unwrap_or(Value::Null);
                ev.tool = Some(Tool::new(
                    "Shell",
                    ToolKind::Shell,
                    None,
                    json!({"command": command, "cwd": w.cwd}),
                ));
            }
        },
        _ => {}
    }
    if ev.session_id.is_empty() {
        return Err("missing session_id and conversation_id".into());
    }
    Ok(ev)
}

/// What an event with a name we do not know carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum UnknownCall {
    /// `tool_name` with a non-null `tool_input`: read like `preToolUse`.
    Tool,
    /// A `command` string: read like `beforeShellExecution`.
    Shell,
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
        let mcp = McpTool {
            server: String::new(),
            tool: t.to_string(),
        };
        return Tool::new(name, ToolKind::Mcp, Some(mcp), input);
    }
    let kind = match name {
        "Shell" => ToolKind::Shell,
        "Read" | "Grep" | "List" | "Glob" | "ReadLints" => ToolKind::FileRead,
        "Write" | "Edit" | "Delete" | "MultiEdit" => ToolKind::FileWrite,
        "Fetch" | "WebSearch" | "WebFetch" => ToolKind::WebFetch,
        _ => ToolKind::Other,
    };
    Tool::new(name, kind, None, input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::{Decision, Reason, Verdict};

    fn ev(name: &str, extra: Value) -> Value {
        let mut v = json!({"conversation_id": "c1", "hook_event_name": name,
            "workspace_roots": ["/w"], "cursor_version": "2.3.14"});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    }

    #[test]
    fn parses_each_event_shape() {
        let e = parse(&ev(
            "beforeMCPExecution",
            json!({"tool_name": "create_issue", "tool_input": "{\"repo\":\"a/b\"}",
                "mcp_server_name": "github"}),
        ))
        .unwrap();
        assert_eq!(e.session_id, "c1");
        assert_eq!(e.cwd.as_deref(), Some("/w"));
        let t = e.tool.unwrap();
        assert_eq!(t.display_name(), "github/create_issue");
        assert_eq!(t.input, json!({"repo": "a/b"}));
        let e = parse(&ev(
            "preToolUse",
            json!({"tool_name": "MCP:x", "tool_input": "not json"}),
        ))
        .unwrap();
        assert_eq!(e.tool.unwrap().input, json!({"input": "not json"}));
        let e = parse(&ev("beforeReadFile", json!({"file_path": "/w/.env"}))).unwrap();
        assert_eq!(e.tool.unwrap().read_paths, vec!["/w/.env"]);
        let e = parse(&ev(
            "afterShellExecution",
            json!({"command": "ls", "output": "a\n"}),
        ))
        .unwrap();
        assert_eq!(
            (e.kind, e.output.as_deref()),
            (EventKind::PostTool, Some("a\n"))
        );
        let e = parse(&ev("workspaceOpen", json!({}))).unwrap();
        assert_eq!(e.kind, EventKind::Other);
    }

    #[test]
    fn malformed_events_are_errors() {
        assert_eq!(
            parse(&ev("beforeShellExecution", json!({}))).unwrap_err(),
            "missing command"
        );
        assert_eq!(
            parse(&ev("beforeReadFile", json!({}))).unwrap_err(),
            "missing file_path"
        );
        assert_eq!(
            parse(&json!({"hook_event_name": "stop"})).unwrap_err(),
            "missing session_id and conversation_id"
        );
    }

    #[test]
    fn always_answers_json() {
        let e = parse(&ev("beforeShellExecution", json!({"command": "ls"}))).unwrap();
        assert_eq!(render(&e, &Decision::allow()).stdout, "{}");
        let d = Decision::new(Verdict::Ask, Reason::SecretEgress, "tok");
        let out: Value = serde_json::from_str(&render(&e, &d).stdout).unwrap();
        assert_eq!(out["permission"], "ask");
        let e = parse(&ev("preToolUse", json!({"tool_name": "Shell"}))).unwrap();
        let out: Value = serde_json::from_str(&render(&e, &d).stdout).unwrap();
        assert_eq!(out["permission"], "deny");
        let mut d = Decision::allow();
        d.updated_input = Some(json!({"command": "pwd"}));
        let out: Value = serde_json::from_str(&render(&e, &d).stdout).unwrap();
        assert_eq!(out, json!({"updated_input": {"command": "pwd"}}));
        assert_eq!(render_error(true, "m").stdout, "{}");
        let out: Value = serde_json::from_str(&render_error(false, "m").stdout).unwrap();
        assert_eq!(out["permission"], "deny");
    }
}
