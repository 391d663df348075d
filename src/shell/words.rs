//! One shell word as the analysis sees it, from brush-parser's pieces of the raw word: quoting
//! removed (`'…'`, `"…"`, `\` escapes), ANSI-C `$'…'` decoded, `~` kept as written (paths
//! are compared in that form), `$NAME`/`${NAME}`/`$1`/`$@` replaced by the values the line set
//! ([`Vars`]), `${IFS}` and unquoted values with blanks split into fields. Command
//! substitutions (`$(…)`, backticks) read `$(…)` and their bodies are handed back to be
//! analysed; expansions that compute text the analysis cannot follow (`${x@P}`, `${!x}`,
//! `${x/a/b}`, `${x:1:2}`, `$((…))`) are kept as written and flagged as computed.

use brush_parser::word::{
    Parameter, ParameterExpr, SpecialParameter, TildeExpr, WordPiece, WordPieceWithSource,
};

use super::expand::Vars;

/// The marker a command substitution leaves in a word (other rooms look for it).
pub(super) const SUB_MARK: &str = "$(…)";
/// The word a process substitution `<(…)`/`>(…)` stands as.
pub(super) const PROC_MARK: &str = "<(…)";
/// Most fields one word is split into.
const MAX_FIELDS: usize = 256;
/// Longest converted word kept (bytes); past it the word is its raw text, flagged computed.
pub(super) const MAX_WORD: usize = 64 * 1024;

/// A word converted for the analysis.
#[derive(Debug, Default, Clone)]
pub(super) struct Word {
    /// The fields the word expands to (one for most words; none for an unquoted empty one).
    pub fields: Vec<String>,
    /// True when the word holds a command substitution (`$(…)`, backticks).
    pub substitution: bool,
    /// True when the word holds an expansion that computes text the analysis cannot follow
    /// (`${x@P}`, `${!x}`, `${x/a/b}`, `${x:1:2}`, `${x^^}`, `$((…))`), or could not be read.
    pub computed: bool,
    /// The bodies of its command substitutions, in order, to analyse as command lines.
    pub subs: Vec<String>,
}

impl Word {
    /// The fields joined by blanks: the word as one string.
    pub(super) fn joined(&self) -> String {
        self.fields.join(" ")
    }
}

/// Converts the raw text of a word (as brush-parser's tokenizer keeps it, quotes included).
pub(super) fn convert(raw: &str, vars: &Vars) -> Word {
    // Most words are plain text: nothing to parse.
    if !raw.contains(['\'', '"', '$', '`', '\\']) {
        return Word {
            fields: vec![raw.to_string()],
            ..Word::default()
        };
    }
    let opts = brush_parser::ParserOptions::default();
    let pieces = match brush_parser::word::parse(raw, &opts) {
        Ok(p) => p,
        Err(_) => {
            return Word {
                fields: vec![raw.to_string()],
                computed: true,
                ..Word::default()
            }
        }
    };
    let mut b = Builder {
        vars,
        raw,
        out: Word::default(),
        cur: String::new(),
        quoted_empty: false,
    };
    b.pieces(&pieces, false);
    b.finish(raw)
}

/// Converts a here-document body (`"` and `'` are plain characters in it); `expand` is false
/// when its delimiter was quoted (`<<'EOF'`): then the body is as written.
pub(super) fn convert_heredoc(body: &str, expand: bool, vars: &Vars) -> Word {
    if !expand {
        return Word {
            fields: vec![body.to_string()],
            ..Word::default()
        };
    }
    let opts = brush_parser::ParserOptions::default();
    let Ok(pieces) = brush_parser::word::parse_heredoc(body, &opts) else {
        return Word {
            fields: vec![body.to_string()],
            computed: true,
            ..Word::default()
        };
    };
    let mut b = Builder {
        vars,
        raw: body,
        out: Word::default(),
        cur: String::new(),
        quoted_empty: true,
    };
    b.pieces(&pieces, true);
    let mut w = b.finish(body);
    if w.fields.is_empty() {
        w.fields.push(String::new());
    }
    w
}

struct Builder<'a> {
    vars: &'a Vars,
    raw: &'a str,
    out: Word,
    cur: String,
    /// A quoted piece was seen: the word is a field even when empty (`""`).
    quoted_empty: bool,
}

impl Builder<'_> {
    fn finish(mut self, raw: &str) -> Word {
        if !self.cur.is_empty() || self.quoted_empty {
            self.out.fields.push(std::mem::take(&mut self.cur));
        }
        let long = self.out.fields.iter().map(String::len).sum::<usize>() > MAX_WORD;
        if long || self.out.fields.len() > MAX_FIELDS {
            self.out.fields = vec![raw.to_string()];
            self.out.computed = true;
        }
        self.out
    }

    /// Ends the field being built (an unquoted `${IFS}` or blank in a value).
    fn split(&mut self) {
        if !self.cur.is_empty() {
            self.out.fields.push(std::mem::take(&mut self.cur));
        }
        self.quoted_empty = false;
    }

    fn source(&self, p: &WordPieceWithSource) -> &str {
        self.raw.get(p.start_index..p.end_index).unwrap_or("")
    }

    fn pieces(&mut self, pieces: &[WordPieceWithSource], quoted: bool) {
        for p in pieces {
            self.piece(p, quoted);
        }
    }

    fn piece(&mut self, p: &WordPieceWithSource, quoted: bool) {
        match &p.piece {
            WordPiece::Text(s) => self.cur.push_str(s),
            WordPiece::SingleQuotedText(s) => {
                self.quoted_empty = true;
                self.cur.push_str(s);
            }
            WordPiece::AnsiCQuotedText(s) => {
                self.quoted_empty = true;
                self.cur.push_str(&ansi_c(s));
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                self.quoted_empty = true;
                self.pieces(inner, true);
            }
            WordPiece::TildeExpansion(t) => match t {
                TildeExpr::Home => self.cur.push('~'),
                TildeExpr::UserHome(u) => {
                    self.cur.push('~');
                    self.cur.push_str(u);
                }
                _ => {
                    let s = self.source(p).to_string();
                    self.cur.push_str(&s);
                }
            },
            WordPiece::EscapeSequence(s) => {
                let mut c = s.chars();
                c.next();
                match c.next() {
                    // A line continuation joins the lines.
                    Some('\n') | None => {}
                    Some(x) => self.cur.push(x),
                }
            }
            WordPiece::CommandSubstitution(body) => self.substitution(body.clone()),
            WordPiece::BackquotedCommandSubstitution(body) => {
                self.substitution(unescape_backquoted(body));
            }
            WordPiece::ArithmeticExpression(e) => {
                self.out.computed = true;
                self.inner_substitutions(&e.value);
                let s = self.source(p).to_string();
                self.cur.push_str(&s);
            }
            WordPiece::ParameterExpansion(e) => self.parameter(p, e, quoted),
        }
    }

    fn substitution(&mut self, body: String) {
        self.out.substitution = true;
        // `$(pwd)` prints the working directory: it reads `$PWD` (the catastrophic family
        // resolves it).
        let pwd = matches!(body.trim(), "pwd" | "pwd -L" | "pwd -P" | "builtin pwd");
        self.out.subs.push(body);
        self.cur.push_str(if pwd { "$PWD" } else { SUB_MARK });
    }

    /// Finds the command substitutions inside text that is itself expanded (a default value,
    /// a pattern, an arithmetic expression) and records them.
    fn inner_substitutions(&mut self, text: &str) {
        if !text.contains(['$', '`']) {
            return;
        }
        let opts = brush_parser::ParserOptions::default();
        let Ok(pieces) = brush_parser::word::parse(text, &opts) else {
            self.out.computed = true;
            return;
        };
        let mut inner = Builder {
            vars: self.vars,
            raw: text,
            out: Word::default(),
            cur: String::new(),
            quoted_empty: false,
        };
        inner.pieces(&pieces, true);
        self.out.substitution |= inner.out.substitution;
        self.out.computed |= inner.out.computed;
        self.out.subs.append(&mut inner.out.subs);
    }

    fn parameter(&mut self, p: &WordPieceWithSource, e: &ParameterExpr, quoted: bool) {
        let raw = self.source(p).to_string();
        // An array subscript and a substring's offset and length are arithmetic, which bash
        // evaluates, command substitutions included (`${a[$(…)]}`, `${@:a[$(…)]}`). Each
        // text is looked at once (a default value's word is the branch below).
        if let ParameterExpr::Substring { offset, length, .. } = e {
            self.inner_substitutions(&offset.value);
            if let Some(l) = length {
                self.inner_substitutions(&l.value);
            }
        }
        if let Some(index) = subscript_of(&raw) {
            self.inner_substitutions(index);
        }
        match e {
            ParameterExpr::Parameter {
                parameter,
                indirect: false,
            } => {
                if let (Parameter::Named(n), false) = (parameter, quoted) {
                    // `${IFS}` unquoted (unset or default): a field separator.
                    if n == "IFS" && self.vars.get("IFS").is_none() {
                        self.split();
                        return;
                    }
                }
                match self.value(parameter) {
                    Some(v) if !quoted => {
                        // An unquoted value is split into fields on blanks.
                        let mut first = true;
                        for part in v.split([' ', '\t', '\n']) {
                            if !first {
                                self.split();
                            }
                            first = false;
                            self.cur.push_str(part);
                        }
                    }
                    Some(v) => self.cur.push_str(&v),
                    None => self.cur.push_str(&raw),
                }
            }
            // Defaults, alternatives, errors and pattern removal: kept as written; a
            // substitution in their words runs.
            ParameterExpr::UseDefaultValues {
                default_value: w, ..
            }
            | ParameterExpr::AssignDefaultValues {
                default_value: w, ..
            }
            | ParameterExpr::UseAlternativeValue {
                alternative_value: w,
                ..
            }
            | ParameterExpr::IndicateErrorIfNullOrUnset {
                error_message: w, ..
            }
            | ParameterExpr::RemoveSmallestSuffixPattern { pattern: w, .. }
            | ParameterExpr::RemoveLargestSuffixPattern { pattern: w, .. }
            | ParameterExpr::RemoveSmallestPrefixPattern { pattern: w, .. }
            | ParameterExpr::RemoveLargestPrefixPattern { pattern: w, .. }
                if !indirect(e) =>
            {
                if let Some(w) = w {
                    self.inner_substitutions(w);
                }
                self.cur.push_str(&raw);
            }
            ParameterExpr::ParameterLength { .. } => self.cur.push_str(&raw),
            // Text computed at run time: `${x@P}`, `${!x}`, `${x/a/b}`, `${x:1:2}`, `${x^^}`.
            _ => {
                if let ParameterExpr::ReplaceSubstring {
                    pattern,
                    replacement,
                    ..
                } = e
                {
                    self.inner_substitutions(pattern);
                    if let Some(r) = replacement {
                        self.inner_substitutions(r);
                    }
                }
                self.out.computed = true;
                self.cur.push_str(&raw);
            }
        }
    }

    /// The value the analysis knows for a parameter.
    fn value(&self, p: &Parameter) -> Option<String> {
        match p {
            Parameter::Named(n) => self.vars.get(n).map(str::to_string).or_else(|| {
                // The guard's own settings (`INTENTSHIELD_DB`, `INTENTSHIELD_CONFIG`, ...) that
                // the line does not set: the shell the agent runs inherits them from the same
                // environment the hook runs in, so `cp /dev/null "$INTENTSHIELD_DB"` names the
                // database the hook protects. Other variables stay as written.
                n.starts_with("INTENTSHIELD_")
                    .then(|| std::env::var(n).ok())
                    .flatten()
                    .filter(|v| !v.is_empty() && v.len() <= 4096)
            }),
            Parameter::Positional(k) => {
                let pos = self.vars.positional.as_ref()?;
                Some(pos.get(*k as usize).cloned().unwrap_or_default())
            }
            Parameter::Special(SpecialParameter::AllPositionalParameters { .. }) => {
                let pos = self.vars.positional.as_ref()?;
                Some(pos.get(1..).unwrap_or(&[]).join(" "))
            }
            Parameter::Special(SpecialParameter::ShellName) => {
                self.vars.positional.as_ref()?.first().cloned()
            }
            _ => None,
        }
    }
}

/// The subscript of an expansion of an array element, as written (`${a[i+1]}` → `i+1`,
/// `${#a[$(f)]}` → `$(f)`): the text between the name's `[` and its matching `]`.
fn subscript_of(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix("${")?;
    let name_end =
        inner.find(|c: char| !(c == '#' || c == '!' || c.is_ascii_alphanumeric() || c == '_'))?;
    if inner.as_bytes().get(name_end) != Some(&b'[') {
        return None;
    }
    let body = &inner[name_end + 1..];
    let mut depth = 1usize;
    for (i, c) in body.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&body[..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// True when the expansion is indirect (`${!x…}`).
fn indirect(e: &ParameterExpr) -> bool {
    match e {
        ParameterExpr::Parameter { indirect, .. }
        | ParameterExpr::UseDefaultValues { indirect, .. }
        | ParameterExpr::AssignDefaultValues { indirect, .. }
        | ParameterExpr::IndicateErrorIfNullOrUnset { indirect, .. }
        | ParameterExpr::UseAlternativeValue { indirect, .. }
        | ParameterExpr::ParameterLength { indirect, .. }
        | ParameterExpr::RemoveSmallestSuffixPattern { indirect, .. }
        | ParameterExpr::RemoveLargestSuffixPattern { indirect, .. }
        | ParameterExpr::RemoveSmallestPrefixPattern { indirect, .. }
        | ParameterExpr::RemoveLargestPrefixPattern { indirect, .. }
        | ParameterExpr::Substring { indirect, .. }
        | ParameterExpr::Transform { indirect, .. }
        | ParameterExpr::UppercaseFirstChar { indirect, .. }
        | ParameterExpr::UppercasePattern { indirect, .. }
        | ParameterExpr::LowercaseFirstChar { indirect, .. }
        | ParameterExpr::LowercasePattern { indirect, .. }
        | ParameterExpr::ReplaceSubstring { indirect, .. } => *indirect,
        ParameterExpr::VariableNames { .. } | ParameterExpr::MemberKeys { .. } => true,
    }
}

/// The body of a backquoted substitution as a command line: `` \` ``, `\$` and `\\` lose
/// their backslash.
fn unescape_backquoted(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut it = body.chars().peekable();
    while let Some(c) = it.next() {
        if c == '\\' {
            if let Some(&n) = it.peek() {
                if matches!(n, '`' | '$' | '\\') {
                    out.push(n);
                    it.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

/// Decodes the body of `$'…'` (without the quotes). Escapes: `\n \t \r \a \b \f \v \e \E`,
/// `\\ \' \" \?`, `\xHH`, `\NNN` (octal), `\cX`; any other `\X` stays as written.
pub(super) fn ansi_c(body: &str) -> String {
    let chars: Vec<char> = body.chars().collect();
    let n = chars.len();
    let mut out = String::new();
    let mut i = 0;
    while i < n {
        if chars[i] != '\\' || i + 1 >= n {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let e = chars[i + 1];
        i += 2;
        match e {
            'E' => out.push('\u{1b}'),
            _ if control_escape(e).is_some() => out.extend(control_escape(e)),
            '\\' | '\'' | '"' | '?' => out.push(e),
            'x' => {
                let mut v = 0u32;
                let mut k = 0;
                while k < 2 && i < n && chars[i].is_ascii_hexdigit() {
                    v = v * 16 + chars[i].to_digit(16).unwrap_or(0);
                    i += 1;
                    k += 1;
                }
                if k == 0 {
                    out.push_str("\\x");
                } else {
                    out.extend(char::from_u32(v));
                }
            }
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                let mut k = 1;
                while k < 3 && i < n && chars[i].is_digit(8) {
                    v = v * 8 + chars[i].to_digit(8).unwrap_or(0);
                    i += 1;
                    k += 1;
                }
                out.extend(char::from_u32(v & 0xff));
            }
            'c' if i < n => {
                out.extend(char::from_u32(u32::from(chars[i]) & 0x1f));
                i += 1;
            }
            _ => {
                out.push('\\');
                out.push(e);
            }
        }
    }
    out
}

/// The control character a backslash escape letter stands for in `$'…'`, `echo -e` and
/// `printf` (`\n`, `\t`, `\r`, `\a`, `\b`, `\f`, `\v`, `\e`).
pub(super) fn control_escape(e: char) -> Option<char> {
    Some(match e {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        'a' => '\u{7}',
        'b' => '\u{8}',
        'f' => '\u{c}',
        'v' => '\u{b}',
        'e' => '\u{1b}',
        _ => return None,
    })
}
