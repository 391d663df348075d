//! Threat packs: signed files of rules, indicators and fingerprints that take effect without a
//! release.
//!
//! A pack is a JSON file `NAME.pack.json`:
//! `{"intentshield_pack": 1, "name": "...", "version": N, "rules": [{"id", "family",
//! "literals": [...], "pattern"}], "indicators": [{"value", "kind"}], "fingerprints":
//! ["sentence", ...]}`. It loads only if it verifies ([`verify`]): its SHA-256 is pinned, or its
//! signature file `NAME.pack.json.sig` holds `ed25519:<hex>` by a pinned public key (the
//! baseline pack's key, `configs/threat-packs/baseline.pub`, is pinned in the binary) or
//! `hmac-sha256:<hex>` by a pinned HMAC key. Every rule must compile in `regex-lite`, use bounded
//! repetition only, carry literals of at least [`MIN_LITERAL`] bytes, and match none of the
//! benign probe text ([`super::gate::probe_text`]). A pack whose version is not newer than the
//! installed one of the same name is refused; a refused file leaves the last good pack in force.
//!
//! The hook checks only the packs directory's metadata per call ([`stamp`]); on a change it
//! verifies the files again and keeps the compiled rules in the summary row, so the next call
//! reads them with the rest of the memory.

use super::{gate, Status};
use crate::state::{PackRow, Result, Store, ThreatSummary};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Largest pack file read (bytes): 1 MiB.
pub const MAX_PACK: u64 = 1 << 20;
/// Most pack files looked at in the directory.
pub const MAX_FILES: usize = 32;
/// Shortest literal a rule may carry (bytes).
pub const MIN_LITERAL: usize = 5;
/// Longest rule pattern (bytes).
pub const MAX_PATTERN: usize = 512;
/// Largest bound of a counted repetition (`{m,n}`).
pub const MAX_REPEAT: u32 = 200;
/// The public key of the baseline pack (hex), pinned in the binary.
pub const BASELINE_KEY: &str = include_str!("../../configs/threat-packs/baseline.pub");

/// A pack as written in its file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Pack {
    /// Format version (1).
    pub intentshield_pack: u32,
    /// The pack's name (letters, digits, `-`, `_`).
    pub name: String,
    /// Its version; a newer install must carry a higher one.
    pub version: i64,
    /// Detection rules for tool outputs.
    #[serde(default)]
    pub rules: Vec<PackRule>,
    /// Indicators: calls carrying one are denied.
    #[serde(default)]
    pub indicators: Vec<PackIndicator>,
    /// Injected sentences: outputs holding one are tainted.
    #[serde(default)]
    pub fingerprints: Vec<String>,
}

/// One rule, as the built-in families write them.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PackRule {
    /// Stable id (`family.name`).
    pub id: String,
    /// Family name.
    pub family: String,
    /// Required literals, lower-case: the pattern runs only where one occurs.
    pub literals: Vec<String>,
    /// regex-lite pattern over the lower-cased, whitespace-folded output.
    pub pattern: String,
}

/// One indicator.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PackIndicator {
    /// The value (normalized as the extractor writes values).
    pub value: String,
    /// Its kind (`email`, `url`, `host`, `domain`, `iban`, `number`, `path`, `account`).
    pub kind: String,
}

/// A rule as kept in the summary: its pack and the rule.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CompiledRule {
    /// The pack's name.
    pub pack: String,
    /// The rule.
    #[serde(flatten)]
    pub rule: PackRule,
}

/// A verified pack: the pack, its digest and how it verified.
#[derive(Debug, Clone)]
pub struct Verified {
    /// The parsed pack.
    pub pack: Pack,
    /// SHA-256 of the file, hex.
    pub digest: String,
    /// `sha256`, `ed25519:<key prefix>` or `hmac`.
    pub trust: String,
}

/// The trust anchors a pack may verify against.
#[derive(Debug, Clone, Default)]
pub struct Trust {
    /// Pinned SHA-256 digests (hex).
    pub sha256: Vec<String>,
    /// Pinned Ed25519 public keys (hex), the baseline key included.
    pub ed25519: Vec<String>,
    /// Pinned HMAC-SHA256 keys (hex).
    pub hmac: Vec<String>,
}

impl Trust {
    /// The anchors pinned in the database, plus the baseline key.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn load(store: &Store) -> Result<Trust> {
        let mut ed = store.threat_pins("ed25519")?;
        ed.push(BASELINE_KEY.trim().to_string());
        Ok(Trust {
            sha256: store.threat_pins("sha256")?,
            ed25519: ed,
            hmac: store.threat_pins("hmac")?,
        })
    }
}

pub(crate) fn unhex(s: &str) -> Option<Vec<u8>> {
    let s = s.trim();
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The signature file of a pack file.
pub fn sig_path(file: &Path) -> PathBuf {
    let mut s = file.as_os_str().to_owned();
    s.push(".sig");
    PathBuf::from(s)
}

/// Verifies pack file bytes `bytes` with signature text `sig` (if any) against `trust`, then
/// checks its content ([`check_pack`]).
///
/// # Errors
///
/// Why it is refused: "too large", "not signed and its SHA-256 is not pinned", "bad
/// signature", "no pinned key verifies its signature", a content error.
pub fn verify(
    bytes: &[u8],
    sig: Option<&str>,
    trust: &Trust,
) -> std::result::Result<Verified, String> {
    if bytes.len() as u64 > MAX_PACK {
        return Err(format!("pack is over {MAX_PACK} bytes"));
    }
    let digest = crate::text::hex(&Sha256::digest(bytes));
    let trusted = if trust.sha256.iter().any(|d| d.eq_ignore_ascii_case(&digest)) {
        "sha256".to_string()
    } else {
        let Some(sig) = sig.map(str::trim).filter(|s| !s.is_empty()) else {
            return Err("not signed (no .sig file) and its SHA-256 is not pinned".into());
        };
        if let Some(h) = sig.strip_prefix("ed25519:") {
            let raw = unhex(h).ok_or("bad signature: not hex")?;
            let raw: [u8; 64] = raw
                .try_into()
                .map_err(|_| "bad signature: not 64 bytes".to_string())?;
            let signature = ed25519_dalek::Signature::from_bytes(&raw);
            let key = trust.ed25519.iter().find(|k| {
                unhex(k)
                    .and_then(|b| <[u8; 32]>::try_from(b).ok())
                    .and_then(|b| ed25519_dalek::VerifyingKey::from_bytes(&b).ok())
                    .is_some_and(|vk| vk.verify_strict(bytes, &signature).is_ok())
            });
            match key {
                Some(k) => format!("ed25519:{}", crate::text::cap(k, 16)),
                None => return Err("bad signature: no pinned Ed25519 key verifies it (tampered, or signed by another key)".into()),
            }
        } else if let Some(h) = sig.strip_prefix("hmac-sha256:") {
            use hmac::Mac;
            let want = unhex(h).ok_or("bad signature: not hex")?;
            let ok = trust.hmac.iter().filter_map(|k| unhex(k)).any(|k| {
                hmac::Hmac::<Sha256>::new_from_slice(&k)
                    .map(|mut m| {
                        m.update(bytes);
                        m.verify_slice(&want).is_ok()
                    })
                    .unwrap_or(false)
            });
            if !ok {
                return Err(
                    "bad signature: no pinned HMAC key verifies it (tampered, or another key)"
                        .into(),
                );
            }
            "hmac".to_string()
        } else {
            return Err("bad signature: expected ed25519:<hex> or hmac-sha256:<hex>".into());
        }
    };
    let pack: Pack = serde_json::from_slice(bytes).map_err(|e| format!("not a pack: {e}"))?;
    check_pack(&pack)?;
    Ok(Verified {
        pack,
        digest,
        trust: trusted,
    })
}

/// Checks a pack's content: format 1, a plain name, every rule safe ([`check_rule`]),
/// indicators of known kinds, at most 2,000 rules, 20,000 indicators, 2,000 fingerprints.
///
/// # Errors
///
/// What is wrong, naming the rule.
pub fn check_pack(p: &Pack) -> std::result::Result<(), String> {
    if p.intentshield_pack != 1 {
        return Err(format!("unknown pack format {}", p.intentshield_pack));
    }
    if p.name.is_empty()
        || p.name.len() > 64
        || !p
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!("bad pack name {:?}", p.name));
    }
    if p.rules.len() > 2000 || p.indicators.len() > 20_000 || p.fingerprints.len() > 2000 {
        return Err("pack is too large (rules, indicators or fingerprints)".into());
    }
    for r in &p.rules {
        check_rule(r).map_err(|e| format!("rule {}: {e}", r.id))?;
    }
    for i in &p.indicators {
        if !super::LEARNED_KINDS.contains(&i.kind.as_str()) && i.kind != "domain" {
            return Err(format!("indicator {}: unknown kind {}", i.value, i.kind));
        }
        if i.value.len() < 4 || i.value.len() > 512 {
            return Err(format!("indicator {:?}: too short or too long", i.value));
        }
    }
    Ok(())
}

/// True when `pattern` repeats without bound (`*`, `+`, `{n,}`) or counts past
/// [`MAX_REPEAT`], outside escapes and character classes.
fn unbounded(pattern: &str) -> Option<String> {
    let b = pattern.as_bytes();
    let mut i = 0;
    let mut class = false;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' if !class => class = true,
            b']' if class => class = false,
            b'*' | b'+' if !class => {
                return Some(format!("unbounded repetition '{}'", b[i] as char))
            }
            b'{' if !class => {
                let end = pattern[i..].find('}').map(|e| i + e)?;
                let inner = &pattern[i + 1..end];
                let (lo, hi) = match inner.split_once(',') {
                    Some((lo, hi)) => (lo, hi),
                    None => (inner, inner),
                };
                let hi: u32 = match hi.trim().parse() {
                    Ok(h) => h,
                    Err(_) => return Some(format!("unbounded repetition '{{{inner}}}'")),
                };
                let _ = lo;
                if hi > MAX_REPEAT {
                    return Some(format!("repetition over {MAX_REPEAT}"));
                }
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Checks one rule: an id, literals of at least [`MIN_LITERAL`] bytes (lower-case), a pattern
/// of at most [`MAX_PATTERN`] bytes that compiles in regex-lite, with bounded repetition only,
/// and that matches none of the benign probe text.
///
/// # Errors
///
/// What is wrong.
pub fn check_rule(r: &PackRule) -> std::result::Result<(), String> {
    if r.id.is_empty() || r.id.len() > 80 {
        return Err("bad id".into());
    }
    if r.literals.is_empty() {
        return Err("no literals (a rule needs literal text to be selective)".into());
    }
    for l in &r.literals {
        if l.trim().len() < MIN_LITERAL || l.to_lowercase() != *l {
            return Err(format!(
                "literal {l:?} is under {MIN_LITERAL} bytes or not lower-case"
            ));
        }
    }
    if r.pattern.len() > MAX_PATTERN {
        return Err(format!("pattern over {MAX_PATTERN} bytes"));
    }
    if let Some(why) = unbounded(&r.pattern) {
        return Err(why);
    }
    let re = regex_lite::Regex::new(&r.pattern).map_err(|e| format!("does not compile: {e}"))?;
    if let Some(m) = re.find(gate::probe_text()) {
        return Err(format!(
            "matches benign text ({:?})",
            crate::text::cap(m.as_str(), 80)
        ));
    }
    Ok(())
}

/// The stamp of the packs directory: its modification time and, per pack file (at most
/// [`MAX_FILES`], sorted), name, size and modification time; `"none"` without a directory.
pub fn stamp(dir: Option<&Path>) -> String {
    let Some(dir) = dir else {
        return "none".into();
    };
    let Ok(meta) = std::fs::metadata(dir) else {
        return "none".into();
    };
    let t = |m: &std::fs::Metadata| {
        m.modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos())
    };
    let mut parts = vec![format!("d{}", t(&meta))];
    for (name, path) in pack_files(dir) {
        if let Ok(m) = std::fs::metadata(&path) {
            parts.push(format!("{name}:{}:{}", m.len(), t(&m)));
        }
        if let Ok(m) = std::fs::metadata(sig_path(&path)) {
            parts.push(format!("sig:{}:{}", m.len(), t(&m)));
        }
    }
    parts.join("|")
}

/// The pack files of a directory (`*.pack.json`), sorted, at most [`MAX_FILES`].
pub fn pack_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.ends_with(".pack.json").then(|| (name, e.path()))
        })
        .collect();
    out.sort();
    out.truncate(MAX_FILES);
    out
}

/// Reads a pack file and its signature file, bounded.
///
/// # Errors
///
/// The I/O error, or "over N bytes".
pub fn read(file: &Path) -> std::result::Result<(Vec<u8>, Option<String>), String> {
    let len = std::fs::metadata(file)
        .map_err(|e| format!("{}: {e}", file.display()))?
        .len();
    if len > MAX_PACK {
        return Err(format!("pack is over {MAX_PACK} bytes"));
    }
    let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let sig = std::fs::read_to_string(sig_path(file))
        .ok()
        .map(|s| crate::text::cap(&s, 4096).to_string());
    Ok((bytes, sig))
}

/// What installing a pack did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installed {
    /// Installed (or replaced an older version).
    New,
    /// The same file was already installed.
    Same,
}

/// Installs a verified pack: refuses a version not newer than the installed one (unless it is
/// the same file), replaces what the older version added, and recompiles the summary's rules.
///
/// # Errors
///
/// "version N is not newer than the installed M" (as `Ok(Err)`); database errors.
pub fn install(
    store: &Store,
    v: &Verified,
    file: &Path,
) -> Result<std::result::Result<Installed, String>> {
    let current = store.threat_packs()?;
    if let Some(c) = current.iter().find(|c| c.name == v.pack.name) {
        if c.digest == v.digest {
            return Ok(Ok(Installed::Same));
        }
        if v.pack.version <= c.version {
            let why = format!(
                "version {} is not newer than the installed {} (downgrade refused; the installed pack stays)",
                v.pack.version, c.version
            );
            store.refuse_threat_pack(&c.name, &why)?;
            return Ok(Err(why));
        }
    }
    let origin = format!("pack:{}", v.pack.name);
    store.remove_threat_origin(&origin)?;
    let rules: Vec<CompiledRule> = v
        .pack
        .rules
        .iter()
        .map(|r| CompiledRule {
            pack: v.pack.name.clone(),
            rule: r.clone(),
        })
        .collect();
    store.put_threat_pack(&PackRow {
        name: v.pack.name.clone(),
        version: v.pack.version,
        digest: v.digest.clone(),
        trust: v.trust.clone(),
        file: file.display().to_string(),
        compiled: serde_json::to_string(&rules).unwrap_or_else(|_| "[]".into()),
        refused: None,
    })?;
    let inds: Vec<(String, String)> = v
        .pack
        .indicators
        .iter()
        .map(|i| (i.value.trim().to_lowercase(), i.kind.clone()))
        .collect();
    store.import_threat_indicators(&inds, Status::Pack, &origin)?;
    let fps: Vec<(Vec<u32>, String)> = v
        .pack
        .fingerprints
        .iter()
        .flat_map(|s| {
            super::fingerprint::sentences(s)
                .into_iter()
                .filter_map(|w| {
                    super::gate::sample(&w)
                        .map(|x| (x, crate::text::cap(&w.join(" "), 200).to_string()))
                })
        })
        .collect();
    store.import_threat_fingerprints(&fps, Status::Pack, &origin)?;
    recompile(store, None)?;
    Ok(Ok(Installed::New))
}

/// Rewrites the summary's rules from the installed packs; `stamp` replaces the directory
/// stamp when given.
///
/// # Errors
///
/// A database error.
pub fn recompile(store: &Store, stamp: Option<&str>) -> Result<()> {
    let mut all: Vec<CompiledRule> = Vec::new();
    for p in store.threat_packs()? {
        all.extend(serde_json::from_str::<Vec<CompiledRule>>(&p.compiled).unwrap_or_default());
    }
    let old = store
        .threat_summary()?
        .map(|s| s.packs_stamp)
        .unwrap_or_default();
    store.set_threat_packs_stamp(
        stamp.unwrap_or(&old),
        &serde_json::to_string(&all).unwrap_or_else(|_| "[]".into()),
    )
}

/// The hook's step: reads the summary and, when the packs directory's [`stamp`] differs from
/// the one recorded, verifies and installs its packs (refused files are recorded and the last
/// good pack stays) and records the new stamp. Returns the summary (`None` when nothing was
/// ever learned or installed and there is no packs directory).
///
/// # Errors
///
/// A database error.
pub fn sync(store: &Store, dir: Option<&Path>) -> Result<Option<ThreatSummary>> {
    let summary = store.threat_summary()?;
    let now = stamp(dir);
    let recorded = summary.as_ref().map_or("none", |s| s.packs_stamp.as_str());
    if now == recorded || (summary.is_none() && now == "none") {
        return Ok(summary);
    }
    if let Some(dir) = dir {
        let trust = Trust::load(store)?;
        for (name, path) in pack_files(dir) {
            let outcome = read(&path).and_then(|(b, s)| verify(&b, s.as_deref(), &trust));
            match outcome {
                Ok(v) => {
                    let _ = install(store, &v, &path)?;
                }
                Err(why) => {
                    let pack = name.trim_end_matches(".pack.json");
                    store.refuse_threat_pack(pack, &why)?;
                }
            }
        }
    }
    recompile(store, Some(&now))?;
    store.threat_summary()
}

/// The pack directory's stamp as recorded, and whether the directory changed since (for the
/// step before a tool, which reads only the stamp).
///
/// # Errors
///
/// A database error.
pub fn sync_if_changed(store: &Store, dir: Option<&Path>) -> Result<()> {
    let now = stamp(dir);
    match store.threat_packs_stamp()? {
        Some(s) if s == now => Ok(()),
        None if now == "none" => Ok(()),
        _ => sync(store, dir).map(|_| ()),
    }
}

/// Folds an output for pack rules: lower-case, whitespace runs as one space, cut at 256 KiB.
fn fold(text: &str) -> String {
    let text = crate::text::cap(text, 256 * 1024);
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            out.extend(c.to_lowercase());
            space = false;
        }
    }
    out
}

/// The first pack rule (`(pack, rule id)`) that matches `output`; `rules` is the summary's
/// JSON. A rule's regex is compiled only when one of its literals occurs.
pub fn match_rules(rules: &str, output: &str) -> Option<(String, String)> {
    if rules.len() <= 2 {
        return None;
    }
    let rules: Vec<CompiledRule> = serde_json::from_str(rules).ok()?;
    if rules.is_empty() {
        return None;
    }
    let text = fold(output);
    for r in rules {
        if !r.rule.literals.iter().any(|l| text.contains(l.as_str())) {
            continue;
        }
        if unbounded(&r.rule.pattern).is_some() || r.rule.pattern.len() > MAX_PATTERN {
            continue;
        }
        if let Ok(re) = regex_lite::Regex::new(&r.rule.pattern) {
            if re.is_match(&text) {
                return Some((r.pack, r.rule.id));
            }
        }
    }
    None
}

/// Signs `bytes` with an Ed25519 secret key (32 bytes, hex in `key_hex`): the `.sig` text.
///
/// # Errors
///
/// "bad key" when it is not 32 bytes of hex.
pub fn sign_ed25519(bytes: &[u8], key_hex: &str) -> std::result::Result<String, String> {
    use ed25519_dalek::Signer;
    let k: [u8; 32] = unhex(key_hex)
        .and_then(|b| b.try_into().ok())
        .ok_or("bad key: expected 32 bytes of hex")?;
    let sk = ed25519_dalek::SigningKey::from_bytes(&k);
    Ok(format!(
        "ed25519:{}",
        crate::text::hex(&sk.sign(bytes).to_bytes())
    ))
}

/// Signs `bytes` with an HMAC-SHA256 key (hex): the `.sig` text.
///
/// # Errors
///
/// "bad key" when it is not hex.
pub fn sign_hmac(bytes: &[u8], key_hex: &str) -> std::result::Result<String, String> {
    use hmac::Mac;
    let k = unhex(key_hex).ok_or("bad key: expected hex")?;
    let mut m = hmac::Hmac::<Sha256>::new_from_slice(&k).map_err(|e| e.to_string())?;
    m.update(bytes);
    Ok(format!(
        "hmac-sha256:{}",
        crate::text::hex(&m.finalize().into_bytes())
    ))
}

/// A new Ed25519 key pair from the system's random source: (secret hex, public hex).
///
/// # Errors
///
/// The I/O error reading `/dev/urandom`.
pub fn keygen() -> std::result::Result<(String, String), String> {
    use std::io::Read;
    let mut seed = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut seed))
        .map_err(|e| format!("no random source: {e}"))?;
    let sk = ed25519_dalek::SigningKey::from_bytes(&seed);
    Ok((
        crate::text::hex(&seed),
        crate::text::hex(sk.verifying_key().as_bytes()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(pattern: &str, lits: &[&str]) -> PackRule {
        PackRule {
            id: "t.x".into(),
            family: "t".into(),
            literals: lits.iter().map(|s| s.to_string()).collect(),
            pattern: pattern.into(),
        }
    }

    #[test]
    fn rules_must_be_bounded_selective_and_quiet_on_benign_text() {
        assert!(check_rule(&rule(
            r"quietly wire the (?:funds|money) to",
            &["quietly wire"]
        ))
        .is_ok());
        assert!(check_rule(&rule(r"wire the.*to", &["wire the"]))
            .unwrap_err()
            .contains("unbounded"));
        assert!(check_rule(&rule(r"wire the.{1,}to", &["wire the"]))
            .unwrap_err()
            .contains("unbounded"));
        assert!(check_rule(&rule(r"wire the.{0,5000}to", &["wire the"]))
            .unwrap_err()
            .contains("repetition"));
        assert!(check_rule(&rule(r"x", &["ab"]))
            .unwrap_err()
            .contains("literal"));
        assert!(check_rule(&rule(r"(unclosed", &["unclosed"]))
            .unwrap_err()
            .contains("compile"));
        assert!(check_rule(&rule(r"do not reveal", &["do not reveal"]))
            .unwrap_err()
            .contains("benign"));
    }

    #[test]
    fn signatures_verify_and_tampering_is_refused() {
        let (sk, pk) = keygen().unwrap();
        let body = br#"{"intentshield_pack":1,"name":"t","version":1,"indicators":[{"value":"bad@evil.example","kind":"email"}]}"#;
        let sig = sign_ed25519(body, &sk).unwrap();
        let trust = Trust {
            ed25519: vec![pk],
            ..Trust::default()
        };
        assert!(verify(body, Some(&sig), &trust).is_ok());
        let mut bad = body.to_vec();
        bad[40] ^= 1;
        assert!(verify(&bad, Some(&sig), &trust)
            .unwrap_err()
            .contains("bad signature"));
        assert!(verify(body, None, &trust)
            .unwrap_err()
            .contains("not signed"));
        let hk = "00112233445566778899aabbccddeeff";
        let hs = sign_hmac(body, hk).unwrap();
        let ht = Trust {
            hmac: vec![hk.into()],
            ..Trust::default()
        };
        assert_eq!(verify(body, Some(&hs), &ht).unwrap().trust, "hmac");
        let pinned = Trust {
            sha256: vec![crate::text::hex(&Sha256::digest(body))],
            ..Trust::default()
        };
        assert_eq!(verify(body, None, &pinned).unwrap().trust, "sha256");
        assert!(match_rules(
            r#"[{"pack":"p","id":"a.b","family":"a","literals":["quietly wire"],"pattern":"quietly wire the (?:funds|money)"}]"#,
            "Then QUIETLY   wire the money."
        )
        .is_some());
    }

    #[test]
    fn the_committed_baseline_pack_verifies_with_the_built_in_key() {
        let body = include_bytes!("../../configs/threat-packs/baseline.pack.json");
        let sig = include_str!("../../configs/threat-packs/baseline.pack.json.sig");
        let trust = Trust {
            ed25519: vec![BASELINE_KEY.trim().to_string()],
            ..Trust::default()
        };
        let v = verify(body, Some(sig), &trust).unwrap();
        assert_eq!(v.pack.name, "baseline");
        assert!(!v.pack.indicators.is_empty() && !v.pack.rules.is_empty());
    }
}
