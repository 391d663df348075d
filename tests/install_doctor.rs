//! `intentshield doctor` against installs in a temporary HOME: all good, broken entries, the
//! fail-closed switch, and "configured but never run" from the audit.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_intentshield");

fn run(home: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin")
        .env("INTENTSHIELD_DB", home.join("state/intentshield.db"))
        .current_dir(home)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_fresh_install_passes_the_canaries_and_says_it_has_not_run_yet() {
    let home = tempfile::tempdir().unwrap();
    assert!(run(home.path(), &["install", "claude"]).status.success());
    assert!(run(home.path(), &["install", "gemini"]).status.success());
    let o = run(home.path(), &["doctor"]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("ok    canary allow"), "{t}");
    assert!(t.contains("ok    canary deny"), "{t}");
    assert!(t.contains("fail-closed: onFailure = \"block\""), "{t}");
    assert!(t.contains("no decision from Gemini CLI yet"), "{t}");
    // Not seen running yet is a warning, never "to fix" as if something failed.
    let last = t.lines().last().unwrap();
    assert!(
        last.starts_with("doctor: all good, with warnings (not failures):"),
        "{t}"
    );
    assert!(!t.contains("to fix"), "{t}");
    // The database the hook will create is not created by doctor.
    assert!(!home.path().join("state").exists(), "{t}");
    assert!(t.contains("no database yet at"), "{t}");
    assert!(!t.contains("is writable\n"), "{t}");

    // One event through the installed command line, as the harness would run it.
    let settings = fs::read_to_string(home.path().join(".claude/settings.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&settings).unwrap();
    let line = v["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let mut child = Command::new("/bin/sh")
        .args(["-c", &line])
        .env("INTENTSHIELD_DB", home.path().join("state/intentshield.db"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"session_id":"s1","transcript_path":"/dev/null","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/tmp/README.md"},"tool_use_id":"t1"}"#)
        .unwrap();
    child.wait().unwrap();
    assert!(run(home.path(), &["install", "gemini"]).status.success());
    let t = text(&run(home.path(), &["doctor", "claude"]));
    assert!(t.contains("last decision recorded"), "{t}");
    assert!(t.ends_with("doctor: all good\n"), "{t}");
}

#[test]
fn broken_entries_are_reported_with_what_to_fix() {
    let home = tempfile::tempdir().unwrap();
    let p = home.path().join(".claude/settings.json");
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(
        &p,
        r#"{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/gone/intentshield hook claude","timeout":30,"onFailure":"Block"}]}]}}"#,
    )
    .unwrap();
    let o = run(home.path(), &["doctor"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    assert!(t.contains("FAIL  not hooked on: PostToolUse"), "{t}");
    assert!(
        t.contains("FAIL  the hook's program is missing or not executable: /gone/intentshield"),
        "{t}"
    );
    assert!(
        t.contains("FAIL  onFailure is not \"block\" on: PreToolUse"),
        "{t}"
    );
    // One cause and one fix for the missing program: no canary guesses, no "not seen running".
    assert!(t.contains("canaries not run"), "{t}");
    assert!(!t.contains("canary deny"), "{t}");
    assert!(!t.contains("start the harness"), "{t}");
    assert!(t.contains("run `intentshield install claude`"), "{t}");
    let g = home.path().join(".gemini/settings.json");
    fs::create_dir_all(g.parent().unwrap()).unwrap();
    fs::write(&g, "{\"hooks\": {\n  \"BeforeTool\": [,]\n}}\n").unwrap();
    let t = text(&run(home.path(), &["doctor", "gemini"]));
    assert!(t.contains(&format!("{}: 2:", g.display())), "{t}");
}

#[test]
fn nothing_installed_says_so() {
    let home = tempfile::tempdir().unwrap();
    let o = run(home.path(), &["doctor"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).contains("doctor: to fix: run `intentshield install"),
        "{}",
        text(&o)
    );
}
