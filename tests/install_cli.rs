//! `intentshield install|uninstall` on real files in a temporary HOME: atomic writes, modes,
//! backups, read-only and broken files, missing directories, --dry-run, --all, symlinks.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_intentshield");

fn fixture(name: &str) -> String {
    fs::read_to_string(format!(
        "{}/tests/fixtures/install/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn run(home: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", home.join("no-such-bin"))
        .current_dir(home)
        .output()
        .unwrap()
}

fn ok(o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "stdout: {out}\nstderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

fn put(path: &Path, text: &str) -> PathBuf {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
    path.to_path_buf()
}

fn bak(p: &Path) -> PathBuf {
    PathBuf::from(format!("{}.intentshield.bak", p.display()))
}

#[test]
fn install_twice_then_uninstall_is_byte_for_byte_and_keeps_the_mode() {
    let home = tempfile::tempdir().unwrap();
    let orig = fixture("claude-settings.json");
    let p = put(&home.path().join(".claude/settings.json"), &orig);
    fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
    let out = ok(&run(home.path(), &["install", "claude"]));
    assert!(out.contains("updated"), "{out}");
    let installed = fs::read_to_string(&p).unwrap();
    let exe = fs::canonicalize(BIN).unwrap();
    assert!(installed.contains(&format!("\"command\": \"{} hook claude\"", exe.display())));
    assert_eq!(
        fs::read_to_string(bak(&p)).unwrap(),
        orig,
        "backup of the original"
    );
    assert_eq!(
        fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o640
    );
    let again = ok(&run(home.path(), &["install", "claude"]));
    assert!(
        again.contains("already up to date; nothing written"),
        "{again}"
    );
    assert_eq!(fs::read_to_string(&p).unwrap(), installed);
    ok(&run(home.path(), &["uninstall", "claude"]));
    assert_eq!(fs::read_to_string(&p).unwrap(), orig);
    assert_eq!(
        fs::metadata(&p).unwrap().permissions().mode() & 0o777,
        0o640
    );
    // No temporary files left behind.
    let names: Vec<String> = fs::read_dir(p.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
}

#[test]
fn an_existing_backup_is_replaced_by_the_text_we_overwrite() {
    let home = tempfile::tempdir().unwrap();
    let orig = fixture("gemini-settings.json");
    let p = put(&home.path().join(".gemini/settings.json"), &orig);
    put(&bak(&p), "old backup from last week\n");
    ok(&run(home.path(), &["install", "gemini"]));
    assert_eq!(fs::read_to_string(bak(&p)).unwrap(), orig);
    ok(&run(home.path(), &["uninstall", "gemini"]));
    assert_eq!(fs::read_to_string(&p).unwrap(), orig);
}

#[test]
fn a_missing_directory_is_created_and_the_file_removed_again() {
    let home = tempfile::tempdir().unwrap();
    for h in ["claude", "codex", "cursor", "gemini"] {
        let out = ok(&run(home.path(), &["install", h]));
        assert!(out.contains("created"), "{out}");
    }
    let files = [
        ".claude/settings.json",
        ".codex/hooks.json",
        ".cursor/hooks.json",
        ".gemini/settings.json",
    ];
    for f in files {
        assert!(home.path().join(f).is_file(), "{f}");
    }
    let out = ok(&run(home.path(), &["uninstall", "--all"]));
    assert!(out.contains("removed"), "{out}");
    for f in files {
        assert!(!home.path().join(f).exists(), "{f} is absent again");
        assert!(
            !bak(&home.path().join(f)).exists(),
            "no backup of a file that held only ours"
        );
        let dir = home.path().join(f).parent().unwrap().to_path_buf();
        assert!(
            !dir.exists(),
            "{} was created by install and is gone again",
            dir.display()
        );
    }
    // A second uninstall says there is nothing to remove.
    let out = ok(&run(home.path(), &["uninstall", "claude"]));
    assert!(out.contains("nothing to remove"), "{out}");
}

#[test]
fn a_read_only_file_is_not_touched() {
    let home = tempfile::tempdir().unwrap();
    let orig = fixture("claude-settings.json");
    let p = put(&home.path().join(".claude/settings.json"), &orig);
    fs::set_permissions(&p, fs::Permissions::from_mode(0o444)).unwrap();
    let o = run(home.path(), &["install", "claude"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&p.display().to_string()) && err.contains("read-only"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&p).unwrap(), orig);
    assert!(!bak(&p).exists());
}

#[test]
fn a_broken_file_is_not_touched_and_the_error_names_file_line_and_column() {
    let home = tempfile::tempdir().unwrap();
    let orig = fixture("broken.json");
    let p = put(&home.path().join(".claude/settings.json"), &orig);
    let o = run(home.path(), &["install", "claude"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("{}: 3:", p.display())), "{err}");
    assert_eq!(fs::read_to_string(&p).unwrap(), orig);
    let cfg = put(
        &home.path().join(".codex/config.toml"),
        "[features\nhooks = false\n",
    );
    let o = run(home.path(), &["install", "codex"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("{}: 1:", cfg.display())), "{err}");
    assert!(
        !home.path().join(".codex/hooks.json").exists(),
        "nothing written when any file is bad"
    );
}

#[test]
fn dry_run_prints_a_diff_and_writes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let orig = fixture("cursor-hooks.json");
    let p = put(&home.path().join(".cursor/hooks.json"), &orig);
    let out = ok(&run(home.path(), &["install", "cursor", "--dry-run"]));
    assert!(out.contains(&format!("--- a{}", p.display())), "{out}");
    assert!(out.contains("+        \"failClosed\": true"), "{out}");
    assert!(out.contains("dry run; nothing written"));
    assert_eq!(fs::read_to_string(&p).unwrap(), orig);
    assert!(!bak(&p).exists());
}

#[test]
fn codex_switch_is_turned_on_with_comments_kept_and_codex_home_respected() {
    let home = tempfile::tempdir().unwrap();
    let ch = home.path().join("codex-home");
    let cfg = put(&ch.join("config.toml"), &fixture("codex-config.toml"));
    let hooks = put(&ch.join("hooks.json"), &fixture("codex-hooks.json"));
    let o = Command::new(BIN)
        .args(["install", "codex"])
        .env_clear()
        .env("HOME", home.path())
        .env("CODEX_HOME", &ch)
        .output()
        .unwrap();
    let out = ok(&o);
    assert!(
        out.contains("trust"),
        "tells the user to trust the hook: {out}"
    );
    let toml = fs::read_to_string(&cfg).unwrap();
    assert_eq!(
        toml,
        fixture("codex-config.toml").replace("hooks = false", "hooks = true")
    );
    let j = fs::read_to_string(&hooks).unwrap();
    assert!(j.contains("summarise.py") && j.contains("hook codex"));
    assert!(!home.path().join(".codex").exists());
}

#[test]
fn install_all_picks_the_harnesses_found() {
    let home = tempfile::tempdir().unwrap();
    fs::create_dir_all(home.path().join(".gemini")).unwrap();
    fs::create_dir_all(home.path().join(".cursor")).unwrap();
    let out = ok(&run(home.path(), &["install", "--all"]));
    assert!(
        out.contains("gemini: installed") && out.contains("cursor: installed"),
        "{out}"
    );
    assert!(!home.path().join(".claude").exists());
    assert!(!home.path().join(".codex").exists());
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(
        run(empty.path(), &["install", "--all"]).status.code(),
        Some(1)
    );
}

#[test]
fn project_scope_writes_into_the_current_directory() {
    let home = tempfile::tempdir().unwrap();
    let out = ok(&run(
        home.path(),
        &[
            "install", "gemini", "--scope", "project", "--review", "always",
        ],
    ));
    assert!(out.contains("trusted folder"), "{out}");
    let text = fs::read_to_string(home.path().join(".gemini/settings.json")).unwrap();
    assert!(text.contains("hook gemini --review always"), "{text}");
}

#[test]
fn a_symlinked_settings_file_stays_a_symlink() {
    let home = tempfile::tempdir().unwrap();
    let real = put(
        &home.path().join("dotfiles/claude.json"),
        "{\"model\": \"opus\"}\n",
    );
    fs::create_dir_all(home.path().join(".claude")).unwrap();
    let link = home.path().join(".claude/settings.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    ok(&run(home.path(), &["install", "claude"]));
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(fs::read_to_string(&real).unwrap().contains("hook claude"));
    ok(&run(home.path(), &["uninstall", "claude"]));
    assert_eq!(
        fs::read_to_string(&real).unwrap(),
        "{\"model\": \"opus\"}\n"
    );
}

#[test]
fn a_switched_off_hooks_setting_is_reported_not_overridden() {
    let home = tempfile::tempdir().unwrap();
    let p = put(
        &home.path().join(".gemini/settings.json"),
        "{\"hooksConfig\": {\"enabled\": false}}\n",
    );
    let out = ok(&run(home.path(), &["install", "gemini"]));
    assert!(out.contains("hooksConfig.enabled to false"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
    assert_eq!(v["hooksConfig"]["enabled"], false);
}
