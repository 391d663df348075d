use super::nesting;
use crate::shell::testing::{command, targets, writes_path};
use crate::shell::{analyze, Unanalysable, MAX_NESTING};

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

/// Every kind of nesting, `n` levels deep.
fn nested_forms(n: usize) -> Vec<(&'static str, String)> {
    vec![
        ("parens", format!("{}ls{}", "( ".repeat(n), " )".repeat(n))),
        ("braces", format!("{}ls{}", "{ ".repeat(n), "; }".repeat(n))),
        (
            "if",
            format!("{}ls{}", "if true; then ".repeat(n), "; fi".repeat(n)),
        ),
        (
            "subst",
            format!("echo {}ls{}", "$(echo ".repeat(n), ")".repeat(n)),
        ),
        (
            "param",
            format!("echo {}x{}", "${a:-".repeat(n), "}".repeat(n)),
        ),
        (
            "arith",
            format!("echo $(({}1{}))", "(".repeat(n), ")".repeat(n)),
        ),
        (
            "while",
            format!("{}ls{}", "while true; do ".repeat(n), "; done".repeat(n)),
        ),
        (
            "case",
            format!("{}ls{}", "case x in x) ".repeat(n), ";; esac".repeat(n)),
        ),
        (
            "quoted",
            format!("echo {}x{}", "\"$(echo ".repeat(n), ")\"".repeat(n)),
        ),
        (
            "procsub",
            format!("cat {}x{}", "<(cat ".repeat(n), ")".repeat(n)),
        ),
        (
            "func",
            format!("{}ls{}", "f() { ".repeat(n), "; }".repeat(n)),
        ),
        (
            "pipes",
            format!("{}ls{}", "{ ls | ".repeat(n), "; }".repeat(n)),
        ),
        (
            "mixed",
            format!(
                "{}ls{}",
                "( { $(if x; then ".repeat(n / 4),
                "; fi) ; } )".repeat(n / 4)
            ),
        ),
    ]
}

#[test]
fn nesting_is_bounded_before_parsing() {
    // At the bound every form is parsed without exhausting a test thread's stack (2 MiB, debug
    // build; the measured overflow was past 90 levels); past it the line is unanalysable.
    for (name, text) in nested_forms(MAX_NESTING - 2) {
        let a = analyze(&text);
        assert!(
            !matches!(
                a.unanalysable,
                Some(Unanalysable::Panic | Unanalysable::Unparsable(_))
            ),
            "{name}: {:?}",
            a.unanalysable
        );
    }
    for (name, text) in nested_forms(MAX_NESTING + 4) {
        assert!(analyze(&text).incomplete, "{name}");
    }
    assert_eq!(nesting("case x in a) ls;; b) ls;; esac"), 1);
    assert_eq!(nesting("echo ')' ; ( ( ls ) )"), 2);
}
