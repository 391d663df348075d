//! Where a command writes: [`SimpleCommand::writes`] (files), [`SimpleCommand::tree_writes`]
//! (whole trees: removals, copies into a folder, extractions, git's work-tree commands,
//! attribute changes), the sources of a copy and `find`'s name patterns; and
//! [`Analysis::write_targets`], which gathers them for a whole line, located by the `cd`s
//! before each command.

use super::command::{basename, simple, Opts, SimpleCommand};
use super::scripts::{awk_program, sed_program};
use super::Analysis;

/// How a command line writes a path, from narrowest to widest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WriteKind {
    /// The one file at the path.
    File,
    /// Anything under the path (`cp -r SRC DIR`, `tar -x -C DIR`): a file below it may be
    /// overwritten.
    Into,
    /// The path and everything under it is removed or replaced (`rm -r`, `mv`).
    Replace,
}

/// One place a command line writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteTarget {
    /// The path as written, joined to the directory of the `cd`s before the command.
    pub path: String,
    /// False when the path is relative to a directory a `cd` made unknowable (`cd "$D"`):
    /// then only its name tells where it goes.
    pub located: bool,
    /// How the path is written.
    pub kind: WriteKind,
    /// For a copy into the path (`cp -r SRC… DIR`, `rsync SRC… DIR`): the sources as written,
    /// located like the path. Empty for every other write.
    pub sources: Vec<String>,
    /// For `find PATH -name PAT … -delete`/`-exec`: the name patterns (`-name`, `-iname`, the
    /// latter lower-cased) that every entry written under the path matches. Empty when any
    /// entry may be.
    pub names: Vec<String>,
    /// The program that writes (basename: `cp`, `git`, `tar`).
    pub by: String,
}

/// `patch`'s options: short ones that take a value, attached-only ones, long ones that take
/// the next word.
const PATCH_OPTS: (&str, &str, &[&str]) = (
    "pDiFdoBrVYzg",
    "",
    &[
        "strip",
        "input",
        "directory",
        "output",
        "reject-file",
        "fuzz",
        "prefix",
        "suffix",
        "backup-if-mismatch",
        "ifdef",
        "quoting-style",
    ],
);
impl SimpleCommand {
    /// Files this command writes: redirections, `tee`, `cp`/`mv`/`install`/`ln`/`rsync`
    /// destinations (with `DEST/NAME` for each source, and `DIR/NAME` for `-t DIR`), `sed -i`
    /// and the `w` files of a sed script, `perl -i`/`ruby -i`, `gawk -i inplace`, the `print >
    /// "FILE"` files of an awk program, `touch`/`rm`/`chmod`..., `dd of=`, `curl -o`,
    /// `wget -O`, `sort -o`, `uniq IN OUT`, `xxd IN OUT`, `tree -o`, `find -fprint`/`-fls`,
    /// `git --output`, `yq -i`, `tar -cf ARCHIVE`, `patch -o`/`patch FILE`.
    pub fn writes(&self) -> Vec<String> {
        let mut out = self.redirect_writes.clone();
        let operands: Vec<&String> = self.args.iter().filter(|a| !a.starts_with('-')).collect();
        let a = &self.args;
        match self.program.as_str() {
            "tee" | "sponge" => out.extend(operands.iter().map(|s| s.to_string())),
            "cp" | "mv" | "install" | "ln" | "rsync" => out.extend(self.copy_dests()),
            "sed" => {
                let o = Opts::parse(a, "efl", "i", &["expression", "file", "line-length"]);
                let script = o.sed_script();
                if o.any(&["-i", "--in-place"]) {
                    let skip = usize::from(script.from_operand);
                    out.extend(o.operands.iter().skip(skip).cloned());
                }
                out.extend(sed_program(&script.text).writes);
            }
            "perl" | "ruby" => {
                let o = Opts::parse(a, "eEIMmrCF", "ilx0dWTK", &[]);
                if o.any(&["-i"]) {
                    let skip = usize::from(!o.any(&["-e", "-E"]));
                    out.extend(o.operands.iter().skip(skip).cloned());
                }
            }
            "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => {
                let o = Opts::parse(
                    a,
                    "FfvEeilW",
                    "",
                    &["file", "assign", "source", "include", "load"],
                );
                let (prog, from_operand) = o.awk_program();
                if o.values(&["-i", "--include"]).any(|v| v == "inplace") {
                    out.extend(o.operands.iter().skip(usize::from(from_operand)).cloned());
                }
                if let Some(p) = prog {
                    out.extend(awk_program(&p).writes);
                }
            }
            "touch" | "rm" | "rmdir" | "mkdir" | "chmod" | "chown" | "chgrp" | "truncate"
            | "unlink" | "shred" => out.extend(operands.iter().map(|s| s.to_string())),
            "chattr" | "setfacl" => out.extend(self.attr_operands()),
            "patch" => {
                let o = Opts::parse(a, PATCH_OPTS.0, PATCH_OPTS.1, PATCH_OPTS.2);
                out.extend(
                    o.values(&["-o", "--output", "-r", "--reject-file"])
                        .filter(|v| *v != "-")
                        .map(str::to_string),
                );
                out.extend(o.operands.first().cloned());
            }
            "dd" => out.extend(
                a.iter()
                    .filter_map(|x| x.strip_prefix("of="))
                    .map(str::to_string),
            ),
            // Archivers and transformers write their output file: `zip ARCHIVE …`, `7z a
            // ARCHIVE …`, `openssl … -out F`, `gpg -o F`, `age -o F`, `split IN PREFIX`
            // (its first pieces).
            "zip" => out.extend(operands.first().map(|s| s.to_string())),
            "7z" | "7za" | "7zr" | "rar"
                if matches!(operands.first().map(|s| s.as_str()), Some("a" | "u")) =>
            {
                out.extend(operands.get(1).map(|s| s.to_string()));
            }
            "openssl" | "gpg" | "gpg2" | "age" => {
                for (i, x) in a.iter().enumerate() {
                    let named = matches!(x.as_str(), "-out" | "-o" | "--output");
                    if named {
                        out.extend(a.get(i + 1).cloned());
                    } else if let Some(v) = x.strip_prefix("--output=") {
                        out.push(v.to_string());
                    }
                }
            }
            "split" => {
                let o = Opts::parse(
                    a,
                    "abCdlnt",
                    "",
                    &[
                        "bytes",
                        "lines",
                        "line-bytes",
                        "number",
                        "suffix-length",
                        "additional-suffix",
                        "separator",
                        "filter",
                    ],
                );
                if let Some(prefix) = o.operands.get(1).filter(|p| p.as_str() != "-") {
                    let numeric = o.any(&["-d", "-x", "--numeric-suffixes", "--hex-suffixes"]);
                    for sfx in if numeric {
                        ["00", "01", "02", "03"]
                    } else {
                        ["aa", "ab", "ac", "ad"]
                    } {
                        out.push(format!("{prefix}{sfx}"));
                    }
                }
            }
            "tar" | "bsdtar" => {
                let t = TarArgs::parse(a);
                if t.creates {
                    out.extend(t.files.iter().filter(|f| *f != "-").cloned());
                }
                // `-C DIR` is where an extraction writes; a creation reads there.
                if t.extracts {
                    out.extend(t.dirs.iter().cloned());
                }
            }
            "unzip" => {
                let o = Opts::parse(a, "dxP", "", &[]);
                out.extend(o.values(&["-d"]).map(str::to_string));
            }
            "curl" | "wget" => {
                for (i, x) in a.iter().enumerate() {
                    let named = matches!(x.as_str(), "--output" | "--output-document");
                    // `-o FILE`, and a cluster ending in it (`-fsSLo FILE`); curl's `-O` names
                    // the file after the URL, wget's `-O` takes a file.
                    let short = x.starts_with('-')
                        && !x.starts_with("--")
                        && (x.ends_with('o') || (self.program == "wget" && x.ends_with('O')));
                    if named || short {
                        if let Some(f) = a.get(i + 1) {
                            if f != "-" {
                                out.push(f.clone());
                            }
                        }
                    } else if let Some(f) = x
                        .strip_prefix("--output=")
                        .or_else(|| x.strip_prefix("--output-document="))
                    {
                        out.push(f.to_string());
                    }
                }
            }
            "git" => {
                // `--output FILE` of diff, log, show, format-patch…
                let sub = self.git_args();
                let o = Opts::parse(sub, "", "", &["output"]);
                out.extend(o.values(&["--output"]).map(|f| self.git_locate(f)));
                if self.git_sub() == Some("config") {
                    out.extend(self.git_config_write());
                }
            }
            "sort" => {
                let o = Opts::parse(
                    a,
                    "kotST",
                    "",
                    &[
                        "key",
                        "output",
                        "field-separator",
                        "buffer-size",
                        "temporary-directory",
                        "files0-from",
                        "parallel",
                        "batch-size",
                        "compress-program",
                        "random-source",
                        "sort",
                    ],
                );
                out.extend(o.values(&["-o", "--output"]).map(str::to_string));
            }
            "uniq" => {
                let o = Opts::parse(
                    a,
                    "fsw",
                    "",
                    &[
                        "skip-fields",
                        "skip-chars",
                        "check-chars",
                        "all-repeated",
                        "group",
                    ],
                );
                out.extend(o.operands.get(1).cloned());
            }
            "xxd" => {
                let o = Opts::parse(a, "cglsonCR", "", &[]);
                out.extend(o.operands.get(1).filter(|f| *f != "-").cloned());
            }
            "tree" => {
                let o = Opts::parse(
                    a,
                    "LPIoHT",
                    "",
                    &[
                        "charset",
                        "filelimit",
                        "timefmt",
                        "sort",
                        "hintro",
                        "houtro",
                        "fromfile",
                    ],
                );
                out.extend(o.values(&["-o"]).map(str::to_string));
            }
            "find" => {
                let mut it = a.iter();
                while let Some(x) = it.next() {
                    if matches!(x.as_str(), "-fprint" | "-fprint0" | "-fprintf" | "-fls") {
                        out.extend(it.next().cloned());
                    }
                }
            }
            "yq" => {
                let o = Opts::parse(
                    a,
                    "opIse",
                    "",
                    &[
                        "output-format",
                        "input-format",
                        "indent",
                        "expression",
                        "split-exp",
                        "from-file",
                    ],
                );
                if o.any(&["-i", "--inplace"]) {
                    let skip = usize::from(o.operands.len() > 1 && !o.any(&["--from-file"]));
                    out.extend(o.operands.iter().skip(skip).cloned());
                }
            }
            _ => {}
        }
        out.extend(self.inline_facts().map(|f| f.writes).unwrap_or_default());
        out
    }

    /// The config file a `git config` writes a key that runs code into, if it does: a key
    /// whose value git runs or uses to find code (`git_key_runs_code`: hooks path, pagers,
    /// editors, filters, `alias.*` whose value starts with `!`, a credential helper that is a
    /// command or a path), or `url.*.insteadOf`/`pushInsteadOf` (later fetches and pushes go
    /// elsewhere). Writing one is persistence (`crate::policy::persist`), whatever the scope.
    /// Where: `--global` is `~/.gitconfig`, `--system` `/etc/gitconfig`, `--file F`/`-f F` is
    /// F, else the repository's `.git/config`. `None` for a read (`--get`, `--list`, a key
    /// with no value), an `--unset`, or a key that runs nothing (`user.name`, an alias of
    /// git subcommands).
    pub fn git_config_write(&self) -> Option<String> {
        let (k, value) = self.git_config_set()?;
        let v = value.trim_start();
        let runs = if k.starts_with("alias.") {
            // An alias of git subcommands (`reset HEAD --`) runs git; `!…` runs a shell, and a
            // value the analysis cannot see may be one.
            v.starts_with('!') || v.contains(['$', '`'])
        } else if k == "credential.helper"
            || (k.starts_with("credential.") && k.ends_with(".helper"))
        {
            // A helper built into git (`store`, `cache`, `osxkeychain`) runs no code of the
            // caller's; `!cmd` or a path does.
            let first = v.split_whitespace().next().unwrap_or("");
            v.starts_with('!') || first.contains('/')
        } else {
            // `url.<base>.insteadOf`/`pushInsteadOf` send later fetches and pushes elsewhere.
            git_key_runs_code(&k)
                || (k.starts_with("url.")
                    && (k.ends_with(".insteadof") || k.ends_with(".pushinsteadof")))
        };
        if !runs {
            return None;
        }
        let rest = self.git_args();
        let o = Opts::parse(
            rest,
            "f",
            "",
            &["file", "blob", "type", "default", "comment", "value"],
        );
        let scope = |names: &[&str]| rest.iter().any(|x| names.contains(&x.as_str()));
        Some(if let Some(f) = o.values(&["-f", "--file"]).last() {
            self.git_locate(f)
        } else if scope(&["--global"]) {
            "~/.gitconfig".to_string()
        } else if scope(&["--system"]) {
            "/etc/gitconfig".to_string()
        } else {
            self.git_locate(".git/config")
        })
    }

    /// The command line a `git config KEY VALUE` makes git run later, when the key is one git
    /// runs (`git_key_runs_code`; an alias only after its `!`): analysed as a nested line.
    pub(super) fn git_config_command(&self) -> Option<String> {
        let (k, v) = self.git_config_set()?;
        let t = v.trim_start();
        if k.starts_with("alias.") {
            return t.strip_prefix('!').map(str::to_string);
        }
        if k == "credential.helper" || (k.starts_with("credential.") && k.ends_with(".helper")) {
            // A helper built into git (`store`, `cache`) is `git credential-NAME`.
            return match t.strip_prefix('!') {
                Some(cmd) => Some(cmd.to_string()),
                None => t
                    .split_whitespace()
                    .next()
                    .is_some_and(|f| f.contains('/'))
                    .then(|| t.to_string()),
            };
        }
        git_key_runs_code(&k).then_some(v)
    }

    /// `git config [scope] KEY VALUE` (or `git config set KEY VALUE`): the key (lower-case)
    /// and the value set; `None` for a read, an unset, an edit or a key with no value.
    pub(super) fn git_config_set(&self) -> Option<(String, String)> {
        if self.git_sub() != Some("config") {
            return None;
        }
        let rest = self.git_args();
        let o = Opts::parse(
            rest,
            "f",
            "",
            &["file", "blob", "type", "default", "comment", "value"],
        );
        let reads = o.any(&[
            "--get",
            "--get-all",
            "--get-regexp",
            "--get-urlmatch",
            "--get-color",
            "--get-colorbool",
            "--list",
            "-l",
            "--unset",
            "--unset-all",
            "--remove-section",
            "--rename-section",
            "-e",
            "--edit",
        ]);
        let mut ops: Vec<&str> = o.operands.iter().map(String::as_str).collect();
        // The subcommand forms of git 2.46+: `git config set KEY VALUE`, `get`, `list`…
        match ops.first().copied() {
            Some("set") => {
                ops.remove(0);
            }
            Some("get" | "list" | "unset" | "remove-section" | "rename-section" | "edit") => {
                return None
            }
            _ => {}
        }
        if reads {
            return None;
        }
        let (key, value) = (ops.first()?, ops.get(1)?);
        Some((key.to_ascii_lowercase(), value.to_string()))
    }

    /// The files `chattr`/`setfacl` change (operands less `chattr`'s `+i`/`-a`/`=…` modes and
    /// `setfacl`'s option values).
    fn attr_operands(&self) -> Vec<String> {
        if self.program == "chattr" {
            let o = Opts::parse(&self.args, "vpR", "", &[]);
            return o
                .operands
                .iter()
                .filter(|x| !x.starts_with(['+', '=']))
                .cloned()
                .collect();
        }
        Opts::parse(
            &self.args,
            "mMxX",
            "",
            &[
                "modify",
                "modify-file",
                "remove",
                "remove-file",
                "set",
                "set-file",
                "restore",
            ],
        )
        .operands
    }

    /// The files a `chmod`/`chown`/`chgrp`/`chattr`/`setfacl` changes (its operands less the
    /// mode or owner); empty for other programs.
    fn changes_attributes_of(&self) -> Vec<String> {
        match self.program.as_str() {
            "chattr" | "setfacl" => self.attr_operands(),
            "chmod" | "chown" | "chgrp" => {
                let reference = self.args.iter().any(|a| a.starts_with("--reference"));
                // `chmod -w FILE`: the mode looks like an option.
                let dash_mode = self.program == "chmod"
                    && self.args.iter().any(|a| {
                        a.len() > 1
                            && a.starts_with('-')
                            && !a.starts_with("--")
                            && a[1..].chars().all(|c| "rwxXst".contains(c))
                    });
                let operands = self.args.iter().filter(|a| !a.starts_with('-'));
                let skip = usize::from(!reference && !dash_mode);
                operands.skip(skip).cloned().collect()
            }
            _ => Vec::new(),
        }
    }

    /// Where `cp`/`mv`/`install`/`ln`/`rsync` write: `DIR` of `-t DIR` (and `--target-directory`,
    /// `-tDIR`) with `DIR/NAME` for each source, else the last operand with `DEST/NAME` for
    /// each source (the destination may be a folder; not with `-T`). `install -d` creates all
    /// its operands; `ln TARGET` alone links `./NAME`.
    fn copy_dests(&self) -> Vec<String> {
        let (o, _) = self.copy_opts();
        let mut out = Vec::new();
        let join = |d: &str, src: &str| -> Option<String> {
            let name = basename(src.trim_end_matches('/'));
            let name = name.rsplit(':').next().unwrap_or(name);
            (!name.is_empty() && name != "." && name != "..")
                .then(|| format!("{}/{name}", d.trim_end_matches('/')))
        };
        if self.program == "install" && o.any(&["-d", "--directory"]) {
            return o.operands.clone();
        }
        if let Some(d) = o.values(&["-t", "--target-directory"]).last() {
            out.push(d.to_string());
            out.extend(o.operands.iter().filter_map(|s| join(d, s)));
            return out;
        }
        match o.operands.as_slice() {
            [] => {}
            [one] => {
                if self.program == "ln" {
                    out.extend(join(".", one));
                }
            }
            [sources @ .., dest] => {
                out.push(dest.clone());
                if !o.any(&["-T", "--no-target-directory"]) {
                    out.extend(sources.iter().filter_map(|s| join(dest, s)));
                }
            }
        }
        out
    }

    /// The options of `cp`/`mv`/`install`/`ln`/`rsync` read by their specs, and whether this is
    /// one of them.
    fn copy_opts(&self) -> (Opts, bool) {
        let (short, long): (&str, &[&str]) = match self.program.as_str() {
            "cp" | "mv" | "ln" => ("tS", &["target-directory", "suffix"]),
            "install" => (
                "tSmogC",
                &[
                    "target-directory",
                    "suffix",
                    "mode",
                    "owner",
                    "group",
                    "strip-program",
                ],
            ),
            "rsync" => (
                "efBTM",
                &[
                    "target-directory",
                    "rsh",
                    "rsync-path",
                    "filter",
                    "exclude",
                    "include",
                    "exclude-from",
                    "include-from",
                    "files-from",
                    "temp-dir",
                    "partial-dir",
                    "backup-dir",
                    "suffix",
                    "chmod",
                    "chown",
                    "log-file",
                    "log-file-format",
                    "password-file",
                    "compare-dest",
                    "copy-dest",
                    "link-dest",
                    "bwlimit",
                    "timeout",
                    "contimeout",
                    "max-size",
                    "min-size",
                    "max-delete",
                    "port",
                    "out-format",
                    "block-size",
                    "modify-window",
                    "usermap",
                    "groupmap",
                    "remote-option",
                    "info",
                    "debug",
                    "compress-choice",
                    "compress-level",
                    "checksum-choice",
                    "skip-compress",
                    "iconv",
                    "sockopts",
                    "address",
                    "stop-after",
                    "stop-at",
                    "write-batch",
                    "only-write-batch",
                    "read-batch",
                    "protocol",
                    "checksum-seed",
                    "outbuf",
                    "mkpath-mode",
                ],
            ),
            _ => return (Opts::parse(&[], "", "", &[]), false),
        };
        (Opts::parse(&self.args, short, "", long), true)
    }

    /// Paths whose whole tree this command may change, with how: [`WriteKind::Replace`] for
    /// `rm -r` operands, `rmdir`, every `mv` operand and `DEST/NAME` (its sources are removed,
    /// its destination replaced), the link of `ln -n`/`-T`, the start points of `find -delete`;
    /// [`WriteKind::Into`] for the destination of `cp -r`/`cp -a`, `rsync`, the directory an
    /// archive is extracted into (`tar -x -C DIR`, `unzip -d DIR`, `cpio -i`, `7z x`; `.` without
    /// one), `patch` without a file (`.`, or `-d DIR`), the work tree (`.`, or `git -C DIR`)
    /// of `git apply`/`am`/`checkout`/`restore`/`reset --hard`/`stash pop|apply`/`clean`, the
    /// folder of `git format-patch -o`, every file `chmod`/`chown`/`chgrp`/`chattr`/`setfacl`
    /// change (a folder's permissions reach what is under it), and the start points of a
    /// `find -exec` whose command does more than read. As written (not located).
    pub fn tree_writes(&self) -> Vec<(String, WriteKind)> {
        let operands: Vec<&String> = self.args.iter().filter(|a| !a.starts_with('-')).collect();
        let short_has = |c: char| {
            self.args.iter().any(|a| {
                a.starts_with('-')
                    && !a.starts_with("--")
                    && a[1..].chars().all(|x| x.is_ascii_alphanumeric())
                    && a[1..].contains(c)
            })
        };
        let long = |l: &str| self.args.iter().any(|a| a == l);
        let all = |k: WriteKind| -> Vec<(String, WriteKind)> {
            operands.iter().map(|s| (s.to_string(), k)).collect()
        };
        let of = |v: Vec<String>, k: WriteKind| -> Vec<(String, WriteKind)> {
            v.into_iter().map(|s| (s, k)).collect()
        };
        let here = |d: Vec<String>| -> Vec<(String, WriteKind)> {
            if d.is_empty() {
                vec![(".".to_string(), WriteKind::Into)]
            } else {
                of(d, WriteKind::Into)
            }
        };
        match self.program.as_str() {
            "rm" if short_has('r') || short_has('R') || long("--recursive") => {
                all(WriteKind::Replace)
            }
            "rmdir" => all(WriteKind::Replace),
            "mv" => {
                let mut v = all(WriteKind::Replace);
                v.extend(of(self.copy_dests(), WriteKind::Replace));
                v
            }
            "cp" if short_has('r')
                || short_has('R')
                || short_has('a')
                || long("--recursive")
                || long("--archive") =>
            {
                of(self.writes(), WriteKind::Into)
            }
            "rsync" => of(self.writes(), WriteKind::Into),
            "tar" | "bsdtar" => {
                let t = TarArgs::parse(&self.args);
                if t.extracts {
                    here(t.dirs)
                } else {
                    Vec::new()
                }
            }
            "unzip" => {
                let o = Opts::parse(&self.args, "dxP", "", &[]);
                let lists = o.any(&["-l", "-t", "-v", "-p", "-Z", "-z"]);
                if lists || o.operands.is_empty() {
                    Vec::new()
                } else {
                    here(o.values(&["-d"]).map(str::to_string).collect())
                }
            }
            "cpio" => {
                let o = Opts::parse(
                    &self.args,
                    "DEFHIMORC",
                    "",
                    &[
                        "directory",
                        "file",
                        "format",
                        "pattern-file",
                        "owner",
                        "message",
                        "block-size",
                        "io-size",
                    ],
                );
                if o.any(&["-i", "--extract"]) {
                    here(
                        o.values(&["-D", "--directory"])
                            .map(str::to_string)
                            .collect(),
                    )
                } else if o.any(&["-p", "--pass-through"]) {
                    of(o.operands.clone(), WriteKind::Into)
                } else {
                    Vec::new()
                }
            }
            "7z" | "7za" | "7zr" => {
                if matches!(operands.first().map(|s| s.as_str()), Some("x" | "e")) {
                    here(
                        self.args
                            .iter()
                            .filter_map(|a| a.strip_prefix("-o"))
                            .map(str::to_string)
                            .collect(),
                    )
                } else {
                    Vec::new()
                }
            }
            "patch" => {
                let o = Opts::parse(&self.args, PATCH_OPTS.0, PATCH_OPTS.1, PATCH_OPTS.2);
                let dry = o.any(&["--dry-run"]);
                if dry || !o.operands.is_empty() || o.any(&["-o", "--output"]) {
                    Vec::new()
                } else {
                    here(
                        o.values(&["-d", "--directory"])
                            .map(str::to_string)
                            .collect(),
                    )
                }
            }
            "git" => {
                let sub = self.git_sub().unwrap_or("");
                let rest = self.git_args();
                let has = |f: &str| rest.iter().any(|a| a == f);
                let first = rest
                    .iter()
                    .find(|a| !a.starts_with('-'))
                    .map(String::as_str);
                let tree = match sub {
                    "apply" => {
                        !(has("--check")
                            || has("--stat")
                            || has("--numstat")
                            || has("--summary")
                            || has("--cached"))
                    }
                    "am" | "checkout" | "restore" | "clean" => true,
                    "reset" => has("--hard") || has("--merge") || has("--keep"),
                    "stash" => matches!(first, Some("pop" | "apply")),
                    _ => false,
                };
                let mut v = Vec::new();
                if tree {
                    v.push((self.git_locate("."), WriteKind::Into));
                }
                if sub == "format-patch" {
                    let o = Opts::parse(rest, "ov", "", &["output-directory"]);
                    v.extend(
                        o.values(&["-o", "--output-directory"])
                            .map(|d| (self.git_locate(d), WriteKind::Into)),
                    );
                }
                v
            }
            "ln" if short_has('n') || short_has('T') || long("--no-dereference") => operands
                .last()
                .map(|s| (s.to_string(), WriteKind::Replace))
                .into_iter()
                .collect(),
            "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" => {
                of(self.changes_attributes_of(), WriteKind::Into)
            }
            "find" => {
                // `-delete` removes what it finds; a command run on each entry that does more
                // than read may change it.
                let kind = if self.args.iter().any(|a| a == "-delete") {
                    WriteKind::Replace
                } else if self.find_exec().iter().any(|run| {
                    !simple(run.iter().map(|w| (w.clone(), false)).collect(), Vec::new())
                        .is_read_only()
                }) {
                    WriteKind::Into
                } else {
                    return Vec::new();
                };
                // Start points: the operands before the first expression.
                self.args
                    .iter()
                    .take_while(|a| !a.starts_with('-') && !matches!(a.as_str(), "(" | "!"))
                    .map(|a| (a.clone(), kind))
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// The `-name`/`-iname` patterns of a `find` (lower-cased for `-iname`), when the
    /// expression is a plain conjunction that every entry acted on must match; empty when it
    /// is not `find`, has none, or has `-o`/`-or`/`,`/`!`/`-not` (then any entry may be).
    pub fn find_names(&self) -> Vec<String> {
        if self.program != "find"
            || self
                .args
                .iter()
                .any(|a| matches!(a.as_str(), "-o" | "-or" | "," | "!" | "-not"))
        {
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut it = self.args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "-name" => out.extend(it.next().cloned()),
                "-iname" => out.extend(it.next().map(|p| p.to_lowercase())),
                "-exec" | "-execdir" | "-ok" | "-okdir" => break,
                _ => {}
            }
        }
        out
    }

    /// The sources of `cp`/`rsync` (every operand but the destination; all of them with
    /// `-t DIR`); empty for other programs.
    pub fn copy_sources(&self) -> Vec<String> {
        if !matches!(self.program.as_str(), "cp" | "rsync") {
            return Vec::new();
        }
        let (o, _) = self.copy_opts();
        let mut operands = o.operands.clone();
        if o.values(&["-t", "--target-directory"]).next().is_none() {
            operands.pop();
        }
        operands
    }
}

/// A `tar` command line read: whether it extracts or creates, its archive files (`-f`) and
/// the directories it changes to (`-C`).
#[derive(Debug, Default)]
struct TarArgs {
    extracts: bool,
    creates: bool,
    files: Vec<String>,
    dirs: Vec<String>,
}

impl TarArgs {
    fn parse(args: &[String]) -> TarArgs {
        let mut t = TarArgs::default();
        let mut args: Vec<String> = args.to_vec();
        // Old style: a first word without a dash is a cluster of keys whose values follow in
        // order (`tar czf out.tgz src`, `tar xfC a.tar dir`).
        if let Some(first) = args.first().filter(|a| !a.starts_with('-')).cloned() {
            let mut rest: Vec<String> = args.split_off(1);
            let mut new = Vec::new();
            for ch in first.chars() {
                if "fbCgKLNTVXH".contains(ch) && !rest.is_empty() {
                    new.push(format!("-{ch}"));
                    new.push(rest.remove(0));
                } else {
                    new.push(format!("-{ch}"));
                }
            }
            new.extend(rest);
            args = new;
        }
        let o = Opts::parse(
            &args,
            "fbCgKLNTVXH",
            "",
            &[
                "file",
                "directory",
                "files-from",
                "exclude-from",
                "format",
                "owner",
                "group",
                "mode",
                "transform",
                "xform",
                "blocking-factor",
                "label",
                "newer",
                "after-date",
                "starting-file",
                "tape-length",
                "volno-file",
                "info-script",
                "new-volume-script",
                "use-compress-program",
                "rsh-command",
                "record-size",
            ],
        );
        t.extracts = o.any(&["-x", "--extract", "--get"]);
        t.creates = o.any(&[
            "-c",
            "--create",
            "-r",
            "--append",
            "-u",
            "--update",
            "-A",
            "--catenate",
            "--concatenate",
            "--delete",
        ]);
        t.files = o.values(&["-f", "--file"]).map(str::to_string).collect();
        t.dirs = o
            .values(&["-C", "--directory"])
            .map(str::to_string)
            .collect();
        t
    }
}

impl Analysis {
    /// Every path written, nested commands included, located ([`Analysis::write_targets`]).
    pub fn writes(&self) -> Vec<String> {
        self.write_targets().into_iter().map(|t| t.path).collect()
    }

    /// Every place the line writes, nested commands included, located by the `cd`s before
    /// each command ([`Dir::locate`](super::Dir::locate)); a path written in several ways
    /// keeps the widest.
    pub fn write_targets(&self) -> Vec<WriteTarget> {
        let mut out: Vec<WriteTarget> = Vec::new();
        for c in self.all_commands() {
            let files = c.writes().into_iter().map(|w| (w, WriteKind::File));
            for (raw, kind) in files.chain(c.tree_writes()) {
                let located = c.dir.locate(&raw);
                let sources = if kind == WriteKind::Into {
                    c.copy_sources()
                        .iter()
                        .map(|s| c.dir.locate(s).unwrap_or_else(|| s.clone()))
                        .collect()
                } else {
                    Vec::new()
                };
                let t = WriteTarget {
                    located: located.is_some(),
                    path: located.unwrap_or(raw),
                    kind,
                    sources,
                    names: c.find_names(),
                    by: c.program.clone(),
                };
                match out.iter_mut().find(|o| o.path == t.path) {
                    Some(o) if t.kind > o.kind => *o = t,
                    Some(_) => {}
                    None => out.push(t),
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;

/// True for a git config key whose value git runs as a command or uses to find code
/// (`core.hooksPath`, `core.fsmonitor`, `alias.*`, `filter.*.clean`, `diff.external`,
/// `credential.helper`, `gpg.program`, pagers, includes…); `k` is lower-case.
pub(super) fn git_key_runs_code(k: &str) -> bool {
    const EXACT: crate::strtab::StrTable = crate::str_table![
        "core.hookspath",
        "core.sshcommand",
        "core.fsmonitor",
        "core.editor",
        "core.pager",
        "core.askpass",
        "core.gitproxy",
        "diff.external",
        "include.path",
        "gpg.program",
        "sequence.editor",
        "uploadpack.packobjectshook",
        "web.browser",
        "sendemail.smtpserver",
    ];
    const PREFIXES: crate::strtab::StrTable = crate::str_table![
        "alias.",
        "includeif.",
        "filter.",
        "pager.",
        "credential.",
        "gpg.",
        "browser.",
        "mergetool.",
        "difftool.",
        "merge.",
        "diff.",
    ];
    const SUFFIXES: crate::strtab::StrTable = crate::str_table![
        ".clean",
        ".smudge",
        ".process",
        ".textconv",
        ".command",
        ".driver",
        ".cmd",
        ".program",
        ".uploadpack",
        ".receivepack",
        ".helper",
        ".path",
    ];
    EXACT.contains(k)
        || (PREFIXES.iter().any(|p| k.starts_with(p)) && SUFFIXES.iter().any(|s| k.ends_with(s)))
        || k.starts_with("alias.")
        || k.starts_with("includeif.")
        || k.starts_with("pager.")
        || (k.starts_with("remote.") && (k.ends_with(".uploadpack") || k.ends_with(".receivepack")))
}
