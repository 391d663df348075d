//! Subcommands other than the hook itself. Each module exposes `command()` (a clap builder)
//! and `run(&ArgMatches) -> i32` (the exit status).

pub mod demo;
pub mod doctor;
pub mod install;
