//! Subcommands other than the hook itself. Each exposes `command()` (its clap definition) and
//! `run(&ArgMatches) -> exit::CliResult` (the exit status, or the error `main` prints).

pub mod approve;
pub mod audit;
pub mod check;
pub mod completions;
pub mod contracts;
pub mod demo;
pub mod doctor;
pub mod install;
pub mod log;
pub mod mcp;
pub mod pause;
#[cfg(feature = "replay")]
pub mod replay;
pub mod scan;
pub mod threats;
pub mod wrap;
