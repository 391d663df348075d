//! Whether a command only reads ([`SimpleCommand::is_read_only`]), reaches the network,
//! downloads, or runs what it is fed (an interpreter); and the environment variables that make
//! a program run other code.

use super::capabilities::{self, Cap, Does, Net, Stdin};
use super::command::{Opts, SimpleCommand};
use super::scripts::{awk_program, sed_program};
use super::Analysis;

impl SimpleCommand {
    /// The capability table's entry for this command's program ([`capabilities::lookup`]);
    /// `busybox APPLET` is looked up as the applet.
    fn cap(&self) -> Option<&'static Cap> {
        if self.is_multicall() {
            if let Some(applet) = self.args.first() {
                return capabilities::lookup(applet);
            }
        }
        capabilities::lookup(&self.program)
    }

    /// True when the capability table knows this command's program (what it reads, writes,
    /// reaches and runs); an unknown program cannot be analysed.
    pub fn is_known_program(&self) -> bool {
        self.cap().is_some()
    }

    /// `busybox APPLET …`, `toybox APPLET …`: one binary that is many programs.
    fn is_multicall(&self) -> bool {
        matches!(self.program.as_str(), "busybox" | "toybox")
    }

    /// True when this command reaches the network: a `/dev/tcp`/`/dev/udp` redirection, a
    /// program the table marks networked (always, or `rsync`/`scp`-style with a `host:path`
    /// operand), or a subcommand that is (`git push`, `npm publish`, `docker push`).
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
        let Some(cap) = capabilities::lookup(&self.program) else {
            return false;
        };
        match cap.net {
            Net::Always => return true,
            Net::RemoteOperand => return self.args.iter().any(|a| a.contains(':')),
            Net::Never => {}
        }
        let sub = match self.git_sub() {
            Some(s) => Some(s),
            None if self.program == "git" => None,
            None => self.args.first().map(String::as_str),
        };
        sub.is_some_and(|s| cap.sub(s) == Some(Does::Network))
            || self.git_remote_network()
            || self.inline_network()
    }

    /// `git remote update`/`show` (without `-n`)/`prune`, `git remote add -f`: they fetch
    /// from or query the remote.
    fn git_remote_network(&self) -> bool {
        if self.program != "git" || self.git_sub() != Some("remote") {
            return false;
        }
        let rest = self.git_args();
        let action = rest
            .iter()
            .find(|a| !a.starts_with('-'))
            .map(String::as_str);
        let has = |f: &str| rest.iter().any(|a| a == f);
        match action {
            Some("update" | "prune") => true,
            Some("show") => !has("-n"),
            Some("add") => has("-f") || has("--fetch"),
            _ => false,
        }
    }

    /// True when this command is a downloader (fetches content: `curl`, `wget`).
    pub fn is_downloader(&self) -> bool {
        capabilities::lookup(&self.program).is_some_and(|c| c.downloader)
    }

    /// True when this command executes what it is fed (stdin, `-c` text, a script, a process
    /// substitution): a shell or an interpreter of the table.
    pub fn is_interpreter(&self) -> bool {
        self.cap()
            .is_some_and(|c| matches!(c.stdin, Stdin::Shell | Stdin::CodeUnlessGiven))
    }

    /// True when this command runs what it reads on its standard input as code: a shell
    /// always (`sh`, `bash -s`); an interpreter unless it was given its code another way — a
    /// script file (`python3 tool.py`, not `-` or `/dev/stdin`), inline code that does not
    /// evaluate text (`perl -ne 'print'`, `python3 -c 'import json,sys; …'`, but not
    /// `exec(sys.stdin.read())`), a module that reads data (`python3 -m json.tool`), and not
    /// interactive (`python3 -i`). A formatter of its input is not an interpreter of it.
    pub fn stdin_is_code(&self) -> bool {
        let Some(cap) = self.cap() else {
            return false;
        };
        let args: &[String] = if self.is_multicall() {
            self.args.get(1..).unwrap_or(&[])
        } else {
            &self.args
        };
        match cap.stdin {
            Stdin::Shell => true,
            Stdin::CodeUnlessGiven => interpreter_reads_stdin_code(cap.program, args),
            Stdin::Data | Stdin::Scheduled => false,
        }
    }

    /// True when this command may run what it reads on its standard input as code, by what
    /// the analysis cannot rule out: [`SimpleCommand::stdin_is_code`]; a program name computed
    /// at run time or held in a variable (`$SHELL`, `$0`, `${X}`, `$(…)`); a program whose
    /// script runs its input (`awk '{system($0)}'`, `gawk '{print | "sh"}'`, `sed e`, `make -f
    /// -`, `gdb -x /dev/stdin`).
    pub(super) fn may_run_stdin(&self) -> bool {
        if self.stdin_is_code() {
            return true;
        }
        if self.computed_program || self.program.starts_with('$') || self.argv0.starts_with('$') {
            return true;
        }
        let a = &self.args;
        let stdin_file =
            |f: &str| matches!(f, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0");
        match self.program.as_str() {
            "awk" | "gawk" | "mawk" | "nawk" => {
                let o = Opts::parse(
                    a,
                    "FfvEeilW",
                    "",
                    &["file", "assign", "source", "include", "load"],
                );
                if o.values(&["-f", "--file", "-E", "--exec"]).any(stdin_file) {
                    return true;
                }
                let (prog, _) = o.awk_program();
                prog.is_some_and(|p| awk_program(&p).executes || p.contains('@'))
            }
            "sed" => {
                let o = Opts::parse(a, "efl", "i", &["expression", "file", "line-length"]);
                if o.values(&["-f", "--file"]).any(stdin_file) {
                    return true;
                }
                sed_program(&o.sed_script().text).executes
            }
            "make" | "gmake" => {
                let o = Opts::parse(a, "fCIjlWo", "", &["file", "makefile", "directory"]);
                let fed = o.values(&["-f", "--file", "--makefile"]).any(stdin_file);
                fed
            }
            "gdb" => {
                a.windows(2).any(|w| {
                    matches!(
                        w[0].as_str(),
                        "-x" | "-command"
                            | "--command"
                            | "-ix"
                            | "-init-command"
                            | "--init-command"
                    ) && stdin_file(&w[1])
                }) || a.iter().any(|w| {
                    w.split_once('=').is_some_and(|(k, v)| {
                        matches!(k, "--command" | "--init-command") && stdin_file(v)
                    })
                })
            }
            _ => false,
        }
    }

    /// True when this command only reads (or is a local build/test command), by the
    /// capability table: a program it does not know, or an option its entry does not know
    /// to be harmless, is not read-only. Not when it writes, reaches the network, is given an
    /// environment that runs code (`LD_PRELOAD`, `GIT_*`, `PAGER`, `LESSOPEN`, `EDITOR`…), or
    /// runs commands through an option: `find -exec`/`-fprint`, a sed script with `e`/`w`, an
    /// awk program with `system()`, pipes, `getline` from a command or `print >`, `git
    /// -c`/`--exec-path`/`grep -O`/`diff --ext-diff`, `rg --pre`, `fd -x`, `make
    /// --eval`/`-f -`/`SHELL=`.
    pub fn is_read_only(&self) -> bool {
        if !self.writes().is_empty() || self.is_network() || !self.tree_writes().is_empty() {
            return false;
        }
        if self.env.iter().any(|(k, _)| runs_code_env(k)) {
            return false;
        }
        let p = self.program.as_str();
        let Some(cap) = capabilities::lookup(p) else {
            return false;
        };
        if p == "git" {
            return self.git_is_read_only(cap);
        }
        if cap.does == Does::BuildTest {
            return self.build_is_local(cap);
        }
        if cap.options_change_state(&self.args) {
            return false;
        }
        if self.operands().iter().any(|o| cap.operand_sets.sets(o)) {
            return false;
        }
        match cap.does {
            Does::ReadOnly => true,
            Does::Script => self.script_is_read_only(),
            _ => false,
        }
    }

    /// For a [`Does::BuildTest`] entry: the subcommand qualifies (any, when the entry lists
    /// none) and the arguments keep it local.
    fn build_is_local(&self, cap: &Cap) -> bool {
        if cap.subs.is_empty() {
            return self.build_args_are_local(0);
        }
        self.args
            .first()
            .is_some_and(|a| cap.sub(a) == Some(Does::BuildTest))
            && self.build_args_are_local(1)
    }

    /// `git`: no global option that runs code (`-c`, `--config-env`, `--exec-path`), no
    /// `grep -O`/`--open-files-in-pager` or `--ext-diff`, and a subcommand the table marks
    /// read-only (`git config` only with a reading action).
    fn git_is_read_only(&self, cap: &Cap) -> bool {
        let Some((opts, _)) = self.git_parts() else {
            return false;
        };
        if opts
            .iter()
            .any(|(o, _)| cap.option(o).is_some_and(|d| d != Does::ReadOnly))
        {
            return false;
        }
        // `-C DIR`, `--git-dir`, `--work-tree` elsewhere than the project: that repository's
        // own config (`core.fsmonitor`, `core.pager`…) runs.
        if opts.iter().any(|(o, v)| {
            let (name, value) = match o.split_once('=') {
                Some((n, v)) => (n, v),
                None => (o.as_str(), v.as_deref().unwrap_or("")),
            };
            matches!(name, "-C" | "--git-dir" | "--work-tree") && !is_project_dir(value)
        }) {
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
        match cap.sub(sub) {
            Some(Does::ReadOnly) => true,
            // `git remote`: listing and `get-url` only (`add`, `set-url`, `rename`,
            // `update`… change the config or reach the network).
            Some(Does::Script) if sub == "remote" => {
                match rest
                    .iter()
                    .find(|a| !a.starts_with('-'))
                    .map(String::as_str)
                {
                    None | Some("get-url") => true,
                    Some("show") => rest.iter().any(|a| a == "-n"),
                    _ => false,
                }
            }
            // `git config`: only its reading actions.
            Some(Does::Script) => rest.iter().any(|x| {
                matches!(
                    x.as_str(),
                    "--get" | "--get-all" | "--list" | "-l" | "--get-regexp" | "get" | "list"
                )
            }),
            _ => false,
        }
    }

    /// A [`Does::Script`] program (`find`, `sed`, `awk`, `make`): read-only when the program
    /// text it is given is (its options were checked against the table already).
    fn script_is_read_only(&self) -> bool {
        let a = &self.args;
        match self.program.as_str() {
            // `-exec`, `-delete`, `-fprint`… are in the table.
            "find" => true,
            "sed" => {
                let o = Opts::parse(a, "efl", "i", &["expression", "file", "line-length"]);
                if o.any(&["-i", "--in-place", "-f", "--file"]) {
                    return false;
                }
                let prog = sed_program(&o.sed_script().text);
                !prog.executes && !prog.unknown && prog.writes.is_empty()
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
                !ap.executes
                    && !ap.unknown_write
                    && ap.writes.is_empty()
                    && !o.any(&["-i", "--include", "-l", "--load", "-E", "--exec"])
            }
            "make" | "gmake" => self.make_is_read_only() && self.build_args_are_local(0),
            _ => false,
        }
    }

    /// `make`: no `--eval`, no makefile read from stdin, no `SHELL=` and no command-line
    /// variable that expands (`X:=$(shell …)`).
    fn make_is_read_only(&self) -> bool {
        let o = Opts::parse(
            &self.args,
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
        !(o.any(&["--eval", "-E"]) || stdin_makefile || sets_shell || expands)
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

/// Python modules run with `-m` that read their standard input as data (formatters,
/// encoders, parsers that do not execute what they parse).
const DATA_MODULES: crate::strtab::StrTable = crate::str_table![
    "json.tool",
    "json",
    "base64",
    "gzip",
    "quopri",
    "uu",
    "tokenize",
    "ast",
    "dis",
    "tabnanny",
    "pprint",
    "mimetypes",
    "calendar",
];

/// Words in inline code that evaluate text as code (or deserialize objects that can): inline
/// code holding one may run what it reads on stdin.
const EVALUATES: crate::strtab::StrTable = crate::str_table![
    "eval",
    "exec",
    "compile",
    "system",
    "popen",
    "spawn",
    "child_process",
    "`",
    "qx",
    "pickle",
    "marshal",
    "runpy",
    "__import__",
    "import(",
    "source",
    "require(\"vm\")",
    "require('vm')",
    "invoke-expression",
    "iex",
];

/// True when the interpreter `program` run with `args` reads its standard input as code:
/// with no script, inline code or module (`python3`, `node`, `php`), with `-` or
/// `/dev/stdin` as its script, interactive (`-i`, `php -a`), with inline code that evaluates
/// text ([`EVALUATES`]), or with a module not known to read data (`python3 -m code`).
fn interpreter_reads_stdin_code(program: &str, args: &[String]) -> bool {
    let stdin_path = |a: &str| {
        matches!(a, "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0") || a.contains("(…)")
    };
    let evaluates = |code: &str| {
        let lower = code.to_ascii_lowercase();
        EVALUATES.iter().any(|w| lower.contains(w))
    };
    // Per family: the short options that carry inline code, a module, an interactive mode,
    // and the options whose value is the next word.
    let (inline, module, interactive, valued): (&str, &str, &str, &str) = match program {
        "python" | "python2" | "python3" => ("c", "m", "i", "WXQ"),
        "perl" => ("eE", "", "", "IMmCFx"),
        "ruby" => ("e", "", "", "IrCEFx"),
        "node" | "bun" | "deno" => ("ep", "", "i", "r"),
        "php" => ("r", "", "a", "cdfz"),
        // `pwsh -Command -`, `source FILE`, `eval`, `iex`: read below as operands.
        "pwsh" | "powershell" => {
            let mut it = args.iter();
            while let Some(a) = it.next() {
                let l = a.to_ascii_lowercase();
                if matches!(l.as_str(), "-command" | "-c" | "-encodedcommand" | "-ec") {
                    return it.next().is_none_or(|v| v == "-" || evaluates(v));
                }
                if matches!(l.as_str(), "-file" | "-f") {
                    return it.next().is_none_or(|v| stdin_path(v));
                }
            }
            return true;
        }
        _ => return true,
    };
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if a == "--" {
            return args.get(i).is_none_or(|s| stdin_path(s));
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            match name {
                "eval" | "print" | "command" => {
                    let code = value.or_else(|| args.get(i).cloned()).unwrap_or_default();
                    return evaluates(&code);
                }
                "interactive" => return true,
                _ => continue,
            }
        }
        if a == "-" || !a.starts_with('-') {
            // A script file (or a subcommand such as `deno run FILE`).
            if matches!(program, "deno" | "bun") && matches!(a.as_str(), "run" | "x") {
                continue;
            }
            if matches!(program, "deno") && a == "eval" {
                return args.get(i).is_none_or(|c| evaluates(c));
            }
            return stdin_path(a);
        }
        let cs: Vec<char> = a.chars().skip(1).collect();
        for (k, ch) in cs.iter().enumerate() {
            let rest: String = cs[k + 1..].iter().collect();
            let value = || {
                if rest.is_empty() {
                    args.get(i).cloned().unwrap_or_default()
                } else {
                    rest.clone()
                }
            };
            if interactive.contains(*ch) {
                return true;
            }
            if inline.contains(*ch) {
                return evaluates(&value());
            }
            if module.contains(*ch) {
                return !DATA_MODULES.contains(value().as_str());
            }
            if program == "php" && *ch == 'f' {
                // `php -f FILE`: the script.
                return stdin_path(&value());
            }
            if valued.contains(*ch) {
                if rest.is_empty() {
                    i += 1;
                }
                break;
            }
        }
    }
    true
}

/// True when `dir` (a `git -C`/`--git-dir`/`--work-tree` value) stays in the project: a
/// relative path that does not climb out (`sub`, `./lib`, `.git`), not an absolute, home,
/// variable or `..` path.
fn is_project_dir(dir: &str) -> bool {
    !dir.is_empty()
        && !dir.starts_with(['/', '~', '$'])
        && !dir.split('/').any(|c| c == "..")
        && !dir.contains("$(")
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
    /// True when some command reaches the network, an interpreter fed code that does
    /// included (`cat <<EOF | node` with `fetch(…)` in the here-document: the text belongs to
    /// `cat`, the code runs in `node`).
    pub fn is_network(&self) -> bool {
        self.all_commands().iter().any(|c| c.is_network())
            || self
                .inline_programs()
                .iter()
                .any(|(_, code)| super::inline::facts(code).network.is_some())
    }

    /// True when every command only reads.
    pub fn is_read_only(&self) -> bool {
        let cmds = self.all_commands();
        !cmds.is_empty() && cmds.iter().all(|c| c.is_read_only())
    }
}

#[cfg(test)]
mod tests;

/// Build and test options that run another program or write outside the project.
const BUILD_EXEC_OPTIONS: crate::strtab::StrTable = crate::str_table![
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
