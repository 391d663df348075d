//! The program capability table: for each program the analysis knows, what it does by default
//! and what its options and subcommands make it do: only read, write (which argument), reach
//! the network (which argument is the destination), run code (which argument or option), or
//! wrap another command (where that command starts). One reviewed table, as Rust data (no file
//! is loaded at run time); [`SimpleCommand::is_read_only`](super::SimpleCommand::is_read_only),
//! `is_network`, `is_downloader`, `is_interpreter`, `stdin_is_code` and the wrapper reader in
//! `command` are lookups into it.
//!
//! **A program or option that is not known to be read-only is not read-only**: a program
//! absent from the table changes state; an option of a read-only program that its entry does
//! not list changes state too, unless the entry says its other options are harmless
//! ([`Others::Harmless`]: `ls`, `cat`, `grep`, whose options never run code, write or reach
//! the network).
//!
//! Reference for which programs and options run code or move data: GTFOBins
//! (<https://gtfobins.org>, the unprivileged functions shell, command, reverse-shell,
//! bind-shell, upload, download, file-write, library-load), checked by `tests/shell_corpora.rs`
//! over `../shared/corpora-shell/gtfobins.jsonl`. Programs whose effect depends on a program
//! text they are given (`sed`, `awk`, `make`, `find`) are [`Does::Script`]: `scripts` reads
//! that text.

/// What a program (or one of its options or subcommands) does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Does {
    /// Only reads files and the system's state and prints: `cat`, `ls`, `git log`.
    ReadOnly,
    /// Reads, but what it does depends on a program text it is given, which the analysis
    /// reads (`sed` scripts, `awk` programs, `find` expressions, `make` arguments): read-only
    /// only when that text is.
    Script,
    /// A local build or test command (`cargo test`, `npm test`): read-only for the tainted
    /// review when its arguments keep it local (no URL, no package to install, no option
    /// that runs another program or writes elsewhere).
    BuildTest,
    /// Writes files or changes the system's state ([`Cap::writes`] says which argument).
    Writes,
    /// Reaches the network ([`Cap::net`] says which argument is the destination).
    Network,
    /// Runs code it is given (a script, its stdin, an inline program, a command option).
    RunsCode,
    /// Runs another command given in its arguments ([`Cap::wrap`] says where it starts).
    Wraps,
}

/// Whether the options an entry does not list are harmless.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Others {
    /// Options not listed never run code, write or reach the network.
    Harmless,
    /// Options not listed are unknown: given one, the program is not read-only.
    Unknown,
}

/// Which arguments a program writes (the parsing lives in `writes`; [`Writes::Parsed`] names
/// programs whose grammar needs code: `sed -i`, `tar -x -C`, `curl -o`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Writes {
    /// Nothing (redirections aside).
    Nothing,
    /// Every operand (`tee F…`, `touch F…`, `rm F…`).
    Operands,
    /// The destination of a copy: the last operand, or `-t DIR` (`cp`, `mv`, `install`, `ln`).
    CopyDest,
    /// Computed by the program's own option reader in `writes` (the entry's comment says
    /// which argument: `sort -o F`, `uniq IN OUT`, `sed -i`, `tar -x -C DIR`, `curl -o F`).
    Parsed,
}

/// Where a program's network destination is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Net {
    /// It does not reach the network (apart from options and subcommands that say so).
    Never,
    /// Always: the destination is its URL or host operand.
    Always,
    /// Only when an operand names a remote (`host:path`, as `rsync` and `scp` write it).
    RemoteOperand,
}

/// How a program's standard input is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stdin {
    /// As data (or not at all).
    Data,
    /// As code, unless it is given its code another way (a script file, `-c`/`-e`/`-m`): see
    /// [`SimpleCommand::stdin_is_code`](super::SimpleCommand::stdin_is_code).
    CodeUnlessGiven,
    /// As a shell script always (`sh`, `bash -s`): a shell's here-document body is a script.
    Shell,
    /// As shell commands run later or elsewhere (`at`, `batch`, `crontab -`).
    Scheduled,
}

/// How a wrapper's options read (see `command::wrapper_opts`): short options that take a
/// value (attached or as the next word), short options whose value can only be attached,
/// long options that take the next word when not given as `--opt=value`, and how many
/// operands come before the command it runs (`timeout DURATION`, `chroot DIR`).
pub(super) type WrapSpec = (&'static str, &'static str, &'static [&'static str], usize);

/// One program's entry.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cap {
    /// The program's basename as typed (`python3`, `git`).
    pub program: &'static str,
    /// What it does with none of the listed options or subcommands.
    pub does: Does,
    /// Whether options it does not list are harmless.
    pub others: Others,
    /// Options that change what it does: an exact word (`-delete`), a long option also as
    /// `--opt=VALUE`, a short option also with its value attached (`-oFILE`), and `+`
    /// words (`less +CMD`) by prefix.
    pub options: &'static [(&'static str, Does)],
    /// Subcommands (the first operand; git's after its global options) and what they do;
    /// one not listed does [`Cap::does`] when the list is empty, else changes state.
    pub subs: &'static [(&'static str, Does)],
    /// Which arguments it writes.
    pub writes: Writes,
    /// Where its network destination is.
    pub net: Net,
    /// True when it downloads content from the network (`curl`, `wget`).
    pub downloader: bool,
    /// How it uses its standard input.
    pub stdin: Stdin,
    /// For a wrapper: how its options read, up to the command it runs.
    pub wrap: Option<WrapSpec>,
    /// Which operands set the system's state (`hostname NAME`, `date MMDDhhmm`).
    pub operand_sets: OperandSets,
}

/// Which operands of a read-only program set the system's state instead of being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OperandSets {
    /// None.
    No,
    /// Any operand (`hostname NAME`).
    Any,
    /// An operand of digits and dots (`date MMDDhhmm[[CC]YY][.ss]`), not a `+FORMAT`.
    DateDigits,
}

impl OperandSets {
    /// True when the operand `w` sets state.
    pub(super) fn sets(self, w: &str) -> bool {
        match self {
            OperandSets::No => false,
            OperandSets::Any => true,
            OperandSets::DateDigits => {
                !w.is_empty() && w.chars().all(|c| c.is_ascii_digit() || c == '.')
            }
        }
    }
}

/// An entry with the usual defaults: no options or subcommands listed, other options
/// unknown, writes nothing, no network, stdin is data, not a wrapper.
const fn cap(program: &'static str, does: Does) -> Cap {
    Cap {
        program,
        does,
        others: Others::Unknown,
        options: &[],
        subs: &[],
        writes: Writes::Nothing,
        net: Net::Never,
        downloader: false,
        stdin: Stdin::Data,
        wrap: None,
        operand_sets: OperandSets::No,
    }
}

/// A read-only program whose options never run code, write or reach the network.
const fn ro(program: &'static str) -> Cap {
    harmless(cap(program, Does::ReadOnly))
}

/// A read-only program whose options are harmless except `options`.
const fn ro_but(program: &'static str, options: &'static [(&'static str, Does)]) -> Cap {
    let mut c = ro(program);
    c.options = options;
    c
}

const fn harmless(mut c: Cap) -> Cap {
    c.others = Others::Harmless;
    c
}

/// A program that writes its `w` arguments.
const fn writer(program: &'static str, w: Writes) -> Cap {
    let mut c = cap(program, Does::Writes);
    c.writes = w;
    c
}

/// A program that reaches the network; `downloader` when it fetches content.
const fn net(program: &'static str, downloader: bool) -> Cap {
    let mut c = cap(program, Does::Network);
    c.net = Net::Always;
    c.downloader = downloader;
    c
}

/// An interpreter: runs a script, inline code or (`stdin`) what it reads.
const fn interp(program: &'static str, stdin: Stdin) -> Cap {
    let mut c = cap(program, Does::RunsCode);
    c.stdin = stdin;
    c
}

/// A program that runs another command, read by `spec`.
const fn wrapper(program: &'static str, spec: WrapSpec) -> Cap {
    let mut c = cap(program, Does::Wraps);
    c.wrap = Some(spec);
    c
}

/// A wrapper without options of its own taking values.
const W0: WrapSpec = ("", "", &[], 0);
/// A wrapper with one operand before the command (`chrt PRIO CMD`, `taskset MASK CMD`).
const W1: WrapSpec = ("", "", &[], 1);

/// An awk: its program (read by `scripts`) decides; `-f FILE`, `-i`/`-l` (includes, extensions)
/// and `-E` are code it cannot see; `-i inplace` and `print > F` write.
const fn awk(program: &'static str) -> Cap {
    let mut c = harmless(cap(program, Does::Script));
    c.options = &[
        ("-f", Does::RunsCode),
        ("--file", Does::RunsCode),
        ("-i", Does::RunsCode),
        ("--include", Does::RunsCode),
        ("-l", Does::RunsCode),
        ("--load", Does::RunsCode),
        ("-E", Does::RunsCode),
        ("--exec", Does::RunsCode),
    ];
    c.writes = Writes::Parsed;
    c
}

/// A local build or test command; `subs` are the subcommands that qualify (empty: any).
const fn build(program: &'static str, subs: &'static [(&'static str, Does)]) -> Cap {
    let mut c = cap(program, Does::BuildTest);
    c.subs = subs;
    c
}

use Does::{BuildTest as B, Network as N, ReadOnly as R, RunsCode as X, Script as S, Writes as Wr};

/// The table as written, sorted by program name (a unit test holds it sorted and unique). Read
/// at compile time (and by tests) only: the run-time table is [`PACKED`] with its strings in
/// [`STRS`], and [`lookup`] rebuilds an entry the first time it is asked for.
pub(super) const CAP_DEFS: &[Cap] = &[
    interp(".", Stdin::CodeUnlessGiven),
    writer("7z", Writes::Parsed),
    ro("["),
    ro_but("ack", &[("--pager", X)]),
    ro("ag"),
    net("aria2c", true),
    interp("ash", Stdin::Shell),
    interp("at", Stdin::Scheduled),
    awk("awk"),
    net("aws", false),
    net("az", false),
    ro("b2sum"),
    ro("base32"),
    ro("base64"),
    ro("basename"),
    ro("basenc"),
    interp("bash", Stdin::Shell),
    ro_but("bat", &[("--pager", X)]),
    interp("batch", Stdin::Scheduled),
    wrapper("builtin", W0),
    interp("bun", Stdin::CodeUnlessGiven),
    wrapper("busybox", W0),
    wrapper(
        "bwrap",
        (
            "",
            "",
            &[
                "bind", "ro-bind", "chdir", "setenv", "unsetenv", "uid", "gid",
            ],
            0,
        ),
    ),
    wrapper("caffeinate", ("tw", "", &[], 0)),
    ro("cal"),
    build(
        "cargo",
        &[
            ("build", B),
            ("check", B),
            ("test", B),
            ("clippy", B),
            ("fmt", B),
            ("doc", B),
            ("bench", B),
            ("tree", B),
            ("metadata", B),
            ("nextest", B),
            ("run", B),
            ("publish", N),
        ],
    ),
    ro("cat"),
    wrapper("catchsegv", W0),
    wrapper("cgexec", ("g", "", &[], 0)),
    writer("chattr", Writes::Parsed),
    writer("chgrp", Writes::Operands),
    writer("chmod", Writes::Operands),
    writer("chown", Writes::Operands),
    wrapper("chronic", W0),
    wrapper("chroot", ("", "", &["userspec", "groups"], 1)),
    wrapper("chrt", W1),
    ro("cksum"),
    ro("cmp"),
    ro("column"),
    ro("comm"),
    wrapper("command", W0),
    writer("cp", Writes::CopyDest),
    writer("cpio", Writes::Parsed),
    interp("crontab", Stdin::Scheduled),
    interp("csh", Stdin::Shell),
    {
        let mut c = net("curl", true);
        c.writes = Writes::Parsed;
        c
    },
    ro("cut"),
    interp("dash", Stdin::Shell),
    {
        let mut c = ro_but("date", &[("-s", Wr), ("--set", Wr)]);
        c.operand_sets = OperandSets::DateDigits;
        c
    },
    wrapper("dbus-run-session", W0),
    writer("dd", Writes::Parsed),
    interp("deno", Stdin::CodeUnlessGiven),
    ro("df"),
    ro("diff"),
    ro_but("diff3", &[("--diff-program", X)]),
    net("dig", false),
    ro("dirname"),
    wrapper("doas", ("uC", "", &[], 0)),
    {
        let mut c = cap("docker", Does::Writes);
        c.subs = &[("push", N), ("login", N)];
        c
    },
    net("drill", false),
    ro("du"),
    wrapper("dumb-init", W0),
    ro("echo"),
    // Editors run commands (`!cmd`, `vim -c`, `:!`), write files (GTFOBins shell, file-write).
    cap("ed", X),
    ro("egrep"),
    cap("emacs", X),
    wrapper("entr", W0),
    wrapper("env", ("uCS", "", &["unset", "chdir", "split-string"], 0)),
    build("eslint", &[]),
    interp("eval", Stdin::CodeUnlessGiven),
    cap("ex", X),
    ro("exa"),
    wrapper("exec", ("a", "", &[], 0)),
    ro("expand"),
    ro("expr"),
    ro("eza"),
    wrapper("faketime", W1),
    ro("false"),
    ro_but(
        "fd",
        &[("-x", X), ("--exec", X), ("-X", X), ("--exec-batch", X)],
    ),
    ro_but(
        "fdfind",
        &[("-x", X), ("--exec", X), ("-X", X), ("--exec-batch", X)],
    ),
    net("fetch", true),
    ro("fgrep"),
    ro_but("file", &[("-C", Wr), ("--compile", Wr)]),
    {
        let mut c = cap("find", Does::Script);
        c.others = Others::Harmless;
        c.options = &[
            ("-delete", Wr),
            ("-exec", X),
            ("-execdir", X),
            ("-ok", X),
            ("-okdir", X),
            ("-fprint", Wr),
            ("-fprint0", Wr),
            ("-fprintf", Wr),
            ("-fls", Wr),
        ];
        c.writes = Writes::Parsed;
        c
    },
    wrapper(
        "firejail",
        (
            "",
            "",
            &[
                "bind", "ro-bind", "chdir", "setenv", "unsetenv", "uid", "gid",
            ],
            0,
        ),
    ),
    interp("fish", Stdin::Shell),
    wrapper(
        "flock",
        ("wEc", "", &["timeout", "conflict-exit-code", "command"], 0),
    ),
    ro("fmt"),
    ro("fold"),
    ro("free"),
    net("ftp", false),
    awk("gawk"),
    net("gcloud", false),
    wrapper("gdb", W0),
    {
        let mut c = cap("gem", Does::Writes);
        c.subs = &[("publish", N), ("push", N)];
        c
    },
    {
        // `getent hosts NAME` (and `ahosts*`) resolves NAME through DNS.
        let mut c = cap("getent", Does::ReadOnly);
        c.others = Others::Harmless;
        c.subs = &[
            ("ahosts", N),
            ("ahostsv4", N),
            ("ahostsv6", N),
            ("hosts", N),
        ];
        c
    },
    net("gh", false),
    {
        // Global options (`-c`, `--config-env`, `--exec-path`) and config keys are read in
        // `classify`; `git config` is read-only only with a reading action.
        let mut c = cap("git", Does::Writes);
        c.others = Others::Harmless;
        c.options = &[
            ("-c", X),
            ("--config-env", X),
            ("--exec-path", X),
            ("--ext-diff", X),
            ("--open-files-in-pager", X),
        ];
        c.subs = &[
            ("status", R),
            ("log", R),
            ("diff", R),
            ("show", R),
            ("branch", R),
            ("rev-parse", R),
            ("ls-files", R),
            ("blame", R),
            ("grep", R),
            ("describe", R),
            ("shortlog", R),
            ("reflog", R),
            ("remote", S),
            ("tag", R),
            ("config", S),
            ("ls-tree", R),
            ("cat-file", R),
            ("help", R),
            ("version", R),
            ("whatchanged", R),
            ("name-rev", R),
            ("merge-base", R),
            ("for-each-ref", R),
            ("push", N),
            ("fetch", N),
            ("pull", N),
            ("clone", N),
            ("ls-remote", N),
            ("send-email", N),
            ("request-pull", N),
            ("difftool", X),
            ("mergetool", X),
        ];
        c.writes = Writes::Parsed;
        c
    },
    build(
        "go",
        &[
            ("build", B),
            ("test", B),
            ("vet", B),
            ("list", B),
            ("mod", B),
            ("run", B),
            ("fmt", B),
        ],
    ),
    build("gradle", &[("test", B), ("build", B), ("check", B)]),
    ro("grep"),
    net("gsutil", false),
    ro("head"),
    ro("hexdump"),
    net("host", false),
    {
        // `hostname NAME` sets the name; only the listed options print.
        let mut c = cap("hostname", Does::ReadOnly);
        c.options = &[
            ("-f", R),
            ("--fqdn", R),
            ("-s", R),
            ("--short", R),
            ("-i", R),
            ("--ip-address", R),
            ("-I", R),
            ("--all-ip-addresses", R),
            ("-d", R),
            ("--domain", R),
            ("-A", R),
            ("--all-fqdns", R),
            ("-a", R),
            ("--alias", R),
        ];
        c.operand_sets = OperandSets::Any;
        c
    },
    net("http", true),
    net("https", true),
    ro("id"),
    interp("iex", Stdin::CodeUnlessGiven),
    writer("install", Writes::CopyDest),
    wrapper(
        "ionice",
        (
            "cnpPu",
            "",
            &["class", "classdata", "pid", "pgid", "uid"],
            0,
        ),
    ),
    net("irm", true),
    net("iwr", true),
    ro("join"),
    ro("jq"),
    net("kdig", false),
    interp("ksh", Stdin::Shell),
    {
        // The subcommands that talk to the cluster's API server (`cp`/`exec` move files and
        // commands there); `completion`/`version` print, `proxy` listens locally, `config`
        // edits the kubeconfig.
        let mut c = cap("kubectl", Does::Writes);
        c.subs = &[
            ("annotate", N),
            ("api-resources", N),
            ("apply", N),
            ("attach", N),
            ("auth", N),
            ("cluster-info", N),
            ("completion", R),
            ("config", Wr),
            ("cp", N),
            ("create", N),
            ("debug", N),
            ("delete", N),
            ("describe", N),
            ("diff", N),
            ("edit", N),
            ("events", N),
            ("exec", N),
            ("expose", N),
            ("get", N),
            ("label", N),
            ("logs", N),
            ("patch", N),
            ("port-forward", N),
            ("proxy", Wr),
            ("replace", N),
            ("rollout", N),
            ("run", N),
            ("scale", N),
            ("set", N),
            ("top", N),
            ("version", R),
            ("wait", N),
        ];
        c
    },
    ro_but(
        "less",
        &[
            ("-k", X),
            ("--lesskey-file", X),
            ("--lesskey-src", X),
            ("--lesskey-content", X),
            ("-o", Wr),
            ("-O", Wr),
            ("--log-file", Wr),
            ("--LOG-FILE", Wr),
            // `+CMD` runs less commands at start, `!` (a shell) among them.
            ("+", X),
        ],
    ),
    net("lftp", false),
    net("links", false),
    writer("ln", Writes::CopyDest),
    ro("locale"),
    ro("ls"),
    ro("lsof"),
    wrapper("ltrace", ("oepsuEanL", "", &["output"], 0)),
    net("lynx", false),
    net("mail", false),
    net("mailx", false),
    {
        // The build-option check (`--config`, `-C`…) and `make`'s own (`--eval`, `-f -`,
        // `SHELL=`) are in `classify`.
        let mut c = harmless(build("make", &[]));
        c.does = Does::Script;
        c
    },
    ro_but(
        "man",
        &[("-P", X), ("--pager", X), ("-H", X), ("--html", X)],
    ),
    awk("mawk"),
    ro("md5sum"),
    writer("mkdir", Writes::Operands),
    interp("mksh", Stdin::Shell),
    // `+NUM`/`+/PATTERN` start lines; `!` runs a shell only from a terminal's keys.
    ro("more"),
    net("msmtp", false),
    net("mutt", false),
    writer("mv", Writes::CopyDest),
    build(
        "mvn",
        &[("test", B), ("compile", B), ("verify", B), ("package", B)],
    ),
    cap("nano", X),
    awk("nawk"),
    net("nc", false),
    net("ncat", false),
    net("neomutt", false),
    net("netcat", false),
    wrapper("nice", ("n", "", &["adjustment"], 0)),
    ro("nl"),
    wrapper("nocache", W0),
    interp("node", Stdin::CodeUnlessGiven),
    wrapper("nohup", W0),
    build(
        "npm",
        &[
            ("test", B),
            ("run", B),
            ("ls", B),
            ("outdated", B),
            ("audit", B),
            ("view", B),
            ("list", B),
            ("ci", B),
            ("install", B),
            ("i", B),
            ("publish", N),
        ],
    ),
    ro("nproc"),
    wrapper(
        "nsenter",
        (
            "tSGwr",
            "",
            &["target", "setuid", "setgid", "wd", "root"],
            0,
        ),
    ),
    net("nslookup", false),
    cap("nvim", X),
    ro("od"),
    {
        // `s_client`/`s_server`/`s_time`/`ocsp` talk to a host; the rest are local.
        let mut c = cap("openssl", Does::Writes);
        c.subs = &[("ocsp", N), ("s_client", N), ("s_server", N), ("s_time", N)];
        c
    },
    wrapper("parallel", ("jNSIE", "", &["jobs", "sshlogin"], 0)),
    ro("paste"),
    writer("patch", Writes::Parsed),
    interp("perl", Stdin::CodeUnlessGiven),
    interp("php", Stdin::CodeUnlessGiven),
    net("ping", false),
    net("ping6", false),
    wrapper("pkexec", ("", "", &["user"], 0)),
    build(
        "pnpm",
        &[
            ("test", B),
            ("run", B),
            ("ls", B),
            ("install", B),
            ("i", B),
            ("publish", N),
        ],
    ),
    {
        let mut c = cap("podman", Does::Writes);
        c.subs = &[("push", N), ("login", N)];
        c
    },
    interp("posh", Stdin::Shell),
    interp("powershell", Stdin::CodeUnlessGiven),
    build("prettier", &[("--check", B), ("-c", B)]),
    ro_but("printf", &[("-v", Wr)]),
    wrapper("prlimit", W0),
    wrapper(
        "proot",
        (
            "",
            "",
            &[
                "bind", "ro-bind", "chdir", "setenv", "unsetenv", "uid", "gid",
            ],
            0,
        ),
    ),
    wrapper("proxychains", W0),
    wrapper("proxychains4", W0),
    ro("ps"),
    ro("pwd"),
    interp("pwsh", Stdin::CodeUnlessGiven),
    build("pytest", &[]),
    interp("python", Stdin::CodeUnlessGiven),
    interp("python2", Stdin::CodeUnlessGiven),
    interp("python3", Stdin::CodeUnlessGiven),
    net("rclone", false),
    ro("readlink"),
    ro("realpath"),
    {
        let mut c = cap("resolvectl", Does::Writes);
        c.subs = &[("query", N), ("status", R), ("statistics", R)];
        c
    },
    ro("rev"),
    ro_but("rg", &[("--pre", X)]),
    writer("rm", Writes::Operands),
    writer("rmdir", Writes::Operands),
    {
        let mut c = cap("rsync", Does::Writes);
        c.options = &[("-e", X), ("--rsh", X), ("--rsync-path", X)];
        c.others = Others::Harmless;
        c.writes = Writes::CopyDest;
        c.net = Net::RemoteOperand;
        c
    },
    interp("ruby", Stdin::CodeUnlessGiven),
    wrapper(
        "runuser",
        (
            "ugcws",
            "",
            &["user", "group", "command", "whitelist-environment", "shell"],
            0,
        ),
    ),
    net("s-nail", false),
    net("s3cmd", false),
    {
        let mut c = net("scp", false);
        c.options = &[("-o", X), ("-S", X), ("-F", X)];
        c
    },
    // Terminal multiplexers run and drive other commands.
    cap("screen", X),
    wrapper(
        "script",
        (
            "cEIOTBm",
            "",
            &[
                "command",
                "echo",
                "log-in",
                "log-out",
                "log-timing",
                "log-io",
                "logging-format",
            ],
            0,
        ),
    ),
    ro_but(
        "sdiff",
        &[("--diff-program", X), ("-o", Wr), ("--output", Wr)],
    ),
    {
        let mut c = cap("sed", Does::Script);
        c.others = Others::Harmless;
        c.options = &[("-i", Wr), ("--in-place", Wr), ("-f", X), ("--file", X)];
        c.writes = Writes::Parsed;
        c
    },
    net("sendmail", false),
    ro("seq"),
    writer("setfacl", Writes::Parsed),
    wrapper("setsid", W0),
    net("sftp", false),
    wrapper("sg", W1),
    interp("sh", Stdin::Shell),
    ro("sha1sum"),
    ro("sha256sum"),
    ro("sha512sum"),
    writer("shred", Writes::Operands),
    ro("sleep"),
    net("smbclient", false),
    net("socat", false),
    {
        // Writes the `-o FILE` (GTFOBins file-write).
        let mut c = ro_but(
            "sort",
            &[("-o", Wr), ("--output", Wr), ("--compress-program", X)],
        );
        c.writes = Writes::Parsed;
        c
    },
    interp("source", Stdin::CodeUnlessGiven),
    // `split IN PREFIX` writes PREFIXaa, PREFIXab…
    writer("split", Writes::Parsed),
    writer("sponge", Writes::Operands),
    {
        let mut c = net("ssh", false);
        c.options = &[("-o", X), ("-F", X)];
        c
    },
    wrapper("sshpass", ("pfdP", "", &[], 0)),
    ro("stat"),
    wrapper("stdbuf", ("ioe", "", &["input", "output", "error"], 0)),
    wrapper(
        "strace",
        ("oepsuEaIbPX", "", &["output", "trace", "signal", "user"], 0),
    ),
    ro("strings"),
    wrapper(
        "su",
        (
            "cgGsw",
            "",
            &[
                "command",
                "group",
                "supp-group",
                "shell",
                "whitelist-environment",
            ],
            0,
        ),
    ),
    wrapper(
        "sudo",
        (
            "ugCDprtUTh",
            "",
            &[
                "user",
                "group",
                "close-from",
                "chdir",
                "prompt",
                "role",
                "type",
                "host",
                "command-timeout",
                "other-user",
            ],
            0,
        ),
    ),
    net("swaks", false),
    wrapper(
        "systemd-run",
        (
            "pEM",
            "",
            &[
                "unit",
                "property",
                "on-active",
                "on-calendar",
                "on-boot",
                "on-startup",
                "on-unit-active",
                "on-unit-inactive",
                "setenv",
                "uid",
                "gid",
                "nice",
                "working-directory",
                "machine",
                "description",
                "slice",
                "service-type",
                "host",
            ],
            0,
        ),
    ),
    ro("tac"),
    ro("tail"),
    {
        let mut c = cap("tar", Does::Writes);
        c.others = Others::Harmless;
        c.options = &[
            ("-I", X),
            ("--use-compress-program", X),
            ("--to-command", X),
            ("--checkpoint-action", X),
            ("-F", X),
            ("--info-script", X),
            ("--new-volume-script", X),
            ("--rsh-command", X),
        ];
        c.writes = Writes::Parsed;
        c
    },
    wrapper("taskset", W1),
    interp("tcsh", Stdin::Shell),
    writer("tee", Writes::Operands),
    net("telnet", false),
    ro("test"),
    net("tftp", false),
    wrapper("time", ("fo", "", &["format", "output"], 0)),
    wrapper("timeout", ("sk", "", &["signal", "kill-after"], 1)),
    wrapper("tini", W0),
    cap("tmux", X),
    wrapper("torify", W0),
    wrapper("torsocks", W0),
    writer("touch", Writes::Operands),
    wrapper("toybox", W0),
    ro("tput"),
    ro("tr"),
    net("traceroute", false),
    {
        // Writes the `-o FILE`.
        let mut c = ro_but("tree", &[("-o", Wr)]);
        c.writes = Writes::Parsed;
        c
    },
    ro("true"),
    writer("truncate", Writes::Operands),
    build("tsc", &[]),
    wrapper("tsocks", W0),
    {
        let mut c = cap("twine", Does::Writes);
        c.subs = &[("upload", N)];
        c
    },
    ro("type"),
    ro("uname"),
    wrapper("unbuffer", W0),
    {
        // `uniq IN OUT` writes OUT.
        let mut c = ro("uniq");
        c.writes = Writes::Parsed;
        c
    },
    writer("unlink", Writes::Operands),
    wrapper("unshare", W0),
    writer("unzip", Writes::Parsed),
    ro("uptime"),
    wrapper("valgrind", W0),
    cap("vi", X),
    cap("vim", X),
    net("w3m", false),
    wrapper("watch", ("nd", "", &["interval", "differences"], 0)),
    ro("wc"),
    net("websocat", true),
    {
        let mut c = net("wget", true);
        c.writes = Writes::Parsed;
        c
    },
    net("wget2", true),
    ro("whereis"),
    ro("which"),
    ro("whoami"),
    net("whois", false),
    net("wscat", true),
    wrapper(
        "xargs",
        (
            "adEILnPs",
            "iel",
            &[
                "arg-file",
                "delimiter",
                "max-lines",
                "max-args",
                "max-procs",
                "max-chars",
                "process-slot-var",
            ],
            0,
        ),
    ),
    net("xh", true),
    wrapper(
        "xvfb-run",
        (
            "nsfewp",
            "",
            &[
                "server-num",
                "server-args",
                "auth-file",
                "error-file",
                "wait",
                "xauth-protocol",
            ],
            0,
        ),
    ),
    {
        // `xxd -r IN OUT` writes OUT (GTFOBins file-write); it never runs code.
        let mut c = ro("xxd");
        c.writes = Writes::Parsed;
        c
    },
    build(
        "yarn",
        &[
            ("test", B),
            ("run", B),
            ("list", B),
            ("install", B),
            ("publish", N),
        ],
    ),
    interp("yash", Stdin::Shell),
    {
        let mut c = ro_but("yq", &[("-i", Wr), ("--inplace", Wr)]);
        c.writes = Writes::Parsed;
        c
    },
    ro("zcat"),
    ro("zgrep"),
    {
        // Writes its archive (the first operand).
        let mut c = cap("zip", Does::Writes);
        c.others = Others::Harmless;
        c.options = &[("-TT", X), ("--unzip-command", X)];
        c.writes = Writes::Parsed;
        c
    },
    interp("zsh", Stdin::Shell),
];

/// The entry for `program` (a basename), if the table has one.
pub(super) fn lookup(program: &str) -> Option<&'static Cap> {
    exact(program).or_else(|| alternative(program))
}

fn exact(program: &str) -> Option<&'static Cap> {
    // Asked for every command several times per call: the entries that share the name's
    // first byte (found by an index built at compile time), then a binary search among them.
    let first = *program.as_bytes().first()?;
    let index = &FIRST_BYTE;
    let (mut lo, mut hi) = (
        usize::from(index[usize::from(first)]),
        usize::from(index[usize::from(first) + 1]),
    );
    let want = program.as_bytes().get(1..).unwrap_or(&[]);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        // Entry `mid`'s name is string `mid` of `STRS` (the names come first there).
        let rest = STRS.at(mid).as_bytes().get(1..).unwrap_or(&[]);
        match cmp_bytes(rest, want) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return entry(mid),
        }
    }
    None
}

/// Other names of interpreters and shells: a package's alternative name (`nodejs`, `pypy3`)
/// and a versioned name (`python3.12`, `php8.2`, `ruby3.1`, `perl5.36`, `node18`). Only an
/// entry that runs code or reaches the network is taken this way (a versioned name never
/// makes a program read-only).
fn alternative(program: &str) -> Option<&'static Cap> {
    const ALIASES: &[(&str, &str)] = &[
        ("nodejs", "node"),
        ("pypy", "python"),
        ("pypy2", "python2"),
        ("pypy3", "python3"),
        ("python3-dbg", "python3"),
        ("bash-static", "bash"),
        ("busybox-static", "busybox"),
    ];
    if program.len() > 64 {
        return None;
    }
    if let Some((_, to)) = ALIASES.iter().find(|(a, _)| *a == program) {
        return exact(to);
    }
    let runs = |c: &&'static Cap| {
        matches!(c.stdin, Stdin::Shell | Stdin::CodeUnlessGiven) || c.net != Net::Never
    };
    // `python3.12` → `python3`, `php8.2` → `php8` → `php`.
    let mut name = program;
    for _ in 0..3 {
        let cut = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let cut = if cut.len() == name.len() {
            name.trim_end_matches('.')
        } else {
            cut
        };
        let cut = cut.strip_suffix('.').unwrap_or(cut);
        if cut.len() == name.len() || cut.is_empty() {
            return None;
        }
        name = cut;
        if let Some(c) = exact(name).filter(runs) {
            return Some(c);
        }
    }
    None
}

/// For each first byte `b`, where the entries starting with `b` begin in [`CAP_DEFS`] (sorted by
/// name); entry 256 is the table's length.
static FIRST_BYTE: [u16; 257] = {
    // Built at compile time. `CAP_DEFS` is sorted by name, so the entries whose first byte is
    // below `b` are a prefix of it; its length is the start of byte `b`'s entries.
    let mut starts = [0u16; 257];
    let mut n = 0;
    let mut b = 0;
    while b < 257 {
        while n < CAP_DEFS.len() && first_byte(CAP_DEFS[n].program) < b {
            n += 1;
        }
        assert!(n <= u16::MAX as usize);
        starts[b] = n as u16;
        b += 1;
    }
    starts
};

/// `a.cmp(b)` for the short names of [`exact`]'s search, written out so that it is inlined
/// there (the slice comparison was an out-of-line call per probe in some builds).
#[inline(always)]
fn cmp_bytes(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// The first byte of `s` (0 for an empty one), at compile time.
const fn first_byte(s: &str) -> usize {
    match s.as_bytes().first() {
        Some(&c) => c as usize,
        None => 0,
    }
}

// ------------------------------------------------------------------ the run-time table
//
// The binary is a static PIE: a pointer stored in a `static` is relocated by the start-up code
// on every run, and each page it writes is copied (a page fault). The written table holds
// about 1,100 pointers (names, option lists, wrap specs) over 8 pages; the tables below hold
// none but the two of `STRS` (see `crate::strtab`).

/// Number of entries.
const N_CAPS: usize = CAP_DEFS.len();

/// Number of strings of the table: per entry its name, its options' and subcommands' names,
/// and its wrap spec's two option strings and its option list.
const N_STRS: usize = {
    let mut n = N_CAPS;
    let mut i = 0;
    while i < N_CAPS {
        let c = &CAP_DEFS[i];
        n += c.options.len() + c.subs.len();
        if let Some((_, _, list, _)) = c.wrap {
            n += 2 + list.len();
        }
        i += 1;
    }
    n
};

use crate::strtab::Span;

/// An entry of [`CAP_DEFS`] without pointers: its strings are spans of [`STRS`] (its name is
/// string `i` for entry `i`).
#[derive(Debug, Clone, Copy)]
struct Packed {
    does: Does,
    others: Others,
    options: Span,
    subs: Span,
    writes: Writes,
    net: Net,
    downloader: bool,
    stdin: Stdin,
    /// The wrap spec: where its two option strings are (one after the other), its option list,
    /// and its operand count.
    wrap: Option<(u16, Span, usize)>,
    operand_sets: OperandSets,
}

/// `c`'s scalar fields with its lists as spans of [`STRS`].
const fn packed_of(c: &Cap, options: Span, subs: Span, wrap: Option<(u16, Span, usize)>) -> Packed {
    Packed {
        does: c.does,
        others: c.others,
        options,
        subs,
        writes: c.writes,
        net: c.net,
        downloader: c.downloader,
        stdin: c.stdin,
        wrap,
        operand_sets: c.operand_sets,
    }
}

/// The strings of the table in one list (the names first, in entry order; then per entry its
/// options, subcommands and wrap spec strings) and what each option or subcommand does (an
/// entry per string; `ReadOnly` for the others), and the packed entries.
const PACKING: ([&str; N_STRS], [Does; N_STRS], [Packed; N_CAPS]) = {
    let mut strs = [""; N_STRS];
    let mut does = [Does::ReadOnly; N_STRS];
    let mut packed = [packed_of(&cap("", Does::ReadOnly), Span::EMPTY, Span::EMPTY, None); N_CAPS];
    // Writes `list` (with what each does) at `at` and returns its span.
    const fn put(
        strs: &mut [&'static str; N_STRS],
        does: &mut [Does; N_STRS],
        at: usize,
        list: &[(&'static str, Does)],
    ) -> Span {
        let mut k = 0;
        while k < list.len() {
            strs[at + k] = list[k].0;
            does[at + k] = list[k].1;
            k += 1;
        }
        Span::new(at, list.len())
    }
    let mut at = N_CAPS;
    let mut i = 0;
    while i < N_CAPS {
        let c = &CAP_DEFS[i];
        strs[i] = c.program;
        let options = put(&mut strs, &mut does, at, c.options);
        at += c.options.len();
        let subs = put(&mut strs, &mut does, at, c.subs);
        at += c.subs.len();
        let wrap = match c.wrap {
            Some((a, b, list, n)) => {
                let pair = Span::new(at, 2).first;
                strs[at] = a;
                strs[at + 1] = b;
                at += 2;
                let l = Span::new(at, list.len());
                let mut k = 0;
                while k < list.len() {
                    strs[at] = list[k];
                    at += 1;
                    k += 1;
                }
                Some((pair, l, n))
            }
            None => None,
        };
        packed[i] = packed_of(c, options, subs, wrap);
        i += 1;
    }
    assert!(at == N_STRS);
    (strs, does, packed)
};

/// The strings of [`PACKING`], joined.
static STRS: crate::strtab::StrTable = crate::str_table!(@list &PACKING.0);

/// What each option or subcommand string of [`STRS`] makes the program do.
static STR_DOES: [Does; N_STRS] = PACKING.1;

/// The packed entries, in [`CAP_DEFS`] order.
static PACKED: [Packed; N_CAPS] = PACKING.2;

/// The entries rebuilt so far (each at most once per process, on its first lookup).
static MADE: [std::sync::OnceLock<Cap>; N_CAPS] = [const { std::sync::OnceLock::new() }; N_CAPS];

/// Entry `i`, rebuilt from [`PACKED`] on its first use.
fn entry(i: usize) -> Option<&'static Cap> {
    let p = PACKED.get(i)?;
    Some(MADE.get(i)?.get_or_init(|| unpack(i, p)))
}

/// The strings of `span`, each with what it does.
fn pairs(span: Span) -> &'static [(&'static str, Does)] {
    if span.count == 0 {
        return &[];
    }
    let v: Vec<(&'static str, Does)> = STRS
        .span(span)
        .zip(STR_DOES.get(span.range()).unwrap_or(&[]).iter().copied())
        .collect();
    v.leak()
}

/// [`CAP_DEFS`]'s entry `i` from its packed form (the lists leaked: an entry is made once).
fn unpack(i: usize, p: &Packed) -> Cap {
    Cap {
        program: STRS.at(i),
        does: p.does,
        others: p.others,
        options: pairs(p.options),
        subs: pairs(p.subs),
        writes: p.writes,
        net: p.net,
        downloader: p.downloader,
        stdin: p.stdin,
        wrap: p.wrap.map(|(pair, list, n)| {
            let first = usize::from(pair);
            let l: &'static [&'static str] = if list.count == 0 {
                &[]
            } else {
                STRS.span(list).collect::<Vec<_>>().leak()
            };
            (STRS.at(first), STRS.at(first + 1), l, n)
        }),
        operand_sets: p.operand_sets,
    }
}

/// How `program`'s options read up to the command it runs, when it is a wrapper.
pub(super) fn wrap_spec(program: &str) -> Option<WrapSpec> {
    lookup(program).and_then(|c| c.wrap)
}

impl Cap {
    /// What `arg` (one argument word) makes the program do, when the entry lists it: an exact
    /// option, `--long=VALUE`, a short option with its value attached (`-oFILE`, `-TT`), or a
    /// `+` word by prefix.
    pub(super) fn option(&self, arg: &str) -> Option<Does> {
        self.options.iter().find_map(|(o, d)| {
            let hit = arg == *o
                || (o.starts_with("--") && arg.strip_prefix(o).is_some_and(|r| r.starts_with('=')))
                || (!o.starts_with("--")
                    && o.len() > 1
                    && arg.starts_with(o)
                    && !arg.starts_with("--"))
                || (*o == "+" && arg.starts_with('+'));
            hit.then_some(*d)
        })
    }

    /// What the subcommand `sub` makes the program do, when the entry lists subcommands.
    pub(super) fn sub(&self, sub: &str) -> Option<Does> {
        self.subs.iter().find(|(s, _)| *s == sub).map(|(_, d)| *d)
    }

    /// True when `args` hold an option that is not known to be read-only: one listed as doing
    /// more than read, or (for [`Others::Unknown`]) one not listed at all. Words after `--`
    /// are operands.
    pub(super) fn options_change_state(&self, args: &[String]) -> bool {
        for a in args {
            if a == "--" {
                break;
            }
            match self.option(a) {
                Some(Does::ReadOnly) => {}
                Some(_) => return true,
                None if a.starts_with('-') && a != "-" && self.others == Others::Unknown => {
                    return true
                }
                None => {}
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Field by field equality of two entries (the run-time one is rebuilt, not the written
    /// one).
    pub(super) fn same(a: &Cap, b: &Cap) -> bool {
        a.program == b.program
            && a.does == b.does
            && a.others == b.others
            && a.options == b.options
            && a.subs == b.subs
            && a.writes == b.writes
            && a.net == b.net
            && a.downloader == b.downloader
            && a.stdin == b.stdin
            && a.wrap == b.wrap
            && a.operand_sets == b.operand_sets
    }

    /// The compile-time index is what a search of the sorted table finds for every byte.
    #[test]
    fn first_byte_index_is_the_partition_of_the_sorted_table() {
        for (b, &start) in FIRST_BYTE.iter().enumerate() {
            let n = CAP_DEFS.partition_point(|c| {
                usize::from(c.program.as_bytes().first().copied().unwrap_or(0)) < b
            });
            assert_eq!(usize::from(start), n, "byte {b}");
        }
        for c in CAP_DEFS {
            let found = exact(c.program).unwrap();
            assert!(same(found, c), "{}: {found:?} against {c:?}", c.program);
            // Made once: a second lookup is the same entry.
            assert!(
                std::ptr::eq(exact(c.program).unwrap(), found),
                "{}",
                c.program
            );
        }
    }

    #[test]
    fn every_entry_is_consistent() {
        for w in CAP_DEFS.windows(2) {
            assert!(
                w[0].program < w[1].program,
                "not sorted or not unique: {} then {}",
                w[0].program,
                w[1].program
            );
        }
        for c in CAP_DEFS {
            assert!(lookup(c.program).is_some(), "{}", c.program);
            // Read-only by default and running code by default are exclusive.
            if c.does == Does::ReadOnly {
                assert!(
                    matches!(c.stdin, Stdin::Data),
                    "{} is read-only but runs its stdin",
                    c.program
                );
                assert!(c.wrap.is_none(), "{} is read-only but wraps", c.program);
                assert_eq!(
                    c.net,
                    Net::Never,
                    "{} is read-only but networked",
                    c.program
                );
            }
            assert_eq!(
                c.wrap.is_some(),
                c.does == Does::Wraps,
                "{}: a wrapper has a spec",
                c.program
            );
            if c.downloader {
                assert_eq!(c.net, Net::Always, "{} downloads", c.program);
            }
            if c.net != Net::Never {
                assert!(
                    matches!(c.does, Does::Network | Does::Writes),
                    "{} reaches the network",
                    c.program
                );
            }
            if !matches!(c.stdin, Stdin::Data) {
                assert_eq!(c.does, Does::RunsCode, "{} runs its stdin", c.program);
            }
            for (o, _) in c.options {
                assert!(
                    o.starts_with('-') || *o == "+",
                    "{}: option {o} is not an option",
                    c.program
                );
            }
            let mut subs: Vec<&str> = c.subs.iter().map(|(s, _)| *s).collect();
            subs.sort_unstable();
            subs.dedup();
            assert_eq!(
                subs.len(),
                c.subs.len(),
                "{}: subcommands unique",
                c.program
            );
        }
    }

    #[test]
    fn options_are_matched_in_their_written_forms() {
        let sort = lookup("sort").expect("sort");
        assert_eq!(sort.option("-o"), Some(Does::Writes));
        assert_eq!(sort.option("-ofile"), Some(Does::Writes));
        assert_eq!(sort.option("--output=f"), Some(Does::Writes));
        assert_eq!(sort.option("--compress-program=sh"), Some(Does::RunsCode));
        assert_eq!(sort.option("-u"), None);
        assert_eq!(sort.option("--outputx"), None);
        let less = lookup("less").expect("less");
        assert_eq!(less.option("+!sh"), Some(Does::RunsCode));
        let host = lookup("hostname").expect("hostname");
        assert!(!host.options_change_state(&["-I".into()]));
        assert!(host.options_change_state(&["-F".into(), "f".into()]));
        assert!(!lookup("ls")
            .expect("ls")
            .options_change_state(&["-la".into(), "--color=auto".into()]));
        assert!(lookup("missing-program").is_none());
    }
}

#[cfg(test)]
mod lists {
    use super::*;
    use crate::shell::programs::{SHELLS, STDIN_SCRIPTS};

    /// The bucketed lookup finds every entry, and only names the table has.
    #[test]
    fn lookup_finds_every_entry_and_nothing_else() {
        for c in CAP_DEFS {
            assert_eq!(lookup(c.program).map(|x| x.program), Some(c.program));
            let longer = format!("{}x", c.program);
            assert_eq!(
                lookup(&longer).map(|x| x.program),
                CAP_DEFS
                    .iter()
                    .find(|e| e.program == longer)
                    .map(|e| e.program)
            );
        }
        for p in ["", "a", "zzzz", "\u{e9}", "~", "git2", "Git"] {
            assert_eq!(
                lookup(p).map(|x| x.program),
                CAP_DEFS.iter().find(|e| e.program == p).map(|e| e.program),
                "{p}"
            );
        }
    }

    #[test]
    fn the_parsers_lists_agree_with_the_table() {
        let with = |s: Stdin| -> Vec<&str> {
            let mut v: Vec<&str> = CAP_DEFS
                .iter()
                .filter(|c| c.stdin == s)
                .map(|c| c.program)
                .collect();
            v.sort_unstable();
            v
        };
        let sorted = |l: &[&'static str]| {
            let mut v = l.to_vec();
            v.sort_unstable();
            v
        };
        assert_eq!(with(Stdin::Shell), sorted(&SHELLS.to_vec()));
        assert_eq!(with(Stdin::Scheduled), sorted(STDIN_SCRIPTS));
    }
}
