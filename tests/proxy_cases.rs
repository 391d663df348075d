//! The `mcp.*` cases of ../shared/cases/public-reports.jsonl through the real proxy, each with
//! its expected outcome: deny = quarantined and refused, ask = the changed launch pin is
//! reported, allow = relayed. Skips, with a message, when the file or python3 is missing.

mod mcp_common;

use mcp_common::{python, refused, skip, write_catalog, Client};
use serde_json::{json, Value};
use std::path::Path;

fn cases() -> Option<Vec<Value>> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/cases/public-reports.jsonl");
    let Ok(text) = std::fs::read_to_string(&p) else {
        skip(&format!("{} not found", p.display()));
        return None;
    };
    Some(
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|c| {
                c["harness_event"]
                    .as_str()
                    .is_some_and(|e| e.starts_with("mcp."))
            })
            .collect(),
    )
}

fn split(tool_name: &str) -> (String, String) {
    match tool_name.split_once(':') {
        Some((s, t)) => (s.to_string(), t.to_string()),
        None => (tool_name.to_string(), String::new()),
    }
}

fn server_cmd(cat: &Path, extra: &str) -> Vec<String> {
    vec![
        "python3".into(),
        mcp_common::server_script().display().to_string(),
        cat.display().to_string(),
        extra.to_string(),
    ]
}

/// Runs one case; returns the observed outcome (allow, ask or deny).
fn run_case(c: &Value) -> String {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let cat = dir.path().join("cat.json");
    let (server, tool) = split(c["tool_name"].as_str().unwrap_or(""));
    let input = &c["tool_input"];
    match c["harness_event"].as_str().unwrap_or("") {
        "mcp.tools/list" => {
            let mut t = input.clone();
            let prev = t
                .as_object_mut()
                .and_then(|m| m.remove("previously_approved_description"));
            if let Some(p) = prev {
                let mut old = t.clone();
                old["description"] = p;
                write_catalog(&cat, json!([old]));
                let mut cl = Client::start(&db, &server, &cat);
                cl.init();
                assert_eq!(
                    cl.tool_names(1),
                    vec![tool.clone()],
                    "approved version listed"
                );
                cl.finish();
            }
            write_catalog(&cat, json!([t]));
            let mut cl = Client::start(&db, &server, &cat);
            cl.init();
            let listed = cl.tool_names(1).contains(&tool);
            let r = cl.call(2, &tool, json!({}));
            cl.finish();
            if listed {
                assert!(r.get("result").is_some(), "{r}");
                "allow".into()
            } else {
                refused(&r);
                "deny".into()
            }
        }
        "mcp.initialize" => {
            // Each side of the case: its package on the command line, its serverInfo version
            // reported by the server.
            let side = |k: &str| {
                std::fs::write(
                    &cat,
                    json!({
                        "server_version": input[k]["serverInfo"]["version"].as_str().unwrap_or("0"),
                        "tools": [{"name": "send_email", "description": "Sends an email.", "inputSchema": {"type": "object"}}],
                    })
                    .to_string(),
                )
                .unwrap();
                let pkg = input[k]["package"].as_str().unwrap_or("").to_string();
                let mut cl = Client::start_cmd(&db, &server, &server_cmd(&cat, &pkg));
                cl.init();
                let listed = cl.tool_names(1);
                let (_, err) = cl.finish();
                (listed, err)
            };
            let (_, err) = side("previous");
            assert!(!err.contains("launch changed"), "{err}");
            let (listed, err) = side("current");
            if err.contains("launch changed") {
                assert_eq!(listed, ["send_email"], "tools unchanged stay listed");
                "ask".into()
            } else {
                "allow".into()
            }
        }
        "mcp.tools/call" => {
            write_catalog(
                &cat,
                json!([{"name": tool, "description": "Sends an email.", "inputSchema": {"type": "object"}}]),
            );
            let mut cl = Client::start(&db, &server, &cat);
            cl.init();
            cl.tool_names(1);
            let r = cl.call(2, &tool, input.clone());
            cl.finish();
            if r.get("result").is_some() {
                assert_eq!(r["result"]["structuredContent"]["arguments"], *input);
                "allow".into()
            } else {
                refused(&r);
                "deny".into()
            }
        }
        other => panic!("no runner for {other}"),
    }
}

#[test]
fn public_mcp_cases_through_the_proxy() {
    if python().is_none() {
        return;
    }
    let Some(cases) = cases() else { return };
    assert!(!cases.is_empty());
    let mut failed = Vec::new();
    for c in &cases {
        let id = c["id"].as_str().unwrap_or("?");
        let want = c["expected"].as_str().unwrap_or("");
        let got = run_case(c);
        eprintln!("{id}: expected {want}, got {got}");
        if got != want {
            failed.push(format!("{id}: expected {want}, got {got}"));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
