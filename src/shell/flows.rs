//! Dangerous flows across a line: a download fed to an interpreter
//! ([`Analysis::pipe_to_shell`]), a secret fed to the network ([`Analysis::secret_egress`],
//! with [`is_secret_path`], [`is_secret_var`] and [`glob_match`]), and a nested coding agent
//! started with its permission checks off ([`Analysis::nested_agent_unsafe`]).

mod secrets;

pub use secrets::{secret_kind, Flows, SecretKind, SecretRead};

use super::command::{basename, SimpleCommand};
use super::Analysis;

impl Analysis {
    /// A download fed to an interpreter: `curl … | sh`, `sh <(curl …)`, `bash -c "$(curl …)"`,
    /// `eval "$(wget -O- …)"`, `python3 -c "$(curl …)"`. Returns a short description.
    pub fn pipe_to_shell(&self) -> Option<String> {
        for p in &self.pipelines {
            if let Some(d) = p.iter().position(|c| c.is_downloader()) {
                if let Some(sh) = p[d + 1..].iter().find(|c| c.stdin_is_code()) {
                    return Some(format!("{} | {}", p[d].program, sh.program));
                }
            }
        }
        for (pi, ci, n) in &self.nested {
            let downloads = n.all_commands().iter().any(|c| c.is_downloader());
            if !downloads {
                continue;
            }
            if let Some(owner) = self.pipelines.get(*pi).and_then(|p| p.get(*ci)) {
                if owner.is_interpreter() {
                    return Some(format!("{} $(download)", owner.program));
                }
            }
            // `sh <(curl …)` is recorded as a word of the interpreter's command.
            for p in &self.pipelines {
                for c in p {
                    if c.is_interpreter()
                        && c.args.iter().any(|a| a == "<(…)" || a.contains("$(…)"))
                    {
                        return Some(format!("{} <(download)", c.program));
                    }
                }
            }
        }
        for (_, _, n) in &self.nested {
            if let Some(x) = n.pipe_to_shell() {
                return Some(x);
            }
        }
        // Download to a file, then run it in the same line (`curl -o i.sh URL && bash i.sh`,
        // `curl URL > /tmp/i.sh; sh /tmp/i.sh`, `chmod +x i.sh && ./i.sh`).
        let cmds: Vec<&SimpleCommand> = self.pipelines.iter().flatten().collect();
        for (i, c) in cmds.iter().enumerate() {
            if !c.is_downloader() {
                continue;
            }
            for f in c.writes() {
                let name = basename(&f).to_string();
                if name.is_empty() {
                    continue;
                }
                let runs = cmds[i + 1..].iter().any(|r| {
                    r.program == name
                        || (r.is_interpreter() && r.args.iter().any(|a| basename(a) == name))
                });
                if runs {
                    return Some(format!("{} -o {name}, then runs it", c.program));
                }
            }
        }
        None
    }

    /// A nested coding agent started with its permission checks off (Claude Code
    /// `--dangerously-skip-permissions` / `--permission-mode bypassPermissions`, Codex
    /// `--dangerously-bypass-approvals-and-sandbox` / `--yolo`, Gemini CLI `--yolo` /
    /// `--approval-mode yolo`, and the like).
    pub fn nested_agent_unsafe(&self) -> Option<String> {
        const AGENTS: &[&str] = &[
            "claude",
            "codex",
            "gemini",
            "cursor-agent",
            "amp",
            "aider",
            "opencode",
            "goose",
            "qwen",
            "crush",
        ];
        // Package runners that start what they are given.
        const RUNNERS: &[&str] = &["npx", "bunx", "pnpm", "yarn", "uvx", "pipx", "node", "deno"];
        for c in self.all_commands() {
            // The agent is the program itself, or what a package runner starts
            // (`npx @anthropic-ai/claude-code`, `bunx`, `pnpm dlx`, `uvx`...).
            let launched: Option<&str> = if RUNNERS.contains(&c.program.as_str()) {
                c.args
                    .iter()
                    .find(|a| !a.starts_with('-') && !matches!(a.as_str(), "dlx" | "exec" | "run"))
                    .map(String::as_str)
            } else {
                Some(c.program.as_str())
            };
            let names_agent = launched.is_some_and(|w| {
                let w = w.trim_start_matches('@');
                AGENTS.iter().any(|a| names_agent(w, a))
            });
            if !names_agent {
                continue;
            }
            let words: Vec<&str> = std::iter::once(c.program.as_str())
                .chain(c.args.iter().map(String::as_str))
                .collect();
            for (i, w) in words.iter().enumerate() {
                let next = words.get(i + 1).copied().unwrap_or("");
                let bad = matches!(
                    *w,
                    "--dangerously-skip-permissions"
                        | "--dangerously-bypass-approvals-and-sandbox"
                        | "--dangerously-allow-all"
                        | "--yolo"
                        | "--yes-always"
                        | "--permission-mode=bypassPermissions"
                        | "--approval-mode=yolo"
                ) || (*w == "--permission-mode" && next == "bypassPermissions")
                    || (*w == "--approval-mode" && next == "yolo")
                    || (*w == "-y" && c.program == "gemini");
                if bad {
                    return Some(format!("{} {}", c.program, w));
                }
            }
        }
        None
    }
}

/// True when the word `w` (a program or package name, leading `@` removed) names the coding
/// agent `a`: `a` itself, a path ending in `/a`, a name holding `a-code` or `a-cli`, or `a@`
/// followed by a version. Compares in place (called for every command of a line).
fn names_agent(w: &str, a: &str) -> bool {
    w == a
        || w.strip_suffix(a).is_some_and(|r| r.ends_with('/'))
        || (0..w.len()).any(|i| {
            let after = &w.as_bytes()[i..];
            after.starts_with(a.as_bytes()) && {
                let after = &after[a.len()..];
                after.starts_with(b"-code") || after.starts_with(b"-cli")
            }
        })
        || w.strip_prefix(a).is_some_and(|r| r.starts_with('@'))
}

/// True when a path or glob names a secret file: a private key, cloud credentials, an
/// environment file or another process's environment ([`secret_kind`]; not a folder that
/// holds secrets). Globs count only when they can match one.
pub fn is_secret_path(p: &str) -> bool {
    secret_kind(p).is_some_and(|k| !matches!(k, SecretKind::Folder | SecretKind::EnvDump))
}

/// Minimal glob: `*` and `?`; `[...]` matches any one character. A pattern too costly to
/// decide within the step budget counts as matching (it may).
pub fn glob_match(pat: &str, s: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let t: Vec<char> = s.chars().collect();
    fn go(p: &[char], t: &[char], budget: &mut u32) -> bool {
        *budget = budget.saturating_sub(1);
        if *budget == 0 {
            return false;
        }
        match p.first() {
            None => t.is_empty(),
            Some('*') => (0..=t.len()).any(|k| go(&p[1..], &t[k..], budget)),
            Some('?') => !t.is_empty() && go(&p[1..], &t[1..], budget),
            Some('[') => {
                let close = p.iter().position(|c| *c == ']').unwrap_or(p.len() - 1);
                !t.is_empty() && go(&p[close + 1..], &t[1..], budget)
            }
            Some(c) => t.first() == Some(c) && go(&p[1..], &t[1..], budget),
        }
    }
    let mut budget = 10_000;
    go(&p, &t, &mut budget) || budget == 0
}

/// True when an environment-variable reference names a secret (`$AWS_SECRET_ACCESS_KEY`,
/// `${GITHUB_TOKEN}`, `$OPENAI_API_KEY`, `$DB_PASSWORD`).
pub fn is_secret_var(word: &str) -> bool {
    let mut rest = word;
    while let Some(pos) = rest.find('$') {
        let after = &rest[pos + 1..];
        let after = after.strip_prefix('{').unwrap_or(after);
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let up = name.to_ascii_uppercase();
        if up.len() > 3
            && (up.contains("TOKEN")
                || up.contains("SECRET")
                || up.contains("PASSWORD")
                || up.contains("PASSWD")
                || up.ends_with("_KEY")
                || up.contains("API_KEY")
                || up.contains("CREDENTIAL"))
        {
            return true;
        }
        rest = &after[name.len().min(after.len())..];
    }
    false
}

impl Analysis {
    /// Secrets flowing into the network anywhere in the line ([`Analysis::secret_flows`] with
    /// no files remembered from earlier calls). Returns the secret's word.
    pub fn secret_egress(&self) -> Option<SecretFlow> {
        self.plain_flows().egress.clone()
    }
}

/// A secret found flowing into the network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretFlow {
    /// The word that names it (`.env`, `~/.ssh/id_rsa`, `$GITHUB_TOKEN`, `env`).
    pub word: String,
    /// True for a file or the whole environment; false for one variable (a token sent with
    /// its own request is everyday work, so the policy asks rather than denies for it).
    pub file: bool,
}

#[cfg(test)]
mod tests;
