//! `intentshield wrap FILE` and `intentshield unwrap FILE` ([`crate::wrap`]).

use crate::exit::{CliError, CliResult, ExitStatus};
use clap::{Arg, ArgAction, ArgMatches, Command};
use std::path::PathBuf;

fn args(c: Command) -> Command {
    c.arg(
        Arg::new("file")
            .required(true)
            .help("An MCP configuration file: .mcp.json, ~/.claude.json, mcp.json, settings.json, claude_desktop_config.json, mcp_config.json, .vscode/mcp.json or Codex config.toml"),
    )
    .arg(
        Arg::new("dry-run")
            .long("dry-run")
            .action(ArgAction::SetTrue)
            .help("Show what would change; write nothing"),
    )
}

/// The clap definition of `wrap`.
pub fn wrap_command() -> Command {
    args(
        Command::new("wrap")
            .about("Put the MCP proxy in front of every stdio server of an MCP configuration file"),
    )
    .arg(
        Arg::new("bin")
            .long("bin")
            .conflicts_with("portable")
            .help("The intentshield binary the entries should launch (default: this one)"),
    )
    .arg(
        Arg::new("portable")
            .long("portable")
            .action(ArgAction::SetTrue)
            .help("Launch the command name `intentshield`, found on PATH, instead of this executable's absolute path (for a config a team commits; a command on PATH can be shadowed)"),
    )
}

/// A note when `file` is inside the current directory (a project file, often committed) and
/// the entries now name an absolute path of this machine.
fn project_note(file: &std::path::Path, bin: &str) -> Option<String> {
    if !std::path::Path::new(bin).is_absolute() {
        return None;
    }
    let cwd = std::env::current_dir().ok()?;
    let home = directories::BaseDirs::new().map(|b| b.home_dir().to_path_buf());
    if home.as_deref() == Some(cwd.as_path()) {
        return None;
    }
    let abs = std::fs::canonicalize(file).ok()?;
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    abs.starts_with(&cwd).then(|| {
        format!(
            "{} now names {bin}, a path on this machine; if the file is committed, teammates' servers cannot start. Wrap with --portable to write the command name `{}`, found on PATH (a command on PATH can be shadowed by an earlier PATH entry)",
            file.display(),
            crate::commands::install::PORTABLE_NAME
        )
    })
}

/// The clap definition of `unwrap`.
pub fn unwrap_command() -> Command {
    args(Command::new("unwrap").about("Restore the server entries that `wrap` changed"))
}

/// Runs `wrap` (or `unwrap` when `unwrap`). Exit status 0, or 2 with the reason on stderr.
///
/// # Errors
///
/// [`CliError::error`] (exit 2): `intentshield wrap: <e>; pass --bin` when no `--bin` is given
/// and the running executable cannot be found; `intentshield wrap: <e>` (or `unwrap`) when
/// [`crate::wrap::run`] fails: the file is missing, unreadable, read-only or does not parse
/// (nothing changed), or a write fails.
pub fn run(m: &ArgMatches, unwrap: bool) -> CliResult {
    let file = PathBuf::from(m.get_one::<String>("file").expect("required"));
    let dry = m.get_flag("dry-run");
    let bin = if unwrap {
        String::new()
    } else if m.get_flag("portable") {
        crate::commands::install::PORTABLE_NAME.to_string()
    } else {
        match m.get_one::<String>("bin") {
            Some(b) => b.clone(),
            None => match crate::commands::install::current_exe() {
                Ok(p) => p.display().to_string(),
                Err(e) => {
                    return Err(CliError::error(
                        "intentshield wrap",
                        format!("{e}; pass --bin"),
                    ))
                }
            },
        }
    };
    let verb = if unwrap { "unwrap" } else { "wrap" };
    match crate::wrap::run(&file, &bin, unwrap, dry) {
        Ok(out) => {
            for n in &out.notes {
                println!("note: {n}");
            }
            let done = if dry { "would " } else { "" };
            if out.changed.is_empty() {
                println!("{}: nothing to {verb}", file.display());
            }
            for c in &out.changed {
                println!("{done}{verb} {c}");
            }
            if dry && !out.changed.is_empty() {
                println!("--- {} after {verb}:\n{}", file.display(), out.text);
            }
            if !unwrap && !out.changed.is_empty() {
                if let Some(n) = project_note(&file, &bin) {
                    println!("warning: {n}");
                }
            }
            Ok(ExitStatus::SUCCESS)
        }
        Err(e) => Err(CliError::error(&format!("intentshield {verb}"), e)),
    }
}
