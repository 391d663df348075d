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

use crate::detect::rules::LiteralIndex;
use crate::strtab::{Span, StrTable};
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

/// One rule as the generated table writes it (a `const`: only [`PackedRule`] and the string
/// pool built from these rows at compile time reach the binary; see [`crate::strtab`]).
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

/// An allowlist regex: applied to the secret or to the whole match (as the table writes it;
/// packed into `table::ALLOW_PATTERNS` and `table::ALLOW_ON_MATCH`).
#[derive(Debug)]
struct Allow {
    on_match: bool,
    pattern: &'static str,
}

/// A [`Rule`] without pointers (a static table of these costs no start-up relocation): its
/// strings are entries of `table::STRS` and its allowlist indexes a run of
/// `table::RULE_ALLOWS`.
#[derive(Debug)]
struct PackedRule {
    /// Entry of `table::STRS` holding the rule's id.
    id: u16,
    /// Entry of `table::STRS` holding the rule's regex.
    pattern: u16,
    entropy: f64,
    group: Option<usize>,
    /// Run of `table::RULE_ALLOWS` (indexes into the allowlist regexes).
    allows: Span,
    /// Run of `table::STRS` (stopwords).
    stops: Span,
    after: usize,
    assignment: bool,
    prefix: Option<PackedPrefix>,
}

/// See [`Rule::prefix`]; the literals are a run of `table::STRS`.
#[derive(Debug)]
struct PackedPrefix {
    literals: Span,
    case_sensitive: bool,
    word_start: bool,
}

impl PackedRule {
    const EMPTY: PackedRule = PackedRule {
        id: 0,
        pattern: 0,
        entropy: 0.0,
        group: None,
        allows: Span::EMPTY,
        stops: Span::EMPTY,
        after: 0,
        assignment: false,
        prefix: None,
    };

    fn id(&self) -> &'static str {
        table::STRS.at(usize::from(self.id))
    }

    fn pattern(&self) -> &'static str {
        table::STRS.at(usize::from(self.pattern))
    }
}

/// Number of strings the rules hold: per rule its id, pattern, stopwords and prefix literals.
const fn rule_str_count(rules: &[Rule]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < rules.len() {
        n += 2 + rules[i].stops.len();
        if let Some(p) = &rules[i].prefix {
            n += p.literals.len();
        }
        i += 1;
    }
    n
}

/// The rules' strings in pool order (see [`rule_str_count`]); [`pack_rules`] indexes them.
const fn rule_strs<const N: usize>(rules: &[Rule]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut at = 0;
    let mut i = 0;
    while i < rules.len() {
        let r = &rules[i];
        out[at] = r.id;
        out[at + 1] = r.pattern;
        at += 2;
        let mut k = 0;
        while k < r.stops.len() {
            out[at] = r.stops[k];
            at += 1;
            k += 1;
        }
        if let Some(p) = &r.prefix {
            k = 0;
            while k < p.literals.len() {
                out[at] = p.literals[k];
                at += 1;
                k += 1;
            }
        }
        i += 1;
    }
    assert!(at == N, "rule string count mismatch");
    out
}

/// Number of allowlist indexes the rules hold.
const fn rule_allow_count(rules: &[Rule]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < rules.len() {
        n += rules[i].allows.len();
        i += 1;
    }
    n
}

/// The rules' allowlist indexes, rule after rule.
const fn rule_allows<const N: usize>(rules: &[Rule]) -> [u16; N] {
    let mut out = [0u16; N];
    let mut at = 0;
    let mut i = 0;
    while i < rules.len() {
        let mut k = 0;
        while k < rules[i].allows.len() {
            assert!(
                rules[i].allows[k] <= u16::MAX as usize,
                "allow index too large"
            );
            out[at] = rules[i].allows[k] as u16;
            at += 1;
            k += 1;
        }
        i += 1;
    }
    assert!(at == N, "allow count mismatch");
    out
}

/// The rules with their strings and lists replaced by runs of the pools [`rule_strs`] and
/// [`rule_allows`] build (same order).
const fn pack_rules<const N: usize>(rules: &[Rule]) -> [PackedRule; N] {
    assert!(rules.len() == N, "rule count mismatch");
    let mut out = [PackedRule::EMPTY; N];
    let mut at = 0;
    let mut allow_at = 0;
    let mut i = 0;
    while i < N {
        let r = &rules[i];
        let id = Span::new(at, 2);
        at += 2;
        let stops = Span::new(at, r.stops.len());
        at += r.stops.len();
        let prefix = match &r.prefix {
            Some(p) => {
                let literals = Span::new(at, p.literals.len());
                at += p.literals.len();
                Some(PackedPrefix {
                    literals,
                    case_sensitive: p.case_sensitive,
                    word_start: p.word_start,
                })
            }
            None => None,
        };
        let allows = Span::new(allow_at, r.allows.len());
        allow_at += r.allows.len();
        out[i] = PackedRule {
            id: id.first,
            pattern: id.first + 1,
            entropy: r.entropy,
            group: r.group,
            allows,
            stops,
            after: r.after,
            assignment: r.assignment,
            prefix,
        };
        i += 1;
    }
    out
}

/// The allowlist regexes' patterns, in order.
const fn allow_patterns<const N: usize>(allows: &[Allow]) -> [&'static str; N] {
    assert!(allows.len() == N, "allow count mismatch");
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = allows[i].pattern;
        i += 1;
    }
    out
}

/// Whether each allowlist regex applies to the whole match.
const fn allow_on_match<const N: usize>(allows: &[Allow]) -> [bool; N] {
    assert!(allows.len() == N, "allow count mismatch");
    let mut out = [false; N];
    let mut i = 0;
    while i < N {
        out[i] = allows[i].on_match;
        i += 1;
    }
    out
}

/// Number of (keyword, rule) pairs.
const fn owner_count(owners: &[&[u16]]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < owners.len() {
        n += owners[i].len();
        i += 1;
    }
    n
}

/// The owning rules of every keyword, keyword after keyword.
const fn owner_rules<const N: usize>(owners: &[&[u16]]) -> [u16; N] {
    let mut out = [0u16; N];
    let mut at = 0;
    let mut i = 0;
    while i < owners.len() {
        let mut k = 0;
        while k < owners[i].len() {
            out[at] = owners[i][k];
            at += 1;
            k += 1;
        }
        i += 1;
    }
    assert!(at == N, "owner count mismatch");
    out
}

/// Each keyword's run of [`owner_rules`].
const fn owner_spans<const N: usize>(owners: &[&[u16]]) -> [Span; N] {
    assert!(owners.len() == N, "keyword count mismatch");
    let mut out = [Span::EMPTY; N];
    let mut at = 0;
    let mut i = 0;
    while i < N {
        out[i] = Span::new(at, owners[i].len());
        at += owners[i].len();
        i += 1;
    }
    out
}

/// What a process builds on first use: the keyword index and a lazy slot per regex.
struct Engine {
    rules: &'static [PackedRule],
    regexes: Vec<OnceLock<Option<regex_lite::Regex>>>,
    allow_regexes: Vec<OnceLock<Option<regex_lite::Regex>>>,
    /// Indexes into the allowlist regexes of the global allowlist.
    global_allows: &'static [usize],
    global_stops: StrTable,
    lits: LiteralIndex,
}

impl Engine {
    /// The rules that own keyword `lit`.
    fn owners(&self, lit: usize) -> &'static [u16] {
        let span = table::OWNER_SPANS.get(lit).copied().unwrap_or(Span::EMPTY);
        table::OWNER_RULES.get(span.range()).unwrap_or(&[])
    }
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

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(build)
}

fn build() -> Engine {
    Engine {
        rules: &table::RULES,
        regexes: table::RULES.iter().map(|_| OnceLock::new()).collect(),
        allow_regexes: table::ALLOW_PATTERNS
            .iter()
            .map(|_| OnceLock::new())
            .collect(),
        global_allows: table::GLOBAL_ALLOWS,
        global_stops: table::GLOBAL_STOPS,
        lits: LiteralIndex::new(table::KEYWORDS.to_vec()),
    }
}

fn rule_regex(eng: &'static Engine, i: usize) -> Option<&'static regex_lite::Regex> {
    eng.regexes[i]
        .get_or_init(|| regex_lite::Regex::new(eng.rules[i].pattern()).ok())
        .as_ref()
}

fn allow_regex(eng: &'static Engine, i: usize) -> Option<&'static regex_lite::Regex> {
    eng.allow_regexes[i]
        .get_or_init(|| regex_lite::Regex::new(table::ALLOW_PATTERNS.at(i)).ok())
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
fn accepted(eng: &'static Engine, r: &PackedRule, secret: &str, whole: &str) -> bool {
    if secret.is_empty() {
        return false;
    }
    if r.entropy > 0.0 && entropy(secret) <= r.entropy {
        return false;
    }
    if r.id().starts_with("generic") && !secret.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    let lower = secret.to_ascii_lowercase();
    if eng
        .global_stops
        .iter()
        .chain(table::STRS.span(r.stops))
        .any(|w| lower.contains(w))
    {
        return false;
    }
    let own = table::RULE_ALLOWS.get(r.allows.range()).unwrap_or(&[]);
    let own = own.iter().map(|&i| usize::from(i));
    !eng.global_allows.iter().copied().chain(own).any(|i| {
        let hay = if table::ALLOW_ON_MATCH.get(i).copied().unwrap_or(false) {
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
        for &ri in eng.owners(lit) {
            let ri = ri as usize;
            let r = &eng.rules[ri];
            let before = if r.assignment {
                // The keyword's suffix may sit between it and the operator
                // (`api_token_v2 = …`); the gate starts after the keyword itself.
                if !assignment_follows(lb, end, r.id().starts_with("generic")) {
                    continue;
                }
                WINDOW_BEFORE_ASSIGNMENT
            } else if let Some(p) = &r.prefix {
                let at = &text.as_bytes()[start..];
                let mut literals = table::STRS.span(p.literals);
                let holds = literals.any(|l| {
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
                        rule: r.id(),
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
