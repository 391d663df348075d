//! Shared by the end-to-end tests that drive the real harness CLIs through the live-harness
//! kit (`../shared/live-harness/`, README there): finding the kit and the installed CLIs,
//! skipping without node, the scripted model, the offline environment, and running a CLI.
#![allow(dead_code)]

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

#[path = "../skip/mod.rs"]
#[allow(clippy::duplicate_mod)] // also included by the other helper modules
mod skip_log;
pub use skip_log::skip;

pub const BIN: &str = env!("CARGO_BIN_EXE_intentshield");
pub const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");

pub fn kit() -> PathBuf {
    std::env::var_os("E2E_KIT")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(MANIFEST).join("../shared/live-harness"))
}

pub fn cache() -> PathBuf {
    std::env::var_os("INTENTSHIELD_E2E_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/intentshield-e2e")
        })
}

pub fn which(prog: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(prog))
        .find(|p| p.is_file())
}

pub fn harness_bin(h: &str) -> PathBuf {
    cache().join(h).join("node_modules/.bin").join(h)
}

/// `None` (with a message) when the e2e tests cannot run here; else node and python3.
/// A harness CLI that is not installed yet is installed with `scripts/e2e-setup.sh`; if that
/// fails (no network, no cache), the test skips.
pub fn prerequisites(h: &str) -> Option<(PathBuf, PathBuf)> {
    if std::env::var("INTENTSHIELD_E2E").is_ok_and(|v| v == "skip") {
        skip(&format!("e2e {h}: INTENTSHIELD_E2E=skip"));
        return None;
    }
    let Some(node) = which("node") else {
        skip(&format!(
            "e2e {h}: node is not on PATH (the harness CLIs need node 20+ and npm)"
        ));
        return None;
    };
    if !kit().join("run.sh").is_file() {
        skip(&format!(
            "e2e {h}: the live-harness kit is missing at {} (../shared/live-harness beside the checkout, or set E2E_KIT)",
            kit().display()
        ));
        return None;
    }
    let Some(python) = which("python3") else {
        skip(&format!(
            "e2e {h}: python3 is not on PATH (the kit's model and MCP server need it)"
        ));
        return None;
    };
    if !harness_bin(h).is_file() {
        let st = Command::new("bash")
            .arg(Path::new(MANIFEST).join("scripts/e2e-setup.sh"))
            .arg(h)
            .status();
        if !st.is_ok_and(|s| s.success()) || !harness_bin(h).is_file() {
            // Offline without the cache: .ci/run already said the e2e tests will skip.
            skip(&format!(
                "e2e {h}: not installed at {} and scripts/e2e-setup.sh {h} failed",
                harness_bin(h).display()
            ));
            return None;
        }
    }
    let py = Command::new(&python)
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .filter(|p| p.is_file())
        .unwrap_or(python);
    Some((node, py))
}

/// Kills (and reaps) a child process when dropped.
pub struct Kill(pub Child);
impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A fresh run directory `base` (removed first) holding `out/` (with `home/`, `project/`,
/// `hooks/`) and `rt/tmp/`, laid out the way the kit's `run.sh` does. Returns (base, out, rt).
pub fn run_dirs(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let base = std::env::temp_dir().join(format!("intentshield-e2e-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    let out = base.join("out");
    let rt = base.join("rt");
    for d in [
        out.join("home"),
        out.join("project"),
        out.join("hooks"),
        rt.join("tmp"),
    ] {
        fs::create_dir_all(&d).unwrap();
    }
    (base, out, rt)
}

/// Starts the kit's scripted model on `out/scenario.json`, logging requests to
/// `out/model_requests.jsonl`. Returns the guard that stops it, and its port.
pub fn start_fake_model(py: &Path, out: &Path, rt: &Path) -> (Kill, String) {
    let fake = Command::new(py)
        .arg(kit().join("fake_llm.py"))
        .arg("--scenario")
        .arg(out.join("scenario.json"))
        .arg("--log")
        .arg(out.join("model_requests.jsonl"))
        .arg("--port-file")
        .arg(rt.join("port"))
        .stdout(Stdio::null())
        .stderr(fs::File::create(out.join("fake_llm.log")).unwrap())
        .spawn()
        .expect("start fake_llm.py");
    let fake = Kill(fake);
    let t0 = Instant::now();
    let port = loop {
        if let Ok(p) = fs::read_to_string(rt.join("port")) {
            if !p.trim().is_empty() {
                break p.trim().to_string();
            }
        }
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "fake model server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    (fake, port)
}

/// The scenario's prompt, as the kit gives it to the harness.
pub fn scenario_prompt(py: &Path, scenario: &Path) -> String {
    String::from_utf8(
        Command::new(py)
            .arg(kit().join("lib/kit.py"))
            .arg("prompt")
            .arg(scenario)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .trim()
    .to_string()
}

/// The environment every harness runs with (the kit's `run.sh`: nothing else gets through).
pub fn base_env(h: &str, py: &Path, node: &Path, out: &Path, rt: &Path) -> Vec<(String, String)> {
    let dir = |p: &Path| p.parent().unwrap().display().to_string();
    vec![
        (
            "PATH".into(),
            format!(
                "{}:{}:{}:/usr/local/bin:/usr/bin:/bin",
                dir(&harness_bin(h)),
                dir(py),
                dir(node)
            ),
        ),
        ("HOME".into(), out.join("home").display().to_string()),
        ("TERM".into(), "dumb".into()),
        ("LANG".into(), "C.UTF-8".into()),
        ("TMPDIR".into(), rt.join("tmp").display().to_string()),
        ("XDG_RUNTIME_DIR".into(), rt.display().to_string()),
        ("E2E_OUT".into(), out.display().to_string()),
    ]
}

/// Claude Code's settings for the scripted model on `port`, offline.
pub fn claude_env(port: &str, rt: &Path) -> Vec<(String, String)> {
    [
        ("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}")),
        ("ANTHROPIC_API_KEY", "dummy".into()),
        ("CLAUDE_CODE_TMPDIR", rt.join("tmp").display().to_string()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
        ("DISABLE_AUTOUPDATER", "1".into()),
        ("DISABLE_TELEMETRY", "1".into()),
        ("DISABLE_ERROR_REPORTING", "1".into()),
    ]
    .map(|(k, v)| (k.to_string(), v))
    .into()
}

/// Runs harness `h` under `env -i` with exactly `env`, in `out/project`, killed after
/// `secs` seconds; stdout and stderr go to `out/harness.stdout` and `out/harness.stderr`.
/// Fails the test if it timed out.
pub fn run_cli(
    h: &str,
    env: &[(String, String)],
    args: &[String],
    out: &Path,
    secs: u32,
) -> ExitStatus {
    let mut cmd = Command::new("timeout");
    cmd.args(["-k", "5", &secs.to_string(), "env", "-i"]);
    for (k, v) in env {
        cmd.arg(format!("{k}={v}"));
    }
    cmd.arg(harness_bin(h))
        .args(args)
        .current_dir(out.join("project"))
        .stdin(Stdio::null());
    cmd.stdout(fs::File::create(out.join("harness.stdout")).unwrap());
    cmd.stderr(fs::File::create(out.join("harness.stderr")).unwrap());
    let status = cmd.status().unwrap();
    assert_ne!(
        status.code(),
        Some(124),
        "{h} timed out; see {}",
        out.display()
    );
    status
}

/// The messages an MCP server logged (`{"t", "msg"}` lines, the kit's format).
pub fn mcp_messages(log: &Path) -> Vec<Value> {
    fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|r| r["msg"].clone())
        .collect()
}

/// The `params` of every `tools/call` in an MCP server's log, in order.
pub fn tool_calls(log: &Path) -> Vec<Value> {
    mcp_messages(log)
        .into_iter()
        .filter(|m| m["method"] == "tools/call")
        .map(|m| m["params"].clone())
        .collect()
}

/// The request bodies the scripted model received.
pub fn model_requests(out: &Path) -> Vec<Value> {
    fs::read_to_string(out.join("model_requests.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|r| r["body"].clone())
        .collect()
}

/// Removes the run directory unless the test failed or `E2E_KEEP` is set.
pub fn finish(base: &Path, passed: bool) {
    if passed && std::env::var_os("E2E_KEEP").is_none() {
        let _ = fs::remove_dir_all(base);
    } else {
        eprintln!("run directory kept: {}", base.display());
    }
}

pub fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(15)..].join("\n")
}
