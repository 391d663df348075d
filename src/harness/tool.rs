//! The neutral tool fields, derived from a call's arguments.
//!
//! This is the one place that knows the argument field names of every harness's built-in
//! tools (`file_path`, `notebook_path`, `target_file`, `absolute_path`, `dir_path`, `command`,
//! `cmd`, ...). The lists are the union over the harnesses, so a [`Tool`] built by any harness
//! parser, by the MCP proxy or by a test gets the same fields from the same arguments.

use super::codex::patch_targets;
use crate::event::{McpTool, Tool, ToolKind};
use serde_json::Value;

/// Argument fields that name a file a tool reads.
const READ_KEYS: [&str; 5] = [
    "file_path",
    "path",
    "absolute_path",
    "filePath",
    "target_file",
];

/// Argument fields that name a file a tool writes.
const WRITE_KEYS: [&str; 7] = [
    "file_path",
    "path",
    "notebook_path",
    "target_file",
    "filePath",
    "absolute_path",
    "dir_path",
];

/// Argument fields that may hold the text of a Codex `apply_patch`.
const PATCH_KEYS: [&str; 3] = ["command", "input", "patch"];

impl Tool {
    /// A tool with its neutral fields ([`Tool::command`], [`Tool::read_paths`],
    /// [`Tool::write_paths`], [`Tool::patch`]) derived from `input`: read paths for file-read
    /// tools, write paths for file-writing tools (and patches applied through a shell), the
    /// command for shell tools, the patch text for `apply_patch`.
    pub fn new(name: &str, kind: ToolKind, mcp: Option<McpTool>, input: Value) -> Tool {
        let mut t = Tool {
            name: name.to_string(),
            kind,
            mcp,
            input,
            command: None,
            read_paths: Vec::new(),
            write_paths: Vec::new(),
            patch: None,
            unanalysable: None,
            argv: ARGV_TOOLS.contains(&name),
        };
        t.derive();
        t
    }

    /// Marks the tool as one whose harness runs an argv array as argv ([`Tool::argv`]: Codex
    /// CLI) and derives the neutral fields again.
    pub fn with_argv(mut self) -> Tool {
        self.argv = true;
        self.derive();
        self
    }

    /// Replaces the arguments (a rewrite) and derives the neutral fields again.
    pub fn set_input(&mut self, input: Value) {
        self.input = input;
        self.derive();
    }

    fn derive(&mut self) {
        self.command = shell_command(self.kind, &self.input);
        self.unanalysable = match self.kind {
            ToolKind::Shell => command_problem(self.argv, &self.input),
            _ => None,
        };
        self.read_paths = match self.kind {
            ToolKind::FileRead => string_fields(&self.input, &READ_KEYS),
            _ => Vec::new(),
        };
        self.patch = (self.name == "apply_patch").then(|| patch_text(&self.input));
        self.write_paths = if self.kind != ToolKind::FileWrite && self.kind != ToolKind::Shell {
            Vec::new()
        } else if self.name == "apply_patch" {
            let mut out = Vec::new();
            for key in PATCH_KEYS {
                if let Some(p) = self.input.get(key).and_then(Value::as_str) {
                    out.extend(patch_targets(p));
                }
            }
            if let Value::String(p) = &self.input {
                out.extend(patch_targets(p));
            }
            out
        } else if self.kind == ToolKind::Shell {
            // Codex's `apply_patch` run through the shell (`apply_patch <<'EOF' … EOF`); the
            // command's other writes come from the shell analysis.
            match &self.command {
                Some(c) if c.contains("*** Begin Patch") => patch_targets(c),
                _ => Vec::new(),
            }
        } else {
            let mut out = string_fields(&self.input, &WRITE_KEYS);
            if let Some(edits) = self.input.get("edits").and_then(Value::as_array) {
                for e in edits {
                    if let Some(p) = e.get("file_path").and_then(Value::as_str) {
                        out.push(p.to_string());
                    }
                }
            }
            out
        };
    }
}

fn string_fields(input: &Value, keys: &[&str]) -> Vec<String> {
    keys.iter()
        .filter_map(|k| input.get(*k).and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

/// The shell command line of a shell tool (`command`, or Codex's `cmd`). An argv array
/// (`["bash", "-lc", "..."]`) is joined with spaces, each element quoted, so its script is
/// analysed too; any other shape gives `Some("")`, never `None`, so a shell call is never left
/// unchecked.
fn shell_command(kind: ToolKind, input: &Value) -> Option<String> {
    if kind != ToolKind::Shell {
        return None;
    }
    let v = match input {
        Value::String(s) => return Some(s.clone()),
        v => v.get("command").or_else(|| v.get("cmd")),
    };
    Some(match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                let w = x.as_str().map_or_else(|| x.to_string(), str::to_string);
                // Quote each element so the shell analysis sees argv as it was.
                format!("'{}'", w.replace('\'', "'\\''"))
            })
            .collect::<Vec<_>>()
            .join(" "),
        Some(other) => other.to_string(),
        None => String::new(),
    })
}

/// Shell tools whose `command` (or `cmd`) is an argv array in the harness's own format: the
/// Codex CLI tools that run argv directly (`shell`, `local_shell`, `exec_command`;
/// hook-protocols.md §2.2, older Codex builds and the model-facing tool). Every other shell tool
/// (Claude Code and Codex `Bash`, Cursor `Shell`, Gemini CLI `run_shell_command`) takes one
/// command string.
const ARGV_TOOLS: [&str; 3] = ["shell", "local_shell", "exec_command"];

/// Why a shell tool's command cannot be analysed as the harness would run it, or `None`: the
/// arguments are a command string, or an object whose `command` / `cmd` is a string (both
/// present must agree), or, when the harness runs argv (`argv`: [`ARGV_TOOLS`], or any shell
/// tool of Codex CLI), an array of strings. Anything else (an object,
/// a number, a boolean, null, a missing command, an array elsewhere or with a non-string
/// element) is a shape the harness may run differently from what we would check (a
/// JavaScript harness turns `["a", "b; c"]` into `"a,b; c"`).
fn command_problem(argv: bool, input: &Value) -> Option<String> {
    let obj = match input {
        Value::String(_) => return None,
        Value::Object(o) => o,
        other => return Some(format!("arguments are {}, not an object", json_type(other))),
    };
    let present = |k: &str| obj.get(k).filter(|v| !v.is_null());
    let v = match (present("command"), present("cmd")) {
        (None, None) => return Some("arguments hold no command".into()),
        (Some(a), Some(b)) if a != b => {
            return Some("arguments hold two different commands (`command` and `cmd`)".into())
        }
        (Some(v), _) | (None, Some(v)) => v,
    };
    match v {
        Value::String(_) => None,
        Value::Array(a) if argv => a
            .iter()
            .find(|x| !x.is_string())
            .map(|x| format!("command is an argv array holding {}", json_type(x))),
        other => Some(format!("command is {}, not a string", json_type(other))),
    }
}

/// "an object", "a number", ... for messages.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The patch text of an `apply_patch` call: `command`, `input` or `patch`, or the arguments
/// themselves when they are a string.
fn patch_text(input: &Value) -> String {
    input
        .get("command")
        .or_else(|| input.get("input"))
        .or_else(|| input.get("patch"))
        .and_then(Value::as_str)
        .or(input.as_str())
        .unwrap_or("")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, kind: ToolKind, input: Value) -> Tool {
        Tool::new(name, kind, None, input)
    }

    #[test]
    fn shell_command_shapes() {
        let t = tool("Bash", ToolKind::Shell, json!({"command": "ls -l"}));
        assert_eq!(t.shell_command().as_deref(), Some("ls -l"));
        let t = tool(
            "shell",
            ToolKind::Shell,
            json!({"cmd": ["bash", "-lc", "it's"]}),
        );
        assert_eq!(
            t.shell_command().as_deref(),
            Some("'bash' '-lc' 'it'\\''s'")
        );
        let t = tool("Bash", ToolKind::Shell, json!({"other": 1}));
        assert_eq!(t.shell_command().as_deref(), Some(""));
        let t = tool("Bash", ToolKind::Shell, json!({"command": {"a": 1}}));
        assert_eq!(t.shell_command().as_deref(), Some("{\"a\":1}"));
        let t = tool("Bash", ToolKind::Shell, json!("echo hi"));
        assert_eq!(t.shell_command().as_deref(), Some("echo hi"));
        let t = tool("Read", ToolKind::FileRead, json!({"command": "ls"}));
        assert_eq!(t.shell_command(), None);
    }

    #[test]
    fn commands_that_are_not_strings_are_unanalysable() {
        let why = |name: &str, input: Value| tool(name, ToolKind::Shell, input).unanalysable;
        assert_eq!(why("Bash", json!({"command": "ls"})), None);
        assert_eq!(why("Bash", json!("ls")), None);
        assert_eq!(why("Bash", json!({"command": "ls", "cmd": "ls"})), None);
        assert_eq!(why("exec_command", json!({"cmd": ["ls", "-l"]})), None);
        assert_eq!(
            why("shell", json!({"command": ["bash", "-lc", "ls"]})),
            None
        );
        assert_eq!(
            why("Bash", json!({"command": {"argv": ["sh"]}})).as_deref(),
            Some("command is an object, not a string")
        );
        assert_eq!(
            why("Bash", json!({"command": ["ls"]})).as_deref(),
            Some("command is an array, not a string")
        );
        assert!(why("Bash", json!({"command": 1})).is_some());
        assert!(why("run_shell_command", json!({"dir_path": "/x"})).is_some());
        assert!(why("Bash", json!({"command": "ls", "cmd": "rm -rf /"})).is_some());
        assert!(why("shell", json!({"command": ["ls", 1]})).is_some());
        assert!(why("Bash", json!(null)).is_some());
        // Codex CLI runs argv arrays of every shell tool as argv.
        let t = tool("Bash", ToolKind::Shell, json!({"command": ["ls"]})).with_argv();
        assert_eq!(t.unanalysable, None);
        // Other kinds are never unanalysable here.
        assert_eq!(
            tool("Read", ToolKind::FileRead, json!({"command": 1})).unanalysable,
            None
        );
    }

    #[test]
    fn read_and_write_paths() {
        let t = tool(
            "read_file",
            ToolKind::FileRead,
            json!({"absolute_path": "/a", "file_path": "/b", "dir_path": "/c"}),
        );
        assert_eq!(t.read_paths, vec!["/b", "/a"]);
        assert!(t.write_paths.is_empty());
        let t = tool(
            "MultiEdit",
            ToolKind::FileWrite,
            json!({"notebook_path": "/n", "edits": [{"file_path": "/e"}]}),
        );
        assert_eq!(t.write_paths, vec!["/n", "/e"]);
        assert!(t.read_paths.is_empty());
        assert_eq!(t.patch, None);
    }

    #[test]
    fn apply_patch_targets_and_text() {
        let p = "*** Begin Patch\n*** Add File: a.sh\n+x\n*** End Patch";
        let t = tool("apply_patch", ToolKind::FileWrite, json!({ "command": p }));
        assert_eq!(t.write_paths, vec!["a.sh"]);
        assert_eq!(t.patch.as_deref(), Some(p));
        let t = tool("apply_patch", ToolKind::FileWrite, json!(p));
        assert_eq!(t.write_paths, vec!["a.sh"]);
        assert_eq!(t.patch.as_deref(), Some(p));
        let t = tool(
            "Bash",
            ToolKind::Shell,
            json!({ "command": format!("apply_patch <<'EOF'\n{p}\nEOF") }),
        );
        assert_eq!(t.write_paths, vec!["a.sh"]);
        let t = tool(
            "run_shell_command",
            ToolKind::Shell,
            json!({"command": "ls", "dir_path": "/x"}),
        );
        assert!(t.write_paths.is_empty());
    }

    #[test]
    fn set_input_derives_again() {
        let mut t = tool("Bash", ToolKind::Shell, json!({"command": "ls"}));
        t.set_input(json!({"command": "pwd"}));
        assert_eq!(t.shell_command().as_deref(), Some("pwd"));
    }
}
