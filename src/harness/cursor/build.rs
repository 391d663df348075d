//! The inverse, for `doctor`, `demo` and the tests: Cursor events as hook-protocols.md §3.2
//! describes them (there is no Cursor CLI here to capture samples from), and Cursor's reading
//! of an answer (§3.3: every answer must be a JSON object).

use crate::harness::probe::{self, Answer, Build, Call, Ids};
use serde_json::{json, Map, Value};

/// Builds a Cursor event.
pub fn event(ids: &Ids<'_>, what: &Build<'_>) -> Value {
    let name = what.name([
        "beforeSubmitPrompt",
        "preToolUse",
        "postToolUse",
        "sessionStart",
    ]);
    let mut m = Map::new();
    m.insert("conversation_id".into(), ids.id.into());
    m.insert("generation_id".into(), format!("gen-{}", ids.n).into());
    m.insert("model".into(), "demo-model".into());
    m.insert("session_id".into(), ids.id.into());
    m.insert("hook_event_name".into(), name.into());
    m.insert("cursor_version".into(), "2.3.14".into());
    m.insert("workspace_roots".into(), json!([ids.cwd]));
    m.insert("user_email".into(), Value::Null);
    m.insert("transcript_path".into(), Value::Null);
    match what {
        Build::Prompt(text) => {
            m.insert("prompt".into(), (*text).into());
            m.insert("attachments".into(), json!([]));
            m.insert("composer_mode".into(), "agent".into());
        }
        Build::PreTool(call) => tool_fields(ids, call, &mut m),
        Build::PostTool(call, output) => {
            tool_fields(ids, call, &mut m);
            // hook-protocols.md §3.2: postToolUse carries tool_output.
            m.insert("tool_output".into(), Value::String((*output).into()));
        }
        Build::SessionStart => {}
    }
    Value::Object(m)
}

fn tool_fields(ids: &Ids<'_>, call: &Call, m: &mut Map<String, Value>) {
    probe::tool_name_input(
        m,
        match call {
            Call::Read(p) => ("Read".into(), json!({ "file_path": p })),
            Call::Shell(c) => ("Shell".into(), json!({ "command": c, "cwd": ids.cwd })),
            Call::Mcp(_, t, a) => (format!("MCP:{t}"), a.clone()),
        },
    );
    m.insert("tool_use_id".into(), format!("toolu_demo_{}", ids.n).into());
    m.insert("cwd".into(), ids.cwd.into());
}

/// Reads a hook's exit status and output as Cursor does: exit 2 blocks, another non-zero exit
/// is a hook failure, and every answer must be a JSON object (`permission`, `agent_message`).
pub fn read_answer(exit: Option<i32>, stdout: &str, stderr: &str) -> Answer {
    if let Some(a) = probe::exit_answer(exit, stdout, stderr) {
        return a;
    }
    let out = stdout.trim();
    let Some(v) = probe::json_object(out) else {
        return if out.is_empty() {
            Answer::Failed("empty stdout (Cursor counts it as a failure)".into())
        } else {
            probe::not_json(out)
        };
    };
    let decided = v.get("permission").and_then(Value::as_str).and_then(|p| {
        let msg = probe::str_at(&v, &["agent_message"]).or(probe::str_at(&v, &["user_message"]));
        probe::pick(p, msg.unwrap_or("").to_string())
    });
    probe::finish(&v, decided)
}

/// The verdict word of a rendered permission answer (`permission`), if any.
pub fn verdict_word(v: &Value) -> Option<String> {
    v["permission"].as_str().map(str::to_string)
}
