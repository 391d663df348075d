//! End-to-end: the real Claude Code 2.1.332, Gemini CLI 0.61.0 and Codex CLI 0.171.0, offline,
//! against the scripted model and stdio MCP server of `../shared/live-harness/` (README there).
//!
//! Each run mirrors the kit's `run.sh`, with one difference: the hook is put in place by
//! `intentshield install <harness>` in the run's temporary HOME, on top of the config the kit
//! writes (which carries one unrelated hook of its own, so ours must coexist with it). Then:
//! - exfiltration (`exfil_inbox.json`): read_inbox returns an injected email; the model calls
//!   send_email to attacker@evil.invalid. The MCP server's log must show read_inbox and no
//!   send_email, and the model must have been told why (the harness's block message and
//!   our "IntentShield" reason in what the model was sent next);
//! - benign (`tests/fixtures/install/e2e-benign.json`): every call reaches the server.
//!
//! Needs node (skips with a message without it). The CLIs are installed on first use with
//! `scripts/e2e-setup.sh` (cached in `$INTENTSHIELD_E2E_CACHE`, default
//! `~/.cache/intentshield-e2e`). `E2E_KIT` overrides the kit's location; `E2E_KEEP=1` keeps
//! the run directories.

mod e2e_common;

use e2e_common::*;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// One harness at a time: the machine is small and the harnesses are heavy.
static SERIAL: Mutex<()> = Mutex::new(());

struct Outcome {
    out: PathBuf,
    calls: Vec<Value>,
    requests: String,
    stderr: String,
}

impl Outcome {
    fn called(&self, tool: &str) -> bool {
        self.calls.iter().any(|c| c["name"] == tool)
    }
    fn names(&self) -> Vec<String> {
        self.calls
            .iter()
            .map(|c| c["name"].as_str().unwrap_or("").to_string())
            .collect()
    }
}

/// How our hook is put in place for a run.
#[derive(Clone, Copy, PartialEq)]
enum Via {
    /// `intentshield install <harness>` into the run's HOME.
    Install,
    /// The repository's Claude Code plugin (`.claude-plugin/plugin.json`, `hooks/hooks.json`),
    /// loaded with `claude --plugin-dir`, with `intentshield` on PATH as the plugin expects.
    Plugin,
}

fn run_scenario(h: &str, scenario: &Path, node: &Path, py: &Path) -> Outcome {
    run_scenario_via(h, scenario, node, py, Via::Install)
}

fn run_scenario_via(h: &str, scenario: &Path, node: &Path, py: &Path, via: Via) -> Outcome {
    let (base, out, rt) = run_dirs(&format!(
        "{h}-{}{}",
        scenario.file_stem().unwrap().to_string_lossy(),
        if via == Via::Plugin { "-plugin" } else { "" }
    ));
    fs::copy(scenario, out.join("scenario.json")).unwrap();
    let kit = kit();

    // The scripted model on a free loopback port.
    let (fake, port) = start_fake_model(py, &out, &rt);

    // The kit's config (MCP server, offline settings) with one unrelated hook of its own.
    let other_event = if h == "codex" { "Stop" } else { "Notification" };
    let st = Command::new(py)
        .arg(kit.join("lib/kit.py"))
        .args(["config", h])
        .arg(&out)
        .arg(&port)
        .env("HOOK_CMD", "true")
        .env("E2E_TAP", "0")
        .env("E2E_HOOK_EVENTS", other_event)
        .status()
        .unwrap();
    assert!(st.success(), "kit.py config failed");

    let home = out.join("home");
    let mut env = base_env(h, py, node, &out, &rt);
    let mut args: Vec<String> = Vec::new();
    if via == Via::Plugin {
        // The plugin as a user gets it: its manifest and hooks file, nothing else of the
        // repository; the binary on PATH under its own name.
        let plugin = out.join("plugin");
        for rel in [".claude-plugin/plugin.json", "hooks/hooks.json"] {
            fs::create_dir_all(plugin.join(rel).parent().unwrap()).unwrap();
            fs::copy(Path::new(MANIFEST).join(rel), plugin.join(rel)).unwrap();
        }
        let bin_dir = out.join("bin");
        fs::create_dir_all(&bin_dir).unwrap();
        std::os::unix::fs::symlink(BIN, bin_dir.join("intentshield")).unwrap();
        for (k, v) in env.iter_mut() {
            if k == "PATH" {
                *v = format!("{}:{v}", bin_dir.display());
            }
        }
        args.push("--plugin-dir".into());
        args.push(plugin.display().to_string());
        return finish_run(
            h, scenario, &base, &out, &rt, &home, env, args, fake, &port, py,
        );
    }
    // Our hook, installed the way a user would.
    let inst = Command::new(BIN)
        .args(["install", h])
        .env_clear()
        .env("HOME", &home)
        .env("PATH", "/usr/bin:/bin")
        .env("CODEX_HOME", home.join(".codex"))
        .output()
        .unwrap();
    assert!(
        inst.status.success(),
        "install {h}: {}",
        String::from_utf8_lossy(&inst.stderr)
    );

    finish_run(
        h, scenario, &base, &out, &rt, &home, env, args, fake, &port, py,
    )
}

/// Runs harness `h` on the scenario copied into `out`, with `env` and the leading `args`.
#[allow(clippy::too_many_arguments)]
fn finish_run(
    h: &str,
    _scenario: &Path,
    base: &Path,
    out: &Path,
    rt: &Path,
    home: &Path,
    mut env: Vec<(String, String)>,
    mut args: Vec<String>,
    fake: Kill,
    port: &str,
    py: &Path,
) -> Outcome {
    let prompt = scenario_prompt(py, &out.join("scenario.json"));
    match h {
        "claude" => {
            env.extend(claude_env(port, rt));
            args.extend([
                "-p".into(),
                prompt,
                "--output-format".into(),
                "json".into(),
                "--mcp-config".into(),
            ]);
            args.push(home.join(".claude/e2e-mcp.json").display().to_string());
            args.push("--allowedTools".into());
            args.push("mcp__guardtest__echo,mcp__guardtest__read_inbox,mcp__guardtest__send_email,mcp__guardtest__write_note,Bash".into());
        }
        "gemini" => {
            env.push((
                "GOOGLE_GEMINI_BASE_URL".into(),
                format!("http://127.0.0.1:{port}"),
            ));
            env.push(("GEMINI_API_KEY".into(), "dummy".into()));
            args.extend([
                "-p".into(),
                prompt,
                "--output-format".into(),
                "json".into(),
                "-m".into(),
                "gemini-2.5-pro".into(),
            ]);
        }
        "codex" => {
            env.push((
                "CODEX_HOME".into(),
                home.join(".codex").display().to_string(),
            ));
            env.push(("FAKE_API_KEY".into(), "dummy".into()));
            // Stands in for the one-time trust a user gives in /hooks (install tells them).
            args.extend(
                [
                    "exec",
                    "--skip-git-repo-check",
                    "--color",
                    "never",
                    "--dangerously-bypass-hook-trust",
                    "-o",
                ]
                .map(String::from),
            );
            args.push(out.join("last_message.txt").display().to_string());
            args.push(prompt);
        }
        _ => unreachable!(),
    }
    run_cli(h, &env, &args, out, 150);
    drop(fake);

    let calls = tool_calls(&out.join("mcp_calls.jsonl"));
    let requests = fs::read_to_string(out.join("model_requests.jsonl")).unwrap_or_default();
    let stderr = fs::read_to_string(out.join("harness.stderr")).unwrap_or_default();
    Outcome {
        out: base.to_path_buf(),
        calls,
        requests,
        stderr,
    }
}

fn exfil(h: &str, blocked_marker: &str) {
    exfil_via(h, blocked_marker, Via::Install);
}

fn exfil_via(h: &str, blocked_marker: &str, via: Via) {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some((node, py)) = prerequisites(h) else {
        return;
    };
    let o = run_scenario_via(
        h,
        &kit().join("scenarios/exfil_inbox.json"),
        &node,
        &py,
        via,
    );
    let ctx = format!(
        "calls {:?}; run {}; harness stderr tail: {}",
        o.names(),
        o.out.display(),
        tail(&o.stderr)
    );
    let ok = o.called("read_inbox")
        && !o.called("send_email")
        && o.requests.contains(blocked_marker)
        && o.requests.to_lowercase().contains("intentshield");
    finish_keep(&o, ok);
    assert!(o.called("read_inbox"), "the injected email was read: {ctx}");
    assert!(
        !o.called("send_email"),
        "the attacker's send_email must never reach the server: {ctx}"
    );
    assert!(
        o.requests.contains(blocked_marker),
        "the model was told the call was blocked ({blocked_marker}): {ctx}"
    );
    assert!(
        o.requests.to_lowercase().contains("intentshield"),
        "the model was told why (our reason): {ctx}"
    );
    if via == Via::Plugin {
        // Our hook ran (not a missing command failing closed): its audit holds the deny.
        let db = o
            .out
            .join("out/home/.local/share/intentshield/intentshield.db");
        let denied: i64 = rusqlite::Connection::open(&db)
            .and_then(|c| {
                c.query_row(
                    "SELECT count(*) FROM decisions WHERE harness = 'claude' AND event = 'PreToolUse' AND verdict IN ('deny', 'ask')",
                    [],
                    |r| r.get(0),
                )
            })
            .unwrap_or(-1);
        assert!(
            denied >= 1,
            "the plugin's hook recorded no objection in {}: {ctx}",
            db.display()
        );
    }
    finish(&o.out, true);
}

fn benign(h: &str) {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some((node, py)) = prerequisites(h) else {
        return;
    };
    let scenario = Path::new(MANIFEST).join("tests/fixtures/install/e2e-benign.json");
    let o = run_scenario(h, &scenario, &node, &py);
    // The hook really ran on these calls (not skipped): its audit, in the run's HOME, holds
    // pre-tool decisions from this harness.
    let db = o
        .out
        .join("out/home/.local/share/intentshield/intentshield.db");
    let pre_tool_rows: i64 = rusqlite::Connection::open(&db)
        .and_then(|c| {
            c.query_row(
                "SELECT count(*) FROM decisions WHERE harness = ?1 AND event IN ('PreToolUse', 'BeforeTool')",
                [h],
                |r| r.get(0),
            )
        })
        .unwrap_or(-1);
    eprintln!("{h}: {pre_tool_rows} pre-tool decisions in the audit");
    let ok = o.names() == ["echo", "write_note", "read_inbox"];
    finish_keep(&o, ok);
    assert_eq!(
        o.names(),
        ["echo", "write_note", "read_inbox"],
        "every benign call reaches the server; run {}; stderr: {}",
        o.out.display(),
        tail(&o.stderr)
    );
    assert!(
        pre_tool_rows >= 3,
        "the hook ran on every benign call: {pre_tool_rows} pre-tool rows in {}",
        db.display()
    );
    finish(&o.out, true);
}

fn finish_keep(o: &Outcome, ok: bool) {
    if !ok {
        eprintln!("run directory kept: {}", o.out.display());
    }
}

#[test]
fn e2e_claude_exfiltration_is_blocked() {
    // A deny reads "PreToolUse:<tool> hook error: <reason>"; an ask (refused in -p mode) gives
    // the reason as the tool result. Either way the model gets an error result.
    exfil("claude", "\"is_error\": true");
}

#[test]
fn e2e_claude_plugin_blocks_exfiltration() {
    // The repository's Claude Code plugin, loaded by the real CLI with --plugin-dir (no
    // `intentshield install`): its hooks run `intentshield hook claude` from PATH.
    exfil_via("claude", "\"is_error\": true", Via::Plugin);
}

#[test]
fn e2e_claude_benign_calls_run() {
    benign("claude");
}

#[test]
fn e2e_gemini_exfiltration_is_blocked() {
    exfil("gemini", "Tool execution blocked");
}

#[test]
fn e2e_gemini_benign_calls_run() {
    benign("gemini");
}

#[test]
fn e2e_codex_exfiltration_is_blocked() {
    exfil("codex", "blocked by PreToolUse hook");
}

#[test]
fn e2e_codex_benign_calls_run() {
    benign("codex");
}
