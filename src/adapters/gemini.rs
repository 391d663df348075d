//! Gemini CLI adapter.
//!
//! Input (hook-protocols.md §4.2, `packages/core/src/hooks/types.ts` @ 5411f113): `session_id`,
//! `cwd`, `hook_event_name`, `timestamp`, and per event `prompt` (BeforeAgent), `tool_name`,
//! `tool_input`, `mcp_context {server_name, tool_name, ...}`, `tool_response {llmContent,
//! returnDisplay, error}` (AfterTool). MCP tools are `mcp_<server>_<tool>` since v0.34.0; we
//! trust `mcp_context` over the name. Tool output arrives wrapped in `<untrusted_context>`.
//!
//! Output (§4.3): `{decision: deny|ask, reason}`; `hookSpecificOutput.tool_input` replaces the
//! arguments; `hookSpecificOutput.additionalContext` on AfterTool. "ask" only works in
//! interactive sessions (it hangs or runs the call headless, §9), so by default it is a deny
//! that says how to approve. Stdout stays pure JSON or empty.

use super::{ask_as_deny, flatten_text, string_field, AskMode, RenderOptions, Rendered};
use crate::decision::{Decision, Verdict};
use crate::event::{Event, EventKind, Harness, McpTool, Tool, ToolKind};
use serde_json::{json, Value};

/// Parses a Gemini CLI event.
pub fn parse(raw: &Value) -> Result<Event, String> {
    let name = string_field(raw, "hook_event_name").ok_or("missing hook_event_name")?;
    let kind = match name {
        "BeforeAgent" => EventKind::PromptSubmit,
        "BeforeTool" => EventKind::PreTool,
        "AfterTool" => EventKind::PostTool,
        "SessionStart" => EventKind::SessionStart,
        "SessionEnd" => EventKind::SessionEnd,
        _ => EventKind::Other,
    };
    let mut ev = Event::new(Harness::Gemini, kind, name);
    ev.session_id = string_field(raw, "session_id").unwrap_or("").to_string();
    ev.cwd = string_field(raw, "cwd").map(str::to_string);
    match kind {
        EventKind::PromptSubmit => {
            ev.prompt = Some(string_field(raw, "prompt").unwrap_or("").to_string());
        }
        EventKind::PreTool | EventKind::PostTool => {
            let tool_name = string_field(raw, "tool_name").ok_or("missing tool_name")?;
            let input = raw.get("tool_input").cloned().unwrap_or(Value::Null);
            ev.tool = Some(tool(tool_name, input, raw.get("mcp_context")));
            if kind == EventKind::PostTool {
                let resp = raw.get("tool_response").unwrap_or(&Value::Null);
                ev.output_is_error = resp.get("error").is_some_and(|e| !e.is_null());
                ev.output = Some(strip_untrusted_wrapper(&flatten_text(resp)));
            }
        }
        _ => {}
    }
    if ev.session_id.is_empty() {
        return Err("missing session_id".into());
    }
    Ok(ev)
}

/// Removes Gemini CLI's own `<untrusted_context>` wrapper lines, keeping the content.
fn strip_untrusted_wrapper(s: &str) -> String {
    s.replace("<untrusted_context>", "")
        .replace("</untrusted_context>", "")
        .trim()
        .to_string()
}

fn tool(name: &str, input: Value, mcp_context: Option<&Value>) -> Tool {
    if let Some(ctx) = mcp_context.filter(|c| c.is_object()) {
        let server = string_field(ctx, "server_name").unwrap_or("").to_string();
        let tool = string_field(ctx, "tool_name")
            .map(str::to_string)
            .unwrap_or_else(|| name.to_string());
        return Tool {
            name: name.to_string(),
            kind: ToolKind::Mcp,
            mcp: Some(McpTool { server, tool }),
            input,
        };
    }
    let kind = match name {
        "run_shell_command" => ToolKind::Shell,
        "read_file"
        | "read_many_files"
        | "glob"
        | "grep"
        | "search_file_content"
        | "list_directory"
        | "ls" => ToolKind::FileRead,
        "write_file" | "replace" | "edit" => ToolKind::FileWrite,
        "web_fetch" | "google_web_search" => ToolKind::WebFetch,
        _ if name.starts_with("mcp_") => {
            // No mcp_context: split `mcp_<server>_<tool>` at the first underscore (ambiguous
            // when the server name has one, hence the preference for mcp_context).
            let rest = &name[4..];
            let (server, t) = rest.split_once('_').unwrap_or(("", rest));
            return Tool {
                name: name.to_string(),
                kind: ToolKind::Mcp,
                mcp: Some(McpTool {
                    server: server.to_string(),
                    tool: t.to_string(),
                }),
                input,
            };
        }
        _ => ToolKind::Other,
    };
    Tool {
        name: name.to_string(),
        kind,
        mcp: None,
        input,
    }
}

/// Renders a decision for Gemini CLI.
pub fn render(event: &Event, d: &Decision, opts: &RenderOptions) -> Rendered {
    match event.kind {
        EventKind::PreTool => {
            if d.verdict == Verdict::Ask && opts.gemini_ask == AskMode::Ask {
                let mut v = json!({"decision":"ask","reason":super::reason_line(d),"systemMessage":super::reason_line(d)});
                if let Some(u) = &d.updated_input {
                    v["hookSpecificOutput"] = json!({"hookEventName":"BeforeTool","tool_input":u});
                }
                return Rendered::stdout(v.to_string());
            }
            let (block, reason) = ask_as_deny(d);
            if block {
                return Rendered::stdout(json!({"decision":"deny","reason":reason}).to_string());
            }
            match &d.updated_input {
                Some(u) => Rendered::stdout(
                    json!({"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":u}})
                        .to_string(),
                ),
                None => Rendered::silent(),
            }
        }
        EventKind::PostTool => {
            if let Some(r) = &d.replace_output {
                // decision:deny on AfterTool replaces the result with "Tool result blocked: <reason>".
                return Rendered::stdout(json!({"decision":"deny","reason":r}).to_string());
            }
            match &d.context {
                Some(c) => Rendered::stdout(
                    json!({"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":c}})
                        .to_string(),
                ),
                None => Rendered::silent(),
            }
        }
        EventKind::PromptSubmit if d.verdict == Verdict::Deny => {
            Rendered::stdout(json!({"decision":"deny","reason":super::reason_line(d)}).to_string())
        }
        _ => Rendered::silent(),
    }
}
