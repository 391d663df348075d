//! Rendering a decision, or an internal error, in Cursor's format (§3.3). Always a JSON
//! object: invalid JSON on a permission event is a deny, and `{}` is "no opinion".

use super::SPEC;
use crate::decision::{Decision, Reason, Verdict};
use crate::event::{Event, ToolKind};
use crate::harness::{approval_hint, reason_line, Rendered};
use serde_json::{json, Map, Value};

/// Renders a decision for Cursor. Always a JSON object.
pub fn render(event: &Event, d: &Decision) -> Rendered {
    let name = event.event_name.as_str();
    let mut out = Map::new();
    if SPEC.is_permission_event(name) {
        match d.verdict {
            Verdict::Deny => {
                out.insert("permission".into(), json!("deny"));
                out.insert("user_message".into(), json!(reason_line(d)));
                out.insert("agent_message".into(), json!(reason_line(d)));
            }
            Verdict::Ask if !SPEC.can_ask(name) => {
                // beforeReadFile accepts only allow|deny; on beforeMCPExecution and preToolUse
                // the verified runtime (`@cursor/sdk` 1.0.32, hook-protocols.md §3.3) acts only
                // on deny, so an "ask" there would let the call run. Only the shell event's ask
                // is known to prompt; elsewhere the ask is a deny that says how to approve.
                out.insert("permission".into(), json!("deny"));
                out.insert("user_message".into(), json!(approval_hint(d)));
                out.insert("agent_message".into(), json!(approval_hint(d)));
            }
            Verdict::Ask => {
                out.insert("permission".into(), json!("ask"));
                out.insert("user_message".into(), json!(reason_line(d)));
                out.insert("agent_message".into(), json!(reason_line(d)));
            }
            Verdict::Allow => {
                if let Some(u) = &d.updated_input {
                    if name == "preToolUse" {
                        // The rewrite alone: Cursor's own permission flow still applies,
                        // unless the user approved this call with `intentshield approve`.
                        if d.reason == Reason::Approved {
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
        out.insert("user_message".into(), json!(reason_line(d)));
    }
    Rendered::stdout(Value::Object(out).to_string())
}

/// Renders the fail-closed answer for an internal error: the deny JSON (`failClosed` makes
/// Cursor block on a failing hook too), or `{}` when the event carries no call to stop.
pub fn render_error(no_call: bool, message: &str) -> Rendered {
    if no_call {
        return Rendered::stdout("{}");
    }
    deny_json(&crate::harness::error_reason(message))
}

/// Cursor's deny: `{"permission":"deny"}` with `reason` for the user and the agent.
pub fn deny_json(reason: &str) -> Rendered {
    let v = json!({
        "permission": "deny",
        "user_message": reason,
        "agent_message": reason,
    });
    Rendered::stdout(v.to_string())
}
