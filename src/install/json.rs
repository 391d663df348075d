//! Merging our entries into JSON settings files, keeping every other key, value and key order
//! (serde_json's `preserve_order`), and the file's indentation, line endings and final newline.
//!
//! Layouts (`spec::Layout`): Claude Code, Codex `hooks.json` and Gemini CLI group handlers
//! under a matcher; Cursor keeps a flat list per event and needs `"version": 1` (§3.4).

use super::command::is_ours;
use super::spec::{EventSpec, Layout, Spec};
use super::InstallError;
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::Path;

/// The layout of a file's text, so a rewrite looks like the original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Style {
    /// One indentation step; `None` for a file written on a single line.
    pub indent: Option<String>,
    /// Whether the file ended with a newline.
    pub trailing_newline: bool,
    /// Whether lines end in `\r\n`.
    pub crlf: bool,
}

impl Default for Style {
    /// What Claude Code, Gemini CLI and Cursor write: two spaces, final newline.
    fn default() -> Style {
        Style {
            indent: Some("  ".into()),
            trailing_newline: true,
            crlf: false,
        }
    }
}

/// Works out the style of an existing file (empty text gives the default style).
pub fn detect_style(text: &str) -> Style {
    if text.trim().is_empty() {
        return Style::default();
    }
    let crlf = text.contains("\r\n");
    let trailing_newline = text.ends_with('\n');
    let body = text.trim_end();
    let indent = if !body.contains('\n') {
        None
    } else {
        body.lines()
            .skip(1)
            .map(|l| {
                let n = l.len() - l.trim_start_matches([' ', '\t']).len();
                &l[..n]
            })
            .find(|w| !w.is_empty())
            .map(str::to_string)
            .or(Some("  ".into()))
    };
    Style {
        indent,
        trailing_newline,
        crlf,
    }
}

/// Renders a document in a style.
pub fn render(doc: &Map<String, Value>, style: &Style) -> String {
    let mut out = match &style.indent {
        None => serde_json::to_string(doc).unwrap_or_default(),
        Some(ind) => {
            let mut buf = Vec::new();
            let fmt = serde_json::ser::PrettyFormatter::with_indent(ind.as_bytes());
            let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
            // Serializing a Map of Values into a Vec cannot fail.
            let _ = doc.serialize(&mut ser);
            String::from_utf8(buf).unwrap_or_default()
        }
    };
    if style.crlf {
        out = out.replace('\n', "\r\n");
    }
    if style.trailing_newline {
        out.push_str(if style.crlf { "\r\n" } else { "\n" });
    }
    out
}

/// Parses a settings file's text; empty or blank text is an empty object. A file with `//`
/// or `/* */` comments (JSONC, which Gemini CLI reads) is parsed too ([`parse_text`] says
/// which it was).
///
/// # Errors
///
/// An [`InstallError`] at `path`: `<line>:<column>: not valid JSON (<parser message>); the
/// file was not changed`, or `the top level is not a JSON object`.
pub fn parse(path: &Path, text: &str) -> Result<Map<String, Value>, InstallError> {
    parse_text(path, text).map(|(doc, _)| doc)
}

/// Parses a settings file's text, and says whether it needed the comment-allowing parser
/// ([`super::jsonc`]): `true` for a file with comments.
///
/// # Errors
///
/// As [`parse`]. When neither parser reads the text, the error is the one found further into
/// the file (a comment before a real mistake is not the mistake).
pub fn parse_text(path: &Path, text: &str) -> Result<(Map<String, Value>, bool), InstallError> {
    if text.trim().is_empty() {
        return Ok((Map::new(), false));
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let e = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => return Ok((m, false)),
        Ok(_) => return Err(InstallError::at(path, "the top level is not a JSON object")),
        Err(e) => e,
    };
    let strict = InstallError::at(
        path,
        format!(
            "{}:{}: not valid JSON ({}); the file was not changed",
            e.line(),
            e.column(),
            strip_position(&e.to_string())
        ),
    );
    if !text.contains("//") && !text.contains("/*") {
        return Err(strict);
    }
    match super::jsonc::parse(path, text) {
        Ok(m) => Ok((m, true)),
        Err(j) if position(&j) > (e.line(), e.column()) => Err(j),
        Err(_) => Err(strict),
    }
}

/// The `line:column` an error message starts with ((0, 0) when it has none).
fn position(e: &InstallError) -> (usize, usize) {
    let mut it = e.message.split(':');
    match (it.next().map(str::parse), it.next().map(str::parse)) {
        (Some(Ok(l)), Some(Ok(c))) => (l, c),
        _ => (0, 0),
    }
}

fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// Whether a handler object (grouped layout) or script object (flat layout) is ours.
pub fn handler_is_ours(h: &Value) -> bool {
    let Some(cmd) = h.get("command").and_then(Value::as_str) else {
        return false;
    };
    let args: Option<Vec<String>> = h.get("args").and_then(Value::as_array).map(|a| {
        a.iter()
            .map(|x| x.as_str().unwrap_or("").to_string())
            .collect()
    });
    is_ours(cmd, args.as_deref())
}

/// The handler object for one event (grouped layout).
pub fn handler_json(spec: &Spec, ev: &EventSpec, line: &str) -> Value {
    let mut m = Map::new();
    if spec.layout == Layout::Grouped {
        m.insert("type".into(), "command".into());
    }
    if let Some(n) = &spec.handler_name {
        m.insert("name".into(), n.clone().into());
    }
    m.insert("command".into(), line.into());
    if spec.layout == Layout::Flat {
        if let Some(mt) = &ev.matcher {
            m.insert("matcher".into(), mt.clone().into());
        }
    }
    m.insert("timeout".into(), spec.timeout.into());
    if ev.fail_closed {
        if let Some((k, v)) = &spec.fail_closed {
            m.insert(k.clone(), v.clone());
        }
    }
    Value::Object(m)
}

/// The whole entry we add to an event's list: a group (grouped) or a script (flat).
pub fn entry_json(spec: &Spec, ev: &EventSpec, line: &str) -> Value {
    let h = handler_json(spec, ev, line);
    match spec.layout {
        Layout::Flat => h,
        Layout::Grouped => {
            let mut g = Map::new();
            if let Some(mt) = &ev.matcher {
                g.insert("matcher".into(), mt.clone().into());
            }
            g.insert("hooks".into(), Value::Array(vec![h]));
            Value::Object(g)
        }
    }
}

fn hooks_obj<'a>(
    path: &Path,
    doc: &'a mut Map<String, Value>,
    create: bool,
) -> Result<Option<&'a mut Map<String, Value>>, InstallError> {
    if !doc.contains_key("hooks") {
        if !create {
            return Ok(None);
        }
        doc.insert("hooks".into(), Value::Object(Map::new()));
    }
    match doc.get_mut("hooks") {
        Some(Value::Object(m)) => Ok(Some(m)),
        _ => Err(InstallError::at(
            path,
            "\"hooks\" is not an object; the file was not changed",
        )),
    }
}

/// Counts our handlers inside one list entry: (ours, total) for a group, (1|0, 1) for a script.
fn ours_in(layout: Layout, entry: &Value) -> (usize, usize) {
    match layout {
        Layout::Flat => (usize::from(handler_is_ours(entry)), 1),
        Layout::Grouped => match entry.get("hooks").and_then(Value::as_array) {
            Some(hs) => (hs.iter().filter(|h| handler_is_ours(h)).count(), hs.len()),
            None => (0, 0),
        },
    }
}

/// Removes our handlers from one event list; entries left with no handler are dropped.
fn strip_ours(layout: Layout, list: Vec<Value>) -> Vec<Value> {
    let mut out = Vec::with_capacity(list.len());
    for mut e in list {
        let (ours, total) = ours_in(layout, &e);
        if ours == 0 {
            out.push(e);
        } else if ours < total {
            if let Some(Value::Array(hs)) = e.get_mut("hooks") {
                hs.retain(|h| !handler_is_ours(h));
            }
            out.push(e);
        }
    }
    out
}

/// Adds or refreshes our entries in a parsed document. Our entry for an event replaces, in
/// place, the first entry that held only our handlers; other entries of ours for that event
/// (and for events we no longer hook) are removed; everyone else's entries are untouched.
///
/// # Errors
///
/// An [`InstallError`] at `path` when `"hooks"` is not an object or one of its values is not a
/// list (`...; the file was not changed`); `doc` may already have gained the flat layout's
/// `"version"` key (the callers discard it).
pub fn install_doc(
    path: &Path,
    spec: &Spec,
    line: &str,
    doc: &mut Map<String, Value>,
) -> Result<(), InstallError> {
    if spec.layout == Layout::Flat && !doc.contains_key("version") {
        doc.shift_insert(0, "version".into(), Value::from(1));
    }
    let hooks = hooks_obj(path, doc, true)?.expect("created");
    for (key, val) in hooks.iter() {
        if !val.is_array() {
            return Err(InstallError::at(
                path,
                format!("\"hooks\".\"{key}\" is not a list; the file was not changed"),
            ));
        }
    }
    let wanted: Vec<&str> = spec.events.iter().map(|e| e.name.as_str()).collect();
    let stale: Vec<String> = hooks
        .keys()
        .filter(|k| !wanted.contains(&k.as_str()))
        .cloned()
        .collect();
    for key in stale {
        let list = match hooks.get_mut(&key) {
            Some(Value::Array(a)) => std::mem::take(a),
            _ => continue,
        };
        let had = list.len();
        let kept = strip_ours(spec.layout, list);
        let empty_now = kept.is_empty() && had > 0;
        hooks.insert(key.clone(), Value::Array(kept));
        if empty_now {
            hooks.shift_remove(&key);
        }
    }
    for ev in &spec.events {
        let desired = entry_json(spec, ev, line);
        let list = match hooks.get_mut(&ev.name) {
            Some(Value::Array(a)) => std::mem::take(a),
            _ => Vec::new(),
        };
        let mut out = Vec::with_capacity(list.len() + 1);
        let mut placed = false;
        for e in list {
            let (ours, total) = ours_in(spec.layout, &e);
            if ours > 0 && ours == total {
                if !placed {
                    out.push(desired.clone());
                    placed = true;
                }
            } else if ours > 0 {
                out.extend(strip_ours(spec.layout, vec![e]));
            } else {
                out.push(e);
            }
        }
        if !placed {
            out.push(desired);
        }
        hooks.insert(ev.name.clone(), Value::Array(out));
    }
    Ok(())
}

/// Removes every entry of ours. Lists, the `hooks` object, that we leave empty are removed.
///
/// # Errors
///
/// An [`InstallError`] at `path` when `"hooks"` is not an object (`"hooks" is not an object;
/// the file was not changed`); `doc` is then unchanged.
pub fn uninstall_doc(
    path: &Path,
    layout: Layout,
    doc: &mut Map<String, Value>,
) -> Result<(), InstallError> {
    let Some(hooks) = hooks_obj(path, doc, false)? else {
        return Ok(());
    };
    let had_any = !hooks.is_empty();
    let keys: Vec<String> = hooks.keys().cloned().collect();
    for key in keys {
        let list = match hooks.get_mut(&key) {
            Some(Value::Array(a)) => std::mem::take(a),
            _ => continue,
        };
        let had = list.len();
        let changed = list.iter().any(|e| ours_in(layout, e).0 > 0);
        let kept = strip_ours(layout, list);
        let empty_now = kept.is_empty() && had > 0 && changed;
        hooks.insert(key.clone(), Value::Array(kept));
        if empty_now {
            hooks.shift_remove(&key);
        }
    }
    if had_any && hooks.is_empty() {
        doc.shift_remove("hooks");
    }
    Ok(())
}

/// Whether a document holds nothing but what install itself creates in an empty file.
pub fn is_trivial(layout: Layout, doc: &Map<String, Value>) -> bool {
    match layout {
        Layout::Grouped => doc.is_empty(),
        Layout::Flat => doc
            .iter()
            .all(|(k, v)| k == "version" && v == &Value::from(1)),
    }
}

/// Compact canonical text, to compare documents including key order.
pub fn canonical(doc: &Map<String, Value>) -> String {
    serde_json::to_string(doc).unwrap_or_default()
}
