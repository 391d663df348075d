//! The hook command line we install, and how we recognise our own entries.
//!
//! Every harness runs a hook's `command` string through a shell (Claude Code: `$SHELL`;
//! Codex: `$SHELL -lc`; Gemini CLI: `bash -c`; Cursor: its shell), hook-protocols.md §1.4,
//! §2.3, §4.4, §3.3. We write one string, `<abs exe> hook <harness>`, with the path quoted for
//! a POSIX shell when it needs it. A single string (rather than Claude Code's exec form
//! `args`, 2.1.139+) keeps the entry runnable by Cursor, which also reads Claude settings.

use std::path::{Path, PathBuf};

/// The command line of our hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookCommand {
    /// Absolute path of the `intentshield` executable.
    pub exe: PathBuf,
    /// Arguments: `hook <harness>` and any options.
    pub args: Vec<String>,
}

impl HookCommand {
    /// `<exe> hook <harness> [--review <mode>]`.
    pub fn new(exe: PathBuf, harness: &str, review: Option<&str>) -> HookCommand {
        let mut args = vec!["hook".to_string(), harness.to_string()];
        if let Some(r) = review {
            args.push("--review".into());
            args.push(r.into());
        }
        HookCommand { exe, args }
    }

    /// The command as one POSIX shell string.
    ///
    /// # Errors
    ///
    /// `executable path "<exe>" is not UTF-8` when it is not (it cannot be written into JSON).
    pub fn shell_line(&self) -> Result<String, String> {
        let exe = self
            .exe
            .to_str()
            .ok_or_else(|| format!("executable path {:?} is not UTF-8", self.exe))?;
        let mut out = shell_quote(exe);
        for a in &self.args {
            out.push(' ');
            out.push_str(&shell_quote(a));
        }
        Ok(out)
    }
}

pub use crate::text::shell_quote;

/// Splits a shell command line into words: plain words, single quotes, double quotes and
/// backslash escapes. `None` for an unterminated quote. Anything fancier (variables,
/// operators) is kept literally; this is only used to recognise our own entries.
pub fn shell_split(s: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut it = s.chars();
    while let Some(c) = it.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match it.next()? {
                        '\'' => break,
                        x => cur.push(x),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match it.next()? {
                        '"' => break,
                        '\\' => cur.push(it.next()?),
                        x => cur.push(x),
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.push(it.next()?);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Some(words)
}

fn is_our_exe(word: &str) -> bool {
    let name = Path::new(word)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    name == "intentshield" || name.starts_with("intentshield.") || name.starts_with("intentshield-")
}

/// Whether a handler's command line is one of ours: its program is named `intentshield`
/// (any directory) and its first argument is `hook`. Used by install (to replace a stale path
/// rather than add a second entry), uninstall and doctor.
pub fn is_ours(command: &str, args: Option<&[String]>) -> bool {
    match args {
        // Claude Code exec form: "command": "/x/intentshield", "args": ["hook", "claude"].
        Some(a) if !a.is_empty() => is_our_exe(command) && a[0] == "hook",
        _ => match shell_split(command) {
            Some(w) => w.len() >= 2 && is_our_exe(&w[0]) && w[1] == "hook",
            None => false,
        },
    }
}

/// The executable an installed command line runs, if it parses: its first shell word; for a
/// bare command name (what `install --portable` writes), the first executable file of that
/// name in the directories of `$PATH`, as the harness's shell finds it (the name itself when
/// none is found).
pub fn program_of(command: &str) -> Option<String> {
    let first = shell_split(command)?.into_iter().next()?;
    if first.contains('/') {
        return Some(first);
    }
    let path = std::env::var_os(crate::env::PATH).unwrap_or_default();
    let found = std::env::split_paths(&path)
        .filter(|d| d.is_absolute())
        .map(|d| d.join(&first))
        .find(|p| is_executable_file(p));
    Some(found.map_or(first, |p| p.display().to_string()))
}

#[cfg(unix)]
fn is_executable_file(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable_file(p: &Path) -> bool {
    p.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips_through_split() {
        for p in [
            "/usr/bin/intentshield",
            "/opt/my tools/intentshield",
            "/x/it's/intentshield",
            "/é/$HOME/`x`/intentshield",
        ] {
            let c = HookCommand::new(PathBuf::from(p), "claude", None);
            let line = c.shell_line().unwrap();
            let words = shell_split(&line).unwrap();
            assert_eq!(
                words,
                vec![p.to_string(), "hook".into(), "claude".into()],
                "{line}"
            );
            assert!(is_ours(&line, None));
        }
    }

    #[test]
    fn recognises_only_our_entries() {
        assert!(is_ours("/a/intentshield hook gemini", None));
        assert!(is_ours("intentshield hook codex --review always", None));
        assert!(is_ours(
            "/a/intentshield",
            Some(&["hook".into(), "claude".into()])
        ));
        assert!(!is_ours("/a/intentshield doctor", None));
        assert!(!is_ours("/usr/local/bin/guard hook --harness claude", None));
        assert!(!is_ours("echo intentshield hook", None));
        assert!(!is_ours("'unterminated", None));
        assert!(!is_ours("", None));
    }
}
