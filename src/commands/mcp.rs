//! `intentshield mcp-proxy` (the MCP stdio proxy, [`crate::mcp`]) and `intentshield mcp
//! approve|list` (the operator's side of the shared MCP catalog).

use crate::catalog;
use crate::exit::{CliError, CliResult, ExitStatus};
use crate::mcp as proxy;
use crate::state::Store;
use clap::{Arg, ArgAction, ArgMatches, Command};
use std::path::PathBuf;

/// The clap definition of `mcp-proxy`.
pub fn proxy_command() -> Command {
    Command::new("mcp-proxy")
        .about("Run an MCP stdio server behind IntentShield: intentshield mcp-proxy [--name N] -- <command> [args...]")
        .arg(Arg::new("name").long("name").help("The server's name in the catalog (default: from the command)"))
        .arg(Arg::new("config").long("config").help("Config file (read_only_tools)"))
        .arg(Arg::new("db").long("db").help("Database file"))
        .arg(
            Arg::new("command")
                .num_args(1..)
                .last(true)
                .required(true)
                .allow_hyphen_values(true)
                .action(ArgAction::Append)
                .help("The server's command and arguments, after --"),
        )
}

/// Runs `mcp-proxy` on stdin/stdout. Exit status: the server's, 1 when it cannot start, 2 on
/// bad settings.
///
/// # Errors
///
/// [`CliError::error`] (exit 2, `intentshield mcp-proxy: <e>`) when the settings do not load
/// ([`proxy::load_config`]: the config file cannot be read or does not parse, or an
/// `INTENTSHIELD_*` variable is invalid); the server is not started then. A server that cannot
/// start is no `Err`: the status is 1, passed through from [`proxy::run`].
pub fn run_proxy(m: &ArgMatches) -> CliResult {
    let command: Vec<String> = m
        .get_many::<String>("command")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    let config = proxy::load_config(
        m.get_one::<String>("config").map(PathBuf::from),
        m.get_one::<String>("db").map(PathBuf::from),
    )
    .map_err(|e| CliError::error("intentshield mcp-proxy", e))?;
    let server = m
        .get_one::<String>("name")
        .cloned()
        .unwrap_or_else(|| proxy::default_name(&command));
    let code = proxy::run(
        proxy::Options {
            server,
            command,
            config,
        },
        std::io::stdin(),
        std::io::stdout(),
    );
    Ok(ExitStatus::passthrough(code))
}

fn db_arg() -> Arg {
    Arg::new("db").long("db").help("Database file")
}

/// The clap definition of `mcp` (`approve <server>`, `list [server]`).
pub fn command() -> Command {
    Command::new("mcp")
        .about("The MCP catalog the proxy keeps: approve a server's changed tools or launch, list tools")
        .subcommand_required(true)
        .subcommand(
            Command::new("approve")
                .about("Accept the current version of a server's tools and its launch")
                .arg(db_arg())
                .arg(Arg::new("server").required(true)),
        )
        .subcommand(
            Command::new("list")
                .about("List the catalog: tool, state, read-only decision")
                .arg(db_arg())
                .arg(Arg::new("server")),
        )
}

/// The database: `list` only reads, so it opens read-only and never creates one; with none
/// there yet it lists what an empty one holds.
fn open(m: &ArgMatches, read_only: bool) -> Result<Store, String> {
    let path = crate::state::db_path(m.get_one::<String>("db").map(std::path::Path::new))
        .map_err(|e| e.to_string())?;
    if read_only && !path.exists() {
        Store::open_in_memory().map_err(|e| e.to_string())
    } else if read_only {
        Store::open_read_only(&path).map_err(|e| e.to_string())
    } else {
        Store::open(&path).map_err(|e| e.to_string())
    }
}

/// Runs `mcp approve|list`. Exit status 0, or 2 with the reason on stderr.
///
/// # Errors
///
/// [`CliError::error`] (exit 2): `intentshield mcp: <e>` when the database cannot be found or
/// opened; `intentshield mcp approve: <e>` when the approval's transaction fails (it is rolled
/// back) or does not commit; `intentshield mcp list: <e>` when the catalog cannot be read.
pub fn run(m: &ArgMatches) -> CliResult {
    let Some((sub, sm)) = m.subcommand() else {
        return Ok(ExitStatus::ERROR);
    };
    let mut store = open(sm, sub == "list").map_err(|e| CliError::error("intentshield mcp", e))?;
    match sub {
        "approve" => {
            let server = sm.get_one::<String>("server").expect("required");
            let r = store.begin().and_then(|_| catalog::approve(&store, server));
            match r {
                Ok(n) => {
                    store
                        .commit()
                        .map_err(|e| CliError::error("intentshield mcp approve", e))?;
                    if n == 0 {
                        eprintln!("intentshield mcp approve: no tools recorded for '{server}' (launch pin accepted if any)");
                    } else {
                        println!("approved the current version of {n} tool(s) of '{server}' and its launch; poisoned tools stay quarantined");
                    }
                    Ok(ExitStatus::SUCCESS)
                }
                Err(e) => {
                    store.rollback();
                    Err(CliError::error("intentshield mcp approve", e))
                }
            }
        }
        "list" => match catalog::list(&store, sm.get_one::<String>("server").map(String::as_str)) {
            Ok(rows) => {
                if rows.is_empty() {
                    // Say so on stderr: stdout stays the tab-separated listing scripts read.
                    match sm.get_one::<String>("server") {
                        Some(s) => eprintln!(
                            "intentshield mcp list: no tools recorded for '{s}' (the proxy records a server's tools/list when it runs under `intentshield wrap`)"
                        ),
                        None => eprintln!(
                            "intentshield mcp list: the catalog is empty (the proxy records each server's tools/list when it runs under `intentshield wrap`)"
                        ),
                    }
                }
                for r in rows {
                    let state = if r.quarantined {
                        "quarantined"
                    } else if r.drifted {
                        "changed"
                    } else {
                        "listed"
                    };
                    let ro = match r.read_only {
                        Some(true) => "read-only",
                        Some(false) => "writes",
                        None => "-",
                    };
                    println!(
                        "{}/{}\t{state}\t{ro}\t{}",
                        r.server,
                        r.tool,
                        r.reason.unwrap_or_default()
                    );
                }
                Ok(ExitStatus::SUCCESS)
            }
            Err(e) => Err(CliError::error("intentshield mcp list", e)),
        },
        _ => Ok(ExitStatus::ERROR),
    }
}
