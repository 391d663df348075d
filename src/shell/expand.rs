//! Word expansion the analysis can follow: the shell variables a line sets with literal values
//! and the positional parameters of an `sh -c` script, substituted into the words after them;
//! and the text `echo`/`printf` print (their escapes decoded) fed to `xargs` as arguments.

use super::command::SimpleCommand;

/// Most variables the analysis keeps for one line.
const MAX_VARS: usize = 64;
/// Longest variable value kept (bytes); a longer one is forgotten (stays `$NAME`).
const MAX_VALUE: usize = 4096;

/// The shell variables a line sets with literal values (`X=~/.claude; rm -rf $X`), and the
/// positional parameters of an `sh -c SCRIPT NAME ARGS` script; substituted into the words
/// after them. Values are as the analysis saw them (variables in them already substituted,
/// never re-expanded). A value built by a substitution (`X=$(…)`) is unknown: `$X` stays.
#[derive(Debug, Clone, Default)]
pub(super) struct Vars {
    /// `(name, value, exported)`, at most [`MAX_VARS`].
    list: Vec<(String, String, bool)>,
    /// `$0`, `$1`, …: `None` outside an `sh -c` script with arguments.
    pub(super) positional: Option<Vec<String>>,
}

impl Vars {
    /// The value of `name`, when the line set it literally.
    pub(super) fn get(&self, name: &str) -> Option<&str> {
        self.list
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, _)| v.as_str())
    }

    /// Sets `name`; an unknown or too long value forgets it.
    pub(super) fn set(&mut self, name: &str, value: &str, export: bool) {
        let known = value.len() <= MAX_VALUE && !value.contains("$(…)") && value != "<(…)";
        let old = self.list.iter().position(|(n, _, _)| n == name);
        let was_exported = old.is_some_and(|i| self.list[i].2);
        if let Some(i) = old {
            self.list.remove(i);
        }
        if known && self.list.len() < MAX_VARS {
            self.list
                .push((name.to_string(), value.to_string(), export || was_exported));
        }
    }

    /// Forgets `name` (its value is unknown from here on).
    pub(super) fn unset(&mut self, name: &str) {
        self.list.retain(|(n, _, _)| n != name);
    }

    fn export(&mut self, name: &str) {
        if let Some(v) = self.list.iter_mut().find(|(n, _, _)| n == name) {
            v.2 = true;
        }
    }

    /// The variables every one of `ends` (the states after the branches of an `if` or
    /// `case`, or before and after a loop) agrees on; the positional parameters of the first.
    pub(super) fn merge(ends: &[&Vars]) -> Vars {
        let Some((first, rest)) = ends.split_first() else {
            return Vars::default();
        };
        Vars {
            list: first
                .list
                .iter()
                .filter(|x| rest.iter().all(|o| o.list.contains(x)))
                .cloned()
                .collect(),
            positional: first.positional.clone(),
        }
    }

    /// What a child process sees: the exported variables plus `env` (its own assignments).
    pub(super) fn for_child(&self, env: &[(String, String)]) -> Vars {
        let mut v = Vars {
            list: self.list.iter().filter(|x| x.2).cloned().collect(),
            positional: None,
        };
        for (k, val) in env {
            v.set(k, val, true);
        }
        v
    }

    /// Applies what a finished command does to the variables: assignments alone
    /// (`X=v`), `export`/`declare`/`typeset`/`local`/`readonly` (`export X=v`, `export X`),
    /// `unset X`, `read X` (unknown after it). A command's prefix assignments (`X=v cmd`)
    /// are its own environment and change nothing here.
    pub(super) fn apply(&mut self, c: &SimpleCommand) {
        if c.argv0.is_empty() {
            for (k, v) in &c.env {
                self.set(k, v, false);
            }
            return;
        }
        match c.program.as_str() {
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                let export = c.program == "export"
                    || c.args
                        .iter()
                        .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('x'));
                for a in c.args.iter().filter(|a| !a.starts_with('-')) {
                    match a.split_once('=') {
                        Some((k, v)) if is_name(k) => self.set(k, v, export),
                        Some(_) => {}
                        None if export => self.export(a),
                        None => {}
                    }
                }
            }
            "unset" | "read" | "mapfile" | "readarray" | "getopts" | "printf" | "for" => {
                for a in c.args.iter().filter(|a| is_name(a)) {
                    self.unset(a);
                }
            }
            _ => {}
        }
    }
}

/// True for a shell variable name (`[A-Za-z_][A-Za-z0-9_]*`).
pub(super) fn is_name(k: &str) -> bool {
    k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Most input items `xargs` is taken to pass from a literal producer.
const MAX_XARGS_ITEMS: usize = 256;

/// Gives `c` (run by `xargs`) the text `fed` on its stdin: the items are appended to its
/// arguments, or with `-I R` each line is put in place of `R` (the first line into `c`, the
/// others as the returned extra commands). Nothing changes when `fed` is `None`.
pub(super) fn fill_xargs(c: &mut SimpleCommand, fed: Option<String>) -> Vec<SimpleCommand> {
    let Some(text) = fed else {
        return Vec::new();
    };
    match c.xargs_replace.clone() {
        Some(r) if !r.is_empty() => {
            let lines: Vec<&str> = text
                .split(['\n', c.xargs_delim.unwrap_or('\n')])
                .map(|l| l.trim_start_matches([' ', '\t']))
                .filter(|l| !l.is_empty())
                .take(MAX_XARGS_ITEMS)
                .collect();
            let template = c.args.clone();
            let mut extra = Vec::new();
            for (k, line) in lines.iter().enumerate() {
                let args: Vec<String> = template.iter().map(|a| a.replace(&r, line)).collect();
                if k == 0 {
                    c.args = args;
                } else {
                    let mut more = c.clone();
                    more.args = args;
                    extra.push(more);
                }
            }
            extra
        }
        _ => {
            let items: Vec<String> = match c.xargs_delim {
                Some(d) => text.split(d).map(str::to_string).collect(),
                None => text.split_whitespace().map(str::to_string).collect(),
            };
            c.args.extend(
                items
                    .into_iter()
                    .filter(|x| !x.is_empty())
                    .take(MAX_XARGS_ITEMS),
            );
            Vec::new()
        }
    }
}

/// Decodes the backslash escapes `echo -e` and `printf` understand in `s`
/// (`\n \t \r \a \b \f \v \e \\ \xHH \NNN \0NNN`); `%%` becomes `%` when
/// `printf_format`. Any other `\X` stays as written.
pub(super) fn decode_escapes(s: &str, printf_format: bool) -> String {
    let c: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < c.len() {
        if printf_format && c[i] == '%' && c.get(i + 1) == Some(&'%') {
            out.push('%');
            i += 2;
            continue;
        }
        let Some(&e) = c.get(i + 1).filter(|_| c[i] == '\\') else {
            out.push(c[i]);
            i += 1;
            continue;
        };
        i += 2;
        match e {
            _ if super::words::control_escape(e).is_some() => {
                out.extend(super::words::control_escape(e));
            }
            '\\' => out.push('\\'),
            'x' | '0'..='7' => {
                let (radix, max, mut v) = match e {
                    'x' => (16, 2, 0),
                    '0' => (8, 3, 0),
                    d => (8, 2, d.to_digit(8).unwrap_or(0)),
                };
                let mut k = 0;
                while k < max && c.get(i).is_some_and(|d| d.is_digit(radix)) {
                    v = v * radix + c[i].to_digit(radix).unwrap_or(0);
                    i += 1;
                    k += 1;
                }
                out.extend(char::from_u32(v & 0xff));
            }
            _ => {
                out.push('\\');
                out.push(e);
            }
        }
    }
    out
}

impl SimpleCommand {
    /// The words `echo`/`printf` print when they are all literal (for `… | xargs CMD`);
    /// `None` for any other command or one with a substitution.
    pub(super) fn printed(&self) -> Option<String> {
        if !self.redirect_writes.is_empty() {
            return None;
        }
        self.printed_text()
    }

    /// What this command writes to a file it is redirected to when the text is literal:
    /// `echo`/`printf` words, or the here-document fed to `cat`/`tee` (`cat > x.sh <<EOF`).
    pub(super) fn written_text(&self) -> Option<String> {
        match self.program.as_str() {
            "cat" | "tee"
                if self
                    .args
                    .iter()
                    .all(|a| a.starts_with('-') || self.program == "tee") =>
            {
                self.heredoc.clone()
            }
            _ => self.printed_text(),
        }
    }

    /// The words `echo`/`printf` print when they are all literal.
    fn printed_text(&self) -> Option<String> {
        if self.has_substitution {
            return None;
        }
        match self.program.as_str() {
            "echo" => {
                let mut escapes = false;
                let mut k = 0;
                while let Some(a) = self.args.get(k) {
                    let flags = a.len() > 1
                        && a.starts_with('-')
                        && a[1..].chars().all(|c| matches!(c, 'n' | 'e' | 'E'));
                    if !flags {
                        break;
                    }
                    escapes |= a.contains('e');
                    k += 1;
                }
                let text = self.args[k..].join(" ");
                Some(if escapes {
                    decode_escapes(&text, false)
                } else {
                    text
                })
            }
            "printf" => {
                let mut args = self.args.iter().skip_while(|a| *a == "--");
                let fmt = args.next()?;
                let rest: Vec<&String> = args.collect();
                if rest.is_empty() {
                    Some(decode_escapes(fmt, true))
                } else {
                    // The format applied to each argument: their text, one per line.
                    Some(
                        rest.iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join("\n"),
                    )
                }
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
