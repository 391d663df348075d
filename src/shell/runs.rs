//! The command lines a command runs, analysed as nested ones once the tree walk has made the
//! line's commands: `sh -c SCRIPT` (with its positional parameters), a here-document or
//! here-string fed to a shell, `eval`, `flock -c`, `env -S`, `find -exec`/`fd -x`,
//! `echo … | xargs CMD`, a script written in the line and then run in it, and code run through
//! options (`git -c core.pager=…`).

use super::command::{simple, Dir};
use super::expand::{fill_xargs, Vars};
use super::programs::{SHELLS, STDIN_SCRIPTS};
use super::tree::{analyze_text, Ctx};
use super::{Analysis, MAX_DEPTH};

/// Analyses `text` as a line run at `depth` in `dir` with `vars`.
fn analyze_depth(text: &str, depth: usize, dir: &Dir, vars: &Vars) -> Analysis {
    analyze_text(text, Ctx::new(depth, dir, vars))
}

/// Adds to `a` (a line analysed at `depth`, whose variables end as `vars`) the analyses of
/// the command lines its commands run.
pub(super) fn finish(a: &mut Analysis, depth: usize, vars: &Vars) {
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
                if !SHELLS.contains(program) && !STDIN_SCRIPTS.contains(&program) {
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
        a.nested.extend(bodies);
    }
    // A script written in the line and then run in it (`echo 'rm …' > x.sh; bash x.sh`,
    // `cat > x.py <<EOF … EOF` then `python3 x.py`, `. ./x.sh`): what is run is that text.
    if depth < MAX_DEPTH {
        let mut written: Vec<(String, String)> = Vec::new();
        let mut runs: Vec<(usize, usize, String, bool)> = Vec::new();
        for (pi, p) in a.pipelines.iter().enumerate() {
            for (ci, c) in p.iter().enumerate() {
                let shell = SHELLS.contains(c.program.as_str())
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
                    runs.push((pi, ci, analyze_depth(&script, depth + 1, &c.dir, vars)));
                }
            }
        }
        for (pi, ci, child) in runs {
            a.nested.push((pi, ci, child));
        }
    }
    // The commands `find -exec`/`-execdir`/`-ok`/`-okdir` and `fd -x`/`-X` run.
    for (pi, p) in a.pipelines.iter().enumerate() {
        for (ci, c) in p.iter().enumerate() {
            for run in c.find_exec() {
                let mut inner = simple(run.into_iter().map(|w| (w, false)).collect(), Vec::new());
                inner.dir = c.dir.clone();
                let mut n = Analysis {
                    pipelines: vec![vec![inner]],
                    ..Analysis::default()
                };
                // What the command runs in turn (`-exec sh -c '…'`).
                if depth < MAX_DEPTH {
                    finish(&mut n, depth + 1, vars);
                }
                a.nested.push((pi, ci, n));
            }
        }
    }
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
