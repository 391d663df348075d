use super::*;
use crate::shell::analyze;
use crate::shell::testing::targets;

#[test]
fn redirect_and_tool_writes() {
    let a = analyze("printf '%s' '{\"a\":1}' > ~/.cursor/mcp.json");
    assert_eq!(a.writes(), vec!["~/.cursor/mcp.json"]);
    let a = analyze("echo x | tee -a .claude/settings.json >/dev/null");
    assert_eq!(a.writes(), vec![".claude/settings.json"]);
    let a = analyze("cp evil.json ~/.gemini/settings.json && sed -i 's/a/b/' .mcp.json");
    assert_eq!(
        a.writes(),
        vec![
            "~/.gemini/settings.json",
            "~/.gemini/settings.json/evil.json",
            ".mcp.json"
        ]
    );
    let a = analyze("cargo test 2>&1 | tail -5; ls > /dev/null");
    assert!(a.writes().is_empty(), "{:?}", a.writes());
}

#[test]
fn option_writes() {
    use WriteKind::{File, Into, Replace};
    for (line, path, kind) in [
        (
            "sort -o ~/.claude/settings.json x",
            "~/.claude/settings.json",
            File,
        ),
        ("sort -o~/.claude/x y", "~/.claude/x", File),
        ("sort -ru -o out f", "out", File),
        ("sort --output=out f", "out", File),
        ("sort --output out f", "out", File),
        ("uniq -c in out", "out", File),
        ("xxd -r in out", "out", File),
        ("tree -o out.txt", "out.txt", File),
        ("find . -fprint out", "out", File),
        ("find . -fprint0 out", "out", File),
        ("find . -fprintf out '%p'", "out", File),
        ("find . -fls out", "out", File),
        ("git diff --output=out", "out", File),
        ("git log -p --output out", "out", File),
        ("git -C repo show --output=out", "repo/out", File),
        ("git format-patch -o patches HEAD~2", "patches", Into),
        ("yq -i '.a = 1' cfg.yaml", "cfg.yaml", File),
        ("yq --inplace '.a = 1' a.yaml b.yaml", "b.yaml", File),
        ("sed -n 'w out' f", "out", File),
        ("sed 's/a/b/w out' f", "out", File),
        ("sed -e '/x/W out' f", "out", File),
        ("sed -n -e p -e 'w out' f", "out", File),
        ("sed '1{w out\n}' f", "out", File),
        ("awk '{print > \"out\"}' f", "out", File),
        ("awk '{print $1 >> \"out\"}' f", "out", File),
        ("awk '{printf \"%s\", $1 > \"out\"}' f", "out", File),
        ("perl -pi -e 's/a/b/' f", "f", File),
        ("ruby -i.bak -pe 'x' f", "f", File),
        ("gawk -i inplace '{print}' f", "f", File),
        ("install -D a ~/.claude/hooks/a", "~/.claude/hooks/a", File),
        ("install -m 755 -t ~/bin a", "~/bin/a", File),
        (
            "cp -t ~/.claude settings.json",
            "~/.claude/settings.json",
            File,
        ),
        (
            "cp -t~/.claude settings.json",
            "~/.claude/settings.json",
            File,
        ),
        (
            "cp --target-directory ~/.claude x/settings.json",
            "~/.claude/settings.json",
            File,
        ),
        (
            "cp --target-directory=~/.claude settings.json",
            "~/.claude/settings.json",
            File,
        ),
        (
            "cp settings.json ~/.claude",
            "~/.claude/settings.json",
            File,
        ),
        (
            "cp a settings.json ~/.claude/",
            "~/.claude/settings.json",
            File,
        ),
        (
            "ln -sf /tmp/evil.json ~/.claude",
            "~/.claude/evil.json",
            File,
        ),
        (
            "rsync a/settings.json ~/.claude",
            "~/.claude/settings.json",
            Into,
        ),
        (
            "mv x/settings.json ~/.claude",
            "~/.claude/settings.json",
            Replace,
        ),
        ("cp -r hooks ~/.claude", "~/.claude/hooks", Into),
        ("tar xzf a.tgz", ".", Into),
        ("tar -xf a.tar", ".", Into),
        ("tar --extract -f a.tar", ".", Into),
        ("tar xzf a.tgz -C ~/.claude", "~/.claude", Into),
        ("cd ~ && tar xf a.tar", "~/.", Into),
        ("unzip a.zip", ".", Into),
        ("unzip -o a.zip -d ~/.claude", "~/.claude", Into),
        ("cpio -idv < a.cpio", ".", Into),
        ("7z x a.7z", ".", Into),
        ("7z x a.7z -o~/.claude", "~/.claude", Into),
        ("patch -p1 < fix.diff", ".", Into),
        ("patch -d ~/.claude -p1 < fix.diff", "~/.claude", Into),
        ("patch settings.json fix.diff", "settings.json", File),
        ("patch -o out.json -i fix.diff", "out.json", File),
        ("git apply fix.diff", ".", Into),
        ("git am < x.mbox", ".", Into),
        ("git checkout main", ".", Into),
        ("git restore .", ".", Into),
        ("git reset --hard HEAD~1", ".", Into),
        ("git stash pop", ".", Into),
        ("git stash apply", ".", Into),
        ("git clean -fdx", ".", Into),
        ("git -C ~/.claude checkout .", "~/.claude", Into),
        ("chmod 644 ~/.claude", "~/.claude", Into),
        (
            "chmod -w ~/.claude/settings.json",
            "~/.claude/settings.json",
            Into,
        ),
        ("chown me ~/.claude", "~/.claude", Into),
        ("chgrp -R me ~/.claude", "~/.claude", Into),
        (
            "chattr +i ~/.claude/settings.json",
            "~/.claude/settings.json",
            Into,
        ),
        ("setfacl -m u:x:r ~/.claude", "~/.claude", Into),
        ("chmod +x script.sh", "script.sh", Into),
    ] {
        let t = targets(line);
        assert!(t.contains(&(path.to_string(), kind)), "{line}: {t:?}");
    }
    for (line, written) in [
        ("tar czf out.tgz src", vec![("out.tgz".to_string(), File)]),
        ("tar -cf out.tar src", vec![("out.tar".to_string(), File)]),
        (
            "tar czf /tmp/b.tgz -C ~ .ssh",
            vec![("/tmp/b.tgz".to_string(), File)],
        ),
        ("tar tzf a.tgz", vec![]),
        ("tar -tf a.tar", vec![]),
        ("unzip -l a.zip", vec![]),
        ("sort f", vec![]),
        ("uniq f", vec![]),
        ("xxd f", vec![]),
        ("tree -L 2", vec![]),
        ("sed -n '/x/p' f", vec![]),
        ("sed 's/hello/world/g' f", vec![]),
        ("awk '{print $1}' f", vec![]),
        ("git log --oneline", vec![]),
        ("git -C repo status", vec![]),
        ("git diff", vec![]),
        ("git apply --check fix.diff", vec![]),
        ("yq '.a' cfg.yaml", vec![]),
        ("find . -name '*.rs' -print", vec![]),
        ("git checkout -b feature", vec![(".".to_string(), Into)]),
    ] {
        assert_eq!(targets(line), written, "{line}");
    }
}

/// `git config` writes a config file only for a key whose value git runs as code, and names
/// the file of its scope.
#[test]
fn git_config_writes_only_keys_that_run_code() {
    for (line, want) in [
        ("git config alias.st status", None),
        ("git config --global alias.unstage 'reset HEAD --'", None),
        ("git config --global user.name 'Dev'", None),
        ("git config user.email dev@example.com", None),
        ("git config alias.unstage", None),
        ("git config --get core.pager", None),
        ("git config core.pager", None),
        ("git config --unset core.hooksPath", None),
        ("git config get core.editor", None),
        ("git config --global credential.helper store", None),
        ("git config push.autoSetupRemote true", None),
        ("git config alias.x '!sh -c id'", Some(".git/config")),
        (
            "git config --global alias.x '! make test'",
            Some("~/.gitconfig"),
        ),
        ("git config --global alias.x \"$CMD\"", Some("~/.gitconfig")),
        ("git config core.pager 'sh -c id'", Some(".git/config")),
        ("git config --global core.editor vim", Some("~/.gitconfig")),
        (
            "git config --system core.fsmonitor ./x",
            Some("/etc/gitconfig"),
        ),
        ("git config --file cfg core.hooksPath h", Some("cfg")),
        (
            "git -C repo config core.sshCommand 'ssh -i k'",
            Some("repo/.git/config"),
        ),
        (
            "git config set core.hooksPath .githooks",
            Some(".git/config"),
        ),
        (
            "git config --global filter.lfs.smudge 'git-lfs smudge -- %f'",
            Some("~/.gitconfig"),
        ),
        ("git config diff.png.textconv exiftool", Some(".git/config")),
        ("git config sequence.editor vim", Some(".git/config")),
        (
            "git config credential.helper '!f() { echo x; }; f'",
            Some(".git/config"),
        ),
    ] {
        let got = analyze(line).writes();
        assert_eq!(
            got,
            want.into_iter().map(str::to_string).collect::<Vec<_>>(),
            "{line}"
        );
    }
    // The command a key will run is analysed as a nested line: what it writes is seen.
    let a = analyze("git config --global alias.x '! rm -rf /tmp/x'");
    assert!(a.all_commands().iter().any(|c| c.program == "rm"));
}
