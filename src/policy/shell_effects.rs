//! Verdict families over what a shell command does (`crate::shell`'s analysis), each with a
//! stable rule code and reason:
//!
//! | rule | what | clean session | tainted session |
//! |---|---|---|---|
//! | `shell.catastrophic` | recursive delete or overwrite of `/`, the home folder, the workspace root (the event's cwd) or a system folder; a file system made or a disk overwritten; a fork bomb | deny | deny |
//! | `shell.destructive` | everyday commands that throw work away: `git reset --hard`, `git clean -f`, `git push --force`, discarding changes, deleting tracked sources | allow | ask |
//! | `shell.irreversible` | deletion of infrastructure or data run so it cannot stop to confirm: `terraform destroy -auto-approve`, `kubectl delete namespace`, `dropdb`, `DROP TABLE`, `docker volume rm`, `aws s3 rb --force`, `gh repo delete --yes` | ask | deny |
//! | `shell.runtime_code` | code that cannot be seen before it runs: transformed text fed to a shell (`… \| base64 -d \| sh`), `eval`/`source` of text built at run time, a computed program name (`${x@P}`), inline code running a computed command, driving another program's terminal | ask | deny |
//! | `shell.inline_secret_egress` | inline interpreter code that reaches the network and reads a secret file or the environment | deny | deny |
//!
//! When transformed or decoded text can be undone here (a literal through `base64 -d`, `rev`,
//! `tr`, `xxd -r -p`), what it decodes to is analysed too: a decoded download-and-run, secret
//! upload, network use or catastrophic command is denied in any session.
//!
//! Everyday forms stay silent in a clean session: `rm -rf node_modules target dist build`,
//! `eval "$(ssh-agent -s)"` and other environment-setup tools ([`ENV_SETUP`], an allow list),
//! `source .venv/bin/activate` (sourcing a file path), `echo 'ls' | sh` (a literal, analysed).

use crate::decision::{Decision, Reason, Verdict};
use crate::event::Tool;
use crate::paths::PathContext;
use crate::shell::{self, Analysis, SimpleCommand, WriteKind};
use std::path::{Path, PathBuf};

/// The families denied whatever the session, run before a person's allow list or a pause can
/// set objections aside: catastrophic commands, inline code sending a secret, and code built
/// at run time that decodes to a denied command. `a` is the analysis of `tool`'s command;
/// `paths` gives home and the working directory.
///
/// `runtime` is [`runtime_code`]'s findings for `a`, computed once per call
/// ([`crate::policy::Facts::runtime`]) for this and [`by_session`].
pub fn always(
    tool: &Tool,
    a: &Analysis,
    runtime: &[Runtime],
    paths: &PathContext,
) -> Vec<Decision> {
    let name = tool.display_name();
    let cmd = tool.shell_command().unwrap_or_default();
    let roots = Roots::new(paths);
    let mut out = Vec::new();
    if let Some(what) = catastrophic(a, &cmd, &roots) {
        out.push(
            Decision::new(
                Verdict::Deny,
                Reason::Catastrophic,
                format!("{name} would destroy {what}: this cannot be undone"),
            )
            .rule("shell.catastrophic")
            .evidence(what),
        );
    }
    let hidden = a
        .all_commands()
        .iter()
        .find_map(|c| c.git_hidden_runner())
        .or_else(|| a.git_config_runs_now());
    if let Some(v) = hidden {
        out.push(
            Decision::new(
                Verdict::Deny,
                Reason::RuntimeCode,
                format!(
                    "{name} makes git run '{}' through an option or a config key (a read verb such as `status` or `grep` that runs a script or a shell)",
                    crate::text::cap(&v, 120)
                ),
            )
            .rule("shell.git_runs_code")
            .evidence(v),
        );
    }
    if let Some((word, what)) = inline_secret_egress(a) {
        out.push(
            Decision::new(
                Verdict::Deny,
                Reason::SecretEgress,
                format!("{name} runs inline code that reads {what} and reaches the network"),
            )
            .rule("shell.inline_secret_egress")
            .evidence(word),
        );
    }
    for r in runtime {
        if let Some(does) = &r.decoded_does {
            out.push(r.decision(
                Verdict::Deny,
                format!(
                    "{name} runs code built at run time ({}) that decodes to a command that {does}",
                    r.what
                ),
            ));
        }
    }
    out
}

/// The families whose verdict depends on the session's taint, run after the allow list (which
/// may set their asks aside): code that cannot be seen before it runs and irreversible
/// unconfirmed deletion (ask in a clean session, deny in a tainted one), destructive everyday
/// commands (ask in a tainted session only).
pub fn by_session(
    tool: &Tool,
    a: &Analysis,
    runtime: &[Runtime],
    tainted: bool,
    paths: &PathContext,
) -> Vec<Decision> {
    let name = tool.display_name();
    let roots = Roots::new(paths);
    let mut out = Vec::new();
    let by_taint = if tainted { Verdict::Deny } else { Verdict::Ask };
    let session = if tainted {
        "in a tainted session"
    } else {
        "confirm it is meant"
    };
    for r in runtime {
        if r.decoded_does.is_some() {
            continue; // denied by `always`
        }
        out.push(r.decision(
            by_taint,
            format!(
                "{name} runs code that cannot be seen before it runs ({}); {session}",
                r.what
            ),
        ));
    }
    if let Some(what) = irreversible(a) {
        out.push(
            Decision::new(
                by_taint,
                Reason::Irreversible,
                format!("{name} irreversibly deletes infrastructure or data without stopping to confirm ({what}); {session}"),
            )
            .rule("shell.irreversible")
            .evidence(what),
        );
    }
    if tainted {
        if let Some(what) = destructive(a, &roots) {
            out.push(
                Decision::new(
                    Verdict::Ask,
                    Reason::Destructive,
                    format!("{name} throws work away ({what}) in a tainted session"),
                )
                .rule("shell.destructive")
                .evidence(what),
            );
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Catastrophic

/// The places whose loss is catastrophic, resolved against the event's home and working
/// directory (placeholders when unknown).
struct Roots {
    ctx: PathContext,
    home: PathBuf,
    cwd: PathBuf,
}

/// System folders: removing or re-owning one breaks the machine.
const SYSTEM_DIRS: crate::strtab::StrTable = crate::str_table![
    "/etc",
    "/usr",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/lib64",
    "/usr/local",
    "/usr/share",
    "/usr/include",
    "/bin",
    "/sbin",
    "/boot",
    "/var",
    "/var/lib",
    "/var/log",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/srv",
    "/root",
    "/home",
    "/dev",
    "/proc",
    "/sys",
    "/run",
    "/snap",
    "/mnt",
    "/media",
    "/nix",
    "/nix/store",
    "/gnu",
    "/System",
    "/Applications",
    "/Library",
    "/Users",
    "/Volumes",
    "/private",
    "/private/etc",
    "/private/var",
    "/cores",
];

impl Roots {
    fn new(paths: &PathContext) -> Roots {
        let home = paths
            .home
            .clone()
            .filter(|h| h.starts_with('/') && h.len() > 1)
            .unwrap_or_else(|| "/.intentshield-home".to_string());
        let cwd = paths
            .cwd
            .clone()
            .filter(|c| c.starts_with('/'))
            .unwrap_or_else(|| "/.intentshield-workspace".to_string());
        let mut ctx = PathContext::default();
        ctx.home = Some(home.clone());
        ctx.cwd = Some(cwd.clone());
        Roots {
            home: crate::paths::normalize(Path::new(&home)),
            cwd: crate::paths::normalize(Path::new(&cwd)),
            ctx,
        }
    }

    /// What `raw` (a path as written, located by the `cd`s before its command) names when it
    /// is `/`, the home folder, the workspace root, a system folder or an ancestor of home or
    /// the workspace, or the contents of one (`/*`, `~/*`, `./*`, `*`, `.*`). `workspace`:
    /// whether the workspace root counts (a deletion) or not (a change of owner or mode).
    fn root(&self, raw: &str, workspace: bool) -> Option<String> {
        let raw = raw.trim();
        if raw.is_empty() || raw.starts_with('-') {
            return None;
        }
        // A variable other than HOME, or a substitution: not known.
        let raw = raw.replacen("${HOME}", "$HOME", 1);
        let unvar = raw.replacen("$HOME", "", 1);
        if unvar.contains('$') || unvar.contains('`') || unvar.contains('…') {
            return None;
        }
        // The contents of a folder count as the folder.
        let mut p = raw.to_string();
        loop {
            let before = p.len();
            for tail in ["/*", "/.*", "/{*,.*}", "/{.*,*}", "/.", "/"] {
                if p.len() >= tail.len() && p.ends_with(tail) {
                    p.truncate(p.len() - tail.len());
                }
            }
            if p.len() == before {
                break;
            }
        }
        if matches!(p.as_str(), "*" | ".*" | "{*,.*}" | "{.*,*}" | "./*") {
            p = ".".to_string();
        }
        if p.contains(['*', '?', '[', '{']) {
            return None;
        }
        if p.is_empty() {
            p = "/".to_string();
        }
        let r = self.ctx.resolve(&p);
        if r == Path::new("/") {
            return Some("the whole file system (/)".to_string());
        }
        if r == self.home {
            return Some(format!("the home folder ({raw})"));
        }
        if workspace && r == self.cwd {
            return Some(format!("the workspace ({raw})"));
        }
        if self.home.starts_with(&r) {
            return Some(format!("a folder that holds the home folder ({raw})"));
        }
        if workspace && self.cwd.starts_with(&r) {
            return Some(format!("a folder that holds the workspace ({raw})"));
        }
        let s = r.to_string_lossy();
        SYSTEM_DIRS
            .iter()
            .find(|d| **d == s)
            .map(|d| format!("the system folder {d}"))
    }
}

/// True for a disk or memory device (`/dev/sda`, `/dev/nvme0n1`, `/dev/disk2`, `/dev/mmcblk0`,
/// `/dev/mapper/…`), not `/dev/null`, `/dev/tty`, `/dev/stdout` and the like.
fn is_disk_device(p: &str) -> bool {
    let Some(d) = p.strip_prefix("/dev/") else {
        return false;
    };
    const DISKS: crate::strtab::StrTable = crate::str_table![
        "sd", "hd", "vd", "xvd", "nvme", "disk", "rdisk", "mmcblk", "md", "dm-", "mapper/", "nbd",
        "loop", "sr", "zd", "ada", "da", "mem", "kmem", "port", "root", "fd0",
    ];
    DISKS.iter().any(|k| d.starts_with(k)) && !d.starts_with("null")
}

/// Words split the way `$IFS` would split them: `rm${IFS}-rf${IFS}$HOME` is three words.
fn ifs_split(c: &SimpleCommand) -> Option<SimpleCommand> {
    let has_ifs = |w: &String| w.contains("${IFS}") || w.contains("$IFS");
    if !has_ifs(&c.argv0) && !c.args.iter().any(has_ifs) {
        return None;
    }
    let mut words: Vec<String> = Vec::new();
    for w in std::iter::once(&c.argv0).chain(c.args.iter()) {
        let w = w.replace("${IFS}", " ").replace("$IFS", " ");
        words.extend(w.split_whitespace().map(str::to_string));
    }
    let line = words
        .iter()
        .map(|w| crate::text::shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
        .replace("'$HOME'", "$HOME")
        .replace("'${HOME}'", "${HOME}");
    let mut inner = shell::analyze(&line)
        .pipelines
        .into_iter()
        .flatten()
        .next()?;
    inner.dir = c.dir.clone();
    Some(inner)
}

/// The catastrophic thing the line does, if any.
fn catastrophic(a: &Analysis, cmd: &str, roots: &Roots) -> Option<String> {
    if let Some(f) = shell::fork_bomb(cmd) {
        return Some(format!("the machine's process table (a fork bomb: {f})"));
    }
    for (c, code) in a.inline_programs() {
        if shell::inline_facts_of(&code).fork_loop {
            return Some(format!(
                "the machine's process table ({} forks in a loop)",
                c.program
            ));
        }
        // A recursive delete in inline code (`shutil.rmtree`, `fs.rmSync(…, {recursive})`,
        // Perl's `rmtree`, Ruby's `FileUtils.rm_rf`) of a root.
        if let Some((call, t)) = inline_delete_target(&code.code) {
            if let Some(w) = c.dir.locate(&t).and_then(|l| roots.root(&l, true)) {
                return Some(format!("{w} ({} {call})", c.program));
            }
        }
    }
    for c0 in a.all_commands() {
        let split = ifs_split(c0);
        for c in std::iter::once(c0).chain(split.as_ref()) {
            if let Some(w) = command_catastrophe(c, roots) {
                return Some(w);
            }
        }
    }
    None
}

/// True when a `find` expression selects entries (`-name`, `-type`, `-newer`, `-o`…): only
/// `-delete` and traversal options (`-depth`, `-maxdepth`, `-xdev`) select everything.
fn find_filters(c: &SimpleCommand) -> bool {
    let mut in_exec = false;
    c.args.iter().any(|a| {
        if in_exec {
            in_exec = !matches!(a.as_str(), ";" | "+" | "\\;");
            return false;
        }
        if matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            in_exec = true;
            return false;
        }
        (a.starts_with('-') || matches!(a.as_str(), "!" | "(" | ","))
            && !matches!(
                a.as_str(),
                "-delete"
                    | "-depth"
                    | "-d"
                    | "-maxdepth"
                    | "-mindepth"
                    | "-xdev"
                    | "-mount"
                    | "-P"
                    | "-L"
                    | "-H"
                    | "-noleaf"
                    | "-ignore_readdir_race"
                    | "-print"
                    | "-print0"
            )
    })
}

fn short_flag(c: &SimpleCommand, f: char) -> bool {
    c.args.iter().any(|a| {
        a.starts_with('-')
            && !a.starts_with("--")
            && a.len() > 1
            && a[1..].chars().all(|x| x.is_ascii_alphanumeric())
            && a[1..].contains(f)
    })
}

fn long_flag(c: &SimpleCommand, f: &str) -> bool {
    c.args
        .iter()
        .any(|a| a == f || a.strip_prefix(f).is_some_and(|r| r.starts_with('=')))
}

/// A root written with an expansion that resolves to it: `${HOME:-/}`, `${HOME:?}`,
/// `${HOME:=…}` read `$HOME` (set in any session), `$PWD`/`${PWD}` (and `$(pwd)`, which the
/// analysis reads `$PWD`) the directory the command runs in.
fn dynamic_root(raw: &str) -> String {
    let raw = raw.trim();
    for var in ["HOME", "PWD"] {
        let open = format!("${{{var}");
        if let Some(rest) = raw.strip_prefix(&open) {
            let Some(close) = rest.find('}') else { break };
            let modifier = &rest[..close];
            let resolves = modifier.is_empty()
                || [":-", ":?", ":=", "-", "?", "="]
                    .iter()
                    .any(|m| modifier.starts_with(m));
            if resolves {
                let tail = &rest[close + 1..];
                return match var {
                    "HOME" => format!("$HOME{tail}"),
                    _ => format!(".{tail}"),
                };
            }
        }
    }
    if let Some(tail) = raw.strip_prefix("$PWD") {
        if !tail.starts_with(|ch: char| ch.is_ascii_alphanumeric() || ch == '_') {
            return format!(".{tail}");
        }
    }
    raw.to_string()
}

/// The command `find … -exec PROGRAM …` runs deletes what it finds (`rm`, `shred`, `unlink`,
/// `rmdir`, `srm`, `wipe`, `trash`).
fn find_exec_deletes(c: &SimpleCommand) -> bool {
    c.args.windows(2).any(|w| {
        matches!(w[0].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")
            && matches!(
                w[1].rsplit('/').next().unwrap_or(""),
                "rm" | "shred" | "unlink" | "rmdir" | "srm" | "wipe" | "trash" | "trash-put"
            )
    })
}

/// The operand of `code`'s first call of one of `calls` (its text up to `,` or `)`), read as
/// a path: a string literal, or the home folder by API (`os.path.expanduser("~")`,
/// `Path.home()`, `os.homedir()`, `$ENV{HOME}`, `ENV["HOME"]`, `process.env.HOME`).
fn inline_delete_target(code: &str) -> Option<(String, String)> {
    const CALLS: crate::strtab::StrTable = crate::str_table![
        "rmtree(",
        "removedirs(",
        "rmSync(",
        "rmdirSync(",
        "fs.rm(",
        "fs.rmdir(",
        "promises.rm(",
        "remove_tree(",
        "rm_rf(",
        "rm_r(",
        "remove_dir(",
        "remove_entry_secure(",
        "remove_dir_all(",
        "emptyDirSync(",
        "removeSync(",
    ];
    let code = &code[..code.len().min(64 * 1024)];
    for call in CALLS {
        let mut from = 0;
        while let Some(i) = code[from..].find(call) {
            let start = from + i + call.len();
            from = start;
            let arg = &code[start..];
            let mut depth = 0i32;
            let mut end = arg.len();
            for (k, ch) in arg.char_indices() {
                match ch {
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' if depth == 0 => {
                        end = k;
                        break;
                    }
                    ')' | ']' | '}' => depth -= 1,
                    ',' if depth == 0 => {
                        end = k;
                        break;
                    }
                    _ => {}
                }
            }
            let a = arg[..end].trim();
            let compact: String = a.chars().filter(|ch| !ch.is_whitespace()).collect();
            let home_api = [
                "expanduser(\"~\")",
                "expanduser('~')",
                "Path.home()",
                "homedir()",
                "$ENV{HOME}",
                "$ENV{'HOME'}",
                "$ENV{\"HOME\"}",
                "ENV[\"HOME\"]",
                "ENV['HOME']",
                "Dir.home",
                "process.env.HOME",
                "environ[\"HOME\"]",
                "environ['HOME']",
                "getenv(\"HOME\")",
                "getenv('HOME')",
            ];
            let path = if home_api.iter().any(|h| compact.ends_with(h)) {
                Some("~".to_string())
            } else {
                let lit = compact
                    .strip_prefix(['"', '\''])
                    .and_then(|x| x.strip_suffix(['"', '\'']));
                lit.filter(|l| !l.contains(['"', '\'', '+', '$']) || *l == "$HOME")
                    .map(|l| {
                        l.strip_prefix("~/")
                            .map_or(l.to_string(), |r| format!("~/{r}"))
                    })
            };
            if let Some(p) = path {
                return Some((call.trim_end_matches('(').to_string(), p));
            }
        }
    }
    None
}

fn command_catastrophe(c: &SimpleCommand, roots: &Roots) -> Option<String> {
    let p = c.program.as_str();
    let locate = |raw: &str| c.dir.locate(&dynamic_root(raw));
    // Disks and file systems.
    // Content written to a disk device (not `rm`/`touch`/`chmod` of its node).
    let content_writer = matches!(
        p,
        "dd" | "tee" | "cp" | "install" | "sponge" | "pv" | "ddrescue" | "dcfldd" | "dc3dd" | "cat"
    );
    let disk_write = c
        .redirect_writes
        .iter()
        .find(|w| is_disk_device(w))
        .cloned()
        .or_else(|| {
            content_writer
                .then(|| c.writes().into_iter().find(|w| is_disk_device(w)))
                .flatten()
        });
    if let Some(d) = disk_write {
        return Some(format!("the disk {d} ({p} writes it)"));
    }
    let devices = || c.operands().into_iter().find(|o| is_disk_device(o));
    if matches!(
        p,
        "wipefs"
            | "blkdiscard"
            | "shred"
            | "sgdisk"
            | "fdisk"
            | "sfdisk"
            | "parted"
            | "cfdisk"
            | "hdparm"
    ) || p.starts_with("mkfs")
        || matches!(
            p,
            "mke2fs" | "mkswap" | "newfs" | "newfs_hfs" | "newfs_apfs" | "mkdosfs" | "zpool"
        )
    {
        let destroys = match p {
            "wipefs" => {
                short_flag(c, 'a')
                    || long_flag(c, "--all")
                    || short_flag(c, 'o')
                    || long_flag(c, "--offset")
            }
            "sfdisk" => {
                long_flag(c, "--delete") || !c.redirect_reads.is_empty() || c.heredoc.is_some()
            }
            "sgdisk" => {
                short_flag(c, 'Z')
                    || short_flag(c, 'o')
                    || long_flag(c, "--zap-all")
                    || long_flag(c, "--clear")
            }
            "fdisk" | "cfdisk" | "hdparm" => false,
            "parted" => c
                .args
                .iter()
                .any(|x| matches!(x.as_str(), "rm" | "mklabel" | "mkpart")),
            "zpool" => c
                .args
                .first()
                .is_some_and(|x| x == "destroy" || x == "create"),
            _ => true,
        };
        if destroys {
            if let Some(d) = devices() {
                return Some(format!("the disk {d} ({p})"));
            }
            // A file system made on an image file is everyday work; on a device named at
            // run time it is not.
            let unknown = c
                .operands()
                .into_iter()
                .find(|o| o.contains('$') || o.contains('…'));
            if let Some(t) = unknown.filter(|_| p.starts_with("mkfs") || p == "mke2fs") {
                return Some(format!("a file system ({p} {t})"));
            }
        }
    }
    if p == "diskutil"
        && c.args.first().is_some_and(|s| {
            matches!(
                s.as_str(),
                "eraseDisk"
                    | "eraseVolume"
                    | "zeroDisk"
                    | "randomDisk"
                    | "secureErase"
                    | "partitionDisk"
                    | "reformat"
            )
        })
    {
        return Some(format!("a disk (diskutil {})", c.args[0]));
    }
    // Recursive deletion.
    let deletes = match p {
        "rm" | "srm" | "wipe" => {
            short_flag(c, 'r') || short_flag(c, 'R') || long_flag(c, "--recursive")
        }
        "shred" => short_flag(c, 'r') || short_flag(c, 'R'),
        "find" => {
            (c.args.iter().any(|x| x == "-delete") || find_exec_deletes(c)) && !find_filters(c)
        }
        _ => false,
    };
    if deletes {
        let targets: Vec<String> = if p == "find" {
            c.tree_writes().into_iter().map(|(t, _)| t).collect()
        } else {
            c.operands().iter().map(|s| s.to_string()).collect()
        };
        for t in targets {
            if let Some(w) = locate(&t).and_then(|l| roots.root(&l, true)) {
                return Some(w);
            }
        }
    }
    // Files destroyed one by one: the contents of a root (`shred -u ~/*`, `truncate -s0 ~/*`,
    // `wipe ~/*`), or a root archived and removed (`tar --remove-files`, `zip -m`, `7z -sdel`).
    let size_zero = p == "truncate"
        && c.args.windows(2).any(|w| {
            matches!(w[0].as_str(), "-s" | "--size") && w[1].trim_start_matches(['<', '%']) == "0"
        })
        || c.args.iter().any(|x| x == "-s0" || x == "--size=0");
    let destroys_files = matches!(p, "shred" | "srm" | "wipe") || size_zero;
    let moves_away = (matches!(p, "tar" | "bsdtar" | "gtar") && long_flag(c, "--remove-files"))
        || (p == "zip" && (short_flag(c, 'm') || long_flag(c, "--move")))
        || (matches!(p, "7z" | "7za" | "7zz") && c.args.iter().any(|x| x == "-sdel"));
    if destroys_files || moves_away {
        let ops = c.operands();
        let skip = usize::from(p == "zip" || p.starts_with("7z"));
        for t in ops.iter().skip(skip) {
            let contents = t.ends_with("/*") || t.ends_with("/.*") || *t == "*";
            if (moves_away || contents) && !t.starts_with("/dev/") {
                if let Some(w) = locate(t).and_then(|l| roots.root(&l, true)) {
                    return Some(format!("{w} ({p})"));
                }
            }
        }
    }
    // Moving a root away.
    if p == "mv" {
        let ops = c.operands();
        for t in ops.iter().take(ops.len().saturating_sub(1)) {
            let whole = !t.ends_with('*');
            if let Some(w) = locate(t).and_then(|l| roots.root(&l, whole)) {
                return Some(w);
            }
        }
    }
    // Recursive mode or owner changes of `/`, home or a system folder.
    if matches!(p, "chmod" | "chown" | "chgrp" | "chattr" | "setfacl")
        && (short_flag(c, 'R') || long_flag(c, "--recursive"))
    {
        for (t, _) in c.tree_writes() {
            if let Some(w) = locate(&t).and_then(|l| roots.root(&l, false)) {
                return Some(format!("{w} (recursive {p})"));
            }
        }
    }
    // `rsync --delete SRC ROOT`: whatever the source lacks is removed from the root.
    if p == "rsync"
        && c.args
            .iter()
            .any(|x| x.starts_with("--delete") || x == "--del")
    {
        if let Some(dest) = c.operands().last() {
            if !dest.contains(':') {
                if let Some(w) = locate(dest).and_then(|l| roots.root(&l, true)) {
                    return Some(format!("{w} (rsync --delete)"));
                }
            }
        }
    }
    // Overwriting a root with an extraction or a copy of a whole tree.
    for (t, kind) in c.tree_writes() {
        if kind == WriteKind::Replace && matches!(p, "ln") {
            if let Some(w) = locate(&t).and_then(|l| roots.root(&l, true)) {
                return Some(w);
            }
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Destructive

/// Folders of build outputs, caches and dependencies: deleting one is everyday work.
const REBUILDABLE: crate::strtab::StrTable = crate::str_table![
    "node_modules",
    "target",
    "dist",
    "build",
    "out",
    "output",
    ".cache",
    "cache",
    ".next",
    ".nuxt",
    ".svelte-kit",
    ".turbo",
    ".parcel-cache",
    ".vite",
    ".angular",
    "coverage",
    ".nyc_output",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    "env",
    ".eggs",
    ".gradle",
    "bin",
    "obj",
    "tmp",
    ".tmp",
    "temp",
    "logs",
    "log",
    ".terraform",
    "vendor",
    "pkg",
    "_build",
    "deps",
    ".dart_tool",
    ".expo",
    "storybook-static",
    "public/build",
    "cmake-build-debug",
    "cmake-build-release",
    ".DS_Store",
    "Pods",
    "DerivedData",
];

/// `find -name` patterns of junk files (compiled, cached, backups).
const JUNK_NAMES: crate::strtab::StrTable = crate::str_table![
    "*.pyc",
    "*.pyo",
    "__pycache__",
    "*.o",
    "*.obj",
    "*.class",
    "*.log",
    "*.tmp",
    "*.swp",
    "*~",
    "*.orig",
    "*.rej",
    ".ds_store",
    "*.bak",
    "*.d",
    "*.gcda",
    "*.gcno",
    "*.egg-info",
    "node_modules",
    "*.test",
    "*.out",
    "*.cache",
    ".pytest_cache",
    "*.map",
    "thumbs.db",
];

/// A path inside the workspace that is not a build output or cache.
fn is_tracked_source(path: &str, roots: &Roots) -> bool {
    let r = roots.ctx.resolve(path);
    let Ok(rel) = r.strip_prefix(&roots.cwd) else {
        return false;
    };
    let first = rel
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    match first {
        None => false,
        Some(f) => {
            !REBUILDABLE.iter().any(|b| b.eq_ignore_ascii_case(&f))
                && !f.ends_with(".egg-info")
                && !f.starts_with("cmake-build")
                && !f.contains('*')
                && !f.contains('$')
        }
    }
}

/// The git subcommand and its arguments (global options `-C DIR`, `-c K=V`, `--git-dir` …
/// skipped).
fn git_split(c: &SimpleCommand) -> Option<(&str, &[String])> {
    if c.program != "git" {
        return None;
    }
    let mut i = 0;
    while let Some(a) = c.args.get(i) {
        if matches!(
            a.as_str(),
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
        ) {
            i += 2;
        } else if a.starts_with('-') {
            i += 1;
        } else {
            return Some((a.as_str(), c.args.get(i + 1..).unwrap_or(&[])));
        }
    }
    None
}

/// The everyday-looking destructive thing the line does, if any.
fn destructive(a: &Analysis, roots: &Roots) -> Option<String> {
    for c in a.all_commands() {
        if let Some((sub, rest)) = git_split(c) {
            let has = |f: &str| {
                rest.iter()
                    .any(|x| x == f || x.starts_with(&format!("{f}=")))
            };
            let short = |f: char| {
                rest.iter()
                    .any(|x| x.starts_with('-') && !x.starts_with("--") && x[1..].contains(f))
            };
            let hit = match sub {
                "reset" => has("--hard") || has("--merge") || has("--keep"),
                "clean" => (short('f') || has("--force")) && !short('n') && !has("--dry-run"),
                "push" => {
                    has("--force")
                        || has("--force-with-lease")
                        || has("--force-if-includes")
                        || has("--mirror")
                        || has("--delete")
                        || has("--prune")
                        || short('f')
                        || short('d')
                        || rest
                            .iter()
                            .any(|x| x.starts_with('+') || (x.starts_with(':') && x.len() > 1))
                }
                "checkout" => {
                    has("--force")
                        || short('f')
                        || rest.iter().any(|x| x == "." || x == "--" || x == ":/")
                }
                "restore" => !(has("--staged") || short('S')) || has("--worktree") || short('W'),
                "branch" => {
                    short('D')
                        || ((short('d') || has("--delete")) && (short('f') || has("--force")))
                }
                "stash" => rest
                    .first()
                    .is_some_and(|x| matches!(x.as_str(), "drop" | "clear")),
                "filter-branch" | "filter-repo" => true,
                "reflog" => rest.first().is_some_and(|x| x == "expire" || x == "delete"),
                "update-ref" => short('d') || has("--delete"),
                "rm" => short('r') && !has("--cached"),
                _ => false,
            };
            if hit {
                let shown: Vec<&str> = rest.iter().take(4).map(String::as_str).collect();
                return Some(
                    format!("git {sub} {}", shown.join(" "))
                        .trim_end()
                        .to_string(),
                );
            }
        }
        let p = c.program.as_str();
        let recursive_rm = matches!(p, "rm" | "srm")
            && (short_flag(c, 'r') || short_flag(c, 'R') || long_flag(c, "--recursive"));
        if recursive_rm {
            for t in c.operands() {
                if let Some(l) = c.dir.locate(t) {
                    if is_tracked_source(&l, roots) {
                        return Some(format!("rm -r {t}"));
                    }
                }
            }
        }
        if p == "find" && c.args.iter().any(|x| x == "-delete") {
            let names = c.find_names();
            let junk = !names.is_empty()
                && names
                    .iter()
                    .all(|n| JUNK_NAMES.contains(n.to_ascii_lowercase().as_str()));
            if !junk {
                for (t, _) in c.tree_writes() {
                    if let Some(l) = c.dir.locate(&t) {
                        let inside = roots.ctx.resolve(&l).starts_with(&roots.cwd);
                        if inside
                            && (is_tracked_source(&l, roots) || roots.ctx.resolve(&l) == roots.cwd)
                        {
                            return Some(format!("find {t} … -delete"));
                        }
                    }
                }
            }
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Irreversible

/// SQL that deletes data for good.
fn destroys_data(sql: &str) -> Option<&'static str> {
    let up: String = sql
        .to_ascii_uppercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for k in [
        "DROP DATABASE",
        "DROP SCHEMA",
        "DROP TABLE",
        "DROP KEYSPACE",
        "DROP OWNED",
        "TRUNCATE",
        "DROPDATABASE(",
        ".DROP(",
        "FLUSHALL",
        "FLUSHDB",
    ] {
        if up.contains(k) {
            return Some(k);
        }
    }
    // `DELETE FROM t` with no `WHERE`.
    if let Some(pos) = up.find("DELETE FROM") {
        let rest = &up[pos..];
        let stmt = rest.split(';').next().unwrap_or(rest);
        if !stmt.contains(" WHERE ") {
            return Some("DELETE FROM without WHERE");
        }
    }
    None
}

/// The irreversible, unconfirmed deletion the line does, if any.
fn irreversible(a: &Analysis) -> Option<String> {
    for c in a.all_commands() {
        if let Some(w) = command_irreversible(c) {
            return Some(w);
        }
    }
    None
}

fn command_irreversible(c: &SimpleCommand) -> Option<String> {
    let p = c.program.as_str();
    let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
    let has = |f: &str| {
        args.iter()
            .any(|x| *x == f || x.strip_prefix(f).is_some_and(|r| r.starts_with('=')))
    };
    let ops = c.operands();
    let first = ops.first().copied().unwrap_or("");
    let show = |n: usize| -> String {
        std::iter::once(p)
            .chain(args.iter().copied().take(n))
            .collect::<Vec<_>>()
            .join(" ")
    };
    match p {
        "terraform" | "tofu" | "terragrunt" | "terraform.exe" => {
            let auto = args.iter().any(|x| {
                matches!(
                    x.trim_start_matches('-'),
                    "auto-approve" | "auto-approve=true"
                )
            });
            let destroy = ops.contains(&"destroy")
                || (ops.contains(&"apply")
                    && args.iter().any(|x| matches!(*x, "-destroy" | "--destroy")));
            if auto && destroy {
                return Some(show(4));
            }
        }
        "pulumi" if first == "destroy" && (has("--yes") || has("-y") || has("--skip-preview")) => {
            return Some(show(3));
        }
        "kubectl" | "oc" | "kubecolor" | "microk8s.kubectl" if ops.contains(&"delete") => {
            let ops: Vec<&str> = ops.iter().copied().skip_while(|o| *o != "delete").collect();
            const KINDS: crate::strtab::StrTable = crate::str_table![
                "ns",
                "namespace",
                "namespaces",
                "sts",
                "statefulset",
                "statefulsets",
                "pvc",
                "persistentvolumeclaim",
                "persistentvolumeclaims",
                "pv",
                "persistentvolume",
                "persistentvolumes",
                "crd",
                "crds",
                "customresourcedefinition",
                "customresourcedefinitions",
                "node",
                "nodes",
                "secret",
                "secrets",
                "all",
            ];
            let kind_hit = ops.iter().skip(1).take(2).any(|o| {
                o.split(',').any(|k| {
                    KINDS.contains(
                        k.split('/')
                            .next()
                            .unwrap_or(k)
                            .split('.')
                            .next()
                            .unwrap_or(k),
                    )
                })
            });
            if kind_hit || has("--all") || has("--all-namespaces") || args.contains(&"-A") {
                return Some(show(4));
            }
        }
        "helm" if matches!(first, "uninstall" | "delete" | "del" | "un") => return Some(show(3)),
        "dropdb" | "dropuser" if !(has("--interactive") || args.contains(&"-i")) => {
            return Some(show(2));
        }
        "mysqladmin" if ops.iter().any(|o| matches!(*o, "drop" | "DROP")) => return Some(show(3)),
        "psql" | "mysql" | "mariadb" | "sqlite3" | "clickhouse-client" | "cockroach"
        | "mongosh" | "mongo" | "cqlsh" | "duckdb" | "sqlcmd" | "redis-cli" | "valkey-cli"
        | "memcflush" => {
            let mut texts: Vec<&str> = args.clone();
            if let Some(h) = &c.heredoc {
                texts.push(h);
            }
            if p == "memcflush" {
                return Some(show(2));
            }
            if let Some(k) = texts.iter().find_map(|t| destroys_data(t)) {
                return Some(format!("{p} {k}"));
            }
        }
        "docker" | "podman" | "nerdctl" => {
            let volumes = has("--volumes") || c.args.iter().any(|x| x == "-v");
            let hit = match (first, ops.get(1).copied().unwrap_or("")) {
                ("volume", "rm" | "remove" | "prune") => true,
                ("system", "prune") => has("--volumes"),
                ("compose", "down") => volumes,
                _ => false,
            } || (p == "docker-compose" && first == "down" && volumes);
            if hit {
                return Some(show(4));
            }
        }
        "docker-compose" if first == "down" && (has("--volumes") || args.contains(&"-v")) => {
            return Some(show(3));
        }
        "aws" => {
            let svc = first;
            let op = ops.get(1).copied().unwrap_or("");
            let hit = match (svc, op) {
                ("kms", "schedule-key-deletion" | "disable-key") => true,
                ("s3", "rb") => has("--force"),
                ("s3", "rm") => has("--recursive"),
                ("s3api", "delete-bucket") => true,
                ("rds", "delete-db-instance" | "delete-db-cluster") => {
                    has("--skip-final-snapshot") || has("--delete-automated-backups")
                }
                ("dynamodb", "delete-table") => true,
                ("secretsmanager", "delete-secret") => has("--force-delete-without-recovery"),
                ("cloudformation", "delete-stack") => true,
                ("ec2", "terminate-instances" | "delete-volume" | "delete-snapshot") => true,
                ("ecr", "delete-repository") => has("--force"),
                ("efs", "delete-file-system") => true,
                ("eks", "delete-cluster") => true,
                ("route53", "delete-hosted-zone") => true,
                ("logs", "delete-log-group") => true,
                ("backup", "delete-recovery-point" | "delete-backup-vault") => true,
                ("iam", "delete-user" | "delete-role") => true,
                ("lambda", "delete-function") => true,
                _ => false,
            };
            if hit {
                return Some(format!("aws {svc} {op}"));
            }
        }
        "gcloud" => {
            let quiet = has("--quiet") || args.contains(&"-q");
            let deletes = ops
                .iter()
                .any(|o| matches!(*o, "delete" | "rm" | "destroy"));
            let storage_rm = ops.first() == Some(&"storage")
                && ops.get(1).is_some_and(|o| matches!(*o, "rm" | "buckets"))
                && (has("--recursive") || args.contains(&"-r"));
            if (quiet && deletes) || storage_rm {
                return Some(show(4));
            }
        }
        "gsutil" => {
            let rm = first == "rm" && (c.args.iter().any(|x| x == "-r" || x == "-R" || x == "-a"));
            if rm || first == "rb" {
                return Some(show(3));
            }
        }
        "gh" if first == "repo"
            && ops.get(1) == Some(&"delete")
            && (has("--yes") || has("--confirm") || args.contains(&"-y")) =>
        {
            return Some(show(4));
        }
        "az" => {
            let deletes = ops.iter().any(|o| matches!(*o, "delete" | "purge"));
            if deletes && (has("--yes") || args.contains(&"-y")) {
                return Some(show(4));
            }
        }
        "doctl" => {
            let deletes = ops.iter().any(|o| matches!(*o, "delete" | "rm" | "d"));
            if deletes && (has("--force") || args.contains(&"-f")) {
                return Some(show(4));
            }
        }
        "heroku"
            if (first.starts_with("apps:destroy") || first.starts_with("pg:reset"))
                && has("--confirm") =>
        {
            return Some(show(3));
        }
        "fly" | "flyctl" => {
            let destroys = ops.iter().any(|o| matches!(*o, "destroy"))
                || (first == "volumes"
                    && ops
                        .get(1)
                        .is_some_and(|o| matches!(*o, "destroy" | "delete")));
            if destroys && (has("--yes") || args.contains(&"-y")) {
                return Some(show(4));
            }
        }
        "zfs" if first == "destroy" => return Some(show(3)),
        "lvremove" | "vgremove" | "pvremove"
            if has("--force") || args.contains(&"-f") || args.contains(&"-y") =>
        {
            return Some(show(3));
        }
        _ => {}
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Runtime code

/// Programs whose output `eval "$(PROGRAM …)"` runs as everyday environment setup, with the
/// first argument they need (`None`: any).
pub const ENV_SETUP: &[(&str, Option<&[&str]>)] = &[
    ("ssh-agent", None),
    ("direnv", Some(&["hook", "export"])),
    (
        "pyenv",
        Some(&["init", "virtualenv-init", "sh-activate", "sh-shell"]),
    ),
    ("rbenv", Some(&["init"])),
    ("nodenv", Some(&["init"])),
    ("goenv", Some(&["init"])),
    ("jenv", Some(&["init"])),
    ("plenv", Some(&["init"])),
    ("phpenv", Some(&["init"])),
    ("brew", Some(&["shellenv"])),
    (
        "conda",
        Some(&[
            "shell.bash",
            "shell.zsh",
            "shell.fish",
            "shell.posix",
            "activate",
        ]),
    ),
    ("micromamba", Some(&["shell"])),
    ("mamba", Some(&["shell"])),
    ("starship", Some(&["init"])),
    ("zoxide", Some(&["init"])),
    ("fnm", Some(&["env"])),
    ("mise", Some(&["activate", "env", "hook-env"])),
    ("rtx", Some(&["activate", "env"])),
    ("asdf", Some(&["exec"])),
    ("opam", Some(&["env", "config"])),
    ("dircolors", None),
    ("lesspipe", None),
    ("lesspipe.sh", None),
    ("thefuck", Some(&["--alias"])),
    ("keychain", None),
    ("gpg-agent", None),
    ("luarocks", Some(&["path"])),
    ("fzf", Some(&["--bash", "--zsh", "--fish"])),
    ("atuin", Some(&["init"])),
    ("mcfly", Some(&["init"])),
    ("oh-my-posh", Some(&["init"])),
    ("register-python-argcomplete", None),
    ("kubectl", Some(&["completion"])),
    ("helm", Some(&["completion"])),
    ("gh", Some(&["completion"])),
    ("minikube", Some(&["docker-env", "podman-env"])),
    ("docker-machine", Some(&["env"])),
    ("dbus-launch", None),
    ("resize", None),
    ("hub", Some(&["alias"])),
    ("scmpuff", Some(&["init"])),
    ("poetry", Some(&["env"])),
    ("uv", Some(&["generate-shell-completion"])),
    ("rustup", Some(&["completions"])),
    ("nix", Some(&["print-dev-env"])),
    ("devbox", Some(&["shellenv", "global"])),
    ("pixi", Some(&["shell-hook"])),
    ("tmuxifier", Some(&["init"])),
    ("fasd", Some(&["--init"])),
    ("navi", Some(&["widget"])),
    ("aws-vault", Some(&["exec", "export"])),
    ("ssh-add", None),
    ("locale", None),
    ("tty", None),
    ("id", None),
    ("hostname", None),
    ("uname", None),
];

/// One runtime-code finding of a line ([`runtime_code`]).
#[derive(Debug, Clone)]
pub struct Runtime {
    /// What it is (`echo | base64 | sh`, `eval "$X"`, `${x@P}`).
    what: String,
    /// The text it runs, when it could be decoded here.
    decoded: Option<String>,
    /// What the decoded text does that is denied in any session.
    decoded_does: Option<String>,
}

impl Runtime {
    /// The `shell.runtime_code` decision for this finding: `verdict`, `message`, and as
    /// evidence what it is and (the first 200 bytes of) what it decodes to.
    fn decision(&self, verdict: Verdict, message: String) -> Decision {
        let mut d = Decision::new(verdict, Reason::RuntimeCode, message)
            .rule("shell.runtime_code")
            .evidence(self.what.clone());
        if let Some(t) = &self.decoded {
            d = d.evidence(crate::text::cap(t, 200).to_string());
        }
        d
    }
}

/// What a decoded command line does that is denied whatever the session: download and run,
/// send a secret, reach the network at all, destroy, start an agent unchecked.
fn decoded_danger(text: &str) -> Option<String> {
    let a = shell::analyze(text);
    if let Some(p) = a.pipe_to_shell() {
        return Some(format!("pipes a download into an interpreter ({p})"));
    }
    if let Some(s) = a.secret_egress() {
        return Some(format!("sends a secret ({})", s.word));
    }
    if let Some(c) = catastrophic(&a, text, &Roots::new(&PathContext::default())) {
        return Some(format!("would destroy {c}"));
    }
    if let Some(x) = a.nested_agent_unsafe() {
        return Some(format!("starts an agent unchecked ({x})"));
    }
    if let Some(w) = irreversible(&a) {
        return Some(format!("deletes for good ({w})"));
    }
    if a.is_network() {
        return Some("reaches the network".to_string());
    }
    None
}

/// True for an environment-setup command ([`ENV_SETUP`]) or a CLI printing its own shell
/// completion (`X completion SHELL`, `X completions SHELL`).
fn is_env_setup(c: &SimpleCommand) -> bool {
    let first = c.args.first().map(String::as_str);
    matches!(first, Some("completion" | "completions"))
        || ENV_SETUP.iter().any(|(prog, subs)| {
            *prog == c.program && subs.is_none_or(|s| first.is_some_and(|a| s.contains(&a)))
        })
}

/// True when the analysis `n` (a substitution's) runs only environment-setup programs.
fn only_env_setup(n: &Analysis) -> bool {
    let cmds = n.all_commands();
    !cmds.is_empty() && n.pipe_to_shell().is_none() && cmds.iter().all(|c| is_env_setup(c))
}

/// A placeholder the analysis leaves for a substitution's text (`$(…)`, `…`).
fn is_placeholder(w: &str) -> bool {
    w.contains('…')
}

/// The runtime-code findings of a line: text transformed into a shell, code bash or git runs
/// unseen, inline code that runs text built at run time; each with what it decodes to and
/// whether that is denied in any session.
pub fn runtime_code(a: &Analysis) -> Vec<Runtime> {
    let mut out = Vec::new();
    for f in a.transformed_feeds() {
        let decoded_does = f.decoded.as_deref().and_then(decoded_danger);
        out.push(Runtime {
            what: f.chain.clone(),
            decoded: f.decoded.clone(),
            decoded_does,
        });
    }
    walk_runtime(a, false, &mut out);
    for (c, code) in a.inline_programs() {
        let f = shell::inline_facts_of(&code);
        if let Some(d) = &f.dynamic {
            // Text fetched from the network and run is a download run unseen.
            let decoded_does = f
                .decoded
                .iter()
                .find_map(|t| decoded_danger(t))
                .or_else(|| {
                    f.network
                        .as_ref()
                        .map(|n| format!("is fetched from the network ({n}) and run"))
                });
            out.push(Runtime {
                what: format!("{} runs text built at run time ({d})", c.program),
                decoded: f.decoded.first().cloned(),
                decoded_does,
            });
        } else if let (Some(n), Some(s)) = (&f.network, &f.spawn) {
            // Inline code that reaches the network and starts processes: what it runs may be
            // what it fetched.
            out.push(Runtime {
                what: format!(
                    "{} reaches the network ({n}) and starts processes ({s})",
                    c.program
                ),
                decoded: None,
                decoded_does: None,
            });
        }
    }
    if let Some(t) = types_into_terminal(a) {
        out.push(Runtime {
            what: format!("types into another program's terminal ({t})"),
            decoded: None,
            decoded_does: None,
        });
    }
    out.truncate(4);
    out
}

/// A command that types into another program's terminal or window: `tmux send-keys`/
/// `paste-buffer`, `screen -X stuff`, an `expect` script, `ttyecho`, `xdotool type`,
/// `osascript` keystrokes, inline code pushing input (`TIOCSTI`, `pexpect`). What it types
/// cannot be analysed. (Opening a terminal, `script`, `abduco`, a Python `pty`, is the tamper
/// check's concern in a tainted session.)
fn types_into_terminal(a: &Analysis) -> Option<String> {
    for c in a.all_commands() {
        let p = c.program.as_str();
        let has = |w: &[&str]| c.args.iter().any(|x| w.contains(&x.as_str()));
        let hit = match p {
            "tmux" => has(&["send-keys", "send", "paste-buffer", "pasteb"]),
            "screen" => has(&["stuff", "paste", "eval", "exec"]),
            "expect" | "unbuffer" => {
                c.args.iter().any(|x| !x.starts_with('-')) || has(&["-c", "-f"])
            }
            "ttyecho" | "conspy" | "wtype" => true,
            "xdotool" | "ydotool" => has(&["type", "key", "keydown"]),
            "osascript" => c.args.iter().any(|x| {
                let l = x.to_ascii_lowercase();
                l.contains("keystroke") || l.contains("key code")
            }),
            _ => false,
        };
        if hit {
            return Some(p.to_string());
        }
    }
    for (c, code) in a.inline_programs() {
        let lower = code.code.to_ascii_lowercase();
        if let Some(k) = ["tiocsti", "pexpect", "sendline(", "send_keys"]
            .iter()
            .find(|k| lower.contains(*k))
        {
            return Some(format!("{} ({k})", c.program));
        }
    }
    None
}

/// `eval`/`source` of text built at run time, a shell's `-c` script built at run time, and a
/// computed program name, through every nested line. `owned_by_runner`: this analysis is the
/// text of an `eval`, `sh -c` or `source` (its placeholder commands are that runner's).
fn walk_runtime(a: &Analysis, owned_by_runner: bool, out: &mut Vec<Runtime>) {
    if out.len() >= 4 {
        return;
    }
    // The nested analyses by the command that owns them, grouped once.
    let mut by_owner: std::collections::HashMap<(usize, usize), Vec<&Analysis>> =
        std::collections::HashMap::new();
    for (x, y, n) in &a.nested {
        by_owner.entry((*x, *y)).or_default().push(n);
    }
    for (pi, p) in a.pipelines.iter().enumerate() {
        for (ci, c) in p.iter().enumerate() {
            let owned: Vec<&Analysis> = by_owner.remove(&(pi, ci)).unwrap_or_default();
            // The substitutions' analyses (not the runner's own text, whose commands are
            // placeholders).
            let subs: Vec<&Analysis> = owned
                .iter()
                .copied()
                .filter(|n| {
                    !n.all_commands()
                        .iter()
                        .all(|x| is_placeholder(&x.argv0) || x.program.starts_with('$'))
                })
                .collect();
            let prog = c.program.as_str();
            let computed_words = |ws: &[String]| {
                ws.iter()
                    .any(|w| w.contains('$') || is_placeholder(w) || w.contains('`'))
            };
            let shell_c = shell::is_shell(prog)
                && c.args
                    .iter()
                    .any(|x| x.starts_with('-') && !x.starts_with("--") && x[1..].contains('c'));
            if prog == "eval" || shell_c {
                let script: Vec<String> = if shell_c {
                    c.args
                        .iter()
                        .skip_while(|x| {
                            !(x.starts_with('-') && !x.starts_with("--") && x[1..].contains('c'))
                        })
                        .skip(1)
                        .take(1)
                        .cloned()
                        .collect()
                } else {
                    c.args.clone()
                };
                if computed_words(&script) {
                    let vars_only = script
                        .iter()
                        .all(|w| !w.replace("$(…)", "").replace("`…`", "").contains('$'));
                    let setup =
                        vars_only && !subs.is_empty() && subs.iter().all(|n| only_env_setup(n));
                    if !setup {
                        let decoded = subs.iter().find_map(|n| n.decoded_output());
                        let decoded_does = decoded.as_deref().and_then(decoded_danger);
                        out.push(Runtime {
                            what: format!("{prog} {}", script.join(" ")),
                            decoded,
                            decoded_does,
                        });
                    }
                }
            }
            if matches!(prog, "source" | ".") {
                let target = c
                    .args
                    .iter()
                    .find(|x| !x.starts_with('-'))
                    .map(String::as_str)
                    .unwrap_or("");
                let stdin_like = target.is_empty()
                    || target.starts_with("/dev/stdin")
                    || target.starts_with("/dev/fd/")
                    || target.starts_with("/proc/self/fd")
                    || target == "-";
                let fed_text = c.heredoc.as_deref().unwrap_or("");
                // Fed by a pipe: what the commands before it print (`kubectl completion
                // fish | source` is setup; `ssh host … | source` is not).
                let piped = ci > 0;
                let fed_by_setup = piped && p[..ci].iter().all(is_env_setup);
                let stdin_computed = stdin_like
                    && !fed_by_setup
                    && (piped
                        || (!fed_text.is_empty()
                            && (fed_text.contains('$')
                                || is_placeholder(fed_text)
                                || c.has_substitution)));
                let procsub = target.contains("<(");
                let setup_subs = !subs.is_empty() && subs.iter().all(|n| only_env_setup(n));
                let computed = (procsub && !setup_subs)
                    || (is_placeholder(target) && !procsub)
                    || (target.starts_with('$') && !target.contains('/'));
                if stdin_computed || computed {
                    out.push(Runtime {
                        what: format!("{prog} {target}"),
                        decoded: None,
                        decoded_does: None,
                    });
                }
            }
            // Code bash (or git) evaluates from text built at run time: a substitution's
            // output in an array subscript or a kept command line (`trap "$(…)" EXIT`).
            if let Some(w) = c.evaluates_unseen() {
                out.push(Runtime {
                    what: format!("code evaluated from text built at run time: {w}"),
                    decoded: None,
                    decoded_does: None,
                });
            }
            // A program name computed at run time.
            let argv0 = c.argv0.as_str();
            let indirect = argv0.contains("@P}")
                || argv0.contains("${!")
                || argv0.contains("${IFS}")
                || argv0.contains("$IFS")
                || (is_placeholder(argv0) && !owned_by_runner)
                || argv0.starts_with('`');
            if indirect {
                out.push(Runtime {
                    what: format!("a program named at run time ({argv0})"),
                    decoded: None,
                    decoded_does: None,
                });
            }
            // The text of a runner, and what a placeholder's own analysis holds, are the
            // runner's: judged above.
            let runner = prog == "eval"
                || shell_c
                || matches!(prog, "source" | ".")
                || (owned_by_runner && is_placeholder(argv0));
            for n in owned {
                walk_runtime(n, runner, out);
            }
        }
    }
    // Substitutions the analysis could not attribute to a command.
    for n in by_owner.into_values().flatten() {
        walk_runtime(n, false, out);
    }
}

// ---------------------------------------------------------------------------------------------
// Inline secret egress

/// Inline code that reaches the network and reads a secret file or the environment:
/// `(evidence, what it reads)`.
fn inline_secret_egress(a: &Analysis) -> Option<(String, String)> {
    for (c, code) in a.inline_programs() {
        let f = shell::inline_facts_of(&code);
        let Some(net) = &f.network else { continue };
        if let Some(p) = f.secret_paths.first() {
            return Some((
                format!("{} {p} + {net}", c.program),
                format!("the secret file {p}"),
            ));
        }
        if let Some(e) = &f.env_read {
            return Some((
                format!("{} {e} + {net}", c.program),
                format!("the environment ({e})"),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests;
