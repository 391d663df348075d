//! `intentshield completions bash|zsh|fish` (a shell completion script) and `intentshield man`
//! (the man page, roff), both generated from the clap definition of the whole command line, so
//! they always match the program. Neither is on the hook's path: `intentshield hook` is parsed
//! by hand in `main.rs` before clap is built.

use crate::exit::{CliError, CliResult, ExitStatus};
use clap::{Arg, ArgMatches, Command};
use std::io::Write;

/// The clap definition of `completions`.
pub fn command() -> Command {
    Command::new("completions")
        .about("Print a shell completion script: bash, zsh or fish")
        .after_help(
            "Install, for example:\n  intentshield completions bash > ~/.local/share/bash-completion/completions/intentshield\n  intentshield completions zsh > \"${fpath[1]}/_intentshield\"\n  intentshield completions fish > ~/.config/fish/completions/intentshield.fish",
        )
        .arg(
            Arg::new("shell")
                .required(true)
                .value_parser(["bash", "zsh", "fish"])
                .help("bash, zsh or fish"),
        )
}

/// The clap definition of `man`.
pub fn man_command() -> Command {
    Command::new("man")
        .about("Print the man page (roff): intentshield man > intentshield.1; man ./intentshield.1")
}

/// Writes the completion script for the shell `m` names, for the command line `cli`, to `out`.
///
/// # Errors
///
/// [`CliError::error`] (exit 2) for a shell other than bash, zsh or fish (clap refuses it
/// first) or when `out` cannot be written.
pub fn run(m: &ArgMatches, cli: Command, out: &mut dyn Write) -> CliResult {
    use clap_complete::Shell;
    let shell = match m.get_one::<String>("shell").map(String::as_str) {
        Some("bash") => Shell::Bash,
        Some("zsh") => Shell::Zsh,
        Some("fish") => Shell::Fish,
        other => {
            return Err(CliError::error(
                "intentshield completions",
                format!("unknown shell {other:?}: expected bash, zsh or fish"),
            ))
        }
    };
    let mut cli = cli;
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cli, "intentshield", &mut buf);
    out.write_all(&buf)
        .and_then(|()| out.flush())
        .map_err(|e| CliError::error("intentshield completions", e))?;
    Ok(ExitStatus::SUCCESS)
}

/// Writes the man page of the command line `cli` (roff, section 1, with a section per
/// subcommand) to `out`.
///
/// # Errors
///
/// [`CliError::error`] (exit 2) when `out` cannot be written.
pub fn run_man(cli: Command, out: &mut dyn Write) -> CliResult {
    let err = |e: std::io::Error| CliError::error("intentshield man", e);
    let cli = cli.name("intentshield");
    let mut buf = Vec::new();
    let man = clap_mangen::Man::new(cli.clone());
    man.render_title(&mut buf).map_err(err)?;
    man.render_name_section(&mut buf).map_err(err)?;
    man.render_synopsis_section(&mut buf).map_err(err)?;
    man.render_description_section(&mut buf).map_err(err)?;
    man.render_options_section(&mut buf).map_err(err)?;
    man.render_subcommands_section(&mut buf).map_err(err)?;
    // Each subcommand's own options, as its own section.
    for sub in cli.get_subcommands() {
        if sub.is_hide_set() {
            continue;
        }
        let name = format!("intentshield {}", sub.get_name());
        writeln!(buf, ".SH \"{}\"", name.to_uppercase()).map_err(err)?;
        if let Some(about) = sub.get_about() {
            writeln!(buf, "{}", roff_text(&about.to_string())).map_err(err)?;
        }
        for arg in sub.get_arguments() {
            if arg.is_hide_set() || matches!(arg.get_id().as_str(), "help" | "version") {
                continue;
            }
            let mut label = match (arg.get_long(), arg.get_short()) {
                (Some(l), _) => format!("\\-\\-{l}"),
                (None, Some(s)) => format!("\\-{s}"),
                (None, None) => format!("<{}>", arg.get_id()),
            };
            if arg.get_long().is_some() && arg.get_action().takes_values() {
                label.push_str(&format!(" <{}>", arg.get_id()));
            }
            writeln!(buf, ".TP\n\\fB{label}\\fR").map_err(err)?;
            if let Some(help) = arg.get_help() {
                writeln!(buf, "{}", roff_text(&help.to_string())).map_err(err)?;
            }
        }
    }
    man.render_version_section(&mut buf).map_err(err)?;
    out.write_all(&buf)
        .and_then(|()| out.flush())
        .map_err(err)?;
    Ok(ExitStatus::SUCCESS)
}

/// Text made safe for a roff line: backslashes doubled, `-` escaped, a leading `.` or `'`
/// guarded.
fn roff_text(s: &str) -> String {
    let escaped = s.replace('\\', "\\\\").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}
