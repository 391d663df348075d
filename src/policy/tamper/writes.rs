//! Writes that reach a protected file: the file itself, a folder that holds it (removed,
//! moved, replaced or written into), a link to it, a copy over it, a script or option that
//! names it, and the path arguments of tools that write.

use super::tools::{removes, writes_by_name};
use super::{code_pieces, in_place, looks_like_path};
use crate::decision::{Decision, Reason, Verdict};
use crate::event::{Tool, ToolKind};
use crate::paths::{PathContext, Protection};
use crate::shell::{Analysis, WriteKind, WriteTarget};

/// Argument names that hold a path in MCP tools (the last segment of the key, lower-cased, with
/// `_`/`-` removed): `path`, `file_path`, `filePath`, `uri`, `directory`, `destination`, ...
const PATH_KEYS: crate::strtab::StrTable = crate::str_table![
    "path",
    "paths",
    "filepath",
    "file",
    "files",
    "filename",
    "uri",
    "url",
    "dir",
    "directory",
    "folder",
    "dirpath",
    "destination",
    "dest",
    "target",
    "source",
    "src",
    "from",
    "to",
    "newpath",
    "oldpath",
    "root",
    "cwd",
    "workdir",
    "location",
    "output",
    "outputpath",
];

/// Argument names that hold a file name to join with a folder argument.
const NAME_KEYS: &[&str] = &["name", "filename", "file", "basename", "newname"];

/// True when the last segment of the argument key `k` (`edits[0].path`) is one of `names`,
/// ignoring case, `_` and `-`.
fn key_is<'a>(k: &str, names: impl crate::strtab::Strs<'a>) -> bool {
    let last = k
        .rsplit(['.', '/', '['])
        .next()
        .unwrap_or(k)
        .trim_end_matches(']');
    let norm: String = last
        .chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect();
    names.strs().any(|n| n == norm) || norm.ends_with("path")
}

/// `path` with every shell expansion the analysis could not resolve removed, as if each were
/// empty: `$NAME`, `${…}`, `$@`, `$*`, `$1`, `$(…)` and backquoted text.
fn without_expansions(path: &str) -> String {
    let mut out = String::new();
    let mut it = path.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '$' => match it.peek() {
                Some('{') => {
                    for d in it.by_ref() {
                        if d == '}' {
                            break;
                        }
                    }
                }
                Some('(') => crate::text::skip_parens(&mut it),
                Some(d) if d.is_ascii_alphabetic() || *d == '_' => {
                    while it
                        .peek()
                        .is_some_and(|d| d.is_ascii_alphanumeric() || *d == '_')
                    {
                        it.next();
                    }
                }
                Some(d) if d.is_ascii_digit() || "@*#?$!-".contains(*d) => {
                    it.next();
                }
                _ => out.push(c),
            },
            '`' => {
                for d in it.by_ref() {
                    if d == '`' {
                        break;
                    }
                }
            }
            // The lexer's stand-in for a `$` it kept literal, and its `$(…)` marker's dots.
            '\u{FFFD}' | '…' => {}
            // `~-` (the previous directory): unknown.
            '~' if out.is_empty() && it.peek() == Some(&'-') => {
                it.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// A protected-path decision: `verdict`, the protection `rule`, the path as `evidence`.
fn finding(
    verdict: Verdict,
    rule: &'static str,
    message: String,
    evidence: impl Into<String>,
) -> Decision {
    Decision::new(verdict, Reason::ProtectedPath, message)
        .rule(rule)
        .evidence(evidence)
}

/// The message of a write into a folder that holds protected files.
fn into_message(name: &str, t: &str) -> String {
    format!(
        "{name} writes into {t}, which holds the settings of an agent, its hooks or this guard; it may overwrite them"
    )
}

/// A write of `path`, `how`, by `by`, located, with no sources or name patterns.
fn target(path: String, how: WriteKind, by: &str) -> WriteTarget {
    WriteTarget {
        path,
        located: true,
        kind: how,
        sources: Vec::new(),
        names: Vec::new(),
        by: by.to_string(),
    }
}

/// The write to a protected path this call makes, if any: a deny when it writes a protected
/// file or removes or replaces a folder holding one, an ask when it writes into such a folder
/// (`tar -x -C ~`) or writes a protected file's name in a folder that cannot be known
/// (`cd "$D" && echo > settings.json`).
pub(super) fn protected_write(
    tool: &Tool,
    sh: Option<&Analysis>,
    shell_targets: &[WriteTarget],
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
    let by = tool.name.clone();
    let mut targets: Vec<WriteTarget> = tool
        .write_paths
        .iter()
        .map(|p| target(p.clone(), file_how, &by))
        .collect();
    targets.extend_from_slice(shell_targets);
    if tool.kind == ToolKind::Mcp && (!is_read || writes_by_name(&tool.name)) {
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
        // Only arguments named like a path (not a message body that mentions one).
        let dirs: Vec<String> = leaves
            .iter()
            .filter(|(k, _)| key_is(k, PATH_KEYS))
            .filter_map(|(_, s)| as_path(s))
            .collect();
        let names: Vec<&str> = leaves
            .iter()
            .filter(|(k, _)| key_is(k, NAME_KEYS))
            .map(|(_, s)| s.trim())
            .filter(|s| !s.is_empty() && s.len() <= 255 && !s.contains(['/', ' ', '\n']))
            .take(16)
            .collect();
        // Marked, so that a relative path (which may be in a remote repository) asks.
        let by = format!("mcp:{by}");
        for d in dirs.iter().take(16) {
            for n in &names {
                targets.push(target(format!("{}/{n}", d.trim_end_matches('/')), how, &by));
            }
        }
        targets.extend(dirs.into_iter().map(|p| target(p, how, &by)));
    }
    if let Some((link, rule)) = sh.and_then(|a| links_protected(a, paths)) {
        return Some(
            finding(Verdict::Deny, rule, format!("{name} links to {link}, which configures an agent, its hooks or this guard; a write through the link would change it"), link),
        );
    }
    let mut code_reads = Vec::new();
    if let Some(a) = sh {
        let (writes, reads) = interpreter_paths(a);
        // Code that writes may rename or remove whatever it names, a folder as well as a file.
        targets.extend(
            writes
                .into_iter()
                .map(|p| target(p, WriteKind::Replace, &by)),
        );
        code_reads = reads;
    }
    let mut ask: Option<Decision> = None;
    if let Some(f) = sh.and_then(|a| git_drops_local_settings(a, paths)) {
        ask = Some(finding(
            Verdict::Ask,
            "protect.claude_settings",
            format!("{name} removes untracked or ignored files, among them {f}, which holds this project's local agent settings"),
            f,
        ));
    }
    if let Some((prog, path, rule)) = sh.and_then(|a| passes_protected(a, paths)) {
        ask = Some(
            finding(Verdict::Ask, rule, format!("{name} gives {path}, which configures an agent, its hooks or this guard, to {prog}, which is not known to only read it"), path),
        );
    }
    // Code that names a folder holding protected files without a word this module knows for
    // writing (an API not listed could move or remove it): what cannot be analysed is not
    // harmless, so a person confirms it. Code reading a protected file is fine.
    if let Some(p) = code_reads
        .iter()
        .find(|p| matches!(paths.protection(p, true), Some(Protection::Holds(_))))
    {
        ask.get_or_insert(finding(
            Verdict::Ask,
            "tamper.inline_code",
            format!("{name} runs inline code that names {p}, which configures an agent, its hooks or this guard; what the code does to it cannot be checked"),
            p.clone(),
        ));
    }
    // Looked up only when a `find -name` pattern needs it.
    let protected_names = std::cell::OnceCell::new();
    for WriteTarget {
        path: t,
        kind: how,
        located,
        sources,
        names,
        by,
    } in targets
    {
        // A folder held in a variable or built by a substitution (`"$d/settings.json"`) is
        // as unknown as one reached by `cd "$d"`.
        let rest = t
            .strip_prefix("${HOME}")
            .or_else(|| t.strip_prefix("$HOME"))
            .unwrap_or(&t);
        // `~-` is the previous directory (`$OLDPWD`): unknown here.
        let oldpwd = rest == "~-" || rest.starts_with("~-/");
        let unresolved = rest.contains(['$', '`', '\u{FFFD}']) || oldpwd;
        let located = located && !unresolved;
        if unresolved {
            // What an expansion the analysis cannot know leaves when it is empty
            // (`~/.cl$@aude`, `~/.cl${x}aude`, `~/.cl$(true)aude` are `~/.claude`).
            let head = &t[..t.len() - rest.len()];
            let bare = format!("{head}{}", without_expansions(rest));
            match paths.protection(&bare, how != WriteKind::File) {
                Some(Protection::Is(rule)) => {
                    return Some(finding(
                        Verdict::Deny,
                        rule,
                        format!("{name} writes {t}, which is {bare} when its expansions are empty: it configures an agent, its hooks or this guard"),
                        t,
                    ))
                }
                Some(Protection::Holds(rule)) if how == WriteKind::Replace => {
                    return Some(finding(
                        Verdict::Deny,
                        rule,
                        format!("{name} removes or replaces {t}, which is {bare} when its expansions are empty: it holds the settings of an agent, its hooks or this guard"),
                        t,
                    ))
                }
                Some(p) => {
                    ask.get_or_insert(finding(
                        Verdict::Ask,
                        p.rule(),
                        format!("{name} writes {t}, which is {bare} when its expansions are empty"),
                        t.clone(),
                    ));
                    continue;
                }
                None => {}
            }
        }
        // A folder removed, replaced or written into whose name is computed (`rm -rf $X`,
        // `rm -rf ~/$(printf …)`): what cannot be analysed is not harmless, where the part
        // before the computed one could hold protected files.
        let literal = if oldpwd {
            Some("")
        } else {
            rest.find(['$', '`', '\u{FFFD}'])
                .map(|i| &rest[..rest[..i].rfind('/').map_or(0, |j| j + 1)])
        };
        let computed = literal.is_some_and(|prefix| {
            prefix.is_empty()
                || paths
                    .protection(&format!("{}{prefix}", &t[..t.len() - rest.len()]), true)
                    .is_some()
        });
        if computed && how != WriteKind::File {
            ask.get_or_insert(
                finding(Verdict::Ask, "tamper.computed_path", format!("{name} removes or writes into {t}, a folder whose name is computed when it runs; it could hold the settings of an agent or this guard"), t.clone()),
            );
            continue;
        }
        if !located {
            if let Some(rule) = paths.protected_name(&t) {
                ask.get_or_insert(
                    finding(Verdict::Ask, rule, format!("{name} writes {t} in a folder that cannot be known (after a `cd` to a variable); a file of that name configures an agent or this guard"), t.clone()),
                );
            }
            continue;
        }
        match paths.protection(&t, how != WriteKind::File) {
            // An MCP tool's relative path may name a file in a remote repository
            // (`create_or_update_file {"path": ".claude/settings.json"}`): asked, not denied.
            Some(Protection::Is(rule))
                if by.starts_with("mcp:")
                    && !(t.starts_with('/') || t.starts_with('~') || t.starts_with("$HOME")) =>
            {
                ask.get_or_insert(
                    finding(Verdict::Ask, rule, format!("{name} writes {t}, which would configure an agent, its hooks or this guard if it is a local file"), t.clone()),
                );
            }
            // `git config [--global|--system|--file F] KEY VALUE` names a config file only for
            // a key whose value git runs as code or that redirects git: persistence
            // (`persist.git_config`: asked in a clean session, denied in a tainted one), and
            // the command the value runs is analysed as a nested line, so a dangerous one
            // meets its own rule. Writing `.git/hooks/*` or `.git/config` by any other means
            // stays protected.
            Some(Protection::Is(_)) | None if by == "git" && is_git_config_file(&t) => continue,
            Some(Protection::Is(rule)) => {
                return Some(
                    finding(Verdict::Deny, rule, format!("{name} writes {t}, which configures an agent, its hooks or this guard"), t),
                )
            }
            // Git's work-tree commands (`checkout`, `stash pop`, `reset --hard`) change the
            // tracked files they name; a pathspec naming a protected file is asked about by
            // `passes_protected`, a branch switch is everyday work.
            Some(Protection::Holds(_)) if by == "git" && how == WriteKind::Into => {}
            // `find DIR -name '*.pyc' -delete` removes only entries of that name.
            Some(Protection::Holds(_))
                if !names.is_empty()
                    && !names.iter().any(|pat| {
                        protected_names
                            .get_or_init(|| paths.protected_names())
                            .iter()
                            .any(|n| crate::shell::glob_match(pat, n))
                    }) => {}
            Some(Protection::Holds(rule)) if how == WriteKind::Replace => {
                return Some(
                    finding(Verdict::Deny, rule, format!("{name} removes or replaces {t}, which holds the settings of an agent, its hooks or this guard"), t),
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
                            finding(Verdict::Deny, rule, format!("{name} copies into {t} over a file that configures an agent, its hooks or this guard"), t),
                        )
                    }
                    Some(Protection::Holds(rule)) => {
                        ask.get_or_insert(
                            finding(Verdict::Ask, rule, into_message(&name, &t), t.clone()),
                        );
                    }
                }
            }
            Some(Protection::Holds(rule)) => {
                ask.get_or_insert(
                    finding(Verdict::Ask, rule, into_message(&name, &t), t),
                );
            }
            None => {}
        }
    }
    ask
}

/// True for a git config file as `git config` names it: `~/.gitconfig`, `/etc/gitconfig`,
/// `~/.config/git/config`, a repository's `.git/config`.
fn is_git_config_file(t: &str) -> bool {
    t == ".git/config"
        || t.ends_with("/.git/config")
        || t.ends_with(".gitconfig")
        || t.ends_with("/git/config")
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

/// Programs whose every write `SimpleCommand::writes` names: what else they are given, they
/// read.
const COPIERS: crate::strtab::StrTable =
    crate::str_table!["cp", "rsync", "scp", "install", "ditto", "tar", "zip", "diff",];

/// Local settings files that git does not track (Claude Code ignores `settings.local.json`
/// itself), relative to a project.
const LOCAL_SETTINGS: &[&str] = &[".claude/settings.local.json"];

/// The project's local settings file a `git clean -x`/`-X` or `git stash -u`/`-a` would remove
/// or stash away, when one exists: the command names no pathspec, so all untracked or ignored
/// files go. Stats the files.
fn git_drops_local_settings(a: &Analysis, paths: &PathContext) -> Option<String> {
    for c in a.all_commands() {
        if c.program != "git" {
            continue;
        }
        let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
        let cluster = |ch: char| {
            args.iter()
                .any(|x| x.starts_with('-') && !x.starts_with("--") && x.contains(ch))
        };
        let sub = args.iter().find(|x| !x.starts_with('-')).copied();
        let drops = match sub {
            Some("clean") => cluster('x') || cluster('X'),
            Some("stash") => {
                cluster('u')
                    || cluster('a')
                    || args
                        .iter()
                        .any(|x| matches!(*x, "--include-untracked" | "--all"))
            }
            _ => false,
        };
        if !drops {
            continue;
        }
        for f in LOCAL_SETTINGS {
            let located = c.dir.locate(f).unwrap_or_else(|| f.to_string());
            if std::fs::metadata(paths.resolve(&located)).is_ok() {
                return Some(f.to_string());
            }
        }
    }
    None
}

/// Git subcommands that do not change the files of the work tree.
const GIT_KEEPS_FILES: crate::strtab::StrTable = crate::str_table![
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
        if super::SCRIPTED.contains(c.program.as_str()) {
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
        // Programs whose writes the analysis models exactly: their other operands are read
        // (`cp .claude/settings.json /tmp/backup.json`), their destinations are write targets.
        if COPIERS.contains(c.program.as_str()) {
            continue;
        }
        if c.program == "git" && c.args.iter().any(|x| GIT_KEEPS_FILES.contains(x.as_str())) {
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

/// Words that show inline interpreter code writing, removing or running something (Python,
/// Node, Perl, Ruby, PHP idioms). Code that names a protected path and holds none of them only
/// reads it.
const CODE_WRITES: crate::strtab::StrTable = crate::str_table![
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
    "delete",
];

/// The paths named in the inline code of interpreters (`python3 -c CODE`, `node -e CODE`, a
/// here-document fed to one): every quoted string and word in the code that reads as a path,
/// as `(written, read)`. Code holding a word of [`CODE_WRITES`] gives its paths as written;
/// other code gives them as read. A piece that starts with `/` may be the tail of a path the
/// code builds (`os.homedir()+"/.claude"`, `"$ENV{HOME}/.claude"`, `Dir.pwd+"/.claude"`), so
/// it is also given under the home folder and under the working folder. Shell scripts are not
/// included: the shell analysis follows them.
fn interpreter_paths(a: &Analysis) -> (Vec<String>, Vec<String>) {
    let (mut writes, mut reads) = (Vec::new(), Vec::new());
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
            let out = if CODE_WRITES.iter().any(|w| lower.contains(w)) {
                &mut writes
            } else {
                &mut reads
            };
            for piece in code_pieces(code) {
                if piece.starts_with('/') && !piece.starts_with("//") {
                    out.push(format!("~{piece}"));
                    out.push(format!(".{piece}"));
                }
                out.push(piece.to_string());
            }
        }
    }
    (writes, reads)
}
