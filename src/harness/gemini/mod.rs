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

pub mod build;
mod render;

pub use build::{event as build_event, read_answer, verdict_word};
pub use render::{render, render_error};

use super::json::{flatten_text, string_field};
use super::spec::{ConfigFiles, Events, HarnessSpec, HookEvent, ProtectedConfig, SettingsPaths};
use crate::event::{Event, EventKind, Harness, McpTool, Tool, ToolKind};
use serde_json::Value;

/// Gemini CLI's event names (§4.1) and abilities.
pub const SPEC: HarnessSpec = HarnessSpec {
    harness: Harness::Gemini,
    events: &[
        HookEvent::other("BeforeAgent", EventKind::PromptSubmit, false),
        HookEvent::pre("BeforeTool"),
        HookEvent::post("AfterTool"),
        HookEvent::other("SessionStart", EventKind::SessionStart, true),
        HookEvent::other("SessionEnd", EventKind::SessionEnd, true),
    ],
    // `hookSpecificOutput.tool_input` replaces the arguments (§4.3).
    rewrite: Events::All,
    // "ask" works only in interactive sessions (it hangs or runs the call headless, §9), so it
    // is used only on request (`--gemini-ask ask`); by default an ask is a deny.
    ask: Events::Only(&["BeforeTool"]),
    ask_opt_in: true,
    always_json: false,
    // No fail-closed switch; exit 2 blocks (§4.3).
    fail_closed: None,
    settings: SettingsPaths {
        user: "~/.gemini/settings.json",
        project: ".gemini/settings.json",
        config_toml: None,
    },
    protected: ProtectedConfig {
        dir: ".gemini",
        whole_home_dir: true,
        files: ConfigFiles::Named(&["settings.json", "trusted_hooks.json"]),
        rule: "protect.gemini_config",
    },
};

/// Parses a Gemini CLI event (the Claude Code shape at its top level; `mcp_context` and
/// `tool_response` are read from the raw value).
///
/// # Errors
///
/// A message naming what is missing or malformed (the caller fails closed).
pub fn parse(raw: &Value) -> Result<Event, String> {
    super::claude_shape::parse_with(&SPEC, raw, |ev, _, tool_name, input| {
        ev.tool = Some(tool(tool_name, input, raw.get("mcp_context")));
        if ev.kind == EventKind::PostTool {
            let resp = raw.get("tool_response").unwrap_or(&Value::Null);
            ev.output_is_error = resp.get("error").is_some_and(|e| !e.is_null());
            ev.output = Some(strip_untrusted_wrapper(&flatten_text(resp)));
        }
    })
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
        return Tool::new(name, ToolKind::Mcp, Some(McpTool { server, tool }), input);
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
            let mcp = McpTool {
                server: server.to_string(),
                tool: t.to_string(),
            };
            return Tool::new(name, ToolKind::Mcp, Some(mcp), input);
        }
        _ => ToolKind::Other,
    };
    Tool::new(name, kind, None, input)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::{Decision, Reason, Verdict};
    use crate::harness::{AskMode, RenderOptions};
    use serde_json::json;

    #[test]
    fn parses_mcp_tools_with_and_without_context() {
        let e = parse(&json!({"session_id": "s", "hook_event_name": "BeforeTool",
            "timestamp": "t", "tool_name": "mcp_my_srv_do",
            "mcp_context": {"server_name": "my_srv", "tool_name": "do"}}))
        .unwrap();
        assert_eq!(e.tool.unwrap().display_name(), "my_srv/do");
        let e = parse(&json!({"session_id": "s", "hook_event_name": "BeforeTool",
            "tool_name": "mcp_srv_do_it"}))
        .unwrap();
        assert_eq!(e.tool.unwrap().display_name(), "srv/do_it");
        let e = parse(&json!({"session_id": "s", "hook_event_name": "AfterTool",
            "tool_name": "run_shell_command", "tool_input": {"command": "ls"},
            "tool_response": {"llmContent": "<untrusted_context>\nout\n</untrusted_context>",
                "returnDisplay": "out", "error": null}}))
        .unwrap();
        assert_eq!(
            (e.output.as_deref(), e.output_is_error),
            (Some("out"), false)
        );
    }

    #[test]
    fn unknown_events_are_other_and_malformed_ones_errors() {
        let e = parse(&json!({"session_id": "s", "hook_event_name": "BeforeModel"})).unwrap();
        assert_eq!(e.kind, EventKind::Other);
        assert_eq!(
            parse(&json!({"session_id": "s", "hook_event_name": "AfterTool"})).unwrap_err(),
            "missing tool_name"
        );
    }

    #[test]
    fn ask_is_a_deny_unless_asked_for() {
        let e = parse(&json!({"session_id": "s", "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}))
        .unwrap();
        let d = Decision::new(Verdict::Ask, Reason::SecretEgress, "tok");
        let out: Value =
            serde_json::from_str(&render(&e, &d, &RenderOptions::default()).stdout).unwrap();
        assert_eq!(out["decision"], "deny");
        let opts = RenderOptions {
            gemini_ask: AskMode::Ask,
        };
        let out: Value = serde_json::from_str(&render(&e, &d, &opts).stdout).unwrap();
        assert_eq!(out["decision"], "ask");
        let mut d = Decision::allow();
        d.updated_input = Some(json!({"command": "pwd"}));
        let out: Value =
            serde_json::from_str(&render(&e, &d, &RenderOptions::default()).stdout).unwrap();
        assert_eq!(
            out["hookSpecificOutput"]["tool_input"],
            json!({"command": "pwd"})
        );
        assert_eq!(render_error(false, "m").exit_code, 2);
    }
}
