//! Threat memory and threat packs: what one session caught, every later one knows.
//!
//! Evidence only: the memory and the packs can make a call ask or (for what an operator
//! confirmed, imported or installed in a verified pack) deny, and can taint a session; they
//! never allow anything and never relax a built-in rule.
//!
//! - **Learning** ([`lesson`]): only from a tool output the detection rules flagged as prompt
//!   injection (never from our own matches of the memory, never from a benign-looking output):
//!   the destinations the injected passage names (addresses, URLs, hosts, accounts, IBANs,
//!   numbers, paths; the values the session's user typed are skipped), their registrable domain
//!   (public suffix list, [`registrable`]), word fingerprints of the injected sentences (also with
//!   the trigger phrases blanked, [`fingerprint`]), and which MCP server or web host produced it.
//! - **Use**: a call whose arguments carry a learned indicator asks (`threat.known_indicator`);
//!   a confirmed, imported or pack indicator denies (`threat.confirmed_indicator`); an output
//!   whose sentences match a fingerprint taints (`threat.known_fingerprint`); the output of a
//!   server or host that produced injected content in [`HOSTILE_SESSIONS`] distinct sessions
//!   within [`HOSTILE_WINDOW`] taints (`threat.hostile_source`) until the operator allows it.
//! - **Bounds**: [`MAX_INDICATORS`] and [`MAX_FINGERPRINTS`] with least-recently-seen eviction,
//!   learned entries expire after [`TTL`], fingerprints and domains seen in the benign corpora
//!   ([`gate`]) are refused, `intentshield threats allow` clears a value, domain or source.
//!
//! Files: [`fingerprint`] (shingles, samples, the match index), [`gate`] (the compiled-in
//! benign gate set), [`memory`] (the hook's steps before and after a tool), [`packs`] (pack
//! format, verification, compiled rules). The SQL is in `crate::state` (`threats.rs`).

pub mod fingerprint;
pub mod gate;
mod gate_data;
pub mod memory;
pub mod packs;

use crate::provenance::{self, kind};

/// Most indicators kept (least recently seen learned ones are evicted first).
pub const MAX_INDICATORS: i64 = 5000;
/// Most fingerprints kept (least recently seen learned ones are evicted first).
pub const MAX_FINGERPRINTS: i64 = 500;
/// Learned entries not seen again for this long are forgotten (seconds): 30 days.
pub const TTL: i64 = 30 * 24 * 3600;
/// Distinct sessions in which a source produced injected content that make it hostile.
pub const HOSTILE_SESSIONS: i64 = 3;
/// The window those sessions must fall in (seconds): 7 days.
pub const HOSTILE_WINDOW: i64 = 7 * 24 * 3600;
/// Distinct sessions that must have taught values under a registrable domain before the
/// domain itself is an indicator (one session naming `a@x.example` makes only that address
/// one; a second naming `b@x.example` makes `x.example` one).
pub const DOMAIN_SESSIONS: i64 = 2;
/// Most indicators and fingerprints learned from one output.
pub const MAX_PER_LESSON: usize = 32;

/// Where an indicator or fingerprint came from; stored as text in the `status` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Learned from an injected output: asks.
    Learned,
    /// Confirmed by the operator (`threats confirm`): denies.
    Confirmed,
    /// Imported from a feed (`threats import`): denies.
    Imported,
    /// From a verified threat pack: denies.
    Pack,
}

impl Status {
    /// The stored text.
    pub fn name(self) -> &'static str {
        match self {
            Status::Learned => "learned",
            Status::Confirmed => "confirmed",
            Status::Imported => "imported",
            Status::Pack => "pack",
        }
    }

    /// Parses the stored text; `None` for anything else.
    pub fn from_name(s: &str) -> Option<Status> {
        Some(match s {
            "learned" => Status::Learned,
            "confirmed" => Status::Confirmed,
            "imported" => Status::Imported,
            "pack" => Status::Pack,
            _ => return None,
        })
    }

    /// True when a call carrying it is denied (everything but learned-only entries).
    pub fn denies(self) -> bool {
        self != Status::Learned
    }
}

/// A remembered indicator that one of a call's values matched (loaded into the session view
/// before a tool runs, `crate::session::SessionView::threats`).
#[derive(Debug, Clone, PartialEq)]
pub struct ThreatHit {
    /// `threat_indicators.id`.
    pub id: i64,
    /// The indicator as stored (normalized like `crate::provenance::extract` writes values).
    pub value: String,
    /// Its kind (`crate::provenance::kind`).
    pub kind: String,
    /// Where it came from.
    pub status: Status,
    /// The session that taught it first (learned entries), or the pack or feed name.
    pub origin: String,
    /// The tool whose injected output named it (learned entries).
    pub tool: Option<String>,
    /// Distinct sessions that taught it.
    pub sessions: i64,
}

/// The registrable domain of a host (`evil.co.uk` for `a.b.evil.co.uk`) by the public suffix
/// list compiled into the `psl` crate; `None` for an IP address, a bare suffix or a name that
/// is not a host.
pub fn registrable(host: &str) -> Option<String> {
    let h = host.trim_end_matches('.');
    if h.is_empty() || h.contains(':') || h.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let d = psl::domain_str(h)?;
    // A suffix the list does not know (`.invalid`, `.internal`) gives the host itself back
    // under the `*` rule: keep the last two labels then.
    Some(d.to_string())
}

/// The host a value names: the host itself, an email address's domain, a URL's host.
pub fn host_of(value: &str, vkind: &str) -> Option<String> {
    match vkind {
        kind::HOST | kind::DOMAIN => Some(value.to_string()),
        kind::EMAIL => value.rsplit_once('@').map(|(_, h)| h.to_string()),
        kind::URL => {
            let rest = value.split_once("://").map_or(value, |(_, r)| r);
            let host = rest.split(['/', '?', '#']).next().unwrap_or("");
            let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
            let host = host.split(':').next().unwrap_or("");
            provenance::normalize_host(host)
        }
        _ => None,
    }
}

/// The texts to look up for a call whose values are `keys` (`crate::policy::Facts::keys`):
/// the keys themselves and the registrable domain of each host, address and URL among them
/// (one public-suffix lookup each; sorted, deduplicated, at most 512).
pub fn lookup_keys(keys: &[String]) -> Vec<String> {
    let mut out: Vec<String> = keys.iter().take(512).cloned().collect();
    for k in keys.iter().take(512) {
        let vkind = if k.contains("://") {
            kind::URL
        } else if k.contains('@') {
            kind::EMAIL
        } else if k.contains('.') && !k.contains('/') {
            kind::HOST
        } else {
            continue;
        };
        if let Some(d) = host_of(k, vkind).and_then(|h| registrable(&h)) {
            out.push(d);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The source an output came from, for counting hostile sources: `mcp:<server>` for an MCP
/// tool (with a server name), `web:<registrable domain>` for a web fetch; `None` otherwise.
pub fn source_of(tool: &crate::event::Tool) -> Option<String> {
    if let Some(m) = tool.mcp.as_ref().filter(|m| !m.server.is_empty()) {
        return Some(format!("mcp:{}", m.server.to_lowercase()));
    }
    if tool.kind == crate::event::ToolKind::WebFetch {
        for (_, s) in &provenance::arg_leaves(&tool.input) {
            for v in provenance::extract(s) {
                if let Some(d) = host_of(&v.text, v.kind).and_then(|h| registrable(&h)) {
                    return Some(format!("web:{d}"));
                }
            }
        }
    }
    None
}

/// What a flagged output teaches.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lesson {
    /// `(value, kind)` indicators (the registrable domains included, kind `domain`).
    pub indicators: Vec<(String, &'static str)>,
    /// Fingerprints: the sample, whether it is the trigger-blanked variant, and an excerpt of
    /// the sentence (200 bytes) for `threats show`.
    pub fingerprints: Vec<(Vec<u32>, bool, String)>,
    /// The MCP server or web host that produced it ([`source_of`]).
    pub source: Option<String>,
}

impl Lesson {
    /// True when there is nothing to learn.
    pub fn is_empty(&self) -> bool {
        self.indicators.is_empty() && self.fingerprints.is_empty() && self.source.is_none()
    }
}

/// Kinds of values learned as indicators.
const LEARNED_KINDS: &[&str] = &[
    kind::EMAIL,
    kind::URL,
    kind::HOST,
    kind::IBAN,
    kind::NUMBER,
    kind::PATH,
    kind::ACCOUNT,
];

/// True when a value may be learned: a kind that names a destination, not too short, and not
/// under a domain of the benign gate set ([`gate::common_domain`]).
fn learnable(value: &str, vkind: &str) -> bool {
    if !LEARNED_KINDS.contains(&vkind) || value.len() < 6 || value.len() > 512 {
        return false;
    }
    if vkind == kind::PATH && (value.matches('/').count() < 2 || value.len() < 8) {
        return false;
    }
    match host_of(value, vkind).and_then(|h| registrable(&h)) {
        Some(d) => !gate::common_domain(&d),
        None => !matches!(vkind, kind::EMAIL | kind::URL | kind::HOST),
    }
}

/// Header names whose lines belong to the message's own envelope (the real sender, the user's
/// own address): never part of an injected passage, never learned.
const HEADERS: &[&str] = &["from:", "to:", "cc:", "bcc:", "reply-to:", "sender:"];

/// How far a finding is extended to its sentence, each way (bytes).
const SENTENCE_REACH: usize = 1024;

/// Most findings' sentences taken from one output.
const MAX_SPANS: usize = 16;

fn header_of(line: &str, names: &[&str]) -> bool {
    let l = line.trim_start().as_bytes();
    names
        .iter()
        .any(|h| l.len() >= h.len() && l[..h.len()].eq_ignore_ascii_case(h.as_bytes()))
}

/// True when byte `i` of `b` ends a sentence: `.`, `!` or `?` before white space, or a line
/// break before a blank line.
fn ends_sentence(b: &[u8], i: usize) -> bool {
    match b.get(i) {
        Some(b'.' | b'!' | b'?') => b.get(i + 1).is_none_or(|c| c.is_ascii_whitespace()),
        Some(b'\n') => {
            // A blank line follows.
            b[i + 1..]
                .iter()
                .take_while(|c| **c != b'\n')
                .all(|c| c.is_ascii_whitespace())
        }
        _ => false,
    }
}

/// The byte range of the sentence around `s..e` in `output` (extended at most
/// [`SENTENCE_REACH`] each way; cut at sentence ends and blank lines).
fn sentence_span(output: &str, s: usize, e: usize) -> (usize, usize) {
    let b = output.as_bytes();
    let mut start = s;
    let low = s.saturating_sub(SENTENCE_REACH);
    while start > low && !ends_sentence(b, start - 1) {
        start -= 1;
    }
    let mut end = e.max(start);
    let high = (e + SENTENCE_REACH).min(b.len());
    while end < high && !ends_sentence(b, end) {
        end += 1;
    }
    if end < b.len() && b[end] != b'\n' {
        end += 1;
    }
    let start = crate::text::floor_boundary(output, start.min(output.len()));
    let end = crate::text::ceil_boundary(output, end.min(output.len()));
    (start, end.max(start))
}

/// The lines of `text` that are not envelope header lines ([`HEADERS`]), joined.
fn without_headers(text: &str) -> String {
    text.split('\n')
        .filter(|l| !header_of(l, HEADERS))
        .collect::<Vec<_>>()
        .join("\n")
}

/// True when `text` holds a blank line (a paragraph break).
fn has_blank_line(text: &str) -> bool {
    let b = text.as_bytes();
    b.iter()
        .enumerate()
        .any(|(i, c)| *c == b'\n' && ends_sentence(b, i) && b[i + 1..].contains(&b'\n'))
}

/// The injected sentences of a flagged output: each placed text finding extended to its
/// sentence ([`sentence_span`]), merged when they overlap or share a paragraph (the sentences
/// between them join); only passages holding a finding of weight 2 or more are kept (at most
/// [`MAX_SPANS`]). A greeting or any other sentence without a finding stays out.
pub fn injected_spans(output: &str, report: &crate::detect::Report) -> Vec<(usize, usize)> {
    // (start, end, strong): every placed text finding's sentence; only a paragraph holding a
    // finding of weight 2 or more is injected, its weaker findings' sentences join it.
    let mut spans: Vec<(usize, usize, bool)> = Vec::new();
    for f in &report.findings {
        if f.origin != "text" || spans.len() >= MAX_SPANS * 2 {
            continue;
        }
        let Some(off) = f.input_offset else { continue };
        let s = crate::text::floor_boundary(output, off.min(output.len()));
        let len = f.end.saturating_sub(f.start).min(512);
        let e = crate::text::ceil_boundary(output, (s + len).min(output.len()));
        let (s, e) = sentence_span(output, s, e);
        spans.push((s, e, f.weight >= 2));
    }
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize, bool)> = Vec::new();
    for (s, e, strong) in spans {
        match merged.last_mut() {
            // Overlapping, or in the same paragraph (the sentences between two injected
            // ones belong to the injected passage).
            Some(last)
                if s <= last.1
                    || (s - last.1 <= SENTENCE_REACH && !has_blank_line(&output[last.1..s])) =>
            {
                last.1 = last.1.max(e);
                last.2 |= strong;
            }
            _ => merged.push((s, e, strong)),
        }
    }
    merged
        .into_iter()
        .filter(|m| m.2)
        .take(MAX_SPANS)
        .map(|(s, e, _)| (s, e))
        .collect()
}

/// What the flagged output `output` of `tool` teaches: `injected` are the values inside its
/// injected passages (as the output check split them), `report` the detection report (its
/// findings place the injected sentences and name the trigger phrases). Pure.
///
/// Only the injected sentences teach ([`injected_spans`]): a value is learned only when it
/// lies inside them, not on an envelope header line ([`HEADERS`]) and nowhere else in the
/// output; a registrable domain only when it is not the domain of the output's own sender or
/// recipients nor of a value outside the injected sentences; fingerprints only of the injected
/// sentences (never a greeting or another sentence of the same output).
pub fn lesson(
    tool: &crate::event::Tool,
    output: &str,
    report: &crate::detect::Report,
    injected: &[(String, &'static str)],
) -> Lesson {
    let mut l = Lesson {
        source: source_of(tool),
        ..Lesson::default()
    };
    let mut trigger: Vec<String> = Vec::new();
    for f in &report.findings {
        for ws in fingerprint::sentences(&f.excerpt) {
            trigger.extend(ws);
        }
    }
    trigger.sort();
    trigger.dedup();
    let spans = injected_spans(output, report);
    let span_texts: Vec<String> = spans
        .iter()
        .map(|(s, e)| without_headers(&output[*s..*e]))
        .collect();
    let inside: Vec<String> = span_texts
        .iter()
        .flat_map(|t| provenance::extract(t))
        .map(|v| v.text)
        .collect();
    // Everything outside the injected sentences (header lines included): its values are the
    // output's own, never learned.
    let mut outside_text = String::new();
    let mut at = 0;
    for (s, e) in &spans {
        outside_text.push_str(&output[at..*s]);
        outside_text.push('\n');
        at = *e;
    }
    outside_text.push_str(&output[at..]);
    let mut header_text = String::new();
    for line in output.split('\n').filter(|l| header_of(l, HEADERS)) {
        header_text.push_str(line);
        header_text.push('\n');
    }
    // The values outside the injected sentences, extracted once (both uses below read them).
    let outside_vals = provenance::extract(&outside_text);
    let outside: Vec<(String, &'static str)> = outside_vals
        .iter()
        .cloned()
        .chain(provenance::extract(&header_text))
        .map(|v| (v.text, v.kind))
        .collect();
    // The domains of the output's own values: its sender's and recipients' header lines
    // outside the injected sentences, and every other value there.
    let own_domains: Vec<String> = outside_vals
        .into_iter()
        .filter_map(|v| host_of(&v.text, v.kind).and_then(|h| registrable(&h)))
        .collect();
    for (v, k) in injected {
        if l.indicators.len() >= MAX_PER_LESSON {
            break;
        }
        if !learnable(v, k)
            || (!spans.is_empty() && !inside.contains(v))
            || outside.iter().any(|(o, _)| o == v)
        {
            continue;
        }
        l.indicators.push((v.clone(), k));
        if let Some(d) = host_of(v, k).and_then(|h| registrable(&h)) {
            if d != *v && !own_domains.contains(&d) && !l.indicators.iter().any(|(x, _)| *x == d) {
                l.indicators.push((d, kind::DOMAIN));
            }
        }
    }
    // Without a place in the output (hidden or encoded text), the excerpts of the findings
    // are all there is.
    let mut texts: Vec<String> = span_texts;
    if texts.is_empty() {
        texts = report
            .findings
            .iter()
            .filter(|f| f.weight >= 2)
            .map(|f| f.excerpt.clone())
            .collect();
    }
    for t in &texts {
        for words in fingerprint::sentences(t) {
            if l.fingerprints.len() >= MAX_PER_LESSON {
                break;
            }
            let excerpt = crate::text::cap(&words.join(" "), 200).to_string();
            if let Some(s) = gate::sample(&words) {
                if !l.fingerprints.iter().any(|f| f.0 == s) {
                    l.fingerprints.push((s, false, excerpt.clone()));
                }
            }
            let blanked: Vec<String> = words
                .iter()
                .filter(|w| trigger.binary_search(w).is_err())
                .cloned()
                .collect();
            if blanked.len() < words.len() {
                if let Some(s) = gate::sample(&blanked) {
                    if !l.fingerprints.iter().any(|f| f.0 == s) {
                        l.fingerprints.push((s, true, excerpt));
                    }
                }
            }
        }
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registrable_domains_use_the_public_suffix_list() {
        assert_eq!(registrable("a.b.evil.co.uk").as_deref(), Some("evil.co.uk"));
        assert_eq!(
            registrable("x.attacker.example").as_deref(),
            Some("attacker.example")
        );
        assert_eq!(registrable("mail.evil.com").as_deref(), Some("evil.com"));
        assert_eq!(registrable("10.0.0.1"), None);
        assert_eq!(
            host_of("https://u@Cdn.Evil.com:8443/x?y", kind::URL).as_deref(),
            Some("cdn.evil.com")
        );
        let keys = lookup_keys(&["ops@mail.evil.co.uk".into(), "/tmp/x".into()]);
        assert!(keys.contains(&"evil.co.uk".to_string()), "{keys:?}");
    }

    #[test]
    fn common_domains_and_short_paths_are_not_learned() {
        assert!(!learnable("https://github.com/acme/app", kind::URL));
        assert!(!learnable("/tmp", kind::PATH));
        assert!(learnable("billing@evil-payments.example", kind::EMAIL));
        assert!(learnable("~/.ssh/id_rsa", kind::PATH));
    }
}
