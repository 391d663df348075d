//! File paths the guard protects, whatever tool writes them.
//!
//! Writing an agent's hook, MCP or permission settings is code execution: the next session
//! runs whatever the file names (Cursor started new `mcp.json` entries without approval,
//! CVE-2025-54135; see `../shared/cases/public-reports.jsonl`, `mcp-config-write`). So is
//! adding a git hook. And a guard whose own configuration or database can be rewritten by the
//! agent it guards guards nothing.

use crate::event::Harness;
use crate::harness::spec::ConfigFiles;
use std::path::{Component, Path, PathBuf};

/// Where relative and `~` paths are resolved from, and which files are ours.
#[derive(Debug, Clone)]
pub struct PathContext {
    /// `$HOME`.
    pub home: Option<String>,
    /// The agent's working directory (from the event).
    pub cwd: Option<String>,
    /// Our own files ([`own_files`]): a write to one of them, or to anything under one that is
    /// a folder, is tampering with the guard.
    pub own: Vec<PathBuf>,
    /// Folder entries the glob expansions of one call may still read (see [`GLOB_BUDGET`]);
    /// once spent, a glob is taken as reaching what it could name.
    pub glob_budget: std::cell::Cell<usize>,
    /// [`PathContext::protected_roots`], computed once per call.
    roots: std::cell::OnceCell<Vec<(PathBuf, &'static str)>>,
}

impl Default for PathContext {
    fn default() -> Self {
        PathContext {
            home: None,
            cwd: None,
            own: Vec::new(),
            glob_budget: std::cell::Cell::new(GLOB_BUDGET),
            roots: std::cell::OnceCell::new(),
        }
    }
}

/// Folder entries the glob expansions of one call may read in all (`echo * * * …` must not
/// make a call take longer than the harness's hook timeout).
pub const GLOB_BUDGET: usize = 20_000;

/// The SQLite companions of a database file: its write-ahead log, shared-memory index and
/// rollback journal (<https://sqlite.org/tempfiles.html>). Writing or removing one corrupts or
/// rolls back the database as surely as writing the file.
pub const DB_COMPANIONS: &[&str] = &["-wal", "-shm", "-journal", PENDING_TAINT];

/// Suffix of the file beside the database that lists the sessions whose tool output arrived
/// while the database could not be written (a lock held past the busy timeout, a full disk):
/// the next event that opens the database taints them (`src/hook.rs`).
pub const PENDING_TAINT: &str = "-pending-taint";

/// Our own files, which no tool may write, remove or open with another program:
/// - the database `db` (when its path is known) and its [`DB_COMPANIONS`];
/// - the folder holding it only when that folder is ours (its name holds `intentshield`, as the
///   default data directory's does): a database put directly in `~` must not make all of `~`
///   off limits;
/// - the config file in force (`config_flag`, else the environment or default) and the default
///   one, and likewise their folders when ours;
/// - the running binary (the one the harness settings name, since the harness runs it), by
///   its path and, when that is a symlink, its target.
pub fn own_files(db: Option<&Path>, config_flag: Option<&PathBuf>) -> Vec<PathBuf> {
    let mut own = Vec::new();
    let ours = |dir: &Path| {
        dir.file_name().is_some_and(|n| {
            n.to_string_lossy()
                .to_ascii_lowercase()
                .contains("intentshield")
        })
    };
    if let Some(p) = db {
        if let Some(dir) = p.parent().filter(|d| ours(d)) {
            own.push(dir.to_path_buf());
        }
        own.push(p.to_path_buf());
        for suffix in DB_COMPANIONS {
            let mut name = p.as_os_str().to_os_string();
            name.push(suffix);
            own.push(PathBuf::from(name));
        }
    }
    // The config in force and the default one (an operator's settings live there even while
    // the environment names another file).
    // A relative `--config` is relative to where the hook runs.
    let absolute = |c: PathBuf| match std::env::current_dir() {
        Ok(d) if c.is_relative() => d.join(c),
        _ => c,
    };
    let configs = crate::config::config_path(config_flag)
        .map(absolute)
        .into_iter()
        .chain(crate::config::default_config_path());
    for c in configs {
        if own.contains(&c) {
            continue;
        }
        if let Some(dir) = c.parent().filter(|d| ours(d)) {
            own.push(dir.to_path_buf());
        }
        own.push(c);
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Ok(real) = std::fs::canonicalize(&exe) {
            if real != exe {
                own.push(real);
            }
        }
        own.push(exe);
    }
    // `intentshield` in every `PATH` folder: a hook command found on PATH (the Claude Code
    // plugin, the Gemini CLI extension, `install --portable`) runs whichever comes first.
    if let Some(path) = crate::env::text(crate::env::PATH) {
        for dir in path.split(':').filter(|d| d.starts_with('/')).take(64) {
            own.push(Path::new(dir).join("intentshield"));
        }
    }
    own
}

/// `p` as an absolute path with `.` and `..` removed lexically (`..` at the root stays at the
/// root). Never touches the file system.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(s) => out.push(s),
            _ => {}
        }
    }
    out
}

/// Most alternatives a brace pattern is expanded to; more is taken as reaching our state.
pub const MAX_BRACES: usize = 64;

/// The words a shell brace pattern expands to (`~/.{claude,codex}` gives `~/.claude` and
/// `~/.codex`; nested and several groups too), at most [`MAX_BRACES`]. A group without a
/// comma (`${HOME}`, `{}`) is left as written.
pub fn expand_braces(p: &str) -> Vec<String> {
    let mut out = vec![p.to_string()];
    for _ in 0..8 {
        let mut next = Vec::new();
        let mut changed = false;
        for w in &out {
            match first_brace_group(w) {
                Some((open, close)) => {
                    changed = true;
                    let (head, body, tail) = (&w[..open], &w[open + 1..close], &w[close + 1..]);
                    for alt in split_top_commas(body) {
                        next.push(format!("{head}{alt}{tail}"));
                        if next.len() >= MAX_BRACES {
                            return next;
                        }
                    }
                }
                None => next.push(w.clone()),
            }
        }
        out = next;
        if !changed {
            break;
        }
    }
    out
}

/// The byte range of the first `{…,…}` group (outermost, balanced, holding a top-level comma,
/// not preceded by `$`).
fn first_brace_group(w: &str) -> Option<(usize, usize)> {
    let b = w.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'{' && (i == 0 || b[i - 1] != b'$') {
            let mut depth = 0;
            let mut comma = false;
            for (j, &c) in b.iter().enumerate().skip(i) {
                match c {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            if comma {
                                return Some((i, j));
                            }
                            break;
                        }
                    }
                    b',' if depth == 1 => comma = true,
                    _ => {}
                }
            }
        }
        i += 1;
    }
    None
}

/// `a,{b,c},d` split at its top-level commas.
fn split_top_commas(body: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&body[start..]);
    out
}

/// True for bash's extended globs (`@(…)`, `!(…)`, `+(…)`, `*(…)`, `?(…)`).
fn has_extglob(p: &str) -> bool {
    ["@(", "!(", "+(", "*(", "?("].iter().any(|x| p.contains(x))
}

/// An extended glob widened to a plain one: each `X(…)` group becomes `*` (it matches at
/// least what the group could).
fn extglob_to_glob(p: &str) -> String {
    let mut out = String::new();
    let mut chars = p.chars().peekable();
    while let Some(c) = chars.next() {
        if matches!(c, '@' | '!' | '+' | '*' | '?') && chars.peek() == Some(&'(') {
            crate::text::skip_parens(&mut chars);
            out.push('*');
        } else {
            out.push(c);
        }
    }
    out
}

/// Most paths a glob in a write target is expanded to; a glob matching more is taken as
/// reaching our state.
pub const MAX_GLOB: usize = 1024;

/// The existing paths `pattern` (absolute, `*`, `?`, `[...]` in its components) matches, as
/// the shell expands it (a `*` or `?` does not match a leading `.`). `None` when it matches
/// more than [`MAX_GLOB`], a folder on the way lists more than 4096 entries, or `budget`
/// (entries the call may still read) runs out.
fn expand_glob(pattern: &Path, budget: &std::cell::Cell<usize>) -> Option<Vec<PathBuf>> {
    if budget.get() == 0 {
        return None;
    }
    let mut current = vec![PathBuf::from("/")];
    for comp in pattern.components() {
        let Component::Normal(c) = comp else {
            continue;
        };
        let c = c.to_string_lossy();
        if !c.contains(['*', '?', '[']) {
            current = current.into_iter().map(|p| p.join(c.as_ref())).collect();
            continue;
        }
        let mut next = Vec::new();
        for dir in &current {
            if budget.get() == 0 {
                return None;
            }
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for (i, e) in entries.flatten().enumerate() {
                let left = budget.get();
                if i >= 4096 || left == 0 {
                    return None;
                }
                budget.set(left - 1);
                let name = e.file_name().to_string_lossy().into_owned();
                if name_glob_match(&c, &name) {
                    next.push(dir.join(name));
                    if next.len() > MAX_GLOB {
                        return None;
                    }
                }
            }
        }
        current = next;
    }
    Some(
        current
            .into_iter()
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .collect(),
    )
}

/// One path component against one glob component, with the shell's rule that a leading `.`
/// is matched only by a leading `.` in the pattern.
fn name_glob_match(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    // Without regard to case: `shopt -s nocaseglob` makes `~/.CLAUDE*` match `~/.claude`.
    crate::shell::glob_match(&pattern.to_lowercase(), &name.to_lowercase())
}

/// True when the absolute glob `pattern` matches `path` component by component.
fn glob_path_match(pattern: &Path, path: &Path) -> bool {
    let p: Vec<_> = pattern.components().collect();
    let q: Vec<_> = path.components().collect();
    p.len() == q.len()
        && p.iter().zip(&q).all(|(a, b)| {
            name_glob_match(
                &a.as_os_str().to_string_lossy(),
                &b.as_os_str().to_string_lossy(),
            )
        })
}

/// Our default config and data folders, relative to a home directory.
const OWN_FOLDERS: &[&str] = &[".config/intentshield", ".local/share/intentshield"];

/// System-wide settings folders of the harnesses (managed settings, which outrank a user's:
/// Claude Code's `managed-settings.json`, Gemini CLI's system settings, Codex's
/// `requirements.toml`, Cursor's), with their protection rule.
const SYSTEM_SETTINGS: &[(&str, &str)] = &[
    ("/etc/claude-code", "protect.claude_settings"),
    (
        "/library/application support/claudecode",
        "protect.claude_settings",
    ),
    ("/etc/gemini-cli", "protect.gemini_config"),
    (
        "/library/application support/geminicli",
        "protect.gemini_config",
    ),
    ("/etc/codex", "protect.codex_config"),
    ("/etc/cursor", "protect.cursor_config"),
    (
        "/library/application support/cursor",
        "protect.cursor_config",
    ),
];

/// Why a write to a path is refused ([`PathContext::protection`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protection {
    /// The path is a protected file or inside a protected folder.
    Is(&'static str),
    /// The path is a folder that holds a protected file or folder (`~`, `~/.claude`, a
    /// project): removing, moving, replacing or writing into it reaches that file.
    Holds(&'static str),
}

impl Protection {
    /// The protection rule (`protect.claude_settings`, `protect.intentshield_state`, ...).
    pub fn rule(self) -> &'static str {
        match self {
            Protection::Is(r) | Protection::Holds(r) => r,
        }
    }
}

/// Compares protected paths case-insensitively on every system: the default file systems of
/// macOS and Windows ignore case, a Linux machine can mount one that does (exFAT, SMB), and a
/// file committed as `.Claude/Settings.json` on Linux is Claude Code's settings in a macOS
/// checkout. No everyday file differs from an agent's or our own only by case.
fn fold(p: &Path) -> PathBuf {
    PathBuf::from(p.to_string_lossy().to_lowercase())
}

impl PathContext {
    /// Context from the environment and the event's cwd.
    pub fn new(cwd: Option<&str>, own: Vec<PathBuf>) -> PathContext {
        PathContext {
            home: crate::env::text(crate::env::HOME),
            cwd: cwd.map(str::to_string),
            own,
            ..PathContext::default()
        }
    }

    /// Expands `~`, `$HOME`, `${HOME}`, makes relative paths absolute against cwd, and removes
    /// `.` and `..` lexically. Never touches the file system.
    pub fn resolve(&self, p: &str) -> PathBuf {
        let p = p.trim();
        let home = self.home.as_deref().unwrap_or("/root");
        let cwd = self.cwd.as_deref().unwrap_or("/");
        let expanded = if p == "~" {
            home.to_string()
        } else if let Some(rest) = p.strip_prefix("~/") {
            format!("{home}/{rest}")
        } else if p == "~+" || p.starts_with("~+/") {
            // `~+` is the working directory.
            format!("{cwd}{}", &p[2..])
        } else if let Some(user) = p.strip_prefix('~').filter(|_| !p.starts_with("~-")) {
            // `~user`: that user's home. This user's by name, root's, else /home/user.
            let (name, rest) = user.split_once('/').map_or((user, ""), |(n, r)| (n, r));
            let me = Path::new(home)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            let base = if me.as_deref() == Some(name)
                || crate::env::text("USER").as_deref() == Some(name)
            {
                home.to_string()
            } else if name == "root" {
                "/root".to_string()
            } else {
                format!("/home/{name}")
            };
            if rest.is_empty() {
                base
            } else {
                format!("{base}/{rest}")
            }
        } else if let Some(rest) = p.strip_prefix("$HOME") {
            format!("{home}{rest}")
        } else if let Some(rest) = p.strip_prefix("${HOME}") {
            format!("{home}{rest}")
        } else {
            p.to_string()
        };
        let path = Path::new(&expanded);
        let joined = if path.is_absolute() {
            path.to_path_buf()
        } else {
            Path::new(self.cwd.as_deref().unwrap_or("/")).join(path)
        };
        normalize(&joined)
    }

    /// Where `p` (already resolved) really is when a folder on its way is a symlink that
    /// exists now: the longest existing ancestor made canonical, with the rest appended.
    /// `None` when that is `p` itself or nothing exists. Reads the file system (`readlink`,
    /// `stat`); never writes.
    pub fn real(&self, p: &Path) -> Option<PathBuf> {
        let mut existing = p;
        let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
        loop {
            if std::fs::symlink_metadata(existing).is_ok() {
                break;
            }
            rest.push(existing.file_name()?);
            existing = existing.parent()?;
        }
        // A link whose target does not exist yet (a write through it creates the target):
        // follow it by hand, a few levels.
        let mut existing = existing.to_path_buf();
        for _ in 0..8 {
            if std::fs::canonicalize(&existing).is_ok() {
                break;
            }
            let Ok(target) = std::fs::read_link(&existing) else {
                break;
            };
            existing = match existing.parent() {
                Some(dir) if target.is_relative() => dir.join(target),
                _ => target,
            };
        }
        let mut real = std::fs::canonicalize(&existing)
            .unwrap_or_else(|_| self.resolve(&existing.to_string_lossy()));
        for part in rest.iter().rev() {
            real.push(part);
        }
        (real != p).then_some(real)
    }

    /// How a write to `p` breaks protection, if it does: `tree` when the whole tree at `p`
    /// is written (removed, moved, replaced or written into: [`crate::shell::WriteKind`]),
    /// which also reaches every protected file under it. `p` is resolved (`~`, `$HOME`, `..`,
    /// cwd), and compared both as written and through the symlinks that exist now.
    pub fn protection(&self, p: &str, tree: bool) -> Option<Protection> {
        // Brace expansion comes first in the shell (`~/.{claude,x}`): every alternative.
        if p.contains('{') && p.contains(',') {
            let alternatives = expand_braces(p);
            if alternatives.len() > 1 {
                return alternatives
                    .iter()
                    .find_map(|a| self.protection(a, tree))
                    .or_else(|| {
                        (alternatives.len() >= MAX_BRACES)
                            .then_some(Protection::Holds("protect.intentshield_state"))
                    });
            }
        }
        if p.contains(['*', '?', '[']) || has_extglob(p) {
            return self.glob_protection(&extglob_to_glob(p), tree);
        }
        self.protection_of(p, tree)
    }

    /// [`Self::protection`] of a path without glob characters.
    fn protection_of(&self, p: &str, tree: bool) -> Option<Protection> {
        let lexical = self.resolve(p);
        let real = self.real(&lexical);
        for r in std::iter::once(&lexical).chain(real.as_ref()) {
            if let Some(rule) = self.protected_resolved(r) {
                return Some(Protection::Is(rule));
            }
        }
        if tree {
            for r in std::iter::once(&lexical).chain(real.as_ref()) {
                if let Some(rule) = self.holds_protected(r) {
                    return Some(Protection::Holds(rule));
                }
            }
        }
        None
    }

    /// [`Self::protection`] of a glob (`~/.clau*`, `~/.local/share/intent?hield`), as the
    /// shell would expand it: every existing path it matches now (at most [`MAX_GLOB`]), and
    /// every protected root or folder above one that it could match (so a pattern aimed at a
    /// file that does not exist yet still counts). Reads the folders the pattern walks.
    fn glob_protection(&self, p: &str, tree: bool) -> Option<Protection> {
        let pattern = self.resolve(p);
        let expanded = expand_glob(&pattern, &self.glob_budget);
        for m in expanded.iter().flatten() {
            if let Some(x) = self.protection_of(&m.to_string_lossy(), tree) {
                return Some(x);
            }
        }
        for (root, rule) in self.protected_roots() {
            for anc in root.ancestors() {
                if !glob_path_match(&pattern, anc) {
                    continue;
                }
                if anc == root && self.own.contains(root) {
                    return Some(Protection::Is(rule));
                }
                if tree {
                    return Some(Protection::Holds(rule));
                }
            }
        }
        // Too many matches to look at: it may reach a protected file only if the folder
        // before the first glob holds one (`~/*` may; `node_modules/*` cannot).
        if expanded.is_none() {
            let prefix: PathBuf = pattern
                .components()
                .take_while(|c| !c.as_os_str().to_string_lossy().contains(['*', '?', '[']))
                .collect();
            if let Some(p) = self.protection_of(&prefix.to_string_lossy(), true) {
                return Some(Protection::Holds(p.rule()));
            }
        }
        None
    }

    /// The rule of a harness's configuration folder when `p` (resolved here) is one itself
    /// (`~/.claude`, a project's `.codex`), whether or not it exists.
    pub fn harness_folder(&self, p: &str) -> Option<&'static str> {
        let r = fold(&self.resolve(p));
        let name = r.file_name()?.to_string_lossy().to_lowercase();
        Harness::ALL
            .iter()
            .map(|h| h.spec().protected)
            .find(|spec| spec.dir == name)
            .map(|spec| spec.rule)
    }

    /// The protection rule a write to `p` breaks, if any. `p` is resolved first.
    pub fn protected(&self, p: &str) -> Option<&'static str> {
        self.protection(p, false).map(Protection::rule)
    }

    /// The folders and files whose removal or replacement disables a harness's hooks or this
    /// guard: our own files, each harness's configuration folder in the home directory and in
    /// the working directory, and the other agents' MCP settings.
    fn protected_roots(&self) -> &[(PathBuf, &'static str)] {
        self.roots.get_or_init(|| self.find_protected_roots())
    }

    /// [`Self::protected_roots`], looked up (stats the project's harness folders).
    fn find_protected_roots(&self) -> Vec<(PathBuf, &'static str)> {
        let mut roots: Vec<(PathBuf, &'static str)> = self
            .own
            .iter()
            .map(|p| (p.clone(), "protect.intentshield_state"))
            .collect();
        if let Some(home) = &self.home {
            let home = Path::new(home);
            for rel in [".claude.json", ".config/Claude", ".codeium/windsurf"] {
                roots.push((home.join(rel), "protect.mcp_config"));
            }
            for h in Harness::ALL {
                let spec = &h.spec().protected;
                roots.push((home.join(spec.dir), spec.rule));
            }
        }
        // The project's own settings, where they exist (a project without them may be
        // scaffolded into freely).
        if let Some(cwd) = &self.cwd {
            let cwd = self.resolve(cwd);
            let mut project: Vec<(PathBuf, &'static str)> = vec![
                (cwd.join(".mcp.json"), "protect.mcp_config"),
                (cwd.join(".vscode"), "protect.mcp_config"),
            ];
            for h in Harness::ALL {
                let spec = &h.spec().protected;
                project.push((cwd.join(spec.dir), spec.rule));
            }
            roots.extend(
                project
                    .into_iter()
                    .filter(|(p, _)| std::fs::symlink_metadata(p).is_ok()),
            );
        }
        roots
    }

    /// The rule of a protected file or folder under `r` (or at it), if any: a root from
    /// [`Self::protected_roots`], a harness configuration folder by its name (`.claude`,
    /// `.codex`, ... anywhere), or one that exists on disk under `r`.
    fn holds_protected(&self, r: &Path) -> Option<&'static str> {
        let folded = fold(r);
        for (root, rule) in self.protected_roots() {
            if fold(root).starts_with(&folded) {
                return Some(rule);
            }
        }
        let name = r.file_name().map(|n| n.to_string_lossy().to_lowercase());
        for h in Harness::ALL {
            let spec = &h.spec().protected;
            if name.as_deref() == Some(spec.dir) {
                return Some(spec.rule);
            }
            if std::fs::symlink_metadata(r.join(spec.dir)).is_ok() {
                return Some(spec.rule);
            }
        }
        if std::fs::symlink_metadata(r.join(".mcp.json")).is_ok() {
            return Some("protect.mcp_config");
        }
        None
    }

    /// The names of the protected files and folders (`settings.json`, `.claude`,
    /// `config.toml`, our database's name …), for deciding whether a `find -name PATTERN`
    /// could reach one.
    pub fn protected_names(&self) -> Vec<String> {
        let mut out: Vec<String> = [
            "settings.json",
            "settings.local.json",
            ".mcp.json",
            ".claude.json",
            "mcp.json",
            "config",
            "hooks",
            "intentshield",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for h in Harness::ALL {
            let spec = &h.spec().protected;
            out.push(spec.dir.to_string());
            if let ConfigFiles::Named(files) = spec.files {
                out.extend(files.iter().map(|f| f.to_string()));
            }
        }
        out.extend(
            self.own
                .iter()
                .filter_map(|o| o.file_name())
                .map(|n| n.to_string_lossy().into_owned()),
        );
        out
    }

    /// The protection rule for a file whose folder cannot be known (a relative path after
    /// `cd "$D"`): judged by its name alone, as if it were in any harness folder.
    pub fn protected_name(&self, p: &str) -> Option<&'static str> {
        let name = Path::new(p.trim())
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())?;
        for h in Harness::ALL {
            let spec = &h.spec().protected;
            let hit = match spec.files {
                ConfigFiles::SettingsJson => {
                    name.starts_with("settings") && name.ends_with(".json")
                }
                ConfigFiles::Named(files) => files.contains(&name.as_str()),
            };
            if hit {
                return Some(spec.rule);
            }
        }
        if matches!(name.as_str(), ".mcp.json" | ".claude.json" | "mcp.json") {
            return Some("protect.mcp_config");
        }
        let own_name = self.own.iter().any(|o| {
            o.file_name()
                .is_some_and(|n| n.to_string_lossy().to_lowercase() == name)
        });
        if own_name {
            return Some("protect.intentshield_state");
        }
        None
    }

    /// True when `p` (resolved) is inside the working directory.
    pub fn in_workspace(&self, p: &Path) -> bool {
        match &self.cwd {
            Some(cwd) => p.starts_with(self.resolve(cwd)),
            None => false,
        }
    }

    /// The protection rule a write to the resolved path `r` breaks, if any.
    fn protected_resolved(&self, r: &Path) -> Option<&'static str> {
        let r = &fold(r);
        let s = r.to_string_lossy();
        let name = r
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let parent = r
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        // The backups and sidecars install and wrap keep beside a settings file: an uninstall
        // restores them, so planting one is planting the settings.
        if [
            ".intentshield.bak",
            ".intentshield-wrap.bak",
            ".intentshield-wrap.json",
        ]
        .iter()
        .any(|suffix| name.ends_with(suffix))
        {
            return Some("protect.intentshield_state");
        }
        // Our default folders wherever a home is (`X/.config/intentshield`,
        // `X/.local/share/intentshield`), whatever `HOME` says: they are ours by name.
        if OWN_FOLDERS.iter().any(|f| {
            let f = Path::new(f);
            r.ancestors().any(|a| a.ends_with(f))
        }) {
            return Some("protect.intentshield_state");
        }
        // Our database, its directory and our config file. (Not their ancestors: copying a
        // build into `~` is everyday work.)
        for own in &self.own {
            if r.starts_with(fold(own)) {
                return Some("protect.intentshield_state");
            }
        }
        // Each harness's own configuration (its spec says which files).
        for h in Harness::ALL {
            let p = &h.spec().protected;
            if p.files == ConfigFiles::SettingsJson
                && parent == p.dir
                && name.starts_with("settings")
                && name.ends_with(".json")
            {
                return Some(p.rule);
            }
        }
        if name == ".mcp.json" || name == ".claude.json" {
            return Some("protect.mcp_config");
        }
        // Each harness's system-wide (managed) settings, which outrank the user's.
        for (dir, rule) in SYSTEM_SETTINGS {
            if r.starts_with(dir) {
                return Some(rule);
            }
        }
        if let Some(home) = &self.home {
            let home = fold(Path::new(home));
            for h in Harness::ALL {
                let p = &h.spec().protected;
                if p.whole_home_dir && r.starts_with(home.join(p.dir)) {
                    return Some(p.rule);
                }
            }
            // Claude Code's installed plugins (our own among them: their hooks run).
            if r.starts_with(home.join(".claude/plugins")) {
                return Some("protect.claude_settings");
            }
            if r.starts_with(home.join(".config/claude"))
                || r.starts_with(home.join(".codeium/windsurf"))
            {
                return Some("protect.mcp_config");
            }
        }
        for h in Harness::ALL {
            let p = &h.spec().protected;
            if let ConfigFiles::Named(files) = p.files {
                if parent == p.dir && files.contains(&name.as_ref()) {
                    return Some(p.rule);
                }
            }
        }
        if parent == ".vscode" && matches!(name.as_ref(), "mcp.json" | "settings.json") {
            return Some("protect.mcp_config");
        }
        // Git hooks run code on the next commit: persistence outside the requested change.
        if s.contains("/.git/hooks/") || s.ends_with("/.git/hooks") || s.ends_with("/.git/config") {
            return Some("protect.git_hooks");
        }
        if s.contains("/.husky/") {
            return Some("protect.git_hooks");
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> PathContext {
        PathContext {
            home: Some("/home/dev".into()),
            cwd: Some("/home/dev/proj".into()),
            own: vec![PathBuf::from("/home/dev/.local/share/intentshield")],
            glob_budget: std::cell::Cell::new(GLOB_BUDGET),
            roots: std::cell::OnceCell::new(),
        }
    }

    #[test]
    fn protects_agent_configuration() {
        let c = ctx();
        for p in [
            "/home/dev/proj/.claude/settings.json",
            ".claude/settings.local.json",
            "~/.cursor/mcp.json",
            "~/.codex/config.toml",
            "~/.gemini/settings.json",
            ".mcp.json",
            "../other/.mcp.json",
            ".git/hooks/pre-commit",
            "/home/dev/.local/share/intentshield/intentshield.db",
            "$HOME/.claude.json",
        ] {
            assert!(c.protected(p).is_some(), "{p}");
        }
        for p in [
            "~",
            "~/",
            "/home/dev/.local",
            "src/app.py",
            "docs/claude-settings.md",
            ".env.example",
            "node_modules",
            "/home/dev/proj/.claude/agents/reviewer.md",
        ] {
            assert!(c.protected(p).is_none(), "{p}");
        }
    }

    #[test]
    fn resolves_dot_dot() {
        let c = ctx();
        assert_eq!(c.resolve("a/../../x/./y"), PathBuf::from("/home/dev/x/y"));
    }

    #[test]
    fn a_database_in_home_protects_the_file_not_home() {
        let home = "/home/dev";
        let own = own_files(Some(Path::new("/home/dev/is.sqlite")), None);
        let c = PathContext {
            home: Some(home.into()),
            cwd: Some("/home/dev/proj".into()),
            own,
            glob_budget: std::cell::Cell::new(GLOB_BUDGET),
            roots: std::cell::OnceCell::new(),
        };
        for p in [
            "~/is.sqlite",
            "~/is.sqlite-wal",
            "~/is.sqlite-shm",
            "~/is.sqlite-journal",
        ] {
            assert_eq!(c.protected(p), Some("protect.intentshield_state"), "{p}");
        }
        for p in ["~/notes.txt", "~/proj/src/main.rs", "~/is.sqlite.txt"] {
            assert_eq!(c.protected(p), None, "{p}");
        }
        // Removing all of home still removes the database.
        assert!(c.protection("~", true).is_some());
    }

    #[test]
    fn our_own_folders_only_when_ours() {
        let own = own_files(
            Some(Path::new(
                "/home/dev/.local/share/intentshield/intentshield.db",
            )),
            Some(&PathBuf::from("/home/dev/.config/intentshield/config.toml")),
        );
        assert!(own.contains(&PathBuf::from("/home/dev/.local/share/intentshield")));
        assert!(own.contains(&PathBuf::from("/home/dev/.config/intentshield")));
        let own = own_files(
            Some(Path::new("/srv/data/guard.db")),
            Some(&PathBuf::from("/etc/guard.toml")),
        );
        assert!(!own.contains(&PathBuf::from("/srv/data")));
        assert!(!own.contains(&PathBuf::from("/etc")));
        assert!(own.contains(&PathBuf::from("/srv/data/guard.db-wal")));
    }

    #[test]
    fn folders_that_hold_protected_files() {
        let c = ctx();
        for p in [
            "~/.claude",
            "~/.codex/",
            "~",
            "/home",
            "/",
            "~/.local/share",
            "../other/.gemini",
        ] {
            assert!(
                matches!(
                    c.protection(p, true),
                    Some(Protection::Holds(_) | Protection::Is(_))
                ),
                "{p}"
            );
        }
        // Writing the folder itself as a file (a `cp` destination) is no write under it.
        assert_eq!(c.protection("~", false), None);
        for p in ["node_modules", "/tmp/build", "~/proj/dist", "~/.local/bin"] {
            assert_eq!(c.protection(p, true), None, "{p}");
        }
    }

    #[test]
    fn symlinks_that_exist_are_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        let link = tmp.path().join("innocent");
        std::os::unix::fs::symlink(home.join(".claude"), &link).unwrap();
        let c = PathContext {
            home: Some(home.to_string_lossy().into()),
            cwd: Some(tmp.path().to_string_lossy().into()),
            own: Vec::new(),
            glob_budget: std::cell::Cell::new(GLOB_BUDGET),
            roots: std::cell::OnceCell::new(),
        };
        assert_eq!(
            c.protected("innocent/settings.json"),
            Some("protect.claude_settings")
        );
        assert!(c.protection("innocent", true).is_some());
        assert_eq!(c.protected("innocent/agents/x.md"), None);
    }

    #[test]
    fn names_alone_when_the_folder_is_unknown() {
        let mut c = ctx();
        c.own.push(PathBuf::from(
            "/home/dev/.local/share/intentshield/intentshield.db",
        ));
        for p in [
            "settings.json",
            "config.toml",
            "hooks.json",
            ".mcp.json",
            "intentshield.db",
        ] {
            assert!(c.protected_name(p).is_some(), "{p}");
        }
        for p in ["notes.txt", "Cargo.toml", "package.json"] {
            assert_eq!(c.protected_name(p), None, "{p}");
        }
    }

    #[test]
    fn glob_expansion_is_bounded_by_the_calls_budget() {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..50 {
            std::fs::write(tmp.path().join(format!("f{i}")), "").unwrap();
        }
        let budget = std::cell::Cell::new(10);
        assert_eq!(expand_glob(&tmp.path().join("*"), &budget), None);
        let budget = std::cell::Cell::new(GLOB_BUDGET);
        assert_eq!(
            expand_glob(&tmp.path().join("f1?"), &budget).map(|v| v.len()),
            Some(10)
        );
        assert!(budget.get() < GLOB_BUDGET);
    }

    #[test]
    fn braces_expand_like_the_shell() {
        assert_eq!(
            expand_braces("~/.{claude,codex}"),
            vec!["~/.claude", "~/.codex"]
        );
        assert_eq!(expand_braces("a{b,c{d,e}}f"), vec!["abf", "acdf", "acef"]);
        assert_eq!(expand_braces("${HOME}/x"), vec!["${HOME}/x"]);
        assert_eq!(expand_braces("x{}y"), vec!["x{}y"]);
        assert_eq!(expand_braces(&"{a,b}".repeat(10)).len(), MAX_BRACES);
    }

    #[test]
    fn a_link_to_a_file_that_does_not_exist_yet_is_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        let link = tmp.path().join("notes.json");
        std::os::unix::fs::symlink(home.join(".claude/settings.local.json"), &link).unwrap();
        let c = PathContext {
            home: Some(home.to_string_lossy().into()),
            cwd: Some(tmp.path().to_string_lossy().into()),
            ..PathContext::default()
        };
        assert_eq!(c.protected("notes.json"), Some("protect.claude_settings"));
    }

    #[test]
    fn backups_plugins_and_path_copies_are_protected() {
        let c = ctx();
        for p in [
            "~/.claude/settings.json.intentshield.bak",
            ".mcp.json.intentshield-wrap.json",
            ".cursor/mcp.json.intentshield-wrap.bak",
            "~/.claude/plugins/cache/intentshield/intentshield/0.1.0/hooks/hooks.json",
        ] {
            assert!(c.protected(p).is_some(), "{p}");
        }
    }

    #[test]
    fn a_relative_config_flag_is_protected_where_the_hook_runs() {
        let own = own_files(None, Some(&PathBuf::from("is.toml")));
        let here = std::env::current_dir().unwrap().join("is.toml");
        assert!(own.contains(&here), "{own:?}");
    }
}

#[cfg(test)]
mod case_tests {
    use super::*;

    /// Case variants of agent settings and of our own files are protected on every system
    /// (a case-insensitive mount, or a macOS checkout of what was committed on Linux).
    #[test]
    fn case_variants_are_protected() {
        let c = PathContext {
            home: Some("/home/Dev".into()),
            cwd: Some("/home/Dev/Project".into()),
            ..PathContext::default()
        };
        for p in [
            ".Claude/Settings.json",
            ".CLAUDE/settings.local.JSON",
            "~/.Claude/settings.json",
            "~/.Config/Claude/claude_desktop_config.json",
            ".Git/Hooks/pre-commit",
            ".MCP.json",
            ".VSCode/MCP.json",
        ] {
            assert!(
                matches!(c.protection(p, false), Some(Protection::Is(_))),
                "{p}"
            );
        }
        assert!(c.protection("src/Settings.json", false).is_none());
        assert!(c.protection("docs/Claude.md", false).is_none());
    }
}
