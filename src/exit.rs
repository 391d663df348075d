//! The CLI's exit statuses and its one error type. Subcommands return
//! `Result<ExitStatus, CliError>`; `main` turns that into the process exit code in one place
//! ([`code_of`]).
//!
//! The codes themselves are part of the interface (scripts and the tests check them):
//! 0 success, 1 a finding or a failed job, 2 an error. Two codes are passed through as they are:
//! the hook's, which the harness renderers choose (`harness::Rendered::exit_code`, e.g. 2 for a
//! deny on Claude Code), and `mcp-proxy`'s, which is the MCP server's own.

use std::fmt;

/// How a command ended; [`ExitStatus::code`] is the process exit code.
///
/// Ordered by severity, so the worst of several is their `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ExitStatus(i32);

impl ExitStatus {
    /// 0: done; every call allowed (`check`); nothing flagged (`scan`); nothing failed
    /// (`doctor`, `demo`, `install`).
    pub const SUCCESS: ExitStatus = ExitStatus(0);
    /// 1: the command ran and has something to report: a call asked about or denied (`check`),
    /// text flagged (`scan`), a problem found (`doctor`), a step or harness that failed
    /// (`demo`, `install`, `uninstall`), a proxied server that could not start (`mcp-proxy`).
    pub const FAILURE: ExitStatus = ExitStatus(1);
    /// 2: an error: bad arguments, unreadable input, a database error, a file that cannot be
    /// written.
    pub const ERROR: ExitStatus = ExitStatus(2);

    /// A code chosen elsewhere and passed through unchanged: the hook's rendered answer
    /// (`Rendered::exit_code`) or the exit status of the server `mcp-proxy` ran.
    pub const fn passthrough(code: i32) -> ExitStatus {
        ExitStatus(code)
    }

    /// [`ExitStatus::FAILURE`] when `failed`, else [`ExitStatus::SUCCESS`].
    pub const fn failure_if(failed: bool) -> ExitStatus {
        if failed {
            ExitStatus::FAILURE
        } else {
            ExitStatus::SUCCESS
        }
    }

    /// The process exit code.
    pub const fn code(self) -> i32 {
        self.0
    }
}

/// Lets tests and callers compare a status with a plain code (`assert_eq!(status, 0)`).
impl PartialEq<i32> for ExitStatus {
    fn eq(&self, other: &i32) -> bool {
        self.0 == *other
    }
}

/// An error that ends a command: the line printed on stderr and the status to exit with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    status: ExitStatus,
    message: String,
}

impl CliError {
    /// An error (exit 2) printed as `<context>: <detail>`, e.g. `intentshield log: <e>`.
    pub fn error(context: &str, detail: impl fmt::Display) -> CliError {
        CliError {
            status: ExitStatus::ERROR,
            message: format!("{context}: {detail}"),
        }
    }

    /// A failure (exit 1) printed as `<context>: <detail>`, e.g. `intentshield: <e>`.
    pub fn failure(context: &str, detail: impl fmt::Display) -> CliError {
        CliError {
            status: ExitStatus::FAILURE,
            message: format!("{context}: {detail}"),
        }
    }

    /// The status the process exits with.
    pub fn status(&self) -> ExitStatus {
        self.status
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

/// What a subcommand returns.
pub type CliResult = Result<ExitStatus, CliError>;

/// The one mapping from a command's result to the process exit code: an error is printed on
/// stderr (one line) and exits with its status.
pub fn code_of(result: CliResult) -> i32 {
    match result {
        Ok(status) => status.code(),
        Err(e) => {
            eprintln!("{e}");
            e.status().code()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes() {
        assert_eq!(ExitStatus::SUCCESS.code(), 0);
        assert_eq!(ExitStatus::FAILURE.code(), 1);
        assert_eq!(ExitStatus::ERROR.code(), 2);
        assert_eq!(ExitStatus::passthrough(7), 7);
        assert_eq!(ExitStatus::failure_if(true), ExitStatus::FAILURE);
        assert_eq!(
            ExitStatus::SUCCESS
                .max(ExitStatus::ERROR)
                .max(ExitStatus::FAILURE),
            ExitStatus::ERROR
        );
        let e = CliError::error("intentshield log", "no such table");
        assert_eq!(e.to_string(), "intentshield log: no such table");
        assert_eq!(e.status(), ExitStatus::ERROR);
        assert_eq!(code_of(Ok(ExitStatus::FAILURE)), 1);
        assert_eq!(
            CliError::failure("intentshield", "x").status(),
            ExitStatus::FAILURE
        );
    }
}
