//! `intentshield install|uninstall <harness>`: merging our hook entries into each harness's
//! own settings file, and taking them out again.
//!
//! What gets written for each harness (paths per scope, events, matchers, timeout and unit,
//! fail-closed switch) is data, in `adapters/<harness>.toml` ([`spec`]). The guarantees:
//! - other keys, values and key order stay as they were; JSON keeps its indentation and final
//!   newline; TOML goes through `toml_edit` (comments kept);
//! - idempotent: a second install changes nothing ([`Change::is_noop`]);
//! - after install then uninstall on an untouched file, the file is byte-for-byte what it was
//!   (restored from the backup when install of the backup gives the current text), or absent
//!   again when install created it;
//! - every write is atomic (temporary file in the same directory, then rename), keeps the
//!   mode, and leaves one backup, `<file>.intentshield.bak`, of the text it replaced;
//! - a file that does not parse, or is read-only, is not touched: the error names the file
//!   (and line:column).

pub mod command;
pub mod diff;
pub mod fsutil;
pub mod json;
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

/// One file's planned change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The file (symlinks resolved).
    pub path: PathBuf,
    /// Its current text; `None` when it does not exist.
    pub before: Option<String>,
    /// Its new text; `None` to delete it.
    pub after: Option<String>,
}

impl Change {
    /// Nothing to write.
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

/// New text of a JSON settings file after installing our entries (pure; the file's style is
/// kept, and an unchanged document gives back the same text).
///
/// # Errors
///
/// An [`InstallError`] at `path` when `before` is not a JSON object ([`json::parse`]) or its
/// `"hooks"` is not an object of lists ([`json::install_doc`]).
pub fn install_text(
    spec: &Spec,
    path: &Path,
    line: &str,
    before: Option<&str>,
) -> Result<String, InstallError> {
    let text = before.unwrap_or("");
    let mut doc = json::parse(path, text)?;
    let old = json::canonical(&doc);
    json::install_doc(path, spec, line, &mut doc)?;
    if before.is_some() && json::canonical(&doc) == old {
        return Ok(text.to_string());
    }
    Ok(json::render(&doc, &json::detect_style(text)))
}

/// New text of a JSON settings file after removing our entries; `None` to delete the file.
///
/// `backup` is the text of `<file>.intentshield.bak`, if any: when installing into it gives
/// exactly the current text, the backup's bytes come back unchanged.
///
/// # Errors
///
/// An [`InstallError`] at `path` when `before` is not a JSON object ([`json::parse`]) or its
/// `"hooks"` is not an object ([`json::uninstall_doc`]). A backup that does not parse is no
/// error: it is just not restored.
pub fn uninstall_text(
    spec: &Spec,
    path: &Path,
    line: &str,
    before: Option<&str>,
    backup: Option<&str>,
) -> Result<Option<String>, InstallError> {
    let Some(text) = before else {
        return Ok(None);
    };
    let mut doc = json::parse(path, text)?;
    let old = json::canonical(&doc);
    json::uninstall_doc(path, spec.layout, &mut doc)?;
    if json::canonical(&doc) == old {
        return Ok(Some(text.to_string()));
    }
    if let Some(b) = backup {
        if install_text(spec, path, line, Some(b)).ok().as_deref() == Some(text) {
            return Ok(Some(b.to_string()));
        }
    }
    if backup.is_none() && json::is_trivial(spec.layout, &doc) {
        return Ok(None);
    }
    Ok(Some(json::render(&doc, &json::detect_style(text))))
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
    let mut changes = vec![Change {
        path: path.clone(),
        before,
        after: Some(after),
    }];
    if let (Some(name), Some(dir)) = (&spec.config_toml, path.parent()) {
        let cfg = fsutil::resolve(&dir.join(name));
        if let Some(text) = fsutil::read_text(&cfg)? {
            if let Some(new) = toml::enable_hooks(&cfg, &text)? {
                changes.push(Change {
                    path: cfg,
                    before: Some(text),
                    after: Some(new),
                });
            }
        }
    }
    Ok(changes)
}

/// Works out what `uninstall` would write, reading but not writing.
///
/// # Errors
///
/// An [`InstallError`]: the adapter spec does not load (a build bug); the executable path is
/// not UTF-8 ([`HookCommand::shell_line`]); the settings file cannot be read
/// ([`fsutil::read_text`]) or does not parse ([`uninstall_text`]). An unreadable backup counts
/// as no backup.
pub fn plan_uninstall(h: Harness, opts: &Options, env: &Env) -> Result<Vec<Change>, InstallError> {
    let spec = spec::load(h).map_err(InstallError::msg)?;
    let path = fsutil::resolve(&settings_path(&spec, opts.scope, env));
    let line = hook_line(&spec, opts)?;
    let before = fsutil::read_text(&path)?;
    let backup = fsutil::read_text(&fsutil::backup_path(&path)).unwrap_or(None);
    let after = uninstall_text(&spec, &path, &line, before.as_deref(), backup.as_deref())?;
    Ok(vec![Change {
        path,
        before,
        after,
    }])
}

/// Writes planned changes. Every file is checked (read-only, unchanged since planning)
/// before the first write. Each replaced text is kept as `<file>.intentshield.bak`.
///
/// # Errors
///
/// An [`InstallError`] naming the file. Before anything is written: a file is read-only
/// ([`fsutil::check_writable`]), cannot be read, or `changed while we were working on it;
/// nothing was written, run again`. While writing: a backup or a file cannot be written
/// ([`fsutil::atomic_write`]: that file is unchanged) or `cannot remove: <e>`; files earlier in
/// `changes` may already be written.
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
    for c in changes.iter().filter(|c| !c.is_noop()) {
        // A file we delete held only our entries: nothing there to back up.
        if let (Some(old), Some(_)) = (&c.before, &c.after) {
            fsutil::atomic_write(&fsutil::backup_path(&c.path), old)?;
        }
        match &c.after {
            Some(text) => fsutil::atomic_write(&c.path, text)?,
            None => {
                std::fs::remove_file(&c.path)
                    .map_err(|e| InstallError::at(&c.path, format!("cannot remove: {e}")))?;
                // The directory install made for the file goes too, if nothing else is in it
                // (an empty `~/.claude` would later count as "Claude Code found").
                if let Some(dir) = c.path.parent() {
                    let _ = std::fs::remove_dir(dir);
                }
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
