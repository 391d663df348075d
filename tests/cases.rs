//! Every case in ../shared/cases/public-reports.jsonl and ../shared/cases/reports-2.jsonl with its
//! expected decision. Steps with the
//! same prefix (`name/1`, `name/2`...) are one session, in order, after the case's prompt.
//! Hook events go through the built binary (`check --db`, the hook's own code); `mcp.*` events
//! go through the MCP catalog and the policy check that the proxy uses.

mod common;
use common::*;
use intentshield::catalog;
use intentshield::config::Config;
use intentshield::decision::Verdict;
use intentshield::event::{McpTool, Tool, ToolKind};
use intentshield::paths::PathContext;
use intentshield::policy::{self, Context};
use intentshield::session::SessionView;
use intentshield::state::Store;
use serde_json::{json, Value};
use std::path::Path;

fn hook_event(harness: &str, event: &str, session: &str, case: &Value) -> Value {
    let tool_name = case["tool_name"].as_str().unwrap_or("");
    let input = case["tool_input"].clone();
    match harness {
        "claude" | "codex" => {
            let mut v = json!({
                "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/home/dev/proj",
                "hook_event_name": event, "tool_name": tool_name, "tool_input": input,
                "tool_use_id": "toolu_1", "permission_mode": "default",
            });
            if harness == "codex" {
                v["turn_id"] = json!("turn-1");
                v["model"] = json!("gpt-5-codex");
            }
            if event == "PostToolUse" {
                v["tool_response"] = case["tool_output"].clone();
            }
            v
        }
        "cursor" => {
            let mut v = json!({
                "conversation_id": session, "generation_id": "g1", "session_id": session,
                "hook_event_name": event, "cursor_version": "2.3.14",
                "workspace_roots": ["/home/dev/proj"],
            });
            if event == "beforeShellExecution" {
                v["command"] = input["command"].clone();
                v["cwd"] = input.get("cwd").cloned().unwrap_or(json!("/home/dev/proj"));
            } else {
                v["tool_name"] = json!(tool_name);
                v["tool_input"] = input;
            }
            v
        }
        "gemini" => {
            let mut v = json!({
                "session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/home/dev/proj",
                "hook_event_name": event, "timestamp": "2026-11-30T00:19:27.777Z",
                "tool_name": tool_name, "tool_input": input,
            });
            if event == "AfterTool" {
                let out = &case["tool_output"];
                let text = out
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| out.to_string());
                v["tool_response"] = json!({"llmContent": text, "returnDisplay": text});
            }
            v
        }
        h => panic!("unknown harness {h}"),
    }
}

fn prompt_event(harness: &str, session: &str, prompt: &str) -> Value {
    match harness {
        "cursor" => {
            json!({"conversation_id": session, "session_id": session, "hook_event_name": "beforeSubmitPrompt", "cursor_version": "2.3.14", "prompt": prompt})
        }
        "gemini" => {
            json!({"session_id": session, "cwd": "/home/dev/proj", "hook_event_name": "BeforeAgent", "timestamp": "2026-11-30T00:15:30.858Z", "prompt": prompt})
        }
        "codex" => {
            json!({"session_id": session, "turn_id": "turn-1", "cwd": "/home/dev/proj", "hook_event_name": "UserPromptSubmit", "model": "m", "prompt": prompt})
        }
        _ => {
            json!({"session_id": session, "cwd": "/home/dev/proj", "hook_event_name": "UserPromptSubmit", "prompt": prompt})
        }
    }
}

fn check(harness: &str, ev: &Value, db: &Path) -> Value {
    let r = run(
        &[
            "check",
            "--json",
            "--harness",
            harness,
            "--db",
            db.to_str().unwrap(),
            "-",
        ],
        ev.to_string().as_bytes(),
        db,
    );
    serde_json::from_str(r.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {r:?}"))
}

fn mcp_step(db: &Path, event: &str, case: &Value) -> Verdict {
    let store = Store::open(db).unwrap();
    let tool_name = case["tool_name"].as_str().unwrap_or("");
    let server = tool_name.split(':').next().unwrap();
    let input = &case["tool_input"];
    match event {
        "mcp.tools/list" => {
            let mut tool = input.clone();
            if let Some(old) = input.get("previously_approved_description") {
                // The version the user approved first, then the changed one.
                let mut first = input.clone();
                first["description"] = old.clone();
                first
                    .as_object_mut()
                    .unwrap()
                    .remove("previously_approved_description");
                catalog::record_tools(&store, server, &[first]).unwrap();
                tool.as_object_mut()
                    .unwrap()
                    .remove("previously_approved_description");
            }
            let v = catalog::record_tools(&store, server, &[tool]).unwrap();
            v[0].verdict
        }
        "mcp.initialize" => {
            let launch = |x: &Value| {
                format!(
                    "{} {}",
                    x["package"].as_str().unwrap_or(""),
                    x["artifact_sha256"].as_str().unwrap_or("")
                )
            };
            catalog::check_launch(&store, server, &launch(&input["previous"])).unwrap();
            catalog::check_launch(&store, server, &launch(&input["current"]))
                .unwrap()
                .0
        }
        "mcp.tools/call" => {
            let tool = tool_name.split(':').nth(1).unwrap();
            if store.catalog_tool(server, tool).unwrap().is_none() {
                catalog::record_tools(&store, server, &[json!({"name": tool, "description": "Send an email.", "inputSchema": {"type": "object"}})]).unwrap();
            }
            // The proxy's own decision: the shared policy over the catalog, which is complete
            // in the proxy (a tool never listed is refused).
            let call = Tool::new(
                tool,
                ToolKind::Mcp,
                Some(McpTool {
                    server: server.into(),
                    tool: tool.into(),
                }),
                case["tool_input"]
                    .get("arguments")
                    .cloned()
                    .unwrap_or(json!({})),
            );
            let view = SessionView {
                catalog: store.catalog_tool(server, tool).unwrap(),
                catalog_complete: true,
                ..SessionView::default()
            };
            let config = Config::default();
            let ctx = Context {
                config: &config,
                paths: PathContext::new(None, Vec::new()),
                can_rewrite: true,
                pause: None,
            };
            policy::pre_tool(&call, None, &view, &ctx).decision.verdict
        }
        e => panic!("unknown mcp event {e}"),
    }
}

#[test]
fn public_report_cases() {
    run_cases("cases/public-reports.jsonl", 20);
}

/// The second set of reduced public reports: run-time decoded commands, quoting tricks, git's
/// read verbs that run code, secrets through env dumps and groups, and the false positives of
/// the same kinds.
#[test]
fn reports_2_cases() {
    run_cases("cases/reports-2.jsonl", 20);
}

/// Cases whose expected decision rests on work another open issue owns, with the issue: each
/// must still miss (so that the list is kept true) and is printed, not failed.
const PENDING: &[(&str, &str)] = &[];

/// Runs every case of one file (relative to ../shared) and requires each expected decision;
/// `at_least` guards against a file that shrank or failed to parse.
fn run_cases(rel: &str, at_least: usize) {
    let Some(path) = shared(rel) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let mut failures = Vec::new();
    let mut prompted = std::collections::HashSet::new();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap();
        let prefix = id.split('/').next().unwrap();
        let db = tmp.path().join(format!("{prefix}.db"));
        let expected = case["expected"].as_str().unwrap();
        let he = case["harness_event"].as_str().unwrap();
        let (harness, event) = he.split_once('.').unwrap();
        let got = if harness == "mcp" {
            mcp_step(&db, he, &case).name().to_string()
        } else {
            if prompted.insert(prefix.to_string()) {
                let p = prompt_event(harness, prefix, case["prompt"].as_str().unwrap_or(""));
                check(harness, &p, &db);
            }
            let ev = hook_event(harness, event, prefix, &case);
            let out = check(harness, &ev, &db);
            format!(
                "{} ({}: {})",
                out["decision"].as_str().unwrap(),
                out["reason"].as_str().unwrap(),
                out["message"].as_str().unwrap()
            )
        };
        n += 1;
        eprintln!("{id}: {got}");
        let pending = PENDING.iter().find(|(p, _)| *p == id);
        match (got.starts_with(expected), pending) {
            (false, None) => failures.push(format!("{id}: expected {expected}, got {got}")),
            (false, Some((_, why))) => eprintln!("pending {id}: {why}"),
            (true, Some(_)) => failures.push(format!("{id}: passes now; remove it from PENDING")),
            (true, None) => {}
        }
    }
    assert!(n >= at_least);
    assert!(
        failures.is_empty(),
        "{} of {n} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
