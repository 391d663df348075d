use super::*;
use crate::shell::analyze;
use crate::shell::testing::{command, targets, writes_path};

#[test]
fn variables_are_substituted() {
    for (line, path) in [
        ("X=~/.claude; rm -rf $X", "~/.claude"),
        ("X=~/.claude && rm -rf ${X}", "~/.claude"),
        (
            "X=~/.claude; rm -rf \"$X\"/settings.json",
            "~/.claude/settings.json",
        ),
        (
            "export X=~/.codex; echo > $X/config.toml",
            "~/.codex/config.toml",
        ),
        (
            "D=$HOME/.claude; E=$D/hooks; touch $E/x",
            "$HOME/.claude/hooks/x",
        ),
        ("X=~/.claude; sh -c \"rm -rf $X\"", "~/.claude"),
        ("export X=~/.claude; bash -c 'rm -rf $X'", "~/.claude"),
        ("X=~/.claude; echo $(rm -rf $X)", "~/.claude"),
        ("X=~/.claude bash -c 'rm -rf $X'", "~/.claude"),
        ("sh -c 'rm -rf \"$1\"' _ ~/.claude", "~/.claude"),
        (
            "X=~/.claude; cd $X && rm settings.json",
            "~/.claude/settings.json",
        ),
    ] {
        assert!(writes_path(line, path), "{line}: {:?}", targets(line));
    }
    let c = command(
        "D=$HOME/.local/share/intentshield; sqlite3 $D/x.db",
        "sqlite3",
    );
    assert_eq!(c.args, vec!["$HOME/.local/share/intentshield/x.db"]);
    // A prefix assignment is the command's environment, not the line's variable.
    let c = command("X=~/.claude rm -rf $X", "rm");
    assert_eq!(c.args, vec!["-rf", "$X"]);
    assert_eq!(c.env, vec![("X".to_string(), "~/.claude".to_string())]);
    // Unknown, quoted, substituted and unexported-to-a-child variables stay as written.
    assert_eq!(command("rm -rf $Y", "rm").args, vec!["-rf", "$Y"]);
    assert_eq!(
        command("X=a; echo '$X' \\$X", "echo").args,
        vec!["$X", "$X"]
    );
    assert_eq!(command("X=$(date); rm $X", "rm").args, vec!["$X"]);
    // `$(pwd)` reads `$PWD` (the working directory, resolved by the catastrophic family).
    assert_eq!(command("X=$(pwd); rm $X", "rm").args, vec!["$PWD"]);
    assert_eq!(command("X=a; unset X; rm $X", "rm").args, vec!["$X"]);
    assert_eq!(command("X=a; bash -c 'rm $X'", "rm").args, vec!["$X"]);
    assert_eq!(command("X=a; rm ${X:-b}", "rm").args, vec!["${X:-b}"]);
    // No expansion loops: a value is not expanded again.
    assert_eq!(command("X='$X$X'; echo $X", "echo").args, vec!["$X$X"]);
    // Bounded: too many variables or too long values are forgotten.
    let long = "a".repeat(MAX_VALUE + 1);
    assert_eq!(
        command(&format!("X={long}; echo $X"), "echo").args,
        vec!["$X"]
    );
    let many: String = (0..200).map(|k| format!("V{k}=x;")).collect();
    assert_eq!(
        command(&format!("{many} echo $V199"), "echo").args,
        vec!["$V199"]
    );
    let doubling: String = (0..20).map(|_| "X=$X$X$X$X;").collect();
    let a = analyze(&format!("X=aaaa;{doubling} echo $X"));
    assert!(a.all_commands().iter().all(|c| c
        .args
        .iter()
        .all(|w| w.len() <= crate::shell::words::MAX_WORD)));
}

#[test]
fn xargs_gets_literal_words() {
    for (line, path) in [
        ("echo ~/.claude | xargs rm -rf", "~/.claude"),
        (
            "printf '%s\\n' ~/.claude ~/.codex | xargs -r rm -rf",
            "~/.codex",
        ),
        ("printf '~/.claude\\n' | xargs -n1 rm -rf", "~/.claude"),
        (
            "echo ~/.claude | xargs -I{} rm -rf {}/settings.json",
            "~/.claude/settings.json",
        ),
        (
            "printf 'a\\n~/.gemini\\n' | xargs -I % cp evil %/settings.json",
            "~/.gemini/settings.json",
        ),
        ("printf 'x\\0~/.claude' | xargs -0 rm -rf", "~/.claude"),
        (
            "echo 'rm -rf ~/.claude' | xargs -I{} sh -c '{}'",
            "~/.claude",
        ),
    ] {
        assert!(writes_path(line, path), "{line}: {:?}", targets(line));
    }
    let c = command("echo a b | xargs -n1 echo", "echo");
    assert!(!c.via_xargs);
    let a = analyze("echo a b | xargs -n1 echo");
    let run = &a.pipelines[0][1];
    assert!(run.via_xargs);
    assert_eq!(run.args, vec!["a", "b"]);
    assert!(a.is_read_only());
    // A producer that is not literal leaves the arguments as written.
    let a = analyze("ls | xargs rm");
    assert!(a.pipelines[0][1].args.is_empty() && a.pipelines[0][1].via_xargs);
}
