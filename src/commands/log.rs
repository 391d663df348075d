//! `intentshield log`: recent decisions from the audit, newest first (`approve` is in
//! `approve.rs`).

use crate::exit::{CliError, CliResult, ExitStatus};
use crate::state::{self, Store};
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::json;
use std::path::PathBuf;

fn db_arg() -> Arg {
    Arg::new("db")
        .long("db")
        .value_parser(clap::value_parser!(PathBuf))
        .help("Database file (default: $INTENTSHIELD_DB or the platform data directory)")
}

fn open(m: &ArgMatches) -> Result<Store, String> {
    let path = state::db_path(m.get_one::<PathBuf>("db").map(PathBuf::as_path))
        .map_err(|e| e.to_string())?;
    Store::open(&path).map_err(|e| format!("{}: {e}", path.display()))
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
                .help("One JSON object per row"),
        )
}

/// Runs `log`. Exit status 0, or 2 on a database error.
///
/// # Errors
///
/// [`CliError::error`] (exit 2, `intentshield log: <e>`) when no database path can be found,
/// the database does not open (`<path>: <e>`), or the audit cannot be read.
pub fn run(m: &ArgMatches) -> CliResult {
    let store = open(m).map_err(|e| CliError::error("intentshield log", e))?;
    let limit = *m.get_one::<i64>("limit").unwrap_or(&20);
    let rows = store
        .recent_decisions(
            m.get_one::<String>("session").map(String::as_str),
            m.get_one::<String>("decision").map(String::as_str),
            limit,
        )
        .map_err(|e| CliError::error("intentshield log", e))?;
    for r in rows {
        if m.get_flag("json") {
            println!(
                "{}",
                json!({"id": r.id, "ts": r.ts, "harness": r.harness, "session": r.session_id,
                       "event": r.event, "tool": r.tool, "decision": r.verdict,
                       "reason": r.reason_code, "rules": serde_json::from_str::<serde_json::Value>(&r.rules).unwrap_or_default(),
                       "args_digest": r.args_digest, "message": r.message})
            );
        } else {
            println!(
                "#{:<6} {} {:<6} {:<5} {:<32} {:<18} {:<28} {}",
                r.id,
                fmt_ts(r.ts),
                r.harness,
                r.verdict,
                r.reason_code,
                r.event,
                r.tool.unwrap_or_default(),
                r.message
            );
        }
    }
    Ok(ExitStatus::SUCCESS)
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

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps() {
        assert_eq!(super::fmt_ts(0), "1970-01-01 00:00:00");
        assert_eq!(super::fmt_ts(1_796_000_000), "2026-11-30 00:53:20");
    }
}
