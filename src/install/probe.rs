//! Talking to the hook the way a harness does: running a hook command with an event on stdin.
//! The events (shaped like the real payloads) and the reading of each harness's answer live in
//! each harness module (`crate::harness::probe` dispatches); they are re-exported here for
//! `doctor` (canaries) and `demo`.

use crate::event::Harness;
use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub use crate::harness::probe::{Answer, Call, Session};

/// Reads a hook's exit status and output as `h` would (hook-protocols.md §1.3, §2.3, §3.3,
/// §4.3; §9/§10 for what the real programs did): each harness module's `read_answer`.
pub fn interpret(h: Harness, exit: Option<i32>, stdout: &str, stderr: &str) -> Answer {
    crate::harness::probe::read_answer(h, exit, stdout, stderr)
}

/// The raw result of running a hook command once.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// Exit status; `None` when killed (timeout) or not started.
    pub exit: Option<i32>,
    /// stdout.
    pub stdout: String,
    /// stderr (or the spawn error).
    pub stderr: String,
    /// Wall time.
    pub elapsed: Duration,
}

/// Runs a prepared command with `input` on stdin, killing it after `timeout`.
pub fn run(mut cmd: Command, input: &[u8], timeout: Duration) -> RunResult {
    let start = Instant::now();
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return RunResult {
                exit: None,
                stdout: String::new(),
                stderr: format!("cannot start: {e}"),
                elapsed: start.elapsed(),
            }
        }
    };
    let mut stdin = child.stdin.take();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(&data);
        }
        drop(stdin);
    });
    let mut out_pipe = child.stdout.take();
    let mut err_pipe = child.stderr.take();
    let out_t = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(p) = out_pipe.as_mut() {
            let _ = p.take(1 << 20).read_to_end(&mut s);
        }
        String::from_utf8_lossy(&s).into_owned()
    });
    let err_t = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(p) = err_pipe.as_mut() {
            let _ = p.take(1 << 20).read_to_end(&mut s);
        }
        String::from_utf8_lossy(&s).into_owned()
    });
    let exit = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st.code(),
            Ok(None) if start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let _ = writer.join();
    RunResult {
        exit,
        stdout: out_t.join().unwrap_or_default(),
        stderr: err_t.join().unwrap_or_default(),
        elapsed: start.elapsed(),
    }
}

/// Runs an installed hook command line as the harnesses do (`/bin/sh -c <line>`), with the
/// event on stdin and `INTENTSHIELD_DB` set to `db`.
pub fn run_line(line: &str, event: &Value, db: &Path, cwd: &Path, timeout: Duration) -> RunResult {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(line)
        .current_dir(cwd)
        .env("INTENTSHIELD_DB", db);
    run(cmd, event.to_string().as_bytes(), timeout)
}
