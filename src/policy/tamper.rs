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
//! The lists here are allowlists: a subcommand, program or tool not known to be harmless to
//! the guard is treated as one that is not.

use crate::decision::{Decision, Reason, Verdict};
use crate::event::{Tool, ToolKind};
use crate::paths::{PathContext, Protection};
use crate::shell::{Analysis, SimpleCommand, WriteKind};
use std::path::{Path, PathBuf};

/// Our subcommands that only read or print, which the agent may run (`approve --list` and
/// `mcp list` too, and `doctor` without `--repair`). Every other one changes state.
pub const READ_ONLY_SUBCOMMANDS: &[&str] = &["log", "check", "scan", "doctor", "demo", "help"];

/// Subcommand names that change the guard's state; a program the analysis cannot identify
/// (`$B`, `$(which …)`, a copy under another name) is taken for the guard when it is run with
/// one of them.
const STATE_CHANGING: &[&str] = &[
    "approve",
    "install",
    "uninstall",
    "wrap",
    "unwrap",
    "mcp",
    "mcp-proxy",
    "replay",
];

/// The harness names `install`/`uninstall` take (so that `bun install` is not the guard).
const HARNESS_WORDS: &[&str] = &["claude", "codex", "cursor", "gemini", "--all"];

/// Runs the tamper rules on one call. `is_read` is the call's read-only classification.
pub fn check(
    tool: &Tool,
    sh: Option<&Analysis>,
    leaves: &[(String, String)],
    is_read: bool,
    paths: &PathContext,
) -> Vec<Decision> {
    let mut out = Vec::new();
    let name = tool.display_name();
    if let Some(d) = protected_write(tool, sh, leaves, is_read, paths) {
        out.push(d);
    }
    // A command line an MCP tool runs is checked as the shell would run it.
    for cmd in embedded_commands(tool, leaves) {
        let shell = Tool::new(
            &tool.name,
            ToolKind::Shell,
            None,
            serde_json::json!({ "command": cmd }),
        );
        let a = crate::shell::analyze(&cmd);
        out.extend(
            check(&shell, Some(&a), &[], false, paths)
                .into_iter()
                .map(|mut d| {
                    d.message = d.message.replacen(&shell.display_name(), &name, 1);
                    d
                }),
        );
    }
    if let Some(a) = sh {
        for c in a.all_commands() {
            if let Some(what) = guard_command(c) {
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
        if let Some(what) = copies_binary(a, paths) {
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
        if let Some((prog, path)) = opens_own_state(a, paths) {
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

/// True when `c` runs one of our read-only subcommands (`intentshield log`, `doctor` without
/// `--repair`, `approve --list`...): it reads, so a tainted session need not ask about it.
pub fn is_read_only_guard_command(c: &SimpleCommand) -> bool {
    is_guard_name(&c.program) && guard_command(c).is_none()
}

/// The state-changing guard command `c` runs, if it does (`intentshield approve 12`).
fn guard_command(c: &SimpleCommand) -> Option<String> {
    let positional: Vec<&str> = c
        .args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
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
        let read_only = match sub {
            None => true,
            Some("doctor") => !flag("--repair"),
            Some("approve") => flag("--list") && positional.len() == 1,
            Some("mcp") => positional.get(1) == Some(&"list"),
            Some(s) => READ_ONLY_SUBCOMMANDS.contains(&s),
        };
        return (!read_only).then(shown);
    }
    let sub = sub?;
    if !STATE_CHANGING.contains(&sub) {
        return None;
    }
    if matches!(sub, "install" | "uninstall")
        && !c.args.iter().any(|a| HARNESS_WORDS.contains(&a.as_str()))
    {
        return None;
    }
    // A program the analysis cannot name, or a file that is the guard under another name.
    let unknown = c.argv0.contains('$') || c.argv0.contains('`') || c.argv0.is_empty();
    (unknown || is_guard_file(&c.argv0)).then(shown)
}

/// True for a program named like our binary (`intentshield`, `intentshield.exe`,
/// `intentshield-v2`).
fn is_guard_name(program: &str) -> bool {
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

/// A copy, link or move of the guard's binary (the running one, by path or by bytes) in a line
/// that writes somewhere (`cp ~/.cargo/bin/intentshield /tmp/g`,
/// `ln -s "$(which intentshield)" g`). Copying our other files is [`opens_own_state`]'s.
fn copies_binary(a: &Analysis, paths: &PathContext) -> Option<String> {
    if a.write_targets().is_empty() {
        return None;
    }
    let me = std::env::current_exe().ok();
    // A substitution that looks the binary up (`$(which intentshield)`).
    let looked_up = a.all_commands().iter().any(|c| {
        matches!(
            c.program.as_str(),
            "which" | "command" | "type" | "whereis" | "realpath" | "readlink"
        ) && c
            .args
            .iter()
            .any(|x| is_guard_name(x.rsplit('/').next().unwrap_or(x)))
    });
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

/// A program other than a known read-only one that is given one of our own files (as an
/// argument, a redirection, or inside an inline script or here-document): `(program, file)`.
fn opens_own_state(a: &Analysis, paths: &PathContext) -> Option<(String, String)> {
    let own_forms = own_text_forms(paths);
    for c in a.all_commands() {
        // Known read-only programs may be given our files whole (`cat config.toml`).
        let reads = c.is_read_only() && !c.is_interpreter() && !in_place(c);
        let words = c
            .args
            .iter()
            .chain(&c.redirect_reads)
            .chain(c.heredoc.iter());
        for w in words {
            let located = c.dir.locate(w).unwrap_or_else(|| w.clone());
            let is_own = !w.contains('\n')
                && paths
                    .protection(&located, false)
                    .is_some_and(|p| p == Protection::Is("protect.intentshield_state"));
            if is_own {
                if reads {
                    continue;
                }
                return Some((c.program.clone(), w.clone()));
            }
            // Our path inside a longer word is code or a script, whatever the program
            // (`python3 -c "…open('~/.local/share/intentshield/…')"`, SQL, `sed '1e sqlite3 …'`,
            // `git log --output=…`).
            if let Some(f) = own_forms.iter().find(|f| w.contains(f.as_str())) {
                return Some((c.program.clone(), f.clone()));
            }
        }
    }
    None
}

/// The ways our own files can be written in a script: absolute, `~/…`, `$HOME/…`.
fn own_text_forms(paths: &PathContext) -> Vec<String> {
    let home = paths.home.as_deref().unwrap_or("");
    let mut out = Vec::new();
    for o in &paths.own {
        let s = o.to_string_lossy().to_string();
        if s.len() < 4 {
            continue;
        }
        if let Some(rest) = (!home.is_empty()).then(|| s.strip_prefix(home)).flatten() {
            let rest = rest.trim_start_matches('/');
            out.push(format!("~/{rest}"));
            out.push(format!("$HOME/{rest}"));
            out.push(format!("${{HOME}}/{rest}"));
        }
        out.push(s);
    }
    out
}

/// What copying `sources` into the folder `dest` (as `cp -r`/`rsync` name them) writes there:
/// `dest/NAME` for each entry copied, or `None` when that cannot be known (a source whose
/// contents are copied, `payload/.` or rsync's `payload/`, that cannot be listed now; a source
/// built from a variable). A glob source is expanded the way the shell would. Reads the
/// listings it needs.
fn copied_entries(dest: &str, sources: &[String], paths: &PathContext) -> Option<Vec<String>> {
    let dest = dest.trim_end_matches('/');
    let mut out = Vec::new();
    for s in sources {
        let s = s.trim();
        if s.contains('$') || s.contains('`') {
            return None;
        }
        let contents = s == "." || s.ends_with("/.") || s.ends_with('/');
        let names: Vec<String> = if contents {
            let dir = paths.resolve(s.trim_end_matches('.'));
            std::fs::read_dir(dir)
                .ok()?
                .flatten()
                .take(4096)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        } else {
            let base = s.rsplit('/').next().unwrap_or(s);
            if base.contains(['*', '?', '[']) {
                // The shell's `*` does not match a leading dot, so only the pattern's own
                // dot can bring a dot-file; the names it could bring are the protected ones.
                paths
                    .protected_names()
                    .into_iter()
                    .filter(|n| !n.starts_with('.') || base.starts_with('.'))
                    .filter(|n| crate::shell::glob_match(base, n))
                    .collect()
            } else {
                vec![base.to_string()]
            }
        };
        out.extend(names.into_iter().map(|n| format!("{dest}/{n}")));
    }
    Some(out)
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

/// A link (`ln`, `ln -s`, `cp -l`/`-s`) made to a protected file or a folder holding one:
/// `(target, rule)`. A write through it later (or later in the same line) would reach the file
/// without naming it.
fn links_protected(a: &Analysis, paths: &PathContext) -> Option<(String, &'static str)> {
    for c in a.all_commands() {
        let links = c.program == "ln"
            || (c.program == "cp"
                && c.args
                    .iter()
                    .any(|x| matches!(x.as_str(), "-l" | "-s" | "--link" | "--symbolic-link")));
        if !links {
            continue;
        }
        let mut operands: Vec<&String> = c.args.iter().filter(|x| !x.starts_with('-')).collect();
        let target_dir = c
            .args
            .iter()
            .any(|x| x.starts_with("-t") || x.starts_with("--target-directory"));
        if !target_dir && operands.len() > 1 {
            operands.pop();
        }
        for o in operands {
            let located = c.dir.locate(o).unwrap_or_else(|| o.clone());
            if let Some(p) = paths.protection(&located, true) {
                return Some((o.clone(), p.rule()));
            }
        }
    }
    None
}

/// Git subcommands that do not change the files of the work tree.
const GIT_KEEPS_FILES: &[&str] = &[
    "add", "commit", "diff", "log", "show", "status", "blame", "ls-files", "grep", "push", "fetch",
];

/// A program not known to only read (an unknown one, `yq -i`, `sort -o`, `git checkout`) given
/// a protected file as an operand: `(program, path, rule)`. Known read-only programs without
/// an in-place or output option, and git subcommands that keep the work tree's files, pass.
fn passes_protected(a: &Analysis, paths: &PathContext) -> Option<(String, String, &'static str)> {
    for c in a.all_commands() {
        if matches!(c.program.as_str(), "cd" | "pushd" | "") {
            continue;
        }
        // A protected path inside a script or an option (`sed -n 'w ~/.claude/settings.json'`,
        // `awk '{print > ".claude/settings.json"}'`, `git log --output=…`), whatever the
        // program's class: the script decides what it does.
        // (Interpreters' inline code is `interpreter_paths`': reading is fine there.)
        if SCRIPTED.contains(&c.program.as_str()) {
            for w in c
                .args
                .iter()
                .filter(|x| x.starts_with('-') || !looks_like_path(x))
            {
                for piece in code_pieces(w) {
                    let located = c.dir.locate(piece).unwrap_or_else(|| piece.to_string());
                    if let Some(Protection::Is(rule)) = paths.protection(&located, false) {
                        return Some((c.program.clone(), piece.to_string(), rule));
                    }
                }
            }
        }
        if c.is_read_only() && !in_place(c) {
            continue;
        }
        if c.program == "git" && c.args.iter().any(|x| GIT_KEEPS_FILES.contains(&x.as_str())) {
            continue;
        }
        for w in c
            .args
            .iter()
            .filter(|x| !x.starts_with('-') && looks_like_path(x))
        {
            let located = c.dir.locate(w).unwrap_or_else(|| w.clone());
            if let Some(Protection::Is(rule)) = paths.protection(&located, false) {
                return Some((c.program.clone(), w.clone(), rule));
            }
            // A harness's configuration folder itself (`mount --bind /tmp/e ~/.claude`).
            if let Some(rule) = paths.harness_folder(&located) {
                return Some((c.program.clone(), w.clone(), rule));
            }
        }
    }
    None
}

/// Programs whose arguments hold a script or an option that can name a file to write or a
/// command to run (`sed`, `awk`, `git`, `make`, `sqlite3`, `find`, ...).
const SCRIPTED: &[&str] = &[
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
];

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

/// Words that show inline interpreter code writing, removing or running something (Python,
/// Node, Perl, Ruby, PHP idioms). Code that names a protected path and holds none of them only
/// reads it.
const CODE_WRITES: &[&str] = &[
    "'w'",
    "\"w\"",
    "'wb'",
    "\"wb\"",
    "'w+'",
    "\"w+\"",
    "'a'",
    "\"a\"",
    "'ab'",
    "\"ab\"",
    "'a+'",
    "\"a+\"",
    "'r+'",
    "\"r+\"",
    "'x'",
    "\"x\"",
    "mode=",
    "'>'",
    "\">\"",
    "'>>'",
    "\">>\"",
    "write",
    "unlink",
    "remove",
    "rename",
    "rmtree",
    "truncate",
    "replace",
    "move",
    "rmsync",
    "rmdir",
    "symlink",
    "link(",
    "copy",
    "chmod",
    "system",
    "exec",
    "popen",
    "subprocess",
    "spawn",
    "open(f",
    "sqlite",
    "touch",
];

/// The paths named in the inline code of interpreters (`python3 -c CODE`, `node -e CODE`, a
/// here-document fed to one) that writes or runs something ([`CODE_WRITES`]): every quoted
/// string and word in the code that reads as a path. Shell scripts are not included: the
/// shell analysis follows them.
fn interpreter_paths(a: &Analysis) -> Vec<String> {
    let mut out = Vec::new();
    for c in a.all_commands() {
        let shell = matches!(
            c.program.as_str(),
            "sh" | "bash" | "zsh" | "dash" | "ksh" | "ash" | "fish"
        );
        if !c.is_interpreter() || shell {
            continue;
        }
        for code in c.args.iter().chain(c.heredoc.iter()) {
            let lower = code.to_ascii_lowercase();
            if !CODE_WRITES.iter().any(|w| lower.contains(w)) {
                continue;
            }
            out.extend(code_pieces(code).into_iter().map(str::to_string));
        }
    }
    out
}

/// Tool names that remove or move what their path argument names (`delete_file`,
/// `move_directory`, `fs_rm`, `purge`).
fn removes(tool_name: &str) -> bool {
    let n = tool_name.to_ascii_lowercase();
    let words: Vec<&str> = n.split(|c: char| !c.is_ascii_alphanumeric()).collect();
    [
        "delete", "remove", "move", "rename", "trash", "unlink", "rmdir", "purge", "erase", "wipe",
        "destroy",
    ]
    .iter()
    .any(|w| n.contains(w))
        || words
            .iter()
            .any(|w| matches!(*w, "rm" | "mv" | "drop" | "clear" | "clean"))
}

/// Tool names with a verb that writes anywhere in them (`read_write_file`,
/// `get_or_create_file`, `list_and_delete`): the read-only classification goes by the first
/// verb, which a name can choose.
fn writes_by_name(tool_name: &str) -> bool {
    let n = tool_name.to_ascii_lowercase();
    removes(&n)
        || [
            "write",
            "edit",
            "create",
            "put",
            "save",
            "update",
            "set",
            "upload",
            "patch",
            "append",
            "insert",
            "replace",
            "copy",
            "mkdir",
            "touch",
            "chmod",
            "exec",
            "run",
            "install",
            "apply",
            "commit",
            "modify",
            "overwrite",
        ]
        .iter()
        .any(|w| n.contains(w))
}

/// The shell command lines an MCP or other tool is given to run (`execute_command`,
/// `start_process`, `run {"cmd": …}`): string arguments under a key named like a command.
fn embedded_commands(tool: &Tool, leaves: &[(String, String)]) -> Vec<String> {
    if matches!(
        tool.kind,
        ToolKind::Shell | ToolKind::FileWrite | ToolKind::FileRead
    ) {
        return Vec::new();
    }
    leaves
        .iter()
        .filter(|(k, _)| {
            let last = k
                .rsplit(['.', '/', '['])
                .next()
                .unwrap_or(k)
                .trim_end_matches(']')
                .to_ascii_lowercase();
            matches!(
                last.as_str(),
                "command"
                    | "cmd"
                    | "script"
                    | "shell"
                    | "commandline"
                    | "command_line"
                    | "bash"
                    | "sh"
                    | "exec"
                    | "code"
            )
        })
        .map(|(_, s)| s.clone())
        .take(8)
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

/// The write to a protected path this call makes, if any: a deny when it writes a protected
/// file or removes or replaces a folder holding one, an ask when it writes into such a folder
/// (`tar -x -C ~`) or writes a protected file's name in a folder that cannot be known
/// (`cd "$D" && echo > settings.json`).
fn protected_write(
    tool: &Tool,
    sh: Option<&Analysis>,
    leaves: &[(String, String)],
    is_read: bool,
    paths: &PathContext,
) -> Option<Decision> {
    let name = tool.display_name();
    // A file tool that deletes (Cursor's `Delete`) removes a whole folder as readily as a file.
    let file_how = if removes(&tool.name) {
        WriteKind::Replace
    } else {
        WriteKind::File
    };
    // (path, how, located, copied sources, find's name patterns)
    type Target = (String, WriteKind, bool, Vec<String>, Vec<String>);
    let mut targets: Vec<Target> = tool
        .write_paths
        .iter()
        .map(|p| (p.clone(), file_how, true, Vec::new(), Vec::new()))
        .collect();
    if let Some(a) = sh {
        targets.extend(
            a.write_targets()
                .into_iter()
                .map(|t| (t.path, t.kind, t.located, t.sources, t.names)),
        );
    }
    if !matches!(
        tool.kind,
        ToolKind::Shell | ToolKind::FileWrite | ToolKind::FileRead
    ) && (!is_read || writes_by_name(&tool.name))
    {
        // Any other tool that does more than read (an MCP file server's `write_file`,
        // `move_file`, `delete_directory`, `read_write_file`...): its path arguments, `file://`
        // URIs among them, and a folder argument joined with a file-name argument
        // (`{"directory": "~/.claude", "name": "settings.json"}`).
        let how = if removes(&tool.name) {
            WriteKind::Replace
        } else {
            WriteKind::File
        };
        let as_path = |s: &str| -> Option<String> {
            let s = s.trim();
            let s = s.strip_prefix("file://").unwrap_or(s);
            looks_like_path(s).then(|| s.to_string())
        };
        let dirs: Vec<String> = leaves.iter().filter_map(|(_, s)| as_path(s)).collect();
        let names: Vec<&str> = leaves
            .iter()
            .map(|(_, s)| s.trim())
            .filter(|s| !s.is_empty() && s.len() <= 255 && !s.contains(['/', ' ', '\n']))
            .take(16)
            .collect();
        for d in dirs.iter().take(16) {
            for n in &names {
                targets.push((
                    format!("{}/{n}", d.trim_end_matches('/')),
                    how,
                    true,
                    Vec::new(),
                    Vec::new(),
                ));
            }
        }
        targets.extend(
            dirs.into_iter()
                .map(|p| (p, how, true, Vec::new(), Vec::new())),
        );
    }
    if let Some((link, rule)) = sh.and_then(|a| links_protected(a, paths)) {
        return Some(
            Decision::new(
                Verdict::Deny,
                Reason::ProtectedPath,
                format!(
                    "{name} links to {link}, which configures an agent, its hooks or this guard; a write through the link would change it"
                ),
            )
            .rule(rule)
            .evidence(link),
        );
    }
    if let Some(a) = sh {
        targets.extend(
            interpreter_paths(a)
                .into_iter()
                .map(|p| (p, WriteKind::File, true, Vec::new(), Vec::new())),
        );
    }
    let mut ask: Option<Decision> = None;
    if let Some((prog, path, rule)) = sh.and_then(|a| passes_protected(a, paths)) {
        ask = Some(
            Decision::new(
                Verdict::Ask,
                Reason::ProtectedPath,
                format!(
                    "{name} gives {path}, which configures an agent, its hooks or this guard, to {prog}, which is not known to only read it"
                ),
            )
            .rule(rule)
            .evidence(path),
        );
    }
    let protected_names = paths.protected_names();
    for (t, how, located, sources, names) in targets {
        // A folder held in a variable or built by a substitution (`"$d/settings.json"`) is
        // as unknown as one reached by `cd "$d"`.
        let rest = t
            .strip_prefix("${HOME}")
            .or_else(|| t.strip_prefix("$HOME"))
            .unwrap_or(&t);
        let located = located && !rest.contains('$') && !rest.contains('`');
        if !located {
            if let Some(rule) = paths.protected_name(&t) {
                ask.get_or_insert(
                    Decision::new(
                        Verdict::Ask,
                        Reason::ProtectedPath,
                        format!(
                            "{name} writes {t} in a folder that cannot be known (after a `cd` to a variable); a file of that name configures an agent or this guard"
                        ),
                    )
                    .rule(rule)
                    .evidence(t.clone()),
                );
            }
            continue;
        }
        match paths.protection(&t, how != WriteKind::File) {
            Some(Protection::Is(rule)) => {
                return Some(
                    Decision::new(
                        Verdict::Deny,
                        Reason::ProtectedPath,
                        format!(
                            "{name} writes {t}, which configures an agent, its hooks or this guard"
                        ),
                    )
                    .rule(rule)
                    .evidence(t),
                )
            }
            // `find DIR -name '*.pyc' -delete` removes only entries of that name.
            Some(Protection::Holds(_))
                if !names.is_empty()
                    && !names.iter().any(|pat| {
                        protected_names
                            .iter()
                            .any(|n| crate::shell::glob_match(pat, n))
                    }) => {}
            Some(Protection::Holds(rule)) if how == WriteKind::Replace => {
                return Some(
                    Decision::new(
                        Verdict::Deny,
                        Reason::ProtectedPath,
                        format!(
                            "{name} removes or replaces {t}, which holds the settings of an agent, its hooks or this guard"
                        ),
                    )
                    .rule(rule)
                    .evidence(t),
                )
            }
            // A copy into such a folder writes what it copies, by name (`cp -r dist/* ~/` and
            // `cp -r build ~/apps` cannot reach the settings; `cp -r payload/. ~/` may).
            Some(Protection::Holds(rule)) if !sources.is_empty() => {
                let landed = copied_entries(&t, &sources, paths);
                let hit = match &landed {
                    None => Some(Protection::Holds(rule)),
                    Some(entries) => entries.iter().find_map(|e| paths.protection(e, true)),
                };
                match hit {
                    None => {}
                    Some(Protection::Is(rule)) => {
                        return Some(
                            Decision::new(
                                Verdict::Deny,
                                Reason::ProtectedPath,
                                format!("{name} copies into {t} over a file that configures an agent, its hooks or this guard"),
                            )
                            .rule(rule)
                            .evidence(t),
                        )
                    }
                    Some(Protection::Holds(rule)) => {
                        ask.get_or_insert(
                            Decision::new(
                                Verdict::Ask,
                                Reason::ProtectedPath,
                                format!(
                                    "{name} writes into {t}, which holds the settings of an agent, its hooks or this guard; it may overwrite them"
                                ),
                            )
                            .rule(rule)
                            .evidence(t.clone()),
                        );
                    }
                }
            }
            Some(Protection::Holds(rule)) => {
                ask.get_or_insert(
                    Decision::new(
                        Verdict::Ask,
                        Reason::ProtectedPath,
                        format!(
                            "{name} writes into {t}, which holds the settings of an agent, its hooks or this guard; it may overwrite them"
                        ),
                    )
                    .rule(rule)
                    .evidence(t),
                );
            }
            None => {}
        }
    }
    ask
}
