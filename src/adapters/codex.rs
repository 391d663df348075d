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

use super::{ask_as_deny, Rendered};
use crate::decision::{Decision, Verdict};
use crate::event::{Event, EventKind, Harness};
use serde_json::{json, Value};

/// Parses a Codex CLI event.
pub fn parse(raw: &Value) -> Result<Event, String> {
    super::claude::parse_common(Harness::Codex, raw)
}

/// Renders a decision for Codex CLI.
pub fn render(event: &Event, d: &Decision) -> Rendered {
    match event.kind {
        EventKind::PreTool => {
            let (block, reason) = ask_as_deny(d);
            if block {
                let mut h = json!({
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                });
                if let Some(c) = &d.context {
                    h["additionalContext"] = json!(c);
                }
                return Rendered::stdout(json!({ "hookSpecificOutput": h }).to_string());
            }
            match (&d.updated_input, &d.context) {
                (Some(u), _) => Rendered::stdout(
                    json!({"hookSpecificOutput":{
                        "hookEventName":"PreToolUse",
                        "permissionDecision":"allow",
                        "updatedInput":u,
                    }})
                    .to_string(),
                ),
                (None, Some(c)) => Rendered::stdout(
                    json!({"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":c}})
                        .to_string(),
                ),
                (None, None) => Rendered::silent(),
            }
        }
        EventKind::PostTool => {
            // updatedMCPToolOutput is "unsupported ... fails open" in the code read (§2.3), so
            // `--outputs block` uses decision:block, which sends the reason to the model.
            if let Some(r) = &d.replace_output {
                let mut v = json!({"decision":"block","reason":r});
                if let Some(c) = &d.context {
                    v["hookSpecificOutput"] =
                        json!({"hookEventName":"PostToolUse","additionalContext":c});
                }
                return Rendered::stdout(v.to_string());
            }
            match &d.context {
                Some(c) => Rendered::stdout(
                    json!({"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":c}})
                        .to_string(),
                ),
                None => Rendered::silent(),
            }
        }
        EventKind::PromptSubmit if d.verdict == Verdict::Deny => {
            Rendered::stdout(json!({"decision":"block","reason":super::reason_line(d)}).to_string())
        }
        _ => Rendered::silent(),
    }
}
