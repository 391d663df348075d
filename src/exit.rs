//! The CLI's exit statuses and its one error type. Subcommands return
//! `Result<ExitStatus, CliError>`; `main` turns that into the process exit code in one place
//! ([`code_of`]).
//!
//! The codes themselves are part of the interface (scripts and the tests check them):
//! 0 success, 1 a finding or a failed job, 2 an error. Two codes are passed through as they are:
//! the hook's, which the harness renderers choose (`harness::Rendered::exit_code`, e.g. 2 for a
//! deny on Claude Code), and `mcp-proxy`'s, which is the MCP server's own.
//!
//! A reader that goes away (`intentshield log | head`) ends a command quietly with
//! [`ExitStatus::BROKEN_PIPE`], 141: the status a shell shows for a program killed by SIGPIPE
//! (128 + 13), the usual convention, so `set -o pipefail` scripts see that the command did not
//! finish, and a finding is never reported as a clean 0. The Rust runtime ignores SIGPIPE, so
//! a write to a closed pipe fails with `EPIPE` and `println!` panics: [`run_cli`] turns that
//! panic into this status without a message, after the unwinding has run every destructor
//! (so `demo` still removes its scratch folder). The hook itself never gets here: it ignores
//! write errors and keeps its own exit status (the harness reads it).

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

    /// 141: stdout (or stderr) was closed by the reader before the command finished (128 +
    /// SIGPIPE, what a shell shows for a program killed by that signal); nothing more is
    /// printed. See the module notes and [`run_cli`].
    pub const BROKEN_PIPE: ExitStatus = ExitStatus(141);

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
/// stderr (one line) and exits with its status. An error that is only a write to a closed
/// pipe (a command that passed the `io::Error`'s text up, `… Broken pipe (os error 32)`) ends
/// quietly with [`ExitStatus::BROKEN_PIPE`] instead.
pub fn code_of(result: CliResult) -> i32 {
    match result {
        Ok(status) => status.code(),
        Err(e) if e.message.ends_with("Broken pipe (os error 32)") => {
            ExitStatus::BROKEN_PIPE.code()
        }
        Err(e) => {
            eprintln!("{e}");
            e.status().code()
        }
    }
}

/// True when `err` is the error of writing to a pipe whose reader has gone.
pub fn is_broken_pipe(err: &std::io::Error) -> bool {
    err.kind() == std::io::ErrorKind::BrokenPipe
}

/// True when a panic message is the standard library's for a failed `print!`/`eprint!` to a
/// closed pipe (`failed printing to stdout: Broken pipe (os error 32)`).
pub fn is_broken_pipe_message(msg: &str) -> bool {
    msg.starts_with("failed printing to std") && msg.contains("(os error 32)")
}

static SAW_BROKEN_PIPE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Runs a subcommand and returns the process exit code ([`code_of`]); a write to a closed pipe
/// anywhere inside ends it with [`ExitStatus::BROKEN_PIPE`] and no message (the panic that
/// `println!` raises is kept quiet and caught; destructors run on the way out). Any other
/// panic is reported as usual and goes on unwinding (exit 101).
pub fn run_cli(f: impl FnOnce() -> CliResult) -> i32 {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if is_broken_pipe_message(msg) {
            SAW_BROKEN_PIPE.store(true, std::sync::atomic::Ordering::SeqCst);
        } else {
            previous(info);
        }
    }));
    let run = std::panic::AssertUnwindSafe(|| code_of(f()));
    match std::panic::catch_unwind(run) {
        Ok(code) => code,
        Err(_) if SAW_BROKEN_PIPE.load(std::sync::atomic::Ordering::SeqCst) => {
            ExitStatus::BROKEN_PIPE.code()
        }
        Err(payload) => std::panic::resume_unwind(payload),
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
        assert_eq!(ExitStatus::BROKEN_PIPE.code(), 128 + 13);
        let closed = std::io::Error::from_raw_os_error(32);
        assert_eq!(
            code_of(Err(CliError::error("intentshield approve", closed))),
            141
        );
    }

    #[test]
    fn broken_pipe_is_recognised() {
        assert!(is_broken_pipe_message(
            "failed printing to stdout: Broken pipe (os error 32)"
        ));
        assert!(!is_broken_pipe_message("index out of bounds"));
        assert!(is_broken_pipe(&std::io::Error::from(
            std::io::ErrorKind::BrokenPipe
        )));
    }
}
