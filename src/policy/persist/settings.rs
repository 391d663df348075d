//! Package-manager and tool settings that steer later commands: `pip config set`, `npm|pnpm
//! config set`, `yarn config set`, `gem sources --add`, `conda config --add|--set`, `poetry
//! source add`/`poetry config`, `bundle config`, `go env -w`, and the files they write
//! (`.npmrc`, `.yarnrc(.yml)`, `pip.conf`/`pip.ini`, `.pypirc`, `.condarc`, `.gemrc`, poetry's
//! `config.toml`/`poetry.toml`, `uv.toml`, `bunfig.toml`, go's `env` file, docker's
//! `config.json`).
//!
//! One table per tool names, by key, what a setting does (keys are compared lower-case with
//! `-` and `_` removed, segment by segment after splitting on `.`, `:` and `/`):
//! - **runs**: the value is a program the tool runs later (npm's `script-shell`,
//!   `node-options`, `yarnPath`, go's `CC`/`GOFLAGS`/`GOTOOLCHAIN`, docker's `credsStore`):
//!   T1546 (event-triggered execution), npm-config(7), `go help environment`;
//! - **source**: the value chooses where packages come from or whether they are verified
//!   (`registry`, `index-url`, `channels`, `GOPROXY`, `GONOSUMDB`, `strict-ssl`, a poetry
//!   repository): every later install fetches from the attacker's host, T1195.002 (supply chain
//!   compromise);
//! - **benign**: known to do neither (`init-author-name`, `global.timeout`,
//!   `virtualenvs.in-project`);
//! - anything else is **unknown**: asked about in an exposed session only (what cannot be
//!   analysed is not harmless, but a clean session setting a preference is everyday work).
//!
//! Reads (`get`, `list`, `show`), removals (`unset`, `delete`, `--remove`) say nothing.

use crate::shell::SimpleCommand;

/// What a setting does, strongest last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Effect {
    /// A key the table does not know (or text that cannot be read): asked when exposed.
    Unknown,
    /// Where packages come from, or whether they are verified.
    Source,
    /// A program the tool runs later.
    Runs,
}

/// One tool's keys, normalised (lower-case, `-` and `_` removed).
struct Keys {
    runs: &'static [&'static str],
    source: &'static [&'static str],
    benign: &'static [&'static str],
}

/// npm, pnpm, yarn (classic and berry) and bun (npm-config(7), pnpm's `.npmrc` settings,
/// yarnrc.yml reference).
const NPM: Keys = Keys {
    runs: &[
        "scriptshell",
        "shell",
        "nodeoptions",
        "initmodule",
        "git",
        "editor",
        "browser",
        "viewer",
        "onloadscript",
        "yarnpath",
        "nodegyp",
        "shellemulator",
        "plugins",
        "injectenvironmentfiles",
    ],
    source: &[
        "registry",
        "npmregistryserver",
        "npmpublishregistry",
        "npmscopes",
        "unsafehttpwhitelist",
        "proxy",
        "httpproxy",
        "httpsproxy",
        "strictssl",
        "enablestrictssl",
        "cafile",
        "cafilepath",
        "ca",
        "cert",
        "globalconfig",
        "userconfig",
        "replaceregistryhost",
        "registries",
    ],
    benign: &[
        "initauthorname",
        "initauthoremail",
        "initauthorurl",
        "initlicense",
        "initversion",
        "saveexact",
        "saveprefix",
        "save",
        "fund",
        "audit",
        "auditlevel",
        "loglevel",
        "progress",
        "color",
        "enginestrict",
        "packagelock",
        "updatenotifier",
        "legacypeerdeps",
        "strictpeerdeps",
        "autoinstallpeers",
        "fetchretries",
        "fetchretrymintimeout",
        "fetchretrymaxtimeout",
        "fetchtimeout",
        "maxsockets",
        "cache",
        "prefix",
        "signgittag",
        "message",
        "tagversionprefix",
        "preferoffline",
        "preferonline",
        "offline",
        "enabletelemetry",
        "nodelinker",
        "enableglobalcache",
        "enableimmutableinstalls",
        "enableprogressbars",
        "enablecolors",
        "lockfile",
        "storedir",
        "virtualstoredir",
        "unicode",
        "sharedworkspacelockfile",
        "linkworkspacepackages",
        "savefreeze",
        "jsonindent",
    ],
};

/// pip (`pip config`, pip.conf) and uv (`uv.toml`), and `.pypirc` (where `twine upload`
/// sends): pip's configuration documentation, uv's settings reference.
const PIP: Keys = Keys {
    runs: &[],
    source: &[
        "indexurl",
        "extraindexurl",
        "findlinks",
        "trustedhost",
        "proxy",
        "cert",
        "clientcert",
        "index",
        "repository",
        "indexservers",
        "allowinsecurehost",
        "pythoninstallmirror",
        "pypyinstallmirror",
    ],
    benign: &[
        "timeout",
        "retries",
        "disablepipversioncheck",
        "nocachedir",
        "cachedir",
        "progressbar",
        "quiet",
        "verbose",
        "requirevirtualenv",
        "preferbinary",
        "nocolor",
        "rootuseraction",
        "onlybinary",
        "nobinary",
        "upgradestrategy",
        "nowarnscriptlocation",
        "noinput",
        "existsaction",
        "formats",
        "format",
        "username",
        "native-tls",
        "nativetls",
    ],
};

/// conda, mamba and micromamba (`conda config --describe`).
const CONDA: Keys = Keys {
    runs: &[],
    source: &[
        "channels",
        "channelalias",
        "defaultchannels",
        "customchannels",
        "custommultichannels",
        "migratedcustomchannels",
        "allowlistchannels",
        "whitelistchannels",
        "proxyservers",
        "sslverify",
        "mirroredchannels",
    ],
    benign: &[
        "autoactivatebase",
        "autoactivate",
        "changeps1",
        "alwaysyes",
        "showchannelurls",
        "envsdirs",
        "pkgsdirs",
        "reporterrors",
        "autoupdateconda",
        "notifyoutdatedconda",
        "solver",
        "envprompt",
        "pipinteropenabled",
        "channelpriority",
    ],
};

/// poetry (`poetry config --list`, poetry's repositories documentation).
const POETRY: Keys = Keys {
    runs: &[],
    source: &["repositories", "certificates", "source"],
    benign: &[
        "create",
        "inproject",
        "path",
        "preferactivepython",
        "usepoetrypython",
        "parallel",
        "maxworkers",
        "cachedir",
        "systemsitepackages",
        "alwayscopy",
        "nopip",
        "nosetuptools",
        "promptversion",
        "maxretries",
        "lazywheel",
    ],
};

/// RubyGems and Bundler (`gem help sources`, bundle-config(1)).
const RUBY: Keys = Keys {
    runs: &[],
    source: &["mirror", "sources", "source"],
    benign: &[
        "path",
        "without",
        "with",
        "jobs",
        "retry",
        "deployment",
        "frozen",
        "clean",
        "cachepath",
        "silencerootwarning",
        "disablesharedgems",
        "gem",
        "benchmark",
        "verbose",
        "backtrace",
        "updatesources",
        "bulkthreshold",
    ],
};

/// Go (`go help environment`: the variables `go env -w` keeps in go's env file).
const GO: Keys = Keys {
    runs: &[
        "cc",
        "cxx",
        "fc",
        "ar",
        "goflags",
        "gotoolchain",
        "pkgconfig",
        "gccgo",
        "cgocflags",
        "cgocppflags",
        "cgocxxflags",
        "cgoldflags",
        "cgofflags",
    ],
    source: &[
        "goproxy",
        "gosumdb",
        "gonosumdb",
        "gonosumcheck",
        "goinsecure",
        "goprivate",
        "gonoproxy",
        "govcs",
        "goauth",
    ],
    benign: &[
        "go111module",
        "gopath",
        "gobin",
        "gocache",
        "gomodcache",
        "cgoenabled",
        "goos",
        "goarch",
        "goamd64",
        "goarm",
        "gotmpdir",
        "gotelemetry",
        "gowork",
        "godebug",
    ],
};

/// Docker's client configuration (`config.json`): credential helpers are programs.
const DOCKER: Keys = Keys {
    runs: &["credsstore", "credhelpers"],
    source: &["proxies", "httpproxy", "httpsproxy"],
    benign: &[
        "auths",
        "auth",
        "detachkeys",
        "psformat",
        "imagesformat",
        "currentcontext",
        "features",
    ],
};

/// A key, normalised per segment (lower-case, `-`/`_` removed, quotes and a leading `:` or
/// `$` dropped).
fn segments(key: &str) -> Vec<String> {
    key.split(['.', ':', '/', '[', ']'])
        .map(|s| {
            s.chars()
                .filter(|c| !matches!(c, '-' | '_' | '"' | '\'' | '$' | ' '))
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// What setting `key` does by `keys`; `None` for a benign key.
fn classify(keys: &Keys, key: &str) -> Option<Effect> {
    let key = key.trim();
    // npm's per-registry credentials (`//registry.example/:_authToken`) are not a source.
    if key.starts_with("//") {
        return Some(Effect::Unknown);
    }
    let segs = segments(key);
    let mut found: Option<Effect> = None;
    for s in &segs {
        if keys.runs.contains(&s.as_str()) {
            return Some(Effect::Runs);
        }
        if keys.source.contains(&s.as_str()) {
            found = Some(Effect::Source);
        }
    }
    if found.is_some() {
        return found;
    }
    match segs.last() {
        Some(last) if keys.benign.contains(&last.as_str()) => None,
        _ => Some(Effect::Unknown),
    }
}

/// The package sources every user of a tool starts with (the tools' own defaults): setting a
/// source key back to one of them changes nothing an attacker controls.
const OFFICIAL: crate::strtab::StrTable = crate::str_table![
    "registry.npmjs.org",
    "registry.yarnpkg.com",
    "pypi.org",
    "files.pythonhosted.org",
    "upload.pypi.org",
    "rubygems.org",
    "proxy.golang.org",
    "sum.golang.org",
    "repo.anaconda.com",
    "conda.anaconda.org",
    "conda-forge",
    "defaults",
    "bioconda",
    "direct",
];

/// True when every comma- or blank-separated part of `value` is an official source
/// ([`OFFICIAL`]): a URL whose host is one, the host itself or a conda channel name.
fn official(value: &str) -> bool {
    let mut parts = value
        .split([',', ' ', '|'])
        .map(|p| p.trim_matches(['"', '\'', ' ']))
        .filter(|p| !p.is_empty())
        .peekable();
    parts.peek().is_some()
        && parts.take(16).all(|p| {
            let p = p.to_ascii_lowercase();
            let rest = p
                .strip_prefix("https://")
                .or_else(|| p.strip_prefix("http://"))
                .unwrap_or(&p);
            let host = rest.split(['/', ':']).next().unwrap_or(rest);
            let https_or_bare = !p.starts_with("http://");
            https_or_bare && OFFICIAL.contains(host)
        })
}

/// What setting `key` to `value` does: [`classify`], except that a source set to an official
/// one ([`official`]) is benign.
fn classify_value(keys: &Keys, key: &str, value: Option<&str>) -> Option<Effect> {
    match classify(keys, key) {
        Some(Effect::Source) if value.is_some_and(official) => None,
        e => e,
    }
}

/// The strongest effect of several keys and values; `None` when every one is benign.
fn strongest<'a>(
    keys: &Keys,
    pairs: impl Iterator<Item = (&'a str, Option<&'a str>)>,
) -> Option<Effect> {
    pairs.filter_map(|(k, v)| classify_value(keys, k, v)).max()
}

/// The operands of `args` after the options, given the long options that take the next word
/// (`--location global`) and the short ones that do.
fn operands<'a>(args: &'a [String], long_vals: &[&str], short_vals: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(w) = it.next() {
        if w == "--" {
            out.extend(it.by_ref().map(String::as_str));
            break;
        }
        if let Some(l) = w.strip_prefix("--") {
            if !l.contains('=') && long_vals.contains(&l) {
                it.next();
            }
        } else if w.starts_with('-') && w.len() > 1 {
            if short_vals.contains(&w.as_str()) {
                it.next();
            }
        } else {
            out.push(w.as_str());
        }
    }
    out
}

/// `KEY VALUE` pairs or `KEY=VALUE` words after a `set`: the keys with their values.
fn set_pairs<'a>(ops: &[&'a str]) -> Vec<(&'a str, Option<&'a str>)> {
    let mut pairs = Vec::new();
    let mut i = 0;
    while i < ops.len() {
        match ops[i].split_once('=') {
            Some((k, v)) if !k.is_empty() => {
                pairs.push((k, Some(v)));
                i += 1;
            }
            _ => {
                pairs.push((ops[i], ops.get(i + 1).copied()));
                i += 2;
            }
        }
    }
    pairs
}

/// `tool KEY…` for messages.
fn describe(p: &str, pairs: &[(&str, Option<&str>)]) -> String {
    let keys: Vec<&str> = pairs.iter().map(|(k, _)| *k).take(8).collect();
    format!("{p} {}", keys.join(" "))
}

/// True for `pip`, `pip3`, `pip3.12`, and `python -m pip`.
fn is_pip(c: &SimpleCommand) -> Option<&[String]> {
    let p = c.program.as_str();
    if p == "pip"
        || p.strip_prefix("pip3")
            .is_some_and(|r| r.is_empty() || r.starts_with('.'))
    {
        return Some(&c.args);
    }
    let python = p == "py"
        || p.strip_prefix("python")
            .is_some_and(|r| r.chars().all(|ch| ch.is_ascii_digit() || ch == '.'));
    if python {
        let i = c.args.iter().position(|w| w == "-m")?;
        if c.args.get(i + 1).map(String::as_str) == Some("pip") {
            return Some(&c.args[i + 2..]);
        }
    }
    None
}

/// The setting a command changes, with what it does and a short description of it; `None`
/// for a read, a removal, a benign key or another command.
pub fn command(c: &SimpleCommand) -> Option<(Effect, String)> {
    let p = c.program.as_str();
    if let Some(args) = is_pip(c) {
        let ops = operands(
            args,
            &["editor", "log", "proxy", "cert", "client-cert"],
            &[],
        );
        if ops.first() != Some(&"config") {
            return None;
        }
        return match ops.get(1).copied() {
            Some("set") => {
                let k = ops.get(2)?;
                classify_value(&PIP, k, ops.get(3).copied())
                    .map(|e| (e, format!("pip config set {k}")))
            }
            Some("edit") => Some((Effect::Unknown, "pip config edit".into())),
            _ => None,
        };
    }
    match p {
        "npm" | "pnpm" | "yarn" | "bun" => {
            let ops = operands(
                &c.args,
                &[
                    "location",
                    "userconfig",
                    "globalconfig",
                    "prefix",
                    "workspace",
                    "dir",
                    "cwd",
                ],
                &["-C", "-w"],
            );
            let rest: &[&str] = match ops.as_slice() {
                ["config" | "c", "set", rest @ ..] | ["set", rest @ ..] => rest,
                ["config" | "c", "edit", ..] | ["edit-config"] => {
                    return Some((Effect::Unknown, format!("{p} config edit")))
                }
                _ => return None,
            };
            let pairs = set_pairs(rest);
            strongest(&NPM, pairs.iter().copied()).map(|e| (e, describe(p, &pairs)))
        }
        "gem" => {
            let ops = operands(&c.args, &[], &[]);
            if ops.first() != Some(&"sources") {
                return None;
            }
            let mut it = c.args.iter();
            let mut out = None;
            while let Some(w) = it.next() {
                let (flag, inline) = match w.split_once('=') {
                    Some((f, v)) => (f, Some(v)),
                    None => (w.as_str(), None),
                };
                if matches!(flag, "-a" | "--add" | "--append" | "--prepend") {
                    let v = inline.or_else(|| it.next().map(String::as_str));
                    if !v.is_some_and(official) {
                        out = Some((Effect::Source, "gem sources --add".to_string()));
                    }
                }
            }
            out
        }
        "conda" | "mamba" | "micromamba" => {
            let ops = operands(
                &c.args,
                &["file", "env", "name", "prefix"],
                &["-f", "-n", "-p"],
            );
            if ops.first() != Some(&"config") {
                return None;
            }
            let mut pairs = Vec::new();
            let mut it = c.args.iter();
            while let Some(w) = it.next() {
                let (flag, inline) = match w.split_once('=') {
                    Some((f, v)) => (f, Some(v)),
                    None => (w.as_str(), None),
                };
                if matches!(flag, "--add" | "--append" | "--prepend" | "--set") {
                    if let Some(k) = inline.or_else(|| it.next().map(String::as_str)) {
                        pairs.push((k, it.next().map(String::as_str)));
                    }
                }
            }
            strongest(&CONDA, pairs.iter().copied()).map(|e| (e, describe(p, &pairs)))
        }
        "poetry" => {
            let ops = operands(
                &c.args,
                &["priority", "directory", "project", "source"],
                &["-C", "-P"],
            );
            match ops.as_slice() {
                ["source", "add", rest @ ..] => (!rest.get(1).is_some_and(|u| official(u)))
                    .then(|| (Effect::Source, "poetry source add".into())),
                ["config", key, value, ..] if !c.args.iter().any(|w| w == "--unset") => {
                    classify_value(&POETRY, key, Some(value))
                        .map(|e| (e, format!("poetry config {key}")))
                }
                _ => None,
            }
        }
        "bundle" | "bundler" => {
            let ops = operands(&c.args, &[], &[]);
            let rest: &[&str] = match ops.as_slice() {
                ["config", "set", rest @ ..] => rest,
                ["config", "get" | "unset", ..] => return None,
                ["config", rest @ ..] if rest.len() >= 2 => rest,
                _ => return None,
            };
            let k = rest.first()?;
            classify_value(&RUBY, k, rest.get(1).copied())
                .map(|e| (e, format!("bundle config {k}")))
        }
        "go" => {
            let ops = operands(&c.args, &[], &[]);
            if ops.first() != Some(&"env") || !c.args.iter().any(|w| w == "-w") {
                return None;
            }
            let pairs: Vec<(&str, Option<&str>)> = ops[1..]
                .iter()
                .filter_map(|w| w.split_once('=').map(|(k, v)| (k, Some(v))))
                .collect();
            strongest(&GO, pairs.iter().copied()).map(|e| (e, describe(p, &pairs)))
        }
        "add-apt-repository" | "apt-add-repository" => {
            let removes = c
                .args
                .iter()
                .any(|w| matches!(w.as_str(), "-r" | "--remove"));
            (!removes).then(|| (Effect::Source, p.to_string()))
        }
        _ => None,
    }
}

/// The settings table of a configuration file by its path, if it is one. Every file of the
/// table writes its keys one a line (`key=value`, `key = value`, `key: value`, `key "value"`,
/// `[section]`, `"key": value`).
fn file_keys(path: &str) -> Option<&'static Keys> {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let parent = lower.rsplit('/').nth(1).unwrap_or("");
    let keys: &'static Keys = match name {
        ".npmrc" | "npmrc" | ".yarnrc" | ".yarnrc.yml" | "bunfig.toml" | ".bunfig.toml"
        | ".pnpmrc" => &NPM,
        "pip.conf" | "pip.ini" | ".pypirc" | "uv.toml" => &PIP,
        ".condarc" | "condarc" | ".mambarc" => &CONDA,
        "poetry.toml" => &POETRY,
        "config.toml" if parent == "pypoetry" => &POETRY,
        ".gemrc" | "gemrc" => &RUBY,
        "env" if parent == "go" => &GO,
        "config.json" if parent == ".docker" => &DOCKER,
        _ => return None,
    };
    Some(keys)
}

/// True when `path` is a package-manager or tool configuration file of the table.
pub fn is_config_file(path: &str) -> bool {
    file_keys(path).is_some()
}

/// The key a configuration line sets, if any: the text before `=`, `:` or a blank, a TOML or
/// INI `[section]` name, a JSON `"key":`; comments and list items set none.
fn line_key(line: &str) -> Option<&str> {
    let t = line.trim();
    if t.is_empty()
        || t.starts_with(['#', ';', '-', '{', '}', ']'])
        || (t.starts_with("//") && !t.contains('='))
    {
        return None;
    }
    if let Some(sec) = t.strip_prefix('[') {
        return Some(sec.trim_start_matches('[').split(']').next().unwrap_or(sec));
    }
    if let Some(q) = t.strip_prefix('"') {
        return q.split('"').next();
    }
    if t.starts_with("//") {
        return t.split('=').next();
    }
    t.split(['=', ' ', '\t'])
        .next()
        .map(|k| k.trim_end_matches(':'))
        .filter(|k| !k.is_empty())
        .or(Some(t))
}

/// What a write of `text` (replacing `before`) into the configuration file `path` does;
/// `None` when `path` is not one or every changed line is benign. `text` `None` (a shell
/// write whose text cannot be read from the call) is [`Effect::Unknown`] unless `line`, the
/// whole command line, names a key that runs or chooses a source.
pub fn file(path: &str, text: Option<&str>, before: &str, line: &str) -> Option<Effect> {
    let keys = file_keys(path)?;
    let Some(text) = text else {
        // The command line holds whatever literal text it writes: its words stand for keys.
        let line = line.replace("\\n", " ").replace("\\t", " ");
        let words = line
            .split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '\\' | ';' | '>' | '|'))
            .take(10_000)
            .filter_map(|w| {
                let k = w.split('=').next().unwrap_or(w);
                classify(keys, k).filter(|e| *e > Effect::Unknown)
            })
            .max();
        return Some(words.unwrap_or(Effect::Unknown));
    };
    let changed = |l: &str| !before.lines().any(|b| b.trim() == l.trim());
    let mut out: Option<Effect> = None;
    for l in text.lines().take(10_000) {
        if !changed(l) {
            continue;
        }
        let e = match line_key(l) {
            // A section header (`[global]`) counts only when it names a source (`[repositories.x]`).
            Some(k) if l.trim_start().starts_with('[') => {
                classify(keys, k).filter(|e| *e > Effect::Unknown)
            }
            Some(k) => classify(keys, k),
            // A list item or an unreadable line changes something under a key not shown.
            None if l.trim().starts_with('-') => Some(Effect::Unknown),
            None => None,
        };
        out = out.max(e);
    }
    out
}

#[cfg(test)]
mod tests;
