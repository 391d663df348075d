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
}
