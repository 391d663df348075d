//! One simple command: [`SimpleCommand`] built from its words, leading `VAR=value` words and
//! wrappers (`sudo`, `env`, `timeout`, `xargs`, `flock`, `busybox`…) removed by their option
//! specs; the directory it runs in ([`Dir`], moved by `cd`); the commands `find -exec` and
//! `fd -x` run; git's global options and subcommand; and [`Opts`], the option reader the other
//! rooms use.

use super::capabilities::{wrap_spec, WrapSpec};
use super::expand::{decode_escapes, is_name};

/// One simple command: its words (quotes removed) and where it writes by redirection.
#[derive(Debug, Clone, Default)]
pub struct SimpleCommand {
    /// Program name, wrappers and `VAR=` assignments removed; basename only.
    pub program: String,
    /// Arguments after the program.
    pub args: Vec<String>,
    /// Files written by `>`, `>>`, `&>`, `N>` (not `/dev/null`, `/dev/std*`, `&N`).
    pub redirect_writes: Vec<String>,
    /// True when one of its words held a `$(...)` or backtick substitution.
    pub has_substitution: bool,
    /// Files read by `<` (and `/dev/tcp/...` sockets).
    pub redirect_reads: Vec<String>,
    /// What the command is fed on stdin as text written in the line: here-document bodies
    /// (`<<EOF ... EOF`) and here-strings (`<<< "text"`, `<<<word`), with the variables the
    /// analysis knows substituted; several are joined by newlines.
    pub heredoc: Option<String>,
    /// The program word as written (`~/.cargo/bin/intentshield`, `$B`), before wrappers were
    /// removed and the basename taken; empty when the command has no program.
    pub argv0: String,
    /// The directory the command runs in, as far as a `cd` earlier in the line shows.
    pub dir: Dir,
    /// Environment assignments given to this command only: `NAME=value` words before the
    /// program (also those after `env`/`sudo`), as `(NAME, value)` with the value's variables
    /// substituted as far as known. They do not change the line's variables.
    pub env: Vec<(String, String)>,
    /// True when `xargs` runs the command: some of its arguments come from stdin. When the
    /// command before it in the pipeline is an `echo`/`printf` of literal words, those words
    /// are already appended to [`SimpleCommand::args`] (or put in place of the `-I` string).
    pub via_xargs: bool,
    /// A command line this command runs in the same shell or a child (`eval ARGS`,
    /// `flock -c SCRIPT`, `env -S STRING`); analysed into
    /// [`Analysis::nested`](super::Analysis::nested).
    pub(super) nested_script: Option<String>,
    /// The `-I`/`-i`/`--replace` string of the `xargs` that runs this command.
    pub(super) xargs_replace: Option<String>,
    /// What the `xargs` that runs this command splits its input on: `None` for blanks and
    /// newlines, else the delimiter (`-0`: NUL, `-d X`).
    pub(super) xargs_delim: Option<char>,
    /// True when the program name itself is text computed at run time that the analysis
    /// cannot see: a command substitution (`$(echo rm) -rf x`) or an expansion that computes
    /// text (`${b@P}`, `${!x}`, `${x/a/b}`, `${x:1:2}`, `$((…))`). A plain unknown variable
    /// (`$EDITOR f`) is not: its name is what it is. `$'\x72\x6d'${IFS}-rf` is decoded
    /// (`rm -rf`) and is not computed either.
    pub computed_program: bool,
    /// True when `parallel` runs this command: its `:::` value lists were appended to the
    /// arguments.
    pub parallel: bool,
    /// The wrapper words before the program with their options, as read (`sudo -u x`,
    /// `systemd-run --user --on-calendar=hourly`); empty when no wrapper runs it.
    pub wrapper_words: Vec<String>,
}

/// Where a command runs, as far as the `cd`/`pushd` commands before it in the same line show
/// (`cd ~/.claude && echo x > settings.json` writes `~/.claude/settings.json`). A subshell's
/// `cd` ends with the subshell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Dir {
    /// The agent's working directory: no `cd` before it.
    #[default]
    Start,
    /// A directory as written, joined across `cd`s (`~/.claude`, `/tmp/x`, `sub/dir`, relative
    /// ones against the working directory); not resolved.
    At(String),
    /// A `cd` to a place the analysis cannot know (`cd "$D"`, `cd $(…)`, `cd -`).
    Unknown,
}

impl Dir {
    /// The directory after `cd ARGS` run here.
    pub(super) fn cd(&self, args: &[String]) -> Dir {
        let operands: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
        if args.iter().any(|a| a == "-") {
            return Dir::Unknown;
        }
        let Some(target) = operands.first() else {
            return Dir::At("~".to_string());
        };
        // A variable, a substitution, a glob or a brace expansion: where it goes is unknown.
        if target.contains(['$', '`', '*', '?', '[', '{']) {
            return Dir::Unknown;
        }
        if target.starts_with('/') || target.starts_with('~') {
            return Dir::At(target.to_string());
        }
        match self {
            Dir::Start => Dir::At(target.to_string()),
            Dir::At(d) => Dir::At(format!("{}/{target}", d.trim_end_matches('/'))),
            Dir::Unknown => Dir::Unknown,
        }
    }

    /// `path` as seen from the working directory: joined to this directory when relative.
    /// `None` when it is relative and this directory is unknown.
    pub fn locate(&self, path: &str) -> Option<String> {
        let absolute = path.starts_with('/')
            || path.starts_with('~')
            || path.starts_with("$HOME")
            || path.starts_with("${HOME}");
        match self {
            _ if absolute => Some(path.to_string()),
            Dir::Start => Some(path.to_string()),
            Dir::At(d) => Some(format!("{}/{path}", d.trim_end_matches('/'))),
            Dir::Unknown => None,
        }
    }
}

pub(super) fn basename(w: &str) -> &str {
    w.rsplit('/').next().unwrap_or(w)
}

/// Reads the options of a wrapper (or any program) from `words[i..]` by its spec; returns
/// the options as `(name, value)` (`-u`/`--user`, value when it takes one) and the index of
/// the first word after them (past a `--`).
fn wrapper_opts(
    words: &[(String, bool)],
    mut i: usize,
    spec: WrapSpec,
) -> (Vec<(String, Option<String>)>, usize) {
    let (short_val, short_opt, long_val, _) = spec;
    let mut opts = Vec::new();
    while let Some((o, _)) = words.get(i) {
        if o == "--" {
            i += 1;
            break;
        }
        if let Some(long) = o.strip_prefix("--") {
            match long.split_once('=') {
                Some((k, v)) => opts.push((format!("--{k}"), Some(v.to_string()))),
                None if long_val.contains(&long) => {
                    opts.push((o.clone(), words.get(i + 1).map(|w| w.0.clone())));
                    i += 1;
                }
                None => opts.push((o.clone(), None)),
            }
            i += 1;
            continue;
        }
        if !o.starts_with('-') || o.len() < 2 {
            break;
        }
        let cs: Vec<char> = o.chars().skip(1).collect();
        for (k, ch) in cs.iter().enumerate() {
            let rest: String = cs[k + 1..].iter().collect();
            if short_val.contains(*ch) {
                if rest.is_empty() {
                    opts.push((format!("-{ch}"), words.get(i + 1).map(|w| w.0.clone())));
                    i += 1;
                } else {
                    opts.push((format!("-{ch}"), Some(rest)));
                }
                break;
            }
            if short_opt.contains(*ch) {
                opts.push((format!("-{ch}"), Some(rest)));
                break;
            }
            opts.push((format!("-{ch}"), None));
        }
        i += 1;
    }
    (opts, i)
}

pub(super) fn simple(words: Vec<(String, bool)>, redirect_writes: Vec<String>) -> SimpleCommand {
    let has_substitution = words.iter().any(|(_, s)| *s);
    let mut c = SimpleCommand {
        redirect_writes,
        has_substitution,
        ..SimpleCommand::default()
    };
    let mut i = 0;
    // Leading assignments and wrappers.
    while let Some((w, _)) = words.get(i) {
        if let Some((k, v)) = w.split_once('=').filter(|(k, _)| is_name(k)) {
            c.env.push((k.to_string(), v.to_string()));
            i += 1;
            continue;
        }
        let b = basename(w);
        // A wrapper (the capability table's `wrap` entries) with nothing after it runs as
        // itself (`env` prints the environment).
        let Some(spec) = wrap_spec(b) else {
            break;
        };
        let start = i;
        if b == "flock" {
            // `flock [opts] FILE CMD…`, `flock [opts] FILE -c SCRIPT`, `flock [opts] FD`.
            let (_, j) = wrapper_opts(&words, i + 1, spec);
            let (opts, k) = wrapper_opts(&words, j + 1, spec);
            let script = opts
                .iter()
                .find(|(o, _)| o == "-c" || o == "--command")
                .and_then(|(_, v)| v.clone());
            if script.is_some() || k >= words.len() {
                c.nested_script = script;
                break;
            }
            i = k;
            continue;
        }
        if b == "gdb" {
            // `gdb [opts] --args PROGRAM ARGS…` runs PROGRAM.
            match words[i + 1..].iter().position(|(x, _)| x == "--args") {
                Some(k) if i + 1 + k + 1 < words.len() => {
                    i = i + 1 + k + 1;
                    continue;
                }
                _ => break,
            }
        }
        if b == "parallel" {
            // `parallel [opts] CMD ARGS… ::: VALUES…`: CMD runs with the values appended.
            let (_, j) = wrapper_opts(&words, i + 1, spec);
            if j >= words.len() {
                break;
            }
            c.parallel = true;
            i = j;
            continue;
        }
        if b == "busybox" {
            if words.get(i + 1).is_some_and(|(x, _)| !x.starts_with('-')) {
                i += 1;
                continue;
            }
            break;
        }
        if b == "command"
            && words[i + 1..]
                .iter()
                .take_while(|(x, _)| x.starts_with('-'))
                .any(|(x, _)| x.contains('v') || x.contains('V'))
        {
            // `command -v NAME` looks a name up; it runs nothing.
            break;
        }
        let (opts, mut j) = wrapper_opts(&words, i + 1, spec);
        j += spec.3;
        for (o, v) in &opts {
            match (b, o.as_str()) {
                ("env", "-S" | "--split-string") => c.nested_script.clone_from(v),
                ("su" | "runuser" | "script", "-c" | "--command") => {
                    c.nested_script.clone_from(v);
                }
                ("xargs", "-I" | "-i" | "--replace") => {
                    c.xargs_replace = Some(
                        v.clone()
                            .filter(|r| !r.is_empty())
                            .unwrap_or_else(|| "{}".to_string()),
                    );
                }
                ("xargs", "-0" | "--null") => c.xargs_delim = Some('\0'),
                ("xargs", "-d" | "--delimiter") => {
                    c.xargs_delim = v
                        .as_deref()
                        .map(|d| decode_escapes(d, false))
                        .and_then(|d| d.chars().next());
                }
                _ => {}
            }
        }
        // `su [-] USER -c SCRIPT`: options may follow the user.
        if matches!(b, "su" | "runuser") && c.nested_script.is_none() {
            let rest = &words[j.min(words.len())..];
            c.nested_script = rest
                .iter()
                .enumerate()
                .find_map(|(k, (x, _))| match x.as_str() {
                    "-c" | "--command" => rest.get(k + 1).map(|(v, _)| v.clone()),
                    _ => x.strip_prefix("--command=").map(str::to_string),
                });
        }
        // Nothing to run, or a script given with `-c`: the wrapper is the program (and the
        // script is analysed as a nested line).
        if j >= words.len()
            || (matches!(b, "su" | "runuser" | "script") && c.nested_script.is_some())
        {
            i = start;
            break;
        }
        if b == "xargs" {
            c.via_xargs = true;
        }
        i = j;
    }
    c.wrapper_words = words
        .iter()
        .take(i)
        .skip(c.env.len())
        .take(32)
        .map(|(w, _)| w.clone())
        .collect();
    c.argv0 = words.get(i).map(|(w, _)| w.clone()).unwrap_or_default();
    c.program = basename(&c.argv0).to_string();
    c.args = words.iter().skip(i + 1).map(|(w, _)| w.clone()).collect();
    if c.parallel {
        c.args
            .retain(|a| !matches!(a.as_str(), ":::" | "::::" | ":::+" | "::::+"));
    }
    if c.program == "eval" && !c.args.is_empty() {
        c.nested_script = Some(c.args.join(" "));
    }
    c
}

impl SimpleCommand {
    /// The arguments that are not options (do not start with `-`), in order.
    pub fn operands(&self) -> Vec<&str> {
        self.args
            .iter()
            .map(String::as_str)
            .filter(|a| !a.starts_with('-'))
            .collect()
    }
}

impl SimpleCommand {
    /// The command lines `find -exec PROGRAM ARGS ;` (and `-execdir`, `-ok`, `-okdir`, ended by
    /// `;` or `+`) and `fd -x`/`--exec`/`-X`/`--exec-batch PROGRAM ARGS` (to `;` or the end)
    /// run; empty for any other program.
    pub(super) fn find_exec(&self) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        let starts: &[&str] = match self.program.as_str() {
            "find" => &["-exec", "-execdir", "-ok", "-okdir"],
            "fd" | "fdfind" => &["-x", "--exec", "-X", "--exec-batch"],
            _ => return out,
        };
        let mut it = self.args.iter();
        while let Some(a) = it.next() {
            if starts.contains(&a.as_str()) {
                let run: Vec<String> = it
                    .by_ref()
                    .take_while(|w| !matches!(w.as_str(), ";" | "+"))
                    .cloned()
                    .collect();
                if !run.is_empty() {
                    out.push(run);
                }
            }
        }
        out
    }

    /// The git global options before the subcommand and the subcommand's index in
    /// [`SimpleCommand::args`]; `None` when this is not git.
    pub(super) fn git_parts(&self) -> Option<(OptList, Option<usize>)> {
        if self.program != "git" {
            return None;
        }
        let words: Vec<(String, bool)> = self.args.iter().map(|a| (a.clone(), false)).collect();
        let (opts, i) = wrapper_opts(
            &words,
            0,
            (
                "Cc",
                "",
                &[
                    "git-dir",
                    "work-tree",
                    "namespace",
                    "config-env",
                    "super-prefix",
                ],
                0,
            ),
        );
        Some((opts, (i < self.args.len()).then_some(i)))
    }

    /// The `git` subcommand, if this is git (skipping its global options: `-C dir`,
    /// `-c k=v`, `--git-dir DIR`…).
    pub(super) fn git_sub(&self) -> Option<&str> {
        let (_, i) = self.git_parts()?;
        self.args.get(i?).map(String::as_str)
    }

    /// The arguments after the `git` subcommand.
    pub(super) fn git_args(&self) -> &[String] {
        match self.git_parts() {
            Some((_, Some(i))) => self.args.get(i + 1..).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// `p` as seen by git after its `-C DIR` options (joined when relative).
    pub(super) fn git_locate(&self, p: &str) -> String {
        let Some((opts, _)) = self.git_parts() else {
            return p.to_string();
        };
        let mut dir: Option<String> = None;
        for (o, v) in opts {
            if let ("-C", Some(d)) = (o.as_str(), v) {
                dir = Some(match dir {
                    Some(prev) if !d.starts_with('/') && !d.starts_with('~') => {
                        format!("{}/{d}", prev.trim_end_matches('/'))
                    }
                    _ => d,
                });
            }
        }
        match dir {
            Some(d) if !p.starts_with('/') && !p.starts_with('~') && !p.starts_with('$') => {
                if p == "." {
                    d
                } else {
                    format!("{}/{p}", d.trim_end_matches('/'))
                }
            }
            _ => p.to_string(),
        }
    }
}

/// Options as read: `(name, value)`, `-o`/`--output` with the value of one that takes it.
type OptList = Vec<(String, Option<String>)>;

/// A program's arguments read by its option spec: options (`-o`/`--output`, with the value of
/// the ones that take one) and operands, in order. `--` ends the options; `-` is an operand.
#[derive(Debug, Clone, Default)]
pub(super) struct Opts {
    opts: Vec<(String, Option<String>)>,
    pub(super) operands: Vec<String>,
}

impl Opts {
    /// Reads `args`: `short_val` are short options taking a value (attached or the next
    /// word), `short_opt` short options whose value can only be attached (`-i.bak`),
    /// `long_val` long options taking the next word when not given `=value`. Options may
    /// come after operands (GNU style).
    pub(super) fn parse(
        args: &[String],
        short_val: &str,
        short_opt: &str,
        long_val: &[&str],
    ) -> Opts {
        let mut o = Opts::default();
        let mut i = 0;
        let mut ended = false;
        while let Some(a) = args.get(i) {
            i += 1;
            if ended || a == "-" || !a.starts_with('-') {
                o.operands.push(a.clone());
                continue;
            }
            if a == "--" {
                ended = true;
                continue;
            }
            if let Some(l) = a.strip_prefix("--") {
                match l.split_once('=') {
                    Some((k, v)) => o.opts.push((format!("--{k}"), Some(v.to_string()))),
                    None if long_val.contains(&l) => {
                        o.opts.push((a.clone(), args.get(i).cloned()));
                        i += 1;
                    }
                    None => o.opts.push((a.clone(), None)),
                }
                continue;
            }
            let cs: Vec<char> = a.chars().skip(1).collect();
            for (k, ch) in cs.iter().enumerate() {
                let rest: String = cs[k + 1..].iter().collect();
                if short_val.contains(*ch) {
                    if rest.is_empty() {
                        o.opts.push((format!("-{ch}"), args.get(i).cloned()));
                        i += 1;
                    } else {
                        o.opts.push((format!("-{ch}"), Some(rest)));
                    }
                    break;
                }
                if short_opt.contains(*ch) {
                    o.opts.push((format!("-{ch}"), Some(rest)));
                    break;
                }
                o.opts.push((format!("-{ch}"), None));
            }
        }
        o
    }

    /// True when one of `names` was given.
    pub(super) fn any(&self, names: &[&str]) -> bool {
        self.opts.iter().any(|(o, _)| names.contains(&o.as_str()))
    }

    /// The values given to the options `names`.
    pub(super) fn values<'a>(&'a self, names: &'a [&'a str]) -> impl Iterator<Item = &'a str> + 'a {
        self.opts
            .iter()
            .filter(move |(o, _)| names.contains(&o.as_str()))
            .filter_map(|(_, v)| v.as_deref())
    }
}

#[cfg(test)]
mod tests;
