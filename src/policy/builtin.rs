//! Always-deny rules for built-in tools (shell, file writes, patches), and secret material in
//! outbound arguments.
//!
//! Kept small and precise: everyday work (`rm -rf node_modules && npm ci`, reading
//! `.env.example`, writing documentation that mentions dangerous commands, `git push`) must
//! pass untouched.

use crate::decision::{Decision, Reason, Verdict};
use crate::event::{Tool, ToolKind};
use crate::shell;

/// Runs the built-in deny rules on one call; `sh` is the analysis of a shell call's command,
/// `tainted` whether the session is tainted (a command that is not shell syntax is asked about
/// in a clean session and denied in a tainted one).
pub fn check(tool: &Tool, sh: Option<&shell::Analysis>, tainted: bool) -> Vec<Decision> {
    let mut out = Vec::new();
    let name = tool.display_name();
    if tool.kind == ToolKind::Shell {
        if let Some(why) = &tool.unanalysable {
            out.push(
                Decision::new(
                    Verdict::Deny,
                    Reason::Unanalysable,
                    format!("{name}'s {why}: it cannot be checked as it would run"),
                )
                .rule("shell.command_not_string"),
            );
        }
        let cmd_text = tool.shell_command().unwrap_or_default();
        let cmd = cmd_text.as_ref();
        let fresh;
        let a = match sh {
            Some(a) => a,
            None => {
                fresh = shell::analyze(cmd);
                &fresh
            }
        };
        if let Some(p) = a.pipe_to_shell() {
            out.push(
                Decision::new(
                    Verdict::Deny,
                    Reason::PipeToShell,
                    format!("{name} pipes a download into an interpreter ({p})"),
                )
                .rule("shell.pipe_to_shell"),
            );
        }
        if let Some(s) = a.secret_egress() {
            // A secret file (or the whole environment) is denied; one token variable is
            // asked about, since sending a token to its own service is everyday work.
            let verdict = if s.file { Verdict::Deny } else { Verdict::Ask };
            out.push(
                Decision::new(
                    verdict,
                    Reason::SecretEgress,
                    format!("{name} sends a secret ({}) to the network", s.word),
                )
                .rule(if s.file {
                    "shell.secret_egress"
                } else {
                    "shell.secret_variable_egress"
                })
                .evidence(s.word),
            );
        }
        match &a.unanalysable {
            // Not shell syntax: bash would refuse it too, so it is less likely an attack than a
            // slip; still nothing about it can be checked. Asked in a clean session, denied in
            // a tainted one (where the text may come from injected instructions).
            Some(why @ (shell::Unanalysable::Unparsable(_) | shell::Unanalysable::Panic)) => {
                let verdict = if tainted { Verdict::Deny } else { Verdict::Ask };
                let detail = match why {
                    shell::Unanalysable::Unparsable(e) => format!(" ({e})"),
                    _ => String::new(),
                };
                out.push(
                    Decision::new(
                        verdict,
                        Reason::Unanalysable,
                        format!(
                            "{name}'s command is {}{detail}: it cannot be checked as it would run",
                            why.describe()
                        ),
                    )
                    .rule("shell.unparsable"),
                );
            }
            Some(_) => out.push(
                Decision::new(
                    Verdict::Deny,
                    Reason::Unanalysable,
                    format!(
                        "{name}'s command is too long or too deeply nested to check (over {} KiB, 20000 tokens, {} levels of nesting or {} levels of nested command lines); split it",
                        shell::MAX_COMMAND / 1024,
                        shell::MAX_NESTING,
                        shell::MAX_DEPTH
                    ),
                )
                .rule("shell.unanalysable"),
            ),
            None if a.incomplete => out.push(
                Decision::new(
                    Verdict::Deny,
                    Reason::Unanalysable,
                    format!("{name}'s command cannot be analysed whole"),
                )
                .rule("shell.unanalysable"),
            ),
            None => {}
        }
        if let Some(x) = a.nested_agent_unsafe() {
            out.push(
                Decision::new(
                    Verdict::Deny,
                    Reason::NestedAgentUnsafe,
                    format!("{name} starts a coding agent with its permission checks off ({x})"),
                )
                .rule("shell.nested_agent_unsafe"),
            );
        }
    }
    // Patches that plant a pipe-to-shell in a file that runs (a script, a hook), not in
    // documentation that shows the command.
    if tool.patch.is_some() && out.is_empty() {
        let planted = added_by_file(&patch_text(tool))
            .into_iter()
            .find(|(f, added)| {
                !is_documentation(f) && shell::analyze(added).pipe_to_shell().is_some()
            });
        if let Some((f, _)) = planted {
            out.push(
                Decision::new(
                    Verdict::Deny,
                    Reason::PipeToShell,
                    format!("{name} adds a command to {f} that pipes a download into a shell"),
                )
                .rule("patch.pipe_to_shell")
                .evidence(f),
            );
        }
    }
    out
}

/// Documentation files: text that shows commands rather than runs them.
fn is_documentation(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [
        ".md",
        ".markdown",
        ".rst",
        ".txt",
        ".adoc",
        ".html",
        ".htm",
        ".org",
        ".tex",
    ]
    .iter()
    .any(|e| lower.ends_with(e))
}

fn patch_text(tool: &Tool) -> String {
    tool.patch.clone().unwrap_or_default()
}

/// The lines a patch adds, per file (Codex `*** Add/Update File:` and unified `+++ b/` headers).
fn added_by_file(patch: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in patch.lines().take(100_000) {
        let header = ["*** Add File:", "*** Update File:"]
            .iter()
            .find_map(|p| line.strip_prefix(p))
            .or_else(|| {
                line.strip_prefix("+++ ")
                    .map(|r| r.strip_prefix("b/").unwrap_or(r))
            });
        if let Some(f) = header {
            out.push((f.trim().to_string(), String::new()));
        } else if let (Some(added), Some(cur)) = (line.strip_prefix('+'), out.last_mut()) {
            cur.1.push_str(added);
            cur.1.push('\n');
        }
    }
    out
}

/// Secret material in a text: a hit of the gitleaks rule set ([`super::secret_rules`], over two
/// hundred token formats with their entropy gates and allowlists), else what the rule set's
/// exact formats miss: a PEM private-key header, a token that starts with a known prefix but
/// is shorter, longer or newer than the rule's format ([`TOKEN_PREFIXES`]), a chat webhook, a
/// JSON web token, a database URL with its password. Returns what it found, for the reason.
pub fn secret_material(text: &str) -> Option<String> {
    if let Some(h) = super::secret_rules::first(text) {
        return Some(format!("a secret ({})", h.rule));
    }
    fallback_material(text).map(str::to_string)
}

/// Known token prefixes and the shortest tail (bytes of `[A-Za-z0-9_-]`) that makes a token:
/// the recall fallback behind the rule set's exact formats.
pub const TOKEN_PREFIXES: &[(&str, usize)] = &[
    ("ghp_", 30),
    ("gho_", 30),
    ("ghs_", 30),
    ("ghu_", 30),
    ("ghr_", 30),
    ("github_pat_", 40),
    ("xoxb-", 20),
    ("xoxp-", 20),
    ("xoxa-", 20),
    ("xoxr-", 20),
    ("xoxs-", 20),
    ("xapp-", 20),
    ("sk-ant-", 30),
    ("sk-proj-", 20),
    ("sk-svcacct-", 20),
    ("sk-admin-", 20),
    ("sk_live_", 16),
    ("rk_live_", 16),
    ("whsec_", 24),
    ("glpat-", 20),
    ("npm_", 36),
    ("pypi-AgEIcHlwaS5vcmc", 40),
    ("hf_", 30),
    ("dop_v1_", 40),
    ("AIza", 35),
    ("SG.", 60),
    ("shpat_", 32),
    ("xai-", 40),
    ("gsk_", 40),
];

/// What [`secret_material`] finds besides the rule set.
fn fallback_material(text: &str) -> Option<&'static str> {
    if text.contains("PRIVATE KEY-----") && text.contains("-----BEGIN") {
        return Some("a private key");
    }
    if let Some(what) = prefixed_token(text.as_bytes()) {
        return Some(what);
    }
    if text.contains("hooks.slack.com/services/T") || text.contains("discord.com/api/webhooks/") {
        return Some("a chat webhook URL");
    }
    if text.contains("eyJ") && jwt(text) {
        return Some("a JSON web token");
    }
    if text.contains("://") && database_url_with_password(text) {
        return Some("a database URL with its password");
    }
    None
}

/// The AWS access key (`AKIA`/`ASIA` and 16 bytes) or [`TOKEN_PREFIXES`] token in `b`: a
/// prefix at a word start (no ASCII letter or digit before it) followed by at least its
/// shortest tail of `[A-Za-z0-9_-]`. One pass over the text: a byte that starts no prefix
/// costs one table lookup. An AWS key wins over an API token found anywhere.
fn prefixed_token(b: &[u8]) -> Option<&'static str> {
    const AWS: &[(&str, usize)] = &[("AKIA", 16), ("ASIA", 16)];
    // Per byte, the [`TOKEN_PREFIXES`] that start with it (bit `k` for entry `k`).
    static BY_FIRST: [u32; 256] = {
        let mut t = [0u32; 256];
        let mut k = 0;
        while k < TOKEN_PREFIXES.len() {
            t[TOKEN_PREFIXES[k].0.as_bytes()[0] as usize] |= 1 << k;
            k += 1;
        }
        t
    };
    const _: () = assert!(TOKEN_PREFIXES.len() <= 32);
    let tail = |from: usize| {
        b[from.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_' || **c == b'-')
            .count()
    };
    let holds = |i: usize, (p, min): &(&str, usize)| {
        b[i..].starts_with(p.as_bytes()) && tail(i + p.len()) >= *min
    };
    let mut api = false;
    for i in 0..b.len() {
        let mut bits = BY_FIRST[usize::from(b[i])];
        if (bits == 0 && b[i] != b'A') || (i > 0 && b[i - 1].is_ascii_alphanumeric()) {
            continue;
        }
        if b[i] == b'A' && AWS.iter().any(|e| holds(i, e)) {
            return Some("an AWS access key");
        }
        while bits != 0 && !api {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            api = holds(i, &TOKEN_PREFIXES[k]);
        }
    }
    api.then_some("an API token")
}

/// A JSON web token: three base64url parts, the first two JSON objects (`eyJ…`).
fn jwt(text: &str) -> bool {
    use std::sync::OnceLock;
    static RE: OnceLock<Option<regex_lite::Regex>> = OnceLock::new();
    RE.get_or_init(|| {
        regex_lite::Regex::new(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}")
            .ok()
    })
    .as_ref()
    .is_some_and(|r| r.is_match(text))
}

/// A database or broker URL with a password in it (`postgres://app:s3cr3t@db/x`); a
/// placeholder (`password`, `***`, `${DB_PASS}`, `<pass>`) is not one.
fn database_url_with_password(text: &str) -> bool {
    use std::sync::OnceLock;
    static RE: OnceLock<Option<regex_lite::Regex>> = OnceLock::new();
    let Some(re) = RE
        .get_or_init(|| {
            regex_lite::Regex::new(
                r"(?i)\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|clickhouse)://[^:/@\s]*:([^@\s/]{3,})@",
            )
            .ok()
        })
        .as_ref()
    else {
        return false;
    };
    re.captures_iter(text).take(64).any(|c| {
        let pw = c.get(1).map_or("", |m| m.as_str());
        let lower = pw.to_ascii_lowercase();
        !(matches!(
            lower.as_str(),
            "password" | "pass" | "passwd" | "secret" | "changeme" | "xxx" | "xxxx"
        ) || pw.chars().all(|ch| ch == '*' || ch == 'x' || ch == 'X')
            || pw.starts_with("${")
            || pw.starts_with('$')
            || pw.starts_with('<')
            || pw.starts_with("{{"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets() {
        assert!(secret_material(
            "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----"
        )
        .is_some());
        assert!(secret_material("token ghp_abcdefghijklmnopqrstuvwxyz0123456789").is_some());
        assert!(secret_material("-----BEGIN PUBLIC KEY-----").is_none());
        assert!(secret_material("the AKIA prefix marks AWS keys").is_none());
    }

    #[test]
    fn secret_formats_beyond_the_first_handful() {
        for t in [
            "k=sk-proj-Xy12Ab34Cd56Ef78Gh90Ij12Kl34Mn56",
            "STRIPE_KEY=sk_live_51Hx9a8b7c6d5e4f3",
            "https://hooks.slack.com/services/T000/B000/XXXXXXXX",
            "key=AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "DATABASE_URL=postgres://app:hunter2-prod@db.internal:5432/app",
            "mongodb+srv://svc:Zq9x!aa@cluster0.example.net/db",
            "token npm_abcdefghijklmnopqrstuvwxyz0123456789",
            "hf_abcdefghijklmnopqrstuvwxyz0123456789",
        ] {
            assert!(secret_material(t).is_some(), "{t}");
        }
        for t in [
            "postgres://user:password@localhost/db",
            "postgres://app:${DB_PASS}@db/app",
            "mysql://root:****@db/app",
            "see https://example.com/a:b@c",
            "sk-proj- is the prefix of project keys",
            "the header starts with eyJ",
        ] {
            assert!(secret_material(t).is_none(), "{t}");
        }
    }

    /// What [`prefixed_token`] must find, written the plain way: for each prefix, every
    /// occurrence, a hit where it starts a word in the whole text (no ASCII letter or digit
    /// before it) and has its shortest tail. (The per-prefix loop it replaced judged a
    /// repeated prefix inside a word, `xAKIAAKIA…`, against the text cut after the first
    /// one, so it read the second as a word start; that quirk is not kept.)
    fn prefixed_token_reference(text: &str) -> Option<&'static str> {
        let has = |prefix: &str, min: usize| {
            text.match_indices(prefix).any(|(pos, _)| {
                let n = text[pos + prefix.len()..]
                    .bytes()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-')
                    .count();
                let boundary = pos == 0 || !text.as_bytes()[pos - 1].is_ascii_alphanumeric();
                n >= min && boundary
            })
        };
        if has("AKIA", 16) || has("ASIA", 16) {
            return Some("an AWS access key");
        }
        TOKEN_PREFIXES
            .iter()
            .any(|(p, n)| has(p, *n))
            .then_some("an API token")
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Texts built of token prefixes, tails of token bytes and separators (where the
        /// two searches could differ: overlapping prefixes, a prefix inside a word, a tail
        /// one byte short, multi-byte characters before a prefix).
        #[test]
        fn one_pass_token_scan_finds_what_the_per_prefix_search_finds(
            parts in proptest::collection::vec(
                prop_oneof![
                    (0..TOKEN_PREFIXES.len()).prop_map(|i| TOKEN_PREFIXES[i].0.to_string()),
                    Just("AKIA".to_string()),
                    Just("ASIA".to_string()),
                    "[A-Za-z0-9_-]{0,70}",
                    "[ .:=/\"é]{1,2}",
                ],
                0..8,
            )
        ) {
            let text: String = parts.concat();
            prop_assert_eq!(prefixed_token(text.as_bytes()), prefixed_token_reference(&text), "{}", text);
        }
    }

    /// A prefix is a word start or nothing: inside a word, repeated or not, it is no token
    /// (the rule set's AWS rule has the same word boundary); at a start, after any
    /// separator or multi-byte character, it is.
    #[test]
    fn a_token_prefix_counts_at_a_word_start_only() {
        for t in [
            "xAKIAAKIAIOSFODNN7EXAMPLE1",
            "xAKIAIOSFODNN7EXAMPLE",
            "AKIAAKIA",
        ] {
            assert_eq!(prefixed_token(t.as_bytes()), None, "{t}");
        }
        for t in [
            "AKIAIOSFODNN7EXAMPLE1",
            "id=AKIAIOSFODNN7EXAMPLE1",
            "éAKIAIOSFODNN7EXAMPLE1",
            "_AKIAIOSFODNN7EXAMPLE1",
            "AKIAAKIAIOSFODNN7EXAMPLE1",
        ] {
            assert_eq!(
                prefixed_token(t.as_bytes()),
                Some("an AWS access key"),
                "{t}"
            );
        }
        assert_eq!(
            prefixed_token(b"ghp_ghp_abcdefghijklmnopqrstuvwxyz0123"),
            Some("an API token")
        );
    }
}
