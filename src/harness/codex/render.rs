//! Rendering a decision, or an internal error, in Codex CLI's format (§2.3).

use crate::decision::{Decision, Verdict};
use crate::event::{Event, EventKind};
use crate::harness::{ask_as_deny, reason_line, Rendered};
use serde_json::json;

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
            Rendered::stdout(json!({"decision":"block","reason":reason_line(d)}).to_string())
        }
        _ => Rendered::silent(),
    }
}

/// Renders the fail-closed answer for an internal error: exit 2 with the reason on stderr
/// (Codex blocks on it), or a note on stderr when the event carries no call to stop.
pub fn render_error(no_call: bool, message: &str) -> Rendered {
    crate::harness::exit2_error(no_call, message)
}
