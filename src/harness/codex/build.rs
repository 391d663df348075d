//! The inverse, for `doctor`, `demo` and the tests: Codex CLI events shaped like the captured
//! samples (`../shared/live-harness/samples/codex-*.json`), and Codex's reading of an answer
//! (§2.3, §9).

use crate::harness::probe::{self, Answer, Build, Call, Ids};
use serde_json::{json, Map, Value};

/// Builds a Codex CLI event.
pub fn event(ids: &Ids<'_>, what: &Build<'_>) -> Value {
    let name = what.name(crate::harness::claude_shape::BUILD_NAMES);
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
    probe::event_fields(
        &mut m,
        what,
        |call, m| tool_fields(ids, call, m),
        // codex-PostToolUse-mcp.json: the raw MCP result.
        |call, output| match call {
            Call::Mcp(..) => {
                json!({ "content": [{ "type": "text", "text": output }], "isError": false })
            }
            _ => Value::String(output.into()),
        },
    );
    Value::Object(m)
}

fn tool_fields(ids: &Ids<'_>, call: &Call, m: &mut Map<String, Value>) {
    probe::tool_name_input(
        m,
        match call {
            Call::Read(p) => (
                "Bash".into(),
                json!({ "command": format!("cat {}", crate::text::shell_quote(p)) }),
            ),
            Call::Shell(c) => ("Bash".into(), json!({ "command": c })),
            Call::Mcp(s, t, a) => (format!("mcp__{s}__{t}"), a.clone()),
        },
    );
    m.insert("tool_use_id".into(), format!("toolu_demo_{}", ids.n).into());
}

/// Reads a hook's exit status and output as Codex CLI does: exit 2 blocks only with a reason
/// on stderr (an empty one lets the call run), another non-zero exit is a hook failure, and
/// output that is not JSON is ignored.
pub fn read_answer(exit: Option<i32>, stdout: &str, stderr: &str) -> Answer {
    if exit == Some(2) && stderr.trim().is_empty() {
        return Answer::Failed("exit 2 with an empty stderr (Codex lets the call run)".into());
    }
    if let Some(a) = probe::exit_answer(exit, stdout, stderr) {
        return a;
    }
    match probe::json_object(stdout.trim()) {
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
