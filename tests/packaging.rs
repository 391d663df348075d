//! Packaging where users look for it: the Claude Code plugin and marketplace entry, the Gemini
//! CLI extension, and the release script. Structural checks always run (the hooks the plugin
//! and the extension declare are the ones `intentshield install` writes, with a command found
//! on PATH); the real CLIs validate and install them when they are cached
//! (scripts/e2e-setup.sh), else those parts skip with a message. The plugin's hooks running in
//! the real Claude Code is `e2e_claude_plugin_blocks_exfiltration` in tests/e2e_harnesses.rs.

mod common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn json(rel: &str) -> Value {
    let text = std::fs::read_to_string(Path::new(ROOT).join(rel)).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// What `intentshield install <h>` writes into an empty HOME, with the binary path replaced by
/// the plain command name.
fn installed_hooks(h: &str, file: &str) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .args(["install", h])
        .env_clear()
        .env("HOME", tmp.path())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(tmp.path().join(file)).unwrap();
    let text = text.replace(&format!("{} hook", bin()), "intentshield hook");
    let v: Value = serde_json::from_str(&text).unwrap();
    v["hooks"].clone()
}

#[test]
fn the_claude_plugin_declares_the_hooks_install_writes() {
    let plugin = json(".claude-plugin/plugin.json");
    assert_eq!(plugin["name"], "intentshield");
    assert_eq!(plugin["version"], env!("CARGO_PKG_VERSION"));
    let hooks_file = plugin["hooks"].as_str().unwrap();
    let hooks = json(hooks_file.trim_start_matches("./"));
    assert_eq!(
        hooks["hooks"],
        installed_hooks("claude", ".claude/settings.json")
    );
    let market = json(".claude-plugin/marketplace.json");
    assert_eq!(market["name"], "intentshield");
    let entry = &market["plugins"][0];
    assert_eq!(entry["name"], "intentshield");
    assert_eq!(entry["source"], "./");
}

#[test]
fn the_gemini_extension_declares_the_hooks_install_writes() {
    let ext = json("gemini-extension/gemini-extension.json");
    assert_eq!(ext["name"], "intentshield");
    assert_eq!(ext["version"], env!("CARGO_PKG_VERSION"));
    let hooks = json("gemini-extension/hooks/hooks.json");
    assert_eq!(
        hooks["hooks"],
        installed_hooks("gemini", ".gemini/settings.json")
    );
}

fn cached_cli(h: &str) -> Option<PathBuf> {
    let cache = std::env::var_os("INTENTSHIELD_E2E_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/intentshield-e2e")
        });
    let p = cache.join(h).join("node_modules/.bin").join(h);
    if std::env::var("INTENTSHIELD_E2E").is_ok_and(|v| v == "skip") {
        skip("INTENTSHIELD_E2E=skip");
        return None;
    }
    if which_node().is_none() {
        skip(&format!("{h}: node is not on PATH"));
        return None;
    }
    if p.is_file() {
        Some(p)
    } else {
        skip(&format!(
            "{h}: the CLI is not installed at {} (scripts/e2e-setup.sh {h})",
            p.display()
        ));
        None
    }
}

fn which_node() -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join("node"))
        .find(|p| p.is_file())
}

#[test]
fn the_real_claude_code_validates_the_plugin_and_the_marketplace() {
    let Some(claude) = cached_cli("claude") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    for target in [".", ".claude-plugin/marketplace.json"] {
        let out = Command::new(&claude)
            .args(["plugin", "validate", "--strict", target])
            .current_dir(ROOT)
            .env("HOME", home.path())
            .env("DISABLE_AUTOUPDATER", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "validate {target}: {text}");
        assert!(text.contains("Validation passed"), "{text}");
    }
}

#[test]
fn the_real_gemini_cli_installs_the_extension() {
    let Some(gemini) = cached_cli("gemini") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str], input: &[u8]| {
        use std::io::Write;
        let mut child = Command::new(&gemini)
            .args(args)
            .current_dir(home.path())
            .env("HOME", home.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(input);
        let out = child.wait_with_output().unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).to_string()
                + &String::from_utf8_lossy(&out.stderr),
        )
    };
    let ext = Path::new(ROOT).join("gemini-extension");
    // "y": the CLI asks whether to trust the folder it installs from.
    let (ok, text) = run(
        &["extensions", "install", ext.to_str().unwrap(), "--consent"],
        b"y\n",
    );
    assert!(ok && text.contains("installed successfully"), "{text}");
    let (ok, text) = run(&["extensions", "list"], b"");
    assert!(ok && text.contains("intentshield (0.1.0)"), "{text}");
    let copied = home
        .path()
        .join(".gemini/extensions/intentshield/hooks/hooks.json");
    assert!(copied.is_file(), "{text}");
}

#[test]
fn the_release_script_packages_a_static_binary_with_its_checksum() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new("bash")
        .arg(Path::new(ROOT).join("scripts/release.sh"))
        .args(["--bin", bin(), "--out"])
        .arg(tmp.path())
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    let name = format!(
        "intentshield-{}-x86_64-unknown-linux-gnu",
        env!("CARGO_PKG_VERSION")
    );
    let check = Command::new("sha256sum")
        .args(["-c", &format!("{name}.sha256")])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(check.status.success(), "{check:?}");
    for f in [
        "intentshield.bash",
        "_intentshield",
        "intentshield.fish",
        "intentshield.1",
    ] {
        let len = std::fs::metadata(tmp.path().join(f))
            .map(|m| m.len())
            .unwrap_or(0);
        assert!(len > 100, "{f}: {len} bytes");
    }
    // A binary with a program interpreter (dynamically linked) is refused.
    if Path::new("/bin/sh").exists() && Command::new("readelf").arg("--version").output().is_ok() {
        let out = Command::new("bash")
            .arg(Path::new(ROOT).join("scripts/release.sh"))
            .args(["--bin", "/bin/sh", "--out"])
            .arg(tmp.path().join("dyn"))
            .output()
            .unwrap();
        assert!(!out.status.success(), "{out:?}");
    }
}
