//! Audit export: `log --format jsonl|cef|ocsf` and the hook's own `[export]` sink.
//! - CEF lines are checked against the format's header grammar and escaping rules;
//! - OCSF events against the published class definition of API Activity (6003): the required
//!   attributes of `base_event` and `api_activity`, the required attributes and
//!   `at_least_one` constraints of the objects used, the types and enums of every attribute
//!   present, and no attribute the class (with the Security Control profile) does not define.
//!   The check is written here from the schema's definition files (ocsf-schema:
//!   events/base_event.json, events/application/api_activity.json, objects/*.json,
//!   profiles/security_control.json, dictionary.json): no crates.io package ships the OCSF
//!   JSON schema, and tests run without a network;
//! - the sink rotates by size, masks secrets, keeps whole lines under concurrent writers,
//!   and never changes a decision when its path cannot be written.

mod common;
use common::*;
use intentshield::export::{self, Format};
use intentshield::state::AuditRow;
use serde_json::{json, Value};
use std::path::Path;

fn call(session: &str, command: &str) -> Value {
    json!({"session_id": session, "cwd": "/p", "hook_event_name": "PreToolUse", "tool_name": "Bash",
           "tool_input": {"command": command}, "tool_use_id": "t"})
}

fn hook_with(config: &Path, ev: &Value, db: &Path) -> Run {
    run(
        &["hook", "claude", "--config", config.to_str().unwrap()],
        ev.to_string().as_bytes(),
        db,
    )
}

// ---------------------------------------------------------------------------------------------
// CEF grammar

/// A CEF line read back: the seven header fields and the extension's `(key, value)` pairs.
type Cef = (Vec<String>, Vec<(String, String)>);
/// A change that breaks an event.
type Breaker = Box<dyn Fn(&mut Value)>;

/// Splits a CEF line into its seven header fields (unescaped) and its extension pairs
/// (unescaped), checking the grammar: `CEF:Version|Vendor|Product|Version|Signature ID|Name|
/// Severity|Extension`, `\|` and `\\` the only escapes in the header, `\\`, `\=`, `\n`, `\r` the
/// only escapes in extension values, no unescaped `=` in a value, keys of letters and digits,
/// no raw newline anywhere.
fn parse_cef(line: &str) -> Result<Cef, String> {
    if line.contains('\n') || line.contains('\r') {
        return Err("raw newline".into());
    }
    let rest = line.strip_prefix("CEF:").ok_or("no CEF: prefix")?;
    let mut header = Vec::new();
    let mut cur = String::new();
    let mut chars = rest.char_indices();
    let mut ext_start = None;
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, e @ ('\\' | '|'))) => cur.push(e),
                other => return Err(format!("bad header escape {other:?} at {i}")),
            },
            '|' => {
                header.push(std::mem::take(&mut cur));
                if header.len() == 7 {
                    ext_start = Some(i + 1);
                    break;
                }
            }
            c => cur.push(c),
        }
    }
    let ext = &rest[ext_start.ok_or("fewer than 8 fields")?..];
    if header[0] != "0" {
        return Err(format!("version {}", header[0]));
    }
    let sev: u8 = header[6].parse().map_err(|_| "severity not a number")?;
    if sev > 10 {
        return Err("severity over 10".into());
    }
    // Extension: every unescaped '=' ends a key; the key is the word before it.
    let b = ext.as_bytes();
    let mut eqs = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                match b.get(i + 1) {
                    Some(b'\\' | b'=' | b'n' | b'r') => {}
                    other => return Err(format!("bad value escape {other:?}")),
                }
                i += 2;
                continue;
            }
            b'=' => eqs.push(i),
            _ => {}
        }
        i += 1;
    }
    let mut pairs = Vec::new();
    let mut key_starts = Vec::new();
    for &e in &eqs {
        let start = ext[..e].rfind(' ').map_or(0, |s| s + 1);
        let key = &ext[start..e];
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(format!("bad key '{key}'"));
        }
        key_starts.push((start, e));
    }
    for (n, &(start, e)) in key_starts.iter().enumerate() {
        let end = key_starts
            .get(n + 1)
            .map_or(ext.len(), |(next, _)| next - 1);
        let raw = &ext[e + 1..end];
        let mut v = String::new();
        let mut it = raw.chars();
        while let Some(c) = it.next() {
            if c == '\\' {
                match it.next() {
                    Some('n') => v.push('\n'),
                    Some('r') => v.push('\r'),
                    Some(c) => v.push(c),
                    None => return Err("trailing backslash".into()),
                }
            } else {
                v.push(c);
            }
        }
        pairs.push((ext[start..e].to_string(), v));
    }
    if ext.is_empty() || start_ok(ext) {
        Ok((header, pairs))
    } else {
        Err("extension does not start with a key".into())
    }
}

fn start_ok(ext: &str) -> bool {
    ext.split('=')
        .next()
        .is_some_and(|k| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric()))
}

fn row(message: &str, session: &str, tool: Option<&str>, verdict: &str) -> AuditRow {
    AuditRow {
        id: 7,
        ts: 1_796_000_000,
        harness: "claude".into(),
        session_id: session.into(),
        event: "PreToolUse".into(),
        tool: tool.map(str::to_string),
        verdict: verdict.into(),
        reason_code: "builtin.catastrophic".into(),
        rules: "[\"a|b\"]".into(),
        args_digest: Some("ab".repeat(32)),
        message: message.into(),
        args: Some("{\"command\":\"echo a=b | tee c\\\\d\"}".into()),
        critical: None,
        approver: None,
        prev_hash: Some("0".repeat(64)),
        row_hash: Some("f".repeat(64)),
        chain: None,
    }
}

#[test]
fn cef_escapes_every_special_character() {
    let nasty = "pipe | back \\ equals = newline \n cr \r end";
    let r = row(nasty, "s|1=\\x\ny", Some("mcp|x=y"), "deny");
    let line = Format::Cef.line(&r);
    let (header, ext) = parse_cef(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_eq!(header[1], "IntentShield");
    assert_eq!(header[4], "builtin.catastrophic");
    assert_eq!(header[6], "8");
    let get = |k: &str| {
        ext.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no {k} in {line}"))
    };
    assert_eq!(get("msg"), nasty);
    assert_eq!(get("cs1"), "s|1=\\x\ny");
    assert_eq!(get("cs2"), "mcp|x=y");
    assert_eq!(get("cs5"), "{\"command\":\"echo a=b | tee c\\\\d\"}");
    assert_eq!(get("act"), "deny");
    assert_eq!(get("rt"), "1796000000000");
    // A header field with a pipe and a backslash.
    let mut r2 = r.clone();
    r2.reason_code = "odd|code\\x".into();
    let line = Format::Cef.line(&r2);
    let (header, _) = parse_cef(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_eq!(header[4], "odd|code\\x");
    assert_eq!(header[5], "intentshield deny: odd|code\\x");
    // The checker itself refuses what breaks the grammar.
    for bad in [
        "CEF:0|a|b|c|d|e|5|k=v=w",
        "CEF:0|a|b|c|d|e|5|k=v\\x",
        "CEF:0|a\\x|b|c|d|e|5|k=v",
        "CEF:0|a|b|c|d|e|11|k=v",
        "CEF:0|a|b|c|d|5|k=v",
        "CEF:0|a|b|c|d|e|5|k=v\nx=y",
    ] {
        assert!(parse_cef(bad).is_err(), "{bad}");
    }
}

// ---------------------------------------------------------------------------------------------
// OCSF API Activity

/// Checks one event against the API Activity class definition (see the module notes).
fn check_ocsf(v: &Value) -> Result<(), String> {
    let o = v.as_object().ok_or("not an object")?;
    let int = |k: &str| -> Result<i64, String> {
        o.get(k)
            .and_then(Value::as_i64)
            .ok_or_else(|| format!("{k}: required integer"))
    };
    // base_event: required.
    let activity = int("activity_id")?;
    let class = int("class_uid")?;
    let category = int("category_uid")?;
    let type_uid = int("type_uid")?;
    let severity = int("severity_id")?;
    let time = int("time")?;
    if class != 6003 || category != 6 {
        return Err(format!("class {class} / category {category}"));
    }
    // api_activity's activity_id enum plus base 0 Unknown and 99 Other.
    if ![0, 1, 2, 3, 4, 99].contains(&activity) {
        return Err(format!("activity_id {activity}"));
    }
    if type_uid != class * 100 + activity {
        return Err(format!("type_uid {type_uid}"));
    }
    if ![0, 1, 2, 3, 4, 5, 6, 99].contains(&severity) {
        return Err(format!("severity_id {severity}"));
    }
    // timestamp_t: milliseconds since the epoch.
    if time < 1_000_000_000_000 {
        return Err(format!("time {time} is not in milliseconds"));
    }
    let obj = |k: &str| -> Result<&serde_json::Map<String, Value>, String> {
        o.get(k)
            .and_then(Value::as_object)
            .ok_or_else(|| format!("{k}: required object"))
    };
    let at_least_one = |what: &str, m: &serde_json::Map<String, Value>, keys: &[&str]| {
        if keys.iter().any(|k| m.get(*k).is_some_and(|v| !v.is_null())) {
            Ok(())
        } else {
            Err(format!("{what}: at least one of {keys:?}"))
        }
    };
    let metadata = obj("metadata")?;
    let product = metadata
        .get("product")
        .and_then(Value::as_object)
        .ok_or("metadata.product: required object")?;
    at_least_one("metadata.product", product, &["name", "uid"])?;
    metadata
        .get("version")
        .and_then(Value::as_str)
        .ok_or("metadata.version: required string")?;
    if let Some(p) = metadata.get("profiles") {
        let arr = p.as_array().ok_or("metadata.profiles: array")?;
        if !arr.iter().all(Value::is_string) {
            return Err("metadata.profiles: strings".into());
        }
    }
    for k in ["uid", "log_name", "event_code"] {
        if metadata.get(k).is_some_and(|v| !v.is_string()) {
            return Err(format!("metadata.{k}: string"));
        }
    }
    // api_activity: required.
    let actor = obj("actor")?;
    at_least_one(
        "actor",
        actor,
        &[
            "process",
            "user",
            "iam_role",
            "invoked_by",
            "session",
            "app_name",
            "app_uid",
        ],
    )?;
    if let Some(s) = actor.get("session") {
        s.as_object().ok_or("actor.session: object")?;
    }
    let api = obj("api")?;
    api.get("operation")
        .and_then(Value::as_str)
        .ok_or("api.operation: required string")?;
    if let Some(s) = api.get("service") {
        at_least_one(
            "api.service",
            s.as_object().ok_or("api.service: object")?,
            &["name", "uid"],
        )?;
    }
    let src = obj("src_endpoint")?;
    at_least_one(
        "src_endpoint",
        src,
        &[
            "ip",
            "uid",
            "name",
            "hostname",
            "svc_name",
            "instance_uid",
            "interface_uid",
            "interface_name",
            "domain",
        ],
    )?;
    // Optional attributes: types and enums.
    for k in [
        "activity_name",
        "category_name",
        "class_name",
        "message",
        "severity",
        "type_name",
        "action",
        "disposition",
        "status",
    ] {
        if o.get(k).is_some_and(|v| !v.is_string()) {
            return Err(format!("{k}: string"));
        }
    }
    if let Some(a) = o.get("action_id") {
        let a = a.as_i64().ok_or("action_id: integer")?;
        if ![0, 1, 2, 3, 4, 99].contains(&a) {
            return Err(format!("action_id {a}"));
        }
    }
    if let Some(d) = o.get("disposition_id") {
        let d = d.as_i64().ok_or("disposition_id: integer")?;
        if !((0..=27).contains(&d) || d == 99) {
            return Err(format!("disposition_id {d}"));
        }
    }
    if o.get("is_alert").is_some_and(|v| !v.is_boolean()) {
        return Err("is_alert: boolean".into());
    }
    if let Some(p) = o.get("policy") {
        at_least_one(
            "policy",
            p.as_object().ok_or("policy: object")?,
            &["name", "type", "uid"],
        )?;
    }
    if o.get("unmapped").is_some_and(|v| !v.is_object()) {
        return Err("unmapped: object".into());
    }
    // Only attributes the class defines (base_event, api_activity, security_control).
    const DEFINED: &[&str] = &[
        "activity_id",
        "activity_name",
        "category_name",
        "category_uid",
        "class_name",
        "class_uid",
        "count",
        "duration",
        "end_time",
        "enrichments",
        "message",
        "metadata",
        "observables",
        "raw_data",
        "raw_data_hash",
        "raw_data_size",
        "severity",
        "severity_id",
        "start_time",
        "status",
        "status_code",
        "status_detail",
        "status_id",
        "time",
        "timezone_offset",
        "type_name",
        "type_uid",
        "unmapped",
        "actor",
        "api",
        "dst_endpoint",
        "http_request",
        "http_response",
        "resources",
        "src_endpoint",
        "action",
        "action_id",
        "attacks",
        "authorizations",
        "confidence",
        "confidence_id",
        "confidence_score",
        "disposition",
        "disposition_id",
        "firewall_rule",
        "is_alert",
        "malware",
        "malware_scan_info",
        "policy",
        "risk_details",
        "risk_level",
        "risk_level_id",
        "risk_score",
    ];
    if let Some(k) = o.keys().find(|k| !DEFINED.contains(&k.as_str())) {
        return Err(format!("{k}: not an attribute of API Activity"));
    }
    Ok(())
}

#[test]
fn ocsf_events_carry_the_class_requirements() {
    for (verdict, action, disposition) in [("allow", 1, 1), ("ask", 99, 23), ("deny", 2, 2)] {
        let r = row("m", "s", Some("github/create_issue"), verdict);
        let v = export::ocsf::event(&r);
        check_ocsf(&v).unwrap_or_else(|e| panic!("{e}: {v}"));
        assert_eq!(v["action_id"], action);
        assert_eq!(v["disposition_id"], disposition);
        assert_eq!(v["api"]["service"]["name"], "github");
        assert_eq!(v["unmapped"]["row_hash"], "f".repeat(64));
    }
    // An event without a tool (a prompt) still names an operation.
    let mut r = row("m", "s", None, "allow");
    r.event = "UserPromptSubmit".into();
    let v = export::ocsf::event(&r);
    check_ocsf(&v).unwrap();
    assert_eq!(v["api"]["operation"], "UserPromptSubmit");
    // The checker refuses a missing requirement, a wrong type and an undefined attribute.
    let good = export::ocsf::event(&row("m", "s", Some("Bash"), "deny"));
    let broken: Vec<Breaker> = vec![
        Box::new(|v| v["api"].as_object_mut().unwrap().clear()),
        Box::new(|v| {
            v.as_object_mut().unwrap().remove("src_endpoint");
        }),
        Box::new(|v| v["time"] = json!(1_796_000_000)),
        Box::new(|v| v["severity_id"] = json!("4")),
        Box::new(|v| v["type_uid"] = json!(600301)),
        Box::new(|v| v["verdict"] = json!("deny")),
        Box::new(|v| v["actor"] = json!({"name": "x"})),
    ];
    for (i, f) in broken.iter().enumerate() {
        let mut v = good.clone();
        f(&mut v);
        assert!(check_ocsf(&v).is_err(), "case {i}: {v}");
    }
}

#[test]
fn log_prints_each_format() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    start("claude", "s|1", &db);
    for c in ["ls -la", "rm -rf /", "echo a=b | tee x\\y"] {
        let _ = hook("claude", &call("s|1", c), &db);
    }
    let mail = json!({"session_id": "s|1", "cwd": "/p", "hook_event_name": "PreToolUse",
        "tool_name": "mcp__mail__send_email", "tool_input": {"to": "bob@example.com", "body": "hi"}, "tool_use_id": "t"});
    let _ = hook("claude", &mail, &db);
    let lines = |f: &str| -> Vec<String> {
        let r = run(&["log", "--format", f], b"", &db);
        assert_eq!(r.code, 0, "{r:?}");
        r.stdout.lines().map(str::to_string).collect()
    };
    let jsonl = lines("jsonl");
    assert_eq!(jsonl.len(), 5);
    for l in &jsonl {
        let v: Value = serde_json::from_str(l).unwrap();
        for k in [
            "id",
            "time",
            "decision",
            "reason",
            "row_hash",
            "prev_hash",
            "chain",
        ] {
            assert!(!v[k].is_null(), "{k} in {l}");
        }
    }
    let json_flag = run(&["log", "--json"], b"", &db);
    assert_eq!(json_flag.stdout.lines().count(), 5);
    let cef = lines("cef");
    assert_eq!(cef.len(), 5);
    for l in &cef {
        let (h, ext) = parse_cef(l).unwrap_or_else(|e| panic!("{e}: {l}"));
        assert!(["1", "5", "8"].contains(&h[6].as_str()), "{l}");
        assert!(ext.iter().any(|(k, v)| k == "cs1" && v == "s|1"), "{l}");
    }
    let ocsf = lines("ocsf");
    assert_eq!(ocsf.len(), 5);
    for l in &ocsf {
        let v: Value = serde_json::from_str(l).unwrap();
        check_ocsf(&v).unwrap_or_else(|e| panic!("{e}: {l}"));
    }
    let mail_event: Value = serde_json::from_str(&ocsf[0]).unwrap();
    assert_eq!(
        mail_event["unmapped"]["critical"][0]["value"],
        "bob@example.com"
    );
}

// ---------------------------------------------------------------------------------------------
// The sink

fn sink_config(dir: &Path, path: &Path, format: &str, max: &str, keep: u32) -> std::path::PathBuf {
    let cfg = dir.join("sink.toml");
    std::fs::write(
        &cfg,
        format!(
            "[export]\npath = \"{}\"\nformat = \"{format}\"\nmax_size = \"{max}\"\nkeep = {keep}\n",
            path.display()
        ),
    )
    .unwrap();
    cfg
}

#[test]
fn the_sink_writes_one_masked_line_per_decision() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    let out = tmp.path().join("decisions.ocsf");
    let cfg = sink_config(tmp.path(), &out, "ocsf", "1MB", 2);
    assert_eq!(hook_with(&cfg, &start_event("claude", "s"), &db).code, 0);
    let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB";
    let calls = [
        "ls -la".to_string(),
        format!("rm -rf / ; echo {token}"),
        "rm -rf /".to_string(),
    ];
    let mut verdicts = Vec::new();
    for c in &calls {
        let r = hook_with(&cfg, &call("s", c), &db);
        verdicts.push(verdict("claude", &r));
    }
    assert_eq!(verdicts[1..], ["deny", "deny"]);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(!text.contains(token), "the token is masked: {text}");
    assert!(text.contains("masked"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    for l in &lines {
        assert!(l.len() < export::sink::LINE_MAX);
        let v: Value = serde_json::from_str(l).unwrap();
        check_ocsf(&v).unwrap_or_else(|e| panic!("{e}: {l}"));
    }
    // The sink's row hashes are the audit's: an outside copy of the chain.
    let audit = run(&["log", "--format", "jsonl", "-n", "1"], b"", &db);
    let newest: Value = serde_json::from_str(audit.stdout.trim()).unwrap();
    let last: Value = serde_json::from_str(lines[3]).unwrap();
    assert_eq!(last["unmapped"]["row_hash"], newest["row_hash"]);
    // `check` never writes to the sink.
    let ev = tmp.path().join("ev.json");
    std::fs::write(&ev, call("s", "ls").to_string()).unwrap();
    let _ = run(
        &[
            "check",
            "--config",
            cfg.to_str().unwrap(),
            ev.to_str().unwrap(),
        ],
        b"",
        &db,
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 4);
    // Only a protected config counts: the same file named by INTENTSHIELD_CONFIG is ignored.
    let r = run_env(
        &["hook", "claude"],
        call("s", "ls").to_string().as_bytes(),
        &db,
        &[("INTENTSHIELD_CONFIG", cfg.to_str().unwrap())],
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 4);
}

#[test]
fn the_sink_rotates_by_size() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    let out = tmp.path().join("decisions.jsonl");
    let cfg = sink_config(tmp.path(), &out, "jsonl", "64KB", 2);
    let filler = "x".repeat(1500);
    let n = 140;
    for i in 0..n {
        let r = hook_with(&cfg, &call("s", &format!("rm -rf / # {i} {filler}")), &db);
        assert_eq!(verdict("claude", &r), "deny", "{r:?}");
    }
    let name = |s: &str| export::sink::suffixed(&out, s);
    assert!(out.exists() && name("1").exists() && name("2").exists());
    assert!(!name("3").exists(), "keep = 2");
    assert!(!name("lock").exists());
    let mut ids = Vec::new();
    for p in [name("2"), name("1"), out.clone()] {
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(
            text.len() as u64 <= 64 * 1024 + export::sink::LINE_MAX as u64,
            "{}",
            p.display()
        );
        for l in text.lines() {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            assert_eq!(v["decision"], "deny");
            ids.push(v["id"].as_i64().unwrap());
        }
    }
    // The kept files hold the newest lines, in order, none missing.
    let last = *ids.last().unwrap();
    assert_eq!(last, n as i64);
    let expected: Vec<i64> = (last + 1 - ids.len() as i64..=last).collect();
    assert_eq!(ids, expected);
}

#[test]
fn concurrent_hooks_write_whole_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("s.db");
    let out = tmp.path().join("decisions.cef");
    let cfg = sink_config(tmp.path(), &out, "cef", "64KB", 50);
    let workers = 4;
    let calls = 30;
    let filler = "y".repeat(1200);
    let handles: Vec<_> = (0..workers)
        .map(|w| {
            let (db, cfg, filler) = (db.clone(), cfg.clone(), filler.clone());
            std::thread::spawn(move || {
                for i in 0..calls {
                    let r = hook_with(
                        &cfg,
                        &call(&format!("w{w}"), &format!("rm -rf / # {w} {i} {filler}")),
                        &db,
                    );
                    assert_eq!(verdict("claude", &r), "deny", "{r:?}");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let mut ids = Vec::new();
    for n in (0..=50).rev() {
        let p = if n == 0 {
            out.clone()
        } else {
            export::sink::suffixed(&out, &n.to_string())
        };
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        for l in text.lines() {
            let (_, ext) = parse_cef(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            let id = ext
                .iter()
                .find(|(k, _)| k == "externalId")
                .unwrap()
                .1
                .parse::<i64>()
                .unwrap();
            ids.push(id);
        }
    }
    assert!(export::sink::suffixed(&out, "1").exists(), "it rotated");
    ids.sort();
    // Every decision the audit holds, once and whole. A call that failed closed (the database
    // busy past its budget on a loaded machine) is denied without an audit row, and so without
    // an export line: the export is compared with the audit, not with the number of calls.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mut st = conn
        .prepare("SELECT id FROM decisions ORDER BY id")
        .unwrap();
    let audited: Vec<i64> = st
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(ids, audited, "every decision once, whole");
    assert!(
        audited.len() * 10 >= workers * calls * 9,
        "most calls recorded: {} of {}",
        audited.len(),
        workers * calls
    );
}

#[test]
fn an_unwritable_sink_never_changes_the_decision() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let target = tmp.path().join("target.txt");
    std::fs::write(&target, "keep me\n").unwrap();
    let link = tmp.path().join("link.jsonl");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let ro = tmp.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let cases = [
        ("parent is a file", file.join("out.jsonl")),
        ("a directory", tmp.path().to_path_buf()),
        ("a symbolic link", link.clone()),
        ("a character device (full disk)", "/dev/full".into()),
        ("a read-only folder", ro.join("out.jsonl")),
        ("a missing folder", tmp.path().join("no/such/dir/out.jsonl")),
    ];
    for (what, path) in cases {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("s.db");
        let cfg = sink_config(dir.path(), &path, "jsonl", "1MB", 1);
        let deny = hook_with(&cfg, &call("s", "rm -rf /"), &db);
        assert_eq!(verdict("claude", &deny), "deny", "{what}: {deny:?}");
        assert!(
            deny.stdout.contains("destroy"),
            "{what}: the policy's reason, {deny:?}"
        );
        let allow = hook_with(&cfg, &call("s", "ls -la"), &db);
        assert_eq!(allow.code, 0, "{what}: {allow:?}");
        assert_eq!(verdict("claude", &allow), "none", "{what}");
        // Both decisions are in the audit, with their receipts.
        let v = run(&["audit", "verify", "--json"], b"", &db);
        assert!(v.stdout.contains("\"chained\":2"), "{what}: {v:?}");
        if what != "a read-only folder" {
            // (root writes into a read-only folder anyway)
            let log = std::fs::read_to_string(dir.path().join("errors.log")).unwrap_or_default();
            assert!(log.contains("export:"), "{what}: the drop is noted: {log}");
        }
    }
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "keep me\n",
        "a link is not followed"
    );
    assert!(!tmp.path().join("no").exists());
}
