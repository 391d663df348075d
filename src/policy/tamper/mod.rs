//! Tamper resistance: the agent's own tool calls must not approve for the guard, switch it
//! off, or rewrite what it remembers.
//!
//! Three rules, each over every form the shell analysis sees (directly, behind `xargs`,
//! `sh -c`, `env`, `find -exec`, a path to the binary, a copy of it):
//! - running one of our subcommands that changes state (anything but the read-only
//!   [`READ_ONLY_SUBCOMMANDS`]): `tamper.guard_command`;
//! - opening our database, its companions or our config with another program (`sqlite3`, an
//!   interpreter, an editor; only known read-only programs may look at them):
//!   `tamper.guard_state`;
//! - writing, removing, moving or replacing a protected file or a folder that holds one, by
//!   any tool: `builtin.protected_path` (see [`crate::paths::PathContext::protection`]).
//!
//! One file per rule: `guard.rs` (our subcommands, copies of our binary), `state.rs` (our
//! database and config opened by another program), `writes.rs` (protected paths and the
//! folders that hold them), `tools.rs` (what an MCP or other tool's name and arguments say).
//!
//! The lists here are allowlists: a subcommand, program or tool not known to be harmless to
//! the guard is treated as one that is not.

mod guard;
mod state;
mod tools;
mod writes;

pub use guard::{is_read_only_guard_command, READ_ONLY_SUBCOMMANDS};

use crate::decision::{Decision, Reason, Verdict};
use crate::event::{Tool, ToolKind};
use crate::paths::PathContext;
use crate::shell::{Analysis, SimpleCommand};

/// Programs whose arguments or input hold a script or option that can name a file to write
/// or a command to run (`sed`, `awk`, `git -c`, `make --eval`, `sqlite3`, `find -exec`,
/// `ssh`, `at`, editors …): a protected path or a guard command written inside counts.
const SCRIPTED: crate::strtab::StrTable = crate::str_table![
    "sed",
    "gsed",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "git",
    "make",
    "gmake",
    "sqlite3",
    "find",
    "xargs",
    "env",
    "yq",
    "jq",
    "sort",
    "tree",
    "tar",
    "rsync",
    "ssh",
    "scp",
    "vim",
    "vi",
    "nvim",
    "emacs",
    "ed",
    "ex",
    "expect",
    "tclsh",
    "lua",
    "php",
    "osascript",
    "pwsh",
    "powershell",
    "less",
    "more",
    "parallel",
    "socat",
    "script",
    "tmux",
    "screen",
    "at",
    "batch",
    "crontab",
    "watch",
    "entr",
    "systemd-run",
    "su",
    "runuser",
];

/// Runs the tamper rules on one call. `is_read` is the call's read-only classification.
pub fn check(
    tool: &Tool,
    sh: Option<&Analysis>,
    leaves: &[(String, String)],
    is_read: bool,
    tainted: bool,
    paths: &PathContext,
) -> Vec<Decision> {
    let mut out = Vec::new();
    let name = tool.display_name();
    // The line's write targets, computed once for the rules that need them.
    let shell_targets = sh.map(Analysis::write_targets).unwrap_or_default();
    if let Some(d) = writes::protected_write(tool, sh, &shell_targets, leaves, is_read, paths) {
        out.push(d);
    }
    // A command line an MCP tool runs is checked as the shell would run it.
    for cmd in tools::embedded_commands(tool, leaves) {
        let shell = Tool::new(
            &tool.name,
            ToolKind::Shell,
            None,
            serde_json::json!({ "command": cmd }),
        );
        let a = crate::shell::analyze(&cmd);
        out.extend(
            check(&shell, Some(&a), &[], false, tainted, paths)
                .into_iter()
                .map(|mut d| {
                    d.message = d.message.replacen(&shell.display_name(), &name, 1);
                    d
                }),
        );
    }
    if let Some(a) = sh {
        for c in a.all_commands() {
            if let Some(what) =
                guard::guard_command(c).or_else(|| guard::runs_looked_up_binary(a, c))
            {
                out.push(
                    Decision::new(
                        Verdict::Deny,
                        Reason::GuardCommand,
                        format!(
                            "{name} runs `{what}`, which changes IntentShield's own state; only a person may run it, in a terminal"
                        ),
                    )
                    .rule("tamper.guard_command")
                    .evidence(what),
                );
                break;
            }
        }
        if let Some((what, rule)) = a
            .all_commands()
            .into_iter()
            .find_map(guard::harness_cli_changes_settings)
        {
            out.push(
                Decision::new(
                    Verdict::Deny,
                    Reason::ProtectedPath,
                    format!(
                        "{name} runs `{what}`, which changes an agent's hooks, plugins, extensions, MCP servers or settings"
                    ),
                )
                .rule(rule)
                .evidence(what),
            );
        }
        if let Some(what) = guard::runs_guard_in_code(a) {
            out.push(
                Decision::new(
                    Verdict::Deny,
                    Reason::GuardCommand,
                    format!(
                        "{name} runs IntentShield's own state-changing command from code ({what}); only a person may run it, in a terminal"
                    ),
                )
                .rule("tamper.guard_command")
                .evidence(what),
            );
        }
        if tainted {
            if let Some(what) = guard::drives_terminal(a) {
                out.push(
                    Decision::new(
                        Verdict::Deny,
                        Reason::Unanalysable,
                        format!(
                            "{name} drives another program's terminal ({what}) in a tainted session: what it types cannot be checked"
                        ),
                    )
                    .rule("tamper.drives_terminal")
                    .evidence(what),
                );
            }
        }
        if let Some(what) = guard::writes_looked_up_binary(a, &shell_targets) {
            out.push(
                Decision::new(
                    Verdict::Deny,
                    Reason::GuardCommand,
                    format!(
                        "{name} writes, removes or replaces a path computed when it runs ({what}) in a line that looks up IntentShield's binary: it could be the guard itself"
                    ),
                )
                .rule("tamper.guard_binary")
                .evidence(what),
            );
        } else if let Some(what) = guard::copies_binary(a, !shell_targets.is_empty(), paths) {
            out.push(
                Decision::new(
                    Verdict::Deny,
                    Reason::GuardCommand,
                    format!(
                        "{name} copies IntentShield's binary ({what}); a copy could run the guard's commands under another name"
                    ),
                )
                .rule("tamper.guard_binary")
                .evidence(what),
            );
        }
        if let Some((prog, path)) = state::opens_own_state(a, paths) {
            out.push(
                Decision::new(
                    Verdict::Deny,
                    Reason::GuardState,
                    format!(
                        "{name} opens IntentShield's own state ({path}) with {prog}; the guard's database and config are off limits to the agent"
                    ),
                )
                .rule("tamper.guard_state")
                .evidence(path),
            );
        }
    }
    out
}

/// True when a command carries an option that makes an otherwise reading program write a file
/// (`sort -o`, `yq -i`, `--output=`, `-w`).
fn in_place(c: &SimpleCommand) -> bool {
    c.args.iter().any(|x| {
        matches!(
            x.as_str(),
            "-i" | "--in-place" | "--inplace" | "-o" | "--output" | "-w" | "--write"
        ) || x.starts_with("--in-place=")
            || x.starts_with("--output=")
            || (x.starts_with("-o") && x.len() > 2 && !x.starts_with("--"))
    })
}

/// The pieces of a script or option word that read as paths: split at quotes, brackets,
/// separators and `=` (`--output=~/.x` gives `~/.x`).
fn code_pieces(code: &str) -> Vec<&str> {
    code.split(|ch: char| {
        matches!(
            ch,
            '\'' | '"'
                | '`'
                | '('
                | ')'
                | ','
                | ';'
                | ' '
                | '\n'
                | '\t'
                | '['
                | ']'
                | '{'
                | '}'
                | '='
        )
    })
    .filter(|p| p.len() > 1 && looks_like_path(p))
    .take(256)
    .collect()
}

/// True for an argument that reads as a file path (`/etc/x`, `~/x`, `$HOME/x`, `./x`, `a/b`),
/// not a URL or prose.
fn looks_like_path(s: &str) -> bool {
    let s = s.trim();
    !s.is_empty()
        && s.len() <= 4096
        && !s.contains("://")
        && !s.contains('\n')
        && (s.starts_with('/')
            || s.starts_with('~')
            || s.starts_with("$HOME")
            || s.starts_with("${HOME}")
            || s.starts_with('.')
            || (s.contains('/') && !s.contains(' ')))
}
