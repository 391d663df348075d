//! The inverse, for `doctor`, `demo` and the tests: Claude Code events shaped like the
//! captured samples (`../shared/live-harness/samples/claude-*.json`), and Claude Code's reading
//! of an answer (§1.3).

use crate::harness::probe::{self, Answer, Build, Call, Ids};
use serde_json::{json, Map, Value};

/// Builds a Claude Code event.
pub fn event(ids: &Ids<'_>, what: &Build<'_>) -> Value {
    let name = what.name(crate::harness::claude_shape::BUILD_NAMES);
    let mut m = Map::new();
    m.insert("session_id".into(), ids.id.into());
    m.insert("transcript_path".into(), "/dev/null".into());
    m.insert("cwd".into(), ids.cwd.into());
    m.insert("permission_mode".into(), "default".into());
    m.insert("hook_event_name".into(), name.into());
    probe::event_fields(
        &mut m,
        what,
        |call, m| tool_fields(ids, call, m),
        // Samples: claude-PostToolUse-mcp.json (content blocks), -bash.json (object).
        |call, output| match call {
            Call::Mcp(..) => json!([{ "type": "text", "text": output }]),
            _ => json!({ "stdout": output, "stderr": "", "interrupted": false }),
        },
    );
    Value::Object(m)
}

fn tool_fields(ids: &Ids<'_>, call: &Call, m: &mut Map<String, Value>) {
    probe::tool_name_input(
        m,
        match call {
            Call::Read(p) => ("Read".into(), json!({ "file_path": p })),
            Call::Shell(c) => (
                "Bash".into(),
                json!({ "command": c, "description": "run a command" }),
            ),
            Call::Mcp(s, t, a) => (format!("mcp__{s}__{t}"), a.clone()),
        },
    );
    if let Call::Mcp(s, ..) = call {
        m.insert("mcp_server".into(), json!({"name": s, "source": "user"}));
    }
    m.insert("tool_use_id".into(), format!("toolu_demo_{}", ids.n).into());
}

/// Reads a hook's exit status and output as Claude Code does: exit 2 blocks with stderr,
/// another non-zero exit is a hook failure, an empty stdout is no opinion, other non-JSON is a
/// failure.
pub fn read_answer(exit: Option<i32>, stdout: &str, stderr: &str) -> Answer {
    if let Some(a) = probe::exit_answer(exit, stdout, stderr) {
        return a;
    }
    let out = stdout.trim();
    match probe::json_object(out) {
        Some(v) => probe::finish(&v, probe::grouped_decision(&v)),
        None if out.is_empty() => Answer::NoObjection,
        None => probe::not_json(out),
    }
}

/// The verdict word of a rendered pre-tool answer (`permissionDecision`), if any.
pub fn verdict_word(v: &Value) -> Option<String> {
    v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .map(str::to_string)
}
