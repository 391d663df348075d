//! `intentshield install|uninstall <harness>|--all [--scope user|project] [--review ...]
//! [--dry-run]`. The work is in [`crate::install`]; this is the command line and the report.

use crate::event::Harness;
use crate::exit::{CliError, CliResult, ExitStatus};
use crate::install::{self, Backup, Change, Env, Options, Scope};
use clap::{Arg, ArgAction, ArgMatches, Command};
use std::path::PathBuf;

const HARNESSES: [&str; 4] = ["claude", "codex", "cursor", "gemini"];

fn common(cmd: Command, verb: &str) -> Command {
    cmd.arg(
        Arg::new("harness")
            .value_parser(HARNESSES)
            .required_unless_present("all")
            .help(format!("Which harness to {verb} the hook for")),
    )
    .arg(
        Arg::new("all")
            .long("all")
            .action(ArgAction::SetTrue)
            .conflicts_with("harness")
            .help(if verb == "install" {
                "Every harness found on this machine"
            } else {
                "Every harness"
            }),
    )
    .arg(
        Arg::new("scope")
            .long("scope")
            .value_parser(["user", "project"])
            .default_value("user")
            .help("User settings (~/.claude/...) or this project's (.claude/...)"),
    )
    .arg(
        Arg::new("dry-run")
            .long("dry-run")
            .action(ArgAction::SetTrue)
            .help("Print the change as a diff and write nothing"),
    )
}

/// `install`.
pub fn command() -> Command {
    common(
        Command::new("install").about("Add the intentshield hook to a harness's settings"),
        "install",
    )
    .arg(
        Arg::new("review")
            .long("review")
            .value_parser(["always", "tainted", "never"])
            .help("Passed to the hook as --review <mode>"),
    )
    .arg(
        Arg::new("portable")
            .long("portable")
            .action(ArgAction::SetTrue)
            .help("Write the command name `intentshield`, found on PATH when the hook runs, instead of this executable's absolute path (for settings a team commits; a command on PATH can be shadowed)"),
    )
}

/// `uninstall`.
pub fn uninstall_command() -> Command {
    common(
        Command::new("uninstall").about("Remove the intentshield hook from a harness's settings"),
        "uninstall",
    )
}

fn scope_of(m: &ArgMatches) -> Scope {
    match m.get_one::<String>("scope").map(String::as_str) {
        Some("project") => Scope::Project,
        _ => Scope::User,
    }
}

/// The absolute path of the running executable (symlinks resolved; when that fails, the path
/// as the OS gives it).
///
/// # Errors
///
/// `cannot find our own executable: <e>` when the OS cannot say.
pub fn current_exe() -> Result<PathBuf, String> {
    let exe =
        std::env::current_exe().map_err(|e| format!("cannot find our own executable: {e}"))?;
    Ok(std::fs::canonicalize(&exe).unwrap_or(exe))
}

fn targets(m: &ArgMatches, env: &Env, installing: bool) -> Vec<Harness> {
    if m.get_flag("all") {
        Harness::ALL
            .into_iter()
            .filter(|h| !installing || install::harness_found(*h, env))
            .collect()
    } else {
        m.get_one::<String>("harness")
            .and_then(|n| Harness::from_name(n))
            .into_iter()
            .collect()
    }
}

/// Reports one harness's changes (and applies them unless `dry_run`); `Ok(false)` when there
/// was nothing to do.
fn report(h: Harness, changes: &[Change], dry_run: bool, verb: &str) -> Result<bool, String> {
    let name = h.name();
    if changes.iter().all(Change::is_noop) {
        let p = changes
            .first()
            .map(|c| c.path.display().to_string())
            .unwrap_or_default();
        if verb == "installed" {
            println!("{name}: {p} is already up to date; nothing written");
        } else {
            println!("{name}: no intentshield entries in {p}; nothing to remove");
        }
        return Ok(false);
    }
    if dry_run {
        for c in changes.iter().filter(|c| !c.is_noop()) {
            print!("{}", c.diff());
        }
        println!("{name}: dry run; nothing written");
        return Ok(true);
    }
    install::apply(changes).map_err(|e| e.to_string())?;
    for c in changes.iter().filter(|c| !c.is_noop()) {
        let bak = install::fsutil::backup_path(&c.path);
        let is_toml = c.path.extension().is_some_and(|e| e == "toml");
        let what = match (&c.before, &c.after, &c.backup) {
            _ if is_toml && verb == "installed" => format!(
                "updated: [features] hooks turned on (the text before is kept in {})",
                bak.display()
            ),
            _ if is_toml => "updated: [features] hooks turned off again, as before install".to_string(),
            (None, Some(_), _) => "created".to_string(),
            (Some(_), None, _) => "removed (it held only our entries)".to_string(),
            (_, _, Backup::Write(_)) => {
                format!("updated (the text before install is kept in {})", bak.display())
            }
            (_, _, Backup::Leave) if !bak.exists() => "updated".to_string(),
            (_, _, Backup::Leave) if verb == "installed" => format!(
                "updated (the text before the first install stays in {})",
                bak.display()
            ),
            (_, _, Backup::Leave) => format!(
                "updated: our entries removed, your later changes kept (the text before install is in {})",
                bak.display()
            ),
            (_, _, Backup::Remove) if verb == "installed" => "updated".to_string(),
            (_, _, Backup::Remove) => "restored to its text before install".to_string(),
        };
        println!("{name}: {verb}: {} {what}", c.path.display());
    }
    Ok(true)
}

/// Whether `intentshield` is found on `PATH` (what a `--portable` entry runs).
fn on_path() -> bool {
    let path = std::env::var_os(crate::env::PATH).unwrap_or_default();
    std::env::split_paths(&path).any(|d| {
        std::fs::metadata(d.join(PORTABLE_NAME)).is_ok_and(|m| {
            use std::os::unix::fs::PermissionsExt;
            m.is_file() && m.permissions().mode() & 0o111 != 0
        })
    })
}

/// The command name a `--portable` entry runs, looked up on `PATH` by the harness's shell.
pub const PORTABLE_NAME: &str = "intentshield";

fn run_both(m: &ArgMatches, installing: bool) -> CliResult {
    let env = Env::from_process().map_err(|e| CliError::failure("intentshield", e))?;
    let portable = installing && m.get_flag("portable");
    let exe = if portable {
        PathBuf::from(PORTABLE_NAME)
    } else {
        current_exe().map_err(|e| CliError::failure("intentshield", e))?
    };
    let opts = Options {
        scope: scope_of(m),
        review: if installing {
            m.get_one::<String>("review").cloned()
        } else {
            None
        },
        exe,
    };
    let dry_run = m.get_flag("dry-run");
    let hs = targets(m, &env, installing);
    if hs.is_empty() {
        return Err(CliError::failure(
            "intentshield",
            "no harness found on this machine (looked for ~/.claude, ~/.codex, ~/.cursor, ~/.gemini and the programs on PATH); name one: intentshield install claude",
        ));
    }
    let mut failed = 0;
    for h in hs {
        let plan = if installing {
            install::plan_install(h, &opts, &env)
        } else {
            install::plan_uninstall(h, &opts, &env)
        };
        let res = plan.map_err(|e| e.to_string()).and_then(|c| {
            report(
                h,
                &c,
                dry_run,
                if installing {
                    "installed"
                } else {
                    "uninstalled"
                },
            )
        });
        match res {
            Ok(did) => {
                if installing {
                    for w in switched_off(h, &opts, &env) {
                        println!("{}: warning: {w}", h.name());
                    }
                    for w in path_warnings(h, &opts, &env, portable) {
                        println!("{}: warning: {w}", h.name());
                    }
                    for n in install::notes(h, opts.scope) {
                        println!("{}: note: {n}", h.name());
                    }
                } else if !did {
                    if let Some(hint) = other_scope_hint(h, &opts, &env) {
                        println!("{}: note: {hint}", h.name());
                    }
                }
            }
            Err(e) => {
                eprintln!("intentshield: {}: {e}", h.name());
                failed += 1;
            }
        }
    }
    if installing && failed == 0 && !dry_run {
        println!("Check it with: intentshield doctor");
    }
    Ok(ExitStatus::failure_if(failed > 0))
}

/// The warnings about the executable an install names: an absolute path of this machine in
/// a project file (teammates who commit it get a hook that cannot start, which a fail-closed
/// harness turns into every tool call blocked), or a `--portable` name not found on `PATH`.
fn path_warnings(h: Harness, opts: &Options, env: &Env, portable: bool) -> Vec<String> {
    let Ok(spec) = install::spec::load(h) else {
        return Vec::new();
    };
    let path = install::settings_path(&spec, opts.scope, env);
    let mut out = Vec::new();
    if portable && !on_path() {
        out.push(format!(
            "`{PORTABLE_NAME}` is not on PATH here, so the hook in {} cannot start until it is (put it on PATH, e.g. `cargo install --path .`)",
            path.display()
        ));
    }
    if opts.scope == Scope::Project && !portable {
        out.push(format!(
            "{} names {}, a path on this machine; if the file is committed, teammates get a hook that cannot start{}. Install with --portable to write the command name `{PORTABLE_NAME}`, found on PATH (a command on PATH can be shadowed by an earlier PATH entry)",
            path.display(),
            opts.exe.display(),
            if spec.fail_closed.is_some() {
                " and, being fail-closed, blocks every tool call"
            } else {
                ""
            }
        ));
    }
    out
}

/// When uninstall found nothing of ours in one scope but the other scope holds our entries:
/// the command to run for it.
fn other_scope_hint(h: Harness, opts: &Options, env: &Env) -> Option<String> {
    let other = match opts.scope {
        Scope::User => Scope::Project,
        Scope::Project => Scope::User,
    };
    let o = Options {
        scope: other,
        ..opts.clone()
    };
    let changes = install::plan_uninstall(h, &o, env).ok()?;
    let c = changes.first().filter(|c| !c.is_noop())?;
    let flag = match other {
        Scope::Project => "project",
        Scope::User => "user",
    };
    Some(format!(
        "intentshield entries are in {}: run `intentshield uninstall {} --scope {flag}`",
        c.path.display(),
        h.name()
    ))
}

/// Settings that keep every hook from running although ours is installed: Claude Code
/// `disableAllHooks: true` (hook-protocols.md §1.4), Gemini CLI `hooksConfig.enabled: false`
/// (§4.4). We do not override the user's choice; we say it.
fn switched_off(h: Harness, opts: &Options, env: &Env) -> Vec<String> {
    let Ok(spec) = install::spec::load(h) else {
        return Vec::new();
    };
    let path = install::settings_path(&spec, opts.scope, env);
    let Ok(Some(text)) = install::fsutil::read_text(&path) else {
        return Vec::new();
    };
    let Ok(doc) = install::json::parse(&path, &text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if h == Harness::Claude && doc.get("disableAllHooks") == Some(&serde_json::Value::Bool(true)) {
        out.push(format!(
            "{} sets \"disableAllHooks\": true, so no hook runs; remove it",
            path.display()
        ));
    }
    if h == Harness::Gemini
        && doc.get("hooksConfig").and_then(|c| c.get("enabled"))
            == Some(&serde_json::Value::Bool(false))
    {
        out.push(format!(
            "{} sets hooksConfig.enabled to false, so no hook runs; set it to true",
            path.display()
        ));
    }
    out
}

/// Runs `install`. Exit 0 on success (also when nothing needed to change), 1 on any error.
///
/// # Errors
///
/// [`CliError::failure`] (exit 1, `intentshield: <e>`) before any harness is tried: the home
/// or current directory cannot be found ([`Env::from_process`]), nor the running executable
/// ([`current_exe`]), or `--all` finds no harness on this machine. A
/// harness whose install fails is no `Err`: it is reported as `intentshield: <harness>: <e>`
/// on stderr, the others are still tried, and the status is 1.
pub fn run(m: &ArgMatches) -> CliResult {
    run_both(m, true)
}

/// Runs `uninstall`. Exit 0 on success, 1 on any error.
///
/// # Errors
///
/// [`CliError::failure`] (exit 1, `intentshield: <e>`) before any harness is tried: the home
/// or current directory, or the running executable, cannot be found (as for [`run`]). A
/// harness whose uninstall fails is reported as `intentshield: <harness>: <e>` on stderr, the
/// others are still tried, and the status is 1, not an `Err`.
pub fn run_uninstall(m: &ArgMatches) -> CliResult {
    run_both(m, false)
}
