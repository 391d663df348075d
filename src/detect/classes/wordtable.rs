//! The word-class vocabulary ([`super::VOCAB`]) and the substring lists (`CJK_*`) as tables the
//! compiler builds: the hook builds nothing per process.
//!
//! - Words are keyed as the scanned text writes them: an ASCII word as written, any other word
//!   normalized like the text ([`super::super::normalize::normalize`]). The normal forms of the
//!   non-ASCII words come from `folded.rs`, a generated table (word, normal form); the test
//!   `folded_table_is_current` fails while it lacks a word or disagrees with the normalizer,
//!   and writes it when run with `INTENTSHIELD_REGENERATE=1`:
//!
//!   ```text
//!   INTENTSHIELD_REGENERATE=1 cargo test --lib classes::wordtable::tests::folded_table_is_current
//!   ```
//!
//! - [`Words`]: an open-addressing table (FNV-1a, linear probing, at most half full) built by
//!   a `const fn` from `VOCAB`: one hash and one or two probes per lookup; a word listed under
//!   several classes has their union, as before.
//! - A word that `folded.rs` does not have yet (added to `VOCAB` after the table was last
//!   generated) is still found: such words are normalized at run time, once per process, in a
//!   small side map (the cost the table saves comes back only until it is regenerated).

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{CJK_ADDRESSEE, CJK_ADDRESS_CUE, CJK_INSTR, CJK_OVERRIDE, CJK_SECRECY, VOCAB};

#[rustfmt::skip]
mod folded;

use folded::FOLDED;

const fn str_eq(a: &str, b: &str) -> bool {
    bytes_eq(a.as_bytes(), b.as_bytes())
}

use crate::strtab::bytes_eq;

/// FNV-1a over the bytes of `s`.
const fn fnv(s: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < s.len() {
        h ^= s[i] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h
}

/// The key of a vocabulary word: itself when ASCII, else its normal form from `folded.rs`
/// (`None` when the table does not have the word yet).
const fn key_of(w: &'static str) -> Option<&'static str> {
    if w.is_ascii() {
        return Some(w);
    }
    let mut i = 0;
    while i < FOLDED.len() {
        if str_eq(FOLDED[i].0, w) {
            return Some(FOLDED[i].1);
        }
        i += 1;
    }
    None
}

/// Number of word entries in `VOCAB` (a word listed twice counts twice).
const fn vocab_len() -> usize {
    let mut n = 0;
    let mut c = 0;
    while c < VOCAB.len() {
        n += VOCAB[c].1.len();
        c += 1;
    }
    n
}

/// True when some non-ASCII word of `VOCAB` is missing from `folded.rs`.
const fn vocab_incomplete() -> bool {
    let mut c = 0;
    while c < VOCAB.len() {
        let ws = VOCAB[c].1;
        let mut i = 0;
        while i < ws.len() {
            if key_of(ws[i]).is_none() {
                return true;
            }
            i += 1;
        }
        c += 1;
    }
    false
}

/// Slots of the table: a power of two at least twice the number of words.
const SLOTS: usize = (vocab_len() * 2 + 2).next_power_of_two();
const INCOMPLETE: bool = vocab_incomplete();

/// Bytes of all keys written one after the other (at most; a word listed twice is stored once).
const KEY_CAP: usize = {
    let mut n = 0;
    let mut c = 0;
    while c < VOCAB.len() {
        let ws = VOCAB[c].1;
        let mut i = 0;
        while i < ws.len() {
            if let Some(k) = key_of(ws[i]) {
                n += k.len();
            }
            i += 1;
        }
        c += 1;
    }
    n
};

/// The table: per slot `(start, length, classes)` of its key in the key bytes (classes 0
/// marks an empty slot: a word without classes adds nothing to a lookup, so it is not stored),
/// and the key bytes. Offsets instead of `&str` keys: the table holds no pointer, so the
/// start-up code has nothing to relocate in it and its pages stay shared with the file
/// (`crate::strtab` on why that matters in a static PIE).
static TABLE: ([(u32, u16, u64); SLOTS], [u8; KEY_CAP]) = build_table();

const fn build_table() -> ([(u32, u16, u64); SLOTS], [u8; KEY_CAP]) {
    let mut t: [(u32, u16, u64); SLOTS] = [(0, 0, 0); SLOTS];
    let mut keys = [0u8; KEY_CAP];
    let mut used = 0usize;
    let mut c = 0;
    while c < VOCAB.len() {
        let (cls, ws) = VOCAB[c];
        let mut i = 0;
        while i < ws.len() {
            if let Some(k) = key_of(ws[i]) {
                if cls != 0 {
                    let kb = k.as_bytes();
                    assert!(kb.len() <= u16::MAX as usize, "key too long");
                    let mut s = (fnv(kb) as usize) & (SLOTS - 1);
                    loop {
                        if t[s].2 == 0 {
                            let mut b = 0;
                            while b < kb.len() {
                                keys[used + b] = kb[b];
                                b += 1;
                            }
                            t[s] = (used as u32, kb.len() as u16, cls);
                            used += kb.len();
                            break;
                        }
                        if bytes_eq(slot_key(&keys, t[s]), kb) {
                            t[s].2 |= cls;
                            break;
                        }
                        s = (s + 1) & (SLOTS - 1);
                    }
                }
            }
            i += 1;
        }
        c += 1;
    }
    (t, keys)
}

/// The key bytes of `slot` in `keys`.
const fn slot_key(keys: &[u8], slot: (u32, u16, u64)) -> &[u8] {
    let (head, _) = keys.split_at(slot.0 as usize + slot.1 as usize);
    head.split_at(slot.0 as usize).1
}

pub(super) fn norm_word(w: &str) -> String {
    super::super::normalize::normalize(w).text
}

/// Words of `VOCAB` that `folded.rs` lacks, normalized at run time (empty when it is current).
fn late_words() -> &'static HashMap<String, u64> {
    static LATE: OnceLock<HashMap<String, u64>> = OnceLock::new();
    LATE.get_or_init(|| {
        let mut m = HashMap::new();
        for (cls, ws) in VOCAB {
            for w in ws.iter().filter(|w| key_of(w).is_none()) {
                *m.entry(norm_word(w)).or_insert(0) |= cls;
            }
        }
        m
    })
}

/// Word → classes.
pub(super) struct Words;

impl Words {
    /// The classes of a token as the normalized text writes it; `None` when it is no
    /// vocabulary word.
    #[inline]
    pub(super) fn get(&self, w: &str) -> Option<u64> {
        let mut s = (fnv(w.as_bytes()) as usize) & (SLOTS - 1);
        let mut found = loop {
            let slot = TABLE.0[s];
            if slot.2 == 0 {
                break None;
            }
            if slot_key(&TABLE.1, slot) == w.as_bytes() {
                break Some(slot.2);
            }
            s = (s + 1) & (SLOTS - 1);
        };
        if INCOMPLETE {
            if let Some(&c) = late_words().get(w) {
                found = Some(found.unwrap_or(0) | c);
            }
        }
        found
    }
}

/// Number of non-empty normal forms of `list` (when all are known).
const fn folded_len(list: &[&'static str]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < list.len() {
        if let Some(k) = key_of(list[i]) {
            if !k.is_empty() {
                n += 1;
            }
        }
        i += 1;
    }
    n
}

const fn list_complete(list: &[&'static str]) -> bool {
    let mut i = 0;
    while i < list.len() {
        if key_of(list[i]).is_none() {
            return false;
        }
        i += 1;
    }
    true
}

/// The non-empty normal forms of `list`, in its order.
const fn fold_list<const N: usize>(list: &[&'static str]) -> [&'static str; N] {
    let mut out: [&'static str; N] = [""; N];
    let mut n = 0;
    let mut i = 0;
    while i < list.len() {
        if let Some(k) = key_of(list[i]) {
            if !k.is_empty() && n < N {
                out[n] = k;
                n += 1;
            }
        }
        i += 1;
    }
    out
}

static CJK_OVERRIDE_N: [&str; folded_len(CJK_OVERRIDE)] = fold_list(CJK_OVERRIDE);
static CJK_INSTR_N: [&str; folded_len(CJK_INSTR)] = fold_list(CJK_INSTR);
static CJK_SECRECY_N: [&str; folded_len(CJK_SECRECY)] = fold_list(CJK_SECRECY);
static CJK_ADDRESSEE_N: [&str; folded_len(CJK_ADDRESSEE)] = fold_list(CJK_ADDRESSEE);
static CJK_ADDRESS_CUE_N: [&str; folded_len(CJK_ADDRESS_CUE)] = fold_list(CJK_ADDRESS_CUE);

/// The non-empty normal forms of `list`: the compiled ones, or (for a list `folded.rs` does
/// not cover yet) normalized once at run time.
fn list_of(
    list: &'static [&'static str],
    complete: bool,
    compiled: &'static [&'static str],
    late: &'static OnceLock<Vec<&'static str>>,
) -> &'static [&'static str] {
    // `complete` is `list_complete(list)` worked out at compile time (at run time it is a
    // search of the folded table per word).
    if complete {
        return compiled;
    }
    late.get_or_init(|| {
        list.iter()
            .map(|s| norm_word(s))
            .filter(|s| !s.is_empty())
            .map(|s| &*Box::leak(s.into_boxed_str()))
            .collect()
    })
}

/// The vocabulary the tokenizer and the substring matcher use.
pub(super) struct Vocab {
    pub(super) words: Words,
    pub(super) cjk_override: &'static [&'static str],
    pub(super) cjk_instr: &'static [&'static str],
    pub(super) cjk_secrecy: &'static [&'static str],
    pub(super) cjk_addressee: &'static [&'static str],
    pub(super) cjk_address_cue: &'static [&'static str],
}

pub(super) fn vocab() -> &'static Vocab {
    static V: OnceLock<Vocab> = OnceLock::new();
    static L: [OnceLock<Vec<&'static str>>; 5] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    V.get_or_init(|| Vocab {
        words: Words,
        cjk_override: list_of(
            CJK_OVERRIDE,
            const { list_complete(CJK_OVERRIDE) },
            &CJK_OVERRIDE_N,
            &L[0],
        ),
        cjk_instr: list_of(
            CJK_INSTR,
            const { list_complete(CJK_INSTR) },
            &CJK_INSTR_N,
            &L[1],
        ),
        cjk_secrecy: list_of(
            CJK_SECRECY,
            const { list_complete(CJK_SECRECY) },
            &CJK_SECRECY_N,
            &L[2],
        ),
        cjk_addressee: list_of(
            CJK_ADDRESSEE,
            const { list_complete(CJK_ADDRESSEE) },
            &CJK_ADDRESSEE_N,
            &L[3],
        ),
        cjk_address_cue: list_of(
            CJK_ADDRESS_CUE,
            const { list_complete(CJK_ADDRESS_CUE) },
            &CJK_ADDRESS_CUE_N,
            &L[4],
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every non-ASCII word of `VOCAB` and the `CJK_*` lists, in order of appearance, once.
    fn non_ascii_words() -> Vec<&'static str> {
        let mut v: Vec<&'static str> = Vec::new();
        let lists = VOCAB.iter().map(|(_, ws)| *ws).chain([
            CJK_OVERRIDE,
            CJK_INSTR,
            CJK_SECRECY,
            CJK_ADDRESSEE,
            CJK_ADDRESS_CUE,
        ]);
        for ws in lists {
            for w in ws {
                if !w.is_ascii() && !v.contains(w) {
                    v.push(w);
                }
            }
        }
        v
    }

    /// `folded.rs` holds exactly the normal form of every non-ASCII word.
    #[test]
    fn folded_table_is_current() {
        let mut want = String::from(
            "// @generated by the test classes::wordtable::tests::folded_table_is_current: do not edit.\n\
             // Regenerate (after adding non-ASCII words to VOCAB or the CJK_* lists in classes.rs):\n\
             //   INTENTSHIELD_REGENERATE=1 cargo test --lib classes::wordtable::tests::folded_table_is_current\n\n\
             /// (word as classes.rs writes it, its normal form as `normalize` gives it).\n\
             pub(super) const FOLDED: &[(&str, &str)] = &[\n",
        );
        for w in non_ascii_words() {
            want.push_str(&format!("    ({w:?}, {:?}),\n", norm_word(w)));
        }
        want.push_str("];\n");
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/detect/classes/wordtable/folded.rs"
        );
        if std::env::var_os("INTENTSHIELD_REGENERATE").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap();
        assert!(
            have == want,
            "src/detect/classes/wordtable/folded.rs is stale; regenerate it: INTENTSHIELD_REGENERATE=1 cargo test --lib classes::wordtable::tests::folded_table_is_current"
        );
        assert!(!vocab_incomplete(), "folded.rs lacks a VOCAB word");
    }

    /// The map the hook built per process before the table: ASCII words as written, the others
    /// normalized, classes united.
    fn runtime_map() -> HashMap<String, u64> {
        let mut m: HashMap<String, u64> = HashMap::new();
        for (cls, ws) in VOCAB {
            for w in *ws {
                let k = if w.is_ascii() {
                    w.to_string()
                } else {
                    norm_word(w)
                };
                *m.entry(k).or_insert(0) |= cls;
            }
        }
        m
    }

    #[test]
    fn every_word_has_the_classes_of_the_runtime_map() {
        let m = runtime_map();
        let v = vocab();
        for (k, &cls) in &m {
            assert_eq!(v.words.get(k).unwrap_or(0), cls, "{k:?}");
        }
        // Nothing else is in the table.
        for &slot in TABLE.0.iter().filter(|s| s.2 != 0) {
            let k = std::str::from_utf8(slot_key(&TABLE.1, slot)).unwrap();
            assert_eq!(m.get(k), Some(&slot.2), "{k:?}");
        }
        for w in ["", "x", "ignor", "ignores_", "the", "résumé", "игнор"] {
            assert_eq!(
                v.words.get(w).unwrap_or(0),
                m.get(w).copied().unwrap_or(0),
                "{w:?}"
            );
        }
    }

    #[test]
    fn substring_lists_are_the_normalized_ones() {
        let n = |l: &[&str]| -> Vec<String> {
            l.iter()
                .map(|s| norm_word(s))
                .filter(|s| !s.is_empty())
                .collect()
        };
        let v = vocab();
        let owned = |l: &[&str]| -> Vec<String> { l.iter().map(|s| s.to_string()).collect() };
        assert_eq!(owned(v.cjk_override), n(CJK_OVERRIDE));
        assert_eq!(owned(v.cjk_instr), n(CJK_INSTR));
        assert_eq!(owned(v.cjk_secrecy), n(CJK_SECRECY));
        assert_eq!(owned(v.cjk_addressee), n(CJK_ADDRESSEE));
        assert_eq!(owned(v.cjk_address_cue), n(CJK_ADDRESS_CUE));
        assert!(list_complete(CJK_OVERRIDE) && list_complete(CJK_INSTR));
    }
}
