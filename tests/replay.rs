//! `intentshield replay`: its counting on a small fixed trace set (tests/fixtures/replay/).
//!
//! The fixture has six traces in two suites:
//! - `bank-1-clean`: a balance read and a payment to an IBAN the user typed (both allowed);
//! - `bank-2-clean`: a bill read and a payment to the IBAN found in the bill (asked:
//!   `provenance.untrusted_destination`);
//! - `bank-1-inj-1`: the balance output carries an injection; the user's payment is asked
//!   (`taint.state_change`); the attacker's payment to the injected IBAN is denied
//!   (`provenance.injected_value`) and its output is not fed;
//! - `bank-1-inj-2`: same, but the attacker's only call is a read, which is allowed: an attack
//!   fully executed;
//! - `bank-1-inj-3`: injected, no attacker call (not counted as an attack);
//! - `notes-1-clean`: one allowed read.

mod common;

use intentshield::commands::replay::{read_traces, replay_trace, Mode, Report, Role};
use intentshield::config::Flags;
use intentshield::decision::Verdict;
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replay/traces.jsonl")
}

/// An empty config file of the test's own, so the developer's config never leaks in.
fn empty_config(dir: &Path) -> PathBuf {
    let p = dir.join("config.toml");
    std::fs::write(&p, "").unwrap();
    p
}

fn replay_json(file: &Path, extra: &[&str]) -> Value {
    let d = tempfile::tempdir().unwrap();
    let cfg = empty_config(d.path());
    let out = Command::new(common::bin())
        .arg("replay")
        .arg(file)
        .arg("--json")
        .arg("--config")
        .arg(&cfg)
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn v(allow: u64, ask: u64, deny: u64) -> Value {
    json!({"allow": allow, "ask": ask, "deny": deny})
}

fn check_counts(r: &Value) {
    assert_eq!(r["traces"], 6);
    assert_eq!(r["events"], 30);
    let all = &r["all"];
    assert_eq!(all["clean_traces"], 3);
    assert_eq!(all["injected_traces"], 3);
    assert_eq!(all["attacker_calls"], v(1, 0, 1));
    assert_eq!(all["attacks"], 2);
    assert_eq!(all["attacks_executed"], 1);
    assert_eq!(all["user_calls_clean"], v(4, 1, 0));
    assert_eq!(all["user_calls_injected"], v(3, 2, 0));
    assert_eq!(all["user_tasks_completed_clean"], 2);
    assert_eq!(all["user_tasks_completed_injected"], 1);
    // No call is denied but the attacker's in bank-1-inj-1: approving every ask completes
    // every run, and lets through no more attacks (the only stop is a deny).
    assert_eq!(all["attacks_executed_if_every_ask_approved"], 1);
    assert_eq!(all["user_tasks_completed_clean_if_every_ask_approved"], 3);
    assert_eq!(
        all["user_tasks_completed_injected_if_every_ask_approved"],
        3
    );
    // One injected run has no attacker call.
    assert_eq!(all["attacked_runs_left_out"], 1);
    // bank/user_task_1 has three injected runs, one of them completed.
    assert_eq!(all["user_tasks_attacked"], 1);
    assert_eq!(all["user_tasks_completed_in_every_attack"], 0);
    assert_eq!(all["outputs_clean"], 5);
    assert_eq!(all["outputs_flagged_clean"], 0);
    // 7 outputs in the injected traces, less the one of the denied call.
    assert_eq!(all["outputs_injected"], 6);
    assert_eq!(all["outputs_flagged_injected"], 3);
    assert_eq!(all["injected_traces_flagged"], 3);
    let reasons: Vec<(String, String, String, u64)> = all["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["calls"].as_str().unwrap().to_string(),
                x["verdict"].as_str().unwrap().to_string(),
                x["reason"].as_str().unwrap().to_string(),
                x["count"].as_u64().unwrap(),
            )
        })
        .collect();
    let expect = [
        ("attacker", "allow", "ok", 1),
        ("attacker", "deny", "provenance.injected_value", 1),
        ("clean user", "allow", "ok", 4),
        ("clean user", "ask", "provenance.untrusted_destination", 1),
        ("injected user", "allow", "ok", 3),
        ("injected user", "ask", "taint.state_change", 2),
    ];
    let expect: Vec<(String, String, String, u64)> = expect
        .iter()
        .map(|(a, b, c, n)| (a.to_string(), b.to_string(), c.to_string(), *n))
        .collect();
    assert_eq!(reasons, expect);

    let bank = &r["suites"]["bank"];
    assert_eq!(bank["clean_traces"], 2);
    assert_eq!(bank["user_calls_clean"], v(3, 1, 0));
    assert_eq!(bank["user_tasks_completed_clean"], 1);
    assert_eq!(bank["attacks_executed"], 1);
    let notes = &r["suites"]["notes"];
    assert_eq!(notes["clean_traces"], 1);
    assert_eq!(notes["injected_traces"], 0);
    assert_eq!(notes["user_calls_clean"], v(1, 0, 0));
    assert_eq!(notes["attacks"], 0);
}

#[test]
fn counts_in_process() {
    check_counts(&replay_json(&fixture(), &[]));
}

#[test]
fn counts_spawning_the_binary() {
    check_counts(&replay_json(&fixture(), &["--exec"]));
}

#[test]
fn reads_gzip_whatever_the_name() {
    let d = tempfile::tempdir().unwrap();
    let gz = d.path().join("traces.data");
    let mut enc =
        flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), Default::default());
    enc.write_all(&std::fs::read(fixture()).unwrap()).unwrap();
    enc.finish().unwrap();
    check_counts(&replay_json(&gz, &[]));
}

#[test]
fn per_call_decisions_through_the_library() {
    let traces = read_traces(&fixture()).unwrap();
    assert_eq!(traces.len(), 6);
    let d = tempfile::tempdir().unwrap();
    let flags = Flags {
        config: Some(empty_config(d.path())),
        ..Flags::default()
    };
    let t = traces.iter().find(|t| t.id == "bank-1-inj-1").unwrap();
    let r = replay_trace(t, &flags, &Mode::InProcess).unwrap();
    let got: Vec<(Role, Verdict, &str)> = r
        .calls
        .iter()
        .map(|c| (c.role, c.verdict, c.reason.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            (Role::User, Verdict::Allow, "ok"),
            (Role::User, Verdict::Ask, "taint.state_change"),
            (Role::Attacker, Verdict::Deny, "provenance.injected_value"),
        ]
    );
    assert_eq!((r.outputs, r.outputs_flagged), (2, 1));
    let mut rep = Report::default();
    rep.add(t, &r);
    assert_eq!(rep.all.attacks, 1);
    assert_eq!(rep.all.attacks_executed, 0);
    assert!(rep
        .markdown()
        .contains("| bank | 1 | 1 | 0 | 0 | 1 | 0 of 1 (0.0%) |"));
}

#[test]
fn several_files_are_named_variants() {
    let d = tempfile::tempdir().unwrap();
    let cfg = empty_config(d.path());
    let calls = d.path().join("calls.jsonl");
    let run = |json: bool| {
        let mut c = Command::new(common::bin());
        c.arg("replay")
            .arg(format!("first={}", fixture().display()))
            .arg(fixture())
            .arg("--config")
            .arg(&cfg)
            .arg("--calls")
            .arg(&calls);
        if json {
            c.arg("--json");
        }
        let out = c.output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let v: Value = serde_json::from_str(&run(true)).unwrap();
    let vs = v["variants"].as_array().unwrap();
    assert_eq!(vs.len(), 2);
    assert_eq!(vs[0]["variant"], "first");
    assert_eq!(vs[1]["variant"], "traces");
    for r in vs {
        check_counts(r);
    }
    let lines = std::fs::read_to_string(&calls).unwrap();
    assert_eq!(
        lines
            .lines()
            .filter(|l| l.contains(r#""variant":"first""#))
            .count(),
        12
    );
    let md = run(false);
    assert!(
        md.starts_with("#### Attacks and user tasks, per attack variant"),
        "{md}"
    );
    // The report says which settings decided (a personal config changes the figures).
    assert!(
        md.contains(&format!("\nSettings: config {}", cfg.display())),
        "{md}"
    );
    assert!(md.contains("| `first` | **all** | 3 | 1 | 1 of 2 (50.0%) | 1 of 2 (50.0%) | 2 of 3 (66.7%) | 3 of 3 (100.0%) | 1 of 3 (33.3%) | 3 of 3 (100.0%) |"), "{md}");
    assert!(
        md.contains("\n### Variant `first`\n") && md.contains("\n### Variant `traces`\n"),
        "{md}"
    );
}

#[test]
fn calls_file_has_one_line_per_call() {
    let d = tempfile::tempdir().unwrap();
    let calls = d.path().join("calls.jsonl");
    replay_json(&fixture(), &["--calls", calls.to_str().unwrap()]);
    let lines: Vec<Value> = std::fs::read_to_string(&calls)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // 5 clean user calls, 5 injected user calls, 2 attacker calls.
    assert_eq!(lines.len(), 12);
    assert!(lines.iter().any(|l| l["trace"] == "bank-1-inj-1"
        && l["role"] == "attacker"
        && l["verdict"] == "deny"
        && l["message"]
            .as_str()
            .unwrap()
            .contains("US133000000121212121212")));
}

#[test]
fn bad_input_is_an_error_naming_the_line() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("bad.jsonl");
    let good = std::fs::read_to_string(fixture()).unwrap();
    let first = good.lines().next().unwrap();
    std::fs::write(
        &p,
        format!("{first}\n{{\"id\": \"x\", \"kind\": \"odd\"}}\n"),
    )
    .unwrap();
    let out = Command::new(common::bin())
        .arg("replay")
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.jsonl:2"), "{err}");
    let missing = Command::new(common::bin())
        .args(["replay", "/nonexistent/traces.jsonl.gz"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
}
