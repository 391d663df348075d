//! Interpreters' inline code (`python3 -c CODE`, `node -e CODE`, `perl -e`, `ruby -e`,
//! `php -r`, `deno eval`, `bun -e`, `osascript -e`, `pwsh -c`, and scripts fed to them on
//! stdin or in a here-document): what the code does, read from its tokens, not run.
//!
//! A small tokenizer per language family drops comments and reads string literals; the facts
//! ([`InlineFacts`]) are found on the code with its literals blanked (so a word inside a string
//! is not a call), plus the literals themselves (module names, paths, URLs). No regex, no
//! backtracking: every step is linear in the code, which is bounded ([`MAX_CODE`]).
//!
//! The policy (`crate::policy::shell_effects`) turns the facts into verdicts: network plus a
//! secret read or an environment read is secret egress; a process spawned from a computed or
//! decoded string, or `eval`/`exec` of computed text, is code that cannot be seen before it
//! runs. Literal strings the code decodes (`''.join(map(chr,[…]))`, `b64decode('…')`,
//! `String.fromCharCode(…)`, `bytes.fromhex('…')`) are decoded here so the command they
//! spell is analysed like any other ([`decoded_constants`]). Also here: text transformed in a
//! pipeline before a shell runs it (`echo … | base64 -d | sh`, `| rev | sh`, `| tr … | bash`,
//! [`Analysis::transformed_feeds`]) and fork bombs ([`fork_bomb`]).

use super::command::SimpleCommand;
use super::Analysis;

/// Longest inline program read (bytes); the rest is ignored (and the facts say so).
pub const MAX_CODE: usize = 64 * 1024;
/// Most tokens read from one program.
const MAX_TOKENS: usize = 20_000;
/// Most decoded strings kept from one program or pipeline.
const MAX_DECODED: usize = 8;
/// Longest decoded string kept (bytes).
const MAX_DECODED_LEN: usize = 16 * 1024;

/// True for a POSIX-style shell program (`sh`, `bash`, `zsh`, `dash`, `ksh`, `ash`, `fish`).
pub fn is_shell(program: &str) -> bool {
    super::programs::SHELLS.contains(program)
}

/// The language family of an interpreter, for its comment and string syntax.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// Python: `#` comments, `'…'`, `"…"`, triple-quoted strings.
    Python,
    /// JavaScript/TypeScript (node, deno, bun): `//` and `/* */` comments, template strings.
    Js,
    /// Perl: `#` comments, backquotes run a command.
    Perl,
    /// Ruby: `#` comments, backquotes run a command.
    Ruby,
    /// PHP: `//`, `#` and `/* */` comments, backquotes run a command.
    Php,
    /// AppleScript (osascript): `--` and `(* *)` comments.
    AppleScript,
    /// PowerShell: `#` and `<# #>` comments.
    PowerShell,
}

/// One interpreter call with inline code: the language and the code (several `-e` pieces and a
/// fed script are joined by newlines), bounded by `MAX_CODE` (64 KiB).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineCode {
    /// The language family.
    pub lang: Lang,
    /// The program text.
    pub code: String,
}

/// What a piece of inline code does, as far as its tokens show.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InlineFacts {
    /// Reaches the network (an HTTP client, a socket, `fetch(`, `Invoke-WebRequest`...);
    /// the marker found.
    pub network: Option<String>,
    /// Starts a process (`os.system`, `subprocess`, `child_process`, `system(`, backquotes,
    /// `shell_exec`...); the marker found.
    pub spawn: Option<String>,
    /// Reads the environment (`os.environ`, `process.env`, `%ENV`, `getenv`...).
    pub env_read: Option<String>,
    /// Literal paths the code names that [`super::is_secret_path`] calls secret.
    pub secret_paths: Vec<String>,
    /// Literal paths the code writes (`open(P, 'w')`, `writeFileSync(P`, `File.write(P`,
    /// `file_put_contents(P`, `Set-Content P`...).
    pub writes: Vec<String>,
    /// Runs text built at run time (`eval`/`exec`/`compile`/`Function(`/`__import__` of a
    /// non-literal, decoding then running, `Invoke-Expression`); the marker found.
    pub dynamic: Option<String>,
    /// Forks in a loop (`while 1: os.fork()`, `fork while fork`).
    pub fork_loop: bool,
    /// Strings the code spells in a decodable way (character codes, base64, hex, reversed
    /// literals), decoded.
    pub decoded: Vec<String>,
    /// True when the code was longer than `MAX_CODE` or had too many tokens.
    pub truncated: bool,
}

/// A token of inline code: a name (with `.`, `::`, `$`, `%`, `@` and `-` kept inside, lower
/// case), a string literal's contents, a number, or one punctuation character.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Name(String),
    Str(String, char),
    Punct(char),
}

/// The language of an interpreter program name (`python3.12`, `node`, `pwsh`...).
pub fn lang_of(program: &str) -> Option<Lang> {
    // Every interpreter name starts with one of these letters: anything else is rejected
    // before any comparison (no allocation: this runs for every command, several times).
    let first = program.as_bytes().first().map(u8::to_ascii_lowercase);
    if !matches!(
        first,
        Some(b'p' | b'j' | b'n' | b'd' | b'b' | b't' | b'r' | b'i' | b'o')
    ) {
        return None;
    }
    // `.exe` suffixes (any case, repeated) do not count.
    let mut p = program;
    while let Some(cut) = p.len().checked_sub(4) {
        match p.get(cut..) {
            Some(tail) if tail.eq_ignore_ascii_case(".exe") => p = &p[..cut],
            _ => break,
        }
    }
    let is = |name: &str| p.eq_ignore_ascii_case(name);
    let starts_python = p
        .get(..6)
        .is_some_and(|head| head.eq_ignore_ascii_case("python"));
    if starts_python || is("pypy") || is("pypy3") || is("jython") {
        return Some(Lang::Python);
    }
    const NAMES: &[(&str, Lang)] = &[
        ("node", Lang::Js),
        ("nodejs", Lang::Js),
        ("deno", Lang::Js),
        ("bun", Lang::Js),
        ("tsx", Lang::Js),
        ("ts-node", Lang::Js),
        ("perl", Lang::Perl),
        ("perl5", Lang::Perl),
        ("ruby", Lang::Ruby),
        ("irb", Lang::Ruby),
        ("jruby", Lang::Ruby),
        ("php", Lang::Php),
        ("php-cli", Lang::Php),
        ("osascript", Lang::AppleScript),
        ("pwsh", Lang::PowerShell),
        ("powershell", Lang::PowerShell),
    ];
    NAMES.iter().find(|(n, _)| is(n)).map(|(_, l)| *l)
}

impl SimpleCommand {
    /// The inline code this command runs given as an argument (`-c`, `-e`, `-p`, `--eval`,
    /// `-r`, `-Command`, `deno eval`) or fed as a here-document/here-string; `None` when it is
    /// not an interpreter or has none.
    pub fn inline_code(&self) -> Option<InlineCode> {
        let lang = lang_of(&self.program)?;
        let mut code = String::new();
        let mut push = |s: &str| {
            if code.len() < MAX_CODE {
                if !code.is_empty() {
                    code.push('\n');
                }
                code.push_str(s);
            }
        };
        let args = &self.args;
        let mut i = 0;
        while let Some(a) = args.get(i) {
            i += 1;
            let takes = match lang {
                Lang::Python => {
                    a == "-c"
                        || (a.starts_with('-')
                            && !a.starts_with("--")
                            && a.ends_with('c')
                            && a[1..].chars().all(|c| c.is_ascii_alphabetic()))
                }
                Lang::Js => {
                    if let Some(v) = a
                        .strip_prefix("--eval=")
                        .or_else(|| a.strip_prefix("--print="))
                    {
                        push(v);
                        continue;
                    }
                    matches!(a.as_str(), "-e" | "-p" | "--eval" | "--print" | "-pe")
                        || (self.program == "deno" && a == "eval" && i == 1)
                }
                Lang::Perl | Lang::Ruby => {
                    a.starts_with('-')
                        && !a.starts_with("--")
                        && (a.ends_with('e') || a.ends_with('E'))
                        && a[1..].chars().all(|c| c.is_ascii_alphabetic())
                }
                Lang::Php => a == "-r" || a == "--run",
                Lang::AppleScript => a == "-e",
                Lang::PowerShell => {
                    let l = a.to_ascii_lowercase();
                    let l = l.trim_start_matches('-').trim_start_matches('/');
                    if !a.starts_with('-') && !a.starts_with('/') {
                        // `pwsh 'Get-Item x'`: the first operand is a script file or command.
                        false
                    } else if matches!(
                        l,
                        "encodedcommand"
                            | "enc"
                            | "e"
                            | "ec"
                            | "en"
                            | "encoded"
                            | "encod"
                            | "encodedcom"
                    ) {
                        if let Some(v) = args.get(i) {
                            i += 1;
                            match decode_utf16_base64(v) {
                                Some(t) => push(&t),
                                None => push("Invoke-Expression $unknown"),
                            }
                        }
                        continue;
                    } else {
                        matches!(l, "c" | "command" | "com" | "comm" | "comma" | "comman")
                    }
                }
            };
            if takes {
                if let Some(v) = args.get(i) {
                    push(v);
                    i += 1;
                    if matches!(lang, Lang::PowerShell) {
                        // `-Command` takes the rest of the line.
                        for rest in &args[i..] {
                            push(rest);
                        }
                        break;
                    }
                }
            }
        }
        if let Some(h) = &self.heredoc {
            push(h);
        }
        (!code.is_empty()).then_some(InlineCode { lang, code })
    }

    /// What this command's inline code does ([`SimpleCommand::inline_code`]); `None` when it
    /// has none.
    pub fn inline_facts(&self) -> Option<InlineFacts> {
        self.inline_code().map(|c| facts(&c))
    }

    /// True when this command is an interpreter whose inline code reaches the network (an
    /// HTTP client, a socket, `fetch(`...). The hook for `is_network` in `classify.rs`.
    pub fn inline_network(&self) -> bool {
        self.inline_facts().is_some_and(|f| f.network.is_some())
    }
}

impl Analysis {
    /// Every interpreter call with inline code in the line, nested ones included, with the
    /// code: its `-c`/`-e` argument, its here-document, or the literal text the command
    /// before it in a pipeline prints (`echo CODE | python3`, `cat <<EOF | node`).
    pub fn inline_programs(&self) -> Vec<(&SimpleCommand, InlineCode)> {
        let mut out = Vec::new();
        for p in &self.pipelines {
            for (k, c) in p.iter().enumerate() {
                let Some(lang) = lang_of(&c.program) else {
                    continue;
                };
                let own = c.inline_code();
                // Stdin is the program only when no code or script file is given.
                let reads_program = own.is_none()
                    && c.operands()
                        .iter()
                        .all(|o| *o == "-" || o.starts_with("/dev/std"));
                let fed = k
                    .checked_sub(1)
                    .filter(|_| reads_program)
                    .and_then(|j| p.get(j))
                    .and_then(|prev| prev.written_text())
                    .filter(|t| !t.is_empty());
                match (own, fed) {
                    (Some(mut code), Some(f)) => {
                        code.code.push('\n');
                        code.code.push_str(crate::text::cap(&f, MAX_CODE));
                        out.push((c, code));
                    }
                    (Some(code), None) => out.push((c, code)),
                    (None, Some(f)) => out.push((
                        c,
                        InlineCode {
                            lang,
                            code: crate::text::cap(&f, MAX_CODE).to_string(),
                        },
                    )),
                    (None, None) => {}
                }
            }
        }
        for (_, _, n) in &self.nested {
            out.extend(n.inline_programs());
        }
        out
    }
}

/// Recently computed facts: a command's code is asked about several times per call (network,
/// read-only, write targets, the verdicts), and tokenizing it once is enough.
const CACHE_SLOTS: usize = 4;

thread_local! {
    static CACHE: std::cell::RefCell<Vec<(InlineCode, InlineFacts)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The facts of one inline program (cached per thread for the last few programs).
pub fn facts(c: &InlineCode) -> InlineFacts {
    if let Some(hit) = CACHE.with(|k| {
        k.borrow()
            .iter()
            .find(|(code, _)| code == c)
            .map(|(_, f)| f.clone())
    }) {
        return hit;
    }
    let f = compute_facts(c);
    CACHE.with(|k| {
        let mut k = k.borrow_mut();
        if k.len() >= CACHE_SLOTS {
            k.remove(0);
        }
        k.push((c.clone(), f.clone()));
    });
    f
}

fn compute_facts(c: &InlineCode) -> InlineFacts {
    let code = crate::text::cap(&c.code, MAX_CODE);
    let (toks, complete) = tokenize(code, c.lang);
    let mut f = InlineFacts {
        truncated: code.len() < c.code.len() || !complete,
        ..InlineFacts::default()
    };
    // The code as names and punctuation, literals blanked to `""`: markers match here.
    let mut skel = String::with_capacity(code.len().min(MAX_CODE));
    let mut prev_name = false;
    for t in &toks {
        match t {
            Tok::Name(n) => {
                if prev_name {
                    skel.push(' ');
                }
                skel.push_str(n);
                prev_name = true;
            }
            Tok::Str(_, q) => {
                skel.push(if *q == '`' { '`' } else { '"' });
                skel.push(if *q == '`' { '`' } else { '"' });
                prev_name = false;
            }
            Tok::Punct(p) => {
                skel.push(*p);
                prev_name = false;
            }
        }
    }
    let has = |m: &str| contains_marker(&skel, m);
    let lits: Vec<&str> = toks
        .iter()
        .filter_map(|t| match t {
            Tok::Str(s, _) => Some(s.as_str()),
            _ => None,
        })
        .collect();
    // Modules named by a literal: `require('https')`, `import('node:net')`, Ruby's
    // `require 'net/http'`, Python's `__import__('socket')`.
    let modules: Vec<String> = toks
        .windows(3)
        .filter_map(|w| match w {
            [Tok::Name(n), Tok::Punct('('), Tok::Str(s, _)] | [Tok::Name(n), Tok::Str(s, _), _]
                if matches!(
                    n.as_str(),
                    "require"
                        | "import"
                        | "__import__"
                        | "require_relative"
                        | "importlib.import_module"
                ) =>
            {
                Some(s.trim_start_matches("node:").to_ascii_lowercase())
            }
            _ => None,
        })
        .collect();
    f.network = NETWORK_MARKERS
        .iter()
        .find(|m| has(m))
        .map(|m| m.to_string())
        .or_else(|| {
            modules
                .iter()
                .find(|m| NETWORK_MODULES.contains(m.as_str()))
                .cloned()
        })
        .or_else(|| {
            // A URL opened by a file function (`file_get_contents('https://…')`,
            // `open('http://…')` in Perl/Ruby's open-uri, `fopen`).
            let url = lits.iter().any(|s| {
                let l = s.trim_start().to_ascii_lowercase();
                l.starts_with("http://") || l.starts_with("https://") || l.starts_with("ftp://")
            });
            (url && URL_OPENERS.iter().any(&has)).then(|| "a URL opened".to_string())
        });
    let backquote_runs =
        matches!(c.lang, Lang::Perl | Lang::Ruby | Lang::Php) && skel.contains("``");
    f.spawn = SPAWN_MARKERS
        .iter()
        .find(|m| has(m))
        .map(|m| m.to_string())
        .or_else(|| {
            modules
                .iter()
                .find(|m| matches!(m.as_str(), "child_process" | "subprocess" | "open3" | "pty"))
                .cloned()
        })
        .or_else(|| backquote_runs.then(|| "`…`".to_string()))
        .or_else(|| {
            (c.lang == Lang::AppleScript && has("do shell script"))
                .then(|| "do shell script".to_string())
        });
    f.env_read = ENV_MARKERS.iter().find(|m| has(m)).map(|m| m.to_string());
    f.secret_paths = lits
        .iter()
        .map(|s| s.to_string())
        .chain(folded_literals(&toks, c.lang))
        .filter(|s| s.len() <= 4096 && super::is_secret_path(s))
        .take(16)
        .collect();
    if matches!(c.lang, Lang::PowerShell) {
        // PowerShell takes bare words as arguments (`Get-Content .env`).
        f.secret_paths.extend(
            code.split(|ch: char| ch.is_whitespace() || matches!(ch, '(' | ')' | ';' | '|' | ','))
                .map(|w| w.trim_matches(|ch| ch == '"' || ch == '\''))
                .filter(|w| !w.is_empty() && w.len() <= 4096 && super::is_secret_path(w))
                .map(str::to_string)
                .take(16),
        );
    }
    f.writes = literal_writes(&toks, c.lang);
    f.decoded = decoded_constants(&toks);
    let decoder = DECODE_MARKERS.iter().find(|m| has(m));
    f.dynamic = dynamic_run(&toks, c.lang)
        .or_else(|| computed_spawn(&toks))
        .or_else(|| decoder.filter(|_| f.spawn.is_some()).map(|m| m.to_string()));
    f.fork_loop = has("fork") && (has("while") || has("loop") || has("for")) && {
        let forks = skel.matches("fork").count();
        forks >= 2 || has("while") || has("loop")
    };
    f
}

/// True when `skel` holds `m` starting at a name boundary (not inside a longer name).
fn contains_marker(skel: &str, m: &str) -> bool {
    let mut from = 0;
    while let Some(pos) = skel[from..].find(m) {
        let at = from + pos;
        let before = skel[..at].chars().next_back();
        let ok_before = before.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        let last = m.chars().next_back().unwrap_or(' ');
        let after = skel[at + m.len()..].chars().next();
        let ok_after = !(last.is_ascii_alphanumeric() || last == '_')
            || after.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        if ok_before && ok_after {
            return true;
        }
        from = at + m.len().max(1);
        if from >= skel.len() {
            break;
        }
    }
    false
}

/// String literals joined at run time, folded: `".e" + "nv"` (`+`; Perl's and PHP's `.`),
/// adjacent literals (`'~/.ss' 'h/id_rsa'` in Python), and a Python f-string's literal
/// fields (`f"{'.e'}nv"`). Only joins of two or more pieces; at most 64, each at most 4 KiB.
fn folded_literals(toks: &[Tok], lang: Lang) -> Vec<String> {
    let joiner = |t: &Tok| match t {
        Tok::Punct('+') => true,
        Tok::Punct('.') => matches!(lang, Lang::Perl | Lang::Php),
        _ => false,
    };
    let piece = |i: usize| -> Option<String> {
        match toks.get(i) {
            Some(Tok::Str(s, _)) => {
                // The tokenizer drops Python's `f` prefix: a field holding a quoted
                // literal is read as one.
                let fstring =
                    matches!(lang, Lang::Python) && (s.contains("{'") || s.contains("{\""));
                Some(if fstring {
                    fstring_literal(s)
                } else {
                    s.clone()
                })
            }
            _ => None,
        }
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() && out.len() < 64 {
        let Some(first) = piece(i) else {
            i += 1;
            continue;
        };
        let mut text = first;
        let mut parts = 1;
        let mut j = i + 1;
        loop {
            if text.len() > 4096 {
                break;
            }
            if let Some(next) = piece(j) {
                // Python's adjacent literals.
                if matches!(lang, Lang::Python) {
                    text.push_str(&next);
                    parts += 1;
                    j += 1;
                    continue;
                }
                break;
            }
            if toks.get(j).is_some_and(joiner) {
                if let Some(next) = piece(j + 1) {
                    text.push_str(&next);
                    parts += 1;
                    j += 2;
                    continue;
                }
            }
            break;
        }
        let raw_differs = matches!(&toks[i], Tok::Str(raw, _) if *raw != text);
        if parts > 1 || raw_differs {
            out.push(text);
        }
        i = j.max(i + 1);
    }
    out
}

/// A Python f-string's text with its literal fields filled in (`{'.e'}nv` → `.env`); other
/// fields are left as they are.
fn fstring_literal(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let field = after[..close].trim();
        let quoted = field.len() >= 2
            && (field.starts_with('\'') && field.ends_with('\'')
                || field.starts_with('"') && field.ends_with('"'));
        if quoted {
            out.push_str(&field[1..field.len() - 1]);
        } else {
            out.push('{');
            out.push_str(&after[..close]);
            out.push('}');
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Calls and modules that reach the network (matched on lower-case names).
const NETWORK_MARKERS: crate::strtab::StrTable = crate::str_table![
    // Name resolution carries data in the names it asks for.
    "dns.resolve",
    "dns.resolve4",
    "dns.resolve6",
    "dns.resolvetxt",
    "dns.lookup",
    "dns.promises",
    "dns.resolver",
    "getaddrinfo",
    "gethostbyname",
    "gethostbyname_ex",
    "gethostbyaddr",
    "net::dns",
    "resolv",
    // Python
    "urllib",
    "urllib2",
    "urllib3",
    "requests",
    "http.client",
    "httplib",
    "httpx",
    "aiohttp",
    "socket",
    "ftplib",
    "smtplib",
    "telnetlib",
    "xmlrpc",
    "paramiko",
    "pycurl",
    // JavaScript
    "fetch(",
    "http.request",
    "https.request",
    "http.get",
    "https.get",
    "net.connect",
    "net.createconnection",
    "tls.connect",
    "dgram",
    "xmlhttprequest",
    "websocket",
    "axios",
    "deno.connect",
    "deno.connecttls",
    "bun.connect",
    "navigator.sendbeacon",
    // Perl
    "lwp",
    "lwp::useragent",
    "lwp::simple",
    "http::tiny",
    "io::socket",
    "io::socket::inet",
    "net::http",
    "net::ftp",
    "net::smtp",
    "mojo::useragent",
    // Ruby
    "tcpsocket",
    "udpsocket",
    "open-uri",
    "uri.open",
    "httparty",
    "faraday",
    // PHP
    "curl_exec",
    "curl_init",
    "fsockopen",
    "pfsockopen",
    "stream_socket_client",
    "socket_connect",
    // PowerShell
    "invoke-webrequest",
    "invoke-restmethod",
    "iwr",
    "irm",
    "net.webclient",
    "system.net.webclient",
    "system.net.http",
    "system.net.sockets",
    "downloadstring",
    "downloadfile",
    "uploadstring",
    "uploaddata",
    "uploadfile",
    "start-bitstransfer",
    // AppleScript
    "open location",
];

/// Modules named by a literal (`require('https')`) that reach the network.
const NETWORK_MODULES: crate::strtab::StrTable = crate::str_table![
    "dns",
    "dns/promises",
    "dns.resolver",
    "http",
    "https",
    "http2",
    "net",
    "tls",
    "dgram",
    "axios",
    "node-fetch",
    "undici",
    "got",
    "request",
    "ws",
    "socket.io-client",
    "net/http",
    "net/https",
    "open-uri",
    "socket",
    "urllib",
    "urllib.request",
    "requests",
    "http.client",
    "httpx",
];

/// Calls that open a name that may be a URL (`file_get_contents('https://…')`).
const URL_OPENERS: crate::strtab::StrTable = crate::str_table![
    "file_get_contents",
    "fopen",
    "readfile",
    "copy",
    "file",
    "open",
    "urlopen",
    "get",
    "load",
    "getstore",
    "getprint",
];

/// Calls that start a process.
const SPAWN_MARKERS: crate::strtab::StrTable = crate::str_table![
    // Python
    "os.system",
    "os.popen",
    "subprocess",
    "os.execv",
    "os.execvp",
    "os.execve",
    "os.execl",
    "os.execlp",
    "os.spawnv",
    "os.spawnl",
    "os.spawnlp",
    "os.spawnvp",
    "os.posix_spawn",
    "pty.spawn",
    "commands.getoutput",
    // JavaScript
    "child_process",
    "execsync",
    "exec(",
    "execfile",
    "execfilesync",
    "spawn(",
    "spawnsync",
    "fork(",
    "deno.command",
    "deno.run",
    "bun.spawn",
    "bun.spawnsync",
    "$`",
    // Perl, Ruby, PHP
    "system",
    "qx",
    "%x",
    "popen",
    "io.popen",
    "open3",
    "kernel.exec",
    "kernel.system",
    "process.spawn",
    "shell_exec",
    "passthru",
    "proc_open",
    "pcntl_exec",
    // Java-style, PowerShell
    "runtime.getruntime",
    "processbuilder",
    "start-process",
    "invoke-item",
    "system.diagnostics.process",
];

/// Reads of the environment.
const ENV_MARKERS: crate::strtab::StrTable = crate::str_table![
    "os.environ",
    "os.getenv",
    "environ",
    "getenv",
    "process.env",
    "deno.env",
    "bun.env",
    "%env",
    "$env",
    "env[",
    "env.fetch",
    "env.to_h",
    "$_env",
    "$_server",
    "[environment]::getenvironmentvariable",
    "[environment]::getenvironmentvariables",
    "get-childitem env:",
    "$env:",
    "getenvironmentvariable",
];

/// Calls that turn data into text to run.
const DECODE_MARKERS: crate::strtab::StrTable = crate::str_table![
    "chr",
    "fromcharcode",
    "b64decode",
    "base64.b64decode",
    "base64.decodebytes",
    "decodebytes",
    "a85decode",
    "b32decode",
    "atob(",
    "buffer.from",
    "fromhex",
    "unhexlify",
    "codecs.decode",
    "decode_base64",
    "mime::base64",
    "unpack",
    "pack(",
    "base64_decode",
    "hex2bin",
    "str_rot13",
    "gzinflate",
    "gzuncompress",
    "zlib.decompress",
    "marshal.loads",
    "pickle.loads",
    "frombase64string",
    "[::-1]",
    "reverse",
    "strrev",
    "join",
];

/// Calls that start a program named by their first argument (or the first item of a list).
const SPAWN_CALLS: crate::strtab::StrTable = crate::str_table![
    "os.system",
    "os.popen",
    "subprocess.run",
    "subprocess.call",
    "subprocess.popen",
    "subprocess.check_call",
    "subprocess.check_output",
    "subprocess.getoutput",
    "subprocess.getstatusoutput",
    "os.execv",
    "os.execvp",
    "os.execve",
    "os.execl",
    "os.execlp",
    "os.spawnl",
    "os.spawnlp",
    "os.spawnv",
    "os.spawnvp",
    "system",
    "popen",
    "execsync",
    "execfilesync",
    "spawnsync",
    "execfile",
    "spawn",
    "exec",
    "shell_exec",
    "passthru",
    "proc_open",
    "pcntl_exec",
];

/// A process started with a program or command line built at run time (`subprocess.run(
/// ["intent" + "shield", …])`, `system(q(a).q(b), …)`, `os.system(cmd)`): what it runs cannot
/// be read from the line, so it counts as text run unseen. A literal (`subprocess.run(["ls",
/// "-l"])`, `system("make test")`) is analysed as the line it names instead.
fn computed_spawn(toks: &[Tok]) -> Option<String> {
    for (i, t) in toks.iter().enumerate() {
        let Tok::Name(n) = t else { continue };
        let n = n.trim_start_matches('.');
        let bare = n.rsplit(['.', ':']).next().unwrap_or(n);
        let known = SPAWN_CALLS.contains(n)
            || (SPAWN_CALLS.contains(bare) && !matches!(bare, "exec" | "spawn" | "system"))
            || (matches!(bare, "exec" | "spawn" | "system")
                && (n == bare || n.starts_with("child_process") || n.starts_with("kernel")));
        if !known {
            continue;
        }
        // The call's first argument; Perl and Ruby may leave out the parenthesis.
        let mut j = match toks.get(i + 1) {
            Some(Tok::Punct('(')) => i + 2,
            Some(Tok::Str(..)) => i + 1,
            _ => continue,
        };
        if matches!(toks.get(j), Some(Tok::Punct('['))) {
            j += 1;
        }
        let literal = matches!(toks.get(j), Some(Tok::Str(_, q)) if *q != '`')
            && matches!(
                toks.get(j + 1),
                None | Some(Tok::Punct(',' | ')' | ']' | ';'))
            );
        if !literal {
            return Some(format!("{n} of a command built at run time"));
        }
    }
    None
}

/// `eval`/`exec`-like calls that run text: found when the text is not one literal.
fn dynamic_run(toks: &[Tok], lang: Lang) -> Option<String> {
    const RUNNERS: crate::strtab::StrTable = crate::str_table![
        "eval",
        "exec",
        "compile",
        "function",
        "__import__",
        "importlib.import_module",
        "new function",
        "instance_eval",
        "class_eval",
        "module_eval",
        "create_function",
        "assert",
        "invoke-expression",
        "iex",
        "vm.runinthiscontext",
        "vm.runinnewcontext",
        "runpy.run_path",
        "execfile",
        "do shell script",
        "run script",
        "[scriptblock]::create",
        "load",
        "loadstring",
    ];
    for (i, t) in toks.iter().enumerate() {
        let Tok::Name(n) = t else { continue };
        let n = n.as_str();
        let bare = n.rsplit(['.', ':']).next().unwrap_or(n);
        if !RUNNERS.contains(n) && !RUNNERS.contains(bare) {
            continue;
        }
        // `eval` handed on as a function (`.then(eval)`, `map(eval, …)`) runs what it gets.
        let passed_on = matches!(toks.get(i.wrapping_sub(1)), Some(Tok::Punct('(' | ',')))
            && matches!(toks.get(i + 1), Some(Tok::Punct(')' | ',')))
            && toks[..i].iter().rev().take(4).any(|t| {
                matches!(t, Tok::Name(m) if ["then", "map", "foreach", "apply", "call", "pipe", "on"]
                    .iter()
                    .any(|x| m.ends_with(x)))
            });
        if passed_on && matches!(bare, "eval" | "exec") {
            return Some(n.to_string());
        }
        // Python's `exec` and JS's `Function` need a call; PowerShell's `iex` takes a word.
        let arg_start = match toks.get(i + 1) {
            Some(Tok::Punct('(')) => i + 2,
            Some(_)
                if matches!(
                    lang,
                    Lang::PowerShell | Lang::Perl | Lang::Ruby | Lang::AppleScript
                ) =>
            {
                i + 1
            }
            _ => continue,
        };
        if matches!(bare, "load") && lang != Lang::Js {
            continue;
        }
        // One literal and then the end of the call: the text is in the line, analysable.
        let literal = matches!(toks.get(arg_start), Some(Tok::Str(_, q)) if *q != '`')
            && matches!(
                toks.get(arg_start + 1),
                None | Some(Tok::Punct(')' | ';' | ','))
            )
            && !matches!(toks.get(arg_start + 1), Some(Tok::Punct(',')) if bare == "function");
        if literal && !matches!(bare, "__import__" | "import_module") {
            continue;
        }
        if literal {
            // `__import__('os')`: a literal module is a plain import.
            continue;
        }
        // Perl/Ruby `eval {…}` blocks are exception handling, not text.
        if matches!(lang, Lang::Perl | Lang::Ruby)
            && matches!(toks.get(i + 1), Some(Tok::Punct('{')))
        {
            continue;
        }
        if matches!(toks.get(arg_start), Some(Tok::Punct(')'))) {
            continue;
        }
        return Some(n.to_string());
    }
    None
}

/// Functions that write the file named by their first literal argument, per language, and
/// whether a mode argument decides (Python's and Ruby's `open`).
fn literal_writes(toks: &[Tok], lang: Lang) -> Vec<String> {
    const WRITERS: crate::strtab::StrTable = crate::str_table![
        "writefilesync",
        "writefile",
        "appendfilesync",
        "appendfile",
        "createwritestream",
        "fs.writefilesync",
        "fs.writefile",
        "fs.appendfilesync",
        "fs.appendfile",
        "fs.createwritestream",
        "fs.promises.writefile",
        "deno.writetextfile",
        "deno.writefile",
        "bun.write",
        "file.write",
        "io.write",
        "file_put_contents",
        "write_text",
        "write_bytes",
        "set-content",
        "add-content",
        "out-file",
        "copyfile",
        "copyfilesync",
        "shutil.copy",
        "shutil.copyfile",
        "shutil.copy2",
        "shutil.move",
        "os.rename",
        "os.replace",
        "rename",
        "renamesync",
    ];
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let Tok::Name(n) = t else { continue };
        let bare = n.rsplit(['.', ':']).next().unwrap_or(n);
        let first_lit = |from: usize| -> Option<(String, usize)> {
            let mut k = from;
            if matches!(toks.get(k), Some(Tok::Punct('('))) {
                k += 1;
            }
            match toks.get(k) {
                Some(Tok::Str(s, q)) if *q != '`' => Some((s.clone(), k)),
                _ => None,
            }
        };
        if WRITERS.contains(n.as_str()) || (WRITERS.contains(bare) && bare.len() > 6) {
            // `Path('x').write_text(…)`: the literal is before the call.
            if matches!(bare, "write_text" | "write_bytes") {
                if let Some(Tok::Str(s, _)) = toks.get(i.saturating_sub(3)) {
                    out.push(s.clone());
                }
                continue;
            }
            let mut from = i + 1;
            if lang == Lang::PowerShell {
                // `Set-Content -Path P` or `Set-Content P`.
                if matches!(toks.get(from), Some(Tok::Punct('-'))) {
                    from += 2;
                }
            }
            if let Some((p, _)) = first_lit(from) {
                out.push(p);
            }
            continue;
        }
        if bare == "open" || n == "file.open" || n == "io.open" || n == "fopen" {
            let Some((p, k)) = first_lit(i + 1) else {
                continue;
            };
            // Perl's `open(FH, '>', P)` / `open(FH, ">P")`.
            if lang == Lang::Perl {
                continue;
            }
            let mode = match (toks.get(k + 1), toks.get(k + 2)) {
                (Some(Tok::Punct(',')), Some(Tok::Str(m, _))) => m.clone(),
                _ => String::new(),
            };
            if mode.contains(['w', 'a', 'x', '+']) {
                out.push(p);
            }
        }
    }
    if lang == Lang::Perl {
        // `open(my $f, '>', 'P')`, `open(F, ">P")`, `open F, ">>P"`.
        let strs: Vec<&str> = toks
            .iter()
            .filter_map(|t| match t {
                Tok::Str(s, _) => Some(s.as_str()),
                _ => None,
            })
            .collect();
        for w in strs.windows(2) {
            if matches!(w[0].trim(), ">" | ">>" | "+>" | "+<" | ">:raw" | ">:utf8") {
                out.push(w[1].to_string());
            }
        }
        for s in &strs {
            if let Some(p) = s.strip_prefix(">>").or_else(|| s.strip_prefix('>')) {
                let p = p.trim();
                if !p.is_empty() && !p.contains(' ') {
                    out.push(p.to_string());
                }
            }
        }
    }
    out.retain(|p| !p.is_empty() && p.len() <= 4096);
    out.sort();
    out.dedup();
    out.truncate(16);
    out
}

/// Splits code into tokens: comments dropped, string literals read (escapes kept as written,
/// except `\\`, `\'`, `\"`), names lower-cased. Returns the tokens and false when the code had
/// more than [`MAX_TOKENS`].
fn tokenize(code: &str, lang: Lang) -> (Vec<Tok>, bool) {
    let b: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let hash_comment = matches!(
        lang,
        Lang::Python | Lang::Perl | Lang::Ruby | Lang::Php | Lang::PowerShell
    );
    let slash_comment = matches!(lang, Lang::Js | Lang::Php);
    while i < b.len() {
        if out.len() >= MAX_TOKENS {
            return (out, false);
        }
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        // Comments.
        let line_comment =
            (hash_comment && c == '#' && !(lang == Lang::PowerShell && next == Some('>')))
                || (slash_comment && c == '/' && next == Some('/'))
                || (lang == Lang::AppleScript && c == '-' && next == Some('-'));
        if line_comment {
            // Perl's `$#array` and Ruby's `"#{…}"` never reach here (`$` and strings first).
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let block = match (lang, c, next) {
            (Lang::Js | Lang::Php, '/', Some('*')) => Some(['*', '/']),
            (Lang::PowerShell, '<', Some('#')) => Some(['#', '>']),
            (Lang::AppleScript, '(', Some('*')) => Some(['*', ')']),
            _ => None,
        };
        if let Some(end) = block {
            i += 2;
            while i < b.len() && !(b[i] == end[0] && b.get(i + 1) == Some(&end[1])) {
                i += 1;
            }
            i += 2;
            continue;
        }
        // Strings (Python prefixes r, b, f, u are names glued to the quote: dropped).
        if c == '"' || c == '\'' || (c == '`' && lang != Lang::PowerShell) {
            let triple =
                lang == Lang::Python && b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&c);
            let mut s = String::new();
            i += if triple { 3 } else { 1 };
            while i < b.len() {
                let d = b[i];
                if d == '\\' && lang != Lang::PowerShell {
                    if let Some(&e) = b.get(i + 1) {
                        match e {
                            '\\' | '\'' | '"' | '`' => s.push(e),
                            _ => {
                                s.push('\\');
                                s.push(e);
                            }
                        }
                    }
                    i += 2;
                    continue;
                }
                if d == c && (!triple || (b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&c))) {
                    i += if triple { 3 } else { 1 };
                    break;
                }
                if s.len() < MAX_DECODED_LEN {
                    s.push(d);
                }
                i += 1;
            }
            if let Some(Tok::Name(n)) = out.last() {
                if lang == Lang::Python
                    && matches!(
                        n.as_str(),
                        "r" | "b" | "f" | "u" | "rb" | "br" | "fr" | "rf"
                    )
                {
                    out.pop();
                }
            }
            out.push(Tok::Str(s, c));
            continue;
        }
        // Perl/Ruby `qx{…}`, `%x(…)`, `q(…)`, `qq{…}`: read as strings (`qx` as backquotes).
        if matches!(lang, Lang::Perl | Lang::Ruby) {
            let rest: String = b[i..b.len().min(i + 3)].iter().collect();
            let (skip, quote) = if rest.starts_with("qx") || rest.starts_with("%x") {
                (2, '`')
            } else if rest.starts_with("qq") || rest.starts_with("%Q") {
                (2, '"')
            } else if (rest.starts_with('q') || rest.starts_with("%q")) && lang == Lang::Perl {
                (1, '\'')
            } else {
                (0, ' ')
            };
            let open = b.get(i + skip).copied();
            let prev_ok = i == 0 || !(b[i - 1].is_alphanumeric() || b[i - 1] == '_');
            if skip > 0 && prev_ok {
                if let Some(o) =
                    open.filter(|o| matches!(o, '(' | '{' | '[' | '<' | '|' | '/' | '!'))
                {
                    let close = match o {
                        '(' => ')',
                        '{' => '}',
                        '[' => ']',
                        '<' => '>',
                        x => x,
                    };
                    let mut s = String::new();
                    let mut k = i + skip + 1;
                    while k < b.len() && b[k] != close {
                        if s.len() < MAX_DECODED_LEN {
                            s.push(b[k]);
                        }
                        k += 1;
                    }
                    out.push(Tok::Str(s, quote));
                    i = k + 1;
                    continue;
                }
            }
        }
        if c.is_alphanumeric() || matches!(c, '_' | '$' | '@' | '%') {
            let mut n = String::new();
            while i < b.len() {
                let d = b[i];
                let joins = d.is_alphanumeric()
                    || matches!(d, '_' | '$' | '@')
                    || (d == '.' && b.get(i + 1).is_some_and(|x| x.is_alphabetic() || *x == '_'))
                    || (d == ':' && b.get(i + 1) == Some(&':'))
                    || (d == ':' && n.ends_with(':'))
                    || (d == '-'
                        && lang == Lang::PowerShell
                        && b.get(i + 1).is_some_and(|x| x.is_alphabetic()))
                    || (d == '%' && n.is_empty());
                if !joins || n.len() > 256 {
                    break;
                }
                n.extend(d.to_lowercase());
                i += 1;
            }
            if n.is_empty() {
                out.push(Tok::Punct(c));
                i += 1;
            } else {
                out.push(Tok::Name(n));
            }
            continue;
        }
        out.push(Tok::Punct(c));
        i += 1;
    }
    (out, true)
}

/// The strings the code spells in a decodable way: `''.join(map(chr,[99,…]))`,
/// `chr(99)+chr(117)…`, `String.fromCharCode(99,…)`, `b64decode('…')`, `atob('…')`,
/// `Buffer.from('…','base64')`, `base64_decode('…')`, `bytes.fromhex('…')`,
/// `unhexlify('…')`, `'…'[::-1]`. At most [`MAX_DECODED`], each at most
/// [`MAX_DECODED_LEN`] bytes; only text that decodes to printable UTF-8.
fn decoded_constants(toks: &[Tok]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    let mut chr_run = String::new();
    while i < toks.len() && out.len() < MAX_DECODED {
        let name = match &toks[i] {
            Tok::Name(n) => n.as_str(),
            _ => {
                i += 1;
                continue;
            }
        };
        let bare = name.rsplit(['.', ':']).next().unwrap_or(name);
        match bare {
            // `chr(N)` runs joined by `+`, or `map(chr, [N, …])`, or `fromCharCode(N, …)`.
            "chr" | "fromcharcode" => {
                let mut k = i + 1;
                let mut in_map = false;
                if bare == "chr" && matches!(toks.get(k), Some(Tok::Punct(','))) {
                    in_map = true;
                    k += 1;
                }
                let mut codes = String::new();
                if matches!(toks.get(k), Some(Tok::Punct('(' | '['))) {
                    k += 1;
                }
                if in_map && matches!(toks.get(k), Some(Tok::Punct('(' | '['))) {
                    k += 1;
                }
                while let Some(t) = toks.get(k) {
                    match t {
                        Tok::Name(n) => match parse_int(n).and_then(char::from_u32) {
                            Some(ch) if codes.len() < MAX_DECODED_LEN => codes.push(ch),
                            _ => break,
                        },
                        Tok::Punct(',') => {}
                        _ => break,
                    }
                    k += 1;
                    if bare == "chr" && !in_map {
                        break;
                    }
                }
                if bare == "chr" && !in_map {
                    chr_run.push_str(&codes);
                    // `chr(N)+chr(M)`: keep going while a `+ chr` follows.
                    let continues = matches!(toks.get(k + 1), Some(Tok::Punct('+')))
                        && matches!(toks.get(k + 2), Some(Tok::Name(n)) if n == "chr");
                    if !continues && !chr_run.is_empty() {
                        out.push(std::mem::take(&mut chr_run));
                    }
                } else if !codes.is_empty() {
                    out.push(codes);
                }
                i = k.max(i + 1);
                continue;
            }
            "b64decode" | "decodebytes" | "decodestring" | "atob" | "base64_decode"
            | "decode_base64" | "frombase64string" | "decode64" | "strict_decode64"
            | "urlsafe_b64decode" => {
                if let Some(s) = next_literal(toks, i + 1) {
                    if let Some(t) = base64_text(s) {
                        out.push(t);
                    }
                }
            }
            "from" if name.ends_with("buffer.from") => {
                if let Some(s) = next_literal(toks, i + 1) {
                    let lits: Vec<&str> = toks[i + 1..toks.len().min(i + 6)]
                        .iter()
                        .filter_map(|t| match t {
                            Tok::Str(s, _) => Some(s.as_str()),
                            _ => None,
                        })
                        .collect();
                    let t = if lits.contains(&"hex") {
                        hex_text(s)
                    } else if lits.contains(&"base64") || lits.contains(&"base64url") {
                        base64_text(s)
                    } else {
                        None
                    };
                    out.extend(t);
                }
            }
            "fromhex" | "unhexlify" | "hex2bin" | "a2b_hex" => {
                if let Some(s) = next_literal(toks, i + 1) {
                    out.extend(hex_text(s));
                }
            }
            _ => {}
        }
        i += 1;
    }
    // `'…'[::-1]`: a reversed literal.
    for w in toks.windows(6) {
        if let [Tok::Str(s, _), Tok::Punct('['), Tok::Punct(':'), Tok::Punct(':'), Tok::Punct('-'), Tok::Name(one)] =
            w
        {
            if one == "1" && out.len() < MAX_DECODED {
                out.push(s.chars().rev().collect());
            }
        }
    }
    out.retain(|s| s.chars().all(|c| !c.is_control() || c == '\n' || c == '\t'));
    out
}

/// The literal right after a name, or after its `(`.
fn next_literal(toks: &[Tok], mut k: usize) -> Option<&str> {
    if matches!(toks.get(k), Some(Tok::Punct('('))) {
        k += 1;
    }
    match toks.get(k) {
        Some(Tok::Str(s, _)) => Some(s.as_str()),
        _ => None,
    }
}

fn parse_int(n: &str) -> Option<u32> {
    if let Some(h) = n.strip_prefix("0x") {
        u32::from_str_radix(h, 16).ok()
    } else if let Some(o) = n.strip_prefix("0o") {
        u32::from_str_radix(o, 8).ok()
    } else {
        n.parse().ok()
    }
}

/// Decodes standard or URL-safe base64 (padding optional, whitespace ignored) into bytes.
/// `None` for anything else. Bounded by the input.
pub fn base64_bytes(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() / 4 * 3 + 3);
    let mut acc: u32 = 0;
    let mut bits = 0;
    let mut seen = 0usize;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        seen += 1;
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    (seen >= 2).then_some(out)
}

/// Base64 that decodes to printable UTF-8 text.
fn base64_text(s: &str) -> Option<String> {
    let b = base64_bytes(s)?;
    let t = String::from_utf8(b).ok()?;
    printable(&t).then_some(t)
}

/// Hex (`63 75 72 6c`, `6375726c`, `\x63\x75`) that decodes to printable UTF-8 text.
pub fn hex_text(s: &str) -> Option<String> {
    let digits: Vec<u8> = s
        .replace("\\x", "")
        .replace("0x", "")
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && !matches!(c, b':' | b','))
        .collect();
    if digits.len() < 2 || !digits.len().is_multiple_of(2) {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() / 2);
    for pair in digits.chunks(2) {
        let h = std::str::from_utf8(pair).ok()?;
        out.push(u8::from_str_radix(h, 16).ok()?);
    }
    let t = String::from_utf8(out).ok()?;
    printable(&t).then_some(t)
}

/// PowerShell's `-EncodedCommand`: base64 of UTF-16LE text.
fn decode_utf16_base64(s: &str) -> Option<String> {
    let b = base64_bytes(s)?;
    let units: Vec<u16> = b
        .chunks(2)
        .map(|p| u16::from_le_bytes([p[0], p.get(1).copied().unwrap_or(0)]))
        .collect();
    String::from_utf16(&units).ok()
}

fn printable(t: &str) -> bool {
    !t.is_empty()
        && t.chars()
            .all(|c| !c.is_control() || matches!(c, '\n' | '\t' | '\r'))
}

/// Programs that transform the text they are fed (decode, reverse, translate, decompress,
/// decrypt): what comes out of them cannot be read in the line.
pub const TRANSFORMERS: crate::strtab::StrTable = crate::str_table![
    "base64",
    "base32",
    "basenc",
    "b64",
    "rev",
    "tr",
    "xxd",
    "od",
    "openssl",
    "gunzip",
    "gzip",
    "zcat",
    "gzcat",
    "bunzip2",
    "bzip2",
    "bzcat",
    "xz",
    "unxz",
    "xzcat",
    "lzma",
    "unlzma",
    "zstd",
    "unzstd",
    "zstdcat",
    "lz4",
    "brotli",
    "uudecode",
    "recode",
    "iconv",
    "sed",
    "awk",
    "gawk",
    "perl",
    "python",
    "python3",
    "ruby",
    "node",
    "cut",
    "paste",
    "fold",
    "tac",
    "sort",
    "caesar",
    "rot13",
    "gpg",
    "age",
    "printf",
    "echo",
    "uncompress",
    "unpack200",
    "jq",
];

/// A shell or interpreter fed transformed text in a pipeline, found by
/// [`Analysis::transformed_feeds`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransformedFeed {
    /// The pipeline as programs (`echo | base64 | sh`).
    pub chain: String,
    /// The interpreter fed.
    pub interpreter: String,
    /// The text it runs, when the source is a literal and every step could be undone here
    /// (`base64 -d`, `rev`, `tr SET1 SET2`, `xxd -r -p`, `printf '\x..'`).
    pub decoded: Option<String>,
}

impl Analysis {
    /// Pipelines that feed a shell or interpreter text that passed through a transformer
    /// (`… | base64 -d | sh`, `… | rev | bash`, `… | tr … | sh`, `xxd -r -p | sh`,
    /// `openssl enc -d | sh`, `gunzip | sh`), or `printf` escapes (`printf '\x72\x6d…' | sh`),
    /// nested lines included. A literal `echo 'ls' | sh` is not one: that text is analysed.
    pub fn transformed_feeds(&self) -> Vec<TransformedFeed> {
        let mut out = Vec::new();
        for p in &self.pipelines {
            // Whether a command before this one transformed the text (kept as the pipeline is
            // walked: linear in its length).
            let mut transformed = p.first().is_some_and(is_decoder);
            for (k, c) in p.iter().enumerate() {
                if k > 0 && !transformed {
                    transformed = TRANSFORMERS.contains(c.program.as_str()) && !is_identity(c);
                    if transformed {
                        continue;
                    }
                }
                let interp = super::programs::SHELLS.contains(c.program.as_str())
                    || lang_of(&c.program).is_some()
                    || matches!(c.program.as_str(), "source" | "." | "eval");
                if !interp || k == 0 || !transformed {
                    continue;
                }
                // An interpreter given its own program (`python3 script.py`, `node -e …`)
                // reads its stdin as data, not code.
                if c.inline_code()
                    .is_some_and(|code| code.code != c.heredoc.clone().unwrap_or_default())
                    || c.operands()
                        .iter()
                        .any(|o| *o != "-" && !o.starts_with("/dev/"))
                {
                    continue;
                }
                let from = k.saturating_sub(8);
                let chain = p[from..=k]
                    .iter()
                    .map(|x| x.program.as_str())
                    .collect::<Vec<_>>()
                    .join(" | ");
                out.push(TransformedFeed {
                    chain,
                    interpreter: c.program.clone(),
                    decoded: (k <= 16).then(|| undo(&p[..k])).flatten(),
                });
                if out.len() >= MAX_DECODED {
                    return out;
                }
            }
        }
        for (_, _, n) in &self.nested {
            if out.len() >= MAX_DECODED {
                break;
            }
            out.extend(n.transformed_feeds());
        }
        out
    }
}

impl Analysis {
    /// What this line prints when it is one pipeline of a literal through steps undone here
    /// (`echo … | base64 -d`, `printf … | rev`): the text `eval "$(…)"` of it would run.
    pub fn decoded_output(&self) -> Option<String> {
        match self.pipelines.as_slice() {
            [p] if p.len() >= 2 => undo(p),
            _ => None,
        }
    }
}

/// True for the first command of a pipeline that decodes what it reads (`base64 -d FILE`,
/// `xxd -r -p FILE`, `gunzip -c FILE`, `openssl enc -d`, `printf '\x72\x6d'`).
fn is_decoder(c: &SimpleCommand) -> bool {
    let a = |f: &str| c.args.iter().any(|x| x == f);
    match c.program.as_str() {
        "printf" => c
            .args
            .iter()
            .any(|x| x.contains("\\x") || x.contains("\\0") || x.contains("\\u")),
        "base64" | "base32" | "basenc" | "b64" => c
            .args
            .iter()
            .any(|x| matches!(x.as_str(), "-d" | "--decode" | "-D" | "-di" | "-id")),
        "xxd" => c.args.iter().any(|x| x.starts_with('-') && x.contains('r')),
        "openssl" => a("-d") || a("enc") || a("base64") || a("smime") || a("cms"),
        "gunzip" | "zcat" | "gzcat" | "bunzip2" | "bzcat" | "unxz" | "xzcat" | "unlzma"
        | "unzstd" | "zstdcat" | "uudecode" | "gpg" | "age" | "rev" | "uncompress" => true,
        "gzip" | "bzip2" | "xz" | "lzma" | "zstd" | "lz4" | "brotli" => {
            c.args
                .iter()
                .any(|x| x.starts_with('-') && !x.starts_with("--") && x.contains('d'))
                || a("--decompress")
        }
        _ => false,
    }
}

/// True for a "transformer" that passes text through unchanged here (`echo` alone, `sort`
/// with no options is still a transform of order; `cat` is not in the list).
fn is_identity(c: &SimpleCommand) -> bool {
    matches!(c.program.as_str(), "echo") && c.args.iter().all(|a| !a.starts_with('-'))
}

/// Undoes a pipeline's steps on its literal source: `echo`/`printf` text, then `base64 -d`,
/// `rev`, `tr SET1 SET2`, `xxd -r -p`. `None` when a step is not one of these.
fn undo(steps: &[SimpleCommand]) -> Option<String> {
    let (first, rest) = steps.split_first()?;
    let mut text = first.written_text()?;
    for s in rest {
        let a: Vec<&str> = s.args.iter().map(String::as_str).collect();
        text = match s.program.as_str() {
            "base64" | "b64" | "basenc"
                if a.iter()
                    .any(|x| matches!(*x, "-d" | "--decode" | "-D" | "-di" | "-id")) =>
            {
                String::from_utf8(base64_bytes(text.trim())?).ok()?
            }
            "rev" if a.is_empty() => text
                .lines()
                .map(|l| l.chars().rev().collect::<String>())
                .collect::<Vec<_>>()
                .join("\n"),
            "tr" => tr(&text, &a)?,
            "xxd"
                if a.contains(&"-r") && a.contains(&"-p")
                    || a.contains(&"-rp")
                    || a.contains(&"-pr") =>
            {
                hex_text(&text)?
            }
            "cat" if a.is_empty() => text,
            _ => return None,
        };
        if text.len() > MAX_DECODED_LEN {
            return None;
        }
    }
    Some(text)
}

/// `tr SET1 SET2` (with `a-z` ranges) or `tr -d SET`; `None` for other options or classes.
fn tr(text: &str, args: &[&str]) -> Option<String> {
    let expand = |s: &str| -> Option<Vec<char>> {
        if s.contains("[:") || s.len() > 512 {
            return None;
        }
        let cs: Vec<char> = super::expand::decode_escapes(s, false).chars().collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < cs.len() {
            if i + 2 < cs.len() && cs[i + 1] == '-' && cs[i] <= cs[i + 2] {
                let (a, b) = (cs[i] as u32, cs[i + 2] as u32);
                if b - a > 1024 {
                    return None;
                }
                out.extend((a..=b).filter_map(char::from_u32));
                i += 3;
            } else {
                out.push(cs[i]);
                i += 1;
            }
        }
        Some(out)
    };
    match args {
        ["-d", set] => {
            let s = expand(set)?;
            Some(text.chars().filter(|c| !s.contains(c)).collect())
        }
        [from, to] if !from.starts_with('-') => {
            let f = expand(from)?;
            let t = expand(to)?;
            let last = *t.last()?;
            Some(
                text.chars()
                    .map(|c| match f.iter().rposition(|x| *x == c) {
                        Some(k) => t.get(k).copied().unwrap_or(last),
                        None => c,
                    })
                    .collect(),
            )
        }
        _ => None,
    }
}

/// A fork bomb in the line: a function whose body runs itself at least twice with a pipe or in
/// the background (`:(){ :|:& };:`, `bomb(){ bomb | bomb & }; bomb`, `function f { f & f; }`).
/// Returns the function's name. Reads the raw text (bounded by the caller's command limit).
pub fn fork_bomb(cmd: &str) -> Option<String> {
    let b: Vec<char> = cmd.chars().take(super::MAX_COMMAND).collect();
    let mut i = 0;
    while i < b.len() {
        if b[i] != '{' {
            i += 1;
            continue;
        }
        // Before `{`: `NAME ( )` or `function NAME`.
        let mut j = i;
        while j > 0 && b[j - 1].is_whitespace() {
            j -= 1;
        }
        let mut name_end = j;
        if j >= 2 && b[j - 1] == ')' {
            let mut k = j - 1;
            while k > 0 && b[k - 1].is_whitespace() {
                k -= 1;
            }
            if k > 0 && b[k - 1] == '(' {
                name_end = k - 1;
                while name_end > 0 && b[name_end - 1].is_whitespace() {
                    name_end -= 1;
                }
            } else {
                i += 1;
                continue;
            }
        }
        let mut name_start = name_end;
        while name_start > 0
            && name_end - name_start < 256
            && !b[name_start - 1].is_whitespace()
            && !matches!(b[name_start - 1], ';' | '&' | '|' | '(' | ')' | '{' | '}')
        {
            name_start -= 1;
        }
        let name: String = b[name_start..name_end].iter().collect();
        if name.is_empty()
            || name == "function"
            || name_end == j && {
                // `function NAME {`: the word before NAME must be `function` (read in
                // place: the text before can be the whole line, for every `{`).
                let mut e = name_start;
                while e > 0 && b[e - 1].is_whitespace() {
                    e -= 1;
                }
                !(e >= 8 && b[e - 8..e].iter().copied().eq("function".chars()))
            }
        {
            i += 1;
            continue;
        }
        // The body, to the matching `}`.
        let mut depth = 0;
        let mut k = i;
        // A fork bomb's body is short; a longer one is not read (bounds the scan).
        let stop = b.len().min(i + 512);
        while k < stop {
            match b[k] {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        let body: String = b[i + 1..k.min(stop)].iter().collect();
        let calls = body
            .split(|c: char| {
                c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '{' | '}')
            })
            .filter(|w| *w == name)
            .count();
        let background = body.contains('|') || body.replace("&&", "").contains('&');
        if calls >= 2 && background {
            return Some(name);
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests;
