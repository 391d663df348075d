//! One way for a test to skip: a line on stderr and, when `INTENTSHIELD_SKIP_LOG` names a file,
//! the same line appended there. libtest has no "skipped" status and hides a passing test's
//! stderr, so `scripts/test.sh` sets the variable and prints the file at the end: every skip is
//! visible in its output, with the test that skipped and why.
#![allow(dead_code)]

use std::io::Write;

/// Records that the calling test skips, and why (`reason`: what is missing and how to get it).
/// The test then returns early and libtest counts it as passed.
pub fn skip(reason: &str) {
    let thread = std::thread::current();
    // libtest names each test's thread after the test (except with one test thread).
    let test = thread.name().filter(|n| *n != "main").unwrap_or("?");
    let line = format!("SKIPPED {}::{test}: {reason}", env!("CARGO_CRATE_NAME"));
    eprintln!("{line}");
    if let Some(path) = std::env::var_os("INTENTSHIELD_SKIP_LOG").filter(|p| !p.is_empty()) {
        // One short write per line, in append mode: lines from tests running at once stay whole.
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = f.write_all(format!("{line}\n").as_bytes());
        }
    }
}
