//! Text normalization before scanning: NFKC, invisible characters, ANSI escapes, homoglyphs,
//! whitespace, base64 runs. (Stub: the full version replaces this.)

/// A normalized text ready for the rules.
#[derive(Debug, Clone, Default)]
pub struct Normalized {
    /// Lower-cased, folded text that the rules scan.
    pub text: String,
    /// Evidence found while normalizing (hidden Unicode tag text, bidi controls, ...),
    /// as `(rule id, excerpt)`.
    pub hidden: Vec<(&'static str, String)>,
}

/// Normalizes `text`. Never panics.
pub fn normalize(text: &str) -> Normalized {
    let mut out = String::with_capacity(text.len());
    let mut last_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            if !last_space {
                out.push(' ');
            }
            last_space = true;
        } else {
            last_space = false;
            for l in c.to_lowercase() {
                out.push(l);
            }
        }
    }
    Normalized {
        text: out,
        hidden: Vec::new(),
    }
}
