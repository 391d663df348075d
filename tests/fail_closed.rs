//! Fail closed: bad input, bad settings, an unusable database, all end in an explicit deny on
//! a before-tool event, with a clear reason, and nothing but the answer on stdout.

mod common;
use common::*;
use serde_json::json;
use std::process::{Command, Stdio};

fn pre(harness: &str) -> serde_json::Value {
    match harness {
        "cursor" => {
            json!({"conversation_id": "c", "hook_event_name": "beforeShellExecution", "cursor_version": "1", "command": "ls", "cwd": "/p"})
        }
        "gemini" => {
            json!({"session_id": "s", "hook_event_name": "BeforeTool", "timestamp": "t", "tool_name": "run_shell_command", "tool_input": {"command": "ls"}})
        }
        _ => {
            json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}})
        }
    }
}

fn assert_denied(h: &str, r: &Run, why: &str) {
    match h {
        "cursor" => {
            let v: serde_json::Value = serde_json::from_str(r.stdout.trim())
                .unwrap_or_else(|e| panic!("{why}: {e}: {r:?}"));
            assert_eq!(v["permission"], "deny", "{why}: {r:?}");
            assert!(
                v["user_message"].as_str().unwrap().contains(why),
                "{why}: {r:?}"
            );
        }
        _ => {
            assert_eq!(r.code, 2, "{h} {why}: {r:?}");
            assert!(r.stdout.is_empty(), "{h} {why}: {r:?}");
            assert!(r.stderr.contains(why), "{h} {why}: {r:?}");
        }
    }
}

#[test]
fn malformed_input_is_denied() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    for h in ["claude", "codex", "cursor", "gemini"] {
        let good = pre(h).to_string();
        assert_denied(
            h,
            &run(&["hook", h], &good.as_bytes()[..good.len() / 2], &db),
            "not valid JSON",
        );
        assert_denied(h, &run(&["hook", h], b"", &db), "no event on stdin");
        assert_denied(h, &run(&["hook", h], b"\xff\xfe{}", &db), "not valid UTF-8");
        assert_denied(h, &run(&["hook", h], b"[1,2,3]", &db), "not a JSON object");
        assert_denied(
            h,
            &run(
                &["hook", h],
                br#"{"hook_event_name":"PreToolUse","tool_name":"Bash"}"#,
                &db,
            ),
            "malformed event",
        );
    }
}

#[test]
fn oversized_input_is_denied() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    let big = vec![b' '; 16 * 1024 * 1024 + 10];
    assert_denied("claude", &run(&["hook", "claude"], &big, &db), "byte limit");
}

#[test]
fn unknown_harness_and_bad_modes_are_denied() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    let ev = pre("claude").to_string();
    let r = run(&["hook", "vscode"], ev.as_bytes(), &db);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("unknown harness"));
    assert_denied(
        "claude",
        &run(
            &["hook", "claude", "--review", "sometimes"],
            ev.as_bytes(),
            &db,
        ),
        "invalid review mode",
    );
    assert_denied(
        "claude",
        &run(&["hook", "claude", "--outputs", "drop"], ev.as_bytes(), &db),
        "invalid outputs mode",
    );
    assert_denied(
        "claude",
        &run(&["hook", "claude", "--bogus"], ev.as_bytes(), &db),
        "bad hook arguments",
    );
    // From the environment too.
    let out = Command::new(bin())
        .args(["hook", "codex"])
        .env("INTENTSHIELD_DB", &db)
        .env("INTENTSHIELD_REVIEW", "maybe")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("INTENTSHIELD_REVIEW"));
}

/// An argument that is not UTF-8 anywhere on the hook's command line (a harness, a flag, a
/// value such as a `--db` path) ends in the deny, not in a crash (exit 101 before).
#[test]
fn arguments_that_are_not_utf8_are_denied() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    let bad = OsStr::from_bytes(b"x\xffy");
    for h in ["claude", "codex", "cursor", "gemini"] {
        let ev = pre(h).to_string();
        for args in [
            vec![OsStr::new("hook"), OsStr::new(h), OsStr::new("--db"), bad],
            vec![OsStr::new("hook"), OsStr::new(h), bad],
            vec![
                OsStr::new("hook"),
                OsStr::new(h),
                OsStr::new("--review"),
                bad,
            ],
        ] {
            let mut child = Command::new(bin())
                .args(&args)
                .env("INTENTSHIELD_DB", &db)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write;
            let _ = child.stdin.take().unwrap().write_all(ev.as_bytes());
            let out = child.wait_with_output().unwrap();
            let r = Run {
                code: out.status.code().unwrap_or(-1),
                stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            };
            assert_denied(h, &r, "not valid UTF-8");
        }
    }
    // A harness name that is not UTF-8: no harness to render for, the generic deny (exit 2).
    let out = Command::new(bin())
        .args([OsStr::new("hook"), bad])
        .env("INTENTSHIELD_DB", &db)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // Any other command: clap's error, not a crash.
    let out = Command::new(bin())
        .args([OsStr::new("log"), OsStr::new("--db"), bad])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(101), "{out:?}");
}

#[test]
fn unusable_database_is_denied_and_logged() {
    let tmp = tempfile::tempdir().unwrap();
    // A directory where the database file should be.
    let db = tmp.path().join("dir.db");
    std::fs::create_dir(&db).unwrap();
    for h in ["claude", "codex", "cursor", "gemini"] {
        let r = run(&["hook", h], pre(h).to_string().as_bytes(), &db);
        assert_denied(h, &r, "could not check");
    }
    // A corrupt file.
    let db2 = tmp.path().join("corrupt.db");
    std::fs::write(&db2, vec![0x42u8; 8192]).unwrap();
    let r = run(
        &["hook", "claude"],
        pre("claude").to_string().as_bytes(),
        &db2,
    );
    assert_denied("claude", &r, "database");
    let log = std::fs::read_to_string(tmp.path().join("errors.log")).unwrap();
    assert!(log.contains("database"), "{log}");
}

#[test]
fn locked_database_is_denied_after_the_busy_budget() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    // Create the schema, then hold the write lock from this process.
    assert_eq!(
        run(
            &["hook", "claude"],
            pre("claude").to_string().as_bytes(),
            &db
        )
        .code,
        0
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    let r = run(
        &["hook", "claude"],
        pre("claude").to_string().as_bytes(),
        &db,
    );
    assert_denied("claude", &r, "database is locked");
    conn.execute_batch("ROLLBACK").unwrap();
}

#[test]
fn post_tool_errors_do_not_block() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("dir.db");
    std::fs::create_dir(&db).unwrap();
    let ev = json!({"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": "x"});
    let r = run(&["hook", "claude"], ev.to_string().as_bytes(), &db);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.is_empty());
}

#[test]
fn a_tool_output_that_meets_a_locked_database_taints_its_session_later() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    let push = json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git push --force origin main"}});
    for id in ["s", "t"] {
        let prompt = json!({"session_id": id, "hook_event_name": "UserPromptSubmit", "prompt": "push my branch"});
        assert_eq!(
            run(&["hook", "claude"], prompt.to_string().as_bytes(), &db).code,
            0
        );
    }
    // A clean session: a force push passes.
    let r = run(&["hook", "claude"], push.to_string().as_bytes(), &db);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{r:?}");
    // A tool output arrives while another process holds the write lock past the busy budget.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("BEGIN IMMEDIATE").unwrap();
    let post = json!({"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "WebFetch", "tool_input": {"url": "https://example.com"}, "tool_response": "plain page"});
    let r = run(&["hook", "claude"], post.to_string().as_bytes(), &db);
    assert!(r.stderr.contains("database is locked"), "{r:?}");
    conn.execute_batch("ROLLBACK").unwrap();
    drop(conn);
    let pending = tmp.path().join("s.db-pending-taint");
    assert!(pending.exists(), "the session is noted beside the database");
    // The next event taints the session: what it read was never checked.
    let r = run(&["hook", "claude"], push.to_string().as_bytes(), &db);
    assert!(r.stdout.contains("\"ask\""), "{r:?}");
    assert!(!pending.exists(), "the note is removed once folded in");
    // Other sessions are not touched.
    let other = json!({"session_id": "t", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "git push --force origin main"}});
    let r = run(&["hook", "claude"], other.to_string().as_bytes(), &db);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{r:?}");
}
