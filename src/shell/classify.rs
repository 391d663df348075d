//! Whether a command only reads ([`SimpleCommand::is_read_only`]), reaches the network,
//! downloads, or runs what it is fed (an interpreter); and the environment variables that make
//! a program run other code.

use super::command::{Opts, SimpleCommand};
use super::programs::{
    BUILD_TEST, DOWNLOADERS, GIT_NETWORK, GIT_READ, INTERPRETERS, NETWORK, READ_ONLY,
};
use super::scripts::{awk_program, sed_program};
use super::Analysis;

impl SimpleCommand {
    /// True when this command reaches the network.
    pub fn is_network(&self) -> bool {
        let socket = |p: &String| p.starts_with("/dev/tcp/") || p.starts_with("/dev/udp/");
        if self
            .redirect_writes
            .iter()
            .chain(&self.redirect_reads)
            .any(socket)
        {
            return true;
        }
        if NETWORK.contains(&self.program.as_str()) {
            if self.program == "rsync" {
                return self.args.iter().any(|a| a.contains(':'));
            }
            return true;
        }
        if let Some(sub) = self.git_sub() {
            return GIT_NETWORK.contains(&sub);
        }
        let first = self.args.first().map(String::as_str);
        matches!(
            (self.program.as_str(), first),
            ("npm" | "pnpm" | "yarn" | "cargo" | "gem", Some("publish"))
                | ("twine", Some("upload"))
                | ("docker" | "podman", Some("push" | "login"))
        ) || self.inline_network()
    }

    /// True when this command is a downloader.
    pub fn is_downloader(&self) -> bool {
        DOWNLOADERS.contains(&self.program.as_str())
    }

    /// True when this command executes what it is fed (stdin, `-c` text, a process substitution).
    pub fn is_interpreter(&self) -> bool {
        INTERPRETERS.contains(&self.program.as_str())
            || (self.program == "busybox"
                && self
                    .args
                    .first()
                    .is_some_and(|a| INTERPRETERS.contains(&a.as_str())))
    }

    /// True when this command only reads (or is a local build/test command). Not when it
    /// writes, reaches the network, is given an environment that runs code (`LD_PRELOAD`,
    /// `GIT_*`, `PAGER`, `LESSOPEN`, `EDITOR`…), or runs commands through an option: `find
    /// -exec`/`-fprint`, a sed script with `e`/`w`, an awk program with `system()`, pipes,
    /// `getline` from a command or `print >`, `git -c`/`--exec-path`/`grep -O`/`diff
    /// --ext-diff`, `rg --pre`, `fd -x`, `make --eval`/`-f -`/`SHELL=`.
    pub fn is_read_only(&self) -> bool {
        if !self.writes().is_empty() || self.is_network() || !self.tree_writes().is_empty() {
            return false;
        }
        if self.env.iter().any(|(k, _)| runs_code_env(k)) {
            return false;
        }
        let p = self.program.as_str();
        let a = &self.args;
        let any = |fs: &[&str]| a.iter().any(|x| fs.contains(&x.as_str()));
        let any_prefix = |fs: &[&str]| a.iter().any(|x| fs.iter().any(|f| x.starts_with(f)));
        // Options that make a program run another program or command.
        if EXEC_OPTIONS
            .iter()
            .filter(|(prog, _)| *prog == p)
            .any(|(_, opts)| any_prefix(opts))
        {
            return false;
        }
        match p {
            "find" => {
                return !any(&[
                    "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0",
                    "-fprintf", "-fls",
                ])
            }
            "sed" => {
                let o = Opts::parse(a, "efl", "i", &["expression", "file", "line-length"]);
                if o.any(&["-i", "--in-place", "-f", "--file"]) {
                    return false;
                }
                let prog = sed_program(&o.sed_script().text);
                return !prog.executes && !prog.unknown && prog.writes.is_empty();
            }
            "awk" | "gawk" | "mawk" | "nawk" => {
                let o = Opts::parse(
                    a,
                    "FfvEeilW",
                    "",
                    &["file", "assign", "source", "include", "load"],
                );
                let (prog, _) = o.awk_program();
                let Some(prog) = prog else {
                    return false;
                };
                let ap = awk_program(&prog);
                // gawk's indirect calls (`@f(…)` with f = "system") and `@include`/`@load`.
                if prog.contains('@') {
                    return false;
                }
                return !ap.executes
                    && !ap.unknown_write
                    && ap.writes.is_empty()
                    && !o.any(&["-i", "--include", "-l", "--load", "-E", "--exec"]);
            }
            "rg" if any(&["--pre"]) || any_prefix(&["--pre="]) => return false,
            "fd" | "fdfind" if any(&["-x", "--exec", "-X", "--exec-batch"]) => return false,
            "less" | "more" if any_prefix(&["--lesskey", "-k"]) => return false,
            "make" | "gmake" => {
                let o = Opts::parse(
                    a,
                    "fCIjlWo",
                    "",
                    &[
                        "file",
                        "makefile",
                        "directory",
                        "include-dir",
                        "jobs",
                        "load-average",
                        "what-if",
                        "new-file",
                        "assume-new",
                        "old-file",
                        "assume-old",
                        "eval",
                    ],
                );
                let stdin_makefile = o
                    .values(&["-f", "--file", "--makefile"])
                    .any(|f| f == "-" || f.starts_with("/dev/") || f.starts_with("/proc/"));
                let sets_shell = o.operands.iter().any(|x| {
                    x.split_once('=').is_some_and(|(k, _)| {
                        matches!(
                            k.trim_end_matches([':', '+', '?']),
                            "SHELL" | ".SHELLFLAGS" | "MAKESHELL"
                        )
                    })
                });
                // A variable defined on the command line is expanded (`X:=$(shell …)`).
                let expands = o
                    .operands
                    .iter()
                    .any(|x| x.contains("$(") || x.contains("${"));
                if o.any(&["--eval", "-E"]) || stdin_makefile || sets_shell || expands {
                    return false;
                }
            }
            _ => {}
        }
        if let Some((opts, _)) = self.git_parts() {
            let code_opts = opts
                .iter()
                .any(|(o, _)| matches!(o.as_str(), "-c" | "--config-env" | "--exec-path"));
            if code_opts {
                return false;
            }
            let sub = self.git_sub().unwrap_or("");
            let rest = self.git_args();
            let has = |f: &str| {
                rest.iter()
                    .any(|x| x == f || x.starts_with(&format!("{f}=")))
            };
            if (sub == "grep"
                && (has("-O")
                    || has("--open-files-in-pager")
                    || rest.iter().any(|x| x.starts_with("-O"))))
                || has("--ext-diff")
            {
                return false;
            }
            if sub == "config" {
                return a.iter().any(|x| {
                    matches!(
                        x.as_str(),
                        "--get" | "--get-all" | "--list" | "-l" | "--get-regexp"
                    )
                });
            }
            return GIT_READ.contains(&sub);
        }
        if READ_ONLY.contains(&p) {
            return true;
        }
        BUILD_TEST.iter().any(|(prog, subs)| {
            *prog == p
                && if subs.is_empty() {
                    self.build_args_are_local(0)
                } else {
                    self.args
                        .first()
                        .is_some_and(|a| subs.contains(&a.as_str()))
                        && self.build_args_are_local(1)
                }
        })
    }

    /// True when a build or test command's arguments keep it local and its own: no URL or
    /// remote module (`@latest`, `host/mod@v1`), no package to install (`npm install PKG`),
    /// and no option that runs another program or writes elsewhere (`--config`, `-exec`,
    /// `-toolexec`, `--basetemp`, `--outFile`, `--modules-folder`, pytest `-p`).
    /// `skip` words are the subcommand (0 for a program without one).
    fn build_args_are_local(&self, skip: usize) -> bool {
        let sub = self.args.first().map(String::as_str).unwrap_or("");
        let installs = matches!(sub, "install" | "i" | "add" | "get")
            && self.args.iter().skip(1).any(|x| !x.starts_with('-'));
        let remote_run = self.program == "go"
            && sub == "run"
            && self.args.iter().skip(1).any(|x| {
                !x.starts_with('-')
                    && (x.contains('@') || x.split('/').next().is_some_and(|h| h.contains('.')))
            });
        !installs
            && !remote_run
            && !self.args.iter().skip(skip).any(|x| {
                x.contains("://")
                    || (x.contains('@') && !x.starts_with('-'))
                    || BUILD_EXEC_OPTIONS
                        .iter()
                        .any(|o| x == o || x.starts_with(&format!("{o}=")))
            })
    }
}

/// True for an environment variable that makes a program run other code or commands
/// (`LD_PRELOAD`, `BASH_ENV`, `GIT_*`, `PAGER`, `LESSOPEN`, `EDITOR`, `PERL5OPT`…): a command
/// given one is not read-only.
fn runs_code_env(k: &str) -> bool {
    k.starts_with("GIT_")
        || k.starts_with("LD_")
        || k.starts_with("DYLD_")
        || k.starts_with("LESS")
        || matches!(
            k,
            "PAGER"
                | "MANPAGER"
                | "EDITOR"
                | "VISUAL"
                | "BASH_ENV"
                | "ENV"
                | "SHELLOPTS"
                | "BASHOPTS"
                | "PROMPT_COMMAND"
                | "PS4"
                | "PERL5OPT"
                | "PERL5LIB"
                | "PYTHONSTARTUP"
                | "PYTHONPATH"
                | "PYTHONHOME"
                | "NODE_OPTIONS"
                | "RUBYOPT"
                | "RUBYLIB"
                | "IFS"
                | "PATH"
                | "SHELL"
                | "MAKEFLAGS"
                | "GNUMAKEFLAGS"
        )
}

impl Analysis {
    /// True when some command reaches the network.
    pub fn is_network(&self) -> bool {
        self.all_commands().iter().any(|c| c.is_network())
    }

    /// True when every command only reads.
    pub fn is_read_only(&self) -> bool {
        let cmds = self.all_commands();
        !cmds.is_empty() && cmds.iter().all(|c| c.is_read_only())
    }
}

#[cfg(test)]
mod tests;

/// Options that make a program run another program or a command (`sort
/// --compress-program=sh`, `tar --to-command`, `rsync -e`, `ssh -o ProxyCommand=…`,
/// `printf -v VAR`, which assigns instead of printing).
const EXEC_OPTIONS: &[(&str, &[&str])] = &[
    ("sort", &["--compress-program"]),
    (
        "tar",
        &[
            "-I",
            "--use-compress-program",
            "--to-command",
            "--checkpoint-action",
            "-F",
            "--info-script",
            "--new-volume-script",
            "--rsh-command",
        ],
    ),
    ("rsync", &["-e", "--rsh", "--rsync-path"]),
    ("zip", &["-TT", "--unzip-command"]),
    ("man", &["-P", "--pager", "-H", "--html"]),
    ("ssh", &["-o", "-F"]),
    ("scp", &["-o", "-S", "-F"]),
    ("sftp", &["-o", "-S", "-F"]),
    ("printf", &["-v"]),
    ("sdiff", &["--diff-program"]),
    ("diff3", &["--diff-program"]),
];

/// Build and test options that run another program or write outside the project.
const BUILD_EXEC_OPTIONS: &[&str] = &[
    "--config",
    "-exec",
    "-toolexec",
    "--basetemp",
    "--outFile",
    "--outDir",
    "--out-dir",
    "--modules-folder",
    "--rootdir",
    "--manifest-path",
    "--target-dir",
    "-p",
    "--plugin",
    "--registry",
    "--prefix",
    "-C",
    "--directory",
];
