//! The per-harness install specs: `adapters/<harness>.toml`, embedded at build time.
//!
//! Each file says which events we hook with which matcher, and the timeout and its unit. The
//! facts and their sources are in the comments of each TOML file (`../shared/hook-protocols.md`
//! §1.4, §2.4, §3.4, §4.4, §9, §10). Where the harness keeps its hook settings (per scope) and
//! its fail-closed switch are facts of the harness, in its `const SPEC`
//! ([`crate::harness::HarnessSpec`]). Parsed with `toml_edit` only by install/doctor/demo,
//! never on the hook path.

use crate::event::Harness;
use serde_json::Value;
use toml_edit::{DocumentMut, Item};

const CLAUDE: &str = include_str!("../../adapters/claude.toml");
const CODEX: &str = include_str!("../../adapters/codex.toml");
const CURSOR: &str = include_str!("../../adapters/cursor.toml");
const GEMINI: &str = include_str!("../../adapters/gemini.toml");

/// How a settings file lays out its hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Claude Code, Codex and Gemini CLI:
    /// `{"hooks": {"<Event>": [{"matcher": "...", "hooks": [<handler>]}]}}`.
    Grouped,
    /// Cursor: `{"version": 1, "hooks": {"<event>": [<script>]}}` (flat list of scripts).
    Flat,
}

/// One hooked event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventSpec {
    /// The harness's own event name (`PreToolUse`, `BeforeTool`, `preToolUse`, ...).
    pub name: String,
    /// The matcher to write, if any (a regex or `*`, per the harness's rules).
    pub matcher: Option<String>,
    /// Whether the fail-closed switch is set on this event's handler.
    pub fail_closed: bool,
}

/// What `install` writes for one harness.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The harness.
    pub harness: Harness,
    /// Human name ("Claude Code").
    pub display: String,
    /// Settings layout.
    pub layout: Layout,
    /// User-scope settings path; a leading `~/` is the home directory (for Codex, `~/.codex`
    /// is `$CODEX_HOME` when set).
    pub user_path: String,
    /// Project-scope settings path, relative to the project directory.
    pub project_path: String,
    /// Codex only: `config.toml`, next to the hooks file, holding `[features] hooks`.
    pub config_toml: Option<String>,
    /// Handler timeout, in `timeout_unit`.
    pub timeout: i64,
    /// `seconds` or `milliseconds` (Gemini CLI).
    pub timeout_unit: String,
    /// The fail-closed key and value (`onFailure: "block"`, `failClosed: true`), if any.
    pub fail_closed: Option<(String, Value)>,
    /// Handler `name` (Gemini CLI).
    pub handler_name: Option<String>,
    /// The events we hook, in the order they are written.
    pub events: Vec<EventSpec>,
    /// Whether the harness reads its settings with `//` and `/* */` comments (Gemini CLI
    /// strips them before parsing; the others parse plain JSON): install edits such a file
    /// keeping its comments ([`super::jsonc`]) instead of refusing it.
    pub comments: bool,
    /// What the user still has to do, for every scope.
    pub note_always: Option<String>,
    /// What the user still has to do, for project scope.
    pub note_project: Option<String>,
}

/// The embedded TOML text for a harness.
pub fn source(h: Harness) -> &'static str {
    match h {
        Harness::Claude => CLAUDE,
        Harness::Codex => CODEX,
        Harness::Cursor => CURSOR,
        Harness::Gemini => GEMINI,
    }
}

fn s(item: Option<&Item>) -> Option<String> {
    item.and_then(Item::as_str).map(str::to_string)
}

/// Parses the embedded spec of `h`.
///
/// # Errors
///
/// A message naming the adapter file and the missing or malformed key (a build-time bug; the
/// unit tests parse every spec).
pub fn load(h: Harness) -> Result<Spec, String> {
    let file = format!("adapters/{}.toml", h.name());
    let doc: DocumentMut = source(h).parse().map_err(|e| format!("{file}: {e}"))?;
    let need = |v: Option<String>, key: &str| v.ok_or_else(|| format!("{file}: missing `{key}`"));
    let layout = match need(s(doc.get("layout")), "layout")?.as_str() {
        "grouped" => Layout::Grouped,
        "flat" => Layout::Flat,
        other => return Err(format!("{file}: unknown layout `{other}`")),
    };
    let hs = h.spec();
    let handler = doc
        .get("handler")
        .ok_or_else(|| format!("{file}: missing [handler]"))?;
    let fail_closed = hs
        .fail_closed
        .map(|f| (f.key.to_string(), f.value.to_json()));
    let mut events = Vec::new();
    if let Some(arr) = doc.get("event").and_then(Item::as_array_of_tables) {
        for t in arr.iter() {
            events.push(EventSpec {
                name: t
                    .get("name")
                    .and_then(Item::as_str)
                    .ok_or_else(|| format!("{file}: [[event]] without name"))?
                    .to_string(),
                matcher: t.get("matcher").and_then(Item::as_str).map(str::to_string),
                fail_closed: t
                    .get("fail_closed")
                    .and_then(Item::as_bool)
                    .unwrap_or(false),
            });
        }
    }
    if events.is_empty() {
        return Err(format!("{file}: no [[event]]"));
    }
    let notes = doc.get("notes");
    Ok(Spec {
        harness: h,
        display: need(s(doc.get("display")), "display")?,
        layout,
        user_path: hs.settings.user.to_string(),
        project_path: hs.settings.project.to_string(),
        config_toml: hs.settings.config_toml.map(str::to_string),
        timeout: handler
            .get("timeout")
            .and_then(Item::as_integer)
            .ok_or_else(|| format!("{file}: missing handler.timeout"))?,
        timeout_unit: need(s(handler.get("timeout_unit")), "handler.timeout_unit")?,
        fail_closed,
        handler_name: s(handler.get("name")),
        events,
        comments: h == Harness::Gemini,
        note_always: notes.and_then(|n| s(n.get("always"))),
        note_project: notes.and_then(|n| s(n.get("project"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spec_parses_with_the_documented_units_and_switches() {
        for h in Harness::ALL {
            let spec = load(h).unwrap();
            assert_eq!(spec.harness, h);
            match h {
                Harness::Gemini => {
                    assert_eq!(spec.timeout_unit, "milliseconds");
                    assert!(spec.timeout >= 1000, "Gemini timeouts are in ms");
                    assert!(spec.fail_closed.is_none());
                }
                Harness::Codex => {
                    assert_eq!(spec.timeout_unit, "seconds");
                    assert!(spec.fail_closed.is_none());
                    assert!(spec.config_toml.is_some());
                }
                Harness::Claude => {
                    assert_eq!(
                        spec.fail_closed,
                        Some(("onFailure".into(), Value::from("block")))
                    );
                }
                Harness::Cursor => {
                    assert_eq!(spec.layout, Layout::Flat);
                    assert_eq!(
                        spec.fail_closed,
                        Some(("failClosed".into(), Value::Bool(true)))
                    );
                }
            }
        }
    }
}
