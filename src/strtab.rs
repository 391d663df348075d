//! String tables without run-time relocations.
//!
//! The binary is a static PIE: every pointer stored in a `static` (a `&'static str` in a table,
//! a slice of them, a string field of a struct) is one `R_X86_64_RELATIVE` relocation that the
//! start-up code applies on every run, and the page it writes is copied on write. A
//! [`StrTable`] holds its strings joined in one `&'static str` plus an end offset per entry, so
//! a table of any length costs two relocations (the two slices), and an entry is a slice of the
//! joined string (two loads and a char-boundary check).
//!
//! The entries stay written as string literals in the source: [`str_table!`] joins them at
//! compile time (`const fn`), and the `const fn` helpers here ([`joined_len`], [`join`],
//! [`ends`]) serve tables of structs that keep indices into a [`StrTable`] instead of strings.

/// A list of strings stored as one joined string and the end offset of each entry.
#[derive(Debug, Clone, Copy)]
pub struct StrTable {
    joined: &'static str,
    ends: &'static [u32],
}

impl StrTable {
    /// The table whose entry `i` is `joined[ends[i - 1]..ends[i]]` (from 0 for the first).
    ///
    /// Fails to compile (when used in a constant) if `joined` is not UTF-8 or an offset is out
    /// of order or past the end; at run time it panics in that case.
    pub const fn from_parts(joined: &'static [u8], ends: &'static [u32]) -> StrTable {
        let mut i = 0;
        let mut prev = 0u32;
        while i < ends.len() {
            assert!(
                ends[i] >= prev && ends[i] as usize <= joined.len(),
                "bad offsets"
            );
            prev = ends[i];
            i += 1;
        }
        match core::str::from_utf8(joined) {
            Ok(joined) => StrTable { joined, ends },
            Err(_) => panic!("string table is not UTF-8"),
        }
    }

    /// The table of `list`, built at run time: its joined string and offsets are leaked, for a
    /// table that lives as long as the process (an index built once, `LiteralIndex::new`).
    ///
    /// # Panics
    ///
    /// When the entries together exceed `u32::MAX` bytes.
    pub fn leaked(list: &[&str]) -> StrTable {
        let joined: &'static str = list.concat().leak();
        let mut at = 0usize;
        let ends: Vec<u32> = list
            .iter()
            .map(|l| {
                at += l.len();
                u32::try_from(at).expect("string table under 4 GiB")
            })
            .collect();
        StrTable {
            joined,
            ends: ends.leak(),
        }
    }

    /// Number of entries.
    pub const fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when the table has no entry.
    pub const fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The bytes of entry `i`, usable in constants (tables built at compile time from a
    /// table). Panics (fails to compile in a constant) past the end.
    pub const fn bytes_at(&self, i: usize) -> &'static [u8] {
        let end = self.ends[i] as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        let (head, _) = self.joined.as_bytes().split_at(end);
        let (_, entry) = head.split_at(start);
        entry
    }

    /// Entry `i`, or `None` past the end.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&'static str> {
        let end = *self.ends.get(i)? as usize;
        let start = match i.checked_sub(1) {
            Some(p) => self.ends[p] as usize,
            None => 0,
        };
        self.joined.get(start..end)
    }

    /// Entry `i`, or `""` past the end (for indices a generated table holds, always in range).
    #[inline]
    pub fn at(&self, i: usize) -> &'static str {
        self.get(i).unwrap_or("")
    }

    /// The entries `first..first + count` (fewer past the end).
    pub fn range(&self, first: usize, count: usize) -> Iter<'static> {
        let end = first.saturating_add(count).min(self.len());
        let first = first.min(end);
        let start = match first.checked_sub(1) {
            Some(p) => self.ends[p] as usize,
            None => 0,
        };
        Iter {
            rest: self.joined.get(start..).unwrap_or(""),
            ends: self.ends[first..end].iter(),
            start: start as u32,
        }
    }

    /// The entries in order.
    pub fn iter(&self) -> Iter<'static> {
        Iter {
            rest: self.joined,
            ends: self.ends.iter(),
            start: 0,
        }
    }

    /// True when some entry equals `s` (lengths compared first, bytes only on equal length).
    pub fn contains(&self, s: &str) -> bool {
        let bytes = self.joined.as_bytes();
        let mut start = 0usize;
        for &end in self.ends {
            let end = end as usize;
            if end - start == s.len() && bytes.get(start..end) == Some(s.as_bytes()) {
                return true;
            }
            start = end;
        }
        false
    }

    /// Binary search for `s` in a table sorted in byte order (as `slice::binary_search`).
    ///
    /// # Errors
    ///
    /// `Err(i)` when `s` is absent, `i` being where it would be inserted.
    pub fn binary_search(&self, s: &str) -> Result<usize, usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.at(mid).cmp(s) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    /// The entries as a vector (for code that wants a slice).
    pub fn to_vec(&self) -> Vec<&'static str> {
        self.iter().collect()
    }
}

/// Entries `first..first + count` of a pool table (a [`StrTable`] or an array beside one): how
/// a pointer-free table entry names a list of strings (a static of these costs no start-up
/// relocation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// The first entry.
    pub first: u16,
    /// How many.
    pub count: u16,
}

impl Span {
    /// No entry.
    pub const EMPTY: Span = Span { first: 0, count: 0 };

    /// The span `first..first + count`; fails to compile (in a constant) past `u16::MAX`.
    pub const fn new(first: usize, count: usize) -> Span {
        assert!(
            first + count <= u16::MAX as usize,
            "pool too large for u16 indices"
        );
        Span {
            first: first as u16,
            count: count as u16,
        }
    }

    /// The indices it covers.
    pub fn range(self) -> std::ops::Range<usize> {
        let first = usize::from(self.first);
        first..first + usize::from(self.count)
    }
}

impl StrTable {
    /// The entries of `span` (fewer past the end).
    pub fn span(&self, span: Span) -> Iter<'static> {
        self.range(usize::from(span.first), usize::from(span.count))
    }
}

/// Iterator over entries of a [`StrTable`] (each a slice of the joined string).
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    /// The joined string from the next entry on.
    rest: &'a str,
    ends: std::slice::Iter<'a, u32>,
    /// Offset of `rest` in the joined string.
    start: u32,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        let end = *self.ends.next()?;
        let (s, rest) = self
            .rest
            .split_at_checked(end.wrapping_sub(self.start) as usize)
            .unwrap_or(("", ""));
        self.rest = rest;
        self.start = end;
        Some(s)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ends.size_hint()
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl IntoIterator for StrTable {
    type Item = &'static str;
    type IntoIter = Iter<'static>;

    fn into_iter(self) -> Iter<'static> {
        self.iter()
    }
}

impl IntoIterator for &StrTable {
    type Item = &'static str;
    type IntoIter = Iter<'static>;

    fn into_iter(self) -> Iter<'static> {
        self.iter()
    }
}

/// A list of strings a helper can take either as a slice (`&["a", "b"]`) or as a
/// [`StrTable`].
pub trait Strs<'a>: Copy {
    /// The iterator [`Strs::strs`] returns.
    type Iter: Iterator<Item = &'a str> + Clone;
    /// The strings in order.
    fn strs(self) -> Self::Iter;
}

impl<'a> Strs<'a> for &'a [&'a str] {
    type Iter = std::iter::Copied<std::slice::Iter<'a, &'a str>>;
    fn strs(self) -> Self::Iter {
        self.iter().copied()
    }
}

impl<'a, const N: usize> Strs<'a> for &'a [&'a str; N] {
    type Iter = std::iter::Copied<std::slice::Iter<'a, &'a str>>;
    fn strs(self) -> Self::Iter {
        self.iter().copied()
    }
}

impl<'a> Strs<'a> for StrTable {
    type Iter = Iter<'a>;
    fn strs(self) -> Iter<'a> {
        self.iter()
    }
}

/// Byte equality usable in constants (tables built at compile time compare keys with it).
pub const fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Total length in bytes of `list`'s entries.
pub const fn joined_len(list: &[&str]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < list.len() {
        n += list[i].len();
        i += 1;
    }
    n
}

/// `list`'s entries joined (`B` must be [`joined_len`]`(list)`; a compile error otherwise).
pub const fn join<const B: usize>(list: &[&str]) -> [u8; B] {
    let mut out = [0u8; B];
    let mut at = 0;
    let mut i = 0;
    while i < list.len() {
        let s = list[i].as_bytes();
        let mut k = 0;
        while k < s.len() {
            out[at] = s[k];
            at += 1;
            k += 1;
        }
        i += 1;
    }
    assert!(at == B, "joined length mismatch");
    out
}

/// End offset of each entry of `list` in its joined form (`N` must be `list.len()`).
pub const fn ends<const N: usize>(list: &[&str]) -> [u32; N] {
    assert!(list.len() == N, "entry count mismatch");
    let mut out = [0u32; N];
    let mut at = 0usize;
    let mut i = 0;
    while i < N {
        at += list[i].len();
        assert!(at <= u32::MAX as usize, "table too large");
        out[i] = at as u32;
        i += 1;
    }
    out
}

/// A [`StrTable`] of the given string literals (or of one constant `&[&str]` written
/// `str_table!(@list NAME)`), joined at compile time.
///
/// ```
/// use intentshield::str_table;
/// static T: intentshield::strtab::StrTable = str_table!["ab", "", "cde"];
/// assert_eq!(T.iter().collect::<Vec<_>>(), ["ab", "", "cde"]);
/// ```
#[macro_export]
macro_rules! str_table {
    (@list $list:expr) => {{
        const __STRTAB_LIST: &[&str] = $list;
        const __STRTAB_BYTES: [u8; $crate::strtab::joined_len(__STRTAB_LIST)] =
            $crate::strtab::join(__STRTAB_LIST);
        const __STRTAB_ENDS: [u32; __STRTAB_LIST.len()] = $crate::strtab::ends(__STRTAB_LIST);
        $crate::strtab::StrTable::from_parts(&__STRTAB_BYTES, &__STRTAB_ENDS)
    }};
    ($($s:expr),* $(,)?) => {
        $crate::str_table!(@list &[$($s),*])
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    static EMPTY: StrTable = str_table![];
    static WORDS: StrTable = str_table!["alpha", "", "βeta", "gamma", "δ"];
    const LIST: &[&str] = &["x", "yy", "zzz"];
    static FROM_LIST: StrTable = str_table!(@list LIST);

    /// A table built at run time reads back like one built at compile time; a span reads its
    /// entries.
    #[test]
    fn run_time_tables_and_spans_read_back() {
        let want = ["alpha", "", "βeta", "gamma", "δ"];
        let t = StrTable::leaked(&want);
        assert_eq!(t.to_vec(), WORDS.to_vec());
        assert_eq!(
            t.span(Span::new(1, 3)).collect::<Vec<_>>(),
            ["", "βeta", "gamma"]
        );
        assert_eq!(t.span(Span::new(4, 9)).collect::<Vec<_>>(), ["δ"]);
        assert_eq!(t.span(Span::EMPTY).count(), 0);
        assert_eq!(Span::new(2, 3).range(), 2..5);
        assert!(StrTable::leaked(&[]).is_empty());
    }

    #[test]
    fn entries_read_back_as_written() {
        let want = ["alpha", "", "βeta", "gamma", "δ"];
        assert_eq!(WORDS.len(), want.len());
        assert_eq!(WORDS.iter().collect::<Vec<_>>(), want);
        for (i, w) in want.iter().enumerate() {
            assert_eq!(WORDS.get(i), Some(*w));
            assert_eq!(WORDS.at(i), *w);
        }
        assert_eq!(WORDS.get(5), None);
        assert_eq!(WORDS.at(usize::MAX), "");
        assert!(WORDS.contains("gamma") && WORDS.contains("") && !WORDS.contains("gam"));
        assert_eq!(FROM_LIST.to_vec(), LIST);
        let mut got = Vec::new();
        for w in &WORDS {
            got.push(w);
        }
        assert_eq!(got, want);
        assert_eq!(WORDS.range(1, 3).len(), 3);
    }

    #[test]
    fn binary_search_agrees_with_the_slice_one() {
        let sorted = ["", "a", "ab", "b", "bb", "βeta"];
        static SORTED: StrTable = str_table!["", "a", "ab", "b", "bb", "βeta"];
        for probe in [
            "", "a", "aa", "ab", "abc", "b", "ba", "bb", "c", "βeta", "ω",
        ] {
            assert_eq!(
                SORTED.binary_search(probe),
                sorted.binary_search(&probe),
                "{probe}"
            );
        }
        assert_eq!(EMPTY.binary_search("x"), Err(0));
    }

    #[test]
    fn ranges_clip_at_the_end() {
        assert_eq!(WORDS.range(2, 2).collect::<Vec<_>>(), ["βeta", "gamma"]);
        assert_eq!(WORDS.range(4, 9).collect::<Vec<_>>(), ["δ"]);
        assert_eq!(WORDS.range(9, 1).count(), 0);
        assert_eq!(WORDS.range(usize::MAX, usize::MAX).count(), 0);
        assert!(EMPTY.is_empty() && EMPTY.iter().next().is_none() && EMPTY.get(0).is_none());
    }

    #[test]
    fn helpers_join_and_offset() {
        assert_eq!(joined_len(LIST), 6);
        assert_eq!(&join::<6>(LIST), b"xyyzzz");
        assert_eq!(ends::<3>(LIST), [1, 3, 6]);
    }

    #[test]
    #[should_panic]
    fn offsets_out_of_order_are_refused() {
        static BYTES: [u8; 3] = *b"abc";
        static BAD: [u32; 2] = [2, 1];
        let _ = StrTable::from_parts(&BYTES, &BAD);
    }
}
