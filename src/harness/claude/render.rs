//! Rendering a decision, or an internal error, in Claude Code's format (§1.3).

use crate::decision::{Decision, Reason, Verdict};
use crate::event::{Event, EventKind};
use crate::harness::{reason_line, Rendered};
use serde_json::{json, Map};

/// Renders a decision for Claude Code.
pub fn render(event: &Event, d: &Decision) -> Rendered {
    match event.kind {
        EventKind::PreTool => {
            let mut h = Map::new();
            h.insert("hookEventName".into(), json!("PreToolUse"));
            match d.verdict {
                Verdict::Deny => {
                    h.insert("permissionDecision".into(), json!("deny"));
                    h.insert("permissionDecisionReason".into(), json!(reason_line(d)));
                }
                Verdict::Ask => {
                    h.insert("permissionDecision".into(), json!("ask"));
                    h.insert("permissionDecisionReason".into(), json!(reason_line(d)));
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
                    h.insert("permissionDecisionReason".into(), json!(reason_line(d)));
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
            Rendered::stdout(json!({"decision":"block","reason":reason_line(d)}).to_string())
        }
        _ => Rendered::silent(),
    }
}

/// Renders the fail-closed answer for an internal error: exit 2 with the reason on stderr,
/// or a note on stderr when the event carries no call to stop.
pub fn render_error(no_call: bool, message: &str) -> Rendered {
    crate::harness::exit2_error(no_call, message)
}
