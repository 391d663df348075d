//! Helpers shared by the integration tests: run the built binary, find `../shared`.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[path = "../skip/mod.rs"]
#[allow(clippy::duplicate_mod)] // also included by the other helper modules
mod skip_log;
pub use skip_log::skip;

/// The built binary.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_intentshield")
}

/// `../shared/<rel>` from the crate root, or `None` (with a message) when absent.
pub fn shared(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        skip(&format!(
            "{} is absent (the team's shared folder beside the checkout)",
            p.display()
        ));
        None
    }
}

/// The items of the labelled corpora in `../shared/corpora` (every `*.jsonl` file, files in
/// name order, lines in order; lines that are not JSON are left out), each with its file's stem;
/// `None` (with a skip message) when the folder is absent.
pub fn corpus_items() -> Option<Vec<(String, serde_json::Value)>> {
    let dir = shared("corpora")?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for p in files {
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        for line in std::fs::read_to_string(&p).unwrap().lines() {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
                out.push((stem.clone(), v));
            }
        }
    }
    Some(out)
}

/// What one hook run printed.
#[derive(Debug)]
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// Runs `intentshield <args>` with `input` on stdin and the database at `db`.
pub fn run(args: &[&str], input: &[u8], db: &Path) -> Run {
    run_env(args, input, db, &[])
}

/// [`run`] with these environment variables set as well.
pub fn run_env(args: &[&str], input: &[u8], db: &Path, envs: &[(&str, &str)]) -> Run {
    // An empty config file of the test's own, so the developer's config never leaks in.
    let config = db.with_extension("config.toml");
    if !config.exists() {
        let _ = std::fs::write(&config, "");
    }
    let mut child = Command::new(bin())
        .args(args)
        .env("INTENTSHIELD_DB", db)
        .env_remove("INTENTSHIELD_REVIEW")
        .env_remove("INTENTSHIELD_OUTPUTS")
        .env_remove("INTENTSHIELD_GEMINI_ASK")
        .env("INTENTSHIELD_CONFIG", &config)
        .envs(envs.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn intentshield");
    {
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(input);
    }
    let out = child.wait_with_output().expect("wait");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Runs `intentshield hook <harness>`.
pub fn hook(harness: &str, event: &serde_json::Value, db: &Path) -> Run {
    run(&["hook", harness], event.to_string().as_bytes(), db)
}

/// The verdict a rendered pre-tool answer carries, read the way each harness reads it:
/// "deny", "ask", "allow" (an explicit allow with rewritten input) or "none" (no opinion).
pub fn verdict(harness: &str, r: &Run) -> String {
    if r.code == 2 {
        return "deny".into();
    }
    assert_eq!(r.code, 0, "unexpected exit {r:?}");
    let out = r.stdout.trim();
    if out.is_empty() {
        assert_ne!(harness, "cursor", "Cursor must always get JSON");
        return "none".into();
    }
    let v: serde_json::Value =
        serde_json::from_str(out).unwrap_or_else(|e| panic!("stdout not JSON ({e}): {out}"));
    let h = intentshield::event::Harness::from_name(harness).expect("a harness name");
    intentshield::harness::probe::verdict_word(h, &v).unwrap_or_else(|| "none".into())
}

/// Approves audit row `id` in the database at `db` as a person at a terminal would (the
/// confirmation path of `intentshield approve`, with the right code typed back), for `ttl`
/// seconds. Returns what was shown on stdout.
pub fn approve_as_person(db: &Path, id: i64, ttl: i64) -> Result<String, String> {
    use intentshield::commands::approve;
    let mut store = intentshield::state::Store::open(db).map_err(|e| e.to_string())?;
    let mut tty = approve::ScriptedTerminal::new(approve::shown_code);
    let mut shown = Vec::new();
    let code = approve::random_code().map_err(|e| e.to_string())?;
    let who = intentshield::state::Grantor {
        tty: "/dev/pts/test",
        uid: Some(1000),
    };
    approve::confirm(&mut store, id, ttl, &mut shown, &mut tty, &code, who)?;
    Ok(String::from_utf8_lossy(&shown).into_owned())
}

/// The harness's session-start event (a new conversation) for `session`: what makes the
/// database see a session from its start, so that it is a clean session. A session whose
/// first event the database sees is anything else is tainted (a new, replaced or repaired
/// database cannot know what the session already read).
pub fn start_event(harness: &str, session: &str) -> serde_json::Value {
    match harness {
        "cursor" => serde_json::json!({"conversation_id": session, "session_id": session,
            "hook_event_name": "sessionStart", "cursor_version": "1", "workspace_roots": ["/p"]}),
        "gemini" => serde_json::json!({"session_id": session, "cwd": "/p",
            "hook_event_name": "SessionStart", "timestamp": "t", "source": "startup"}),
        _ => serde_json::json!({"session_id": session, "cwd": "/p",
            "hook_event_name": "SessionStart", "source": "startup"}),
    }
}

/// Starts `session` of `harness` in the database at `db` (see [`start_event`]).
pub fn start(harness: &str, session: &str, db: &Path) {
    let r = hook(harness, &start_event(harness, session), db);
    assert_eq!(r.code, 0, "session start: {r:?}");
}

/// The path context of a developer `dev` working in `/home/dev/proj`, with our files where a
/// default install puts them (the database, the config, the binary in `~/.cargo/bin`): what the
/// corpus tests decide commands against.
pub fn dev_paths() -> intentshield::paths::PathContext {
    let own = [
        "/home/dev/.local/share/intentshield",
        "/home/dev/.local/share/intentshield/intentshield.db",
        "/home/dev/.config/intentshield",
        "/home/dev/.config/intentshield/config.toml",
        "/home/dev/.cargo/bin/intentshield",
    ];
    let mut paths = intentshield::paths::PathContext::new(
        Some("/home/dev/proj"),
        own.iter().map(PathBuf::from).collect(),
    );
    paths.home = Some("/home/dev".into());
    paths
}
