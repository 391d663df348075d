//! The inverse, for `doctor`, `demo` and the tests: Codex CLI events shaped like the captured
//! samples (`../shared/live-harness/samples/codex-*.json`), and Codex's reading of an answer
//! (§2.3, §9).

use crate::harness::probe::{self, Answer, Build, Call, Ids};
use serde_json::{json, Map, Value};

/// Builds a Codex CLI event.
pub fn event(ids: &Ids<'_>, what: &Build<'_>) -> Value {
    let name = match what {
        Build::Prompt(_) => "UserPromptSubmit",
        Build::PreTool(_) => "PreToolUse",
        Build::PostTool(..) => "PostToolUse",
        Build::SessionStart => "SessionStart",
    };
    let mut m = Map::new();
    m.insert("session_id".into(), ids.id.into());
    if name != "SessionStart" {
        m.insert("turn_id".into(), format!("turn-{}", ids.n).into());
    }
    m.insert("transcript_path".into(), Value::Null);
    m.insert("cwd".into(), ids.cwd.into());
    m.insert("hook_event_name".into(), name.into());
    m.insert("model".into(), "demo-model".into());
    m.insert("permission_mode".into(), "default".into());
    match what {
        Build::Prompt(text) => {
            m.insert("prompt".into(), (*text).into());
        }
        Build::PreTool(call) => tool_fields(ids, call, &mut m),
        Build::PostTool(call, output) => {
            tool_fields(ids, call, &mut m);
            // codex-PostToolUse-mcp.json: the raw MCP result.
            let resp = match call {
                Call::Mcp(..) => {
                    json!({ "content": [{ "type": "text", "text": output }], "isError": false })
                }
                _ => Value::String((*output).into()),
            };
            m.insert("tool_response".into(), resp);
        }
        Build::SessionStart => {
            m.insert("source".into(), "startup".into());
        }
    }
    Value::Object(m)
}

fn tool_fields(ids: &Ids<'_>, call: &Call, m: &mut Map<String, Value>) {
    let (name, input): (String, Value) = match call {
        Call::Read(p) => (
            "Bash".into(),
            json!({ "command": format!("cat {}", crate::text::shell_quote(p)) }),
        ),
        Call::Shell(c) => ("Bash".into(), json!({ "command": c })),
        Call::Mcp(s, t, a) => (format!("mcp__{s}__{t}"), a.clone()),
    };
    m.insert("tool_name".into(), name.into());
    m.insert("tool_input".into(), input);
    m.insert("tool_use_id".into(), format!("toolu_demo_{}", ids.n).into());
}

/// Reads a hook's exit status and output as Codex CLI does: exit 2 blocks only with a reason
/// on stderr (an empty one lets the call run), another non-zero exit is a hook failure, and
/// output that is not JSON is ignored.
pub fn read_answer(exit: Option<i32>, stdout: &str, stderr: &str) -> Answer {
    let out = stdout.trim();
    let Some(code) = exit else {
        return probe::no_exit(stderr);
    };
    if code == 2 {
        if stderr.trim().is_empty() {
            return Answer::Failed("exit 2 with an empty stderr (Codex lets the call run)".into());
        }
        return Answer::Deny(probe::stderr_or(stderr, out));
    }
    if code != 0 {
        return probe::failed_exit(code, stderr);
    }
    match probe::json_object(out) {
        Some(v) => probe::finish(&v, probe::grouped_decision(&v)),
        None => Answer::NoObjection,
    }
}

/// The verdict word of a rendered pre-tool answer (`permissionDecision`), if any.
pub fn verdict_word(v: &Value) -> Option<String> {
    v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .map(str::to_string)
}
