//! `intentshield wrap FILE` / `unwrap FILE`: put the MCP proxy in front of every stdio server of
//! an MCP configuration file, and take it away again.
//!
//! Formats (`../shared/hook-protocols.md` §5): JSON files with `mcpServers` (Claude Code
//! `.mcp.json` and `~/.claude.json`, including `projects.<path>.mcpServers`; Cursor `mcp.json`;
//! Gemini CLI `settings.json`; Claude Desktop; Windsurf) or `servers` (VS Code
//! `.vscode/mcp.json`), comments and trailing commas allowed (JSONC); and Codex `config.toml`
//! (`[mcp_servers.NAME]`, edited with `toml_edit`, so comments and layout survive).
//!
//! The wrap rule: `command` becomes this binary, `args` becomes
//! `["mcp-proxy","--name",NAME,"--",<command>,<args>...]`; every other key (`env`, `cwd`,
//! `envFile`, ...) is left as it is, and no key is added to an entry except `args` where it
//! was missing. Entries reached by URL (`url`, `httpUrl`, `serverUrl`) are left alone, with a
//! note. JSON files are edited in place, text span by text span, so the rest of the file keeps
//! its bytes; `unwrap` puts the original text of `command` and `args` back, so wrap then unwrap
//! gives the original file byte for byte.
//!
//! The original `command`/`args` text goes to a sidecar file next to the config
//! (`<file>.intentshield-wrap.json`, mode 0600). `env` values are never read into it. Without
//! the sidecar, `unwrap` rebuilds the entries from the proxy arguments.
//!
//! Writes are atomic (a temporary file in the same directory, the original's permissions,
//! then a rename), keep one backup (`<file>.intentshield-wrap.bak`, the content before the
//! last change, with the file's permissions), change nothing when the file does not parse, and
//! are idempotent.

use crate::install::fsutil;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// Keys of entries reached by URL.
const URL_KEYS: &[&str] = &["url", "httpUrl", "serverUrl"];

/// What one run did or would do.
#[derive(Debug, Default, Clone)]
pub struct Outcome {
    /// Servers wrapped or unwrapped (display path like `mcpServers.fs`).
    pub changed: Vec<String>,
    /// Notes for people: URL servers left alone, already-wrapped entries, skipped entries.
    pub notes: Vec<String>,
    /// The new file text (unchanged text when nothing changed).
    pub text: String,
}

/// The sidecar file of a config file: `<file>.intentshield-wrap.json`, next to it
/// (`.mcp.json` gets `.mcp.json.intentshield-wrap.json`).
pub fn sidecar_path(file: &Path) -> PathBuf {
    suffixed(file, ".intentshield-wrap.json")
}

/// Where earlier builds kept the sidecar, `.<file>.intentshield-wrap.json` (which made
/// `..mcp.json.intentshield-wrap.json`): still read, and removed on the next write.
pub fn old_sidecar_path(file: &Path) -> PathBuf {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    file.with_file_name(format!(".{name}.intentshield-wrap.json"))
}

/// The backup file of a config file: `<file>.intentshield-wrap.bak`, the text before the
/// last wrap or unwrap. Not `install`'s `<file>.intentshield.bak`: Gemini CLI's
/// `settings.json` and Codex's `config.toml` are edited by both, and install's backup keeps
/// the text from before its first install.
pub fn backup_path(file: &Path) -> PathBuf {
    suffixed(file, ".intentshield-wrap.bak")
}

fn suffixed(file: &Path, suffix: &str) -> PathBuf {
    let mut s = file.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

fn is_toml(file: &Path) -> bool {
    file.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}

/// True when `args` already starts the proxy (`["mcp-proxy", ...]`).
fn is_wrapped_args(args: &[String]) -> bool {
    args.first().map(String::as_str) == Some("mcp-proxy")
}

/// The proxy arguments for one server.
pub fn proxy_args(name: &str, command: &str, args: &[String]) -> Vec<String> {
    let mut v = vec![
        "mcp-proxy".to_string(),
        "--name".to_string(),
        name.to_string(),
        "--".to_string(),
        command.to_string(),
    ];
    v.extend(args.iter().cloned());
    v
}

/// The original command and args inside proxy arguments, if they are ours.
pub fn original_from_proxy_args(args: &[String]) -> Option<(String, Vec<String>)> {
    if !is_wrapped_args(args) {
        return None;
    }
    let i = args.iter().position(|a| a == "--")?;
    let cmd = args.get(i + 1)?.clone();
    Some((cmd, args[i + 2..].to_vec()))
}

// ---------------------------------------------------------------------------------------------
// JSONC with spans.

#[derive(Debug)]
enum Node {
    Obj(Vec<Member>),
    Arr,
    Scalar,
}

#[derive(Debug)]
struct Member {
    key: String,
    /// Start of the key's opening quote.
    key_start: usize,
    /// Span of the value.
    start: usize,
    end: usize,
    node: Node,
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> String {
        let before = &self.s[..self.i.min(self.s.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        format!("line {line}, column {col}: {what}")
    }

    fn ws(&mut self) -> Result<(), String> {
        loop {
            match self.s.get(self.i) {
                Some(b' ' | b'\t' | b'\r' | b'\n') => self.i += 1,
                Some(b'/') if self.s.get(self.i + 1) == Some(&b'/') => {
                    while self.i < self.s.len() && self.s[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                Some(b'/') if self.s.get(self.i + 1) == Some(&b'*') => {
                    let rest = &self.s[self.i + 2..];
                    match rest.windows(2).position(|w| w == b"*/") {
                        Some(p) => self.i += 2 + p + 2,
                        None => return Err(self.err("unterminated comment")),
                    }
                }
                Some(0xEF) if self.i == 0 && self.s.starts_with(&[0xEF, 0xBB, 0xBF]) => self.i += 3,
                _ => return Ok(()),
            }
        }
    }

    fn string(&mut self) -> Result<String, String> {
        let start = self.i;
        self.i += 1;
        loop {
            match self.s.get(self.i) {
                None => return Err(self.err("unterminated string")),
                Some(b'\\') => self.i += 2,
                Some(b'"') => {
                    self.i += 1;
                    break;
                }
                Some(_) => self.i += 1,
            }
        }
        let raw = std::str::from_utf8(&self.s[start..self.i]).map_err(|_| self.err("bad UTF-8"))?;
        serde_json::from_str::<String>(raw).map_err(|e| self.err(&format!("bad string: {e}")))
    }

    fn value(&mut self) -> Result<(usize, usize, Node), String> {
        self.depth += 1;
        if self.depth > 128 {
            return Err(self.err("nested too deeply"));
        }
        self.ws()?;
        let start = self.i;
        let node = match self.s.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut members = Vec::new();
                loop {
                    self.ws()?;
                    match self.s.get(self.i) {
                        Some(b'}') => {
                            self.i += 1;
                            break;
                        }
                        Some(b'"') => {
                            let key_start = self.i;
                            let key = self.string()?;
                            self.ws()?;
                            if self.s.get(self.i) != Some(&b':') {
                                return Err(self.err("expected ':'"));
                            }
                            self.i += 1;
                            let (vs, ve, node) = self.value()?;
                            members.push(Member {
                                key,
                                key_start,
                                start: vs,
                                end: ve,
                                node,
                            });
                            self.ws()?;
                            match self.s.get(self.i) {
                                Some(b',') => self.i += 1,
                                Some(b'}') => {}
                                _ => return Err(self.err("expected ',' or '}'")),
                            }
                        }
                        _ => return Err(self.err("expected a key or '}'")),
                    }
                }
                Node::Obj(members)
            }
            Some(b'[') => {
                self.i += 1;
                loop {
                    self.ws()?;
                    if self.s.get(self.i) == Some(&b']') {
                        self.i += 1;
                        break;
                    }
                    self.value()?;
                    self.ws()?;
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {}
                        _ => return Err(self.err("expected ',' or ']'")),
                    }
                }
                Node::Arr
            }
            Some(b'"') => {
                self.string()?;
                Node::Scalar
            }
            Some(c) if c.is_ascii_digit() || *c == b'-' => {
                while self
                    .s
                    .get(self.i)
                    .is_some_and(|c| c.is_ascii_digit() || b"+-.eE".contains(c))
                {
                    self.i += 1;
                }
                Node::Scalar
            }
            Some(_) => {
                let rest = &self.s[self.i..];
                let lit = [&b"true"[..], b"false", b"null"]
                    .into_iter()
                    .find(|l| rest.starts_with(l))
                    .ok_or_else(|| self.err("unexpected character"))?;
                self.i += lit.len();
                Node::Scalar
            }
            None => return Err(self.err("unexpected end of file")),
        };
        self.depth -= 1;
        Ok((start, self.i, node))
    }
}

fn parse_jsonc(text: &str) -> Result<Node, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        depth: 0,
    };
    let (_, _, node) = p.value()?;
    p.ws()?;
    if p.i != p.s.len() {
        return Err(p.err("text after the end of the document"));
    }
    Ok(node)
}

fn member<'a>(members: &'a [Member], key: &str) -> Option<&'a Member> {
    members.iter().rev().find(|m| m.key == key)
}

/// One server entry found in a JSON file.
struct Entry<'a> {
    path: Vec<String>,
    name: String,
    members: &'a [Member],
}

fn json_entries<'a>(root: &'a Node) -> Vec<Entry<'a>> {
    let mut out = Vec::new();
    let Node::Obj(top) = root else { return out };
    let mut containers: Vec<(Vec<String>, &Member)> = Vec::new();
    for key in ["mcpServers", "servers"] {
        if let Some(m) = member(top, key) {
            containers.push((vec![key.to_string()], m));
        }
    }
    if let Some(Member {
        node: Node::Obj(projects),
        ..
    }) = member(top, "projects")
    {
        for p in projects {
            if let Node::Obj(pm) = &p.node {
                if let Some(m) = member(pm, "mcpServers") {
                    containers.push((
                        vec!["projects".into(), p.key.clone(), "mcpServers".into()],
                        m,
                    ));
                }
            }
        }
    }
    for (path, c) in containers {
        let Node::Obj(servers) = &c.node else {
            continue;
        };
        for s in servers {
            if let Node::Obj(members) = &s.node {
                out.push(Entry {
                    path: path.clone(),
                    name: s.key.clone(),
                    members,
                });
            }
        }
    }
    out
}

fn display(path: &[String], name: &str) -> String {
    let mut p = path.to_vec();
    p.push(name.to_string());
    p.join(".")
}

fn str_vec(text: &str) -> Option<Vec<String>> {
    serde_json::from_str::<Vec<String>>(text).ok()
}

/// Sidecar records: display path -> {"command": raw text, "args": raw text or null}.
type Records = serde_json::Map<String, Value>;

fn read_records(file: &Path) -> Records {
    std::fs::read_to_string(sidecar_path(file))
        .or_else(|_| std::fs::read_to_string(old_sidecar_path(file)))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| v.get("servers").and_then(Value::as_object).cloned())
        .unwrap_or_default()
}

/// Wraps a JSON(C) config text. `bin` is the proxy binary's path.
fn wrap_json(text: &str, bin: &str, records: &mut Records) -> Result<Outcome, String> {
    let root = parse_jsonc(text)?;
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut out = Outcome::default();
    for e in json_entries(&root) {
        let disp = display(&e.path, &e.name);
        if URL_KEYS.iter().any(|k| member(e.members, k).is_some()) {
            out.notes
                .push(format!("{disp}: reached by URL; left alone"));
            continue;
        }
        let Some(cmd) = member(e.members, "command") else {
            out.notes.push(format!("{disp}: no command; left alone"));
            continue;
        };
        let Ok(command) = serde_json::from_str::<String>(&text[cmd.start..cmd.end]) else {
            out.notes
                .push(format!("{disp}: command is not a string; left alone"));
            continue;
        };
        let args_m = member(e.members, "args");
        let args = match args_m {
            Some(a) => match str_vec(&text[a.start..a.end]) {
                Some(v) => v,
                None => {
                    out.notes
                        .push(format!("{disp}: args is not a list of strings; left alone"));
                    continue;
                }
            },
            None => Vec::new(),
        };
        if is_wrapped_args(&args) {
            out.notes.push(format!("{disp}: already wrapped"));
            continue;
        }
        let new_args = json_list(&proxy_args(&e.name, &command, &args));
        edits.push((cmd.start, cmd.end, json!(bin).to_string()));
        match args_m {
            Some(a) => edits.push((a.start, a.end, new_args)),
            None => edits.push((cmd.end, cmd.end, format!(", \"args\": {new_args}"))),
        }
        records.insert(
            disp.clone(),
            json!({
                "command": &text[cmd.start..cmd.end],
                "args": args_m.map(|a| &text[a.start..a.end]),
            }),
        );
        out.changed.push(disp);
    }
    out.text = apply(text, edits);
    Ok(out)
}

/// A one-line JSON list of strings, `["a", "b"]`.
fn json_list(items: &[String]) -> String {
    let parts: Vec<String> = items.iter().map(|s| json!(s).to_string()).collect();
    format!("[{}]", parts.join(", "))
}

fn apply(text: &str, mut edits: Vec<(usize, usize, String)>) -> String {
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut s = text.to_string();
    for (a, b, t) in edits {
        s.replace_range(a..b, &t);
    }
    s
}

/// Unwraps a JSON(C) config text.
fn unwrap_json(text: &str, records: &mut Records) -> Result<Outcome, String> {
    let root = parse_jsonc(text)?;
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut out = Outcome::default();
    for e in json_entries(&root) {
        let disp = display(&e.path, &e.name);
        let (Some(cmd), Some(a)) = (member(e.members, "command"), member(e.members, "args")) else {
            continue;
        };
        let Some(args) = str_vec(&text[a.start..a.end]) else {
            continue;
        };
        let Some((orig_cmd, orig_args)) = original_from_proxy_args(&args) else {
            continue;
        };
        let rec = records.remove(&disp);
        // The sidecar's text, if it still says what the proxy arguments say.
        let rec_cmd = rec
            .as_ref()
            .and_then(|r| r.get("command").and_then(Value::as_str))
            .filter(|t| serde_json::from_str::<String>(t).ok().as_ref() == Some(&orig_cmd));
        let rec_args = rec
            .as_ref()
            .map(|r| r.get("args").cloned().unwrap_or(Value::Null));
        let args_ok = match &rec_args {
            Some(Value::String(t)) => str_vec(t).as_ref() == Some(&orig_args),
            Some(Value::Null) => orig_args.is_empty(),
            _ => false,
        };
        match (rec_cmd, args_ok) {
            (Some(c), true) => {
                edits.push((cmd.start, cmd.end, c.to_string()));
                match rec_args {
                    Some(Value::String(t)) => edits.push((a.start, a.end, t)),
                    _ => {
                        // `args` was added by wrap: remove the member and its separator.
                        let between = &text[cmd.end..a.key_start];
                        if between.trim() == "," && cmd.end < a.key_start {
                            edits.push((cmd.end, a.end, String::new()));
                        } else {
                            edits.push((a.start, a.end, "[]".into()));
                        }
                    }
                }
            }
            _ => {
                edits.push((cmd.start, cmd.end, json!(orig_cmd).to_string()));
                edits.push((a.start, a.end, json_list(&orig_args)));
            }
        }
        out.changed.push(disp);
    }
    out.text = apply(text, edits);
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Codex TOML.

fn toml_servers(doc: &mut toml_edit::DocumentMut) -> Vec<(String, &mut dyn toml_edit::TableLike)> {
    let mut out: Vec<(String, &mut dyn toml_edit::TableLike)> = Vec::new();
    let Some(servers) = doc
        .get_mut("mcp_servers")
        .and_then(toml_edit::Item::as_table_like_mut)
    else {
        return out;
    };
    for (k, v) in servers.iter_mut() {
        let name = k.get().to_string();
        let t: Option<&mut dyn toml_edit::TableLike> = match v {
            toml_edit::Item::Table(t) => Some(t),
            toml_edit::Item::Value(toml_edit::Value::InlineTable(t)) => Some(t),
            _ => None,
        };
        if let Some(t) = t {
            out.push((name, t));
        }
    }
    out
}

fn toml_strs(item: Option<&toml_edit::Item>) -> Option<Vec<String>> {
    let a = item?.as_array()?;
    a.iter().map(|v| v.as_str().map(String::from)).collect()
}

fn wrap_toml(text: &str, bin: &str, records: &mut Records) -> Result<Outcome, String> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| format!("{e}"))?;
    let mut out = Outcome::default();
    for (name, t) in toml_servers(&mut doc) {
        let disp = format!("mcp_servers.{name}");
        if t.contains_key("url") {
            out.notes
                .push(format!("{disp}: reached by URL; left alone"));
            continue;
        }
        let Some(command) = t.get("command").and_then(|c| c.as_str()).map(String::from) else {
            out.notes.push(format!("{disp}: no command; left alone"));
            continue;
        };
        let args = match t.get("args") {
            None => Vec::new(),
            Some(a) => match toml_strs(Some(a)) {
                Some(v) => v,
                None => {
                    out.notes
                        .push(format!("{disp}: args is not a list of strings; left alone"));
                    continue;
                }
            },
        };
        if is_wrapped_args(&args) {
            out.notes.push(format!("{disp}: already wrapped"));
            continue;
        }
        let bare = |k: &str| {
            t.get(k).and_then(toml_edit::Item::as_value).map(|v| {
                let mut v = v.clone();
                v.decor_mut().clear();
                v.to_string()
            })
        };
        let raw_cmd = bare("command");
        let raw_args = bare("args");
        records.insert(disp.clone(), json!({"command": raw_cmd, "args": raw_args}));
        set_toml(t, "command", toml_edit::Value::from(bin));
        let arr: toml_edit::Array = proxy_args(&name, &command, &args)
            .iter()
            .map(String::as_str)
            .collect();
        set_toml(t, "args", toml_edit::Value::Array(arr));
        out.changed.push(disp);
    }
    out.text = doc.to_string();
    Ok(out)
}

/// Sets a key's value, keeping the old value's surrounding whitespace and comments.
fn set_toml(t: &mut dyn toml_edit::TableLike, key: &str, mut v: toml_edit::Value) {
    if let Some(old) = t.get(key).and_then(toml_edit::Item::as_value) {
        *v.decor_mut() = old.decor().clone();
    } else {
        v.decor_mut().set_prefix(" ");
    }
    t.insert(key, toml_edit::Item::Value(v));
}

fn unwrap_toml(text: &str, records: &mut Records) -> Result<Outcome, String> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| format!("{e}"))?;
    let mut out = Outcome::default();
    for (name, t) in toml_servers(&mut doc) {
        let disp = format!("mcp_servers.{name}");
        let Some(args) = toml_strs(t.get("args")) else {
            continue;
        };
        let Some((orig_cmd, orig_args)) = original_from_proxy_args(&args) else {
            continue;
        };
        let rec = records.remove(&disp);
        let parse = |k: &str| -> Option<toml_edit::Value> {
            rec.as_ref()?
                .get(k)?
                .as_str()?
                .parse::<toml_edit::Value>()
                .ok()
        };
        let rec_cmd = parse("command").filter(|v| v.as_str() == Some(orig_cmd.as_str()));
        let had_args = rec
            .as_ref()
            .and_then(|r| r.get("args"))
            .is_some_and(|a| !a.is_null());
        let rec_args = parse("args").filter(|v| {
            v.as_array()
                .and_then(|a| {
                    a.iter()
                        .map(|x| x.as_str().map(String::from))
                        .collect::<Option<Vec<_>>>()
                })
                .as_ref()
                == Some(&orig_args)
        });
        match (rec_cmd, rec.is_some()) {
            (Some(c), true) if rec_args.is_some() || (!had_args && orig_args.is_empty()) => {
                set_toml(t, "command", c);
                match rec_args {
                    Some(a) => set_toml(t, "args", a),
                    None => {
                        t.remove("args");
                    }
                }
            }
            _ => {
                set_toml(t, "command", toml_edit::Value::from(orig_cmd.as_str()));
                let arr: toml_edit::Array = orig_args.iter().map(String::as_str).collect();
                set_toml(t, "args", toml_edit::Value::Array(arr));
            }
        }
        out.changed.push(disp);
    }
    out.text = doc.to_string();
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Files.

/// Wraps (or, with `unwrap`, unwraps) `file`. With `dry_run`, returns the outcome and writes
/// nothing.
///
/// # Errors
///
/// A message naming the file, and nothing is changed, when it does not exist (`no such
/// file`), cannot be read, is too large, not a regular file or not UTF-8 (the rules of
/// [`crate::install::fsutil::read_text`]), is read-only (unless `dry_run`), or `does not parse
/// (...); nothing was changed`. When a write fails (its metadata, the backup, the sidecar or
/// the file itself) the message names that file; the file is replaced atomically, so it is
/// either the old text or the new.
pub fn run(file: &Path, bin: &str, unwrap: bool, dry_run: bool) -> Result<Outcome, String> {
    // The same file rules as `install`: symlinks followed, bounded UTF-8 reads, read-only
    // files refused.
    let file = &fsutil::resolve(file);
    let text = fsutil::read_text(file)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{}: no such file", file.display()))?;
    if !dry_run {
        fsutil::check_writable(file).map_err(|e| e.to_string())?;
    }
    let mut records = read_records(file);
    let r = match (is_toml(file), unwrap) {
        (true, false) => wrap_toml(&text, bin, &mut records),
        (true, true) => unwrap_toml(&text, &mut records),
        (false, false) => wrap_json(&text, bin, &mut records),
        (false, true) => unwrap_json(&text, &mut records),
    };
    let out = r.map_err(|e| {
        format!(
            "{} does not parse ({e}); nothing was changed",
            file.display()
        )
    })?;
    if dry_run || out.changed.is_empty() {
        return Ok(out);
    }
    let meta = std::fs::metadata(file).map_err(|e| format!("{}: {e}", file.display()))?;
    write_atomic(&backup_path(file), text.as_bytes(), &meta.permissions())?;
    let side = sidecar_path(file);
    let _ = std::fs::remove_file(old_sidecar_path(file));
    if records.is_empty() {
        let _ = std::fs::remove_file(&side);
    } else {
        let body = serde_json::to_string_pretty(&json!({
            "about": "IntentShield: the original command and args of the MCP servers it wrapped (intentshield unwrap restores them)",
            "version": 1,
            "servers": records,
        }))
        .unwrap_or_default();
        write_atomic(&side, body.as_bytes(), &private(&meta.permissions()))?;
    }
    fsutil::atomic_write(file, &out.text).map_err(|e| e.to_string())?;
    Ok(out)
}

/// Owner-only permissions on Unix (the sidecar holds commands and arguments); elsewhere the
/// config file's own.
#[cfg(unix)]
fn private(_orig: &std::fs::Permissions) -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    std::fs::Permissions::from_mode(0o600)
}

#[cfg(not(unix))]
fn private(orig: &std::fs::Permissions) -> std::fs::Permissions {
    orig.clone()
}

/// Writes `bytes` to `path` atomically with exactly `perm` from the start (the backup holds
/// the user's secrets; the sidecar is owner-only). Errors name the file.
fn write_atomic(path: &Path, bytes: &[u8], perm: &std::fs::Permissions) -> Result<(), String> {
    crate::fsutil::write_atomic(path, bytes, crate::fsutil::Mode::Exactly(perm.clone()))
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonc_spans_and_errors() {
        assert!(parse_jsonc("{\"a\": [1, 2,], // c\n /* x */ \"b\": null,}").is_ok());
        let e = parse_jsonc("{\"a\": }").unwrap_err();
        assert!(e.contains("line 1"), "{e}");
        assert!(parse_jsonc("{} x").is_err());
    }

    #[test]
    fn proxy_args_round_trip() {
        let a = proxy_args("fs", "npx", &["-y".into(), "pkg".into()]);
        assert_eq!(a, ["mcp-proxy", "--name", "fs", "--", "npx", "-y", "pkg"]);
        assert_eq!(
            original_from_proxy_args(&a),
            Some(("npx".to_string(), vec!["-y".to_string(), "pkg".to_string()]))
        );
    }
}
