//! What each harness can do, as data: one `const SPEC: HarnessSpec` per harness
//! (`claude::SPEC`, `codex::SPEC`, `cursor::SPEC`, `gemini::SPEC`), reached with
//! [`Harness::spec`].
//!
//! The spec holds the harness's event-name table (the only list of its event names), where it
//! honours a rewrite of the arguments and an "ask", which events carry no call to stop, its
//! fail-closed switch, its settings files and the configuration files a write to which is code
//! execution. Sources: `../shared/hook-protocols.md` §0, §1-§4 (per harness), §9 and §10
//! (observed behaviour).

use crate::event::{EventKind, Harness};

/// One event name a harness sends, and what it means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookEvent {
    /// The harness's own name (`PreToolUse`, `beforeShellExecution`, `BeforeTool`, ...).
    pub name: &'static str,
    /// What it means in neutral terms.
    pub kind: EventKind,
    /// True when the event carries no call to stop (post-tool, session, stop): an internal
    /// error on it is reported without blocking anything.
    pub no_call: bool,
    /// True when the harness reads a permission from the answer (Cursor's six permission
    /// events; every pre-tool event elsewhere).
    pub permission: bool,
}

impl HookEvent {
    /// A pre-tool event: the answer is a permission.
    pub const fn pre(name: &'static str) -> HookEvent {
        HookEvent {
            name,
            kind: EventKind::PreTool,
            no_call: false,
            permission: true,
        }
    }

    /// A post-tool event: nothing left to stop.
    pub const fn post(name: &'static str) -> HookEvent {
        HookEvent {
            name,
            kind: EventKind::PostTool,
            no_call: true,
            permission: false,
        }
    }

    /// An event of the given kind that is neither pre- nor post-tool.
    pub const fn other(name: &'static str, kind: EventKind, no_call: bool) -> HookEvent {
        HookEvent {
            name,
            kind,
            no_call,
            permission: false,
        }
    }
}

/// A set of event names an ability applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Events {
    /// Every event.
    All,
    /// Only these events.
    Only(&'static [&'static str]),
    /// No event.
    Never,
}

impl Events {
    /// True when `event_name` is in the set.
    pub fn contains(&self, event_name: &str) -> bool {
        match self {
            Events::All => true,
            Events::Only(names) => names.contains(&event_name),
            Events::Never => false,
        }
    }
}

/// The value of a fail-closed switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchValue {
    /// A string value (`"block"`).
    Str(&'static str),
    /// A boolean value (`true`).
    Bool(bool),
}

impl SwitchValue {
    /// The value as JSON, the way install writes it.
    pub fn to_json(self) -> serde_json::Value {
        match self {
            SwitchValue::Str(s) => serde_json::Value::from(s),
            SwitchValue::Bool(b) => serde_json::Value::Bool(b),
        }
    }
}

/// The handler field that makes the harness block a call when the hook itself fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailClosed {
    /// The field name (`onFailure`, `failClosed`).
    pub key: &'static str,
    /// Its value (`"block"`, `true`).
    pub value: SwitchValue,
}

/// Where the harness keeps its hook settings, per scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettingsPaths {
    /// User scope; a leading `~/` is the home directory (for Codex, `~/.codex` is
    /// `$CODEX_HOME` when set).
    pub user: &'static str,
    /// Project scope, relative to the project directory.
    pub project: &'static str,
    /// Codex only: `config.toml`, next to the hooks file, holding `[features] hooks`.
    pub config_toml: Option<&'static str>,
}

/// Which files in the harness's configuration directory a write to is code execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigFiles {
    /// `settings*.json` (Claude Code's `settings.json`, `settings.local.json`).
    SettingsJson,
    /// Exactly these file names.
    Named(&'static [&'static str]),
}

/// The harness's configuration the guard protects from the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtectedConfig {
    /// The configuration directory's name (`.claude`, `.cursor`, ...), in the home directory
    /// and in projects.
    pub dir: &'static str,
    /// True when the whole directory in the home directory is protected (`~/.cursor`, ...);
    /// false for `~/.claude`, which also holds agents and transcripts.
    pub whole_home_dir: bool,
    /// The files protected in such a directory anywhere.
    pub files: ConfigFiles,
    /// The protection rule reported (`protect.cursor_config`, ...).
    pub rule: &'static str,
}

/// Everything the guard knows about what one harness can do.
#[derive(Debug, Clone, Copy)]
pub struct HarnessSpec {
    /// The harness.
    pub harness: Harness,
    /// Every event name the harness sends that we read; a name not in the table is
    /// [`EventKind::Other`].
    pub events: &'static [HookEvent],
    /// Where a rewrite of the arguments is honoured.
    pub rewrite: Events,
    /// Where "ask" prompts the user (elsewhere an ask is a deny that says how to approve).
    pub ask: Events,
    /// True when the harness's ask is used only on request (Gemini CLI: interactive sessions
    /// only, `--gemini-ask ask`).
    pub ask_opt_in: bool,
    /// True when every answer must be a JSON object (Cursor: invalid JSON on a permission
    /// event is a deny, and `{}` is "no opinion").
    pub always_json: bool,
    /// The fail-closed switch of the handler, where the harness has one.
    pub fail_closed: Option<FailClosed>,
    /// The hook settings files.
    pub settings: SettingsPaths,
    /// The configuration a write to which the guard denies.
    pub protected: ProtectedConfig,
}

impl HarnessSpec {
    /// The table entry for an event name, if the harness has it.
    pub fn event(&self, event_name: &str) -> Option<&'static HookEvent> {
        self.events.iter().find(|e| e.name == event_name)
    }

    /// The neutral kind of an event name; `None` for an event we do not read.
    pub fn kind(&self, event_name: &str) -> Option<EventKind> {
        self.event(event_name).map(|e| e.kind)
    }

    /// True when the harness applies rewritten arguments on this event (never on an event
    /// name the table does not know: what the harness reads from its answer is unknown).
    pub fn can_rewrite(&self, event_name: &str) -> bool {
        self.event(event_name).is_some() && self.rewrite.contains(event_name)
    }

    /// True for an event name the table does not know that was read as a tool call (it
    /// carried a tool name and arguments): its answer is the harness's most basic block, exit 2
    /// with the reason on stderr, or Cursor's deny JSON (see `crate::harness::render`).
    pub fn is_unknown_call(&self, event_name: &str, kind: EventKind) -> bool {
        kind == EventKind::PreTool && self.event(event_name).is_none()
    }

    /// True when an "ask" on this event prompts the user (for Gemini CLI, only when asked for:
    /// see [`HarnessSpec::ask_opt_in`]).
    pub fn can_ask(&self, event_name: &str) -> bool {
        self.ask.contains(event_name)
    }

    /// True for a post-tool event of this harness.
    pub fn is_post_tool(&self, event_name: &str) -> bool {
        self.kind(event_name) == Some(EventKind::PostTool)
    }

    /// True when the event carries no call to stop (post-tool, session, stop).
    pub fn carries_no_call(&self, event_name: &str) -> bool {
        self.event(event_name).is_some_and(|e| e.no_call)
    }

    /// True when the harness reads a permission from the answer to this event.
    pub fn is_permission_event(&self, event_name: &str) -> bool {
        self.event(event_name).is_some_and(|e| e.permission)
    }
}

impl Harness {
    /// What this harness can do: its one `const` spec.
    pub fn spec(self) -> &'static HarnessSpec {
        match self {
            Harness::Claude => &super::claude::SPEC,
            Harness::Codex => &super::codex::SPEC,
            Harness::Cursor => &super::cursor::SPEC,
            Harness::Gemini => &super::gemini::SPEC,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrite_and_ask_abilities() {
        assert!(Harness::Claude.spec().can_rewrite("PreToolUse"));
        assert!(Harness::Gemini.spec().can_rewrite("BeforeTool"));
        assert!(!Harness::Codex.spec().can_rewrite("PreToolUse"));
        assert!(Harness::Cursor.spec().can_rewrite("preToolUse"));
        assert!(!Harness::Cursor.spec().can_rewrite("beforeMCPExecution"));
        assert!(Harness::Cursor.spec().can_ask("beforeShellExecution"));
        assert!(!Harness::Cursor.spec().can_ask("preToolUse"));
        assert!(!Harness::Codex.spec().can_ask("PreToolUse"));
        assert!(Harness::Gemini.spec().ask_opt_in);
    }

    #[test]
    fn every_table_names_each_event_once() {
        for h in Harness::ALL {
            let s = h.spec();
            assert_eq!(s.harness, h);
            for (i, e) in s.events.iter().enumerate() {
                assert!(
                    s.events[i + 1..].iter().all(|o| o.name != e.name),
                    "{h:?} {}",
                    e.name
                );
                if e.kind == EventKind::PostTool {
                    assert!(e.no_call && s.is_post_tool(e.name));
                }
            }
        }
    }
}
