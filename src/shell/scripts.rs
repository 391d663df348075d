//! The sed scripts and awk programs given on a command line, read enough to tell which files
//! they write and whether they run commands.

use super::command::Opts;

impl Opts {
    /// The script of a sed command: its `-e`/`--expression` scripts joined by newlines, else
    /// its first operand.
    pub(super) fn sed_script(&self) -> SedSource {
        let given: Vec<&str> = self.values(&["-e", "--expression"]).collect();
        if given.is_empty() {
            SedSource {
                text: self.operands.first().cloned().unwrap_or_default(),
                from_operand: !self.any(&["-f", "--file"]),
            }
        } else {
            SedSource {
                text: given.join("\n"),
                from_operand: false,
            }
        }
    }

    /// The program text of an awk command (`-e`/`--source` texts, else its first operand)
    /// and whether it was the first operand; `None` for a program read from a file (`-f`).
    pub(super) fn awk_program(&self) -> (Option<String>, bool) {
        let given: Vec<&str> = self.values(&["-e", "--source"]).collect();
        if self.any(&["-f", "--file"]) {
            return (None, false);
        }
        if given.is_empty() {
            (self.operands.first().cloned(), true)
        } else {
            (Some(given.join("\n")), false)
        }
    }
}

/// Where a sed script came from.
pub(super) struct SedSource {
    pub(super) text: String,
    /// True when it is the first operand (not a file to edit).
    pub(super) from_operand: bool,
}

/// What a sed script does beyond printing.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct SedProgram {
    /// Files of `w FILE`, `W FILE` and the `s///w FILE` flag (not `/dev/stdout`/`/dev/stderr`).
    pub(super) writes: Vec<String>,
    /// True when it runs commands (`e`, the `s///e` flag).
    pub(super) executes: bool,
    /// True when a part could not be read (then it may do either).
    pub(super) unknown: bool,
}

/// Reads a sed script's commands enough to find the `w`/`W` file names (which run to the end
/// of the line), `e`, and the `s` flags `w` and `e`.
pub(super) fn sed_program(script: &str) -> SedProgram {
    let c: Vec<char> = script.chars().collect();
    let n = c.len();
    let mut out = SedProgram::default();
    let mut i = 0;
    let skip_blank = |i: &mut usize| {
        while *i < n && matches!(c[*i], ' ' | '\t') {
            *i += 1;
        }
    };
    let to_eol = |i: &mut usize| -> String {
        while *i < n && matches!(c[*i], ' ' | '\t') {
            *i += 1;
        }
        let s = *i;
        while *i < n && c[*i] != '\n' {
            *i += 1;
        }
        c[s..*i].iter().collect::<String>()
    };
    // Past the delimited part starting at `i` (after its opening delimiter).
    let part = |i: &mut usize, d: char| {
        while *i < n && c[*i] != d {
            if c[*i] == '\\' {
                *i += 1;
            }
            *i += 1;
        }
        *i += 1;
    };
    let add_write = |out: &mut SedProgram, f: String| {
        let f = f.trim_end().to_string();
        if f.is_empty() {
            out.unknown = true;
        } else if !matches!(f.as_str(), "/dev/stdout" | "/dev/stderr") {
            out.writes.push(f);
        }
    };
    while i < n {
        while i < n && (c[i].is_whitespace() || c[i] == ';') {
            i += 1;
        }
        if i >= n {
            break;
        }
        // Up to two addresses.
        for _ in 0..2 {
            match c[i] {
                d if d.is_ascii_digit() => {
                    while i < n && (c[i].is_ascii_digit() || c[i] == '~') {
                        i += 1;
                    }
                }
                '$' => i += 1,
                '/' => {
                    i += 1;
                    part(&mut i, '/');
                    while i < n && matches!(c[i], 'I' | 'M') {
                        i += 1;
                    }
                }
                '\\' if i + 1 < n => {
                    let d = c[i + 1];
                    i += 2;
                    part(&mut i, d);
                    while i < n && matches!(c[i], 'I' | 'M') {
                        i += 1;
                    }
                }
                _ => {}
            }
            skip_blank(&mut i);
            if i < n && c[i] == ',' {
                i += 1;
                skip_blank(&mut i);
                if i < n && matches!(c[i], '+' | '~') {
                    i += 1;
                }
                continue;
            }
            break;
        }
        skip_blank(&mut i);
        while i < n && c[i] == '!' {
            i += 1;
            skip_blank(&mut i);
        }
        let Some(&cmd) = c.get(i) else {
            break;
        };
        i += 1;
        match cmd {
            '{' | '}' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x'
            | 'z' | 'F' => {}
            '#' | 'r' | 'R' => {
                to_eol(&mut i);
            }
            ':' | 'b' | 't' | 'T' | 'v' => {
                while i < n && !matches!(c[i], '\n' | ';' | '}') {
                    i += 1;
                }
            }
            'q' | 'Q' | 'l' | 'L' => {
                skip_blank(&mut i);
                while i < n && c[i].is_ascii_digit() {
                    i += 1;
                }
            }
            'a' | 'i' | 'c' => loop {
                let line = to_eol(&mut i);
                if !line.ends_with('\\') || i >= n {
                    break;
                }
                i += 1;
            },
            'w' | 'W' => {
                let f = to_eol(&mut i);
                add_write(&mut out, f);
            }
            'e' => {
                out.executes = true;
                to_eol(&mut i);
            }
            's' | 'y' => {
                let Some(&d) = c.get(i) else {
                    out.unknown = true;
                    break;
                };
                if d == '\n' || d == '\\' {
                    out.unknown = true;
                    break;
                }
                i += 1;
                part(&mut i, d);
                part(&mut i, d);
                if cmd == 'y' {
                    continue;
                }
                while i < n {
                    match c[i] {
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' => i += 1,
                        x if x.is_ascii_digit() => i += 1,
                        'e' => {
                            out.executes = true;
                            i += 1;
                        }
                        'w' => {
                            i += 1;
                            let f = to_eol(&mut i);
                            add_write(&mut out, f);
                            break;
                        }
                        _ => break,
                    }
                }
            }
            _ => {
                out.unknown = true;
                break;
            }
        }
    }
    out
}

/// What an awk program does beyond printing.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct AwkProgram {
    /// Quoted file names of `print > "FILE"`, `print >> "FILE"`, `printf … > "FILE"`.
    pub(super) writes: Vec<String>,
    /// True when an output redirection names a file that is not a string literal.
    pub(super) unknown_write: bool,
    /// True when it runs commands: `system(…)`, `print | "cmd"`, `"cmd" | getline`, `|&`.
    pub(super) executes: bool,
}

/// Scans an awk program (strings skipped) for output redirections and commands it runs.
pub(super) fn awk_program(prog: &str) -> AwkProgram {
    let c: Vec<char> = prog.chars().collect();
    let n = c.len();
    let mut out = AwkProgram::default();
    let mut i = 0;
    let mut in_print = false;
    let mut depth = 0i32;
    let mut after_pipe = false;
    let read_string = |i: &mut usize| -> String {
        // At the opening quote.
        let mut s = String::new();
        *i += 1;
        while *i < n && c[*i] != '"' {
            if c[*i] == '\\' && *i + 1 < n {
                *i += 1;
            }
            s.push(c[*i]);
            *i += 1;
        }
        *i += 1;
        s
    };
    while i < n {
        let ch = c[i];
        match ch {
            '"' => {
                read_string(&mut i);
                after_pipe = false;
            }
            '#' => {
                while i < n && c[i] != '\n' {
                    i += 1;
                }
            }
            '(' => {
                depth += 1;
                i += 1;
            }
            ')' => {
                depth -= 1;
                i += 1;
            }
            ';' | '\n' | '{' | '}' => {
                if depth <= 0 {
                    in_print = false;
                    depth = 0;
                }
                after_pipe = false;
                i += 1;
            }
            '|' => {
                if c.get(i + 1) == Some(&'|') {
                    i += 2;
                    after_pipe = false;
                    continue;
                }
                if c.get(i + 1) == Some(&'&') || (in_print && depth == 0) {
                    out.executes = true;
                }
                after_pipe = true;
                i += 1;
            }
            '>' if in_print && depth == 0 => {
                i += 1;
                if c.get(i) == Some(&'>') {
                    i += 1;
                }
                while i < n && matches!(c[i], ' ' | '\t') {
                    i += 1;
                }
                if c.get(i) == Some(&'"') {
                    let f = read_string(&mut i);
                    if !matches!(f.as_str(), "/dev/stdout" | "/dev/stderr" | "-") {
                        out.writes.push(f);
                    }
                } else {
                    out.unknown_write = true;
                }
            }
            x if x.is_ascii_alphabetic() || x == '_' => {
                let s = i;
                while i < n && (c[i].is_ascii_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
                let w: String = c[s..i].iter().collect();
                match w.as_str() {
                    "print" | "printf" => {
                        in_print = true;
                        depth = 0;
                    }
                    "system" => {
                        let mut k = i;
                        while k < n && matches!(c[k], ' ' | '\t') {
                            k += 1;
                        }
                        if c.get(k) == Some(&'(') {
                            out.executes = true;
                        }
                    }
                    "getline" if after_pipe => out.executes = true,
                    _ => {}
                }
                after_pipe = false;
            }
            ' ' | '\t' => i += 1,
            _ => {
                after_pipe = false;
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
