//! Every recorded fixture in `tests/fixtures/<harness>/` (copied from the real samples in
//! `../shared/live-harness/samples/`; Cursor's written from hook-protocols.md §3.2) through its
//! harness module: the neutral event it parses into, and the answer each verdict renders to.
//! The expected values are insta snapshots in `tests/snapshots/` (one per harness for the
//! events, one per harness and verdict for the answers); review a change with
//! `cargo insta review`.

use intentshield::decision::{Decision, Reason, Verdict};
use intentshield::event::{Event, EventKind, Harness, ToolKind};
use intentshield::harness::{self, AskMode, RenderOptions, Rendered};
use serde_json::{json, Map, Value};
use std::path::PathBuf;

/// The fixtures of one harness, sorted by file name: (file stem, raw event).
fn fixtures(h: Harness) -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(h.name());
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).unwrap();
            let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{stem}: {e}"));
            (stem, v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(out.len() >= 6, "{h:?}: only {} fixtures", out.len());
    out
}

fn parse(h: Harness, name: &str, raw: &Value) -> Event {
    harness::parse(h, raw).unwrap_or_else(|e| panic!("{h:?} {name}: {e}"))
}

/// The neutral event as JSON, for the snapshot.
fn neutral(ev: &Event) -> Value {
    let tool = ev.tool.as_ref().map(|t| {
        json!({
            "name": t.name,
            "kind": t.kind.name(),
            "display_name": t.display_name(),
            "mcp": t.mcp.as_ref().map(|m| json!({"server": m.server, "tool": m.tool})),
            "input": t.input,
            "command": t.command,
            "read_paths": t.read_paths,
            "write_paths": t.write_paths,
            "patch": t.patch,
        })
    });
    json!({
        "harness": ev.harness.name(),
        "kind": ev.kind.name(),
        "event_name": ev.event_name,
        "session_id": ev.session_id,
        "cwd": ev.cwd,
        "prompt": ev.prompt,
        "tool": tool,
        "output": ev.output,
        "output_is_error": ev.output_is_error,
    })
}

fn events_snapshot(h: Harness) {
    let mut all = Map::new();
    for (name, raw) in fixtures(h) {
        let ev = parse(h, &name, &raw);
        assert_eq!(ev.harness, h, "{name}");
        assert_eq!(
            ev.event_name,
            raw["hook_event_name"].as_str().unwrap(),
            "{name}"
        );
        // The table decides the kind; a name it lacks is Other.
        assert_eq!(
            ev.kind,
            h.spec().kind(&ev.event_name).unwrap_or(EventKind::Other),
            "{name}"
        );
        if let Some(t) = &ev.tool {
            assert_eq!(t.command.is_some(), t.kind == ToolKind::Shell, "{name}");
            if t.kind == ToolKind::Mcp {
                assert_eq!(t.mcp.as_ref().unwrap().tool, "echo", "{name}");
            }
        }
        all.insert(name, neutral(&ev));
    }
    insta::assert_json_snapshot!(format!("events_{}", h.name()), Value::Object(all));
}

#[test]
fn claude_fixtures_parse() {
    events_snapshot(Harness::Claude);
}

#[test]
fn codex_fixtures_parse() {
    events_snapshot(Harness::Codex);
}

#[test]
fn cursor_fixtures_parse() {
    events_snapshot(Harness::Cursor);
}

#[test]
fn gemini_fixtures_parse() {
    events_snapshot(Harness::Gemini);
}

/// The rendered answer as JSON: stdout parsed when it is JSON.
fn answer(r: &Rendered) -> Value {
    let stdout = if r.stdout.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&r.stdout).unwrap_or_else(|_| Value::String(r.stdout.clone()))
    };
    json!({"stdout": stdout, "stderr": r.stderr, "exit_code": r.exit_code})
}

fn decision(verdict: &str) -> Decision {
    match verdict {
        "allow" => Decision::allow(),
        "ask" => {
            let mut d = Decision::new(
                Verdict::Ask,
                Reason::SecretEgress,
                "Bash sends a secret ($GITHUB_TOKEN) to the network",
            )
            .rule("shell.secret_variable_egress");
            d.audit_id = Some(42);
            d
        }
        "deny" => Decision::new(
            Verdict::Deny,
            Reason::PipeToShell,
            "Bash pipes a download into an interpreter (curl | sh)",
        )
        .rule("shell.pipe_to_shell"),
        "rewrite" => {
            let mut d = Decision::new(
                Verdict::Allow,
                Reason::SelfDisclosureRewritten,
                "echo asked for the agent's system_prompt; sent empty",
            )
            .rule("self_disclosure.fields");
            d.updated_input = Some(json!({"text": "hello from fake model", "system_prompt": ""}));
            d
        }
        other => unreachable!("{other}"),
    }
}

/// One snapshot per harness and verdict: the answer to every fixture of that harness.
fn render_snapshot(h: Harness, verdict: &str, opts: &RenderOptions) -> Value {
    let mut all = Map::new();
    for (name, raw) in fixtures(h) {
        let r = if verdict == "error" {
            harness::render_error(h, raw["hook_event_name"].as_str(), "database is locked")
        } else {
            let ev = parse(h, &name, &raw);
            harness::render(&ev, &decision(verdict), opts)
        };
        if h.spec().always_json {
            assert!(
                serde_json::from_str::<Value>(&r.stdout).is_ok_and(|v| v.is_object()),
                "{h:?} {name} {verdict}: {r:?}"
            );
        }
        all.insert(name, answer(&r));
    }
    Value::Object(all)
}

macro_rules! render_tests {
    ($($test:ident: $h:expr, $verdict:literal;)*) => {$(
        #[test]
        fn $test() {
            let v = render_snapshot($h, $verdict, &RenderOptions::default());
            insta::assert_json_snapshot!(
                format!("render_{}_{}", $h.name(), $verdict),
                v
            );
        }
    )*};
}

render_tests! {
    claude_allow: Harness::Claude, "allow";
    claude_ask: Harness::Claude, "ask";
    claude_deny: Harness::Claude, "deny";
    claude_rewrite: Harness::Claude, "rewrite";
    claude_error: Harness::Claude, "error";
    codex_allow: Harness::Codex, "allow";
    codex_ask: Harness::Codex, "ask";
    codex_deny: Harness::Codex, "deny";
    codex_rewrite: Harness::Codex, "rewrite";
    codex_error: Harness::Codex, "error";
    cursor_allow: Harness::Cursor, "allow";
    cursor_ask: Harness::Cursor, "ask";
    cursor_deny: Harness::Cursor, "deny";
    cursor_rewrite: Harness::Cursor, "rewrite";
    cursor_error: Harness::Cursor, "error";
    gemini_allow: Harness::Gemini, "allow";
    gemini_ask: Harness::Gemini, "ask";
    gemini_deny: Harness::Gemini, "deny";
    gemini_rewrite: Harness::Gemini, "rewrite";
    gemini_error: Harness::Gemini, "error";
}

#[test]
fn gemini_ask_when_asked_for() {
    let opts = RenderOptions {
        gemini_ask: AskMode::Ask,
    };
    let v = render_snapshot(Harness::Gemini, "ask", &opts);
    insta::assert_json_snapshot!("render_gemini_ask_interactive", v);
}

/// What the harness reads back from each rendered pre-tool answer agrees with the verdict.
#[test]
fn answers_read_back() {
    for h in Harness::ALL {
        for (name, raw) in fixtures(h) {
            let ev = parse(h, &name, &raw);
            if ev.kind != EventKind::PreTool {
                continue;
            }
            let r = harness::render(&ev, &decision("deny"), &RenderOptions::default());
            let a = harness::probe::read_answer(h, Some(r.exit_code), &r.stdout, &r.stderr);
            assert_eq!(a.word(), "deny", "{h:?} {name}: {r:?}");
            let r = harness::render(&ev, &Decision::allow(), &RenderOptions::default());
            let a = harness::probe::read_answer(h, Some(r.exit_code), &r.stdout, &r.stderr);
            assert_eq!(a.word(), "no objection", "{h:?} {name}: {r:?}");
        }
    }
}
