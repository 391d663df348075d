//! Subcommands other than the hook itself. Each exposes `command()` (its clap definition) and
//! `run(&ArgMatches) -> i32` (the exit status).

pub mod check;
pub mod demo;
pub mod doctor;
pub mod install;
pub mod log;
pub mod mcp;
pub mod replay;
pub mod scan;
pub mod wrap;
