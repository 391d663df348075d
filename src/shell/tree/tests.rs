use crate::shell::analyze;
use crate::shell::testing::{command, targets, writes_path};

#[test]
fn here_strings_are_stdin() {
    let c = command(
        "sqlite3 <<< \".open $HOME/.local/share/intentshield/intentshield.db\"",
        "sqlite3",
    );
    assert_eq!(
        c.heredoc.as_deref(),
        Some(".open $HOME/.local/share/intentshield/intentshield.db")
    );
    assert!(c.args.is_empty());
    assert_eq!(
        command("cat <<<word", "cat").heredoc.as_deref(),
        Some("word")
    );
    assert!(writes_path("bash <<< \"rm -rf ~/.claude\"", "~/.claude"));
    assert!(writes_path(
        "X=~/.claude; bash <<< \"rm -rf $X\"",
        "~/.claude"
    ));
    assert!(writes_path(
        "sh <<<'echo x > ~/.codex/config.toml'",
        "~/.codex/config.toml"
    ));
    // Data fed to a reader writes nothing.
    assert!(targets("grep -c x <<< 'rm -rf ~/.claude'").is_empty());
    assert!(analyze("wc -l <<< \"$(ls)\"").is_read_only());
}

#[test]
fn eval_and_ansi_c_quoting() {
    assert!(writes_path("eval rm -rf ~/.claude", "~/.claude"));
    assert!(writes_path("eval 'rm -rf' '~/.claude'", "~/.claude"));
    assert!(writes_path("X=~/.claude; eval \"rm -rf $X\"", "~/.claude"));
    assert!(writes_path("bash -c $'rm -rf ~/.claude'", "~/.claude"));
    assert!(writes_path(
        "bash -c $'echo x\\n rm -rf ~/.codex'",
        "~/.codex"
    ));
    assert!(writes_path("bash -c $'rm -rf \\x7e/.claude'", "~/.claude"));
    assert!(writes_path("bash -c $'rm -rf \\176/.claude'", "~/.claude"));
    assert_eq!(
        command("echo $'a\\tb\\\\c\\'d\\\"e\\x41\\101\\e'", "echo").args,
        vec!["a\tb\\c'd\"eAA\u{1b}"]
    );
    // A decoded `$` is literal.
    assert_eq!(command("X=a; echo $'\\x24X'", "echo").args, vec!["$X"]);
    assert!(analyze("eval echo hi")
        .all_commands()
        .iter()
        .any(|c| c.program == "echo"));
}
