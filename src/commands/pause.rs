//! `intentshield pause [--project DIR] [--for 1h]`: a person pauses the guard's provenance,
//! taint and review checks for one project; `--end` ends it early; `--list` shows the pauses.
//!
//! Setting a pause is confirmed like `intentshield approve`: stdin and stdout must both be
//! terminals, and a random code written to `/dev/tty` must be typed back there. The marker is
//! written into our own data folder (`crate::pause`), which the agent's tools may not write, and
//! `pause` is one of the guard's state-changing commands, which the hook refuses to the agent
//! (`tamper.guard_command`). `--list` needs no terminal; `--end` needs none either (it only
//! tightens), but the hook refuses it to the agent all the same.

use crate::commands::approve::{random_code, terminal_name, user_id, DevTty, Terminal, MAX_ANSWER};
use crate::commands::log::fmt_ts;
use crate::exit::{CliError, CliResult, ExitStatus};
use crate::pause::{self, Pause};
use clap::{Arg, ArgAction, ArgMatches, Command};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

const CONTEXT: &str = "intentshield pause";

/// The refusal when stdin or stdout is not a terminal.
pub const NO_TERMINAL: &str = "refused: a pause must be set by a person at an interactive terminal, and stdin or stdout is not one. Run `intentshield pause` yourself in a terminal; nothing was paused";

/// The clap definition of `pause`.
pub fn command() -> Command {
    Command::new("pause")
        .about("Pause the provenance, taint and review checks for one project (a person, at a terminal); the always-deny and tamper rules stay on")
        .arg(
            Arg::new("project")
                .long("project")
                .value_parser(clap::value_parser!(PathBuf))
                .help("The project folder (default: the current directory); calls whose working directory is inside it are covered"),
        )
        .arg(
            Arg::new("for")
                .long("for")
                .default_value("1h")
                .help("How long: a number with s, m, h or d, from 1m to 7d (default 1h)"),
        )
        .arg(
            Arg::new("end")
                .long("end")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["list", "for"])
                .help("End the project's pause now"),
        )
        .arg(
            Arg::new("list")
                .long("list")
                .action(ArgAction::SetTrue)
                .conflicts_with("project")
                .help("List the pauses (no terminal needed)"),
        )
}

/// Runs `pause`.
///
/// # Errors
///
/// [`CliError::error`] (exit 2, `intentshield pause: <e>`), nothing paused, when: setting a
/// pause without a terminal on stdin and stdout ([`NO_TERMINAL`], checked first); no home folder;
/// the project folder does not exist; the length is invalid ([`pause::parse_duration`]);
/// `/dev/tty` cannot be opened, the code cannot be drawn or does not match; the marker cannot
/// be written or removed.
pub fn run(m: &ArgMatches) -> CliResult {
    let dir = pause::pause_dir()
        .ok_or_else(|| CliError::error(CONTEXT, "no home folder to keep the pause in"))?;
    let mut out = io::stdout().lock();
    if m.get_flag("list") {
        list(&dir, crate::state::now(), &mut out).map_err(|e| CliError::error(CONTEXT, e))?;
        return Ok(ExitStatus::SUCCESS);
    }
    let setting = !m.get_flag("end");
    if setting && !(io::stdin().is_terminal() && io::stdout().is_terminal()) {
        return Err(CliError::error(CONTEXT, NO_TERMINAL));
    }
    let project = match m.get_one::<PathBuf>("project") {
        Some(p) => p.clone(),
        None => std::env::current_dir().map_err(|e| CliError::error(CONTEXT, e))?,
    };
    let project = std::fs::canonicalize(&project)
        .ok()
        .filter(|p| p.is_dir())
        .ok_or_else(|| {
            CliError::error(
                CONTEXT,
                format!("{}: not an existing folder", project.display()),
            )
        })?;
    if setting {
        let home = crate::env::path(crate::env::HOME);
        pause::check_project(&project, home.as_deref()).map_err(|e| CliError::error(CONTEXT, e))?;
    }
    if !setting {
        let removed = pause::end_in(&dir, &project).map_err(|e| CliError::error(CONTEXT, e))?;
        let _ = writeln!(
            out,
            "{}",
            if removed {
                format!("Pause of {} ended.", project.display())
            } else {
                format!("{} was not paused.", project.display())
            }
        );
        return Ok(ExitStatus::SUCCESS);
    }
    let secs = m
        .get_one::<String>("for")
        .map_or(Ok(pause::DEFAULT_PAUSE_SECS), |s| pause::parse_duration(s))
        .map_err(|e| CliError::error(CONTEXT, e))?;
    let mut tty = DevTty::open().map_err(|e| {
        CliError::error(
            CONTEXT,
            format!("refused: cannot open the terminal /dev/tty ({e}); nothing was paused"),
        )
    })?;
    let code = random_code().map_err(|e| {
        CliError::error(
            CONTEXT,
            format!("refused: cannot draw a confirmation code ({e}); nothing was paused"),
        )
    })?;
    let now = crate::state::now();
    let p = Pause {
        project,
        set_at: now,
        until: now + secs,
        terminal: terminal_name(),
        uid: user_id(),
    };
    confirm(&dir, &p, &mut out, &mut tty, &code).map_err(|e| CliError::error(CONTEXT, e))?;
    Ok(ExitStatus::SUCCESS)
}

/// Shows what the pause does on `show`, writes the confirmation `code` to `tty` only, and
/// writes the marker into `dir` only when the answer read from `tty` is `code`.
///
/// # Errors
///
/// A message starting `refused:` when writing or reading the terminal fails or the answer is
/// not `code` (nothing is paused), or the marker's write error.
pub fn confirm(
    dir: &Path,
    p: &Pause,
    show: &mut dyn Write,
    tty: &mut dyn Terminal,
    code: &str,
) -> Result<(), String> {
    let io_err = |e: io::Error| format!("refused: terminal: {e}; nothing was paused");
    write!(
        show,
        "Pause IntentShield for {} until {} UTC?\n\
         While paused, calls whose working directory is in this folder are not asked about or\n\
         denied for taint, provenance or review (each is still audited, as pause.project).\n\
         Still denied: a download piped to a shell, secrets sent out, nested agents with their\n\
         checks off, injected instructions or secrets in arguments, quarantined MCP tools, and\n\
         any write to agent, hook or IntentShield settings.\n",
        p.project.display(),
        fmt_ts(p.until)
    )
    .and_then(|()| show.flush())
    .map_err(io_err)?;
    tty.write_text(&format!(
        "To pause, type the code {code} and press Enter (anything else refuses): "
    ))
    .map_err(io_err)?;
    let answer = tty.read_line(MAX_ANSWER).map_err(io_err)?;
    if code.is_empty() || !answer.trim().eq_ignore_ascii_case(code) {
        let _ = tty.write_text("Not paused.\n");
        return Err("refused: the confirmation code did not match; nothing was paused".into());
    }
    pause::set_in(dir, p)?;
    let _ = writeln!(
        show,
        "Paused {} until {} UTC. End it early with `intentshield pause --end --project {}`.",
        p.project.display(),
        fmt_ts(p.until),
        crate::text::shell_quote(&p.project.to_string_lossy())
    );
    Ok(())
}

/// Prints every marker in `dir`: each pause, active or ended, with its end time, and each
/// marker the hook ignores, with why (see [`pause::scan_in`]).
///
/// # Errors
///
/// The write error of `out`.
pub fn list(dir: &Path, now: i64, out: &mut dyn Write) -> Result<(), String> {
    let all = pause::scan_in(dir, now);
    if all.is_empty() {
        writeln!(out, "No project is paused.").map_err(|e| e.to_string())?;
        return Ok(());
    }
    for m in all {
        let line = match (&m.pause, &m.ignored) {
            (Some(p), None) => {
                let state = if p.until > now {
                    format!("paused until {} UTC", fmt_ts(p.until))
                } else {
                    format!("ended {} UTC", fmt_ts(p.until))
                };
                format!(
                    "{}  {state}  (set {} UTC at {})",
                    p.project.display(),
                    fmt_ts(p.set_at),
                    p.terminal
                )
            }
            (p, why) => format!(
                "{}  ignored: {}  ({})",
                p.as_ref().map_or_else(
                    || m.file.display().to_string(),
                    |p| p.project.display().to_string()
                ),
                why.as_deref().unwrap_or("invalid"),
                m.file.display()
            ),
        };
        writeln!(out, "{line}").map_err(|e| e.to_string())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::approve::{shown_code, ScriptedTerminal};

    #[test]
    fn the_code_typed_back_sets_the_pause_and_a_wrong_one_does_not() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("pause");
        let p = Pause {
            project: tmp.path().to_path_buf(),
            set_at: 10,
            until: 4000,
            terminal: "/dev/pts/1".into(),
            uid: None,
        };
        let mut shown = Vec::new();
        let mut wrong = ScriptedTerminal::new(|w| format!("{}X", shown_code(w)));
        let e = confirm(&dir, &p, &mut shown, &mut wrong, "ABC234").unwrap_err();
        assert!(e.contains("nothing was paused"), "{e}");
        assert!(pause::list_in(&dir, 100).is_empty());
        let shown_text = String::from_utf8_lossy(&shown).to_string();
        assert!(
            !shown_text.contains("ABC234"),
            "the code goes to the terminal only"
        );
        let mut right = ScriptedTerminal::new(shown_code);
        confirm(&dir, &p, &mut Vec::new(), &mut right, "ABC234").unwrap();
        assert_eq!(pause::list_in(&dir, 100), vec![p.clone()]);
        let mut listed = Vec::new();
        list(&dir, 100, &mut listed).unwrap();
        let listed = String::from_utf8(listed).unwrap();
        assert!(
            listed.contains("paused until 1970-01-01 01:06:40 UTC"),
            "{listed}"
        );
    }
}
