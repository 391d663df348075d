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

/// Where relative and `~` paths are resolved from.
#[derive(Debug, Clone, Default)]
pub struct PathContext {
    /// `$HOME`.
    pub home: Option<String>,
    /// The agent's working directory (from the event).
    pub cwd: Option<String>,
    /// Our own files: the database, its directory, our config file.
    pub own: Vec<PathBuf>,
}

/// Our own files, which no tool may write: the database (`db`, when its path is known) and the
/// folder holding it, and the config file (`config_flag`, else the environment or default).
pub fn own_files(db: Option<&Path>, config_flag: Option<&PathBuf>) -> Vec<PathBuf> {
    let mut own = Vec::new();
    if let Some(p) = db {
        if let Some(dir) = p.parent() {
            own.push(dir.to_path_buf());
        }
        own.push(p.to_path_buf());
    }
    if let Some(c) = crate::config::config_path(config_flag) {
        own.push(c);
    }
    own
}

impl PathContext {
    /// Context from the environment and the event's cwd.
    pub fn new(cwd: Option<&str>, own: Vec<PathBuf>) -> PathContext {
        PathContext {
            home: crate::env::text(crate::env::HOME),
            cwd: cwd.map(str::to_string),
            own,
        }
    }

    /// Expands `~`, `$HOME`, `${HOME}`, makes relative paths absolute against cwd, and removes
    /// `.` and `..` lexically. Never touches the file system.
    pub fn resolve(&self, p: &str) -> PathBuf {
        let p = p.trim();
        let home = self.home.as_deref().unwrap_or("/root");
        let expanded = if p == "~" {
            home.to_string()
        } else if let Some(rest) = p.strip_prefix("~/") {
            format!("{home}/{rest}")
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
        let mut out = PathBuf::from("/");
        for c in joined.components() {
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

    /// True when `p` (resolved) is inside the working directory.
    pub fn in_workspace(&self, p: &Path) -> bool {
        match &self.cwd {
            Some(cwd) => p.starts_with(self.resolve(cwd)),
            None => false,
        }
    }

    /// The protection rule a write to `p` breaks, if any. `p` is resolved first.
    pub fn protected(&self, p: &str) -> Option<&'static str> {
        let r = self.resolve(p);
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
        // Our database, its directory and our config file. (Not their ancestors: copying a
        // build into `~` is everyday work.)
        for own in &self.own {
            if r.starts_with(own) {
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
        if let Some(home) = &self.home {
            for h in Harness::ALL {
                let p = &h.spec().protected;
                if p.whole_home_dir && r.starts_with(Path::new(home).join(p.dir)) {
                    return Some(p.rule);
                }
            }
            if r.starts_with(Path::new(home).join(".config/Claude"))
                || r.starts_with(Path::new(home).join(".codeium/windsurf"))
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
}
