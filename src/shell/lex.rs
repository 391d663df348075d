//! Lexing a command line into tokens: words with their quoting removed (`'…'`, `"…"`, `\`
//! escapes, ANSI-C `$'…'` with its escapes decoded), operators, redirections, here-document
//! bodies and here-strings. The contents of `$(…)`, backticks and `<(…)` are collected to be
//! analysed as command lines of their own. A quoted `$` is kept as [`LIT_DOLLAR`] so that
//! variable substitution leaves it alone.

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Word(String, bool),
    Op(&'static str),
    Redirect(String),
    RedirectIn(String),
    Heredoc(String),
    /// The word of a here-string (`<<< word`), and whether it held a substitution.
    HereString(String, bool),
}

/// Stands for a `$` that was quoted (`'$X'`, `\$X`, `$'\x24X'`) while the words go through
/// variable substitution; turned back into `$` after it. Input holding this character has it
/// replaced first.
pub(super) const LIT_DOLLAR: char = '\u{E000}';

/// `w` with the quoted-`$` stand-in turned back into `$`.
pub(super) fn restore(w: String) -> String {
    if w.contains(LIT_DOLLAR) {
        w.replace(LIT_DOLLAR, "$")
    } else {
        w
    }
}

/// Lexes a command line into tokens, and returns the contents of every substitution and
/// whether the whole line was read (false past the token bound).
pub(super) fn lex(s: &str) -> (Vec<Tok>, Vec<String>, bool) {
    let chars: Vec<char> = s.chars().collect();
    let mut toks = Vec::new();
    let mut subs = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut had_sub = false;
    let mut i = 0;
    let n = chars.len();
    let mut complete = true;
    // Here-document delimiters waiting for the end of the current line: (delimiter, strip tabs).
    let mut pending_heredocs: Vec<(String, bool)> = Vec::new();
    // The next word is the operand of `<<<`.
    let mut herestring = false;
    macro_rules! end_word {
        () => {
            if in_word {
                let w = std::mem::take(&mut word);
                toks.push(if herestring {
                    Tok::HereString(w, had_sub)
                } else {
                    Tok::Word(w, had_sub)
                });
                herestring = false;
                in_word = false;
                had_sub = false;
            }
        };
    }
    while i < n {
        let c = chars[i];
        match c {
            '\\' => {
                if i + 1 < n && chars[i + 1] != '\n' {
                    word.push(literal(chars[i + 1]));
                    in_word = true;
                }
                i += 2;
            }
            '\'' => {
                in_word = true;
                i += 1;
                while i < n && chars[i] != '\'' {
                    word.push(literal(chars[i]));
                    i += 1;
                }
                i += 1;
            }
            // ANSI-C quoting: `$'…'` with its escapes decoded.
            '$' if chars.get(i + 1) == Some(&'\'') => {
                in_word = true;
                i += 2;
                let (decoded, next) = ansi_c(&chars, i);
                word.extend(decoded.chars().map(literal));
                i = next;
            }
            '"' => {
                in_word = true;
                i += 1;
                while i < n && chars[i] != '"' {
                    if chars[i] == '\\' && i + 1 < n {
                        word.push(literal(chars[i + 1]));
                        i += 2;
                        continue;
                    }
                    if chars[i] == '$' && i + 1 < n && chars[i + 1] == '(' {
                        let (inner, next) = balanced(&chars, i + 2);
                        subs.push(inner);
                        word.push_str("$(…)");
                        had_sub = true;
                        i = next;
                        continue;
                    }
                    if chars[i] == '`' {
                        let (inner, next) = backtick(&chars, i + 1);
                        subs.push(inner);
                        word.push_str("$(…)");
                        had_sub = true;
                        i = next;
                        continue;
                    }
                    word.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            '$' if i + 1 < n && chars[i + 1] == '(' => {
                let (inner, next) = balanced(&chars, i + 2);
                subs.push(inner);
                word.push_str("$(…)");
                in_word = true;
                had_sub = true;
                i = next;
            }
            '`' => {
                let (inner, next) = backtick(&chars, i + 1);
                subs.push(inner);
                word.push_str("$(…)");
                in_word = true;
                had_sub = true;
                i = next;
            }
            '<' if i + 1 < n && chars[i + 1] == '(' => {
                end_word!();
                let (inner, next) = balanced(&chars, i + 2);
                subs.push(inner);
                toks.push(Tok::Word("<(…)".into(), true));
                i = next;
            }
            ' ' | '\t' | '\r' => {
                end_word!();
                i += 1;
            }
            '#' if !in_word => {
                // Comment to end of line.
                while i < n && chars[i] != '\n' {
                    i += 1;
                }
            }
            '\n' if !pending_heredocs.is_empty() => {
                end_word!();
                i += 1;
                for (delim, strip) in std::mem::take(&mut pending_heredocs) {
                    let mut body = String::new();
                    loop {
                        if i >= n {
                            break;
                        }
                        let mut j = i;
                        while j < n && chars[j] != '\n' {
                            j += 1;
                        }
                        let line: String = chars[i..j].iter().collect();
                        i = (j + 1).min(n);
                        let cmp = if strip {
                            line.trim_start_matches('\t')
                        } else {
                            &line
                        };
                        if cmp == delim {
                            break;
                        }
                        body.push_str(&line);
                        body.push('\n');
                    }
                    toks.push(Tok::Heredoc(body));
                }
                toks.push(Tok::Op(";"));
            }
            '\n' | ';' => {
                end_word!();
                toks.push(Tok::Op(";"));
                i += 1;
            }
            '&' => {
                if i + 1 < n && chars[i + 1] == '&' {
                    end_word!();
                    toks.push(Tok::Op("&&"));
                    i += 2;
                } else if i + 1 < n && chars[i + 1] == '>' {
                    end_word!();
                    let (target, next) = redirect_target(&chars, i + 2);
                    push_redirect(&mut toks, target);
                    i = next;
                } else {
                    end_word!();
                    toks.push(Tok::Op("&"));
                    i += 1;
                }
            }
            '|' => {
                end_word!();
                if i + 1 < n && chars[i + 1] == '|' {
                    toks.push(Tok::Op("||"));
                    i += 2;
                } else {
                    toks.push(Tok::Op("|"));
                    i += if i + 1 < n && chars[i + 1] == '&' {
                        2
                    } else {
                        1
                    };
                }
            }
            '>' => {
                // `N>`: a word of digits right before is the fd, not an argument.
                if in_word && word.chars().all(|d| d.is_ascii_digit()) {
                    word.clear();
                    in_word = false;
                    had_sub = false;
                }
                end_word!();
                let (target, next) = redirect_target(&chars, i + 1);
                push_redirect(&mut toks, target);
                i = next;
            }
            '<' => {
                end_word!();
                let mut j = i + 1;
                while j < n && chars[j] == '<' {
                    j += 1;
                }
                let angles = j - i;
                let strip = angles == 2 && j < n && chars[j] == '-';
                if strip {
                    j += 1;
                }
                let read_write = angles == 1 && chars.get(j) == Some(&'>');
                let (operand, next) = redirect_target(&chars, j);
                match angles {
                    // `<> file`: opened for reading and writing.
                    1 if read_write && !operand.is_empty() => {
                        toks.push(Tok::RedirectIn(operand.clone()));
                        push_redirect(&mut toks, operand);
                    }
                    // `< file`: what the command reads.
                    1 if !operand.is_empty() => toks.push(Tok::RedirectIn(operand)),
                    // `<<EOF`: the body follows the end of this line.
                    2 if !operand.is_empty() => pending_heredocs.push((operand, strip)),
                    _ => {}
                }
                if angles >= 3 {
                    // `<<< word`: the next word is the text fed on stdin; lexed like any
                    // word (quotes, substitutions).
                    herestring = true;
                    i = j;
                } else {
                    i = next;
                }
            }
            // `)` always ends a word and a command; `(` starts a subshell where a word may
            // start. `{` and `}` group only as words of their own (`{}` of `find -exec` and
            // `xargs -I{}` are ordinary words).
            ')' => {
                end_word!();
                toks.push(Tok::Op(")"));
                i += 1;
            }
            '(' if !in_word => {
                toks.push(Tok::Op("("));
                i += 1;
            }
            '{' | '}'
                if !in_word
                    && chars
                        .get(i + 1)
                        .is_none_or(|x| matches!(x, ' ' | '\t' | '\n' | ';' | '&' | '|' | ')')) =>
            {
                toks.push(Tok::Op(if c == '{' { "{" } else { "}" }));
                i += 1;
            }
            _ => {
                word.push(c);
                in_word = true;
                i += 1;
            }
        }
        if toks.len() > 100_000 {
            complete = false;
            break;
        }
    }
    if in_word {
        toks.push(if herestring {
            Tok::HereString(word, had_sub)
        } else {
            Tok::Word(word, had_sub)
        });
    }
    (toks, subs, complete)
}

/// `c` as kept by quoting: a `$` becomes [`LIT_DOLLAR`] so that variable substitution
/// leaves it alone.
fn literal(c: char) -> char {
    if c == '$' {
        LIT_DOLLAR
    } else {
        c
    }
}

/// Decodes the body of `$'…'` from `start` (after the opening quote) to the closing quote;
/// returns the text and the index after the quote. Escapes: `\n \t \r \a \b \f \v \e \E`,
/// `\\ \' \" \?`, `\xHH`, `\NNN` (octal), `\cX`; any other `\X` stays as written.
fn ansi_c(chars: &[char], start: usize) -> (String, usize) {
    let n = chars.len();
    let mut out = String::new();
    let mut i = start;
    while i < n && chars[i] != '\'' {
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
    (out, i + 1)
}

fn push_redirect(toks: &mut Vec<Tok>, target: String) {
    let t = target.trim();
    if t.is_empty()
        || t.starts_with('&')
        || matches!(t, "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty")
    {
        return;
    }
    toks.push(Tok::Redirect(t.to_string()));
}

/// Reads a redirection operand after `>`, `>>`, `>|`.
fn redirect_target(chars: &[char], mut i: usize) -> (String, usize) {
    let n = chars.len();
    while i < n && (chars[i] == '>' || chars[i] == '|') {
        i += 1;
    }
    if i < n && chars[i] == '&' {
        // `>&2`
        let mut s = String::from("&");
        i += 1;
        while i < n && chars[i].is_ascii_alphanumeric() {
            s.push(chars[i]);
            i += 1;
        }
        return (s, i);
    }
    while i < n && (chars[i] == ' ' || chars[i] == '\t') {
        i += 1;
    }
    let mut s = String::new();
    while i < n {
        let c = chars[i];
        match c {
            '\'' => {
                i += 1;
                while i < n && chars[i] != '\'' {
                    s.push(literal(chars[i]));
                    i += 1;
                }
                i += 1;
            }
            '"' => {
                i += 1;
                while i < n && chars[i] != '"' {
                    s.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            ' ' | '\t' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')' => break,
            _ => {
                s.push(c);
                i += 1;
            }
        }
    }
    (s, i)
}

/// Contents of `$( ... )` starting after the `(`; returns (contents, index after `)`).
fn balanced(chars: &[char], start: usize) -> (String, usize) {
    let mut depth = 1;
    let mut i = start;
    let mut quote: Option<char> = None;
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some(q) => {
                if c == q {
                    quote = None;
                } else if c == '\\' && q == '"' {
                    i += 1;
                }
            }
            None => match c {
                '\'' | '"' => quote = Some(c),
                '\\' => i += 1,
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return (chars[start..i].iter().collect(), i + 1);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    (
        chars[start.min(chars.len())..].iter().collect(),
        chars.len(),
    )
}

fn backtick(chars: &[char], start: usize) -> (String, usize) {
    let mut i = start;
    while i < chars.len() && chars[i] != '`' {
        if chars[i] == '\\' {
            i += 1;
        }
        i += 1;
    }
    let end = i.min(chars.len());
    (chars[start.min(end)..end].iter().collect(), end + 1)
}

#[cfg(test)]
mod tests;

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
