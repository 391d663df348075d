//! Check 6: a person's way past a wrong objection: the `[allow]` list of the config file and a
//! project paused with `intentshield pause` (`crate::pause`).
//!
//! It runs after the tamper check and before provenance, taint and review. When the call is on
//! the allow list, or its working directory is in a paused project, it sets the call's
//! [`Waiver`]: the later checks still run, but [`super::pre_tool`] sets their objection aside
//! (an allow-listed call: their asks; a paused project: their asks and denies) and answers no
//! objection with the reason `allow.listed` or `pause.project`, naming what would have been
//! answered without it. Whatever the earlier checks decided stands: an MCP tool in quarantine,
//! self-disclosure fields, injected instructions or secrets in the arguments, the built-in
//! always-deny rules (a download piped to a shell, secrets sent out, nested agents with their
//! checks off, unanalysable commands) and tamper protection (our commands, our state, harness
//! settings and hooks).
//!
//! Matching, precisely (entries come only from the protected config file, see `config::load`):
//! - `hosts`: an entry is a host name (`api.github.com`, matched exactly, case-insensitively)
//!   or `*.` and a suffix of at least two labels (`*.example.com` matches every name under
//!   `example.com`, not `example.com` itself). A call matches when it has destinations, they are
//!   all hosts or URLs (no e-mail address, account number or path among them), every host
//!   matches an entry, and so does the host of every `://` in its arguments, read here (the
//!   text after it up to `/ ? #` or a blank, user information before `@` dropped, port cut,
//!   lower-cased, a trailing dot dropped; at least one is needed, and one that is no host name,
//!   such as `[::1]` or a `\`, means no match). A shell call must also be one plain command
//!   (no shell operator or expansion, as for `commands`; one simple command in the analysis,
//!   nothing nested, no `NAME=value` in front), with no option that connects elsewhere or reads
//!   settings (`--connect-to`, `--resolve`, `-K`/`--config`, `-x`/`--proxy`, `--socks5…`,
//!   `--preproxy`, `--doh-url`, `--dns-servers`, `wget -i`/`-e`, any long option naming proxy,
//!   config, socks, resolve, dns...), and the bare words a URL program takes as URLs
//!   (`curl evil.com`) must match too.
//! - `commands`: an entry is one or more words (`git push`, `npm publish --dry-run`). A shell
//!   call matches when its command line starts with the entry's words, whole words, and holds no
//!   shell operator or expansion (none of `; & | < > $ \` ( ) { } \` and no line break): `git
//!   push origin main` matches `git push`; `git pushx`, `git push; curl …`, `git push "$(…)"` do
//!   not. It is one simple command with nothing nested, and no option runs a program or sets a
//!   destination (`--receive-pack`, `--upload-pack`, `--exec`, `git -c`, `git clone -u`,
//!   `--config…`, `--registry`, `-e`, `--rsh`, `-o ProxyCommand…`, `--compress-program`,
//!   `--to-command`, and long options naming exec, command, program, proxy, url, host...) and
//!   no argument names a destination (`://`, `user@host:`, `host.tld:path`): a destination
//!   comes through the `hosts` list.
//! - `paths`: an entry is an absolute path or one starting with `~/` (a folder or a file), and
//!   not `/`, the home folder or above it once `.`, `..` and symlinks are resolved. A
//!   file tool's call (read, write, edit) matches when every path it names, resolved (`~`, the
//!   working directory, `..`, and the symlinks that exist now), is the entry or inside it, whole
//!   path components (`/srv/app` covers `/srv/app/x`, not `/srv/app2`).

use super::{Call, Waiver};
use crate::decision::{Decision, Reason, Verdict};
use crate::event::ToolKind;
use crate::provenance::kind;
use std::path::{Path, PathBuf};

/// Most entries in each of the `[allow]` lists.
pub const MAX_ENTRIES: usize = 1000;
/// Longest entry (bytes).
pub const MAX_ENTRY_LEN: usize = 1024;
/// Characters that make a command line never match a `commands` entry (shell operators,
/// expansions, quoting escapes).
const SHELL_SYNTAX: &[char] = &[
    ';', '&', '|', '<', '>', '$', '`', '(', ')', '{', '}', '\\', '\n', '\r',
];

/// The `[allow]` table of the config file: hosts, command prefixes and paths whose calls the
/// provenance, taint and review checks do not ask about.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList {
    /// Host names, lower-case: `api.github.com` or `*.example.com`.
    pub hosts: Vec<String>,
    /// Command prefixes, each as its words.
    pub commands: Vec<Vec<String>>,
    /// Paths as written (`/srv/app`, `~/notes`); resolved when a call is matched.
    pub paths: Vec<String>,
}

impl AllowList {
    /// True when no list has an entry.
    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty() && self.commands.is_empty() && self.paths.is_empty()
    }

    /// Reads the `[allow]` table (`hosts`, `commands`, `paths`: arrays of strings).
    ///
    /// # Errors
    ///
    /// `allow must be a table`; `allow.<key> must be an array of strings`; `unknown key
    /// allow.<key>: expected hosts, commands or paths`; `allow.<key> has more than 1000
    /// entries`; and per entry: `allow.hosts: '<e>' is not a host name or *.suffix with two
    /// labels or more`, `allow.commands: '<e>' is empty or holds shell operators`,
    /// `allow.paths: '<e>' must be absolute or start with ~/, and not be /, the home folder or
    /// above it` (after `.`, `..` and the symlinks that exist now are resolved).
    pub fn from_toml(item: &toml_edit::Item) -> Result<AllowList, String> {
        let table = item.as_table_like().ok_or("allow must be a table")?;
        let mut list = AllowList::default();
        for (key, value) in table.iter() {
            let arr = value
                .as_array()
                .ok_or_else(|| format!("allow.{key} must be an array of strings"))?;
            if arr.len() > MAX_ENTRIES {
                return Err(format!("allow.{key} has more than {MAX_ENTRIES} entries"));
            }
            let mut items = Vec::new();
            for v in arr.iter() {
                let s = v
                    .as_str()
                    .ok_or_else(|| format!("allow.{key} must be an array of strings"))?;
                if s.len() > MAX_ENTRY_LEN {
                    return Err(format!(
                        "allow.{key}: an entry is longer than {MAX_ENTRY_LEN} bytes"
                    ));
                }
                items.push(s.trim().to_string());
            }
            match key {
                "hosts" => {
                    for h in items {
                        list.hosts.push(parse_host(&h).ok_or_else(|| {
                            format!("allow.hosts: '{h}' is not a host name or *.suffix with two labels or more")
                        })?);
                    }
                }
                "commands" => {
                    for c in items {
                        let words: Vec<String> = c.split_whitespace().map(str::to_string).collect();
                        if words.is_empty() || c.contains(SHELL_SYNTAX) {
                            return Err(format!(
                                "allow.commands: '{c}' is empty or holds shell operators"
                            ));
                        }
                        list.commands.push(words);
                    }
                }
                "paths" => {
                    let home = crate::env::path(crate::env::HOME);
                    for p in items {
                        if !path_entry_ok(&p, home.as_deref()) {
                            return Err(format!(
                                "allow.paths: '{p}' must be absolute or start with ~/, and not be /, the home folder or above it"
                            ));
                        }
                        list.paths.push(p);
                    }
                }
                other => {
                    return Err(format!(
                        "unknown key allow.{other}: expected hosts, commands or paths"
                    ))
                }
            }
        }
        Ok(list)
    }
}

/// True when a `paths` entry is absolute or starts with `~/`, and, with `~` expanded to
/// `home`, `.` and `..` removed, and also through the symlinks that exist now, is neither `/`
/// nor `home` nor a folder above it (such an entry would cover the whole disk or the whole
/// home).
fn path_entry_ok(p: &str, home: Option<&Path>) -> bool {
    if p.contains('\0') {
        return false;
    }
    let (base, rest) = if let Some(rest) = p.strip_prefix("~/") {
        (home.map(Path::to_path_buf), rest)
    } else if p.starts_with('/') {
        (Some(PathBuf::from("/")), p)
    } else {
        return false;
    };
    // Without a home, `~/…` must stay below `~` lexically.
    let Some(base) = base else {
        let mut depth = 0usize;
        for c in Path::new(rest).components() {
            match c {
                std::path::Component::ParentDir => {
                    if depth == 0 {
                        return false;
                    }
                    depth -= 1;
                }
                std::path::Component::Normal(_) => depth += 1,
                _ => {}
            }
        }
        return depth > 0;
    };
    let resolved = crate::paths::normalize(&base.join(rest));
    let mut forms = vec![resolved.clone()];
    forms.extend(std::fs::canonicalize(&resolved).ok());
    let mut homes: Vec<PathBuf> = home.map(Path::to_path_buf).into_iter().collect();
    homes.extend(home.and_then(|h| std::fs::canonicalize(h).ok()));
    forms
        .iter()
        .all(|f| f.parent().is_some() && !homes.iter().any(|h| h.starts_with(f)))
}

/// A host entry, lower-case, or `None` when it is neither a host name nor `*.` and a suffix of
/// two labels or more.
fn parse_host(s: &str) -> Option<String> {
    let lower = s.to_ascii_lowercase();
    let (wild, name) = match lower.strip_prefix("*.") {
        Some(rest) => (true, rest),
        None => (false, lower.as_str()),
    };
    let ok_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    let labels: Vec<&str> = name.split('.').collect();
    let ok = ok_chars
        && !name.is_empty()
        && name.len() <= 253
        && labels.iter().all(|l| !l.is_empty() && l.len() <= 63)
        && (!wild || labels.len() >= 2);
    ok.then_some(lower)
}

/// True when `host` (lower-case) matches the entry `pattern`.
/// True when an `[allow]` hosts entry (`api.github.com`, `*.example.com`) matches `host`.
pub(crate) fn host_matches(pattern: &str, host: &str) -> bool {
    match pattern.strip_prefix("*.") {
        Some(suffix) => host
            .strip_suffix(suffix)
            .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
        None => pattern == host,
    }
}

/// Sets the call's waiver when its project is paused or it is on the allow list.
pub fn check(call: &mut Call<'_>) {
    if let Some(p) = &call.ctx.pause {
        let msg = format!(
            "the project {} is paused by a person (`intentshield pause --list` shows until when)",
            p.project.display(),
        );
        call.waiver = Some(Waiver {
            decision: Decision::new(Verdict::Allow, Reason::ProjectPaused, msg)
                .rule("pause.project"),
            lifts_deny: true,
        });
        return;
    }
    let list = &call.ctx.config.allow;
    if list.is_empty() {
        return;
    }
    let Some((rule, what)) = matched(call, list) else {
        return;
    };
    let file = call.ctx.config.file.as_deref().map_or_else(
        || "the config file".to_string(),
        |f| f.display().to_string(),
    );
    call.waiver = Some(Waiver {
        decision: Decision::new(
            Verdict::Allow,
            Reason::AllowListed,
            format!("{what} is on the [allow] list of {file}"),
        )
        .rule(rule)
        .evidence(what),
        lifts_deny: false,
    });
}

/// The allow-list rule and entry the call matches, if it does.
fn matched(call: &Call<'_>, list: &AllowList) -> Option<(&'static str, String)> {
    if let Some(c) = commands_match(call, list) {
        return Some(("allow.commands", c));
    }
    if let Some(h) = hosts_match(call, list) {
        return Some(("allow.hosts", h));
    }
    if let Some(p) = paths_match(call, list) {
        return Some(("allow.paths", p));
    }
    None
}

fn commands_match(call: &Call<'_>, list: &AllowList) -> Option<String> {
    if call.tool.kind != ToolKind::Shell || list.commands.is_empty() {
        return None;
    }
    let (cmd, sc) = plain_command(call)?;
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let entry = list.commands.iter().find(|entry| {
        entry.len() <= words.len() && entry.iter().zip(&words).all(|(a, b)| a == b)
    })?;
    // What the program is told must not run other code or send elsewhere than its own
    // configuration says: a destination comes through the `hosts` list.
    let args = arg_words(cmd, sc);
    if risky_option(sc, &args, Waived::Command).is_some()
        || args.iter().any(|a| names_destination(a))
    {
        return None;
    }
    Some(format!("command `{}`", entry.join(" ")))
}

/// The command line and its one simple command when the call is a single plain command: no
/// shell operator or expansion, analysed whole, exactly one command, no code run by an option
/// (no nested analysis) and no `NAME=value` assignment in front of it.
fn plain_command<'c>(call: &'c Call<'_>) -> Option<(&'c str, &'c crate::shell::SimpleCommand)> {
    let cmd = call.tool.command.as_deref()?;
    if cmd.contains(SHELL_SYNTAX) || call.tool.unanalysable.is_some() {
        return None;
    }
    let sh = call.facts.sh.as_ref()?;
    if sh.incomplete || !sh.nested.is_empty() || sh.pipelines.len() != 1 {
        return None;
    }
    let [sc] = sh.pipelines[0].as_slice() else {
        return None;
    };
    if !sc.env.is_empty() || sc.has_substitution || sc.via_xargs || sc.parallel {
        return None;
    }
    Some((cmd, sc))
}

/// Every word the program may see: its parsed arguments, and the line's words with the
/// quotes removed (wrappers and options the parser takes away, such as git's `-c`, are among
/// the latter).
fn arg_words(cmd: &str, sc: &crate::shell::SimpleCommand) -> Vec<String> {
    let mut out: Vec<String> = sc.args.clone();
    out.extend(
        cmd.split_whitespace()
            .map(|w| w.replace(['\'', '"'], ""))
            .filter(|w| !sc.args.contains(w)),
    );
    out
}

/// Which waiver an option check is for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Waived {
    Command,
    Host,
}

/// Long option names (or parts of them) that make a program run other code, read settings
/// from elsewhere, or connect somewhere other than the host it names.
const RISKY_LONG: crate::strtab::StrTable = crate::str_table![
    "exec",
    "command",
    "program",
    "receive-pack",
    "upload-pack",
    "registry",
    "proxy",
    "socks",
    "config",
    "rsh",
    "ssh",
    "resolve",
    "connect-to",
    "doh",
    "dns",
    "input-file",
    "unix-socket",
    "alt-svc",
    "span-hosts",
    "checkpoint-action",
];
/// More parts of long option names refused for a `commands` waiver (a destination there must
/// come through the `hosts` list).
const RISKY_LONG_COMMAND: &[&str] = &["url", "host", "server", "remote", "rcpt"];
/// `ssh -o` settings that run a program or connect through another host.
const RISKY_SSH_SETTINGS: &[&str] = &[
    "proxycommand",
    "localcommand",
    "permitlocalcommand",
    "proxyjump",
    "remotecommand",
    "knownhostscommand",
    "include",
];

/// The first option of `sc` that runs code or sets where the program connects, if any:
/// by long name ([`RISKY_LONG`]), by short letter (per program), or `-o` with an ssh setting
/// that runs a command.
fn risky_option(sc: &crate::shell::SimpleCommand, args: &[String], w: Waived) -> Option<String> {
    let program = sc.program.as_str();
    let subcommand = sc
        .args
        .iter()
        .find(|a| !a.starts_with('-'))
        .map(String::as_str);
    let short: &[char] = match (program, w) {
        ("curl", _) => &['K', 'x'],
        ("wget" | "wget2", _) => &['i', 'e', 'B', 'H'],
        ("git", _) if subcommand == Some("clone") => &['c', 'u'],
        ("git", _) => &['c'],
        ("ssh" | "scp" | "sftp", _) => &['F', 'J'],
        ("rsync", _) => &['e'],
        ("tar" | "gtar" | "bsdtar", _) => &['I', 'F'],
        (_, Waived::Command) => &['c', 'e'],
        (_, Waived::Host) => &['c', 'e', 'i', 'K', 'x'],
    };
    let mut prev_o = false;
    for a in args {
        let lower = a.to_ascii_lowercase();
        if prev_o && RISKY_SSH_SETTINGS.iter().any(|s| lower.starts_with(s)) {
            return Some(format!("-o {a}"));
        }
        prev_o = a == "-o";
        if let Some(long) = lower.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or_default();
            let extra: &[&str] = if w == Waived::Command {
                RISKY_LONG_COMMAND
            } else {
                &[]
            };
            if RISKY_LONG
                .iter()
                .chain(extra.iter().copied())
                .any(|r| name.contains(r))
            {
                return Some(a.clone());
            }
        } else if let Some(cluster) = a.strip_prefix('-') {
            if cluster.chars().any(|c| short.contains(&c)) {
                return Some(a.clone());
            }
            if let Some(setting) = lower.strip_prefix("-o") {
                if RISKY_SSH_SETTINGS.iter().any(|s| setting.starts_with(s)) {
                    return Some(a.clone());
                }
            }
        }
    }
    None
}

/// True when the word names a place to connect to: a URL (`://`), or an scp-like remote
/// (`user@host:path`, `host.example:path`), also as the value of `--option=value`.
fn names_destination(word: &str) -> bool {
    let value = match word.strip_prefix("--") {
        Some(rest) => rest.split_once('=').map_or(word, |(_, v)| v),
        None => word,
    };
    if word.contains("://") {
        return true;
    }
    let Some((head, _)) = value.split_once(':') else {
        return false;
    };
    !head.contains('/')
        && !head.is_empty()
        && (head.contains('@')
            || (head.contains('.')
                && head
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-._".contains(c))))
}

/// The host of every `://` in `text`: the text after it up to `/`, `?`, `#` or a blank, with
/// the user information before the last `@` dropped and the port cut off, lower-cased,
/// without a trailing dot. `None` when one of them is no host name (an IP literal in brackets,
/// an empty host, a `\`, a quote, a `%` escape...).
fn url_hosts(text: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("://") {
        let rest = &text[i + 3..];
        let end = rest
            .find(|c: char| matches!(c, '/' | '?' | '#') || c.is_whitespace())
            .unwrap_or(rest.len());
        out.push(host_of_authority(&rest[..end])?);
    }
    Some(out)
}

/// The host of a URL's authority (`user:pw@host:port`), checked as in [`url_hosts`].
fn host_of_authority(authority: &str) -> Option<String> {
    // Some URL parsers read `\` as `/`: the host would differ between them.
    if authority.contains('\\') {
        return None;
    }
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    let host = host_port.split(':').next().unwrap_or_default();
    let host = host.to_ascii_lowercase();
    let host = host.strip_suffix('.').unwrap_or(&host);
    let ok = !host.is_empty()
        && host.len() <= 253
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
        && host.split('.').all(|l| !l.is_empty() && l.len() <= 63);
    ok.then(|| host.to_string())
}

/// Programs whose bare arguments are URLs (`curl example.com` fetches `http://example.com`).
const URL_PROGRAMS: crate::strtab::StrTable = crate::str_table![
    "curl", "wget", "wget2", "fetch", "aria2c", "http", "https", "xh", "xhs", "curlie", "lynx",
    "links", "w3m",
];
/// Short options of those programs that take the next word as their value.
const VALUE_SHORT: &[char] = &[
    'A', 'a', 'b', 'c', 'C', 'd', 'D', 'E', 'F', 'H', 'm', 'o', 'O', 'P', 'Q', 'r', 't', 'T', 'u',
    'U', 'w', 'X', 'Y', 'y', 'z',
];
/// Long options of those programs that take the next word as their value.
const VALUE_LONG: crate::strtab::StrTable = crate::str_table![
    "data",
    "data-raw",
    "data-binary",
    "data-urlencode",
    "data-ascii",
    "json",
    "header",
    "output",
    "request",
    "user",
    "user-agent",
    "referer",
    "cookie",
    "cookie-jar",
    "form",
    "form-string",
    "max-time",
    "connect-timeout",
    "write-out",
    "upload-file",
    "range",
    "continue-at",
    "dump-header",
    "retry",
    "retry-delay",
    "retry-max-time",
    "time-cond",
    "limit-rate",
    "cert",
    "key",
    "cacert",
    "capath",
    "oauth2-bearer",
    "output-dir",
    "max-filesize",
    "stderr",
    "trace",
    "trace-ascii",
    "speed-limit",
    "speed-time",
    "max-redirs",
    "proto",
    "proto-redir",
    "cert-type",
    "key-type",
    "pass",
    "variable",
    "aws-sigv4",
    "etag-save",
    "etag-compare",
    "netrc-file",
    "url-query",
    "output-document",
    "output-file",
    "append-output",
    "directory-prefix",
    "post-data",
    "post-file",
    "body-data",
    "body-file",
    "method",
    "tries",
    "timeout",
    "password",
    "http-user",
    "http-password",
    "load-cookies",
    "save-cookies",
    "wait",
    "level",
    "accept",
    "reject",
];

/// The words a URL program takes as URLs that have no `://` (a bare `example.com/x`):
/// every word that is no option and no option's value.
fn bare_url_words(sc: &crate::shell::SimpleCommand) -> Vec<&str> {
    let mut out = Vec::new();
    let mut value_next = false;
    let mut options_done = false;
    for a in &sc.args {
        if value_next {
            value_next = false;
            continue;
        }
        if !options_done && a == "--" {
            options_done = true;
            continue;
        }
        if !options_done {
            if let Some(long) = a.strip_prefix("--") {
                value_next = !long.contains('=') && VALUE_LONG.contains(long);
                continue;
            }
            if let Some(cluster) = a.strip_prefix('-').filter(|c| !c.is_empty()) {
                // `-so out` takes the next word; `-oout` holds its value.
                value_next = cluster
                    .chars()
                    .last()
                    .is_some_and(|c| VALUE_SHORT.contains(&c))
                    && !cluster
                        .char_indices()
                        .any(|(i, c)| VALUE_SHORT.contains(&c) && i + c.len_utf8() < cluster.len());
                continue;
            }
        }
        if !a.contains("://") {
            out.push(a.as_str());
        }
    }
    out
}

fn hosts_match(call: &Call<'_>, list: &AllowList) -> Option<String> {
    if list.hosts.is_empty() || call.dests.is_empty() {
        return None;
    }
    let mut hosts = Vec::new();
    for d in &call.dests {
        match d.kind {
            kind::HOST => hosts.push(d.text.to_ascii_lowercase()),
            // A URL's host is among the HOST values; a domain is derived from a host.
            kind::URL | kind::DOMAIN => {}
            _ => return None,
        }
    }
    // Every `://` in the arguments, read here (the value extractor may not see a URL inside
    // another URL, an IP address as a number, or a host without dots).
    let mut seen = Vec::new();
    if call.tool.kind == ToolKind::Shell {
        // One plain network command: an allowed host cannot lift the ask for a whole line.
        let (cmd, sc) = plain_command(call)?;
        let args = arg_words(cmd, sc);
        if risky_option(sc, &args, Waived::Host).is_some() {
            return None;
        }
        seen.extend(url_hosts(&cmd.replace(['\'', '"'], ""))?);
        for a in &args {
            seen.extend(url_hosts(a)?);
        }
        if URL_PROGRAMS.contains(sc.program.as_str()) {
            for w in bare_url_words(sc) {
                let authority = w.split(['/', '?', '#']).next().unwrap_or_default();
                seen.push(host_of_authority(authority)?);
            }
        }
    } else {
        if !call.facts.whole {
            return None;
        }
        for (_, text) in &call.facts.leaves {
            seen.extend(url_hosts(text)?);
        }
    }
    if seen.is_empty() {
        return None;
    }
    hosts.extend(seen);
    let mut entries = Vec::new();
    for h in &hosts {
        let e = list.hosts.iter().find(|p| host_matches(p, h))?;
        if !entries.contains(e) {
            entries.push(e.clone());
        }
    }
    Some(format!("host {}", entries.join(", ")))
}

fn paths_match(call: &Call<'_>, list: &AllowList) -> Option<String> {
    if list.paths.is_empty() || !matches!(call.tool.kind, ToolKind::FileRead | ToolKind::FileWrite)
    {
        return None;
    }
    let paths = &call.ctx.paths;
    let named: Vec<&String> = call
        .tool
        .read_paths
        .iter()
        .chain(&call.tool.write_paths)
        .collect();
    if named.is_empty() {
        return None;
    }
    // Each entry as written and through the symlinks that exist now.
    let roots: Vec<(&String, Vec<PathBuf>)> = list
        .paths
        .iter()
        .map(|e| {
            let r = paths.resolve(e);
            let mut forms = vec![r.clone()];
            forms.extend(paths.real(&r));
            (e, forms)
        })
        .collect();
    let covered = |p: &Path| -> Option<&String> {
        roots
            .iter()
            .find(|(_, forms)| forms.iter().any(|f| p.starts_with(f)))
            .map(|(e, _)| *e)
    };
    let mut entries: Vec<&String> = Vec::new();
    for p in named {
        if p.contains('\0') {
            return None;
        }
        let r = paths.resolve(p);
        let e = covered(&r)?;
        // Where it really is must be covered too (a symlink out of the folder).
        if let Some(real) = paths.real(&r) {
            covered(&real)?;
        }
        if !entries.contains(&e) {
            entries.push(e);
        }
    }
    Some(format!(
        "path {}",
        entries
            .iter()
            .map(|e| e.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(toml: &str) -> Result<AllowList, String> {
        let doc: toml_edit::DocumentMut = toml.parse().unwrap();
        AllowList::from_toml(doc.get("allow").unwrap())
    }

    #[test]
    fn entries_are_checked() {
        let l = list(
            "[allow]\nhosts = [\"API.github.com\", \"*.example.com\"]\ncommands = [\"git  push\"]\npaths = [\"~/notes\", \"/srv/app/\"]",
        )
        .unwrap();
        assert_eq!(l.hosts, vec!["api.github.com", "*.example.com"]);
        assert_eq!(
            l.commands,
            vec![vec!["git".to_string(), "push".to_string()]]
        );
        assert_eq!(l.paths, vec!["~/notes", "/srv/app/"]);
        for bad in [
            "[allow]\nhosts = [\"*.com\"]",
            "[allow]\nhosts = [\"*\"]",
            "[allow]\nhosts = [\"a*.example.com\"]",
            "[allow]\nhosts = [\"exa mple.com\"]",
            "[allow]\nhosts = \"x.com\"",
            "[allow]\nhosts = [3]",
            "[allow]\ncommands = [\"git push; rm -rf /\"]",
            "[allow]\ncommands = [\"  \"]",
            "[allow]\ncommands = [\"echo $HOME\"]",
            "[allow]\npaths = [\"relative/dir\"]",
            "[allow]\npaths = [\"/\"]",
            "[allow]\npaths = [\"~\"]",
            "[allow]\nhost = [\"x.com\"]",
            "allow = 3",
        ] {
            let doc: toml_edit::DocumentMut = bad.parse().unwrap();
            assert!(
                AllowList::from_toml(doc.get("allow").unwrap()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn host_patterns() {
        assert!(host_matches("api.github.com", "api.github.com"));
        assert!(!host_matches("api.github.com", "xapi.github.com"));
        assert!(host_matches("*.example.com", "a.example.com"));
        assert!(host_matches("*.example.com", "a.b.example.com"));
        assert!(!host_matches("*.example.com", "example.com"));
        assert!(!host_matches("*.example.com", "badexample.com"));
        assert!(!host_matches("*.example.com", "example.com.evil.invalid"));
    }

    #[test]
    fn every_url_host_is_read() {
        assert_eq!(
            url_hosts("curl http://evil.com/https://api.github.com x"),
            Some(vec!["evil.com".to_string(), "api.github.com".to_string()])
        );
        assert_eq!(
            url_hosts("https://u:p@API.GitHub.com.:443/x?y#z"),
            Some(vec!["api.github.com".to_string()])
        );
        assert_eq!(
            url_hosts("https://api.github.com@evil.com/"),
            Some(vec!["evil.com".to_string()])
        );
        assert_eq!(url_hosts("no url here"), Some(vec![]));
        for unparsable in [
            "http://[::1]/",
            "file:///etc/passwd",
            "http://api.github.com\\@evil.com/",
            "http://a%2eb/",
            "http://a..b/",
            "http://x'y/",
        ] {
            assert_eq!(url_hosts(unparsable), None, "{unparsable}");
        }
        // Numbers and single labels parse, and match no entry with two labels.
        assert_eq!(
            url_hosts("http://16843009/"),
            Some(vec!["16843009".to_string()])
        );
    }

    #[test]
    fn path_entries_may_not_cover_the_disk_or_the_home() {
        let home = Some(Path::new("/home/dev"));
        for bad in [
            "/",
            "/.",
            "/..",
            "//",
            "/tmp/../",
            "/tmp/..",
            "~/..",
            "~/.",
            "~/",
            "~/a/../..",
            "/home",
            "/home/dev",
            "/home/dev/",
            "/home/./dev",
            "~/../..",
            "rel",
            "~user/x",
        ] {
            assert!(!path_entry_ok(bad, home), "{bad}");
        }
        for good in [
            "/srv/app",
            "~/notes",
            "/home/dev/notes",
            "~/a/../b",
            "/home/other",
        ] {
            assert!(path_entry_ok(good, home), "{good}");
        }
        // Without a home, `~/` entries must stay below it.
        assert!(!path_entry_ok("~/..", None));
        assert!(!path_entry_ok("~/a/..", None));
        assert!(path_entry_ok("~/a", None));
        // A symlink to the root is the root.
        let tmp = tempfile::tempdir().unwrap();
        let link = tmp.path().join("root");
        std::os::unix::fs::symlink("/", &link).unwrap();
        assert!(!path_entry_ok(link.to_str().unwrap(), home));
    }
}
