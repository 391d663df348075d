//! `intentshield audit verify`: walks the audit's hash chain (receipts) and names the first row
//! that does not match. The chain and its row-hash input are described in `state::audit`.

use crate::exit::{CliError, CliResult, ExitStatus};
use crate::state::{self, ChainProblem, ChainReport, Store};
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::json;
use std::path::PathBuf;

/// The clap definition of `audit`.
pub fn command() -> Command {
    Command::new("audit")
        .about("Check the audit trail's receipts (its hash chain)")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            Command::new("verify")
                .about("Walk the audit's hash chain and name the first row that does not match (exit 1)")
                .arg(
                    Arg::new("db")
                        .long("db")
                        .value_parser(clap::value_parser!(PathBuf))
                        .help("Database file (default: $INTENTSHIELD_DB or the platform data directory)"),
                )
                .arg(
                    Arg::new("json")
                        .long("json")
                        .action(ArgAction::SetTrue)
                        .help("One JSON object with the result"),
                ),
        )
}

/// What a problem means, in one phrase.
pub fn problem_text(p: &ChainProblem) -> String {
    match p {
        ChainProblem::Content => "its content does not match its row hash (the row was changed after it was written)".into(),
        ChainProblem::Link { previous } => match previous {
            Some(id) => format!("its previous-row hash does not match row #{id} (a row was removed, inserted or changed before it)"),
            None => "its previous-row hash does not match the chain's anchor (rows were removed before it without being recorded as pruned)".into(),
        },
        ChainProblem::MissingHash => "it has no hash although rows before it are chained (its receipt was removed)".into(),
    }
}

/// Short name of a problem (`content`, `link`, `missing_hash`).
pub fn problem_name(p: &ChainProblem) -> &'static str {
    match p {
        ChainProblem::Content => "content",
        ChainProblem::Link { .. } => "link",
        ChainProblem::MissingHash => "missing_hash",
    }
}

/// The JSON form of a chain report.
pub fn report_json(r: &ChainReport) -> serde_json::Value {
    json!({
        "ok": r.bad_count == 0,
        "rows": r.rows,
        "chained": r.chained,
        "legacy": r.legacy,
        "first_id": r.first_id,
        "last_id": r.last_id,
        "anchor": match &r.anchor {
            Some((id, h)) => json!({"pruned_id": id, "hash": h}),
            None => json!({"genesis": true}),
        },
        "bad_count": r.bad_count,
        "first_bad": r.bad.first().map(|b| json!({"id": b.id, "problem": problem_name(&b.problem), "detail": problem_text(&b.problem)})),
        "bad": r.bad.iter().map(|b| json!({"id": b.id, "problem": problem_name(&b.problem)})).collect::<Vec<_>>(),
    })
}

/// Runs `audit verify`. Exit 0 when every chained row matches, 1 when a row does not (the
/// first one is named), 2 when the database cannot be read.
///
/// # Errors
///
/// [`CliError::error`] (exit 2, `intentshield audit: <e>`) when no database path can be found,
/// there is no database at the path, or it cannot be read.
pub fn run(m: &ArgMatches) -> CliResult {
    let Some(("verify", m)) = m.subcommand() else {
        return Err(CliError::error(
            "intentshield audit",
            "expected: audit verify",
        ));
    };
    let ctx = "intentshield audit verify";
    let path = state::db_path(m.get_one::<PathBuf>("db").map(PathBuf::as_path))
        .map_err(|e| CliError::error(ctx, e))?;
    let store = Store::open_read_only(&path).map_err(|e| CliError::error(ctx, e))?;
    let report = store.verify_chain().map_err(|e| CliError::error(ctx, e))?;
    let ok = report.bad_count == 0;
    if m.get_flag("json") {
        println!("{}", report_json(&report));
        return Ok(ExitStatus::failure_if(!ok));
    }
    let anchor = match &report.anchor {
        Some((id, h)) => format!("anchored at pruned row #{id} ({})", &h[..h.len().min(16)]),
        None => "from the start of the audit".into(),
    };
    let range = match (report.first_id, report.last_id) {
        (Some(a), Some(b)) => format!(", #{a} to #{b}"),
        _ => String::new(),
    };
    if ok {
        println!(
            "audit chain intact: {} chained rows{range}, {anchor}",
            report.chained
        );
    } else if let Some(b) = report.bad.first() {
        println!(
            "audit chain broken at row #{}: {}",
            b.id,
            problem_text(&b.problem)
        );
        let shown: Vec<String> = report
            .bad
            .iter()
            .take(20)
            .map(|b| format!("#{} ({})", b.id, problem_name(&b.problem)))
            .collect();
        println!(
            "{} of {} chained rows do not match: {}{}",
            report.bad_count,
            report.chained,
            shown.join(", "),
            if report.bad_count > shown.len() {
                ", …"
            } else {
                ""
            }
        );
    }
    if report.legacy > 0 {
        println!(
            "{} older rows were written before receipts existed (schema 8) and are not chained",
            report.legacy
        );
    }
    Ok(ExitStatus::failure_if(!ok))
}
