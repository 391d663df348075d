//! From tokens to an [`Analysis`]: simple commands gathered into pipelines, subshells and the
//! `cd`s that move the commands after them, here-document bodies given to their command, and
//! the command lines a command runs analysed as nested ones: `sh -c SCRIPT` (with its
//! positional parameters), a here-document or here-string fed to a shell, `eval`, `flock -c`,
//! `env -S`, `find -exec`/`fd -x`, `echo … | xargs CMD`, and substitutions.

use super::command::{simple, Dir, SimpleCommand};
use super::expand::{fill_xargs, Vars};
use super::lex::{lex, restore, Tok, LIT_DOLLAR};
use super::programs::{SHELLS, STDIN_SCRIPTS};
use super::{Analysis, MAX_COMMAND, MAX_DEPTH};

/// What the lexer has read of the current pipeline: the finished simple commands, and the
/// words, redirect targets and sources and here-document of the one being read.
#[derive(Default)]
struct Pending {
    pipeline: Vec<SimpleCommand>,
    words: Vec<(String, bool)>,
    redirects: Vec<String>,
    reads: Vec<String>,
    heredoc: Option<String>,
    herestring_sub: bool,
}

/// Appends `text` to a command's stdin text.
fn feed(slot: &mut Option<String>, text: String) {
    match slot {
        Some(h) => {
            h.push('\n');
            h.push_str(&text);
        }
        None => *slot = Some(text),
    }
}

impl Pending {
    /// Ends the simple command being read (if it has anything) and adds it to the pipeline;
    /// its assignments take effect for the words after it.
    fn flush_cmd(&mut self, vars: &mut Vars) {
        if self.words.is_empty()
            && self.redirects.is_empty()
            && self.reads.is_empty()
            && self.heredoc.is_none()
        {
            return;
        }
        let mut c = simple(
            std::mem::take(&mut self.words),
            std::mem::take(&mut self.redirects),
        );
        c.redirect_reads = std::mem::take(&mut self.reads);
        c.heredoc = self.heredoc.take();
        c.has_substitution |= std::mem::take(&mut self.herestring_sub);
        vars.apply(&c);
        self.pipeline.push(c);
    }
}

/// Ends the pipeline being read: its commands run in `dir`, and a lone `cd`/`pushd` moves
/// `dir` for the commands after it.
fn end_pipeline(a: &mut Analysis, cur: &mut Pending, dir: &mut Dir, vars: &mut Vars) {
    cur.flush_cmd(vars);
    if cur.pipeline.is_empty() {
        return;
    }
    let mut p = std::mem::take(&mut cur.pipeline);
    for c in &mut p {
        c.dir = dir.clone();
    }
    if let [c] = p.as_slice() {
        if matches!(c.program.as_str(), "cd" | "pushd") {
            *dir = if c.has_substitution {
                Dir::Unknown
            } else {
                dir.cd(&c.args)
            };
        }
    }
    a.pipelines.push(p);
}

pub(super) fn analyze_depth(cmd: &str, depth: usize, start: &Dir, inherited: &Vars) -> Analysis {
    let end = crate::text::floor_boundary(cmd, MAX_COMMAND);
    let clean;
    let text = if cmd[..end].contains(LIT_DOLLAR) {
        clean = cmd[..end].replace(LIT_DOLLAR, "\u{FFFD}");
        clean.as_str()
    } else {
        &cmd[..end]
    };
    let (toks, subs, lex_complete) = lex(text);
    let mut a = Analysis {
        incomplete: end < cmd.len() || !lex_complete || depth >= MAX_DEPTH,
        ..Analysis::default()
    };
    let mut cur = Pending::default();
    let mut dir = start.clone();
    let mut vars = inherited.clone();
    // The directory to return to at the end of each open subshell.
    let mut subshells: Vec<Dir> = Vec::new();
    let mut sub_owner: Vec<(usize, usize)> = Vec::new();
    for t in toks {
        match t {
            Tok::Word(w, had_sub) => {
                cur.words.push((restore(vars.expand(&w)), had_sub));
            }
            Tok::Redirect(target) => cur.redirects.push(restore(vars.expand(&target))),
            Tok::RedirectIn(source) => cur.reads.push(restore(vars.expand(&source))),
            Tok::HereString(w, had_sub) => {
                cur.herestring_sub |= had_sub;
                feed(&mut cur.heredoc, restore(vars.expand(&w)));
            }
            Tok::Heredoc(body) => {
                let body = vars.expand(&body);
                // The body belongs to the command just before the line break that ends it.
                match (
                    cur.words.is_empty(),
                    cur.pipeline.last_mut(),
                    a.pipelines.last_mut(),
                ) {
                    (false, _, _) => feed(&mut cur.heredoc, body),
                    (true, Some(c), _) => feed(&mut c.heredoc, body),
                    (true, None, Some(p)) => {
                        if let Some(c) = p.last_mut() {
                            feed(&mut c.heredoc, body);
                        }
                    }
                    _ => {}
                }
            }
            Tok::Op("|") => cur.flush_cmd(&mut vars),
            Tok::Op(op) => {
                end_pipeline(&mut a, &mut cur, &mut dir, &mut vars);
                match op {
                    "(" => subshells.push(dir.clone()),
                    ")" => {
                        if let Some(d) = subshells.pop() {
                            dir = d;
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    end_pipeline(&mut a, &mut cur, &mut dir, &mut vars);
    // `echo WORDS | xargs CMD`: the words are CMD's arguments.
    let mut extra_xargs = Vec::new();
    for (pi, p) in a.pipelines.iter_mut().enumerate() {
        for k in 1..p.len() {
            if p[k].via_xargs {
                let fed = p[k - 1].printed();
                extra_xargs.extend(fill_xargs(&mut p[k], fed).into_iter().map(|c| (pi, k, c)));
            }
        }
    }
    for (pi, ci, c) in extra_xargs {
        a.nested.push((
            pi,
            ci,
            Analysis {
                pipelines: vec![vec![c]],
                ..Analysis::default()
            },
        ));
    }
    // A here-document or here-string fed to a shell, the script of `sh -c SCRIPT`, and the
    // command lines of `eval`, `flock -c`, `env -S` are commands.
    if depth < MAX_DEPTH {
        let mut bodies = Vec::new();
        for (pi, p) in a.pipelines.iter().enumerate() {
            for (ci, c) in p.iter().enumerate() {
                if let Some(script) = &c.nested_script {
                    let v = if c.program == "eval" {
                        vars.clone()
                    } else {
                        vars.for_child(&c.env)
                    };
                    bodies.push((pi, ci, analyze_depth(script, depth + 1, &c.dir, &v)));
                }
                let program = c.program.as_str();
                if !SHELLS.contains(&program) && !STDIN_SCRIPTS.contains(&program) {
                    continue;
                }
                // `echo SCRIPT | sh`, `printf … | at now`: the literal text fed to it.
                let fed = (ci > 0).then(|| p[ci - 1].printed()).flatten().filter(|_| {
                    !c.args
                        .iter()
                        .any(|x| x.starts_with('-') && !x.starts_with("--") && x[1..].contains('c'))
                });
                let crontab = program == "crontab";
                if let Some(text) = fed {
                    let text = if crontab {
                        crontab_commands(&text)
                    } else {
                        text
                    };
                    let v = vars.for_child(&c.env);
                    bodies.push((pi, ci, analyze_depth(&text, depth + 1, &c.dir, &v)));
                }
                if let Some(b) = &c.heredoc {
                    let v = vars.for_child(&c.env);
                    let text = if crontab {
                        crontab_commands(b)
                    } else {
                        b.clone()
                    };
                    bodies.push((pi, ci, analyze_depth(&text, depth + 1, &c.dir, &v)));
                }
                let script = c.args.iter().position(|x| {
                    x.starts_with('-') && !x.starts_with("--") && x[1..].contains('c')
                });
                if let Some(si) = script.map(|i| i + 1) {
                    if let Some(script) = c.args.get(si) {
                        let mut v = vars.for_child(&c.env);
                        v.positional = Some(c.args.iter().skip(si + 1).take(64).cloned().collect());
                        bodies.push((pi, ci, analyze_depth(script, depth + 1, &c.dir, &v)));
                    }
                }
            }
        }
        a.incomplete |= bodies.iter().any(|(_, _, n)| n.incomplete);
        a.nested.extend(bodies);
    }
    // A script written in the line and then run in it (`echo 'rm …' > x.sh; bash x.sh`,
    // `cat > x.py <<EOF … EOF` then `python3 x.py`, `. ./x.sh`): what is run is that text.
    if depth < MAX_DEPTH {
        let mut written: Vec<(String, String)> = Vec::new();
        let mut runs: Vec<(usize, usize, String, bool)> = Vec::new();
        for (pi, p) in a.pipelines.iter().enumerate() {
            for (ci, c) in p.iter().enumerate() {
                let shell = SHELLS.contains(&c.program.as_str())
                    || matches!(c.program.as_str(), "." | "source");
                let script = c.args.iter().find(|x| !x.starts_with('-'));
                if let Some(f) = script.filter(|_| shell || c.is_interpreter()) {
                    let key = c.dir.locate(f).unwrap_or_else(|| f.clone());
                    if let Some((_, text)) = written
                        .iter()
                        .rev()
                        .find(|(w, _)| w.trim_start_matches("./") == key.trim_start_matches("./"))
                    {
                        runs.push((pi, ci, text.clone(), shell));
                    }
                }
                if let Some(text) = c.written_text() {
                    let files = c
                        .redirect_writes
                        .iter()
                        .chain(c.args.iter().filter(|_| c.program == "tee"));
                    for f in files.filter(|f| !f.starts_with('-')) {
                        let key = c.dir.locate(f).unwrap_or_else(|| f.clone());
                        written.push((key, text.clone()));
                    }
                }
            }
        }
        for (pi, ci, text, shell) in runs {
            if shell {
                let (d, v) = (a.pipelines[pi][ci].dir.clone(), vars.clone());
                let child = analyze_depth(&text, depth + 1, &d, &v);
                a.incomplete |= child.incomplete;
                a.nested.push((pi, ci, child));
            } else {
                let c = &mut a.pipelines[pi][ci];
                let mut body = c.heredoc.take().unwrap_or_default();
                body.push_str(&text);
                c.heredoc = Some(body);
            }
        }
    }
    // Command lines run through options, config keys, the environment or inline code
    // (`git push --receive-pack=CMD`, `ssh -o ProxyCommand=CMD`, `os.system("CMD")`).
    if depth < MAX_DEPTH {
        let mut runs = Vec::new();
        for (pi, p) in a.pipelines.iter().enumerate() {
            for (ci, c) in p.iter().enumerate() {
                for script in super::code_options::command_scripts(c) {
                    runs.push((pi, ci, analyze_depth(&script, depth + 1, &c.dir, &vars)));
                }
            }
        }
        for (pi, ci, child) in runs {
            a.incomplete |= child.incomplete;
            a.nested.push((pi, ci, child));
        }
    }
    // The commands `find -exec`/`-execdir`/`-ok`/`-okdir` and `fd -x`/`-X` run.
    for (pi, p) in a.pipelines.iter().enumerate() {
        for (ci, c) in p.iter().enumerate() {
            for run in c.find_exec() {
                let mut inner = simple(run.into_iter().map(|w| (w, false)).collect(), Vec::new());
                inner.dir = c.dir.clone();
                a.nested.push((
                    pi,
                    ci,
                    Analysis {
                        pipelines: vec![vec![inner]],
                        ..Analysis::default()
                    },
                ));
            }
        }
    }
    // Attribute each substitution to the first command whose words held one (approximate
    // when a line has several: the owner matters only for "which command consumes it").
    for (pi, p) in a.pipelines.iter().enumerate() {
        for (ci, c) in p.iter().enumerate() {
            if c.has_substitution {
                sub_owner.push((pi, ci));
            }
        }
    }
    if depth < MAX_DEPTH {
        for (i, s) in subs.into_iter().enumerate() {
            let owner = sub_owner
                .get(i)
                .or(sub_owner.last())
                .copied()
                .unwrap_or((usize::MAX, usize::MAX));
            let dir = a
                .pipelines
                .get(owner.0)
                .and_then(|p| p.get(owner.1))
                .map_or(Dir::Start, |c| c.dir.clone());
            let child = analyze_depth(&s, depth + 1, &dir, &vars);
            // What a substitution nested too deep holds was not analysed: nor is the line.
            a.incomplete |= child.incomplete;
            a.nested.push((owner.0, owner.1, child));
        }
    }
    a
}

/// The commands of a crontab: each line without its five time fields (or its `@reboot`-style
/// nickname); comments and `NAME=value` lines are kept as they are (harmless to analyse).
fn crontab_commands(text: &str) -> String {
    text.lines()
        .map(|line| {
            let t = line.trim_start();
            if t.starts_with('@') {
                return t.split_once(char::is_whitespace).map_or("", |(_, r)| r);
            }
            let fields: Vec<&str> = t.splitn(6, char::is_whitespace).collect();
            let timed = fields.len() == 6
                && fields[..5].iter().all(|f| {
                    f.chars()
                        .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '*' | '/' | ',' | '-'))
                });
            if timed {
                fields[5]
            } else {
                t
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
