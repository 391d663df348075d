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

fn cli() -> clap::Command {
    let cmd = clap::Command::new("intentshield")
        .about(ABOUT)
        .version(env!("CARGO_PKG_VERSION"))
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            clap::Command::new("hook")
                .about(
                    "The hook a harness runs on every event: event JSON on stdin, answer on stdout",
                )
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
                .arg(clap::Arg::new("config").long("config").help("Config file")),
        )
        .subcommand(commands::check::command())
        .subcommand(commands::log::command())
        .subcommand(commands::audit::command())
        .subcommand(commands::approve::command())
        .subcommand(commands::scan::command())
        .subcommand(commands::contracts::command());
    // The AgentDojo tooling, off the hook's path (the `replay` feature, on by default).
    #[cfg(feature = "replay")]
    let cmd = cmd.subcommand(commands::replay::command());
    // The usage line names `--all` too: `install` alone must say how to pick every harness.
    let all_usage = |verb: &str| {
        format!("intentshield {verb} <claude|codex|cursor|gemini> [OPTIONS]\n       intentshield {verb} --all [OPTIONS]   (every harness found on this machine)")
    };
    cmd.subcommand(commands::install::command().override_usage(all_usage("install")))
        .subcommand(commands::install::uninstall_command().override_usage(all_usage("uninstall")))
        .subcommand(commands::doctor::command())
        .subcommand(commands::demo::command())
        .subcommand(commands::mcp::proxy_command())
        .subcommand(commands::mcp::command())
        .subcommand(commands::wrap::wrap_command())
        .subcommand(commands::wrap::unwrap_command())
        .subcommand(commands::pause::command())
        .subcommand(commands::threats::command())
        .subcommand(commands::completions::command())
        .subcommand(commands::completions::man_command())
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("hook") {
        if let Some((harness, flags)) = parse_hook_args(&args[1..]) {
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
        let out = hook::fail(
            args.get(1).and_then(|h| Harness::from_name(h)),
            None,
            &bad_hook_args_message(&args[1..]),
        );
        if let Err(e) = cli()
            .try_get_matches_from(std::iter::once("intentshield".to_string()).chain(args.clone()))
        {
            if matches!(e.kind(), clap::error::ErrorKind::DisplayHelp) {
                let _ = e.print();
                std::process::exit(ExitStatus::SUCCESS.code());
            }
        }
        std::process::exit(emit(&out.rendered).code());
    }
    let m = cli().get_matches();
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
    use super::{bad_hook_args_message, parse_hook_args};

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
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
