//! Our own commands: the agent may run the read-only ones, never one that changes the guard's
//! state, under any name (a path, a variable, a copy of the binary).

use crate::paths::PathContext;
use crate::shell::{Analysis, SimpleCommand};
use std::path::{Path, PathBuf};

/// Our subcommands that only read or print, which the agent may run (`approve --list` and
/// `mcp list` too, and `doctor` without `--repair`). Every other one changes state.
pub const READ_ONLY_SUBCOMMANDS: crate::strtab::StrTable = crate::str_table![
    "log",
    "audit",
    "check",
    "scan",
    "doctor",
    "demo",
    "help",
    "completions",
    "man",
];

/// Subcommand names that change the guard's state; a program the analysis cannot identify
/// (`$B`, `$(which …)`, a copy under another name) is taken for the guard when it is run with
/// one of them.
const STATE_CHANGING: crate::strtab::StrTable = crate::str_table![
    "approve",
    "install",
    "uninstall",
    "wrap",
    "unwrap",
    "mcp",
    "mcp-proxy",
    "replay",
    "pause",
    "threats",
];

/// The harness names `install`/`uninstall` take (so that `bun install` is not the guard).
const HARNESS_WORDS: &[&str] = &["claude", "codex", "cursor", "gemini", "--all"];

/// True when `c` runs one of our read-only subcommands (`intentshield log`, `doctor` without
/// `--repair`, `approve --list`...): it reads, so a tainted session need not ask about it.
pub fn is_read_only_guard_command(c: &SimpleCommand) -> bool {
    is_guard_name(&c.program) && guard_command(c).is_none()
}

/// The state-changing guard command `c` runs, if it does (`intentshield approve 12`).
pub(super) fn guard_command(c: &SimpleCommand) -> Option<String> {
    let positional = c.operands();
    let sub = positional.first().copied();
    let flag = |f: &str| {
        c.args
            .iter()
            .any(|a| a == f || a.starts_with(&format!("{f}=")))
    };
    let shown = || {
        let mut w = vec![c.program.clone()];
        w.extend(c.args.iter().take(3).cloned());
        w.join(" ")
    };
    if is_guard_name(&c.program) {
        // Arguments the analysis cannot read (`$(echo --repair)`, `$X`, a glob, or what
        // `xargs` reads from a file) could be any subcommand or flag.
        let unknown_args = c.via_xargs
            || c.args
                .iter()
                .any(|a| a.contains(['$', '`', '*', '?', '[', '{']) || a.contains("$(…)"));
        // `intentshield SUB [SUB2 [SUB3]] --help` prints help and exits before anything runs
        // (clap's behaviour). Only that exact shape: a program run behind `mcp-proxy` takes
        // its own options.
        let help_only = c.args.last().is_some_and(|a| a == "--help" || a == "-h")
            && c.args.len() <= 4
            && c.args[..c.args.len() - 1]
                .iter()
                .all(|a| !a.starts_with('-'))
            && sub != Some("mcp-proxy");
        let read_only = !unknown_args
            && (help_only
                || match sub {
                    None => true,
                    Some("doctor") => !flag("--repair"),
                    Some("approve") => flag("--list") && positional.len() == 1,
                    Some("mcp") => positional.get(1) == Some(&"list"),
                    // The threat memory may be read; confirm, allow, forget, import and packs change it.
                    Some("threats") => match positional.get(1).copied() {
                        Some("stats" | "list" | "show" | "export") => true,
                        Some("pack") => positional.get(2) == Some(&"list"),
                        _ => false,
                    },
                    // Validates the contracts and runs its table; never calls a tool, writes nothing.
                    Some("contracts") => positional.get(1) == Some(&"check"),
                    // `check --db` records its events in that database (prompts as the user's).
                    Some("check") => !flag("--db"),
                    Some(s) => READ_ONLY_SUBCOMMANDS.contains(s),
                });
        return (!read_only).then(shown);
    }
    let sub = sub?;
    if !STATE_CHANGING.contains(sub) {
        return None;
    }
    if matches!(sub, "install" | "uninstall")
        && !c.args.iter().any(|a| HARNESS_WORDS.contains(&a.as_str()))
    {
        return None;
    }
    // A program the analysis cannot name (a variable, a substitution, a glob or brace
    // pattern), or a file that is the guard under another name.
    let unknown = c.argv0.is_empty() || c.argv0.contains(['$', '`', '*', '?', '[', '{']);
    (unknown || is_guard_file(&c.argv0)).then(shown)
}

/// True when `text` (inline code, a script, a config value) runs one of our state-changing
/// subcommands: `intentshield` (or a path ending in it) followed, past quotes, commas and
/// brackets, by a state-changing subcommand or `doctor … --repair`.
pub(super) fn text_runs_guard_change(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let mut rest = lower.as_str();
    while let Some(pos) = rest.find("intentshield") {
        let after = &rest[pos + "intentshield".len()..];
        // The rest of the program word (`intentshield.exe`, `intentshield-v2`).
        let after = after.trim_start_matches(|c: char| c.is_alphanumeric() || "-_.".contains(c));
        let next: String = after
            .trim_start_matches(|c: char| c.is_whitespace() || "'\",[](){}".contains(c))
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if STATE_CHANGING.contains(next.as_str())
            || (next == "doctor" && after.contains("--repair"))
            || (next == "check" && after.contains("--db"))
        {
            return true;
        }
        rest = &rest[pos + "intentshield".len()..];
    }
    false
}

/// True for a program named like our binary (`intentshield`, `intentshield.exe`,
/// `intentshield-v2`).
pub(super) fn is_guard_name(program: &str) -> bool {
    let p = program.to_ascii_lowercase();
    p.starts_with("intentshield") && !p.ends_with(".rs") && !p.ends_with(".md")
}

/// True when the program word names a file, by path or on `$PATH`, that is the running guard
/// binary: the same file (a symlink or hard link) or a byte-for-byte copy.
fn is_guard_file(argv0: &str) -> bool {
    let Ok(me) = std::env::current_exe() else {
        return false;
    };
    let candidates: Vec<PathBuf> = if argv0.contains('/') {
        vec![PathBuf::from(argv0)]
    } else {
        crate::env::text(crate::env::PATH)
            .map(|p| {
                p.split(':')
                    .filter(|d| !d.is_empty())
                    .map(|d| Path::new(d).join(argv0))
                    .collect()
            })
            .unwrap_or_default()
    };
    candidates.iter().any(|c| same_file(c, &me))
}

/// True when `a` and `b` are the same file or have the same bytes (a copy).
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    if (ma.dev(), ma.ino()) == (mb.dev(), mb.ino()) {
        return true;
    }
    ma.is_file()
        && ma.len() == mb.len()
        && matches!((std::fs::read(a), std::fs::read(b)), (Ok(x), Ok(y)) if x == y)
}

/// Programs that print a path they are given or find (`which`, `command -v`, `echo`,
/// `find -name`): one of them naming our binary in a line makes a substitution in that line
/// stand for the binary's path.
const LOOKUPS: crate::strtab::StrTable = crate::str_table![
    "which", "command", "type", "whereis", "whence", "hash", "realpath", "readlink", "dirname",
    "echo", "printf", "find", "locate", "ls",
];

/// True when a command of the line looks our binary up or prints its path
/// (`$(which intentshield)`, `p=$(command -v intentshield)`,
/// `$(echo /usr/local/bin/intentshield)`): a substitution or variable in that line may then
/// hold the binary's path.
pub(super) fn looks_up_binary(a: &Analysis) -> bool {
    a.all_commands().iter().any(|c| {
        LOOKUPS.contains(c.program.as_str())
            && c.args
                .iter()
                .any(|x| is_guard_name(x.rsplit('/').next().unwrap_or(x)))
    })
}

/// A write, removal or replacement whose target is computed when the line runs (a
/// substitution or a variable) in a line that looks our binary up (`rm -f $(command -v
/// intentshield)`, `p=$(which intentshield); cp /bin/true "$p"`): the target may be the guard's
/// binary, so it counts as one. Returns the program and the target as written.
pub(super) fn writes_looked_up_binary(
    a: &Analysis,
    targets: &[crate::shell::WriteTarget],
) -> Option<String> {
    if targets.is_empty() || !looks_up_binary(a) {
        return None;
    }
    targets
        .iter()
        .find(|t| t.path.contains(['$', '`', '\u{FFFD}']) || t.path.contains("(…)"))
        .map(|t| format!("{} {}", t.by, t.path))
}

/// A program the analysis cannot name (a substitution or a variable: `$(which intentshield)
/// uninstall`) in a line that looks our binary up is the guard: the command it runs, when that
/// is not one of the read-only ones.
pub(super) fn runs_looked_up_binary(a: &Analysis, c: &SimpleCommand) -> Option<String> {
    let unknown = c.computed_program
        || c.argv0.is_empty()
        || c.argv0.contains(['$', '`'])
        || c.argv0.contains("(…)");
    if !unknown || !looks_up_binary(a) {
        return None;
    }
    let mut as_guard = c.clone();
    as_guard.program = "intentshield".to_string();
    guard_command(&as_guard)
}

/// A copy, link or move of the guard's binary (the running one, by path or by bytes) in a line
/// that writes somewhere (`cp ~/.cargo/bin/intentshield /tmp/g`,
/// `ln -s "$(which intentshield)" g`). Copying our other files is [`opens_own_state`]'s.
/// `writes_something` says whether the line writes anywhere (its write targets, computed once
/// by the caller).
pub(super) fn copies_binary(
    a: &Analysis,
    writes_something: bool,
    paths: &PathContext,
) -> Option<String> {
    if !writes_something {
        return None;
    }
    let me = std::env::current_exe().ok();
    let looked_up = looks_up_binary(a);
    for c in a.all_commands() {
        let copier = matches!(
            c.program.as_str(),
            "cp" | "ln" | "install" | "rsync" | "mv" | "ditto" | "scp"
        );
        if !copier && !matches!(c.program.as_str(), "cat" | "dd" | "tee") {
            continue;
        }
        let mut operands: Vec<&str> = c
            .args
            .iter()
            .filter(|x| !x.starts_with('-'))
            .map(|x| x.strip_prefix("if=").unwrap_or(x))
            .collect();
        if copier {
            // The last operand is the destination (its protection is the write rule's).
            operands.pop();
        }
        operands.extend(c.redirect_reads.iter().map(String::as_str));
        for o in operands {
            let names_it = o.contains("$(…)") && looked_up;
            let is_it = me.as_deref().is_some_and(|me| {
                let r = paths.resolve(o);
                r == me || std::fs::canonicalize(&r).is_ok_and(|x| same_file(&x, me))
            });
            if names_it || is_it {
                return Some(format!("{} {o}", c.program));
            }
        }
    }
    None
}

/// A state-changing guard command written inside code or a script another program runs
/// (`python3 -c "subprocess.run(['intentshield','uninstall','claude'])"`,
/// `awk 'BEGIN{system("intentshield …")}'`, `git -c alias.x='!intentshield …' x`): the
/// program and the text.
pub(super) fn runs_guard_in_code(a: &Analysis) -> Option<String> {
    for c in a.all_commands() {
        if !c.is_interpreter() && !super::SCRIPTED.contains(c.program.as_str()) {
            continue;
        }
        // Git runs code only from its config (`-c alias.x='!…'`), not from a commit message.
        let git = c.program == "git";
        let hit = c
            .args
            .iter()
            .chain(c.heredoc.iter())
            .filter(|w| !git || w.contains('!') || w.to_ascii_lowercase().contains("alias."))
            .find(|w| text_runs_guard_change(w));
        if let Some(w) = hit {
            let short: String = w.chars().take(80).collect();
            return Some(format!("{} {short}", c.program));
        }
    }
    None
}

/// Programs that drive another program's terminal (and so can answer its prompts).
const TERMINAL_DRIVERS: crate::strtab::StrTable = crate::str_table![
    "script", "expect", "unbuffer", "empty", "ptyrun", "pty", "dtach", "abduco", "conspy",
    "ttyecho", "reptyr",
];

/// Words in inline code that open or feed a pseudo-terminal (Python `pty`, `pexpect`, Node
/// `node-pty`, Perl `IO::Pty`/`Expect`, C-level `openpty`/`forkpty`, and `TIOCSTI`, which
/// pushes characters into a terminal's input).
const PTY_CODE: crate::strtab::StrTable = crate::str_table![
    "import pty",
    "from pty",
    "pty.spawn",
    "pty.fork",
    "openpty",
    "forkpty",
    "pexpect",
    "node-pty",
    "require('pty",
    "require(\"pty",
    "io::pty",
    "expect->",
    "tiocsti",
    "posix_openpt",
    "ptsname",
];

/// The command that drives another program's terminal, if any: a terminal driver, `tmux
/// send-keys`, `screen -X stuff`, `socat … pty`, or inline code that opens a pseudo-terminal.
/// What it types into the program cannot be analysed (it could answer `intentshield
/// approve`'s confirmation prompt).
pub(super) fn drives_terminal(a: &Analysis) -> Option<String> {
    for c in a.all_commands() {
        let p = c.program.as_str();
        let args = |w: &[&str]| c.args.iter().any(|x| w.contains(&x.as_str()));
        let hit = TERMINAL_DRIVERS.contains(p)
            || (p == "tmux" && args(&["send-keys", "send", "paste-buffer", "pasteb"]))
            || (p == "screen" && args(&["-X", "stuff"]))
            || (p == "socat"
                && c.args
                    .iter()
                    .any(|x| x.to_ascii_lowercase().contains("pty")));
        if hit {
            return Some(p.to_string());
        }
        if c.is_interpreter() {
            let code = c.args.iter().chain(c.heredoc.iter());
            for w in code {
                let lower = w.to_ascii_lowercase();
                if let Some(k) = PTY_CODE.iter().find(|k| lower.contains(*k)) {
                    return Some(format!("{p} ({k})"));
                }
            }
        }
    }
    None
}

/// Harness CLIs and the rule of the settings their management commands write.
const HARNESS_CLIS: &[(&str, &str)] = &[
    ("claude", "protect.claude_settings"),
    ("codex", "protect.codex_config"),
    ("gemini", "protect.gemini_config"),
    ("cursor-agent", "protect.cursor_config"),
    ("cursor", "protect.cursor_config"),
];

/// A harness CLI's own command that changes its hooks, plugins, extensions, MCP servers or
/// settings (`claude plugin disable …`, `claude mcp add …`, `gemini extensions uninstall …`,
/// `codex mcp add …`): the settings file it writes is protected, whoever writes it.
/// `(command, rule)`.
pub(super) fn harness_cli_changes_settings(c: &SimpleCommand) -> Option<(String, &'static str)> {
    let rule = HARNESS_CLIS
        .iter()
        .find(|(p, _)| *p == c.program)
        .map(|(_, r)| *r)?;
    let positional = c.operands();
    let area = positional.first().copied()?;
    if !matches!(
        area,
        "plugin" | "plugins" | "extensions" | "extension" | "mcp" | "config" | "hooks" | "features"
    ) {
        return None;
    }
    let changes = positional.iter().skip(1).take(2).any(|w| {
        matches!(
            *w,
            "add"
                | "add-json"
                | "add-from-claude-desktop"
                | "remove"
                | "rm"
                | "disable"
                | "enable"
                | "uninstall"
                | "install"
                | "set"
                | "unset"
                | "link"
                | "unlink"
                | "update"
                | "reset-project-choices"
                | "marketplace"
                | "new"
                | "login"
                | "logout"
        )
    });
    changes.then(|| {
        let mut w = vec![c.program.clone()];
        w.extend(positional.iter().take(2).map(|s| s.to_string()));
        (w.join(" "), rule)
    })
}
