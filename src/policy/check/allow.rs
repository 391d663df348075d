//! Check 6: a person's way past a wrong objection: the `[allow]` list of the config file and a
//! project paused with `intentshield pause` (`crate::pause`).
//!
//! It runs after the tamper check and before provenance, taint and review. When the call is on
//! the allow list, or its working directory is in a paused project, it sets the call's
//! [`Waiver`]: the later checks still run, but [`super::pre_tool`] sets their objection aside
//! (an allow-listed call: their asks; a paused project: their asks and denies) and answers no
//! objection with the reason `allow.listed` or `pause.project`, naming what would have been
//! answered without it. Whatever the earlier checks decided stands: an MCP tool in quarantine,
//! self-disclosure fields, injected instructions or secrets in the arguments, the built-in
//! always-deny rules (a download piped to a shell, secrets sent out, nested agents with their
//! checks off, unanalysable commands) and tamper protection (our commands, our state, harness
//! settings and hooks).
//!
//! Matching, precisely (entries come only from the protected config file, see `config::load`):
//! - `hosts`: an entry is a host name (`api.github.com`, matched exactly, case-insensitively)
//!   or `*.` and a suffix of at least two labels (`*.example.com` matches every name under
//!   `example.com`, not `example.com` itself). A call matches when it has destinations, they are
//!   all hosts or URLs (no e-mail address, account number or path among them), and every host
//!   matches an entry.
//! - `commands`: an entry is one or more words (`git push`, `npm publish --dry-run`). A shell
//!   call matches when its command line starts with the entry's words, whole words, and holds no
//!   shell operator or expansion (none of `; & | < > $ \` ( ) { } \` and no line break): `git
//!   push origin main` matches `git push`; `git pushx`, `git push; curl …`, `git push "$(…)"` do
//!   not.
//! - `paths`: an entry is an absolute path or one starting with `~/` (a folder or a file). A
//!   file tool's call (read, write, edit) matches when every path it names, resolved (`~`, the
//!   working directory, `..`, and the symlinks that exist now), is the entry or inside it, whole
//!   path components (`/srv/app` covers `/srv/app/x`, not `/srv/app2`).

use super::{Call, Waiver};
use crate::decision::{Decision, Reason, Verdict};
use crate::event::ToolKind;
use crate::provenance::kind;
use std::path::{Path, PathBuf};

/// Most entries in each of the `[allow]` lists.
pub const MAX_ENTRIES: usize = 1000;
/// Longest entry (bytes).
pub const MAX_ENTRY_LEN: usize = 1024;
/// Characters that make a command line never match a `commands` entry (shell operators,
/// expansions, quoting escapes).
const SHELL_SYNTAX: &[char] = &[
    ';', '&', '|', '<', '>', '$', '`', '(', ')', '{', '}', '\\', '\n', '\r',
];

/// The `[allow]` table of the config file: hosts, command prefixes and paths whose calls the
/// provenance, taint and review checks do not ask about.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList {
    /// Host names, lower-case: `api.github.com` or `*.example.com`.
    pub hosts: Vec<String>,
    /// Command prefixes, each as its words.
    pub commands: Vec<Vec<String>>,
    /// Paths as written (`/srv/app`, `~/notes`); resolved when a call is matched.
    pub paths: Vec<String>,
}

impl AllowList {
    /// True when no list has an entry.
    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty() && self.commands.is_empty() && self.paths.is_empty()
    }

    /// Reads the `[allow]` table (`hosts`, `commands`, `paths`: arrays of strings).
    ///
    /// # Errors
    ///
    /// `allow must be a table`; `allow.<key> must be an array of strings`; `unknown key
    /// allow.<key>: expected hosts, commands or paths`; `allow.<key> has more than 1000
    /// entries`; and per entry: `allow.hosts: '<e>' is not a host name or *.suffix with two
    /// labels or more`, `allow.commands: '<e>' is empty or holds shell operators`,
    /// `allow.paths: '<e>' must be absolute or start with ~/, and not be /`.
    pub fn from_toml(item: &toml_edit::Item) -> Result<AllowList, String> {
        let table = item.as_table_like().ok_or("allow must be a table")?;
        let mut list = AllowList::default();
        for (key, value) in table.iter() {
            let arr = value
                .as_array()
                .ok_or_else(|| format!("allow.{key} must be an array of strings"))?;
            if arr.len() > MAX_ENTRIES {
                return Err(format!("allow.{key} has more than {MAX_ENTRIES} entries"));
            }
            let mut items = Vec::new();
            for v in arr.iter() {
                let s = v
                    .as_str()
                    .ok_or_else(|| format!("allow.{key} must be an array of strings"))?;
                if s.len() > MAX_ENTRY_LEN {
                    return Err(format!(
                        "allow.{key}: an entry is longer than {MAX_ENTRY_LEN} bytes"
                    ));
                }
                items.push(s.trim().to_string());
            }
            match key {
                "hosts" => {
                    for h in items {
                        list.hosts.push(parse_host(&h).ok_or_else(|| {
                            format!("allow.hosts: '{h}' is not a host name or *.suffix with two labels or more")
                        })?);
                    }
                }
                "commands" => {
                    for c in items {
                        let words: Vec<String> = c.split_whitespace().map(str::to_string).collect();
                        if words.is_empty() || c.contains(SHELL_SYNTAX) {
                            return Err(format!(
                                "allow.commands: '{c}' is empty or holds shell operators"
                            ));
                        }
                        list.commands.push(words);
                    }
                }
                "paths" => {
                    for p in items {
                        let ok = (p.starts_with('/') || p.starts_with("~/"))
                            && !matches!(p.trim_end_matches('/'), "" | "~");
                        if !ok {
                            return Err(format!(
                                "allow.paths: '{p}' must be absolute or start with ~/, and not be /"
                            ));
                        }
                        list.paths.push(p);
                    }
                }
                other => {
                    return Err(format!(
                        "unknown key allow.{other}: expected hosts, commands or paths"
                    ))
                }
            }
        }
        Ok(list)
    }
}

/// A host entry, lower-case, or `None` when it is neither a host name nor `*.` and a suffix of
/// two labels or more.
fn parse_host(s: &str) -> Option<String> {
    let lower = s.to_ascii_lowercase();
    let (wild, name) = match lower.strip_prefix("*.") {
        Some(rest) => (true, rest),
        None => (false, lower.as_str()),
    };
    let ok_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    let labels: Vec<&str> = name.split('.').collect();
    let ok = ok_chars
        && !name.is_empty()
        && name.len() <= 253
        && labels.iter().all(|l| !l.is_empty() && l.len() <= 63)
        && (!wild || labels.len() >= 2);
    ok.then_some(lower)
}

/// True when `host` (lower-case) matches the entry `pattern`.
fn host_matches(pattern: &str, host: &str) -> bool {
    match pattern.strip_prefix("*.") {
        Some(suffix) => host
            .strip_suffix(suffix)
            .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
        None => pattern == host,
    }
}

/// Sets the call's waiver when its project is paused or it is on the allow list.
pub fn check(call: &mut Call<'_>) {
    if let Some(p) = &call.ctx.pause {
        let msg = format!(
            "the project {} is paused by a person (`intentshield pause --list` shows until when)",
            p.project.display(),
        );
        call.waiver = Some(Waiver {
            decision: Decision::new(Verdict::Allow, Reason::ProjectPaused, msg)
                .rule("pause.project"),
            lifts_deny: true,
        });
        return;
    }
    let list = &call.ctx.config.allow;
    if list.is_empty() {
        return;
    }
    let Some((rule, what)) = matched(call, list) else {
        return;
    };
    let file = call.ctx.config.file.as_deref().map_or_else(
        || "the config file".to_string(),
        |f| f.display().to_string(),
    );
    call.waiver = Some(Waiver {
        decision: Decision::new(
            Verdict::Allow,
            Reason::AllowListed,
            format!("{what} is on the [allow] list of {file}"),
        )
        .rule(rule)
        .evidence(what),
        lifts_deny: false,
    });
}

/// The allow-list rule and entry the call matches, if it does.
fn matched(call: &Call<'_>, list: &AllowList) -> Option<(&'static str, String)> {
    if let Some(c) = commands_match(call, list) {
        return Some(("allow.commands", c));
    }
    if let Some(h) = hosts_match(call, list) {
        return Some(("allow.hosts", h));
    }
    if let Some(p) = paths_match(call, list) {
        return Some(("allow.paths", p));
    }
    None
}

fn commands_match(call: &Call<'_>, list: &AllowList) -> Option<String> {
    if call.tool.kind != ToolKind::Shell || list.commands.is_empty() {
        return None;
    }
    let cmd = call.tool.command.as_deref()?;
    if cmd.contains(SHELL_SYNTAX) || call.tool.unanalysable.is_some() {
        return None;
    }
    let words: Vec<&str> = cmd.split_whitespace().collect();
    list.commands
        .iter()
        .find(|entry| entry.len() <= words.len() && entry.iter().zip(&words).all(|(a, b)| a == b))
        .map(|entry| format!("command `{}`", entry.join(" ")))
}

fn hosts_match(call: &Call<'_>, list: &AllowList) -> Option<String> {
    if list.hosts.is_empty() || call.dests.is_empty() {
        return None;
    }
    let mut hosts = Vec::new();
    for d in &call.dests {
        match d.kind {
            kind::HOST => hosts.push(d.text.to_ascii_lowercase()),
            // A URL's host is among the HOST values; a domain is derived from a host.
            kind::URL | kind::DOMAIN => {}
            _ => return None,
        }
    }
    if hosts.is_empty() {
        return None;
    }
    let mut entries = Vec::new();
    for h in &hosts {
        let e = list.hosts.iter().find(|p| host_matches(p, h))?;
        if !entries.contains(e) {
            entries.push(e.clone());
        }
    }
    Some(format!("host {}", entries.join(", ")))
}

fn paths_match(call: &Call<'_>, list: &AllowList) -> Option<String> {
    if list.paths.is_empty() || !matches!(call.tool.kind, ToolKind::FileRead | ToolKind::FileWrite)
    {
        return None;
    }
    let paths = &call.ctx.paths;
    let named: Vec<&String> = call
        .tool
        .read_paths
        .iter()
        .chain(&call.tool.write_paths)
        .collect();
    if named.is_empty() {
        return None;
    }
    // Each entry as written and through the symlinks that exist now.
    let roots: Vec<(&String, Vec<PathBuf>)> = list
        .paths
        .iter()
        .map(|e| {
            let r = paths.resolve(e);
            let mut forms = vec![r.clone()];
            forms.extend(paths.real(&r));
            (e, forms)
        })
        .collect();
    let covered = |p: &Path| -> Option<&String> {
        roots
            .iter()
            .find(|(_, forms)| forms.iter().any(|f| p.starts_with(f)))
            .map(|(e, _)| *e)
    };
    let mut entries: Vec<&String> = Vec::new();
    for p in named {
        if p.contains('\0') {
            return None;
        }
        let r = paths.resolve(p);
        let e = covered(&r)?;
        // Where it really is must be covered too (a symlink out of the folder).
        if let Some(real) = paths.real(&r) {
            covered(&real)?;
        }
        if !entries.contains(&e) {
            entries.push(e);
        }
    }
    Some(format!(
        "path {}",
        entries
            .iter()
            .map(|e| e.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(toml: &str) -> Result<AllowList, String> {
        let doc: toml_edit::DocumentMut = toml.parse().unwrap();
        AllowList::from_toml(doc.get("allow").unwrap())
    }

    #[test]
    fn entries_are_checked() {
        let l = list(
            "[allow]\nhosts = [\"API.github.com\", \"*.example.com\"]\ncommands = [\"git  push\"]\npaths = [\"~/notes\", \"/srv/app/\"]",
        )
        .unwrap();
        assert_eq!(l.hosts, vec!["api.github.com", "*.example.com"]);
        assert_eq!(
            l.commands,
            vec![vec!["git".to_string(), "push".to_string()]]
        );
        assert_eq!(l.paths, vec!["~/notes", "/srv/app/"]);
        for bad in [
            "[allow]\nhosts = [\"*.com\"]",
            "[allow]\nhosts = [\"*\"]",
            "[allow]\nhosts = [\"a*.example.com\"]",
            "[allow]\nhosts = [\"exa mple.com\"]",
            "[allow]\nhosts = \"x.com\"",
            "[allow]\nhosts = [3]",
            "[allow]\ncommands = [\"git push; rm -rf /\"]",
            "[allow]\ncommands = [\"  \"]",
            "[allow]\ncommands = [\"echo $HOME\"]",
            "[allow]\npaths = [\"relative/dir\"]",
            "[allow]\npaths = [\"/\"]",
            "[allow]\npaths = [\"~\"]",
            "[allow]\nhost = [\"x.com\"]",
            "allow = 3",
        ] {
            let doc: toml_edit::DocumentMut = bad.parse().unwrap();
            assert!(
                AllowList::from_toml(doc.get("allow").unwrap()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn host_patterns() {
        assert!(host_matches("api.github.com", "api.github.com"));
        assert!(!host_matches("api.github.com", "xapi.github.com"));
        assert!(host_matches("*.example.com", "a.example.com"));
        assert!(host_matches("*.example.com", "a.b.example.com"));
        assert!(!host_matches("*.example.com", "example.com"));
        assert!(!host_matches("*.example.com", "badexample.com"));
        assert!(!host_matches("*.example.com", "example.com.evil.invalid"));
    }
}
