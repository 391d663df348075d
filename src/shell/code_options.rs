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
const COMMAND_ENV: &[&str] = &[
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
const CODE_RUNS: &[&str] = &[
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

/// Most command lines taken from one command.
const MAX_SCRIPTS: usize = 16;

/// The command lines `c` runs through its options, config keys, environment or inline code.
pub(super) fn command_scripts(c: &SimpleCommand) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in &c.env {
        if COMMAND_ENV.contains(&k.as_str()) && !v.is_empty() {
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
        // `git -c KEY=VALUE`: a key that runs code runs its value (`!cmd` for aliases).
        for v in option_values(&c.args, &["-c"]) {
            if let Some((k, val)) = v.split_once('=') {
                if git_key_runs_code(&k.to_ascii_lowercase()) {
                    out.push(val.trim_start_matches('!').to_string());
                }
            }
        }
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
