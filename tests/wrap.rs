//! `intentshield wrap` / `unwrap` on every supported MCP configuration layout.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_intentshield");

fn run(verb: &str, file: &Path, extra: &[&str]) -> (i32, String, String) {
    let o = Command::new(BIN)
        .arg(verb)
        .arg(file)
        .args(
            ["--bin", "/opt/is/intentshield"]
                .iter()
                .filter(|_| verb == "wrap"),
        )
        .args(extra)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

/// Wraps, checks, wraps again (no change), unwraps (byte-exact), returns the wrapped text.
fn round_trip(name: &str, original: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join(name);
    std::fs::write(&f, original).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).unwrap();
    }
    // Dry run: nothing written.
    let (code, out, _) = run("wrap", &f, &["--dry-run"]);
    assert_eq!(code, 0);
    assert!(out.contains("would wrap"), "{out}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), original);
    let (code, out, err) = run("wrap", &f, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("wrap "), "{out}");
    let wrapped = std::fs::read_to_string(&f).unwrap();
    assert_ne!(wrapped, original);
    assert!(wrapped.contains("/opt/is/intentshield"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640, "mode kept");
    }
    let bak = dir.path().join(format!("{name}.intentshield-wrap.bak"));
    assert_eq!(
        std::fs::read_to_string(&bak).unwrap(),
        original,
        "one backup"
    );
    let side =
        std::fs::read_to_string(dir.path().join(format!("{name}.intentshield-wrap.json"))).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&bak), 0o640, "the backup is as private as the file");
        assert_eq!(
            mode(&dir.path().join(format!("{name}.intentshield-wrap.json"))),
            0o600
        );
    }
    assert!(!side.contains("SECRET"), "env values never copied: {side}");
    // Idempotent.
    let (code, out, _) = run("wrap", &f, &[]);
    assert_eq!(code, 0);
    assert!(
        out.contains("already wrapped") && out.contains("nothing to wrap"),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(&f).unwrap(), wrapped);
    // Exact restore.
    let (code, _, err) = run("unwrap", &f, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), original);
    wrapped
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn claude_project_mcp_json() {
    let original = r#"{
  "mcpServers": {
    "fs": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
      "env": {"API_KEY": "SECRET-123"}
    },
    "bare": {"command": "/usr/local/bin/srv"},
    "remote": {"type": "http", "url": "https://example.com/mcp"}
  }
}
"#;
    let w = json_of(&round_trip(".mcp.json", original));
    let fs = &w["mcpServers"]["fs"];
    assert_eq!(fs["command"], "/opt/is/intentshield");
    assert_eq!(
        fs["args"],
        serde_json::json!([
            "mcp-proxy",
            "--name",
            "fs",
            "--",
            "npx",
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "/tmp"
        ])
    );
    assert_eq!(fs["env"]["API_KEY"], "SECRET-123");
    assert_eq!(fs["type"], "stdio");
    assert_eq!(
        w["mcpServers"]["bare"]["args"],
        serde_json::json!(["mcp-proxy", "--name", "bare", "--", "/usr/local/bin/srv"])
    );
    assert_eq!(
        w["mcpServers"]["remote"],
        json_of(original)["mcpServers"]["remote"]
    );
}

#[test]
fn claude_user_file_with_project_scopes() {
    let original = r#"{"numStartups": 3, "mcpServers": {"a": {"command": "a-srv", "args": []}},
 "projects": {"/home/u/p": {"allowedTools": [], "mcpServers": {"b": {"command": "uvx", "args": ["b-srv==1.0"]}}}}}"#;
    let w = json_of(&round_trip(".claude.json", original));
    assert_eq!(w["mcpServers"]["a"]["args"][2], "a");
    assert_eq!(
        w["projects"]["/home/u/p"]["mcpServers"]["b"]["args"][4],
        "uvx"
    );
    assert_eq!(w["numStartups"], 3);
}

#[test]
fn cursor_gemini_desktop_windsurf() {
    let cursor = r#"{"mcpServers": {"gh": {"command": "docker", "args": ["run", "-i", "ghcr.io/github/github-mcp-server"], "env": {"GITHUB_TOKEN": "SECRET-gh"}, "cwd": "/x"}, "r": {"url": "https://r.example/sse"}}}"#;
    round_trip("mcp.json", cursor);
    let gemini = "{\n  // Gemini CLI allows comments\n  \"theme\": \"Default\",\n  \"mcpServers\": {\n    \"py\": {\"command\": \"python\", \"args\": [\"-m\", \"srv\"], \"timeout\": 5000, \"trust\": false},\n    \"h\": {\"httpUrl\": \"https://h.example/mcp\"},\n  },\n}\n";
    let w = round_trip("settings.json", gemini);
    assert!(w.contains("\"timeout\": 5000") && w.contains("// Gemini CLI allows comments"));
    let windsurf = r#"{"mcpServers": {"w": {"command": "node", "args": ["w.js"], "disabled": false}, "s": {"serverUrl": "https://s.example"}}}"#;
    round_trip("mcp_config.json", windsurf);
    round_trip(
        "claude_desktop_config.json",
        r#"{"mcpServers": {"d": {"command": "d"}}}"#,
    );
}

#[test]
fn vscode_servers() {
    let original = r#"{
	"inputs": [{"type": "promptString", "id": "tok", "password": true}],
	"servers": {
		"v": {"type": "stdio", "command": "npx", "args": ["-y", "pkg@1.2.3"], "env": {"TOKEN": "${input:tok}"}, "envFile": "${workspaceFolder}/.env"}
	}
}"#;
    let w = json_of(&round_trip("mcp.json", original));
    assert_eq!(w["servers"]["v"]["args"][0], "mcp-proxy");
    assert_eq!(w["servers"]["v"]["env"]["TOKEN"], "${input:tok}");
}

#[test]
fn codex_toml() {
    let original = r#"# Codex settings
model = "o4"

[mcp_servers.docs]
command = "npx" # the runner
args = ["-y", "docs-mcp@2.0.0"]
env = { DOCS_TOKEN = "SECRET-docs" }
startup_timeout_sec = 10

[mcp_servers.bare]
command = "bare-srv"

[mcp_servers.remote]
url = "https://remote.example/mcp"
bearer_token_env_var = "TOK"
"#;
    let w = round_trip("config.toml", original);
    let doc: toml_edit::DocumentMut = w.parse().unwrap();
    let d = &doc["mcp_servers"]["docs"];
    assert_eq!(d["command"].as_str(), Some("/opt/is/intentshield"));
    let args: Vec<&str> = d["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        args,
        [
            "mcp-proxy",
            "--name",
            "docs",
            "--",
            "npx",
            "-y",
            "docs-mcp@2.0.0"
        ]
    );
    assert_eq!(
        doc["mcp_servers"]["bare"]["args"].as_array().unwrap().len(),
        5
    );
    assert!(doc["mcp_servers"]["remote"].get("command").is_none());
    assert!(w.contains("# the runner") && w.contains("SECRET-docs"));
}

#[test]
fn unparsable_file_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("mcp.json", "{\"mcpServers\": {"),
        ("config.toml", "[mcp_servers.x\ncommand="),
    ] {
        let f = dir.path().join(name);
        std::fs::write(&f, text).unwrap();
        let (code, _, err) = run("wrap", &f, &[]);
        assert_eq!(code, 2);
        assert!(
            err.contains("does not parse") && err.contains("nothing was changed"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(&f).unwrap(), text);
    }
}

#[test]
fn unwrap_without_sidecar_rebuilds_from_the_proxy_args() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join(".mcp.json");
    std::fs::write(
        &f,
        r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "pkg"]}}}"#,
    )
    .unwrap();
    run("wrap", &f, &[]);
    std::fs::remove_file(dir.path().join(".mcp.json.intentshield-wrap.json")).unwrap();
    let (code, _, err) = run("unwrap", &f, &[]);
    assert_eq!(code, 0, "{err}");
    let v = json_of(&std::fs::read_to_string(&f).unwrap());
    assert_eq!(
        v["mcpServers"]["fs"],
        serde_json::json!({"command": "npx", "args": ["-y", "pkg"]})
    );
}

#[test]
fn read_only_or_missing_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json");
    let (code, _, err) = run("wrap", &missing, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("no such file"), "{err}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let f = dir.path().join(".mcp.json");
        let text = r#"{"mcpServers": {"a": {"command": "a"}}}"#;
        std::fs::write(&f, text).unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o444)).unwrap();
        let (code, _, err) = run("wrap", &f, &[]);
        assert_eq!(code, 2);
        assert!(err.contains("read-only"), "{err}");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), text);
    }
}

#[cfg(unix)]
#[test]
fn symlinked_config_is_rewritten_where_it_lives() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.json");
    let text = r#"{"mcpServers": {"a": {"command": "a"}}}"#;
    std::fs::write(&real, text).unwrap();
    let link = dir.path().join("mcp.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let (code, _, err) = run("wrap", &link, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&real)
        .unwrap()
        .contains("mcp-proxy"));
    run("unwrap", &link, &[]);
    assert_eq!(std::fs::read_to_string(&real).unwrap(), text);
}

#[test]
fn the_sidecar_is_named_after_the_file_without_a_doubled_dot_and_old_ones_still_work() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join(".mcp.json");
    let text =
        "{\"mcpServers\": {\"fs\": {\"command\": \"npx\", \"args\": [\"-y\",   \"pkg\"]}}}\n";
    std::fs::write(&f, text).unwrap();
    run("wrap", &f, &[]);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.contains(&".mcp.json.intentshield-wrap.json".to_string()),
        "{names:?}"
    );
    assert!(names.iter().all(|n| !n.starts_with("..")), "{names:?}");
    // A sidecar under the old name (left by an earlier build) is still used, then removed.
    std::fs::rename(
        dir.path().join(".mcp.json.intentshield-wrap.json"),
        dir.path().join("..mcp.json.intentshield-wrap.json"),
    )
    .unwrap();
    let (code, _, err) = run("unwrap", &f, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read_to_string(&f).unwrap(),
        text,
        "exact, from the old sidecar"
    );
    assert!(!dir
        .path()
        .join("..mcp.json.intentshield-wrap.json")
        .exists());
}

#[test]
fn portable_wrap_writes_the_command_name_and_a_project_file_gets_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join(".mcp.json");
    let text = r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "pkg"]}}}"#;
    std::fs::write(&f, text).unwrap();
    let wrap = |extra: &[&str]| {
        let o = Command::new(BIN)
            .arg("wrap")
            .arg(".mcp.json")
            .args(extra)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let out = wrap(&[]);
    assert!(
        out.contains("a path on this machine") && out.contains("--portable"),
        "{out}"
    );
    run("unwrap", &f, &[]);
    assert_eq!(std::fs::read_to_string(&f).unwrap(), text);
    let out = wrap(&["--portable"]);
    assert!(!out.contains("a path on this machine"), "{out}");
    let v = json_of(&std::fs::read_to_string(&f).unwrap());
    assert_eq!(v["mcpServers"]["fs"]["command"], "intentshield");
    run("unwrap", &f, &[]);
    assert_eq!(std::fs::read_to_string(&f).unwrap(), text);
}

/// install and wrap both edit Gemini CLI's settings.json and Codex's config.toml: each keeps
/// its own backup, so any order of the four commands ends on the original bytes.
#[test]
fn install_and_wrap_on_the_same_file_each_undo_their_own_change() {
    let home = tempfile::tempdir().unwrap();
    let is = |args: &[&str]| {
        let o = Command::new(BIN)
            .args(args)
            .env_clear()
            .env("HOME", home.path())
            .current_dir(home.path())
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    let cfg = home.path().join(".codex/config.toml");
    let toml = "model = \"o4\"\n\n[features]\nhooks = false\n\n[mcp_servers.fs]\ncommand = \"npx\"\nargs = [\"-y\", \"pkg\"]\n";
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(&cfg, toml).unwrap();
    let gem = home.path().join(".gemini/settings.json");
    let gtext = "{\n  // mine\n  \"mcpServers\": {\"fs\": {\"command\": \"npx\"}}\n}\n";
    std::fs::create_dir_all(gem.parent().unwrap()).unwrap();
    std::fs::write(&gem, gtext).unwrap();
    for (h, f) in [("codex", &cfg), ("gemini", &gem)] {
        let f = f.to_str().unwrap();
        // install, wrap, unwrap, uninstall
        is(&["install", h]);
        is(&["wrap", f]);
        is(&["unwrap", f]);
        is(&["uninstall", h]);
        // wrap, install, uninstall, unwrap
        is(&["wrap", f]);
        is(&["install", h]);
        is(&["uninstall", h]);
        is(&["unwrap", f]);
        // install, wrap, uninstall, unwrap
        is(&["install", h]);
        is(&["wrap", f]);
        is(&["uninstall", h]);
        is(&["unwrap", f]);
    }
    assert_eq!(std::fs::read_to_string(&cfg).unwrap(), toml);
    assert_eq!(std::fs::read_to_string(&gem).unwrap(), gtext);
}
