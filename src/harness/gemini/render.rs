//! Rendering a decision, or an internal error, in Gemini CLI's format (§4.3). Stdout stays
//! pure JSON or empty.

use crate::decision::{Decision, Verdict};
use crate::event::{Event, EventKind};
use crate::harness::{ask_as_deny, reason_line, AskMode, RenderOptions, Rendered};
use serde_json::json;

/// Renders a decision for Gemini CLI.
pub fn render(event: &Event, d: &Decision, opts: &RenderOptions) -> Rendered {
    match event.kind {
        EventKind::PreTool => {
            if d.verdict == Verdict::Ask && opts.gemini_ask == AskMode::Ask {
                let mut v = json!({"decision":"ask","reason":reason_line(d),"systemMessage":reason_line(d)});
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
            Rendered::stdout(json!({"decision":"deny","reason":reason_line(d)}).to_string())
        }
        _ => Rendered::silent(),
    }
}

/// Renders the fail-closed answer for an internal error: exit 2 with the reason on stderr
/// (Gemini CLI blocks on it), or a note on stderr when the event carries no call to stop.
pub fn render_error(no_call: bool, message: &str) -> Rendered {
    crate::harness::exit2_error(no_call, message)
}
