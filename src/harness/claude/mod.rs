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

pub mod build;
mod render;

pub use build::{event as build_event, read_answer, verdict_word};
pub use render::{render, render_error};

use super::spec::{
    ConfigFiles, Events, FailClosed, HarnessSpec, ProtectedConfig, SettingsPaths, SwitchValue,
};
use crate::event::{Event, Harness};
use serde_json::Value;

/// Claude Code's event names (§1.1) and abilities.
pub const SPEC: HarnessSpec = HarnessSpec {
    harness: Harness::Claude,
    events: super::claude_shape::EVENTS,
    // `updatedInput` replaces the arguments (sent with "ask", §1.3).
    rewrite: Events::All,
    ask: Events::Only(&["PreToolUse"]),
    ask_opt_in: false,
    always_json: false,
    // §10: onFailure must be exactly "block"; any other value drops the whole hook silently.
    fail_closed: Some(FailClosed {
        key: "onFailure",
        value: SwitchValue::Str("block"),
    }),
    settings: SettingsPaths {
        user: "~/.claude/settings.json",
        project: ".claude/settings.json",
        config_toml: None,
    },
    protected: ProtectedConfig {
        dir: ".claude",
        whole_home_dir: false,
        files: ConfigFiles::SettingsJson,
        rule: "protect.claude_settings",
    },
};

/// Parses a Claude Code event.
///
/// # Errors
///
/// A message naming what is missing or malformed (the caller fails closed).
pub fn parse(raw: &Value) -> Result<Event, String> {
    super::claude_shape::parse(&SPEC, raw)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::{Decision, Reason, Verdict};
    use crate::event::{EventKind, ToolKind};
    use crate::harness::Rendered;
    use serde_json::json;

    #[test]
    fn parses_tool_events() {
        let ev = parse(
            &json!({"session_id": "s", "cwd": "/p", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": "ls"}}),
        )
        .unwrap();
        assert_eq!(ev.kind, EventKind::PreTool);
        let t = ev.tool.unwrap();
        assert_eq!(t.kind, ToolKind::Shell);
        assert_eq!(t.command.as_deref(), Some("ls"));
        let ev = parse(&json!({"session_id": "s", "hook_event_name": "PostToolUse",
            "tool_name": "mcp__plugin_x__srv__do", "mcp_server": {"name": "srv"},
            "tool_response": {"content": [{"type": "text", "text": "out"}], "isError": true}}))
        .unwrap();
        let m = ev.tool.as_ref().unwrap().mcp.clone().unwrap();
        assert_eq!((m.server.as_str(), m.tool.as_str()), ("srv", "srv__do"));
        assert_eq!(ev.output.as_deref(), Some("out"));
        assert!(ev.output_is_error);
        let ev = parse(
            &json!({"session_id": "s", "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash", "error": "boom"}),
        )
        .unwrap();
        assert_eq!(
            (ev.output.as_deref(), ev.output_is_error),
            (Some("boom"), true)
        );
    }

    #[test]
    fn unknown_events_are_other_and_malformed_ones_errors() {
        let ev = parse(&json!({"session_id": "s", "hook_event_name": "PreCompact",
            "tool_name": "Bash"}))
        .unwrap();
        assert_eq!(ev.kind, EventKind::Other);
        assert!(ev.tool.is_none());
        let err = |v| parse(&v).unwrap_err();
        assert_eq!(err(json!({"session_id": "s"})), "missing hook_event_name");
        assert_eq!(
            err(json!({"session_id": "s", "hook_event_name": "PreToolUse"})),
            "missing tool_name"
        );
        assert_eq!(
            err(json!({"session_id": 7, "hook_event_name": "Stop"})),
            "missing session_id"
        );
        assert_eq!(
            err(json!({"session_id": "s", "hook_event_name": ["PreToolUse"]})),
            "missing hook_event_name"
        );
    }

    #[test]
    fn renders_pre_tool_and_prompt_answers() {
        let ev = parse(&json!({"session_id": "s", "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": "ls"}}))
        .unwrap();
        let d = Decision::new(Verdict::Deny, Reason::PipeToShell, "no");
        assert_eq!(
            render(&ev, &d).stdout,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"IntentShield: no [builtin.pipe_to_shell]"}}"#
        );
        assert_eq!(render(&ev, &Decision::allow()), Rendered::silent());
        let mut d = Decision::new(Verdict::Allow, Reason::SelfDisclosureRewritten, "x");
        d.updated_input = Some(json!({"a": ""}));
        let out: Value = serde_json::from_str(&render(&ev, &d).stdout).unwrap();
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "ask");
        assert_eq!(out["hookSpecificOutput"]["updatedInput"], json!({"a": ""}));
        let ev = parse(
            &json!({"session_id": "s", "hook_event_name": "UserPromptSubmit",
            "prompt": "hi"}),
        )
        .unwrap();
        let d = Decision::new(Verdict::Deny, Reason::PipeToShell, "no");
        let out: Value = serde_json::from_str(&render(&ev, &d).stdout).unwrap();
        assert_eq!(out["decision"], "block");
    }

    #[test]
    fn errors_block_with_exit_2_except_where_nothing_runs() {
        assert_eq!(render_error(false, "m").exit_code, 2);
        let r = render_error(true, "m");
        assert_eq!((r.exit_code, r.stderr.as_str()), (0, "intentshield: m"));
    }
}
