//! The inverse, for `doctor`, `demo` and the tests: Gemini CLI events shaped like the captured
//! samples (`../shared/live-harness/samples/gemini-*.json`), and Gemini CLI's reading of an
//! answer (§4.3: JSON on stdout is read whatever the exit status).

use crate::harness::probe::{self, Answer, Build, Call, Ids};
use serde_json::{json, Map, Value};

/// Builds a Gemini CLI event.
pub fn event(ids: &Ids<'_>, what: &Build<'_>) -> Value {
    let name = what.name(["BeforeAgent", "BeforeTool", "AfterTool", "SessionStart"]);
    let mut m = Map::new();
    m.insert("session_id".into(), ids.id.into());
    m.insert("transcript_path".into(), "".into());
    m.insert("cwd".into(), ids.cwd.into());
    m.insert("hook_event_name".into(), name.into());
    m.insert("timestamp".into(), "2026-11-30T00:00:00.000Z".into());
    probe::event_fields(&mut m, what, tool_fields, |_, output| {
        // gemini-AfterTool-mcp.json.
        json!({
            "llmContent": [{ "text": format!("<untrusted_context>\n{output}\n</untrusted_context>") }],
            "returnDisplay": output
        })
    });
    Value::Object(m)
}

fn tool_fields(call: &Call, m: &mut Map<String, Value>) {
    probe::tool_name_input(
        m,
        match call {
            Call::Read(p) => ("read_file".into(), json!({ "file_path": p })),
            Call::Shell(c) => ("run_shell_command".into(), json!({ "command": c })),
            Call::Mcp(s, t, a) => (format!("mcp_{s}_{t}"), a.clone()),
        },
    );
    if let Call::Mcp(s, t, _) = call {
        m.insert(
            "mcp_context".into(),
            json!({"server_name": s, "tool_name": t, "command": "demo-mcp-server", "args": []}),
        );
    }
}

/// Reads a hook's exit status and output as Gemini CLI does: a JSON object on stdout is the
/// answer whatever the exit status; otherwise exit 2 blocks, another non-zero exit is a
/// failure, and other output is ignored.
pub fn read_answer(exit: Option<i32>, stdout: &str, stderr: &str) -> Answer {
    let out = stdout.trim();
    let Some(code) = exit else {
        return probe::no_exit(stderr);
    };
    let Some(v) = probe::json_object(out) else {
        return match code {
            2 => Answer::Deny(probe::stderr_or(stderr, out)),
            0 => Answer::NoObjection,
            _ => probe::failed_exit(code, stderr),
        };
    };
    probe::finish(&v, probe::grouped_decision(&v))
}

/// The verdict word of a rendered pre-tool answer: `decision`, or "allow" for a rewrite
/// (`hookSpecificOutput.tool_input`), if any.
pub fn verdict_word(v: &Value) -> Option<String> {
    v["decision"].as_str().map(str::to_string).or_else(|| {
        v["hookSpecificOutput"]["tool_input"]
            .is_object()
            .then(|| "allow".to_string())
    })
}
