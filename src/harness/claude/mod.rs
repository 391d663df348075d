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
    ConfigFiles, Events, FailClosed, HarnessSpec, HookEvent, ProtectedConfig, SettingsPaths,
    SwitchValue,
};
use crate::event::{Event, EventKind, Harness};
use serde_json::Value;

/// Claude Code's event names (§1.1) and abilities.
pub const SPEC: HarnessSpec = HarnessSpec {
    harness: Harness::Claude,
    events: &[
        HookEvent::other("UserPromptSubmit", EventKind::PromptSubmit, false),
        HookEvent::pre("PreToolUse"),
        HookEvent::post("PostToolUse"),
        HookEvent::post("PostToolUseFailure"),
        HookEvent::other("SessionStart", EventKind::SessionStart, true),
        HookEvent::other("SessionEnd", EventKind::SessionEnd, true),
        HookEvent::other("Stop", EventKind::Other, true),
    ],
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
