//! Subcommands (detection engineer's part; the lead wires them into `main`).

pub mod scan;
