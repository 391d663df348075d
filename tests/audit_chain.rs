//! Receipts: the audit's hash chain, as `intentshield audit verify` and `log` check it.
//! A row edited, removed or stripped of its hash is named; pruning keeps the chain verifiable;
//! concurrent hook processes append to one chain. The row-hash input is recomputed here from
//! its documented encoding (src/state/audit.rs, docs/export.md), not with the crate's code.

mod common;
use common::*;
use rusqlite::Connection;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::path::Path;

fn call(session: &str, command: &str) -> Value {
    json!({"session_id": session, "cwd": "/p", "hook_event_name": "PreToolUse", "tool_name": "Bash",
           "tool_input": {"command": command}, "tool_use_id": "t"})
}

/// Start + four calls: rows 1..=5.
fn five_rows(db: &Path) {
    start("claude", "s1", db);
    for c in ["ls -la", "rm -rf /", "git status", "cat README.md"] {
        let _ = hook("claude", &call("s1", c), db);
    }
}

fn verify(db: &Path) -> (i32, String, Value) {
    let text = run(&["audit", "verify"], b"", db);
    let js = run(&["audit", "verify", "--json"], b"", db);
    assert_eq!(text.code, js.code, "{text:?} {js:?}");
    let v: Value = serde_json::from_str(js.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {js:?}"));
    (text.code, text.stdout, v)
}

/// The documented row hash: SHA-256 over "intentshield-audit-v1\0", prev_hash, then each
/// field as u64 big-endian length + UTF-8 bytes (NULL: eight 0xFF), integers as decimal text.
fn documented_hash(prev: &str, fields: &[Option<String>]) -> String {
    let mut h = Sha256::new();
    h.update(b"intentshield-audit-v1\0");
    h.update(prev.as_bytes());
    for f in fields {
        match f {
            None => h.update([0xFFu8; 8]),
            Some(s) => {
                h.update((s.len() as u64).to_be_bytes());
                h.update(s.as_bytes());
            }
        }
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// One row: id, its hashed fields in order, prev_hash, row_hash.
type Row = (i64, Vec<Option<String>>, String, Option<String>);

/// Every row, by id.
fn rows(conn: &Connection) -> Vec<Row> {
    let mut st = conn
        .prepare(
            "SELECT id, CAST(id AS TEXT), CAST(ts AS TEXT), harness, session_id, event, tool, verdict, reason_code,
                    rules, args_digest, message, critical, approver, prev_hash, row_hash
             FROM decisions ORDER BY id",
        )
        .unwrap();
    st.query_map([], |r| {
        let fields: Vec<Option<String>> = (1..=13).map(|i| r.get(i).unwrap()).collect();
        Ok((r.get(0)?, fields, r.get(14)?, r.get(15)?))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

#[test]
fn the_documented_encoding_is_the_one_written() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    five_rows(&db);
    // A call with a destination and an approval-free ask carries critical values.
    let mail = json!({"session_id": "s1", "cwd": "/p", "hook_event_name": "PreToolUse",
        "tool_name": "mcp__mail__send_email", "tool_input": {"to": "bob@example.com", "body": "hi"}, "tool_use_id": "t"});
    let _ = hook("claude", &mail, &db);
    let conn = Connection::open(&db).unwrap();
    let all = rows(&conn);
    assert_eq!(all.len(), 6);
    let mut prev = "0".repeat(64);
    for (id, fields, p, h) in &all {
        assert_eq!(p, &prev, "row {id} links to the row before it");
        let h = h.clone().unwrap();
        assert_eq!(documented_hash(p, fields), h, "row {id}");
        prev = h;
    }
    let critical: String = conn
        .query_row("SELECT critical FROM decisions WHERE id=6", [], |r| {
            r.get(0)
        })
        .unwrap();
    let c: Value = serde_json::from_str(&critical).unwrap();
    assert_eq!(c[0]["value"], "bob@example.com");
    assert_eq!(c[0]["kind"], "email");
    assert!(c[0]["origins"].as_array().unwrap().is_empty(), "{c}");
}

#[test]
fn a_tampered_row_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    five_rows(&db);
    let (code, out, v) = verify(&db);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("audit chain intact: 5 chained rows"), "{out}");
    assert_eq!(v["ok"], true);

    // Someone turns the deny of `rm -rf /` into an allow.
    let conn = Connection::open(&db).unwrap();
    conn.execute(
        "UPDATE decisions SET verdict='allow', reason_code='ok' WHERE id=3",
        [],
    )
    .unwrap();
    let (code, out, v) = verify(&db);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("audit chain broken at row #3: its content does not match"),
        "{out}"
    );
    assert_eq!(v["ok"], false);
    assert_eq!(v["first_bad"]["id"], 3);
    assert_eq!(v["first_bad"]["problem"], "content");
    assert_eq!(v["bad_count"], 1, "only the edited row: {v}");
    // log marks it, and only it.
    let log = run(&["log"], b"", &db);
    assert_eq!(log.code, 0, "{log:?}");
    let marked: Vec<&str> = log
        .stdout
        .lines()
        .filter(|l| l.contains("BROKEN"))
        .collect();
    assert_eq!(marked.len(), 1, "{}", log.stdout);
    assert!(marked[0].starts_with("#3 BROKEN"), "{}", log.stdout);
    assert!(log.stderr.contains("audit verify"), "{log:?}");
    let js = run(&["log", "--format", "jsonl"], b"", &db);
    let chain: Vec<(i64, String)> = js
        .stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_i64().unwrap(),
                v["chain"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        chain,
        vec![
            (5, "ok".into()),
            (4, "ok".into()),
            (3, "broken".into()),
            (2, "ok".into()),
            (1, "ok".into())
        ]
    );

    // A row removed: the row after it no longer links.
    conn.execute(
        "UPDATE decisions SET verdict='deny', reason_code='builtin.catastrophic' WHERE id=3",
        [],
    )
    .unwrap();
    assert_eq!(verify(&db).0, 0, "restored");
    conn.execute("DELETE FROM decisions WHERE id=4", [])
        .unwrap();
    let (code, out, v) = verify(&db);
    assert_eq!(code, 1);
    assert!(
        out.contains("row #5: its previous-row hash does not match row #3"),
        "{out}"
    );
    assert_eq!(v["first_bad"]["problem"], "link");

    // A hash stripped after chained rows.
    conn.execute("UPDATE decisions SET row_hash=NULL WHERE id=2", [])
        .unwrap();
    let (_, out, v) = verify(&db);
    assert!(
        out.starts_with("audit chain broken at row #2: it has no hash"),
        "{out}"
    );
    assert_eq!(v["first_bad"]["problem"], "missing_hash");
    // A recomputed hash over edited content still breaks the link of the row after it.
    let conn2 = Connection::open(&db).unwrap();
    let all = rows(&conn2);
    let (_, mut fields, prev, _) = all.iter().find(|r| r.0 == 2).cloned().unwrap();
    fields[10] = Some("edited".into());
    let forged = documented_hash(&prev, &fields);
    conn2
        .execute(
            "UPDATE decisions SET message='edited', row_hash=?1 WHERE id=2",
            [&forged],
        )
        .unwrap();
    let (_, out, v) = verify(&db);
    assert_eq!(v["first_bad"]["id"], 3, "{out}");
    assert_eq!(v["first_bad"]["problem"], "link", "{out}");
}

#[test]
fn the_chain_stays_verifiable_across_pruning() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    five_rows(&db);
    // Rows 1..=3 were written 100 days ago: age them and rebuild the chain with the
    // documented encoding (what the hook would have written then).
    let conn = Connection::open(&db).unwrap();
    let old = 100 * 24 * 3600;
    conn.execute("UPDATE decisions SET ts = ts - ?1 WHERE id <= 3", [old])
        .unwrap();
    let mut prev = "0".repeat(64);
    let mut hashes = Vec::new();
    for (id, fields, _, _) in rows(&conn) {
        let h = documented_hash(&prev, &fields);
        conn.execute(
            "UPDATE decisions SET prev_hash=?1, row_hash=?2 WHERE id=?3",
            rusqlite::params![prev, h, id],
        )
        .unwrap();
        hashes.push(h.clone());
        prev = h;
    }
    assert_eq!(verify(&db).0, 0, "rebuilt with the documented encoding");

    // A session start prunes rows over 90 days old: rows 1..=3.
    start("claude", "s2", &db);
    let left: Vec<i64> = rows(&conn).iter().map(|r| r.0).collect();
    assert_eq!(left, vec![4, 5, 6]);
    let (code, out, v) = verify(&db);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("anchored at pruned row #3"), "{out}");
    assert_eq!(v["anchor"]["pruned_id"], 3);
    assert_eq!(v["anchor"]["hash"], hashes[2].as_str());
    assert_eq!(v["chained"], 3);
    // The chain goes on after the anchor; log shows every row as ok.
    let _ = hook("claude", &call("s2", "ls"), &db);
    assert_eq!(verify(&db).0, 0);
    let log = run(&["log", "--json"], b"", &db);
    assert!(
        log.stdout.lines().all(|l| l.contains("\"chain\":\"ok\"")),
        "{}",
        log.stdout
    );
    // Removing the first row after the anchor without moving the anchor is found.
    conn.execute("DELETE FROM decisions WHERE id=4", [])
        .unwrap();
    let (code, out, v) = verify(&db);
    assert_eq!(code, 1);
    assert_eq!(v["first_bad"]["id"], 5);
    assert!(out.contains("does not match the chain's anchor"), "{out}");
}

#[test]
fn concurrent_hooks_keep_one_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    start("claude", "w", &db);
    let workers = 4;
    let calls = 40;
    let handles: Vec<_> = (0..workers)
        .map(|w| {
            let db = db.clone();
            std::thread::spawn(move || {
                for i in 0..calls {
                    let r = hook(
                        "claude",
                        &call(&format!("w{w}"), &format!("ls src/{i}")),
                        &db,
                    );
                    assert_eq!(r.code, 0, "{r:?}");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let (code, out, v) = verify(&db);
    assert_eq!(code, 0, "{out}");
    let total = 1 + workers * calls;
    assert_eq!(v["chained"], total as i64, "{v}");
    let conn = Connection::open(&db).unwrap();
    // No fork: every prev_hash is used once, and ids are contiguous.
    let (n, distinct_prev, min, max): (i64, i64, i64, i64) = conn
        .query_row(
            "SELECT count(*), count(DISTINCT prev_hash), min(id), max(id) FROM decisions",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(
        (n, distinct_prev, min, max),
        (total as i64, total as i64, 1, total as i64)
    );
}

#[test]
fn verify_without_a_database_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run(&["audit", "verify"], b"", &tmp.path().join("none.db"));
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("no database at"), "{r:?}");
    assert!(!tmp.path().join("none.db").exists());
}
