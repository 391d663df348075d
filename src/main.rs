//! The `intentshield` binary. The hook path (`intentshield hook <harness>`) parses its few flags
//! by hand and skips clap, since every tool call pays for its start-up; everything else goes
//! through clap.

use intentshield::commands;
use intentshield::config::Flags;
use intentshield::event::Harness;
use intentshield::exit::{self, CliResult, ExitStatus};
use intentshield::hook;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

const ABOUT: &str = "Offline guard between AI coding agents and their tools";

/// The `hook` subcommand as clap knows it (the hook itself parses its flags by hand,
/// [`parse_hook_args`]; clap explains bad ones and prints its help).
fn hook_command() -> clap::Command {
    clap::Command::new("hook")
        .about("The hook a harness runs on every event: event JSON on stdin, answer on stdout")
        .arg(
            clap::Arg::new("harness")
                .required(true)
                .help("claude, codex, cursor or gemini"),
        )
        .arg(
            clap::Arg::new("review")
                .long("review")
                .help("always, tainted (default) or never"),
        )
        .arg(
            clap::Arg::new("outputs")
                .long("outputs")
                .help("warn (default) or block"),
        )
        .arg(
            clap::Arg::new("gemini-ask")
                .long("gemini-ask")
                .help("deny (default) or ask"),
        )
        .arg(clap::Arg::new("db").long("db").help("Database file"))
        .arg(clap::Arg::new("config").long("config").help("Config file"))
}

/// The usage line of `install` and `uninstall`, which names `--all` too: the verb alone must
/// say how to pick every harness.
fn all_usage(verb: &str) -> String {
    format!("intentshield {verb} <claude|codex|cursor|gemini> [OPTIONS]\n       intentshield {verb} --all [OPTIONS]   (every harness found on this machine)")
}

fn install_command() -> clap::Command {
    commands::install::command().override_usage(all_usage("install"))
}

fn uninstall_command() -> clap::Command {
    commands::install::uninstall_command().override_usage(all_usage("uninstall"))
}

/// Builds one subcommand.
type Builder = fn() -> clap::Command;

/// Every subcommand, by name and in the order `--help` lists them: a command line that names
/// one builds only that one ([`cli_for`]). A test holds each name to its command's.
const SUBCOMMANDS: &[(&str, Builder)] = &[
    ("hook", hook_command),
    ("check", commands::check::command),
    ("log", commands::log::command),
    ("audit", commands::audit::command),
    ("approve", commands::approve::command),
    ("scan", commands::scan::command),
    ("contracts", commands::contracts::command),
    // The AgentDojo tooling, off the hook's path (the `replay` feature, on by default).
    #[cfg(feature = "replay")]
    ("replay", commands::replay::command),
    ("install", install_command),
    ("uninstall", uninstall_command),
    ("doctor", commands::doctor::command),
    ("demo", commands::demo::command),
    ("mcp-proxy", commands::mcp::proxy_command),
    ("mcp", commands::mcp::command),
    ("wrap", commands::wrap::wrap_command),
    ("unwrap", commands::wrap::unwrap_command),
    ("pause", commands::pause::command),
    ("threats", commands::threats::command),
    ("completions", commands::completions::command),
    ("man", commands::completions::man_command),
];

/// The whole command line interface (help, completions, the man page, a command line clap
/// must explain).
fn cli() -> clap::Command {
    cli_for(None)
}

/// The command line interface with every subcommand, or with only the one named `only`.
/// Building all of them (their arguments, help texts) is most of clap's cost at start-up, and
/// a command line that names a subcommand exactly parses the same with that one alone: its
/// arguments, help and errors are the subcommand's own.
fn cli_for(only: Option<&str>) -> clap::Command {
    let mut cmd = clap::Command::new("intentshield")
        .about(ABOUT)
        .version(env!("CARGO_PKG_VERSION"))
        .subcommand_required(true)
        .arg_required_else_help(true);
    for (name, build) in SUBCOMMANDS {
        if only.is_none_or(|o| o == *name) {
            cmd = cmd.subcommand(build());
        }
    }
    cmd
}

/// Hand parse of `hook <harness> [--review X] [--outputs X] [--gemini-ask X] [--db P] [--config P]`
/// (`--flag=value` too). `None` when anything else is there (clap then explains).
fn parse_hook_args(args: &[String]) -> Option<(String, Flags)> {
    let mut harness = None;
    let mut flags = Flags::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let (key, inline) = match a.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = || -> Option<String> {
            match &inline {
                Some(v) => Some(v.clone()),
                None => {
                    i += 1;
                    args.get(i).cloned()
                }
            }
        };
        match key {
            "--review" => flags.review = Some(value()?),
            "--outputs" => flags.outputs = Some(value()?),
            "--gemini-ask" => flags.gemini_ask = Some(value()?),
            "--db" => flags.db = Some(PathBuf::from(value()?)),
            "--config" => flags.config = Some(PathBuf::from(value()?)),
            "--harness" => harness = Some(value()?),
            k if k.starts_with('-') => return None,
            _ if harness.is_none() => harness = Some(a.clone()),
            _ => return None,
        }
        i += 1;
    }
    Some((harness?, flags))
}

/// Reads the event and runs the hook; a panic still ends in the fail-closed answer for the
/// event's kind (a panic on a post-tool event must not block anything).
fn run_hook(harness: &str, flags: &Flags) -> ExitStatus {
    let input = match hook::read_stdin() {
        Ok(b) => b,
        Err(e) => {
            let out = hook::fail(
                Harness::from_name(harness),
                None,
                &format!("cannot read stdin: {e}"),
            );
            return emit(&out.rendered);
        }
    };
    let message: Arc<Mutex<String>> = Arc::default();
    let sink = Arc::clone(&message);
    std::panic::set_hook(Box::new(move |info| {
        if let Ok(mut m) = sink.lock() {
            *m = info.to_string();
        }
    }));
    match std::panic::catch_unwind(|| hook::run(harness, flags, &input, None)) {
        Ok(out) => emit(&out.rendered),
        Err(_) => {
            let msg = message.lock().map(|m| m.clone()).unwrap_or_default();
            let event_name = serde_json::from_slice::<serde_json::Value>(&input)
                .ok()
                .and_then(|v| v.get("hook_event_name")?.as_str().map(str::to_string));
            let out = hook::fail(
                Harness::from_name(harness),
                event_name.as_deref(),
                &format!("internal error: {}", msg.lines().next().unwrap_or("panic")),
            );
            emit(&out.rendered)
        }
    }
}

/// Writes the rendered answer; its exit code (the harness renderer's choice) passes through.
fn emit(r: &intentshield::harness::Rendered) -> ExitStatus {
    let mut so = std::io::stdout().lock();
    let _ = so.write_all(r.stdout.as_bytes());
    if !r.stdout.is_empty() {
        let _ = so.write_all(b"\n");
    }
    let _ = so.flush();
    if !r.stderr.is_empty() {
        let mut se = std::io::stderr().lock();
        let _ = writeln!(se, "{}", r.stderr);
        let _ = se.flush();
    }
    ExitStatus::passthrough(r.exit_code)
}

fn main() {
    // Read as OS strings: `std::env::args` panics on an argument that is not UTF-8, before the
    // hook's panic handler, so the harness saw a crash (exit 101) instead of a deny. Each
    // argument is kept as text written lossily, for messages and the choice of subcommand;
    // a hook command line with such an argument is refused below (a lossy `--db` path would
    // name another file), and clap refuses one in any other command.
    let raw: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let args: Vec<String> = raw
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let all_utf8 = raw.iter().all(|a| a.to_str().is_some());
    if args.first().map(String::as_str) == Some("hook") {
        let parsed = if all_utf8 {
            parse_hook_args(&args[1..])
        } else {
            None
        };
        if let Some((harness, flags)) = parsed {
            // A panic anywhere must still end in an explicit deny: the harnesses let a call
            // through when a hook crashes (hook-protocols.md §9, §10).
            let status = match std::panic::catch_unwind(|| run_hook(&harness, &flags)) {
                Ok(status) => status,
                Err(_) => {
                    emit(&hook::fail(Harness::from_name(&harness), None, "internal error").rendered)
                }
            };
            // Exit without running destructors (perf-notes.md §1).
            std::process::exit(status.code());
        }
        // Bad hook arguments: one line on stderr saying what is wrong, and the harness still
        // gets a deny (exit 2, which every harness reads as a block).
        let msg = if all_utf8 {
            bad_hook_args_message(&args[1..])
        } else {
            format!(
                "hook arguments are not valid UTF-8 ('{}', as read with replacement characters)",
                args[1..].join(" ")
            )
        };
        let out = hook::fail(args.get(1).and_then(|h| Harness::from_name(h)), None, &msg);
        if let Err(e) = cli_for(Some("hook"))
            .try_get_matches_from(std::iter::once("intentshield".to_string()).chain(args.clone()))
        {
            if matches!(e.kind(), clap::error::ErrorKind::DisplayHelp) {
                let _ = e.print();
                std::process::exit(ExitStatus::SUCCESS.code());
            }
        }
        std::process::exit(emit(&out.rendered).code());
    }
    // A first argument that is a subcommand's name: only that subcommand is built. Anything
    // else (a flag, `help`, a typo clap should suggest a name for) gets the whole interface.
    let only = args
        .first()
        .map(String::as_str)
        .filter(|a| SUBCOMMANDS.iter().any(|(n, _)| n == a));
    let m = cli_for(only).get_matches();
    // The one place a command's result becomes the process exit code; a reader that closes
    // the pipe early ends the command quietly (exit.rs).
    std::process::exit(exit::run_cli(|| dispatch(&m)));
}

/// The one-line reason for hook arguments [`parse_hook_args`] refused (`args` after `hook`).
fn bad_hook_args_message(args: &[String]) -> String {
    const USAGE: &str = "usage: intentshield hook <claude|codex|cursor|gemini> [--review MODE] [--outputs MODE] [--gemini-ask MODE] [--db FILE] [--config FILE], with the event JSON on stdin";
    if args.iter().all(|a| a.starts_with('-')) && !args.iter().any(|a| a == "--harness") {
        format!("no harness named ({USAGE})")
    } else {
        format!("bad hook arguments '{}' ({USAGE})", args.join(" "))
    }
}

/// Runs the subcommand clap matched.
fn dispatch(m: &clap::ArgMatches) -> CliResult {
    match m.subcommand() {
        Some(("check", sub)) => commands::check::run(sub),
        Some(("log", sub)) => commands::log::run(sub),
        Some(("audit", sub)) => commands::audit::run(sub),
        Some(("approve", sub)) => commands::approve::run(sub),
        Some(("scan", sub)) => commands::scan::run(sub),
        Some(("contracts", sub)) => commands::contracts::run(sub),
        #[cfg(feature = "replay")]
        Some(("replay", sub)) => commands::replay::run(sub),
        Some(("install", sub)) => commands::install::run(sub),
        Some(("uninstall", sub)) => commands::install::run_uninstall(sub),
        Some(("doctor", sub)) => commands::doctor::run(sub),
        Some(("demo", sub)) => commands::demo::run(sub),
        Some(("mcp-proxy", sub)) => commands::mcp::run_proxy(sub),
        Some(("mcp", sub)) => commands::mcp::run(sub),
        Some(("wrap", sub)) => commands::wrap::run(sub, false),
        Some(("unwrap", sub)) => commands::wrap::run(sub, true),
        Some(("pause", sub)) => commands::pause::run(sub),
        Some(("threats", sub)) => commands::threats::run(sub),
        Some(("completions", sub)) => {
            commands::completions::run(sub, cli(), &mut std::io::stdout().lock())
        }
        Some(("man", _)) => commands::completions::run_man(cli(), &mut std::io::stdout().lock()),
        _ => Ok(ExitStatus::ERROR),
    }
}

#[cfg(test)]
mod tests {
    use super::{bad_hook_args_message, cli, cli_for, parse_hook_args, SUBCOMMANDS};

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    /// Each entry of the table builds the command it is named after, once.
    #[test]
    fn subcommand_table_names_its_commands() {
        let mut names: Vec<&str> = SUBCOMMANDS.iter().map(|(n, _)| *n).collect();
        for (name, build) in SUBCOMMANDS {
            assert_eq!(build().get_name(), *name);
        }
        let full: Vec<String> = cli()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        assert_eq!(full, names);
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), SUBCOMMANDS.len(), "a name twice");
    }

    /// A command line that names a subcommand parses the same, with the same help and the same
    /// errors, whether the interface holds that subcommand alone or all of them.
    #[test]
    fn one_subcommand_parses_as_the_whole_interface() {
        for (name, _) in SUBCOMMANDS {
            for tail in [
                &[][..],
                &["--help"][..],
                &["--no-such-flag"][..],
                &["-"][..],
                &["claude", "extra", "--db", "x"][..],
            ] {
                let argv: Vec<&str> = ["intentshield", name]
                    .into_iter()
                    .chain(tail.iter().copied())
                    .collect();
                let whole = cli().try_get_matches_from(&argv);
                let alone = cli_for(Some(name)).try_get_matches_from(&argv);
                match (whole, alone) {
                    (Ok(a), Ok(b)) => {
                        let (na, ma) = a.subcommand().unwrap();
                        let (nb, mb) = b.subcommand().unwrap();
                        assert_eq!(na, nb, "{argv:?}");
                        assert_eq!(format!("{ma:?}"), format!("{mb:?}"), "{argv:?}");
                    }
                    (Err(a), Err(b)) => {
                        assert_eq!(a.kind(), b.kind(), "{argv:?}");
                        assert_eq!(a.to_string(), b.to_string(), "{argv:?}");
                    }
                    (a, b) => panic!("{argv:?}: {:?} against {:?}", a.is_ok(), b.is_ok()),
                }
            }
        }
    }

    #[test]
    fn hook_args() {
        let (h, f) =
            parse_hook_args(&s(&["codex", "--review", "always", "--db=/tmp/x.db"])).unwrap();
        assert_eq!(h, "codex");
        assert_eq!(f.review.as_deref(), Some("always"));
        assert_eq!(f.db.unwrap().to_str(), Some("/tmp/x.db"));
        assert!(parse_hook_args(&s(&["codex", "--bogus"])).is_none());
        assert!(parse_hook_args(&s(&["codex", "--review"])).is_none());
        assert!(parse_hook_args(&s(&[])).is_none());
        let none = bad_hook_args_message(&s(&[]));
        assert!(none.starts_with("no harness named"), "{none}");
        assert!(none.contains("claude|codex|cursor|gemini"), "{none}");
        let bad = bad_hook_args_message(&s(&["codex", "--bogus"]));
        assert!(
            bad.starts_with("bad hook arguments 'codex --bogus'"),
            "{bad}"
        );
    }
}
