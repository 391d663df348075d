//! Property tests: no adapter, the shell analyser, the value extractor or the detector panics
//! on any input.

use intentshield::event::Harness;
use intentshield::harness;
use proptest::prelude::*;
use serde_json::{json, Value};

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        ".{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::hash_map(
                prop_oneof![
                    Just("hook_event_name".to_string()),
                    Just("tool_name".to_string()),
                    Just("tool_input".to_string()),
                    Just("tool_response".to_string()),
                    Just("session_id".to_string()),
                    Just("prompt".to_string()),
                    Just("mcp_server".to_string()),
                    Just("mcp_context".to_string()),
                    Just("command".to_string()),
                    Just("result_json".to_string()),
                    ".{0,8}"
                ],
                inner,
                0..8
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arb_event() -> impl Strategy<Value = Value> {
    (
        prop_oneof![
            Just("PreToolUse"),
            Just("PostToolUse"),
            Just("UserPromptSubmit"),
            Just("PostToolUseFailure"),
            Just("BeforeTool"),
            Just("AfterTool"),
            Just("BeforeAgent"),
            Just("preToolUse"),
            Just("beforeMCPExecution"),
            Just("beforeShellExecution"),
            Just("afterMCPExecution"),
            Just("postToolUse"),
            Just("beforeReadFile"),
            Just("beforeSubmitPrompt")
        ],
        prop_oneof![
            Just("Bash".to_string()),
            Just("mcp__a__b".to_string()),
            Just("MCP:x".to_string()),
            Just("mcp_a_b".to_string()),
            Just("apply_patch".to_string()),
            ".{0,12}"
        ],
        arb_json(),
        arb_json(),
    )
        .prop_map(|(e, t, input, resp)| {
            json!({"session_id": "s", "conversation_id": "s", "hook_event_name": e, "tool_name": t,
                   "tool_input": input, "tool_response": resp, "result_json": resp.to_string(),
                   "command": "ls", "file_path": "/x", "prompt": "p"})
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn adapters_never_panic(ev in arb_event(), raw in arb_json()) {
        for h in Harness::ALL {
            if let Ok(e) = harness::parse(h, &ev) {
                let d = intentshield::decision::Decision::error("x");
                let r = harness::render(&e, &d, &Default::default());
                if h == Harness::Cursor { prop_assert!(serde_json::from_str::<Value>(&r.stdout).is_ok()); }
            }
            let _ = harness::parse(h, &raw);
            let _ = harness::sniff(&raw);
        }
    }

    #[test]
    fn shell_analysis_never_panics(cmd in ".{0,200}", words in prop::collection::vec("[a-z$()|&;<>'\"` .*/~-]{0,12}", 0..20)) {
        let a = intentshield::shell::analyze(&cmd);
        let _ = (a.writes(), a.pipe_to_shell(), a.secret_egress(), a.nested_agent_unsafe(), a.is_read_only());
        let a = intentshield::shell::analyze(&words.join(" "));
        let _ = (a.writes(), a.pipe_to_shell(), a.secret_egress(), a.nested_agent_unsafe(), a.is_read_only());
    }

    #[test]
    fn extraction_never_panics_on_address_like_text(
        parts in prop::collection::vec(prop_oneof![
            Just("https://"), Just("http://"), Just("ws://"), Just("www."), Just("@"), Just("mailto:"),
            Just("."), Just("/"), Just("~/"), Just(":"), Just("+1 "), Just(" "), Just("("), Just(")"),
            Just("example"), Just("com"), Just("42"), Just("DE89"), Just("-"), Just("é"),
        ], 0..24)
    ) {
        let text: String = parts.concat();
        let _ = intentshield::provenance::extract(&text);
        let _ = intentshield::shell::analyze(&text);
    }

    #[test]
    fn extraction_and_detection_never_panic(text in "\\PC{0,300}") {
        let _ = intentshield::provenance::extract(&text);
        let _ = intentshield::detect::scan(&text, intentshield::detect::TextKind::ToolOutput);
        let _ = intentshield::detect::scan(&text, intentshield::detect::TextKind::Argument);
    }

    #[test]
    fn full_policy_never_panics(ev in arb_event()) {
        let mut store = intentshield::state::Store::open_in_memory().unwrap();
        for h in ["claude", "codex", "cursor", "gemini"] {
            let _ = intentshield::hook::run(h, &Default::default(), ev.to_string().as_bytes(), Some(&mut store));
        }
    }
}

#[test]
fn pathological_inputs() {
    let deep = "[".repeat(100_000);
    let _ = serde_json::from_str::<Value>(&deep);
    let long = "$(".repeat(50_000);
    let _ = intentshield::shell::analyze(&long);
    let quotes = "'\"`".repeat(50_000);
    let _ = intentshield::shell::analyze(&quotes);
    let _ = intentshield::provenance::extract(&"+1 ".repeat(100_000));
    let _ = intentshield::provenance::extract(&"a@".repeat(100_000));
}
