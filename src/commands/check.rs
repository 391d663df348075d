//! `intentshield check`: run events through the hook's own code and show the decisions.
//!
//! Without `--db` it uses a private in-memory database, so the real state is never touched;
//! events given together share it, in order (a prompt, then a tool result, then a call: one
//! session's story). That database starts empty by design, so each session in it counts as
//! seen from its start whatever its first event is: one `PreToolUse` file is checked as the
//! first call of a clean session. With `--db` the hook's own rule applies: a session that
//! database did not see start (no session start or prompt first) is tainted.
//! `--harness auto` guesses each file's harness from its shape.

use crate::config::Flags;
use crate::event::Harness;
use crate::exit::{CliError, CliResult, ExitStatus};
use crate::harness;
use crate::hook;
use crate::state::Store;
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::json;
use std::path::PathBuf;

/// The clap definition.
pub fn command() -> Command {
    Command::new("check")
        .about("Run hook events through the same code and print each decision, reason code, rules and evidence")
        .arg(
            Arg::new("harness")
                .long("harness")
                .default_value("auto")
                .help("claude, codex, cursor, gemini, or auto (guess from each event's shape)"),
        )
        .arg(Arg::new("db").long("db").value_parser(clap::value_parser!(PathBuf)).help("Use this database instead of a private in-memory one"))
        .arg(Arg::new("review").long("review").help("always, tainted (default) or never"))
        .arg(Arg::new("outputs").long("outputs").help("warn (default) or block"))
        .arg(Arg::new("gemini-ask").long("gemini-ask").help("deny (default) or ask"))
        .arg(Arg::new("json").long("json").action(ArgAction::SetTrue).help("One JSON object per event"))
        .arg(Arg::new("rendered").long("rendered").action(ArgAction::SetTrue).help("Also print exactly what the hook would print"))
        .arg(
            Arg::new("events")
                .num_args(1..)
                .required(true)
                .help("Event JSON files (`-` for stdin)"),
        )
}

/// Runs `check`. Each event's first column (and `answer` with `--json`, beside the policy's
/// `decision`) is the verdict the harness really gets ([`answer_word`]). Exit status: 0 all
/// allowed, 1 something asked or denied, 2 an error.
///
/// # Errors
///
/// [`CliError::error`] (exit 2, `intentshield check: <e>`) when the private in-memory database
/// cannot be opened, an event path is a directory (`<dir> is a directory; check wants event
/// files …`), or an event file (`<file>: <e>`) or stdin (`stdin: <e>`) cannot be read;
/// events after it are not run. An event the hook cannot decide (bad settings, a malformed
/// event, a database error) is no `Err`: it prints the hook's fail-closed decision and makes
/// the status 2.
pub fn run(m: &ArgMatches) -> CliResult {
    let flags = Flags {
        review: m.get_one::<String>("review").cloned(),
        outputs: m.get_one::<String>("outputs").cloned(),
        gemini_ask: m.get_one::<String>("gemini-ask").cloned(),
        db: m.get_one::<PathBuf>("db").cloned(),
        config: None,
    };
    let harness_arg = m
        .get_one::<String>("harness")
        .map(String::as_str)
        .unwrap_or("auto");
    let mut mem = if flags.db.is_none() {
        match Store::open_in_memory() {
            Ok(mut s) => {
                s.assume_sessions_start_here();
                Some(s)
            }
            Err(e) => return Err(CliError::error("intentshield check", e)),
        }
    } else {
        None
    };
    let json_out = m.get_flag("json");
    let show_rendered = m.get_flag("rendered");
    let mut worst = ExitStatus::SUCCESS;
    for file in m.get_many::<String>("events").into_iter().flatten() {
        let input = if file == "-" {
            match hook::read_stdin() {
                Ok(b) => b,
                Err(e) => return Err(CliError::error("intentshield check", format!("stdin: {e}"))),
            }
        } else {
            if std::path::Path::new(file).is_dir() {
                return Err(CliError::error(
                    "intentshield check",
                    format!(
                        "{file} is a directory; check wants event files (for example {}/*.json)",
                        file.trim_end_matches('/')
                    ),
                ));
            }
            match std::fs::read(file) {
                Ok(b) => b,
                Err(e) => {
                    return Err(CliError::error(
                        "intentshield check",
                        format!("{file}: {e}"),
                    ))
                }
            }
        };
        let harness = if harness_arg == "auto" {
            serde_json::from_slice(&input)
                .ok()
                .and_then(|v| harness::sniff(&v))
                .unwrap_or(Harness::Claude)
                .name()
                .to_string()
        } else {
            harness_arg.to_string()
        };
        let out = hook::run(&harness, &flags, &input, mem.as_mut());
        let d = &out.decision;
        let answered = answer_word(&out, &harness);
        let (event, tool) = match &out.event {
            Some(e) => (
                e.event_name.clone(),
                e.tool
                    .as_ref()
                    .map(|t| t.display_name())
                    .unwrap_or_default(),
            ),
            None => (String::new(), String::new()),
        };
        if json_out {
            println!(
                "{}",
                json!({
                    "file": file, "harness": harness, "event": event, "tool": tool,
                    "decision": d.verdict.name(), "answer": answered, "reason": d.reason.code(),
                    "message": d.message, "rules": d.rules, "evidence": d.evidence,
                    "updated_input": d.updated_input, "context": d.context,
                    "stdout": out.rendered.stdout, "stderr": out.rendered.stderr, "exit_code": out.rendered.exit_code,
                })
            );
        } else {
            let name = std::path::Path::new(file)
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_else(|| file.clone());
            println!(
                "{:<5} {:<34} {:<8} {:<20} {:<30} {}",
                answered,
                d.reason.code(),
                harness,
                event,
                tool,
                name
            );
            println!("      {}", d.message);
            if !d.rules.is_empty() {
                println!("      rules: {}", d.rules.join(", "));
            }
            for e in &d.evidence {
                println!(
                    "      evidence: {}",
                    e.chars()
                        .take(160)
                        .map(|c| if c.is_control() { ' ' } else { c })
                        .collect::<String>()
                );
            }
            if let Some(u) = &d.updated_input {
                println!("      rewritten arguments: {u}");
            }
            if show_rendered {
                println!(
                    "      rendered: exit {} stdout {:?} stderr {:?}",
                    out.rendered.exit_code, out.rendered.stdout, out.rendered.stderr
                );
            }
        }
        let level = match answered {
            _ if d.reason == crate::decision::Reason::Error => ExitStatus::ERROR,
            "allow" => ExitStatus::SUCCESS,
            _ => ExitStatus::FAILURE,
        };
        worst = worst.max(level);
    }
    Ok(worst)
}

/// The verdict the harness really gets: the rendered answer read back the way the harness
/// reads it (`harness::probe::read_answer`), so a Claude Code rewrite (`permissionDecision:
/// ask` with `updatedInput`) is `ask`, and a Gemini CLI rewrite (new `tool_input`, no
/// decision) is `allow`. An answer without a decision of its own (no objection, added
/// context) is the policy's verdict; a hook failure is `error`.
pub fn answer_word(out: &hook::Outcome, harness_name: &str) -> &'static str {
    use crate::harness::probe::{read_answer, Answer};
    let Some(h) = out
        .event
        .as_ref()
        .map(|e| e.harness)
        .or_else(|| Harness::from_name(harness_name))
    else {
        return out.decision.verdict.name();
    };
    let r = &out.rendered;
    match read_answer(h, Some(r.exit_code), &r.stdout, &r.stderr) {
        Answer::Allow(_) => "allow",
        Answer::Ask(_) => "ask",
        Answer::Deny(_) => "deny",
        Answer::Failed(_) => "error",
        Answer::NoObjection | Answer::Context(_) => out.decision.verdict.name(),
    }
}
