//! Code hidden in text that bash evaluates later: command lines a builtin keeps and runs, and
//! array subscripts bash expands when it evaluates them arithmetically. Each is analysed as a
//! nested command line (so pipe-to-shell, secret egress and the catastrophic family see it);
//! what cannot be seen (a substitution's output, an unknown variable as the program, a value
//! taken from the environment at run time) is reported by [`SimpleCommand::evaluates_unseen`]
//! as code built at run time.
//!
//! The places, as bash 5.2 documents and runs them (bash(1): "Arrays", "ARITHMETIC
//! EVALUATION", "SHELL BUILTIN COMMANDS", "PROMPTING"):
//! - array subscripts are expanded (parameter, command substitution) when the name is used:
//!   `printf -v 'a[$(…)]'`, `read 'a[$(…)]'`, `declare`/`typeset`/`local`/`export`/`readonly`/
//!   `unset`/`getopts`/`wait -p` names, `[[ -v 'a[$(…)]' ]]`;
//! - arithmetic evaluates a variable's value as an expression, whose subscripts are expanded
//!   again: `let`, `(( … ))`, `$(( … ))`, `[[ X -eq Y ]]` (and `-ne`, `-lt`, `-le`, `-gt`,
//!   `-ge`) with `X` holding `a[$(…)]`;
//! - command lines kept and run later: `trap 'CMD' SIG`, `alias x='CMD'`, `mapfile`/
//!   `readarray -C 'CMD'`, `complete`/`compgen -C CMD`, `bind -x 'KEYS:CMD'`,
//!   `PROMPT_COMMAND=CMD`; prompt strings whose substitutions run when shown (`PS0`, `PS1`,
//!   `PS2`, `PS4` with `set -x`); exported functions in the environment
//!   (`BASH_FUNC_name%%=() { … }`);
//! - `git --config-env=KEY=ENVVAR` of a key whose value git runs: the value is taken from the
//!   environment when git runs (unseen unless the line sets `ENVVAR` literally).
//!
//! A plain unknown variable inside a subscript (`[[ -v "map[$key]" ]]`, an everyday idiom) is
//! not reported: only a substitution's output or a known value holding code is.

use super::command::SimpleCommand;
use super::expand::{is_name, Vars};
use super::words::SUB_MARK;

/// Most command lines taken from one command or expression.
const MAX_TEXTS: usize = 16;
/// Deepest chain of variables whose values are evaluated arithmetically in turn.
const MAX_ARITH_DEPTH: usize = 4;
/// Longest text scanned (bytes).
const MAX_SCAN: usize = 64 * 1024;

/// Builtins whose operands name variables (array elements included).
const NAMING: crate::strtab::StrTable = crate::str_table![
    "read", "declare", "typeset", "local", "export", "readonly", "unset", "getopts",
];

/// Prompt variables whose value is expanded (substitutions run) when the prompt is shown.
const PROMPTS: &[&str] = &["PS0", "PS1", "PS2", "PS4"];

/// The command lines `c` makes bash run from text (see the module documentation), with the
/// line's variables `vars` (for names evaluated arithmetically). At most [`MAX_TEXTS`].
pub(super) fn texts(c: &SimpleCommand, vars: &Vars) -> Vec<String> {
    let mut out = Vec::new();
    let p = c.program.as_str();
    // Assignments: `PS4='$(…)'`, `PROMPT_COMMAND=…`, as a command's prefix or a plain one.
    for (k, v) in &c.env {
        assignment(k, v, &mut out);
    }
    // Exported functions given through the environment (`env 'BASH_FUNC_f%%=() { … }' …`).
    for w in std::iter::once(&c.argv0).chain(c.args.iter()) {
        if let Some(body) = exported_function(w) {
            out.push(body);
        }
    }
    match p {
        "printf" => {
            let mut it = c.args.iter();
            while let Some(a) = it.next() {
                let name = if a == "-v" {
                    it.next().map(String::as_str)
                } else {
                    a.strip_prefix("-v").filter(|n| !n.is_empty())
                };
                if let Some(n) = name {
                    subscript_code(n, &mut out);
                }
                if !a.starts_with('-') {
                    break;
                }
            }
        }
        _ if NAMING.contains(p) => {
            // `declare -i`/`typeset -i`/`local -i`: values are evaluated arithmetically.
            let integer = c
                .args
                .iter()
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('i'));
            for a in &c.args {
                if a.starts_with('-') || a.starts_with('+') {
                    continue;
                }
                let (name, value) = split_assignment(a);
                subscript_code(name, &mut out);
                if let Some(v) = value.filter(|_| p != "read" && p != "unset") {
                    assignment(name, v, &mut out);
                    if integer && p != "export" && p != "readonly" {
                        arithmetic_code(v, vars, 0, &mut out);
                    }
                }
            }
        }
        // `test -v 'a[…]'`, `[ -v 'a[…]' ]`: the subscript is evaluated.
        "test" | "[" => {
            for w in c.args.windows(2) {
                if w[0] == "-v" {
                    subscript_code(&w[1], &mut out);
                }
            }
        }
        "wait" => {
            for w in c.args.windows(2) {
                if w[0] == "-p" {
                    subscript_code(&w[1], &mut out);
                }
            }
        }
        "let" => {
            for a in &c.args {
                arithmetic_code(a, vars, 0, &mut out);
            }
        }
        "trap" => {
            // `trap [-lp] [[ACTION] SIGNAL…]`: the action is a command line (`-` and `''`
            // reset or ignore).
            let ops: Vec<&String> = c.args.iter().filter(|a| *a != "--").collect();
            let listing = ops
                .first()
                .is_some_and(|a| a.starts_with('-') && a.len() > 1);
            if !listing && ops.len() >= 2 && ops[0] != "-" {
                out.push(ops[0].clone());
            }
        }
        "alias" => {
            for a in &c.args {
                if let Some((_, v)) = a.split_once('=') {
                    out.push(v.to_string());
                }
            }
        }
        "mapfile" | "readarray" => {
            out.extend(option_value(&c.args, "-C"));
        }
        "complete" | "compgen" => {
            out.extend(option_value(&c.args, "-C"));
        }
        "bind" => {
            for v in option_value(&c.args, "-x") {
                // `KEYSEQ: CMD`, the command optionally in double quotes.
                if let Some((_, cmd)) = v.split_once(':') {
                    let cmd = cmd.trim();
                    let cmd = cmd
                        .strip_prefix('"')
                        .and_then(|x| x.strip_suffix('"'))
                        .unwrap_or(cmd);
                    out.push(cmd.to_string());
                }
            }
        }
        "git" => {
            for (key, var) in config_env(c) {
                if let Some(v) = c.env.iter().find(|(n, _)| *n == var).map(|(_, v)| v) {
                    out.push(git_value(&key, v));
                } else if let Some(v) = vars.get(&var) {
                    out.push(git_value(&key, v));
                }
            }
        }
        _ => {}
    }
    out.retain(|t| !t.trim().is_empty() && !t.contains(SUB_MARK) && !t.contains('…'));
    out.truncate(MAX_TEXTS);
    out
}

/// The command lines the arithmetic expression `expr` runs: the command substitutions of its
/// array subscripts, and those of the values of the names it uses (a known value is evaluated
/// as an expression in turn: `x='a[$(…)]'; echo $((x))`).
pub(super) fn arithmetic(expr: &str, vars: &Vars) -> Vec<String> {
    let mut out = Vec::new();
    arithmetic_code(expr, vars, 0, &mut out);
    out.retain(|t| !t.contains(SUB_MARK) && !t.contains('…'));
    out.truncate(MAX_TEXTS);
    out
}

/// The arithmetic expansions (`$(( … ))`) of a raw word, as written.
pub(super) fn arithmetic_bodies(raw: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = raw.as_bytes();
    let mut i = 0;
    while i + 3 <= b.len().min(MAX_SCAN) && out.len() < MAX_TEXTS {
        if b[i..].starts_with(b"$((") {
            let start = i + 3;
            let mut depth = 2usize;
            let mut j = start;
            while j < b.len() && depth > 0 {
                match b[j] {
                    b'(' => depth += 1,
                    b')' => depth -= 1,
                    _ => {}
                }
                j += 1;
            }
            let end = j.saturating_sub(2).max(start);
            if let Some(body) = raw.get(start..end) {
                out.push(body);
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

impl SimpleCommand {
    /// Code this command makes bash (or git) run from text that cannot be seen now, with what
    /// it is: an array subscript or a kept command line holding a substitution's output
    /// (`printf -v "a[$(cat f)]"`, `trap "$(curl …)" EXIT`), a kept command line whose program
    /// is an unknown variable (`trap "$CMD" EXIT`, `alias x="$Y"`), or `git --config-env` of
    /// a key git runs whose variable the line does not set.
    pub fn evaluates_unseen(&self) -> Option<String> {
        let mut found: Vec<String> = Vec::new();
        let p = self.program.as_str();
        let sub_in_subscript = |w: &str| {
            array_ref(w).is_some_and(|s| s.contains(SUB_MARK) || s.contains('…') || s.contains('`'))
        };
        let unseen_line = |t: &str| {
            let t = t.trim_start();
            t.contains(SUB_MARK) || t.contains('…') || t.starts_with('$')
        };
        match p {
            "printf" => {
                if let Some(i) = self.args.iter().position(|a| a == "-v") {
                    if self.args.get(i + 1).is_some_and(|n| sub_in_subscript(n)) {
                        found.push(format!("printf -v {}", self.args[i + 1]));
                    }
                }
            }
            _ if NAMING.contains(p) || p == "[[" => {
                if let Some(a) = self
                    .args
                    .iter()
                    .find(|a| sub_in_subscript(split_assignment(a).0))
                {
                    found.push(format!("{p} {a}"));
                }
            }
            "trap" => {
                let ops: Vec<&String> = self.args.iter().filter(|a| *a != "--").collect();
                if ops.len() >= 2 && !ops[0].starts_with('-') && unseen_line(ops[0]) {
                    found.push(format!("trap {}", ops[0]));
                }
            }
            "alias" => {
                if let Some(a) = self
                    .args
                    .iter()
                    .find(|a| a.split_once('=').is_some_and(|(_, v)| unseen_line(v)))
                {
                    found.push(format!("alias {a}"));
                }
            }
            "mapfile" | "readarray" | "complete" | "compgen" => {
                if let Some(v) = option_value(&self.args, "-C")
                    .into_iter()
                    .find(|v| unseen_line(v))
                {
                    found.push(format!("{p} -C {v}"));
                }
            }
            "git" => {
                for (key, var) in config_env(self) {
                    if !self.env.iter().any(|(n, _)| *n == var) {
                        found.push(format!(
                            "git --config-env={key}={var} (the value of ${var} when git runs)"
                        ));
                    }
                }
            }
            _ => {}
        }
        for (k, v) in &self.env {
            if k == "PROMPT_COMMAND" && unseen_line(v) {
                found.push(format!("PROMPT_COMMAND={v}"));
            }
        }
        found.into_iter().next()
    }
}

/// A shell assignment's code: a prompt's substitutions, `PROMPT_COMMAND`'s command line, an
/// exported function's body.
fn assignment(name: &str, value: &str, out: &mut Vec<String>) {
    if PROMPTS.contains(&name) {
        substitutions(value, out);
    } else if name == "PROMPT_COMMAND" {
        out.push(value.to_string());
    }
}

/// `NAME=VALUE` split at the first `=` outside a subscript; `(word, None)` when there is none.
fn split_assignment(w: &str) -> (&str, Option<&str>) {
    let mut depth = 0usize;
    for (i, ch) in w.char_indices() {
        match ch {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '=' if depth == 0 => {
                let name = w[..i].trim_end_matches('+');
                return (name, Some(&w[i + 1..]));
            }
            _ => {}
        }
    }
    (w, None)
}

/// The subscript of `w` when it names an array element (`NAME[SUBSCRIPT]`).
fn array_ref(w: &str) -> Option<&str> {
    let open = w.find('[')?;
    if !is_name(&w[..open]) {
        return None;
    }
    let inner = &w[open + 1..];
    let close = inner.rfind(']')?;
    Some(&inner[..close])
}

/// The command substitutions of `w`'s subscript when it names an array element.
fn subscript_code(w: &str, out: &mut Vec<String>) {
    if let Some(s) = array_ref(w) {
        substitutions(s, out);
    }
}

/// The command lines an arithmetic expression runs, `depth` names deep.
fn arithmetic_code(expr: &str, vars: &Vars, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_ARITH_DEPTH || out.len() >= MAX_TEXTS {
        return;
    }
    let expr = &expr[..floor(expr, MAX_SCAN)];
    // Subscripts: `name[ … ]` anywhere in the expression.
    let b = expr.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'[' {
            let mut d = 1usize;
            let mut j = i + 1;
            while j < b.len() && d > 0 {
                match b[j] {
                    b'[' => d += 1,
                    b']' => d -= 1,
                    _ => {}
                }
                j += 1;
            }
            let end = if d == 0 { j - 1 } else { j };
            if let Some(s) = expr.get(i + 1..end) {
                substitutions(s, out);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    // Names whose known values are evaluated as expressions in turn.
    for name in expr
        .split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
        .filter(|n| is_name(n))
        .take(64)
    {
        if let Some(v) = vars.get(name) {
            if v.contains('[') || v.chars().any(|ch| ch.is_ascii_alphabetic()) {
                arithmetic_code(v, vars, depth + 1, out);
            }
        }
    }
}

/// The largest char boundary of `s` at or below `n`.
fn floor(s: &str, n: usize) -> usize {
    if n >= s.len() {
        return s.len();
    }
    let mut i = n;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The bodies of the command substitutions (`$( … )`, backquotes) in `text`, which is
/// expanded as in double quotes; `$(( … ))` is arithmetic, searched in turn.
fn substitutions(text: &str, out: &mut Vec<String>) {
    let text = &text[..floor(text, MAX_SCAN)];
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() && out.len() < MAX_TEXTS {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i..].starts_with(b"$(") {
            let arith = b[i..].starts_with(b"$((");
            let start = i + 2;
            let mut depth = 1usize;
            let mut j = start;
            let mut quote: Option<u8> = None;
            while j < b.len() && depth > 0 {
                let ch = b[j];
                match quote {
                    Some(q) if ch == q => quote = None,
                    Some(_) => {}
                    None => match ch {
                        b'\'' | b'"' => quote = Some(ch),
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        _ => {}
                    },
                }
                j += 1;
            }
            let end = if depth == 0 { j - 1 } else { j };
            if let Some(body) = text.get(start..end) {
                if arith {
                    let inner = body.strip_prefix('(').unwrap_or(body);
                    let inner = inner.strip_suffix(')').unwrap_or(inner);
                    substitutions(inner, out);
                } else {
                    out.push(body.to_string());
                }
            }
            i = j;
        } else if b[i] == b'`' {
            let start = i + 1;
            let end = text[start..].find('`').map_or(b.len(), |k| start + k);
            out.push(text[start..end].to_string());
            i = end + 1;
        } else {
            i += 1;
        }
    }
}

/// The function body of an exported function given as `BASH_FUNC_name%%=() { … }` (or the
/// older `BASH_FUNC_name()=`), as a line that defines and calls it.
fn exported_function(w: &str) -> Option<String> {
    let rest = w.strip_prefix("BASH_FUNC_")?;
    let (name, body) = rest.split_once('=')?;
    let name = name.trim_end_matches("%%").trim_end_matches("()");
    let body = body.trim_start().strip_prefix("()")?;
    let name = if is_name(name) { name } else { "f" };
    Some(format!("{name}() {body}\n{name}"))
}

/// The values given to the short option `opt` (`-C CMD`, `-CCMD`).
fn option_value(args: &[String], opt: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == opt {
            if let Some(v) = it.next() {
                out.push(v.clone());
            }
        } else if let Some(v) = a.strip_prefix(opt).filter(|v| !v.is_empty()) {
            if !a.starts_with("--") {
                out.push(v.to_string());
            }
        }
    }
    out
}

/// `git --config-env=KEY=ENVVAR` (and `--config-env KEY=ENVVAR`) of keys whose value git runs,
/// before the subcommand: `(key, variable)`.
fn config_env(c: &SimpleCommand) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut it = c.args.iter();
    while let Some(a) = it.next() {
        let spec = if a == "--config-env" {
            it.next().map(String::as_str)
        } else {
            a.strip_prefix("--config-env=")
        };
        if let Some((k, var)) = spec.and_then(|s| s.rsplit_once('=')) {
            let k = k.to_ascii_lowercase();
            if super::writes::git_key_runs_code(&k) {
                out.push((k, var.to_string()));
            }
        }
        if !a.starts_with('-') && !matches!(a.as_str(), "-C" | "-c") {
            // The subcommand (a `-C DIR`'s value is skipped by its own test below).
            if c.git_sub() == Some(a.as_str()) {
                break;
            }
        }
    }
    out
}

/// The command line git runs for `key` set to `value` (an alias runs only after `!`).
fn git_value(key: &str, value: &str) -> String {
    if key.starts_with("alias.") {
        value.strip_prefix('!').unwrap_or("").to_string()
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests;
