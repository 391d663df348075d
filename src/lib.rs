//! IntentShield: an offline guard between AI coding agents and their tools.
//!
//! Layout, from the edge inwards:
//! - [`harness`]: one module per harness (`harness/<name>/`): its event JSON in, its rendered
//!   answer out, its event names, abilities (`const SPEC`) and settings files, and the inverse
//!   (build an event, read an answer) for `doctor`, `demo` and the tests.
//! - [`event`] and [`decision`]: the one normalized event and the one decision type.
//! - [`policy`]: the ordered checks that turn an event and the session's state into a decision.
//! - [`detect`], [`provenance`], [`shell`]: evidence the policy uses (injection rules, values
//!   and where they came from, what a shell command does).
//! - [`state`]: per-session taint and provenance, the MCP catalog and the audit, in SQLite.
//! - [`hook`]: the `intentshield hook <harness>` pipeline, which fails closed.
//! - [`commands`] and the CLI plumbing: [`exit`] (exit statuses and the CLI's error type),
//!   [`env`](mod@env) (every environment variable read), [`fsutil`] (the atomic writer), [`text`] (hex,
//!   char-boundary cuts).

pub mod catalog;
pub mod commands;
pub mod config;
pub mod contracts;
pub mod decision;
pub mod detect;
pub mod effects;
pub mod env;
pub mod event;
pub mod exit;
pub mod export;
pub mod fsutil;
pub mod harness;
pub mod hook;
pub mod install;
pub mod mcp;
pub mod paths;
pub mod pause;
pub mod policy;
pub mod provenance;
pub mod session;
pub mod shell;
pub mod state;
pub mod strtab;
#[cfg(test)]
mod test_corpora;
pub mod text;
pub mod threats;
pub mod wrap;
