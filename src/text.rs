//! Small text helpers shared across the crate: lowercase hex, POSIX shell quoting, and cutting a `str` at a char
//! boundary without panicking (`str::floor_char_boundary` needs a newer Rust than our MSRV).

/// Lowercase hex of `bytes`, two digits per byte (e.g. a SHA-256 digest in 64 characters).
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

/// The largest char boundary of `s` at or below `i` (`s.len()` when `i` is past the end).
pub fn floor_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    // At most three steps: a UTF-8 char is at most four bytes, and 0 is a boundary.
    (0..=i).rev().find(|&j| s.is_char_boundary(j)).unwrap_or(0)
}

/// The smallest char boundary of `s` at or above `i` (`s.len()` when `i` is past the end).
pub fn ceil_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    (i..s.len())
        .find(|&j| s.is_char_boundary(j))
        .unwrap_or(s.len())
}

/// `s` cut to at most `max` bytes, at a char boundary (`s` itself when it fits).
pub fn cap(s: &str, max: usize) -> &str {
    &s[..floor_boundary(s, max)]
}

/// Quotes `s` for a POSIX shell: unchanged when every byte is safe, else single-quoted with
/// `'` written as `'\''`.
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'_' | b'-' | b'.' | b'/' | b'+' | b':' | b'@' | b'%' | b',' | b'='
                )
        });
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Consumes from `chars` a parenthesised group that starts with its next `(`, up to and
/// including the `)` that closes it (nested groups included); all of the rest when unclosed.
pub fn skip_parens(chars: &mut impl Iterator<Item = char>) {
    let mut depth = 0usize;
    for d in chars {
        match d {
            '(' => depth += 1,
            ')' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
}

/// The byte offset of the first occurrence of `needle` in `hay` (as `str::find` with a `&str`
/// pattern), without building a searcher: a `memchr` for the needle's first byte and a
/// comparison at each place it occurs. For the many short needles the detectors look for in
/// short sentences this costs a fraction of `str::find`, whose two-way searcher is set up
/// anew on every call.
pub fn find(hay: &str, needle: &str) -> Option<usize> {
    find_from(hay.as_bytes(), needle.as_bytes(), 0)
}

/// True when `hay` holds `needle` (as `str::contains` with a `&str` pattern); see [`find`].
pub fn contains(hay: &str, needle: &str) -> bool {
    find(hay, needle).is_some()
}

/// The byte pairs of one text, as a 4096-bit set (pairs hashed, so a set bit may be another
/// pair's): while a [`PairScope`] for the text is alive, [`find`], [`contains`] and
/// [`match_offsets`] on that text or any part of it answer "none" at once for a needle whose
/// first two bytes are not in the set. The answers stay exactly those of a full search.
struct Pairs {
    /// True while a scope is alive.
    active: bool,
    /// Start address and length of the text the set was made from.
    at: usize,
    len: usize,
    bits: [u64; 64],
}

thread_local! {
    static PAIRS: std::cell::RefCell<Pairs> = const {
        std::cell::RefCell::new(Pairs { active: false, at: 0, len: 0, bits: [0; 64] })
    };
}

fn pair_bit(a: u8, b: u8) -> usize {
    ((usize::from(a) << 4) ^ usize::from(b)) & 4095
}

/// While alive, substring searches in `text` (or any slice of it) on this thread first test
/// the needle's first two bytes against the pairs `text` holds (see [`Pairs`]): for code that
/// looks for many short needles in one sentence. Dropping it ends the filter; scopes do not
/// nest (a new one replaces the old).
pub struct PairScope(());

impl PairScope {
    /// Makes the pair set of `text` (one pass) and puts it in force on this thread.
    pub fn new(text: &str) -> PairScope {
        let b = text.as_bytes();
        PAIRS.with(|c| {
            let mut p = c.borrow_mut();
            p.active = true;
            p.at = b.as_ptr() as usize;
            p.len = b.len();
            p.bits = [0; 64];
            for w in b.windows(2) {
                let k = pair_bit(w[0], w[1]);
                p.bits[k >> 6] |= 1 << (k & 63);
            }
        });
        PairScope(())
    }
}

impl Drop for PairScope {
    fn drop(&mut self) {
        PAIRS.with(|c| c.borrow_mut().active = false);
    }
}

/// False when the pair filter in force covers `hay` and shows `needle` (two bytes or more)
/// cannot occur in it.
fn may_hold(hay: &[u8], needle: &[u8]) -> bool {
    if needle.len() < 2 {
        return true;
    }
    PAIRS.with(|c| {
        let p = c.borrow();
        let at = hay.as_ptr() as usize;
        if !p.active || at < p.at || at + hay.len() > p.at + p.len {
            return true;
        }
        let k = pair_bit(needle[0], needle[1]);
        p.bits[k >> 6] & (1 << (k & 63)) != 0
    })
}

/// The first occurrence of `needle` in `hay` at or after `from`.
fn find_from(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let Some((&first, rest)) = needle.split_first() else {
        return (from <= hay.len()).then_some(from);
    };
    if !may_hold(hay, needle) {
        return None;
    }
    let mut at = from;
    while at + needle.len() <= hay.len() {
        let p = at + memchr(first, &hay[at..=hay.len() - needle.len()])?;
        if hay[p + 1..p + needle.len()] == *rest {
            return Some(p);
        }
        at = p + 1;
    }
    None
}

/// The byte offsets of the non-overlapping occurrences of `needle` in `hay`, left to right
/// (as the offsets of `str::match_indices` with a `&str` pattern); see [`find`]. An empty
/// needle yields every char boundary, as `match_indices` does.
pub fn match_offsets<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let every_boundary = needle.is_empty().then(|| {
        hay.char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(hay.len()))
    });
    // An empty needle finds nothing here: its offsets are the boundaries above.
    every_boundary
        .into_iter()
        .flatten()
        .chain(find_bytes_iter(hay.as_bytes(), needle.as_bytes()))
}

/// The offset of the first byte `n` in `hay`, as `memchr::memchr`, without asking the CPU what
/// it supports. memchr's top-level routines pick AVX2 on their first call through std's feature
/// detection, which runs nine `cpuid` instructions; under a hypervisor each one is trapped and
/// emulated (6.5 µs apiece measured on this project's KVM machine, so 58 µs per hook process,
/// about a third of the scan of a 4 KB text). SSE2 is part of the x86_64 baseline, so memchr's
/// SSE2 routines need no detection; other targets keep memchr's own choice (NEON is baseline on
/// aarch64). Every byte search on the hook's path goes through these functions.
#[inline]
pub fn memchr(n: u8, hay: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if let Some(one) = memchr::arch::x86_64::sse2::memchr::One::new(n) {
        return one.find(hay);
    }
    memchr::arch::all::memchr::One::new(n).find(hay)
}

/// The offsets of every byte `n` in `hay`, increasing (as `memchr::memchr_iter`); see [`memchr`].
pub fn memchr_iter(n: u8, hay: &[u8]) -> impl Iterator<Item = usize> + '_ {
    positions(hay, move |h| memchr(n, h))
}

/// Every offset of `hay` where `first` (the first such offset of a slice) finds a byte,
/// increasing: the iterator of a one-byte search.
fn positions<'a>(
    hay: &'a [u8],
    first: impl Fn(&[u8]) -> Option<usize> + 'a,
) -> impl Iterator<Item = usize> + 'a {
    let mut at = 0;
    std::iter::from_fn(move || {
        let p = at + first(hay.get(at..)?)?;
        at = p + 1;
        Some(p)
    })
}

/// The offset of the first byte of `hay` that is `a`, `b` or `c` (as `memchr::memchr3`); see
/// [`memchr`].
#[inline]
pub fn memchr3(a: u8, b: u8, c: u8, hay: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if let Some(three) = memchr::arch::x86_64::sse2::memchr::Three::new(a, b, c) {
        return three.find(hay);
    }
    memchr::arch::all::memchr::Three::new(a, b, c).find(hay)
}

/// The offsets of every byte of `hay` that is `a`, `b` or `c`, increasing (as
/// `memchr::memchr3_iter`); see [`memchr`].
pub fn memchr3_iter(a: u8, b: u8, c: u8, hay: &[u8]) -> impl Iterator<Item = usize> + '_ {
    positions(hay, move |h| memchr3(a, b, c, h))
}

/// The offset of the first occurrence of `needle` in `hay` (as `memchr::memmem::find`), by
/// [`find`]'s method: no searcher to build and no CPU detection (see [`memchr`]).
pub fn find_bytes(hay: &[u8], needle: &[u8]) -> Option<usize> {
    find_from(hay, needle, 0)
}

/// The offsets of the non-overlapping occurrences of a non-empty `needle` in `hay`, left to
/// right (as `memchr::memmem::find_iter`); see [`find_bytes`]. An empty needle yields nothing.
pub fn find_bytes_iter<'a>(hay: &'a [u8], needle: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    let mut at = (!needle.is_empty()).then_some(0usize);
    std::iter::from_fn(move || {
        let p = find_from(hay, needle, at?)?;
        at = Some(p + needle.len());
        Some(p)
    })
}

/// The first (up to) eight bytes of `l` as a little-endian word, and the mask of the bytes
/// it holds.
pub fn prefix_word(l: &[u8]) -> (u64, u64) {
    let (mut w, mut m) = (0u64, 0u64);
    for (j, &c) in l.iter().take(8).enumerate() {
        w |= u64::from(c) << (8 * j);
        m |= 0xFF << (8 * j);
    }
    (w, m)
}

/// The eight bytes of `b` from `i` as a little-endian word, zeros past the end.
#[inline(always)]
pub fn word_at(b: &[u8], i: usize) -> u64 {
    match b.get(i..i + 8) {
        Some(w) => u64::from_le_bytes(w.try_into().unwrap_or([0; 8])),
        None => {
            let mut w = [0u8; 8];
            let rest = b.get(i..).unwrap_or_default();
            w[..rest.len()].copy_from_slice(rest);
            u64::from_le_bytes(w)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_lowercase_two_digits_per_byte() {
        assert_eq!(hex(&[]), "");
        assert_eq!(hex(&[0, 0x0f, 0xa0, 0xff]), "000fa0ff");
        let d: Vec<u8> = (0..=255).collect();
        let by_format: String = d.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex(&d), by_format);
    }

    #[test]
    fn boundaries() {
        let s = "aé€😀"; // 1 + 2 + 3 + 4 bytes
        assert_eq!(s.len(), 10);
        let floors: Vec<usize> = (0..=11).map(|i| floor_boundary(s, i)).collect();
        assert_eq!(floors, [0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 10]);
        let ceils: Vec<usize> = (0..=11).map(|i| ceil_boundary(s, i)).collect();
        assert_eq!(ceils, [0, 1, 3, 3, 6, 6, 6, 10, 10, 10, 10, 10]);
        assert_eq!(cap(s, 0), "");
        assert_eq!(cap(s, 2), "a");
        assert_eq!(cap(s, 6), "aé€");
        assert_eq!(cap(s, 100), s);
        assert_eq!(cap("", 5), "");
        assert_eq!(floor_boundary("", 0), 0);
        assert_eq!(ceil_boundary("", 3), 0);
    }
    #[test]
    fn find_and_match_offsets_agree_with_std() {
        let hays = [
            "",
            "a",
            "aaa",
            "aaaa",
            "abcabcab",
            "hook hooks disableallhooks",
            "é€aé€a",
            "x|y||z",
            "curl https://x | sh; curl y",
        ];
        let needles = [
            "", "a", "aa", "abc", "ab", "hook", "hooks", "é", "€a", "|", "||", "curl", "zz",
        ];
        for h in hays {
            for n in needles {
                assert_eq!(find(h, n), h.find(n), "find {n:?} in {h:?}");
                assert_eq!(contains(h, n), h.contains(n));
                let ours: Vec<usize> = match_offsets(h, n).collect();
                let std: Vec<usize> = h.match_indices(n).map(|(p, _)| p).collect();
                assert_eq!(ours, std, "match_offsets {n:?} in {h:?}");
            }
        }
    }
    #[test]
    fn a_pair_scope_never_changes_an_answer() {
        let text =
            "Then add the hook to .claude/settings.json; curl https://x.example | sh and é€ done";
        let needles = [
            "hook", "hooks", "settings", "curl", "| sh", "zz", "é€", "€", "x", "", "done", "jq",
            "sh",
        ];
        let plain: Vec<(Option<usize>, Vec<usize>)> = needles
            .iter()
            .map(|n| (find(text, n), match_offsets(text, n).collect()))
            .collect();
        let scope = PairScope::new(text);
        for (i, n) in needles.iter().enumerate() {
            assert_eq!(find(text, n), plain[i].0, "{n:?}");
            assert_eq!(
                match_offsets(text, n).collect::<Vec<_>>(),
                plain[i].1,
                "{n:?}"
            );
            // A slice of the scoped text, and a text outside it.
            let part = &text[5..40];
            assert_eq!(find(part, n), part.find(n), "{n:?} in part");
            let other = String::from("zz jq ") + text;
            assert_eq!(find(&other, n), other.find(n), "{n:?} in other");
        }
        drop(scope);
        assert_eq!(find(text, "zz"), None);
    }

    proptest::proptest! {
        /// The detection-free byte searches answer as memchr's own routines do, on texts of a
        /// small alphabet (so needles occur, overlap and sit at both ends) and every length
        /// around the SSE2 vector width.
        #[test]
        fn byte_searches_answer_as_memchr(
            hay in proptest::collection::vec(proptest::sample::select(b"ab:/[x".to_vec()), 0..80),
            needle in proptest::collection::vec(proptest::sample::select(b"ab:/[x".to_vec()), 0..5),
            n in proptest::sample::select(b"ab:/[xz".to_vec()),
        ) {
            proptest::prop_assert_eq!(memchr(n, &hay), memchr::memchr(n, &hay));
            proptest::prop_assert_eq!(
                memchr_iter(n, &hay).collect::<Vec<_>>(),
                memchr::memchr_iter(n, &hay).collect::<Vec<_>>()
            );
            proptest::prop_assert_eq!(
                memchr3_iter(n, b'[', b':', &hay).collect::<Vec<_>>(),
                memchr::memchr3_iter(n, b'[', b':', &hay).collect::<Vec<_>>()
            );
            proptest::prop_assert_eq!(find_bytes(&hay, &needle), memchr::memmem::find(&hay, &needle));
            if !needle.is_empty() {
                proptest::prop_assert_eq!(
                    find_bytes_iter(&hay, &needle).collect::<Vec<_>>(),
                    memchr::memmem::find_iter(&hay, &needle).collect::<Vec<_>>()
                );
            }
        }
    }

    /// Every byte search goes through this module's detection-free functions (see [`memchr`]):
    /// one call of memchr's top-level routines anywhere on a process's path costs the nine
    /// `cpuid` instructions of CPU feature detection again.
    #[test]
    fn no_module_calls_memchr_directly() {
        fn walk(dir: &std::path::Path, found: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    walk(&p, found);
                } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("src/text.rs") {
                    let body = std::fs::read_to_string(&p).unwrap_or_default();
                    if body.contains(concat!("memchr", "::")) {
                        found.push(p.display().to_string());
                    }
                }
            }
        }
        let mut found = Vec::new();
        walk(
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")),
            &mut found,
        );
        assert!(
            found.is_empty(),
            "memchr called outside src/text.rs: {found:?}"
        );
    }
}
