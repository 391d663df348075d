//! The inverse of parsing and rendering, used by `doctor` (canaries), `demo` and the tests:
//! building events shaped like each harness's real payloads, and reading each harness's answer
//! format back into a verdict. Each harness module has its own `build_event`, `read_answer` and
//! `verdict_word`; this module holds the neutral types, the pieces every reader shares and the
//! one dispatch on [`Harness`].

use crate::event::Harness;
use serde_json::{Map, Value};

/// A tool call, in harness-neutral terms.
#[derive(Debug, Clone)]
pub enum Call {
    /// Read a file (Claude `Read`, Gemini `read_file`, Cursor `Read`; Codex has no read tool
    /// that fires hooks, so there it is `cat <path>` through `Bash`).
    Read(String),
    /// A shell command (Claude/Codex `Bash`, Gemini `run_shell_command`, Cursor `Shell`).
    Shell(String),
    /// An MCP tool: server, tool, arguments.
    Mcp(String, String, Value),
}

/// Which event to build.
#[derive(Debug, Clone, Copy)]
pub enum Build<'a> {
    /// The prompt-submit event with this prompt.
    Prompt(&'a str),
    /// The pre-tool event for a call.
    PreTool(&'a Call),
    /// The post-tool event for a call that returned this text.
    PostTool(&'a Call, &'a str),
    /// The session-start event.
    SessionStart,
}

/// The ids one built event carries.
#[derive(Debug, Clone, Copy)]
pub struct Ids<'a> {
    /// Session id (Cursor: also `conversation_id`).
    pub id: &'a str,
    /// Working directory reported in the event.
    pub cwd: &'a str,
    /// The event's sequence number in its session, from 1 (turn, generation, tool-use ids).
    pub n: u32,
}

/// Builds one event of harness `h`.
pub fn build_event(h: Harness, ids: &Ids<'_>, what: &Build<'_>) -> Value {
    match h {
        Harness::Claude => super::claude::build_event(ids, what),
        Harness::Codex => super::codex::build_event(ids, what),
        Harness::Cursor => super::cursor::build_event(ids, what),
        Harness::Gemini => super::gemini::build_event(ids, what),
    }
}

impl Build<'_> {
    /// This event's name among a harness's four: `[prompt, pre-tool, post-tool, session-start]`.
    pub(crate) fn name<'n>(&self, names: [&'n str; 4]) -> &'n str {
        let [prompt, pre, post, start] = names;
        match self {
            Build::Prompt(_) => prompt,
            Build::PreTool(_) => pre,
            Build::PostTool(..) => post,
            Build::SessionStart => start,
        }
    }
}

/// Adds the per-event fields of a Claude Code, Codex CLI or Gemini CLI event to `m` (whose
/// common fields are already in): `prompt`; the tool's fields (`tool_fields`); those and
/// `tool_response` (`response` of the call and its output); or `source: "startup"`.
pub(crate) fn event_fields(
    m: &mut Map<String, Value>,
    what: &Build<'_>,
    tool_fields: impl Fn(&Call, &mut Map<String, Value>),
    response: impl Fn(&Call, &str) -> Value,
) {
    match what {
        Build::Prompt(text) => {
            m.insert("prompt".into(), (*text).into());
        }
        Build::PreTool(call) => tool_fields(call, m),
        Build::PostTool(call, output) => {
            tool_fields(call, m);
            m.insert("tool_response".into(), response(call, output));
        }
        Build::SessionStart => {
            m.insert("source".into(), "startup".into());
        }
    }
}

/// Adds a tool call's `tool_name` and `tool_input` to `m`.
pub(crate) fn tool_name_input(m: &mut Map<String, Value>, (name, input): (String, Value)) {
    m.insert("tool_name".into(), name.into());
    m.insert("tool_input".into(), input);
}

/// The state of one scripted session: ids shared by its events.
#[derive(Debug, Clone)]
pub struct Session {
    /// The harness whose format is produced.
    pub harness: Harness,
    /// Session id (Cursor: also `conversation_id`).
    pub id: String,
    /// Working directory reported in events.
    pub cwd: String,
    n: u32,
}

impl Session {
    /// A new session with a given id.
    pub fn new(harness: Harness, id: &str, cwd: &str) -> Session {
        Session {
            harness,
            id: id.into(),
            cwd: cwd.into(),
            n: 0,
        }
    }

    fn build(&mut self, what: &Build<'_>) -> Value {
        self.n += 1;
        let ids = Ids {
            id: &self.id,
            cwd: &self.cwd,
            n: self.n,
        };
        build_event(self.harness, &ids, what)
    }

    /// The prompt-submit event.
    pub fn prompt(&mut self, text: &str) -> Value {
        self.build(&Build::Prompt(text))
    }

    /// The pre-tool event for a call.
    pub fn pre_tool(&mut self, call: &Call) -> Value {
        self.build(&Build::PreTool(call))
    }

    /// The post-tool event for a call that returned `output` (as text).
    pub fn post_tool(&mut self, call: &Call, output: &str) -> Value {
        self.build(&Build::PostTool(call, output))
    }

    /// The session-start event.
    pub fn session_start(&mut self) -> Value {
        self.build(&Build::SessionStart)
    }
}

/// What the hook answered, read the way the harness reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Exit 0 and no decision: the call goes ahead under the harness's own rules.
    NoObjection,
    /// An explicit allow.
    Allow(String),
    /// Ask the user.
    Ask(String),
    /// Blocked, with the reason the model is told.
    Deny(String),
    /// Not blocked, with context added for the model.
    Context(String),
    /// The hook failed (exit status other than 0 or 2, timeout, junk output, spawn error).
    Failed(String),
}

impl Answer {
    /// Short verdict word.
    pub fn word(&self) -> &'static str {
        match self {
            Answer::NoObjection => "no objection",
            Answer::Allow(_) => "allow",
            Answer::Ask(_) => "ask",
            Answer::Deny(_) => "deny",
            Answer::Context(_) => "note",
            Answer::Failed(_) => "FAILED",
        }
    }

    /// The reason or message, if any.
    pub fn text(&self) -> &str {
        match self {
            Answer::NoObjection => "",
            Answer::Allow(s)
            | Answer::Ask(s)
            | Answer::Deny(s)
            | Answer::Context(s)
            | Answer::Failed(s) => s,
        }
    }
}

/// Reads a hook's exit status and output as `h` would (hook-protocols.md §1.3, §2.3, §3.3,
/// §4.3; §9/§10 for what the real programs did).
pub fn read_answer(h: Harness, exit: Option<i32>, stdout: &str, stderr: &str) -> Answer {
    match h {
        Harness::Claude => super::claude::read_answer(exit, stdout, stderr),
        Harness::Codex => super::codex::read_answer(exit, stdout, stderr),
        Harness::Cursor => super::cursor::read_answer(exit, stdout, stderr),
        Harness::Gemini => super::gemini::read_answer(exit, stdout, stderr),
    }
}

/// The verdict word (`deny`, `ask`, `allow`, ...) a rendered pre-tool JSON answer carries for
/// `h`, if any: the tests' quick reading of an answer.
pub fn verdict_word(h: Harness, v: &Value) -> Option<String> {
    match h {
        Harness::Claude => super::claude::verdict_word(v),
        Harness::Codex => super::codex::verdict_word(v),
        Harness::Cursor => super::cursor::verdict_word(v),
        Harness::Gemini => super::gemini::verdict_word(v),
    }
}

/// The answer an exit status alone decides, for a harness where exit 2 blocks (with stderr,
/// or stdout when stderr is empty) and no exit status or another non-zero one is a failure;
/// `None` on exit 0, where the output is read.
pub(crate) fn exit_answer(exit: Option<i32>, stdout: &str, stderr: &str) -> Option<Answer> {
    match exit {
        None => Some(no_exit(stderr)),
        Some(2) => Some(Answer::Deny(stderr_or(stderr, stdout.trim()))),
        Some(0) => None,
        Some(code) => Some(failed_exit(code, stderr)),
    }
}

/// No exit status: killed or timed out.
pub(crate) fn no_exit(stderr: &str) -> Answer {
    Answer::Failed(format!(
        "no exit status (killed or timed out) {}",
        stderr.trim()
    ))
}

/// A non-zero exit other than a block.
pub(crate) fn failed_exit(code: i32, stderr: &str) -> Answer {
    Answer::Failed(format!("exit {code}: {}", stderr.trim()))
}

/// Output that is neither empty nor JSON, where the harness counts that as a failure.
pub(crate) fn not_json(out: &str) -> Answer {
    Answer::Failed(format!("stdout is not JSON: {out}"))
}

/// The reason of an exit-2 block: stderr, or stdout when stderr is empty.
pub(crate) fn stderr_or(stderr: &str, out: &str) -> String {
    if stderr.trim().is_empty() {
        out.to_string()
    } else {
        stderr.trim().to_string()
    }
}

/// The output as a JSON object, if it is one.
pub(crate) fn json_object(out: &str) -> Option<Value> {
    serde_json::from_str(out).ok().filter(Value::is_object)
}

pub(crate) fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_str()
}

/// A decision word and its reason, as an answer.
pub(crate) fn pick(d: &str, reason: String) -> Option<Answer> {
    match d {
        "deny" | "block" => Some(Answer::Deny(reason)),
        "ask" => Some(Answer::Ask(reason)),
        "allow" | "approve" => Some(Answer::Allow(reason)),
        _ => None,
    }
}

/// The decision of Claude Code, Codex and Gemini CLI answers:
/// `hookSpecificOutput.permissionDecision` with its reason, else `decision` with `reason`.
pub(crate) fn grouped_decision(v: &Value) -> Option<Answer> {
    str_at(v, &["hookSpecificOutput", "permissionDecision"])
        .and_then(|d| {
            pick(
                d,
                str_at(v, &["hookSpecificOutput", "permissionDecisionReason"])
                    .unwrap_or("")
                    .into(),
            )
        })
        .or_else(|| {
            str_at(v, &["decision"])
                .and_then(|d| pick(d, str_at(v, &["reason"]).unwrap_or("").into()))
        })
}

/// The answer of a JSON object once its decision (if any) is read: the decision, else a
/// rewrite, a stop, added context, or no objection.
pub(crate) fn finish(v: &Value, decided: Option<Answer>) -> Answer {
    let ctx = str_at(v, &["hookSpecificOutput", "additionalContext"])
        .or_else(|| str_at(v, &["additional_context"]))
        .or_else(|| str_at(v, &["additionalContext"]))
        .or_else(|| str_at(v, &["systemMessage"]));
    if let Some(a) = decided {
        return a;
    }
    // Gemini CLI's rewrite carries no decision: the new arguments are the answer.
    if v.pointer("/hookSpecificOutput/tool_input").is_some() {
        return Answer::Allow("arguments rewritten".into());
    }
    if v.get("continue") == Some(&Value::Bool(false)) {
        let msg = str_at(v, &["stopReason"])
            .or(str_at(v, &["user_message"]))
            .unwrap_or("");
        return Answer::Deny(msg.to_string());
    }
    match ctx {
        Some(c) if !c.is_empty() => Answer::Context(c.to_string()),
        _ => Answer::NoObjection,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_each_harness_format() {
        let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#;
        assert_eq!(
            read_answer(Harness::Claude, Some(0), deny, ""),
            Answer::Deny("no".into())
        );
        assert_eq!(
            read_answer(Harness::Codex, Some(2), "", "bad"),
            Answer::Deny("bad".into())
        );
        assert!(matches!(
            read_answer(Harness::Codex, Some(2), "", ""),
            Answer::Failed(_)
        ));
        assert_eq!(
            read_answer(
                Harness::Gemini,
                Some(0),
                r#"{"decision":"deny","reason":"r"}"#,
                ""
            ),
            Answer::Deny("r".into())
        );
        assert_eq!(
            read_answer(
                Harness::Cursor,
                Some(0),
                r#"{"permission":"deny","user_message":"u","agent_message":"a"}"#,
                ""
            ),
            Answer::Deny("a".into())
        );
        assert_eq!(
            read_answer(Harness::Cursor, Some(0), r#"{"permission":"allow"}"#, ""),
            Answer::Allow("".into())
        );
        assert_eq!(
            read_answer(Harness::Claude, Some(0), "", ""),
            Answer::NoObjection
        );
        assert!(matches!(
            read_answer(Harness::Claude, Some(1), "junk", ""),
            Answer::Failed(_)
        ));
        assert!(matches!(
            read_answer(Harness::Claude, None, "", ""),
            Answer::Failed(_)
        ));
    }

    #[test]
    fn events_carry_each_harness_marks() {
        let mut s = Session::new(Harness::Cursor, "c1", "/p");
        let e = s.pre_tool(&Call::Shell("ls".into()));
        assert_eq!(e["hook_event_name"], "preToolUse");
        assert!(e.get("cursor_version").is_some());
        let mut s = Session::new(Harness::Codex, "x", "/p");
        assert!(s
            .pre_tool(&Call::Read("/p/README.md".into()))
            .get("turn_id")
            .is_some());
        let mut s = Session::new(Harness::Gemini, "g", "/p");
        let e = s.pre_tool(&Call::Mcp("srv".into(), "t".into(), json!({})));
        assert_eq!(e["tool_name"], "mcp_srv_t");
        assert_eq!(e["mcp_context"]["server_name"], "srv");
    }
}
