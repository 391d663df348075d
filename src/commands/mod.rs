//! Subcommands other than the hook itself. Each exposes `command()` (its clap definition) and
//! `run(&ArgMatches) -> i32` (the exit status).

pub mod check;
pub mod log;
pub mod mcp;
pub mod wrap;
