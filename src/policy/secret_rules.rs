//! Secret material by a maintained rule set: the gitleaks rules (data/secret_rules.tsv, made by
//! scripts/gen_secret_rules.py from gitleaks v8.30.1's config/gitleaks.toml as the crates.io
//! package keyspoor 0.1.4 ships it; MIT licence, Copyright (c) 2019 Zachary Rice; see
//! docs/architecture.md "Secret rules").
//!
//! Cost on the hook's path (a process that scans once): the table is compiled in as statics
//! (`secret_rules/table.rs`, generated from the TSV by `secret_rules/gen.rs`, a test holds the
//! two equal), so nothing is parsed per process; one pass over the lower-cased text finds every
//! rule keyword (the detector's two-byte-prefix [`LiteralIndex`]); only the rules whose keyword
//! occurs compile their regex, and run it only in windows around the keyword hits, within a
//! per-rule and a per-scan byte budget. A text with no keyword compiles nothing.
//!
//! A match is a secret when (as gitleaks decides): its secret part (the rule's secret group, or
//! the first non-empty capture, or the whole match) has Shannon entropy strictly above the
//! rule's threshold (when it has one), a generic rule's secret holds a digit, and no allowlist
//! of the rule or the global one (placeholders such as `${VAR}`, `true`, stopwords) matches.

use std::sync::OnceLock;

use crate::detect::rules::{lit_counts, LitTables, LiteralIndex};
use crate::text::{ceil_boundary, floor_boundary};

#[rustfmt::skip]
mod table;
#[cfg(test)]
mod gen;

/// Longest text scanned (bytes); the rest of a longer text is not looked at.
pub const SCAN_MAX: usize = 1 << 20;
/// Bytes before a keyword hit that a rule's regex may look at.
const WINDOW_BEFORE: usize = 256;
/// Bytes after a keyword hit that a rule's regex may look at.
#[cfg_attr(not(test), allow(dead_code))] // the generator (gen.rs) uses it
const WINDOW_AFTER: usize = 1024;
/// Bytes after a keyword hit for rules whose match spans a block (PEM private keys).
#[cfg_attr(not(test), allow(dead_code))] // the generator (gen.rs) uses it
const WINDOW_AFTER_BLOCK: usize = 16 << 10;
/// Bytes after a keyword hit for the assignment template (one line: the keyword's suffix, the
/// operator, quotes and a value of at most 150 bytes).
#[cfg_attr(not(test), allow(dead_code))] // the generator (gen.rs) uses it
const WINDOW_AFTER_ASSIGNMENT: usize = 256;
/// Bytes before a keyword hit for the assignment template (its `[\w.-]{0,50}` prefix).
const WINDOW_BEFORE_ASSIGNMENT: usize = 64;
/// The operator group of gitleaks' assignment template, as the rule text writes it.
#[cfg_attr(not(test), allow(dead_code))] // the generator (gen.rs) uses it
const ASSIGNMENT: &str = r"(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)";
/// Shortest value run after an assignment for the template's keyword hit to count.
const ASSIGNMENT_VALUE_MIN: usize = 8;
/// Most bytes of windows one rule's regex runs over per scan.
pub const RULE_BUDGET: usize = 16 << 10;
/// Most bytes of windows all rules' regexes run over per scan.
pub const TOTAL_BUDGET: usize = 128 << 10;

/// One rule of the table.
#[derive(Debug)]
struct Rule {
    id: &'static str,
    /// Shannon entropy (bits per byte) the secret must exceed; 0 = no entropy gate.
    entropy: f64,
    /// Capture group that holds the secret; `None` = first non-empty capture, else the match.
    group: Option<usize>,
    pattern: &'static str,
    /// Indexes into `table::ALLOWS` that belong to this rule.
    allows: &'static [usize],
    /// Stopwords of this rule (lower-case).
    stops: &'static [&'static str],
    /// Bytes after a keyword hit its regex may look at.
    after: usize,
    /// True for gitleaks' assignment template (`keyword … = value`): a keyword hit counts only
    /// where an assignment of a long enough value follows it ([`assignment_follows`]).
    assignment: bool,
    /// For a rule whose regex starts with its keyword (`ghp_`, `\bey`, `SK`): the literal as
    /// the regex writes it, whether it is case-sensitive, and whether a word boundary precedes
    /// it. A keyword hit then counts only where the text holds that literal at a word start
    /// when required (`ey` inside `key` or `they` does not), and the regex looks from the hit.
    prefix: Option<Prefix>,
}

/// See [`Rule::prefix`].
#[derive(Debug)]
struct Prefix {
    /// The literals a match starts with, one per alternative of the group the pattern opens
    /// with (`\b((?:hvs\.…|s\.…))` has `hvs.` and `s.`), or the one literal.
    literals: &'static [&'static str],
    case_sensitive: bool,
    word_start: bool,
}

/// An allowlist regex: applied to the secret or to the whole match.
#[derive(Debug)]
struct Allow {
    on_match: bool,
    pattern: &'static str,
}

/// What a process builds on first use: the keyword index and a lazy slot per regex.
struct Engine {
    rules: &'static [Rule],
    regexes: &'static [OnceLock<Option<regex_lite::Regex>>],
    allows: &'static [Allow],
    allow_regexes: &'static [OnceLock<Option<regex_lite::Regex>>],
    /// Indexes into `allows` of the global allowlist.
    global_allows: &'static [usize],
    global_stops: &'static [&'static str],
    lits: LiteralIndex,
    /// For each keyword id, the rules that own it.
    owners: &'static [&'static [u16]],
}

/// One secret found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretHit<'a> {
    /// The rule's id (gitleaks' id, e.g. `github-pat`, `aws-access-token`).
    pub rule: &'static str,
    /// The secret part of the match (a slice of the scanned text).
    pub secret: &'a str,
    /// Byte range of the whole match in the scanned text.
    pub start: usize,
    /// End of the match (exclusive).
    pub end: usize,
}

/// Sizes of the keyword index's tables.
const KEYWORD_COUNTS: (usize, usize, usize) = lit_counts(table::KEYWORDS);

/// The keyword index's tables, built at compile time.
static KEYWORD_TABLES: LitTables<{ KEYWORD_COUNTS.0 }, { KEYWORD_COUNTS.1 }, { KEYWORD_COUNTS.2 }> =
    LitTables::build(table::KEYWORDS);

/// Each rule's regex, compiled on first use.
static REGEXES: [OnceLock<Option<regex_lite::Regex>>; table::RULES.len()] =
    [const { OnceLock::new() }; table::RULES.len()];

/// Each allow entry's regex, compiled on first use.
static ALLOW_REGEXES: [OnceLock<Option<regex_lite::Regex>>; table::ALLOWS.len()] =
    [const { OnceLock::new() }; table::ALLOWS.len()];

/// The engine, built at compile time (the regexes compile on first use).
static ENGINE: Engine = Engine {
    rules: table::RULES,
    regexes: &REGEXES,
    allows: table::ALLOWS,
    allow_regexes: &ALLOW_REGEXES,
    global_allows: table::GLOBAL_ALLOWS,
    global_stops: table::GLOBAL_STOPS,
    lits: KEYWORD_TABLES.index(table::KEYWORDS),
    owners: table::OWNERS,
};

fn engine() -> &'static Engine {
    &ENGINE
}

/// A private engine for a test (its own regex slots, its keyword index built at run time).
#[cfg(test)]
fn build() -> Engine {
    let slots = |n: usize| -> &'static [OnceLock<Option<regex_lite::Regex>>] {
        Box::leak((0..n).map(|_| OnceLock::new()).collect())
    };
    Engine {
        rules: table::RULES,
        regexes: slots(table::RULES.len()),
        allows: table::ALLOWS,
        allow_regexes: slots(table::ALLOWS.len()),
        global_allows: table::GLOBAL_ALLOWS,
        global_stops: table::GLOBAL_STOPS,
        lits: LiteralIndex::new(table::KEYWORDS.to_vec()),
        owners: table::OWNERS,
    }
}

fn rule_regex(eng: &'static Engine, i: usize) -> Option<&'static regex_lite::Regex> {
    eng.regexes[i]
        .get_or_init(|| regex_lite::Regex::new(eng.rules[i].pattern).ok())
        .as_ref()
}

fn allow_regex(eng: &'static Engine, i: usize) -> Option<&'static regex_lite::Regex> {
    eng.allow_regexes[i]
        .get_or_init(|| regex_lite::Regex::new(eng.allows[i].pattern).ok())
        .as_ref()
}

/// Shannon entropy of `s` in bits per byte (0 for an empty string).
pub fn entropy(s: &str) -> f64 {
    let b = s.as_bytes();
    if b.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &c in b {
        counts[c as usize] += 1;
    }
    let n = b.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// True when an assignment follows a keyword that ends at byte `end` of `b`, as the template
/// allows it: up to 20 name bytes (`[ \t\w.-]`), up to 3 quotes or spaces, an operator (`=`,
/// `>`, `:`, `|`, `?`, `,`), up to 5 quotes, spaces or `=`, then a run of at least
/// [`ASSIGNMENT_VALUE_MIN`] value bytes (`[\w.=+/~-]`), holding a digit when `digit`. A cheap
/// test that spares the regex the keyword's ordinary uses (`the API token`, `let key = k;`).
fn assignment_follows(b: &[u8], end: usize, digit: bool) -> bool {
    let mut i = end;
    let name = |c: u8| {
        c == b' ' || c == b'\t' || c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'-'
    };
    let mut n = 0;
    while i < b.len() && n < 20 && name(b[i]) {
        i += 1;
        n += 1;
    }
    n = 0;
    while i < b.len() && n < 3 && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | b'\'' | b'"') {
        i += 1;
        n += 1;
    }
    if i >= b.len() || !matches!(b[i], b'=' | b'>' | b':' | b'|' | b'?' | b',') {
        return false;
    }
    while i < b.len() && matches!(b[i], b'=' | b'>' | b':' | b'|' | b'?' | b',') {
        i += 1;
    }
    n = 0;
    while i < b.len()
        && n < 5
        && matches!(
            b[i],
            b'`' | b'\'' | b'"' | b' ' | b'\t' | b'\n' | b'\r' | b'='
        )
    {
        i += 1;
        n += 1;
    }
    let start = i;
    let mut has_digit = false;
    while i < b.len()
        && i - start <= 150
        && (b[i].is_ascii_alphanumeric()
            || matches!(b[i], b'_' | b'.' | b'=' | b'+' | b'/' | b'~' | b'-'))
    {
        has_digit |= b[i].is_ascii_digit();
        i += 1;
    }
    i - start >= ASSIGNMENT_VALUE_MIN && (has_digit || !digit)
}

/// Whether a candidate passes the rule's gates (entropy, digit for generic rules, allowlists).
fn accepted(eng: &'static Engine, r: &Rule, secret: &str, whole: &str) -> bool {
    if secret.is_empty() {
        return false;
    }
    if r.entropy > 0.0 && entropy(secret) <= r.entropy {
        return false;
    }
    if r.id.starts_with("generic") && !secret.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    let lower = secret.to_ascii_lowercase();
    if eng
        .global_stops
        .iter()
        .chain(r.stops.iter())
        .any(|w| lower.contains(w))
    {
        return false;
    }
    !eng.global_allows.iter().chain(r.allows.iter()).any(|&i| {
        let hay = if eng.allows[i].on_match {
            whole
        } else {
            secret
        };
        allow_regex(eng, i).is_some_and(|re| re.is_match(hay))
    })
}

/// The secrets in `text`, at most `limit`, in rule order (one rule may give several). Bounded:
/// the first [`SCAN_MAX`] bytes, [`RULE_BUDGET`] and [`TOTAL_BUDGET`] bytes of regex work.
pub fn scan(text: &str, limit: usize) -> Vec<SecretHit<'_>> {
    let mut out = Vec::new();
    if limit == 0 || text.is_empty() {
        return out;
    }
    let eng = engine();
    let text = &text[..floor_boundary(text, text.len().min(SCAN_MAX))];
    let lower = text.to_ascii_lowercase();
    let mut windows: Vec<Vec<(usize, usize)>> = vec![Vec::new(); eng.rules.len()];
    let lb = lower.as_bytes();
    eng.lits.for_each_match(&lower, |start, end, lit| {
        for &ri in eng.owners[lit] {
            let ri = ri as usize;
            let r = &eng.rules[ri];
            let before = if r.assignment {
                // The keyword's suffix may sit between it and the operator
                // (`api_token_v2 = …`); the gate starts after the keyword itself.
                if !assignment_follows(lb, end, r.id.starts_with("generic")) {
                    continue;
                }
                WINDOW_BEFORE_ASSIGNMENT
            } else if let Some(p) = &r.prefix {
                let at = &text.as_bytes()[start..];
                let holds = p.literals.iter().any(|l| {
                    if p.case_sensitive {
                        at.starts_with(l.as_bytes())
                    } else {
                        at.len() >= l.len() && at[..l.len()].eq_ignore_ascii_case(l.as_bytes())
                    }
                });
                let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
                if !holds || (p.word_start && start > 0 && word(lb[start - 1])) {
                    continue;
                }
                2
            } else {
                WINDOW_BEFORE
            };
            let s = start.saturating_sub(before);
            let e = (end + eng.rules[ri].after).min(text.len());
            let w = &mut windows[ri];
            match w.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => w.push((s, e)),
            }
        }
    });
    let mut total = 0usize;
    for (ri, ws) in windows.iter().enumerate() {
        if ws.is_empty() {
            continue;
        }
        if total >= TOTAL_BUDGET {
            break;
        }
        let Some(re) = rule_regex(eng, ri) else {
            continue;
        };
        let r = &eng.rules[ri];
        let mut spent = 0usize;
        for &(s, e) in ws {
            if spent >= RULE_BUDGET || total >= TOTAL_BUDGET {
                break;
            }
            let s = floor_boundary(text, s);
            let e = ceil_boundary(text, e.min(s + (RULE_BUDGET - spent)));
            spent += e - s;
            total += e - s;
            let hay = &text[s..e];
            for found in re.find_iter(hay).take(64) {
                let Some(caps) = re.captures_at(hay, found.start()) else {
                    continue;
                };
                let Some(m) = caps.get(0) else { continue };
                let sec = match r.group {
                    Some(g) => caps.get(g),
                    None => (1..caps.len())
                        .filter_map(|g| caps.get(g))
                        .find(|c| !c.as_str().is_empty()),
                }
                .unwrap_or(m);
                if accepted(eng, r, sec.as_str(), m.as_str()) {
                    out.push(SecretHit {
                        rule: r.id,
                        secret: &text[s + sec.start()..s + sec.end()],
                        start: s + m.start(),
                        end: s + m.end(),
                    });
                    if out.len() >= limit {
                        return out;
                    }
                }
            }
        }
    }
    out
}

/// The first secret in `text` (see [`scan`]).
pub fn first(text: &str) -> Option<SecretHit<'_>> {
    scan(text, 1).into_iter().next()
}

/// Number of rules in the table.
pub fn rule_count() -> usize {
    engine().rules.len()
}

/// How many regexes this process has compiled so far (rules and allowlists): the measure of
/// the lazy compilation (tests and benches).
pub fn compiled_count() -> usize {
    let eng = engine();
    eng.regexes
        .iter()
        .chain(eng.allow_regexes.iter())
        .filter(|c| c.get().is_some())
        .count()
}

#[cfg(test)]
mod tests;
