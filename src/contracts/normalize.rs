//! Normalisers for critical values: each turns a written value into the one form two values
//! are compared in (`iban`, `email`, `phone` as E.164, `host`, `url`, `account`, `path`,
//! `lowercase`, and `exact` for none). A value a normaliser cannot read is refused
//! (`None`): the contract check then denies the call (`contract.bad_type`).
//!
//! [`candidates`] finds, in a text (a prompt of the user's), every value of a normaliser's
//! kind, already normalised, so that "the value is one the user wrote" is a set lookup.
//! Bounded: texts are cut at [`MAX_TEXT`] bytes and at most [`MAX_CANDIDATES`] values are kept.
//!
//! Prompts are stored folded (lower-case, whitespace runs as one space: see
//! `crate::detect::normalize`), so every normaliser's form is case-insensitive where the
//! value's meaning allows it (IBANs upper-case, the rest lower-case).

use crate::policy::check::contains_word;

/// Longest text [`candidates`] reads (bytes); the rest is ignored.
pub const MAX_TEXT: usize = 64 * 1024;
/// Most values [`candidates`] returns for one text.
pub const MAX_CANDIDATES: usize = 2000;
/// Longest value a normaliser accepts (bytes).
pub const MAX_VALUE: usize = 2048;

/// A normaliser, named in a contract's `normalize` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Norm {
    /// Trimmed and folded as prompts are (lower-case, whitespace runs as one space).
    Exact,
    /// Lower-case, whitespace runs as one space (a name, a branch, a label).
    Lowercase,
    /// An IBAN: spaces and dashes removed, upper-case; two letters, two digits, 11 to 30
    /// letters or digits (the shape; the mod-97 check digits are not required).
    Iban,
    /// An e-mail address: `mailto:` and `<>` removed, lower-case, one `@`, a host with a dot.
    Email,
    /// A phone number in E.164: `+` (or `00`) then 7 to 15 digits; spaces, dots, dashes and
    /// brackets removed. A number without its country code is refused.
    Phone,
    /// A host name: lower-case, trailing dot removed, at least two labels.
    Host,
    /// A URL: lower-case, `http`/`https` only, default port, fragment and trailing `/` removed.
    Url,
    /// An account identifier (an IBAN or a bank account number, a user name): spaces and
    /// dashes removed, lower-case.
    Account,
    /// A path: `//`, `.` and `..` resolved lexically, trailing `/` removed.
    Path,
}

impl Norm {
    /// Parses a contract's `normalize` name.
    ///
    /// # Errors
    ///
    /// `normalize '<n>' is not one of exact, lowercase, iban, email, phone, host, url, account, path`.
    pub fn parse(name: &str) -> Result<Norm, String> {
        Ok(match name {
            "exact" | "none" => Norm::Exact,
            "lowercase" => Norm::Lowercase,
            "iban" => Norm::Iban,
            "email" => Norm::Email,
            "phone" => Norm::Phone,
            "host" => Norm::Host,
            "url" => Norm::Url,
            "account" => Norm::Account,
            "path" => Norm::Path,
            n => {
                return Err(format!(
                    "normalize '{}' is not one of exact, lowercase, iban, email, phone, host, url, account, path",
                    cut(n)
                ))
            }
        })
    }

    /// The name as written in a contract.
    pub fn name(self) -> &'static str {
        match self {
            Norm::Exact => "exact",
            Norm::Lowercase => "lowercase",
            Norm::Iban => "iban",
            Norm::Email => "email",
            Norm::Phone => "phone",
            Norm::Host => "host",
            Norm::Url => "url",
            Norm::Account => "account",
            Norm::Path => "path",
        }
    }

    /// The normalised form of `v`, or `None` when `v` is not a value of this kind.
    pub fn apply(self, v: &str) -> Option<String> {
        let v = v.trim();
        if v.is_empty() || v.len() > MAX_VALUE {
            return None;
        }
        match self {
            Norm::Exact | Norm::Lowercase => Some(fold(v)),
            Norm::Iban => iban(v),
            Norm::Email => email(v),
            Norm::Phone => phone(v),
            Norm::Host => host(v),
            Norm::Url => url(v),
            Norm::Account => account(v),
            Norm::Path => path(v),
        }
    }
}

fn cut(s: &str) -> String {
    s.chars().take(64).collect()
}

/// Lower-case with whitespace runs as one space, trimmed.
pub fn fold(v: &str) -> String {
    v.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn iban(v: &str) -> Option<String> {
    let s: String = v
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect::<String>()
        .to_ascii_uppercase();
    let b = s.as_bytes();
    let ok = (15..=34).contains(&b.len())
        && b[..2].iter().all(u8::is_ascii_uppercase)
        && b[2..4].iter().all(u8::is_ascii_digit)
        && b[4..].iter().all(u8::is_ascii_alphanumeric);
    ok.then_some(s)
}

fn email(v: &str) -> Option<String> {
    let v = v.trim_matches(|c| c == '<' || c == '>');
    let v = v
        .strip_prefix("mailto:")
        .or_else(|| v.strip_prefix("MAILTO:"))
        .unwrap_or(v);
    let (local, domain) = v.rsplit_once('@')?;
    if local.is_empty()
        || local.len() > 64
        || local.chars().any(|c| {
            c.is_whitespace() || c.is_control() || matches!(c, '@' | '<' | '>' | ',' | ';')
        })
    {
        return None;
    }
    let d = host(domain)?;
    Some(format!("{}@{d}", local.to_lowercase()))
}

fn phone(v: &str) -> Option<String> {
    let mut s = String::new();
    for c in v.chars() {
        match c {
            '0'..='9' | '+' => s.push(c),
            ' ' | '.' | '-' | '(' | ')' | '/' | '\u{a0}' => {}
            _ => return None,
        }
    }
    let digits = if let Some(r) = s.strip_prefix('+') {
        r
    } else {
        s.strip_prefix("00")?
    };
    let ok = (7..=15).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !digits.starts_with('0');
    ok.then(|| format!("+{digits}"))
}

fn host(v: &str) -> Option<String> {
    use crate::provenance::{canonical_host, HostCtx};
    canonical_host(v, HostCtx::Strong).filter(|h| h.contains('.') || h.contains(':'))
}

fn url(v: &str) -> Option<String> {
    let lower = v.to_lowercase();
    let (scheme, rest) = lower.split_once("://")?;
    if !matches!(scheme, "http" | "https") || rest.chars().any(char::is_whitespace) {
        return None;
    }
    let rest = rest.split('#').next().unwrap_or("");
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (auth, tail) = rest.split_at(end);
    if auth.contains('@') {
        return None;
    }
    let (h, port) = match auth.rsplit_once(':') {
        Some((h, p)) if p.bytes().all(|b| b.is_ascii_digit()) && !p.is_empty() => (h, Some(p)),
        _ => (auth, None),
    };
    let h = host(h)?;
    let port = match (scheme, port) {
        ("http", Some("80")) | ("https", Some("443")) | (_, None) => String::new(),
        (_, Some(p)) => format!(":{p}"),
    };
    let tail = tail.trim_end_matches('/');
    Some(format!("{scheme}://{h}{port}{tail}"))
}

fn account(v: &str) -> Option<String> {
    let s: String = v
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect::<String>()
        .to_lowercase();
    (!s.is_empty() && !s.chars().any(char::is_control)).then_some(s)
}

fn path(v: &str) -> Option<String> {
    if v.chars().any(char::is_control) {
        return None;
    }
    let abs = v.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for p in v.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !abs {
                    parts.push("..");
                }
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    Some(if abs {
        format!("/{joined}")
    } else if joined.is_empty() {
        ".".into()
    } else {
        joined
    })
}

/// Characters that end a word when a text is cut into tokens for [`candidates`].
fn is_sep(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '"' | '\'' | '`' | ',' | ';' | '(' | ')' | '[' | ']' | '{' | '}' | '|'
        )
}

/// Every value of kind `norm` written in `text`, normalised (deduplicated, at most
/// [`MAX_CANDIDATES`]). For [`Norm::Exact`], [`Norm::Lowercase`] and [`Norm::Account`] there is
/// no shape to look for: use [`occurs`] instead (this returns the tokens and their joins).
pub fn candidates(norm: Norm, text: &str) -> Vec<String> {
    let text = cut_text(text);
    let tokens: Vec<&str> = text
        .split(is_sep)
        .map(|t| t.trim_matches(|c| matches!(c, '.' | ':' | '!' | '?' | '<' | '>')))
        .filter(|t| !t.is_empty())
        .collect();
    let mut out: Vec<String> = Vec::new();
    let push = |s: Option<String>, out: &mut Vec<String>| {
        if let Some(s) = s {
            if out.len() < MAX_CANDIDATES {
                out.push(s);
            }
        }
    };
    match norm {
        // IBANs and account numbers are often written in groups: joins of up to nine tokens.
        Norm::Iban | Norm::Account | Norm::Phone => {
            for i in 0..tokens.len() {
                let mut joined = String::new();
                for t in tokens.iter().skip(i).take(9) {
                    joined.push_str(t);
                    push(norm.apply(&joined), &mut out);
                    if norm == Norm::Phone {
                        joined.push(' ');
                    }
                }
            }
        }
        Norm::Host => {
            for t in &tokens {
                let h = url(t)
                    .and_then(|u| u.split_once("://").map(|(_, r)| r.to_string()))
                    .map(|r| {
                        let e = r.find(['/', '?', ':']).unwrap_or(r.len());
                        r[..e].to_string()
                    })
                    .or_else(|| {
                        email(t).and_then(|e| e.split_once('@').map(|(_, d)| d.to_string()))
                    })
                    .or_else(|| host(t));
                push(h, &mut out);
            }
        }
        _ => {
            for t in &tokens {
                push(norm.apply(t), &mut out);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// True when the normalised value `value` of kind `norm` is written in `text`.
pub fn occurs(norm: Norm, value: &str, text: &str) -> bool {
    match norm {
        Norm::Exact | Norm::Lowercase => contains_word(&fold(cut_text(text)), value),
        Norm::Account if !value.chars().any(|c| c.is_ascii_digit()) => {
            // A name (`Spotify`): a whole word of the text.
            contains_word(&fold(cut_text(text)), value)
        }
        _ => candidates(norm, text)
            .binary_search_by(|c| c.as_str().cmp(value))
            .is_ok(),
    }
}

fn cut_text(text: &str) -> &str {
    if text.len() <= MAX_TEXT {
        return text;
    }
    let mut end = MAX_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iban() {
        let n = Norm::Iban;
        assert_eq!(
            n.apply("de89 3704 0044 0532 0130 00").as_deref(),
            Some("DE89370400440532013000")
        );
        assert_eq!(
            n.apply("GB29-NWBK-6016-1331-9268-19").as_deref(),
            Some("GB29NWBK60161331926819")
        );
        assert_eq!(n.apply("DE89"), None);
        assert_eq!(n.apply("1234567890123456"), None);
        assert_eq!(n.apply("DE89 3704 0044 0532 0130 00 ÄÖ"), None);
        let c = candidates(
            n,
            "pay de89 3704 0044 0532 0130 00 today, not GB29NWBK60161331926819.",
        );
        assert!(c.contains(&"DE89370400440532013000".to_string()), "{c:?}");
        assert!(c.contains(&"GB29NWBK60161331926819".to_string()), "{c:?}");
    }

    #[test]
    fn email() {
        let n = Norm::Email;
        assert_eq!(
            n.apply(" <Bob.Smith@Example.COM> ").as_deref(),
            Some("bob.smith@example.com")
        );
        assert_eq!(
            n.apply("mailto:a@b.example").as_deref(),
            Some("a@b.example")
        );
        assert_eq!(n.apply("not an address"), None);
        assert_eq!(n.apply("a@localhost"), None);
        assert_eq!(n.apply("a b@example.com"), None);
        assert!(occurs(
            n,
            "bob@example.com",
            "please write to bob@example.com."
        ));
        assert!(!occurs(
            n,
            "bob@example.com",
            "please write to bob@example.com.evil.example"
        ));
    }

    #[test]
    fn phone() {
        let n = Norm::Phone;
        assert_eq!(
            n.apply("+44 20 7946 0958").as_deref(),
            Some("+442079460958")
        );
        assert_eq!(
            n.apply("0044 (20) 7946-0958").as_deref(),
            Some("+442079460958")
        );
        assert_eq!(n.apply("020 7946 0958"), None, "no country code");
        assert_eq!(n.apply("+1 555 CALL NOW"), None);
        assert!(occurs(
            n,
            "+442079460958",
            "call me on +44 20 7946 0958 tomorrow"
        ));
    }

    #[test]
    fn host_and_url() {
        assert_eq!(
            Norm::Host.apply("API.Example.COM.").as_deref(),
            Some("api.example.com")
        );
        assert_eq!(Norm::Host.apply("nohost"), None);
        assert_eq!(
            Norm::Url
                .apply("HTTPS://Example.com:443/a/b/#frag")
                .as_deref(),
            Some("https://example.com/a/b")
        );
        assert_eq!(
            Norm::Url.apply("http://example.com:8080").as_deref(),
            Some("http://example.com:8080")
        );
        assert_eq!(Norm::Url.apply("ftp://example.com/x"), None);
        assert_eq!(Norm::Url.apply("https://user@evil.example/x"), None);
        assert!(occurs(
            Norm::Host,
            "example.com",
            "see https://example.com/x"
        ));
        assert!(occurs(Norm::Host, "example.com", "mail ann@example.com"));
        assert!(occurs(
            Norm::Url,
            "https://example.com/a",
            "open https://example.com/a/ now"
        ));
    }

    #[test]
    fn account_path_lowercase() {
        assert_eq!(
            Norm::Account.apply("GB29 NWBK 6016").as_deref(),
            Some("gb29nwbk6016")
        );
        assert!(occurs(Norm::Account, "spotify", "Spotify sent me a note"));
        assert!(!occurs(Norm::Account, "spotify", "spotifyx sent me a note"));
        assert!(occurs(
            Norm::Account,
            "gb29nwbk60161331926819",
            "from GB29 NWBK 6016 1331 9268 19"
        ));
        assert_eq!(
            Norm::Path.apply("/a//b/./c/../d/").as_deref(),
            Some("/a/b/d")
        );
        assert_eq!(Norm::Path.apply("/../etc").as_deref(), Some("/etc"));
        assert_eq!(Norm::Path.apply("a/../../b").as_deref(), Some("../b"));
        assert_eq!(
            Norm::Lowercase.apply("  Main \n Branch ").as_deref(),
            Some("main branch")
        );
        assert!(occurs(Norm::Lowercase, "main", "merge it into main please"));
        assert!(!occurs(
            Norm::Lowercase,
            "main",
            "merge it into maintenance"
        ));
        assert!(Norm::parse("nope").is_err());
        assert_eq!(Norm::parse("iban"), Ok(Norm::Iban));
    }
}
