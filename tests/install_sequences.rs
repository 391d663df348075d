//! Install/uninstall SEQUENCES as a user runs them, on real files in a scratch HOME, for all
//! four harnesses and both scopes: installs from different executable paths (`target/…`, then
//! `~/.cargo/bin/…`), with other options (`--review always`, `--portable`), then one
//! uninstall must give back the exact bytes from before the first install (or no file, when
//! install created it), never our older entries; the user's edits made in between survive;
//! Codex's `[features] hooks` switch goes back off; backups have the settings file's
//! permissions; Gemini CLI settings with comments keep them.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary under test (`INTENTSHIELD_TEST_BIN` runs these tests against another build).
fn bin() -> PathBuf {
    std::env::var_os("INTENTSHIELD_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_intentshield")))
}

const HARNESSES: [&str; 4] = ["claude", "codex", "cursor", "gemini"];

fn fixture(name: &str) -> String {
    fs::read_to_string(format!(
        "{}/tests/fixtures/install/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// A scratch HOME with the binary at two places, as a user who first ran it from the build
/// folder and then from `cargo install`'s: `<home>/src/target/debug/intentshield` and
/// `<home>/.cargo/bin/intentshield` (hard links, or copies across file systems).
struct Home {
    dir: tempfile::TempDir,
    project: PathBuf,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        for p in ["src/target/debug", ".cargo/bin"] {
            let d = dir.path().join(p);
            fs::create_dir_all(&d).unwrap();
            let to = d.join("intentshield");
            if fs::hard_link(bin(), &to).is_err() {
                fs::copy(bin(), &to).unwrap();
            }
        }
        let project = dir.path().join("work/app");
        fs::create_dir_all(&project).unwrap();
        Home { dir, project }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn exe(&self, which: &str) -> PathBuf {
        match which {
            "target" => self.path().join("src/target/debug/intentshield"),
            _ => self.path().join(".cargo/bin/intentshield"),
        }
    }

    /// Runs `which` binary in the project folder, with `~/.cargo/bin` on PATH.
    fn run(&self, which: &str, args: &[&str]) -> Output {
        Command::new(self.exe(which))
            .args(args)
            .env_clear()
            .env("HOME", self.path())
            .env("PATH", self.path().join(".cargo/bin"))
            .current_dir(&self.project)
            .output()
            .unwrap()
    }

    fn ok(&self, which: &str, args: &[&str]) -> String {
        let o = self.run(which, args);
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{args:?}\nstdout: {out}\nstderr: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        out
    }

    /// The settings file of a harness in a scope.
    fn settings(&self, h: &str, scope: &str) -> PathBuf {
        let base = if scope == "project" {
            self.project.clone()
        } else {
            self.path().to_path_buf()
        };
        base.join(match h {
            "claude" => ".claude/settings.json",
            "codex" => ".codex/hooks.json",
            "cursor" => ".cursor/hooks.json",
            _ => ".gemini/settings.json",
        })
    }
}

fn put(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn bak(p: &Path) -> PathBuf {
    PathBuf::from(format!("{}.intentshield.bak", p.display()))
}

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// What a user may have in the file before the first install (`None`: no file).
fn originals(h: &str) -> Vec<Option<String>> {
    let realistic = match h {
        "claude" => fixture("claude-settings.json"),
        "codex" => fixture("codex-hooks.json"),
        "cursor" => fixture("cursor-hooks.json"),
        _ => fixture("gemini-settings.json"),
    };
    let mut v = vec![
        None,
        Some(String::new()),
        Some("{}\n".into()),
        Some("{\"hooks\":{}}".into()),
        Some("{\"model\": \"x\", \"hooks\": {\"Stop\": []}}\n".into()),
        Some(realistic),
    ];
    if h == "claude" {
        v.push(Some(fixture("claude-tabs-no-newline.json")));
    }
    if h == "gemini" {
        v.push(Some(fixture("gemini-settings.jsonc")));
    }
    v
}

/// The installs a user might run, from two places and with other options, before one
/// uninstall.
const SEQUENCES: &[&[(&str, &[&str])]] = &[
    &[("target", &[])],
    &[("target", &[]), ("cargo", &[])],
    &[
        ("target", &[]),
        ("cargo", &[]),
        ("cargo", &["--review", "always"]),
    ],
    &[
        ("cargo", &["--review", "always"]),
        ("target", &[]),
        ("target", &[]),
    ],
    &[
        ("target", &[]),
        ("cargo", &["--portable"]),
        ("target", &["--review", "never"]),
    ],
];

fn no_entry_of_ours(text: &str) -> bool {
    !text.contains("intentshield hook") && !text.contains("intentshield\" hook")
}

#[test]
fn every_sequence_of_installs_then_uninstall_gives_back_the_first_bytes() {
    let mut cases = 0;
    for h in HARNESSES {
        for scope in ["user", "project"] {
            for orig in originals(h) {
                for seq in SEQUENCES {
                    let home = Home::new();
                    let p = home.settings(h, scope);
                    if let Some(o) = &orig {
                        put(&p, o);
                        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
                    }
                    for (which, opts) in seq.iter() {
                        let mut args = vec!["install", h, "--scope", scope];
                        args.extend_from_slice(opts);
                        home.ok(which, &args);
                        let now = fs::read_to_string(&p).unwrap();
                        assert!(!no_entry_of_ours(&now), "{h} {scope}: installed\n{now}");
                        if orig.is_some() {
                            assert_eq!(
                                fs::read_to_string(bak(&p)).ok(),
                                orig,
                                "{h} {scope} {seq:?}: the backup keeps the text before the FIRST install"
                            );
                            assert_eq!(mode(&bak(&p)), 0o600, "{h}: backup as private as the file");
                            assert_eq!(mode(&p), 0o600);
                        }
                    }
                    // Uninstall from the other binary than the last install used.
                    let out = home.ok("target", &["uninstall", h, "--scope", scope]);
                    match &orig {
                        Some(o) => assert_eq!(
                            fs::read_to_string(&p).unwrap(),
                            *o,
                            "{h} {scope} {seq:?}: original bytes\n{out}"
                        ),
                        None => assert!(
                            !p.exists(),
                            "{h} {scope} {seq:?}: the file install created is gone\n{out}"
                        ),
                    }
                    assert!(!bak(&p).exists(), "{h} {scope}: the used backup is removed");
                    // A second uninstall has nothing left to do and changes nothing.
                    let again = home.ok("cargo", &["uninstall", h, "--scope", scope]);
                    assert!(again.contains("nothing to remove"), "{again}");
                    assert_eq!(fs::read_to_string(&p).ok(), orig);
                    cases += 1;
                }
            }
        }
    }
    assert!(cases >= 4 * 2 * 6 * SEQUENCES.len());
}

#[test]
fn edits_made_between_installs_survive_uninstall_and_only_our_entries_go() {
    for h in HARNESSES {
        for created in [false, true] {
            let home = Home::new();
            let p = home.settings(h, "user");
            if !created {
                put(&p, &originals(h)[5].clone().unwrap());
            }
            home.ok("target", &["install", h]);
            // The user adds a key of their own by hand, between the installs.
            let mut doc: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
            doc.insert("mine".into(), serde_json::json!({"added": "by hand"}));
            put(&p, &serde_json::to_string_pretty(&doc).unwrap());
            home.ok("cargo", &["install", h, "--review", "always"]);
            home.ok("cargo", &["uninstall", h]);
            let text = fs::read_to_string(&p).expect("the user's content keeps the file");
            assert!(no_entry_of_ours(&text), "{h}: {text}");
            let back: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(&text).unwrap();
            assert_eq!(back["mine"]["added"], "by hand", "{h}");
            if !created {
                // Everything the original had is still there, in the same order.
                let orig: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(&originals(h)[5].clone().unwrap()).unwrap();
                let mut expect = orig.clone();
                expect.insert("mine".into(), serde_json::json!({"added": "by hand"}));
                assert_eq!(
                    serde_json::to_string(&back).unwrap(),
                    serde_json::to_string(&expect).unwrap(),
                    "{h}"
                );
            }
        }
    }
}

#[test]
fn an_old_backup_holding_our_entries_is_never_restored() {
    // What an older intentshield left: a settings file and a backup that both hold our
    // entries (the backup was overwritten by the second install), pointing at target/.
    for h in HARNESSES {
        let home = Home::new();
        let p = home.settings(h, "user");
        home.ok("target", &["install", h]);
        let with_old = fs::read_to_string(&p).unwrap();
        put(&bak(&p), &with_old);
        home.ok("cargo", &["install", h]);
        home.ok("cargo", &["uninstall", h]);
        assert!(
            !p.exists(),
            "{h}: nothing of ours comes back, and the file install made goes"
        );
        assert!(!bak(&p).exists());
    }
}

const CODEX_CONFIG: &str = "# my codex\nmodel = \"o4\"\n\n[features]\n# off while I test\nhooks = false # for now\n\n[mcp_servers.fs]\ncommand = \"npx\"\n";

#[test]
fn codex_hooks_switch_goes_back_to_what_it_was() {
    for scope in ["user", "project"] {
        let home = Home::new();
        let hooks = home.settings("codex", scope);
        let cfg = hooks.with_file_name("config.toml");
        put(&cfg, CODEX_CONFIG);
        fs::set_permissions(&cfg, fs::Permissions::from_mode(0o600)).unwrap();
        home.ok("target", &["install", "codex", "--scope", scope]);
        assert!(fs::read_to_string(&cfg)
            .unwrap()
            .contains("hooks = true # for now"));
        assert_eq!(mode(&bak(&cfg)), 0o600);
        home.ok("cargo", &["install", "codex", "--scope", scope]);
        home.ok(
            "cargo",
            &["install", "codex", "--scope", scope, "--review", "always"],
        );
        let out = home.ok("cargo", &["uninstall", "codex", "--scope", scope]);
        assert_eq!(fs::read_to_string(&cfg).unwrap(), CODEX_CONFIG, "{out}");
        assert!(!bak(&cfg).exists());
        assert!(!hooks.exists());
    }
    // The user edited config.toml meanwhile: the switch goes off again, their edit stays.
    let home = Home::new();
    let hooks = home.settings("codex", "user");
    let cfg = hooks.with_file_name("config.toml");
    put(&cfg, CODEX_CONFIG);
    home.ok("target", &["install", "codex"]);
    let edited = fs::read_to_string(&cfg).unwrap() + "\n[mcp_servers.git]\ncommand = \"git-mcp\"\n";
    put(&cfg, &edited);
    home.ok("cargo", &["uninstall", "codex"]);
    assert_eq!(
        fs::read_to_string(&cfg).unwrap(),
        edited.replace("hooks = true", "hooks = false")
    );
    // A switch that was absent stays absent (install never adds it).
    let home = Home::new();
    let cfg = home.settings("codex", "user").with_file_name("config.toml");
    put(&cfg, "model = \"o4\"\n");
    home.ok("target", &["install", "codex"]);
    home.ok("cargo", &["uninstall", "codex"]);
    assert_eq!(fs::read_to_string(&cfg).unwrap(), "model = \"o4\"\n");
}

#[test]
fn a_backup_gets_the_permissions_of_its_file_even_when_one_existed() {
    for (h, m) in [("claude", 0o600), ("gemini", 0o640), ("cursor", 0o644)] {
        let home = Home::new();
        let p = home.settings(h, "user");
        put(&p, "{\"env\": {\"API_KEY\": \"sk-secret\"}}\n");
        fs::set_permissions(&p, fs::Permissions::from_mode(m)).unwrap();
        // A world-readable leftover from an older version.
        put(&bak(&p), "old\n");
        fs::set_permissions(bak(&p), fs::Permissions::from_mode(0o666)).unwrap();
        home.ok("target", &["install", h]);
        assert_eq!(mode(&bak(&p)), m, "{h}");
        // A second install keeps the backup; its mode follows the file's.
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        home.ok("cargo", &["install", h]);
        assert_eq!(mode(&bak(&p)), 0o600, "{h}");
        let names: Vec<String> = fs::read_dir(p.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    }
}

#[test]
fn gemini_settings_with_comments_keep_every_comment() {
    let orig = fixture("gemini-settings.jsonc");
    for scope in ["user", "project"] {
        let home = Home::new();
        let p = home.settings("gemini", scope);
        put(&p, &orig);
        home.ok("target", &["install", "gemini", "--scope", scope]);
        let installed = fs::read_to_string(&p).unwrap();
        for line in orig
            .lines()
            .filter(|l| l.contains("//") || l.contains("/*"))
        {
            assert!(
                installed.contains(line),
                "comment line kept: {line}\n{installed}"
            );
        }
        assert!(installed.contains("hook gemini"), "{installed}");
        home.ok(
            "cargo",
            &["install", "gemini", "--scope", scope, "--review", "always"],
        );
        // The user edits a comment meanwhile: uninstall keeps it and takes only our entries.
        let edited = fs::read_to_string(&p)
            .unwrap()
            .replace("// format on write", "// format on write (edited)");
        put(&p, &edited);
        home.ok("cargo", &["uninstall", "gemini", "--scope", scope]);
        let back = fs::read_to_string(&p).unwrap();
        assert_eq!(
            back,
            orig.replace("// format on write", "// format on write (edited)")
        );
    }
}

#[test]
fn comments_are_refused_for_a_harness_that_does_not_read_them() {
    let home = Home::new();
    let p = home.settings("claude", "user");
    let text = "{\n  // mine\n  \"model\": \"opus\"\n}\n";
    put(&p, text);
    let o = home.run("target", &["install", "claude"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("has comments") && err.contains("Claude Code"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&p).unwrap(), text);
    // A real mistake after a comment is reported where it is, not at the comment.
    let home = Home::new();
    let p = home.settings("gemini", "user");
    put(&p, "{\n  // fine\n  \"a\": 1,\n  \"b\": ,\n}\n");
    let o = home.run("target", &["install", "gemini"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("settings.json: 4:"), "{err}");
}

#[test]
fn project_scope_warns_about_the_absolute_path_and_portable_writes_the_name() {
    for h in HARNESSES {
        let home = Home::new();
        let out = home.ok("cargo", &["install", h, "--scope", "project"]);
        assert!(
            out.contains("a path on this machine") && out.contains("--portable"),
            "{h}: {out}"
        );
        home.ok("cargo", &["uninstall", h, "--scope", "project"]);
        let out = home.ok(
            "target",
            &["install", h, "--scope", "project", "--portable"],
        );
        assert!(!out.contains("a path on this machine"), "{h}: {out}");
        assert!(!out.contains("not on PATH"), "{h}: {out}");
        let text = fs::read_to_string(home.settings(h, "project")).unwrap();
        assert!(text.contains("\"intentshield hook "), "{h}: {text}");
        assert!(
            !text.contains(&home.path().display().to_string()),
            "{h}: {text}"
        );
    }
    // Not on PATH: said.
    let home = Home::new();
    let o = Command::new(home.exe("target"))
        .args(["install", "claude", "--portable"])
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", home.path().join("nowhere"))
        .current_dir(&home.project)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("not on PATH"), "{out}");
}

#[test]
fn a_portable_entry_runs_the_hook_found_on_path() {
    let home = Home::new();
    home.ok(
        "target",
        &["install", "claude", "--scope", "project", "--portable"],
    );
    let text = fs::read_to_string(home.settings("claude", "project")).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let line = doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(line, "intentshield hook claude");
    let ev = serde_json::json!({
        "session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Read",
        "tool_input": {"file_path": "README.md"}, "cwd": home.project,
        "transcript_path": "/dev/null", "permission_mode": "default"
    });
    let mut child = Command::new("/bin/sh")
        .args(["-c", &line])
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", home.path().join(".cargo/bin"))
        .env("INTENTSHIELD_DB", home.path().join("db.sqlite"))
        .current_dir(&home.project)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(ev.to_string().as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn uninstall_points_to_the_other_scope_when_ours_are_only_there() {
    let home = Home::new();
    home.ok(
        "target",
        &["install", "claude", "--scope", "project", "--portable"],
    );
    let out = home.ok("target", &["uninstall", "claude"]);
    assert!(
        out.contains("nothing to remove") && out.contains("uninstall claude --scope project"),
        "{out}"
    );
    home.ok("target", &["uninstall", "claude", "--scope", "project"]);
    home.ok("target", &["install", "gemini"]);
    let out = home.ok("target", &["uninstall", "gemini", "--scope", "project"]);
    assert!(out.contains("uninstall gemini --scope user"), "{out}");
}

#[test]
fn a_reinstall_into_a_file_install_created_names_no_backup() {
    let home = Home::new();
    let out = home.ok("target", &["install", "cursor"]);
    assert!(out.contains("created"), "{out}");
    let out = home.ok("cargo", &["install", "cursor", "--review", "always"]);
    assert!(
        !out.contains(".intentshield.bak"),
        "no backup exists: {out}"
    );
    assert!(!bak(&home.settings("cursor", "user")).exists());
}

#[test]
fn doctor_finds_the_executable_of_a_portable_entry_on_path() {
    let home = Home::new();
    home.ok("target", &["install", "claude", "--portable"]);
    let o = home.run("target", &["doctor", "claude"]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert!(
        out.contains("names an existing executable") && !out.contains("executable missing"),
        "{out}"
    );
}
