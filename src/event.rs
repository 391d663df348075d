//! The one harness-neutral event that every adapter produces.
//!
//! Each harness sends its own JSON (see `../shared/hook-protocols.md`, sections 1.2, 2.2, 3.2 and
//! 4.2); `crate::harness` reads it into an [`Event`], and everything behind the harness modules
//! (the policy, the state, the audit) sees only this type. A [`Tool`]'s neutral fields
//! (`command`, `read_paths`, `write_paths`, `patch`) are filled by [`Tool::new`] (in
//! `crate::harness::tool`, the one place that knows the argument field names), so nothing below
//! the harness modules reads a harness's argument names.

use serde_json::Value;

/// The harness that spawned the hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Harness {
    /// Anthropic Claude Code (`~/.claude/settings.json` hooks).
    Claude,
    /// OpenAI Codex CLI (`~/.codex/hooks.json` or `config.toml` hooks).
    Codex,
    /// Cursor (`~/.cursor/hooks.json`, `version: 1`).
    Cursor,
    /// Google Gemini CLI (`~/.gemini/settings.json` hooks).
    Gemini,
}

impl Harness {
    /// Every harness, in the order the CLI lists them.
    pub const ALL: [Harness; 4] = [
        Harness::Claude,
        Harness::Codex,
        Harness::Cursor,
        Harness::Gemini,
    ];

    /// The name used on the command line (`intentshield hook claude`) and in the audit.
    pub fn name(self) -> &'static str {
        match self {
            Harness::Claude => "claude",
            Harness::Codex => "codex",
            Harness::Cursor => "cursor",
            Harness::Gemini => "gemini",
        }
    }

    /// Parses a command-line name; `None` for anything else.
    pub fn from_name(name: &str) -> Option<Harness> {
        match name.trim().to_ascii_lowercase().as_str() {
            "claude" | "claude-code" | "claudecode" => Some(Harness::Claude),
            "codex" | "codex-cli" => Some(Harness::Codex),
            "cursor" => Some(Harness::Cursor),
            "gemini" | "gemini-cli" => Some(Harness::Gemini),
            _ => None,
        }
    }
}

/// What happened, in harness-neutral terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// The user submitted a prompt: Claude/Codex `UserPromptSubmit`, Cursor `beforeSubmitPrompt`,
    /// Gemini `BeforeAgent`. The prompt is trusted.
    PromptSubmit,
    /// A tool is about to run: Claude/Codex `PreToolUse`, Cursor `preToolUse`,
    /// `beforeShellExecution`, `beforeMCPExecution`, `beforeReadFile`, Gemini `BeforeTool`; and
    /// an event whose name the harness's table does not know but that carries a tool name and
    /// arguments (checked, and failing closed, like a before-tool event).
    PreTool,
    /// A tool has run: Claude/Codex `PostToolUse` (and Claude `PostToolUseFailure`), Cursor
    /// `postToolUse`, `afterShellExecution`, `afterMCPExecution`, Gemini `AfterTool`.
    PostTool,
    /// `SessionStart` / `sessionStart`: housekeeping, and the database records that it saw the
    /// session start (see [`Event::starts_session`]).
    SessionStart,
    /// `SessionEnd` / `sessionEnd`: housekeeping only.
    SessionEnd,
    /// Any other event (Stop, PreCompact, an unknown name without a tool call, ...): recorded,
    /// never objected to.
    Other,
}

impl EventKind {
    /// Stable lower-case name used in the audit trail.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::PromptSubmit => "prompt",
            EventKind::PreTool => "pre_tool",
            EventKind::PostTool => "post_tool",
            EventKind::SessionStart => "session_start",
            EventKind::SessionEnd => "session_end",
            EventKind::Other => "other",
        }
    }
}

/// What kind of tool is being called, whatever the harness calls it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// A tool of an MCP server (`Event::tool.mcp` names it).
    Mcp,
    /// A shell command (Claude `Bash`, Codex `Bash`, Cursor `Shell`, Gemini `run_shell_command`).
    Shell,
    /// Reading a file or listing/searching files (Claude `Read`, Gemini `read_file`, ...).
    FileRead,
    /// Writing, editing, deleting or patching files (Claude `Write`/`Edit`/`MultiEdit`,
    /// Codex `apply_patch`, Gemini `write_file`/`replace`, Cursor `Write`/`Delete`).
    FileWrite,
    /// Fetching a URL or searching the web (Claude `WebFetch`, Gemini `web_fetch`, Cursor `Fetch`).
    WebFetch,
    /// A built-in tool we have no specific rules for (Task, TodoWrite, ...).
    Other,
}

impl ToolKind {
    /// Stable lower-case name used in the audit trail and `check` output.
    pub fn name(self) -> &'static str {
        match self {
            ToolKind::Mcp => "mcp",
            ToolKind::Shell => "shell",
            ToolKind::FileRead => "file_read",
            ToolKind::FileWrite => "file_write",
            ToolKind::WebFetch => "web_fetch",
            ToolKind::Other => "other",
        }
    }
}

/// An MCP tool's identity: which server, which tool (the server's own name for it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpTool {
    /// Server name as configured in the harness (`mcpServers` key). Empty when the harness does
    /// not say (Cursor `preToolUse` gives only `MCP:<tool>`).
    pub server: String,
    /// The tool's name on that server.
    pub tool: String,
}

/// The tool a pre- or post-tool event is about.
///
/// Build it with [`Tool::new`], which derives the neutral fields from `input`; after changing
/// `input`, call [`Tool::set_input`] so they follow.
#[derive(Debug, Clone)]
pub struct Tool {
    /// The name exactly as the harness sent it (`mcp__github__create_issue`, `Bash`, ...).
    pub name: String,
    /// The normalized kind.
    pub kind: ToolKind,
    /// Set for MCP tools.
    pub mcp: Option<McpTool>,
    /// The arguments as a JSON value (Cursor's JSON-encoded string is decoded).
    pub input: Value,
    /// For shell tools, the command line (`command`, or Codex's `cmd`; an argv array is joined
    /// with each element quoted; any other shape is `""`). `None` for every other kind.
    pub command: Option<String>,
    /// For file-read tools, the files the arguments name (`file_path`, `path`,
    /// `absolute_path`, ...); empty for every other kind.
    pub read_paths: Vec<String>,
    /// Files the call writes as its arguments name them: file-writing tools' path fields
    /// (`edits[].file_path` too) or a Codex `apply_patch`'s targets, and for a shell call the
    /// targets of a patch its command applies (its other writes come from the shell analysis);
    /// empty for every other kind.
    pub write_paths: Vec<String>,
    /// The patch text of an `apply_patch` call; `None` for every other tool.
    pub patch: Option<String>,
    /// For shell tools whose command cannot be read as the harness would run it, why (a
    /// `command` that is an object, a number or missing, an argv array outside the Codex argv
    /// tools, or `command` and `cmd` that disagree); the built-in check denies such a call as
    /// unanalysable. `None` for a command line we analyse and for every other kind.
    pub unanalysable: Option<String>,
    /// True when the harness runs a shell tool's argv array as argv (Codex CLI, whose shell
    /// tools take `["bash", "-lc", "…"]`), so such an array is analysed with each element
    /// quoted; elsewhere an array is [`Tool::unanalysable`]. Set with [`Tool::with_argv`].
    pub argv: bool,
}

impl Tool {
    /// The name that rules and `read_only_tools` look at: `server/tool` for MCP tools, the
    /// harness's name otherwise.
    pub fn display_name(&self) -> String {
        match &self.mcp {
            Some(m) if !m.server.is_empty() => format!("{}/{}", m.server, m.tool),
            Some(m) => m.tool.clone(),
            None => self.name.clone(),
        }
    }

    /// The shell command line, for shell tools ([`Tool::command`]): never `None` for a shell
    /// call, so a shell call is never left unchecked.
    pub fn shell_command(&self) -> Option<std::borrow::Cow<'_, str>> {
        self.command.as_deref().map(std::borrow::Cow::Borrowed)
    }
}

/// One hook event, normalized.
#[derive(Debug, Clone)]
pub struct Event {
    /// Which harness sent it.
    pub harness: Harness,
    /// What happened.
    pub kind: EventKind,
    /// The harness's own event name (`PreToolUse`, `beforeMCPExecution`, `BeforeTool`, ...).
    pub event_name: String,
    /// The harness's session id (Cursor: `conversation_id` when `session_id` is absent).
    pub session_id: String,
    /// Working directory of the agent, when the harness sends one.
    pub cwd: Option<String>,
    /// The user's prompt, for [`EventKind::PromptSubmit`].
    pub prompt: Option<String>,
    /// The tool, for pre- and post-tool events.
    pub tool: Option<Tool>,
    /// The tool's output flattened to text, for post-tool events (MCP content blocks joined,
    /// Claude's `{stdout, stderr}` joined, Gemini's `llmContent` unwrapped).
    pub output: Option<String>,
    /// True when the harness marked the result as an error.
    pub output_is_error: bool,
    /// A session-start event's `source` as the harness sent it (Claude Code and Codex CLI:
    /// `startup`, `resume`, `clear`, `compact`, Claude Code also `fork`; Gemini CLI: `startup`,
    /// `resume`, `clear`; Cursor sends none), at most [`MAX_SOURCE`] characters. `None` on every
    /// other event and when the field is absent.
    pub source: Option<String>,
    /// A prompt event's `transcript_path` (the harness's record of the conversation), at most
    /// [`MAX_TRANSCRIPT_PATH`] bytes; `None` on every other event and when absent. A
    /// transcript older than the database shows that a session whose first event the database
    /// sees is a prompt began before it (see `state::Store::touch_session`).
    pub transcript: Option<String>,
}

/// Longest `transcript_path` kept (bytes); a longer one is ignored.
pub const MAX_TRANSCRIPT_PATH: usize = 4096;

/// Longest `source` kept (characters): the known values are short words; a longer one is
/// unknown anyway.
pub const MAX_SOURCE: usize = 32;

impl Event {
    /// A blank event of the given harness and kind; the harness parser fills in the rest.
    pub fn new(harness: Harness, kind: EventKind, event_name: &str) -> Event {
        Event {
            harness,
            kind,
            event_name: event_name.to_string(),
            session_id: String::new(),
            cwd: None,
            prompt: None,
            tool: None,
            output: None,
            output_is_error: false,
            source: None,
            transcript: None,
        }
    }

    /// True when this event starts a session: a prompt (Claude Code and Codex CLI
    /// `UserPromptSubmit`, Cursor `beforeSubmitPrompt`, Gemini CLI `BeforeAgent`), or a session
    /// start whose `source` is absent (Cursor's `sessionStart` has none), `startup` or `clear`
    /// (a new, empty conversation). A `resume`, `compact` or `fork` continues a conversation
    /// that already holds earlier tool results, and an unknown source may too, so they are no
    /// start: a session the database first sees on such an event is treated as tainted
    /// (`crate::state::Store::touch_session`).
    pub fn starts_session(&self) -> bool {
        match self.kind {
            EventKind::PromptSubmit => true,
            EventKind::SessionStart => {
                matches!(self.source.as_deref(), None | Some("startup" | "clear"))
            }
            _ => false,
        }
    }
}
