//! 8 hook processes running concurrently, 500 calls each, lose no row and fail no call.

mod common;
use common::*;
use serde_json::json;

#[test]
fn eight_processes_500_calls_each() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    let workers = 8;
    let calls = 500;
    let handles: Vec<_> = (0..workers)
        .map(|w| {
            let db = db.clone();
            std::thread::spawn(move || {
                let mut failures = Vec::new();
                for i in 0..calls {
                    let ev = if i % 2 == 0 {
                        json!({"session_id": format!("w{w}"), "cwd": "/p", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": format!("ls -la src/{i}")}, "tool_use_id": format!("t{i}")})
                    } else {
                        json!({"session_id": format!("w{w}"), "cwd": "/p", "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {"stdout": format!("file-{i}.txt contact ops-{w}@example.com"), "stderr": ""}, "tool_use_id": format!("t{i}")})
                    };
                    let r = hook("claude", &ev, &db);
                    if r.code != 0 || !r.stderr.is_empty() {
                        failures.push(format!("{w}/{i}: {r:?}"));
                    }
                }
                failures
            })
        })
        .collect();
    let failures: Vec<String> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    assert!(
        failures.is_empty(),
        "{} failed calls, first: {}",
        failures.len(),
        failures[0]
    );
    let conn = rusqlite::Connection::open(&db).unwrap();
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM decisions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, (workers * calls) as i64);
    let sessions: i64 = conn
        .query_row("SELECT count(*) FROM sessions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(sessions, workers as i64);
}

/// Eight processes opening a database that does not exist yet, at once: the switch to WAL
/// needs the file to itself and SQLite answers it "database is locked" without waiting, so
/// about 1 in 100 first calls was denied (once in a CI run of the test above). The switch now
/// waits like a busy lock; 30 fresh databases, 240 first calls, none may fail.
#[test]
fn eight_processes_opening_a_new_database_at_once() {
    for round in 0..30 {
        let tmp = tempfile::tempdir().unwrap();
        let db = tmp.path().join("s.db");
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
        let handles: Vec<_> = (0..8)
            .map(|w| {
                let db = db.clone();
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    let ev = json!({"session_id": format!("w{w}"), "cwd": "/p", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"});
                    barrier.wait();
                    hook("claude", &ev, &db)
                })
            })
            .collect();
        for h in handles {
            let r = h.join().unwrap();
            assert!(r.code == 0 && r.stderr.is_empty(), "round {round}: {r:?}");
        }
    }
}
