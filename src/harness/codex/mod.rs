//! Codex CLI adapter.
//!
//! Input (hook-protocols.md §2.2, `codex-rs/hooks/src/schema.rs`): the Claude Code shape plus
//! `turn_id` and `model`. Shell tools arrive as `Bash` with `{command}`; `apply_patch` carries
//! the raw patch in `tool_input.command`; MCP tools are `mcp__<server>__<tool>` with no server
//! field.
//!
//! Output (§2.3): every output struct is `deny_unknown_fields`, so we print only documented
//! fields. `permissionDecision:"deny"` needs a non-empty reason; `"allow"` is valid only with
//! `updatedInput`; `"ask"` is unsupported and fails open (observed, §9), so an ask is rendered
//! as a deny whose reason says how to approve.

pub mod build;
mod patch;
mod render;

pub use build::{event as build_event, read_answer, verdict_word};
pub use patch::patch_targets;
pub use render::{render, render_error};

use super::spec::{ConfigFiles, Events, HarnessSpec, ProtectedConfig, SettingsPaths};
use crate::event::{Event, Harness};
use serde_json::Value;

/// Codex CLI's event names (§2.1; the Claude Code names, read through the same shape) and
/// abilities.
pub const SPEC: HarnessSpec = HarnessSpec {
    harness: Harness::Codex,
    events: super::claude_shape::EVENTS,
    // `updatedInput` is valid only with "allow", which would skip the user's approval; an
    // argument rewrite is never sent (§2.3, §9).
    rewrite: Events::Never,
    // "ask" is unsupported and fails open (§9): an ask is a deny that says how to approve.
    ask: Events::Never,
    ask_opt_in: false,
    always_json: false,
    // No fail-closed switch: a failing hook lets the call run (§2.3).
    fail_closed: None,
    settings: SettingsPaths {
        // `~` here is $CODEX_HOME when it is set (Codex's own rule), else ~/.codex.
        user: "~/.codex/hooks.json",
        project: ".codex/hooks.json",
        // config.toml in the same directory holds `[features] hooks` (alias `codex_hooks`).
        config_toml: Some("config.toml"),
    },
    protected: ProtectedConfig {
        dir: ".codex",
        whole_home_dir: true,
        files: ConfigFiles::Named(&["config.toml", "hooks.json"]),
        rule: "protect.codex_config",
    },
};

/// Parses a Codex CLI event.
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

    fn pre(tool: &str, input: Value) -> Event {
        parse(
            &json!({"session_id": "s", "turn_id": "t", "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": input}),
        )
        .unwrap()
    }

    #[test]
    fn parses_apply_patch_and_argv_shells() {
        let ev = pre(
            "apply_patch",
            json!({"command": "*** Begin Patch\n*** Add File: a.sh\n+x\n*** End Patch"}),
        );
        let t = ev.tool.unwrap();
        assert_eq!(t.kind, ToolKind::FileWrite);
        assert_eq!(t.write_paths, vec!["a.sh"]);
        assert!(t.patch.is_some());
        let t = pre("exec_command", json!({"cmd": ["bash", "-lc", "ls"]}))
            .tool
            .unwrap();
        assert_eq!(t.command.as_deref(), Some("'bash' '-lc' 'ls'"));
        let ev =
            parse(&json!({"session_id": "s", "hook_event_name": "PermissionRequest"})).unwrap();
        assert_eq!(ev.kind, EventKind::Other);
        assert_eq!(
            parse(&json!({"hook_event_name": "Stop"})).unwrap_err(),
            "missing session_id"
        );
    }

    #[test]
    fn ask_is_a_deny_and_a_rewrite_an_allow() {
        let ev = pre("Bash", json!({"command": "ls"}));
        let mut d = Decision::new(Verdict::Ask, Reason::SecretEgress, "tok");
        d.audit_id = Some(7);
        let out: Value = serde_json::from_str(&render(&ev, &d).stdout).unwrap();
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "deny");
        assert!(out["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("intentshield approve 7"));
        let mut d = Decision::allow();
        d.updated_input = Some(json!({"command": "pwd"}));
        let out: Value = serde_json::from_str(&render(&ev, &d).stdout).unwrap();
        assert_eq!(out["hookSpecificOutput"]["permissionDecision"], "allow");
        assert_eq!(render(&ev, &Decision::allow()), Rendered::silent());
        assert_eq!(render_error(false, "m").exit_code, 2);
    }
}
