//! `intentshield log`: recent decisions from the audit, newest first (`approve` is in
//! `approve.rs`), as text, JSON Lines, CEF or OCSF (`--format`, [`crate::export`]); each row's
//! receipt is checked and a row whose hash chain is broken is marked.

use crate::exit::{CliError, CliResult, ExitStatus};
use crate::export::Format;
use crate::state::{self, Store};
use clap::{Arg, ArgAction, ArgMatches, Command};
use std::path::PathBuf;

fn db_arg() -> Arg {
    Arg::new("db")
        .long("db")
        .value_parser(clap::value_parser!(PathBuf))
        .help("Database file (default: $INTENTSHIELD_DB or the platform data directory)")
}

/// Opens the database read-only: `log` only shows, so it never creates a file or a folder.
fn open(m: &ArgMatches) -> Result<Store, String> {
    let path = state::db_path(m.get_one::<PathBuf>("db").map(PathBuf::as_path))
        .map_err(|e| e.to_string())?;
    Store::open_read_only(&path).map_err(|e| e.to_string())
}

/// The clap definition of `log`.
pub fn command() -> Command {
    Command::new("log")
        .about("Show recent decisions from the audit trail, newest first")
        .arg(db_arg())
        .arg(
            Arg::new("session")
                .long("session")
                .help("Only this session id"),
        )
        .arg(
            Arg::new("decision")
                .long("decision")
                .value_parser(["allow", "ask", "deny"])
                .help("Only this decision"),
        )
        .arg(
            Arg::new("limit")
                .long("limit")
                .short('n')
                .default_value("20")
                .value_parser(clap::value_parser!(i64).range(1..)),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .conflicts_with("format")
                .help("One JSON object per row (the same as --format jsonl)"),
        )
        .arg(
            Arg::new("format")
                .long("format")
                .value_parser(["text", "jsonl", "cef", "ocsf"])
                .help("text (default), jsonl, cef (ArcSight CEF) or ocsf (OCSF API Activity)"),
        )
}

/// Longest one-line argument preview in the text output (characters).
pub const PREVIEW_CHARS: usize = 120;

/// Runs `log`. Exit status 0 (an empty audit says so), or 2 when there is no database or it
/// cannot be read.
///
/// Text columns: id, time (UTC, ISO 8601), harness, session, decision, reason code, event,
/// tool, message; an asked or denied call's recorded arguments follow on a second line
/// (`args:`, [`preview`]). A row whose receipt does not match (`state::ChainStatus::Broken`)
/// has `BROKEN` after its id, and a note at the end names `intentshield audit verify`.
/// `--json`/`--format jsonl|cef|ocsf`: one line per row in that format (`crate::export`),
/// JSON Lines with a `chain` field.
///
/// # Errors
///
/// [`CliError::error`] (exit 2, `intentshield log: <e>`) when no database path can be found,
/// there is no database at the path (`no database at <path> …`: nothing is created), it does
/// not open read-only, or the audit cannot be read.
pub fn run(m: &ArgMatches) -> CliResult {
    let store = open(m).map_err(|e| CliError::error("intentshield log", e))?;
    let limit = *m.get_one::<i64>("limit").unwrap_or(&20);
    let session = m.get_one::<String>("session").map(String::as_str);
    let verdict = m.get_one::<String>("decision").map(String::as_str);
    let rows = store
        .recent_decisions(session, verdict, limit)
        .map_err(|e| CliError::error("intentshield log", e))?;
    let format = match m.get_one::<String>("format").map(String::as_str) {
        _ if m.get_flag("json") => Some(Format::Jsonl),
        None | Some("text") => None,
        Some(f) => Some(Format::from_name(f).map_err(|e| CliError::error("intentshield log", e))?),
    };
    let json_out = format.is_some();
    if rows.is_empty() {
        let what = match (session, verdict) {
            (None, None) => "the audit is empty: no decision recorded yet".to_string(),
            _ => format!(
                "no decision matches{}{}",
                session
                    .map(|s| format!(" --session {s}"))
                    .unwrap_or_default(),
                verdict
                    .map(|v| format!(" --decision {v}"))
                    .unwrap_or_default()
            ),
        };
        // Nothing on stdout with --json (an empty stream), the note on stderr.
        if json_out {
            eprintln!("intentshield log: {what}");
        } else {
            println!("{what}");
        }
        return Ok(ExitStatus::SUCCESS);
    }
    let mut broken = 0;
    for mut r in rows {
        let status = store
            .chain_status(&r)
            .map_err(|e| CliError::error("intentshield log", e))?;
        r.chain = Some(status);
        let mark = if status == state::ChainStatus::Broken {
            broken += 1;
            " BROKEN"
        } else {
            ""
        };
        if let Some(f) = format {
            println!("{}", f.line(&r));
        } else {
            println!(
                "{:<7} {} {:<6} {:<14} {:<5} {:<32} {:<18} {:<28} {}",
                format!("#{}{mark}", r.id),
                fmt_iso(r.ts),
                r.harness,
                short_session(&r.session_id),
                r.verdict,
                r.reason_code,
                r.event,
                r.tool.unwrap_or_default(),
                r.message
            );
            if let Some(a) = &r.args {
                println!("        args: {}", preview(a, PREVIEW_CHARS));
            }
        }
    }
    if broken > 0 {
        eprintln!(
            "intentshield log: {broken} row(s) shown do not match the audit's hash chain (changed or removed rows); run: intentshield audit verify"
        );
    }
    Ok(ExitStatus::SUCCESS)
}

/// A session id for a column: at most 14 characters (the first 13 and `…` when longer; ids
/// are often UUIDs, whose head tells them apart). `--session` needs the whole id: `--json`
/// shows it.
pub fn short_session(id: &str) -> String {
    let clean: String = id
        .chars()
        .map(|c| if c.is_control() || c == ' ' { '_' } else { c })
        .collect();
    if clean.chars().count() <= 14 {
        clean
    } else {
        let mut s: String = clean.chars().take(13).collect();
        s.push('…');
        s
    }
}

/// One line from recorded arguments (`args`, the masked JSON text the hook stored): the
/// `command` of a shell call, else the compact JSON; control characters (newlines) become
/// spaces, and the result is cut to `max` characters with `…` at the end.
pub fn preview(args: &str, max: usize) -> String {
    let text = serde_json::from_str::<serde_json::Value>(args)
        .ok()
        .and_then(|v| {
            v.get("command")
                .and_then(|c| c.as_str())
                .map(str::to_string)
        })
        .unwrap_or_else(|| args.to_string());
    let mut out = String::new();
    let mut n = 0;
    let mut last_space = false;
    for c in text.chars() {
        let c = if c.is_control() { ' ' } else { c };
        if c == ' ' && last_space {
            continue;
        }
        last_space = c == ' ';
        if n == max {
            out.pop();
            out.push('…');
            return out;
        }
        out.push(c);
        n += 1;
    }
    out
}

/// UTC `YYYY-MM-DD HH:MM:SS` from Unix seconds (civil-from-days, Howard Hinnant's algorithm).
pub fn fmt_ts(ts: i64) -> String {
    let days = ts.div_euclid(86_400);
    let secs = ts.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// UTC `YYYY-MM-DDTHH:MM:SSZ` (ISO 8601, zone marked) from Unix seconds.
pub fn fmt_iso(ts: i64) -> String {
    format!("{}Z", fmt_ts(ts).replace(' ', "T"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps() {
        assert_eq!(super::fmt_ts(0), "1970-01-01 00:00:00");
        assert_eq!(super::fmt_ts(1_796_000_000), "2026-11-30 00:53:20");
        assert_eq!(super::fmt_iso(1_796_000_000), "2026-11-30T00:53:20Z");
    }

    #[test]
    fn previews_are_one_capped_line() {
        use super::preview;
        assert_eq!(preview(r#"{"command":"ls\n  -la"}"#, 120), "ls -la");
        assert_eq!(preview(r#"{"to":"a@b"}"#, 120), r#"{"to":"a@b"}"#);
        let long = format!(r#"{{"command":"{}"}}"#, "x".repeat(500));
        let p = preview(&long, 120);
        assert_eq!(p.chars().count(), 120);
        assert!(p.ends_with('…'));
        assert_eq!(super::short_session("abc"), "abc");
        assert_eq!(
            super::short_session("0123456789abcdefghij"),
            "0123456789abc…"
        );
    }
}
