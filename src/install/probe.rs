//! Talking to the hook the way a harness does: events shaped like the real payloads (the
//! captured samples in `../shared/live-harness/samples/`, and hook-protocols.md §3.2 for
//! Cursor, which has no CLI here), and reading each harness's answer format back into a
//! verdict. Used by `doctor` (canaries) and `demo`.

use crate::event::Harness;
use serde_json::{json, Map, Value};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

    fn base(&mut self, event: &str) -> Map<String, Value> {
        self.n += 1;
        let mut m = Map::new();
        let id = self.id.clone();
        match self.harness {
            Harness::Cursor => {
                m.insert("conversation_id".into(), id.clone().into());
                m.insert("generation_id".into(), format!("gen-{}", self.n).into());
                m.insert("model".into(), "demo-model".into());
                m.insert("session_id".into(), id.into());
                m.insert("hook_event_name".into(), event.into());
                m.insert("cursor_version".into(), "2.3.14".into());
                m.insert("workspace_roots".into(), json!([self.cwd]));
                m.insert("user_email".into(), Value::Null);
                m.insert("transcript_path".into(), Value::Null);
            }
            Harness::Codex => {
                m.insert("session_id".into(), id.into());
                if event != "SessionStart" {
                    m.insert("turn_id".into(), format!("turn-{}", self.n).into());
                }
                m.insert("transcript_path".into(), Value::Null);
                m.insert("cwd".into(), self.cwd.clone().into());
                m.insert("hook_event_name".into(), event.into());
                m.insert("model".into(), "demo-model".into());
                m.insert("permission_mode".into(), "default".into());
            }
            Harness::Gemini => {
                m.insert("session_id".into(), id.into());
                m.insert("transcript_path".into(), "".into());
                m.insert("cwd".into(), self.cwd.clone().into());
                m.insert("hook_event_name".into(), event.into());
                m.insert("timestamp".into(), "2026-11-30T00:00:00.000Z".into());
            }
            Harness::Claude => {
                m.insert("session_id".into(), id.into());
                m.insert("transcript_path".into(), "/dev/null".into());
                m.insert("cwd".into(), self.cwd.clone().into());
                m.insert("permission_mode".into(), "default".into());
                m.insert("hook_event_name".into(), event.into());
            }
        }
        m
    }

    /// The prompt-submit event.
    pub fn prompt(&mut self, text: &str) -> Value {
        let name = match self.harness {
            Harness::Claude | Harness::Codex => "UserPromptSubmit",
            Harness::Cursor => "beforeSubmitPrompt",
            Harness::Gemini => "BeforeAgent",
        };
        let mut m = self.base(name);
        m.insert("prompt".into(), text.into());
        if self.harness == Harness::Cursor {
            m.insert("attachments".into(), json!([]));
            m.insert("composer_mode".into(), "agent".into());
        }
        Value::Object(m)
    }

    fn tool_fields(&self, call: &Call, m: &mut Map<String, Value>) {
        let (name, input): (String, Value) = match (self.harness, call) {
            (Harness::Claude, Call::Read(p)) => ("Read".into(), json!({ "file_path": p })),
            (Harness::Gemini, Call::Read(p)) => ("read_file".into(), json!({ "file_path": p })),
            (Harness::Cursor, Call::Read(p)) => ("Read".into(), json!({ "file_path": p })),
            (Harness::Codex, Call::Read(p)) => (
                "Bash".into(),
                json!({ "command": format!("cat {}", super::command::shell_quote(p)) }),
            ),
            (Harness::Claude, Call::Shell(c)) => (
                "Bash".into(),
                json!({ "command": c, "description": "run a command" }),
            ),
            (Harness::Codex, Call::Shell(c)) => ("Bash".into(), json!({ "command": c })),
            (Harness::Gemini, Call::Shell(c)) => {
                ("run_shell_command".into(), json!({ "command": c }))
            }
            (Harness::Cursor, Call::Shell(c)) => {
                ("Shell".into(), json!({ "command": c, "cwd": self.cwd }))
            }
            (Harness::Claude | Harness::Codex, Call::Mcp(s, t, a)) => {
                (format!("mcp__{s}__{t}"), a.clone())
            }
            (Harness::Gemini, Call::Mcp(s, t, a)) => (format!("mcp_{s}_{t}"), a.clone()),
            (Harness::Cursor, Call::Mcp(_, t, a)) => (format!("MCP:{t}"), a.clone()),
        };
        m.insert("tool_name".into(), name.into());
        m.insert("tool_input".into(), input);
        match (self.harness, call) {
            (Harness::Claude, Call::Mcp(s, ..)) => {
                m.insert("mcp_server".into(), json!({"name": s, "source": "user"}));
            }
            (Harness::Gemini, Call::Mcp(s, t, _)) => {
                m.insert(
                    "mcp_context".into(),
                    json!({"server_name": s, "tool_name": t, "command": "demo-mcp-server", "args": []}),
                );
            }
            _ => {}
        }
        if matches!(
            self.harness,
            Harness::Claude | Harness::Codex | Harness::Cursor
        ) {
            m.insert(
                "tool_use_id".into(),
                format!("toolu_demo_{}", self.n).into(),
            );
        }
        if self.harness == Harness::Cursor {
            m.insert("cwd".into(), self.cwd.clone().into());
        }
    }

    /// The pre-tool event for a call.
    pub fn pre_tool(&mut self, call: &Call) -> Value {
        let name = match self.harness {
            Harness::Claude | Harness::Codex => "PreToolUse",
            Harness::Cursor => "preToolUse",
            Harness::Gemini => "BeforeTool",
        };
        let mut m = self.base(name);
        self.tool_fields(call, &mut m);
        Value::Object(m)
    }

    /// The post-tool event for a call that returned `output` (as text).
    pub fn post_tool(&mut self, call: &Call, output: &str) -> Value {
        let name = match self.harness {
            Harness::Claude | Harness::Codex => "PostToolUse",
            Harness::Cursor => "postToolUse",
            Harness::Gemini => "AfterTool",
        };
        let mut m = self.base(name);
        self.tool_fields(call, &mut m);
        let is_mcp = matches!(call, Call::Mcp(..));
        let resp = match self.harness {
            // Samples: claude-PostToolUse-mcp.json (content blocks), -bash.json (object).
            Harness::Claude if is_mcp => json!([{ "type": "text", "text": output }]),
            Harness::Claude => json!({ "stdout": output, "stderr": "", "interrupted": false }),
            // codex-PostToolUse-mcp.json: the raw MCP result.
            Harness::Codex if is_mcp => {
                json!({ "content": [{ "type": "text", "text": output }], "isError": false })
            }
            Harness::Codex => Value::String(output.into()),
            // gemini-AfterTool-mcp.json.
            Harness::Gemini => json!({
                "llmContent": [{ "text": format!("<untrusted_context>\n{output}\n</untrusted_context>") }],
                "returnDisplay": output
            }),
            // hook-protocols.md §3.2: postToolUse carries tool_output.
            Harness::Cursor => Value::String(output.into()),
        };
        let key = if self.harness == Harness::Cursor {
            "tool_output"
        } else {
            "tool_response"
        };
        m.insert(key.into(), resp);
        Value::Object(m)
    }

    /// The session-start event.
    pub fn session_start(&mut self) -> Value {
        let name = match self.harness {
            Harness::Cursor => "sessionStart",
            _ => "SessionStart",
        };
        let mut m = self.base(name);
        if self.harness != Harness::Cursor {
            m.insert("source".into(), "startup".into());
        }
        Value::Object(m)
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

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for p in path {
        cur = cur.get(p)?;
    }
    cur.as_str()
}

/// Reads a hook's exit status and output as `h` would (hook-protocols.md §1.3, §2.3, §3.3,
/// §4.3; §9/§10 for what the real programs did).
pub fn interpret(h: Harness, exit: Option<i32>, stdout: &str, stderr: &str) -> Answer {
    let out = stdout.trim();
    let Some(code) = exit else {
        return Answer::Failed(format!(
            "no exit status (killed or timed out) {}",
            stderr.trim()
        ));
    };
    let parsed: Option<Value> = serde_json::from_str(out).ok().filter(Value::is_object);
    if code == 2 && !(h == Harness::Gemini && parsed.is_some()) {
        let reason = if stderr.trim().is_empty() {
            out
        } else {
            stderr.trim()
        };
        if h == Harness::Codex && stderr.trim().is_empty() {
            return Answer::Failed("exit 2 with an empty stderr (Codex lets the call run)".into());
        }
        return Answer::Deny(reason.to_string());
    }
    if code != 0 && !(h == Harness::Gemini && parsed.is_some()) {
        return Answer::Failed(format!("exit {code}: {}", stderr.trim()));
    }
    let Some(v) = parsed else {
        return if out.is_empty() {
            if h == Harness::Cursor {
                Answer::Failed("empty stdout (Cursor counts it as a failure)".into())
            } else {
                Answer::NoObjection
            }
        } else if h == Harness::Gemini || h == Harness::Codex {
            Answer::NoObjection
        } else {
            Answer::Failed(format!("stdout is not JSON: {out}"))
        };
    };
    let ctx = str_at(&v, &["hookSpecificOutput", "additionalContext"])
        .or_else(|| str_at(&v, &["additional_context"]))
        .or_else(|| str_at(&v, &["additionalContext"]))
        .or_else(|| str_at(&v, &["systemMessage"]));
    let pick = |d: &str, reason: String| match d {
        "deny" | "block" => Some(Answer::Deny(reason)),
        "ask" => Some(Answer::Ask(reason)),
        "allow" | "approve" => Some(Answer::Allow(reason)),
        _ => None,
    };
    let decided = match h {
        Harness::Cursor => v.get("permission").and_then(Value::as_str).and_then(|p| {
            let msg = str_at(&v, &["agent_message"]).or(str_at(&v, &["user_message"]));
            pick(p, msg.unwrap_or("").to_string())
        }),
        _ => str_at(&v, &["hookSpecificOutput", "permissionDecision"])
            .and_then(|d| {
                pick(
                    d,
                    str_at(&v, &["hookSpecificOutput", "permissionDecisionReason"])
                        .unwrap_or("")
                        .into(),
                )
            })
            .or_else(|| {
                str_at(&v, &["decision"])
                    .and_then(|d| pick(d, str_at(&v, &["reason"]).unwrap_or("").into()))
            }),
    };
    if let Some(a) = decided {
        return a;
    }
    // Gemini CLI's rewrite carries no decision: the new arguments are the answer.
    if v.pointer("/hookSpecificOutput/tool_input").is_some() {
        return Answer::Allow("arguments rewritten".into());
    }
    if v.get("continue") == Some(&Value::Bool(false)) {
        let msg = str_at(&v, &["stopReason"])
            .or(str_at(&v, &["user_message"]))
            .unwrap_or("");
        return Answer::Deny(msg.to_string());
    }
    match ctx {
        Some(c) if !c.is_empty() => Answer::Context(c.to_string()),
        _ => Answer::NoObjection,
    }
}

/// The raw result of running a hook command once.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// Exit status; `None` when killed (timeout) or not started.
    pub exit: Option<i32>,
    /// stdout.
    pub stdout: String,
    /// stderr (or the spawn error).
    pub stderr: String,
    /// Wall time.
    pub elapsed: Duration,
}

/// Runs a prepared command with `input` on stdin, killing it after `timeout`.
pub fn run(mut cmd: Command, input: &[u8], timeout: Duration) -> RunResult {
    let start = Instant::now();
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return RunResult {
                exit: None,
                stdout: String::new(),
                stderr: format!("cannot start: {e}"),
                elapsed: start.elapsed(),
            }
        }
    };
    let mut stdin = child.stdin.take();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(&data);
        }
        drop(stdin);
    });
    let mut out_pipe = child.stdout.take();
    let mut err_pipe = child.stderr.take();
    let out_t = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(p) = out_pipe.as_mut() {
            let _ = p.take(1 << 20).read_to_end(&mut s);
        }
        String::from_utf8_lossy(&s).into_owned()
    });
    let err_t = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(p) = err_pipe.as_mut() {
            let _ = p.take(1 << 20).read_to_end(&mut s);
        }
        String::from_utf8_lossy(&s).into_owned()
    });
    let exit = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st.code(),
            Ok(None) if start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let _ = writer.join();
    RunResult {
        exit,
        stdout: out_t.join().unwrap_or_default(),
        stderr: err_t.join().unwrap_or_default(),
        elapsed: start.elapsed(),
    }
}

/// Runs an installed hook command line as the harnesses do (`/bin/sh -c <line>`), with the
/// event on stdin and `INTENTSHIELD_DB` set to `db`.
pub fn run_line(line: &str, event: &Value, db: &Path, cwd: &Path, timeout: Duration) -> RunResult {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(line)
        .current_dir(cwd)
        .env("INTENTSHIELD_DB", db);
    run(cmd, event.to_string().as_bytes(), timeout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_harness_format() {
        let deny = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#;
        assert_eq!(
            interpret(Harness::Claude, Some(0), deny, ""),
            Answer::Deny("no".into())
        );
        assert_eq!(
            interpret(Harness::Codex, Some(2), "", "bad"),
            Answer::Deny("bad".into())
        );
        assert!(matches!(
            interpret(Harness::Codex, Some(2), "", ""),
            Answer::Failed(_)
        ));
        assert_eq!(
            interpret(
                Harness::Gemini,
                Some(0),
                r#"{"decision":"deny","reason":"r"}"#,
                ""
            ),
            Answer::Deny("r".into())
        );
        assert_eq!(
            interpret(
                Harness::Cursor,
                Some(0),
                r#"{"permission":"deny","user_message":"u","agent_message":"a"}"#,
                ""
            ),
            Answer::Deny("a".into())
        );
        assert_eq!(
            interpret(Harness::Cursor, Some(0), r#"{"permission":"allow"}"#, ""),
            Answer::Allow("".into())
        );
        assert_eq!(
            interpret(Harness::Claude, Some(0), "", ""),
            Answer::NoObjection
        );
        assert!(matches!(
            interpret(Harness::Claude, Some(1), "junk", ""),
            Answer::Failed(_)
        ));
        assert!(matches!(
            interpret(Harness::Claude, None, "", ""),
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
