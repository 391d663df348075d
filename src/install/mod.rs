//! `intentshield install|uninstall <harness>`: merging our hook entries into each harness's
//! own settings file, and taking them out again.
//!
//! What gets written for each harness (paths per scope, events, matchers, timeout and unit,
//! fail-closed switch) is data, in `adapters/<harness>.toml` ([`spec`]). The guarantees:
//! - other keys, values and key order stay as they were; JSON keeps its indentation and final
//!   newline; TOML goes through `toml_edit` (comments kept);
//! - idempotent: a second install changes nothing ([`Change::is_noop`]);
//! - uninstall gives back the bytes the file had before our FIRST install, however many
//!   installs (other executable paths, other options) came in between, when the user changed
//!   nothing else in it; a file install created is removed again. The pristine text is kept in
//!   `<file>.intentshield.bak`, written only while the file holds none of our entries
//!   ([`Backup`]). When the user did change the file, only our entries go and their changes
//!   stay. For Codex, a `[features]` hooks switch install turned on is turned off again;
//! - a Gemini CLI settings file with `//` and `/* */` comments keeps them ([`jsonc`]);
//! - every write is atomic (temporary file in the same directory, then rename) and keeps the
//!   mode; a backup gets the file's own permissions;
//! - a file that does not parse, or is read-only, is not touched: the error names the file
//!   (and line:column).

pub mod command;
pub mod diff;
pub mod fsutil;
pub mod json;
pub mod jsonc;
pub mod probe;
pub mod spec;
pub mod toml;

use crate::event::Harness;
use command::HookCommand;
use spec::{Layout, Spec};
use std::fmt;
use std::path::{Path, PathBuf};

/// An install error, naming the file concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallError {
    /// The file or directory concerned, if any.
    pub path: Option<PathBuf>,
    /// What went wrong (for parse errors it starts with `line:column:`).
    pub message: String,
}

impl InstallError {
    /// An error about `path`.
    pub fn at(path: &Path, message: impl Into<String>) -> InstallError {
        InstallError {
            path: Some(path.to_path_buf()),
            message: message.into(),
        }
    }

    /// An error about no file in particular.
    pub fn msg(message: impl Into<String>) -> InstallError {
        InstallError {
            path: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for InstallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}: {}", p.display(), self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for InstallError {}

/// Where the settings go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The user's settings (`~/.claude/settings.json`, ...).
    User,
    /// The project's settings in the current directory (`.claude/settings.json`, ...).
    Project,
}

/// The environment an install runs in (explicit, so tests need no global state).
#[derive(Debug, Clone)]
pub struct Env {
    /// Home directory (`$HOME`).
    pub home: PathBuf,
    /// Project directory for [`Scope::Project`].
    pub project: PathBuf,
    /// `$CODEX_HOME`, if set.
    pub codex_home: Option<PathBuf>,
}

impl Env {
    /// From the process: `$HOME` (through `directories`), the current directory, `$CODEX_HOME`.
    ///
    /// # Errors
    ///
    /// `cannot find the home directory ($HOME)`, or `cannot read the current directory: <e>`.
    pub fn from_process() -> Result<Env, InstallError> {
        let home = directories::BaseDirs::new()
            .map(|b| b.home_dir().to_path_buf())
            .ok_or_else(|| InstallError::msg("cannot find the home directory ($HOME)"))?;
        let project = std::env::current_dir()
            .map_err(|e| InstallError::msg(format!("cannot read the current directory: {e}")))?;
        let codex_home = crate::env::path(crate::env::CODEX_HOME);
        Ok(Env {
            home,
            project,
            codex_home,
        })
    }
}

/// Options of one install or uninstall.
#[derive(Debug, Clone)]
pub struct Options {
    /// User or project settings.
    pub scope: Scope,
    /// `--review always|tainted|never`, passed to the hook as `--review <mode>` when given.
    pub review: Option<String>,
    /// The executable to install (absolute).
    pub exe: PathBuf,
}

/// The path of a harness's settings file in a scope.
pub fn settings_path(spec: &Spec, scope: Scope, env: &Env) -> PathBuf {
    match scope {
        Scope::Project => env.project.join(&spec.project_path),
        Scope::User => {
            let p = &spec.user_path;
            if spec.harness == Harness::Codex {
                if let (Some(ch), Some(rest)) = (&env.codex_home, p.strip_prefix("~/.codex/")) {
                    return ch.join(rest);
                }
            }
            match p.strip_prefix("~/") {
                Some(rest) => env.home.join(rest),
                None => PathBuf::from(p),
            }
        }
    }
}

/// What applying a [`Change`] does to the file's backup, `<file>.intentshield.bak`
/// ([`fsutil::backup_path`]).
///
/// The backup holds the file as it was before our FIRST install (the pristine text): it is
/// written only when the file holds none of our entries yet, so installing again (from another
/// executable path, with other options) never replaces it with a text of ours, and uninstall
/// can give the original bytes back however many installs came in between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backup {
    /// Leave it as it is (only its permissions are brought in line with the file's).
    Leave,
    /// Write this text to it (with the file's own permissions), before the file is written.
    Write(String),
    /// Remove it, after the file is written (it is used up, stale, or of no use).
    Remove,
}

/// One file's planned change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The file (symlinks resolved).
    pub path: PathBuf,
    /// Its current text; `None` when it does not exist.
    pub before: Option<String>,
    /// Its new text; `None` to delete it.
    pub after: Option<String>,
    /// What happens to its backup.
    pub backup: Backup,
}

impl Change {
    /// Nothing to write in the file itself (a backup may still be removed).
    pub fn is_noop(&self) -> bool {
        self.before == self.after
    }

    /// The change as a unified diff (empty for a no-op).
    pub fn diff(&self) -> String {
        diff::unified(
            &self.path.display().to_string(),
            self.before.as_deref(),
            self.after.as_deref(),
        )
    }
}

/// Whether a harness reads comments in its settings; a file with comments for one that does
/// not is refused (it could not read the file before either).
fn check_comments(spec: &Spec, path: &Path, commented: bool) -> Result<(), InstallError> {
    if commented && !spec.comments {
        return Err(InstallError::at(
            path,
            format!(
                "has comments (// or /* */), which {} does not read; remove them (the file was not changed)",
                spec.display
            ),
        ));
    }
    Ok(())
}

fn parse_for(spec: &Spec, path: &Path, text: &str) -> Result<(Doc, bool), InstallError> {
    let (doc, commented) = json::parse_text(path, text)?;
    check_comments(spec, path, commented)?;
    Ok((doc, commented))
}

type Doc = serde_json::Map<String, serde_json::Value>;

/// The new text of a file whose document goes from `old` to `new`: a plain JSON file is
/// written out in its own style ([`json::detect_style`]); a file with comments is edited in
/// place ([`jsonc::edit`]). A leading byte order mark is kept.
fn render(
    path: &Path,
    text: &str,
    old: &Doc,
    new: &Doc,
    commented: bool,
) -> Result<String, InstallError> {
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    };
    let out = if commented {
        jsonc::edit(path, body, old, new)?
    } else {
        json::render(new, &json::detect_style(body))
    };
    Ok(format!("{bom}{out}"))
}

/// Whether a document holds any entry of ours.
pub fn holds_ours(spec: &Spec, doc: &Doc) -> bool {
    let mut d = doc.clone();
    json::uninstall_doc(Path::new(""), spec.layout, &mut d).is_ok()
        && json::canonical(&d) != json::canonical(doc)
}

/// A document with our entries taken out and what install adds around them in an empty file
/// (empty lists of the events we hook, an empty `"hooks"`, Cursor's `"version": 1`): two
/// files with the same essence differ only by what intentshield did to them.
pub fn essence(spec: &Spec, doc: &Doc) -> Doc {
    use serde_json::Value;
    let mut d = doc.clone();
    let _ = json::uninstall_doc(Path::new(""), spec.layout, &mut d);
    if let Some(Value::Object(h)) = d.get_mut("hooks") {
        for ev in &spec.events {
            if h.get(&ev.name) == Some(&Value::Array(Vec::new())) {
                h.shift_remove(&ev.name);
            }
        }
        if h.is_empty() {
            d.shift_remove("hooks");
        }
    }
    if spec.layout == Layout::Flat && d.get("version") == Some(&Value::from(1)) {
        d.shift_remove("version");
    }
    d
}

/// The backup's document when it is a usable pristine text: it parses and holds none of our
/// entries (a backup written by an older intentshield, or by hand, may hold some: it is then
/// never restored, so our older entries do not come back).
fn pristine(spec: &Spec, path: &Path, backup: &str) -> Option<Doc> {
    let (doc, _) = json::parse_text(path, backup).ok()?;
    (!holds_ours(spec, &doc)).then_some(doc)
}

/// New text of a JSON settings file after installing our entries (pure; the file's style is
/// kept, a file with comments keeps them where the harness reads comments, and an unchanged
/// document gives back the same text).
///
/// # Errors
///
/// An [`InstallError`] at `path` when `before` is not a JSON object ([`json::parse_text`]),
/// has comments the harness does not read, or its `"hooks"` is not an object of lists
/// ([`json::install_doc`]).
pub fn install_text(
    spec: &Spec,
    path: &Path,
    line: &str,
    before: Option<&str>,
) -> Result<String, InstallError> {
    let text = before.unwrap_or("");
    let (old, commented) = parse_for(spec, path, text)?;
    let mut doc = old.clone();
    json::install_doc(path, spec, line, &mut doc)?;
    if before.is_some() && json::canonical(&doc) == json::canonical(&old) {
        return Ok(text.to_string());
    }
    render(path, text, &old, &doc, commented)
}

/// New text of a JSON settings file after removing our entries; `None` to delete the file.
///
/// `backup` is the text of `<file>.intentshield.bak` (the file before our first install), if
/// any. When the file, our entries aside, still says what the backup says (same document, same
/// comments), the backup's bytes come back unchanged, however many installs came in between.
/// Otherwise the user changed the file since: only our entries are taken out and their changes
/// stay. Without a usable backup (none, unreadable, or holding entries of ours), a file left
/// with nothing but what install creates is deleted (install created it).
///
/// # Errors
///
/// An [`InstallError`] at `path` when `before` is not a JSON object ([`json::parse_text`]),
/// has comments the harness does not read, or its `"hooks"` is not an object
/// ([`json::uninstall_doc`]). A backup that does not parse is no error: it is just not
/// restored.
pub fn uninstall_text(
    spec: &Spec,
    path: &Path,
    before: Option<&str>,
    backup: Option<&str>,
) -> Result<Option<String>, InstallError> {
    let Some(text) = before else {
        return Ok(None);
    };
    let (doc, commented) = parse_for(spec, path, text)?;
    let mut stripped = doc.clone();
    json::uninstall_doc(path, spec.layout, &mut stripped)?;
    if json::canonical(&stripped) == json::canonical(&doc) {
        return Ok(Some(text.to_string()));
    }
    let valid = backup.and_then(|b| pristine(spec, path, b).map(|d| (b, d)));
    if let Some((b, bdoc)) = &valid {
        if json::canonical(&essence(spec, &stripped)) == json::canonical(&essence(spec, bdoc))
            && jsonc::comments(text) == jsonc::comments(b)
        {
            return Ok(Some(b.to_string()));
        }
    }
    if valid.is_none() && json::is_trivial(spec.layout, &stripped) {
        return Ok(None);
    }
    render(path, text, &doc, &stripped, commented).map(Some)
}

fn hook_line(spec: &Spec, opts: &Options) -> Result<String, InstallError> {
    HookCommand::new(
        opts.exe.clone(),
        spec.harness.name(),
        opts.review.as_deref(),
    )
    .shell_line()
    .map_err(InstallError::msg)
}

/// Works out what `install` would write, reading but not writing.
///
/// The settings file's backup is written only when the file holds none of our entries yet (it
/// then keeps the pristine text through later installs); when install creates the file, a
/// stale backup is removed. Codex's `config.toml`, when its hooks switch is turned on, gets its
/// own backup with the text that had it off (uninstall turns it off again).
///
/// # Errors
///
/// An [`InstallError`]: the adapter spec does not load (a build bug); the executable path is
/// not UTF-8 ([`HookCommand::shell_line`]); the settings file, or Codex's `config.toml` next
/// to it, cannot be read ([`fsutil::read_text`]) or does not parse ([`install_text`],
/// [`toml::enable_hooks`]). Each names the file.
pub fn plan_install(h: Harness, opts: &Options, env: &Env) -> Result<Vec<Change>, InstallError> {
    let spec = spec::load(h).map_err(InstallError::msg)?;
    let path = fsutil::resolve(&settings_path(&spec, opts.scope, env));
    let line = hook_line(&spec, opts)?;
    let before = fsutil::read_text(&path)?;
    let after = install_text(&spec, &path, &line, before.as_deref())?;
    let backup = match &before {
        None => Backup::Remove,
        Some(t) => match parse_for(&spec, &path, t) {
            Ok((doc, _)) if !holds_ours(&spec, &doc) => Backup::Write(t.clone()),
            _ => Backup::Leave,
        },
    };
    let mut changes = vec![Change {
        path: path.clone(),
        before,
        after: Some(after),
        backup,
    }];
    if let (Some(name), Some(dir)) = (&spec.config_toml, path.parent()) {
        let cfg = fsutil::resolve(&dir.join(name));
        if let Some(text) = fsutil::read_text(&cfg)? {
            if let Some(new) = toml::enable_hooks(&cfg, &text)? {
                changes.push(Change {
                    path: cfg,
                    backup: Backup::Write(text.clone()),
                    before: Some(text),
                    after: Some(new),
                });
            }
        }
    }
    Ok(changes)
}

/// Works out what `uninstall` would write, reading but not writing. For Codex, a hooks switch
/// in `config.toml` that install turned on is turned off again (its backup gives the original
/// bytes when nothing else changed there).
///
/// # Errors
///
/// An [`InstallError`]: the adapter spec does not load (a build bug); the settings file cannot
/// be read ([`fsutil::read_text`]) or does not parse ([`uninstall_text`]); Codex's
/// `config.toml` cannot be read or does not parse ([`toml::disable_hooks`]). An unreadable
/// backup counts as no backup.
pub fn plan_uninstall(h: Harness, opts: &Options, env: &Env) -> Result<Vec<Change>, InstallError> {
    let spec = spec::load(h).map_err(InstallError::msg)?;
    let path = fsutil::resolve(&settings_path(&spec, opts.scope, env));
    let before = fsutil::read_text(&path)?;
    let backup = fsutil::read_text(&fsutil::backup_path(&path)).unwrap_or(None);
    let after = uninstall_text(&spec, &path, before.as_deref(), backup.as_deref())?;
    let usable = backup
        .as_deref()
        .is_some_and(|b| pristine(&spec, &path, b).is_some());
    let backup_action = if before == after {
        Backup::Leave
    } else if after.is_none() || !usable || after == backup {
        Backup::Remove
    } else {
        // The user's changes were kept: the pristine text stays for reference.
        Backup::Leave
    };
    let mut changes = vec![Change {
        path: path.clone(),
        before,
        after,
        backup: backup_action,
    }];
    if let (Some(name), Some(dir)) = (&spec.config_toml, path.parent()) {
        let cfg = fsutil::resolve(&dir.join(name));
        let bak = fsutil::read_text(&fsutil::backup_path(&cfg)).unwrap_or(None);
        if let (Some(text), Some(b)) = (fsutil::read_text(&cfg)?, bak) {
            let after = match toml::parse(&cfg, &b) {
                Err(_) => text.clone(),
                Ok(_) if toml::enable_hooks(&cfg, &b).ok().flatten().as_ref() == Some(&text) => {
                    b.clone()
                }
                Ok(bdoc) => {
                    let keys = toml::disabled_switches(&bdoc);
                    toml::disable_hooks(&cfg, &text, &keys)?.unwrap_or_else(|| text.clone())
                }
            };
            changes.push(Change {
                path: cfg,
                before: Some(text),
                after: Some(after),
                backup: Backup::Remove,
            });
        }
    }
    Ok(changes)
}

/// Permissions for a backup: the file's own (a `0600` settings file gets a `0600` backup; the
/// backup may hold the same secrets, under `env`).
fn backup_mode(path: &Path) -> crate::fsutil::Mode {
    match std::fs::metadata(path) {
        Ok(m) => crate::fsutil::Mode::Exactly(m.permissions()),
        Err(_) => private_mode(),
    }
}

#[cfg(unix)]
fn private_mode() -> crate::fsutil::Mode {
    use std::os::unix::fs::PermissionsExt;
    crate::fsutil::Mode::Exactly(std::fs::Permissions::from_mode(0o600))
}

#[cfg(not(unix))]
fn private_mode() -> crate::fsutil::Mode {
    crate::fsutil::Mode::Keep
}

/// Writes planned changes. Every file is checked (read-only, unchanged since planning)
/// before the first write. Backups follow each change's [`Backup`]: written (atomically, with
/// the file's permissions) before the file, removed after it.
///
/// # Errors
///
/// An [`InstallError`] naming the file. Before anything is written: a file is read-only
/// ([`fsutil::check_writable`]), cannot be read, or `changed while we were working on it;
/// nothing was written, run again`. While writing: a backup or a file cannot be written
/// ([`fsutil::atomic_write`]: that file is unchanged), `cannot remove: <e>` or `cannot set
/// the permissions of the backup: <e>`; files earlier in `changes` may already be written.
pub fn apply(changes: &[Change]) -> Result<(), InstallError> {
    for c in changes.iter().filter(|c| !c.is_noop()) {
        if c.before.is_some() {
            fsutil::check_writable(&c.path)?;
        }
        if fsutil::read_text(&c.path)? != c.before {
            return Err(InstallError::at(
                &c.path,
                "changed while we were working on it; nothing was written, run again",
            ));
        }
    }
    for c in changes {
        let bak = fsutil::backup_path(&c.path);
        if !c.is_noop() {
            if let Backup::Write(old) = &c.backup {
                fsutil::atomic_write_mode(&bak, old, backup_mode(&c.path))?;
            }
            match &c.after {
                Some(text) => fsutil::atomic_write(&c.path, text)?,
                None => std::fs::remove_file(&c.path)
                    .map_err(|e| InstallError::at(&c.path, format!("cannot remove: {e}")))?,
            }
        }
        match &c.backup {
            Backup::Remove => match std::fs::remove_file(&bak) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(InstallError::at(&bak, format!("cannot remove: {e}"))),
            },
            Backup::Leave => {
                if let (Ok(b), Ok(f)) = (std::fs::metadata(&bak), std::fs::metadata(&c.path)) {
                    if b.permissions() != f.permissions() {
                        std::fs::set_permissions(&bak, f.permissions()).map_err(|e| {
                            InstallError::at(
                                &bak,
                                format!("cannot set the permissions of the backup: {e}"),
                            )
                        })?;
                    }
                }
            }
            Backup::Write(_) => {}
        }
        if c.after.is_none() && !c.is_noop() {
            // The directory install made for the file goes too, if nothing else is in it
            // (an empty `~/.claude` would later count as "Claude Code found").
            if let Some(dir) = c.path.parent() {
                let _ = std::fs::remove_dir(dir);
            }
        }
    }
    Ok(())
}

/// What the user still has to do after installing `h` in `scope`.
pub fn notes(h: Harness, scope: Scope) -> Vec<String> {
    let Ok(spec) = spec::load(h) else {
        return Vec::new();
    };
    let mut out: Vec<String> = spec.note_always.into_iter().collect();
    if scope == Scope::Project {
        out.extend(spec.note_project);
    }
    out
}

/// Whether a harness looks present on this machine: its settings directory exists in the
/// home directory, or its program is on `PATH` (`claude`, `codex`, `cursor`/`cursor-agent`,
/// `gemini`).
pub fn harness_found(h: Harness, env: &Env) -> bool {
    let dir = match h {
        Harness::Claude => env.home.join(".claude"),
        Harness::Codex => env.codex_home.clone().unwrap_or(env.home.join(".codex")),
        Harness::Cursor => env.home.join(".cursor"),
        Harness::Gemini => env.home.join(".gemini"),
    };
    if dir.is_dir() {
        return true;
    }
    let programs: &[&str] = match h {
        Harness::Claude => &["claude"],
        Harness::Codex => &["codex"],
        Harness::Cursor => &["cursor", "cursor-agent"],
        Harness::Gemini => &["gemini"],
    };
    let path = std::env::var_os(crate::env::PATH).unwrap_or_default();
    std::env::split_paths(&path).any(|d| programs.iter().any(|p| d.join(p).is_file()))
}

/// Whether a spec's layout is Cursor's flat one (re-exported for doctor).
pub fn is_flat(spec: &Spec) -> bool {
    spec.layout == Layout::Flat
}
