//! Round trips of install/uninstall on realistic settings files, through the library API
//! (pure text in, text out; file handling in tests/install_cli.rs).

use intentshield::event::Harness;
use intentshield::install::json::{self, handler_is_ours};
use intentshield::install::spec::{self, Layout};
use intentshield::install::{install_text, uninstall_text};
use proptest::prelude::*;
use serde_json::{Map, Value};
use std::path::Path;

const LINE: &str = "/opt/intentshield/bin/intentshield hook claude";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/install/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn line(h: Harness) -> String {
    format!("/opt/intentshield/bin/intentshield hook {}", h.name())
}

fn ours_per_event(h: Harness, text: &str) -> Vec<(String, usize)> {
    let spec = spec::load(h).unwrap();
    let doc = json::parse(Path::new("x"), text).unwrap();
    spec.events
        .iter()
        .map(|e| {
            let list = doc["hooks"][&e.name]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let n = match spec.layout {
                Layout::Flat => list.iter().filter(|x| handler_is_ours(x)).count(),
                Layout::Grouped => list
                    .iter()
                    .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
                    .filter(handler_is_ours)
                    .count(),
            };
            (e.name.clone(), n)
        })
        .collect()
}

/// install; install again (no change); uninstall with the backup install would leave
/// (byte-for-byte original) and without it (same document, same key order).
fn round_trip(h: Harness, original: Option<&str>) -> String {
    let spec = spec::load(h).unwrap();
    let p = Path::new("settings.json");
    let l = line(h);
    let installed = install_text(&spec, p, &l, original).unwrap();
    for (ev, n) in ours_per_event(h, &installed) {
        assert_eq!(n, 1, "{h:?}: exactly one entry of ours on {ev}");
    }
    assert_eq!(
        install_text(&spec, p, &l, Some(&installed)).unwrap(),
        installed,
        "idempotent"
    );
    let back = uninstall_text(&spec, p, Some(&installed), original).unwrap();
    assert_eq!(
        back.as_deref(),
        original,
        "{h:?}: uninstall restores the original bytes"
    );
    // Without a backup: structurally the original, keys in the same order.
    let structural = uninstall_text(&spec, p, Some(&installed), None).unwrap();
    match original {
        None => assert_eq!(structural, None, "a file we created is removed again"),
        Some(o) if structural.is_none() => {
            // Without a backup, a document holding nothing else is taken for one we created.
            let mut d = json::parse(p, o).unwrap();
            if d.get("hooks") == Some(&Value::Object(Map::new())) {
                d.shift_remove("hooks");
            }
            assert!(json::is_trivial(spec.layout, &d));
        }
        Some(o) => {
            let a = json::canonical(&json::parse(p, o).unwrap());
            let b = json::canonical(&json::parse(p, structural.as_deref().unwrap()).unwrap());
            assert_eq!(a, b);
        }
    }
    installed
}

#[test]
fn claude_realistic_settings_keep_everything_else() {
    let orig = fixture("claude-settings.json");
    let out = round_trip(Harness::Claude, Some(&orig));
    // Other hooks still there, first; our entry appended; same indentation; unicode raw.
    assert!(out.contains("check-style.sh"));
    assert!(out.contains("notify-send"));
    assert!(out.contains("Grüß Gott — こんにちは 👋"));
    assert!(out.starts_with("{\n  \"$schema\""));
    assert!(out.ends_with("}\n"));
    let doc: Value = serde_json::from_str(&out).unwrap();
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "$schema",
            "permissions",
            "env",
            "hooks",
            "model",
            "statusLine",
            "includeCoAuthoredBy"
        ]
    );
    let pre = doc["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2);
    assert_eq!(pre[0]["matcher"], "Bash");
    assert_eq!(pre[1]["matcher"], "*");
    assert_eq!(pre[1]["hooks"][0]["onFailure"], "block");
    assert_eq!(pre[1]["hooks"][0]["timeout"], 30);
    let hook_keys: Vec<&str> = doc["hooks"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(&hook_keys[..2], ["PreToolUse", "Notification"]);
}

#[test]
fn tabs_escapes_and_no_final_newline_survive() {
    let orig = fixture("claude-tabs-no-newline.json");
    let out = round_trip(Harness::Claude, Some(&orig));
    assert!(out.starts_with("{\n\t\"zeta\": 1,"));
    assert!(!out.ends_with('\n'));
}

#[test]
fn gemini_timeouts_are_milliseconds_and_names_set() {
    let out = round_trip(Harness::Gemini, Some(&fixture("gemini-settings.json")));
    let doc: Value = serde_json::from_str(&out).unwrap();
    let bt = doc["hooks"]["BeforeTool"].as_array().unwrap();
    assert_eq!(bt[0]["hooks"][0]["name"], "prettier-check");
    let ours = &bt[1]["hooks"][0];
    assert_eq!(ours["name"], "intentshield");
    assert!(ours["timeout"].as_i64().unwrap() >= 1000, "milliseconds");
    assert!(
        ours.get("onFailure").is_none(),
        "Gemini has no fail-closed switch"
    );
    assert_eq!(doc["mcpServers"]["github"]["timeout"], 30000);
    assert!(out.contains("Dracula — ünïcödé"));
}

#[test]
fn codex_hooks_json_has_no_unknown_root_keys() {
    let out = round_trip(Harness::Codex, Some(&fixture("codex-hooks.json")));
    let doc: Value = serde_json::from_str(&out).unwrap();
    for k in doc.as_object().unwrap().keys() {
        assert!(k == "hooks" || k == "description", "unknown root key {k}");
    }
    let created = round_trip(Harness::Codex, None);
    let doc: Value = serde_json::from_str(&created).unwrap();
    assert_eq!(
        doc.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["hooks"]
    );
    assert_eq!(doc["hooks"]["PreToolUse"][0]["matcher"], ".*");
}

#[test]
fn cursor_flat_lists_version_and_fail_closed() {
    let out = round_trip(Harness::Cursor, Some(&fixture("cursor-hooks.json")));
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["version"], 1);
    let shell = doc["hooks"]["beforeShellExecution"].as_array().unwrap();
    assert_eq!(shell[0]["command"], "/usr/local/bin/audit-shell");
    assert_eq!(shell[1]["failClosed"], true);
    assert!(shell[1].get("hooks").is_none(), "flat, not grouped");
    assert!(doc["hooks"]["postToolUse"][0].get("failClosed").is_none());
    let created = round_trip(Harness::Cursor, None);
    assert!(created.starts_with("{\n  \"version\": 1,"));
}

#[test]
fn every_harness_creates_and_removes_a_missing_file() {
    for h in Harness::ALL {
        round_trip(h, None);
        round_trip(h, Some(""));
        round_trip(h, Some("{}\n"));
        round_trip(h, Some("{\"hooks\":{}}"));
    }
}

#[test]
fn a_stale_path_is_replaced_in_place_not_duplicated() {
    let spec = spec::load(Harness::Claude).unwrap();
    let p = Path::new("s.json");
    let old = install_text(
        &spec,
        p,
        "/old/place/intentshield hook claude",
        Some(&fixture("claude-settings.json")),
    )
    .unwrap();
    let new = install_text(&spec, p, LINE, Some(&old)).unwrap();
    assert!(!new.contains("/old/place/"));
    for (_, n) in ours_per_event(Harness::Claude, &new) {
        assert_eq!(n, 1);
    }
    let doc: Value = serde_json::from_str(&new).unwrap();
    assert_eq!(
        doc["hooks"]["PreToolUse"][0]["matcher"], "Bash",
        "others keep their place"
    );
}

#[test]
fn our_handler_sharing_a_group_with_another_is_split_out_and_the_other_kept() {
    let spec = spec::load(Harness::Claude).unwrap();
    let p = Path::new("s.json");
    let text = r#"{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/a/guard"},{"type":"command","command":"/old/intentshield hook claude"}]}]}}"#;
    let out = install_text(&spec, p, LINE, Some(text)).unwrap();
    let doc: Value = serde_json::from_str(&out).unwrap();
    let pre = doc["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre[0]["hooks"].as_array().unwrap().len(), 1);
    assert_eq!(pre[0]["hooks"][0]["command"], "/a/guard");
    let back = uninstall_text(&spec, p, Some(&out), None).unwrap().unwrap();
    let doc: Value = serde_json::from_str(&back).unwrap();
    assert_eq!(
        doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "/a/guard"
    );
    assert_eq!(doc["hooks"].as_object().unwrap().len(), 1);
}

#[test]
fn malformed_files_give_file_line_and_column() {
    let spec = spec::load(Harness::Claude).unwrap();
    let p = Path::new("/home/u/.claude/settings.json");
    let e = install_text(&spec, p, LINE, Some(&fixture("broken.json"))).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.starts_with("/home/u/.claude/settings.json: 3:"),
        "{msg}"
    );
    for bad in [
        "[1,2]",
        "\"x\"",
        r#"{"hooks": []}"#,
        r#"{"hooks": {"PreToolUse": {}}}"#,
    ] {
        let e = install_text(&spec, p, LINE, Some(bad)).unwrap_err();
        assert!(e.to_string().contains("settings.json"), "{e}");
    }
    // Deep nesting is an error, not a stack overflow.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(install_text(&spec, p, LINE, Some(&deep)).is_err());
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "[a-zA-Z0-9 éü—\\-\"\\\\]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z]{1,6}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn any_settings_round_trip(
        extra in prop::collection::vec(("[a-zA-Z]{1,8}", arb_json()), 0..5),
        other_hooks in prop::collection::vec(("[A-Z][a-z]{2,8}", "[a-z/]{1,10}"), 0..4),
        indent in prop_oneof![Just("  "), Just("    "), Just("\t"), Just(" ")],
        newline in any::<bool>(),
        h in prop_oneof![Just(Harness::Claude), Just(Harness::Codex), Just(Harness::Cursor), Just(Harness::Gemini)],
    ) {
        let spec = spec::load(h).unwrap();
        let mut doc: Map<String, Value> = extra.into_iter().filter(|(k, _)| k != "hooks" && k != "version").collect();
        if h == Harness::Cursor { doc.shift_insert(0, "version".into(), Value::from(1)); }
        let mut hooks = Map::new();
        for (ev, cmd) in other_hooks {
            let entry = if h == Harness::Cursor {
                serde_json::json!({"command": cmd})
            } else {
                serde_json::json!({"hooks": [{"type": "command", "command": cmd}]})
            };
            hooks.insert(ev, Value::Array(vec![entry]));
        }
        if !hooks.is_empty() { doc.insert("hooks".into(), Value::Object(hooks)); }
        let style = json::Style { indent: Some(indent.to_string()), trailing_newline: newline, crlf: false };
        let text = json::render(&doc, &style);
        let p = Path::new("s.json");
        let l = line(h);
        let installed = install_text(&spec, p, &l, Some(&text)).unwrap();
        prop_assert_eq!(install_text(&spec, p, &l, Some(&installed)).unwrap(), installed.clone());
        prop_assert_eq!(uninstall_text(&spec, p, Some(&installed), Some(&text)).unwrap(), Some(text.clone()));
        let structural = uninstall_text(&spec, p, Some(&installed), Some("{\"someone-else\": 1}")).unwrap().unwrap();
        prop_assert_eq!(structural, text);
    }
}
