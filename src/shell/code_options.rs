//! Command lines that a program runs because an option, a config key or an environment
//! variable names them (`git push --receive-pack=CMD`, `git -c core.sshCommand=CMD`,
//! `ssh -o ProxyCommand=CMD`, `rsync -e CMD`, `tar --to-command=CMD`, `GIT_SSH_COMMAND=CMD`,
//! `vim -c '!CMD'`, `os.system("CMD")` in inline code): each is analysed as a nested line, so
//! the checks see what it does.

use super::command::SimpleCommand;
use super::writes::git_key_runs_code;

/// Options whose value is a command line, per program (`--opt=VALUE`, `--opt VALUE`,
/// `-o VALUE` and `-oVALUE` are all read).
const COMMAND_OPTIONS: &[(&str, &[&str])] = &[
    ("git", &["--receive-pack", "--upload-pack", "--exec"]),
    ("rsync", &["-e", "--rsh", "--rsync-path"]),
    (
        "tar",
        &[
            "--to-command",
            "-I",
            "--use-compress-program",
            "--info-script",
            "-F",
            "--new-volume-script",
            "--rsh-command",
        ],
    ),
    ("sort", &["--compress-program"]),
    ("man", &["-P", "--pager"]),
    ("zip", &["-TT", "--unzip-command"]),
];

/// `ssh -o KEY=VALUE` keys whose value is a command line.
const SSH_COMMAND_KEYS: &[&str] = &["proxycommand", "localcommand", "knownhostscommand"];

/// Environment variables whose value a program runs as a command line.
const COMMAND_ENV: crate::strtab::StrTable = crate::str_table![
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_PAGER",
    "GIT_EDITOR",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "GIT_PROXY_COMMAND",
    "GIT_SEQUENCE_EDITOR",
    "PAGER",
    "EDITOR",
    "VISUAL",
    "SSH_ASKPASS",
    "LESSOPEN",
    "LESSCLOSE",
    "MANPAGER",
    "PROMPT_COMMAND",
];

/// Words in inline code that run a string as a command (`os.system`, `subprocess`, `exec`,
/// `popen`, `spawn`, Perl's `system`/`qx`, awk's `system(`, Ruby's backquotes).
const CODE_RUNS: crate::strtab::StrTable = crate::str_table![
    "system",
    "exec",
    "popen",
    "spawn",
    "subprocess",
    "qx",
    "shell_exec",
    "passthru",
    "`",
];

/// The command lines git is made to run by its options rather than by a hook file: the value
/// of `git -c KEY=VALUE` for a key whose value git runs (`core.fsmonitor`, `core.pager`,
/// `alias.x=!cmd`…; see `git_key_runs_code`), and the pager of `git grep -O`/
/// `--open-files-in-pager`. Empty for any other program.
pub(super) fn git_runs(c: &SimpleCommand) -> Vec<String> {
    let mut out = Vec::new();
    if c.program != "git" {
        return out;
    }
    // `git -c K=V` anywhere before the subcommand; `git clone -c/--config K=V` after it.
    let mut values = option_values(&c.args, &["-c"]);
    if c.git_sub() == Some("clone") {
        values.extend(option_values(c.git_args(), &["--config"]));
    }
    for v in values {
        if let Some((k, val)) = v.split_once('=') {
            let k = k.to_ascii_lowercase();
            // An alias runs a command only when it starts with `!`; otherwise it names git's
            // own subcommands (`alias.st=status`).
            if k.starts_with("alias.") {
                if let Some(cmd) = val.strip_prefix('!') {
                    out.push(cmd.to_string());
                }
            } else if git_key_runs_code(&k) {
                out.push(val.to_string());
            }
        }
    }
    if c.git_sub() == Some("grep") {
        // `-O[<pager>]`: the pager only attached (`-O` alone is the default pager, and the
        // word after it is the pattern).
        out.extend(c.git_args().iter().filter_map(|a| {
            a.strip_prefix("--open-files-in-pager=")
                .or_else(|| a.strip_prefix("-O"))
                .filter(|v| !v.is_empty())
                .map(str::to_string)
        }));
    }
    out.truncate(MAX_SCRIPTS);
    out
}

impl SimpleCommand {
    /// The first program git is made to run through `-c KEY=VALUE` or `grep -O` (see
    /// `git_runs`) that is a shell, an interpreter or a program the capability table does
    /// not know (a script of the repository: `core.fsmonitor=.github/.cache/fsm.sh`), with the
    /// value that names it. A known tool (`core.pager=less`, `core.sshCommand="ssh -i KEY"`)
    /// is not returned: what it does is analysed like any command.
    pub fn git_hidden_runner(&self) -> Option<String> {
        git_runs(self).into_iter().find(|v| hidden_runner(v))
    }
}

/// True when the command line `v` runs a shell, an interpreter, a program the capability
/// table does not know, or cannot be analysed.
fn hidden_runner(v: &str) -> bool {
    let a = super::analyze(v);
    let cmds = a.all_commands();
    cmds.is_empty()
        || a.unanalysable.is_some()
        || cmds.iter().any(|x| {
            x.computed_program
                || super::inline::is_shell(&x.program)
                || x.is_interpreter()
                || super::capabilities::lookup(&x.program).is_none()
        })
}

impl super::Analysis {
    /// A `git config KEY VALUE` of a key git runs, followed in the same line by a git command
    /// that runs it now (the alias called, or any git command for the other keys), whose value
    /// is a shell, an interpreter or a program the table does not know: the same as
    /// `git -c KEY=VALUE` on that command ([`SimpleCommand::git_hidden_runner`]).
    pub fn git_config_runs_now(&self) -> Option<String> {
        let cmds = self.all_commands();
        for (i, c) in cmds.iter().enumerate() {
            let Some(v) = c.git_config_command() else {
                continue;
            };
            let Some((key, _)) = c.git_config_set() else {
                continue;
            };
            let alias = key.strip_prefix("alias.");
            let used = cmds[i + 1..].iter().any(|x| {
                x.program == "git"
                    && x.git_sub() != Some("config")
                    && alias.is_none_or(|a| x.git_sub().is_some_and(|s| s.eq_ignore_ascii_case(a)))
            });
            if used && hidden_runner(&v) {
                return Some(v);
            }
        }
        None
    }
}

/// Most command lines taken from one command.
const MAX_SCRIPTS: usize = 16;

/// The command lines `c` runs through its options, config keys, environment or inline code.
pub(super) fn command_scripts(c: &SimpleCommand) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in &c.env {
        if COMMAND_ENV.contains(k.as_str()) && !v.is_empty() {
            out.push(v.clone());
        }
    }
    let p = c.program.as_str();
    for (prog, opts) in COMMAND_OPTIONS {
        if *prog == p {
            out.extend(option_values(&c.args, opts));
        }
    }
    if p == "git" {
        // `git clone -u CMD` (elsewhere `-u` is `--set-upstream` or `--update`).
        if c.args.iter().any(|a| a == "clone") {
            out.extend(option_values(&c.args, &["-u"]));
        }
        out.extend(git_runs(c));
        // `git config KEY VALUE` of a key git runs: the command it will run later.
        out.extend(c.git_config_command());
    }
    if matches!(p, "ssh" | "scp" | "sftp") {
        for v in option_values(&c.args, &["-o"]) {
            if let Some((k, val)) = v.split_once(['=', ' ']) {
                if SSH_COMMAND_KEYS.contains(&k.trim().to_ascii_lowercase().as_str()) {
                    out.push(val.trim().to_string());
                }
            }
        }
    }
    if matches!(p, "vim" | "vi" | "nvim" | "ex" | "view") {
        for v in option_values(&c.args, &["-c", "--cmd"]).into_iter().chain(
            c.args
                .iter()
                .filter_map(|a| a.strip_prefix('+').map(str::to_string)),
        ) {
            if let Some(cmd) = v.trim_start().strip_prefix('!') {
                out.push(cmd.to_string());
            }
        }
    }
    // Inline code that runs strings: its string literals that read as command lines.
    let code_runner = c.is_interpreter()
        || matches!(
            p,
            "awk" | "gawk" | "mawk" | "nawk" | "perl" | "ruby" | "php"
        );
    if code_runner {
        for code in c.args.iter().chain(c.heredoc.iter()) {
            let lower = code.to_ascii_lowercase();
            if CODE_RUNS.iter().any(|w| lower.contains(w)) {
                out.extend(
                    string_literals(code)
                        .into_iter()
                        .filter(|s| s.contains(' ')),
                );
            }
        }
    }
    // Strings inline code spells in a decodable way and runs (`os.system(''.join(map(chr,
    // [99, …])))`, `child_process.execSync(atob('…'))`): the command lines they decode to.
    if let Some(f) = c.inline_facts() {
        if f.spawn.is_some() || f.dynamic.is_some() {
            out.extend(f.decoded);
        }
    }
    out.retain(|s| !s.trim().is_empty());
    out.truncate(MAX_SCRIPTS);
    out
}

/// The values of the options `names` in `args`: `--opt=V`, `--opt V`, `-o V`, `-oV`.
fn option_values(args: &[String], names: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        for n in names {
            if a == n {
                if let Some(v) = args.get(i + 1) {
                    out.push(v.clone());
                }
            } else if let Some(v) = a.strip_prefix(&format!("{n}=")) {
                out.push(v.to_string());
            } else if n.len() == 2 && !n.starts_with("--") && a.starts_with(n) && a.len() > 2 {
                out.push(a[2..].to_string());
            }
        }
        i += 1;
    }
    out
}

/// The contents of the quoted string literals in `code` (`'…'`, `"…"`, backquotes), at most
/// [`MAX_SCRIPTS`], each at most 4 KiB.
fn string_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.chars();
    while let Some(c) = chars.next() {
        if matches!(c, '\'' | '"' | '`') {
            let mut s = String::new();
            let mut escaped = false;
            for d in chars.by_ref() {
                if escaped {
                    s.push(d);
                    escaped = false;
                } else if d == '\\' {
                    escaped = true;
                } else if d == c {
                    break;
                } else if s.len() < 4096 {
                    s.push(d);
                }
            }
            out.push(s);
            if out.len() >= MAX_SCRIPTS {
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod git_runner_tests {
    use crate::shell::analyze;

    fn runner(line: &str) -> Option<String> {
        analyze(line)
            .all_commands()
            .iter()
            .find_map(|c| c.git_hidden_runner())
    }

    /// Git read verbs made to run a script, a shell or an interpreter through `-c` or `grep
    /// -O` are found; known tools and plain aliases are not.
    #[test]
    fn git_made_to_run_code() {
        for line in [
            "git -c core.fsmonitor=.github/.cache/fsm.sh status --short",
            "git -c core.pager='sh -c id' log",
            "git -c alias.x='!python3 t.py' x",
            "git -c diff.external=./tools/d.sh diff",
            "git grep -O'bash -c id' TODO",
            "git grep --open-files-in-pager=./x TODO",
            "git -c core.hooksPath=/tmp/h -c core.fsmonitor='node -e 1' status",
        ] {
            assert!(runner(line).is_some(), "{line}");
        }
        for line in [
            "git -c core.pager=less log",
            "git -c core.pager=cat diff",
            "git -c alias.st=status st",
            "git -c user.name=x commit -m m",
            "git grep -O TODO",
            "git -c core.sshCommand='ssh -i ~/.ssh/deploy' fetch",
            "git status",
        ] {
            assert_eq!(runner(line), None, "{line}");
        }
    }

    /// A code key set by `git config` and used by a later git command of the same line runs
    /// now, as `git -c` would.
    #[test]
    fn git_config_then_used_in_the_line() {
        for line in [
            "git config --local alias.todo '!sh tools/.todo.sh' && git todo",
            "git config alias.t '!python3 x.py'; git t",
            "git config core.fsmonitor .github/fsm.sh && git status",
            "git config --global core.pager 'bash -c id' && git log",
        ] {
            assert!(analyze(line).git_config_runs_now().is_some(), "{line}");
        }
        for line in [
            "git config alias.todo '!sh tools/.todo.sh'",
            "git config alias.todo '!sh x.sh' && git status",
            "git config core.pager less && git log",
            "git config core.editor vim && git commit",
        ] {
            assert_eq!(analyze(line).git_config_runs_now(), None, "{line}");
        }
    }
}
