use super::*;
use crate::shell::analyze;
use crate::shell::testing::{command, writes_path};

#[test]
fn wrappers_are_unwrapped() {
    for (line, program, args) in [
        ("busybox rm -rf x", "rm", vec!["-rf", "x"]),
        ("setsid -f rm x", "rm", vec!["x"]),
        ("flock /tmp/l rm x", "rm", vec!["x"]),
        ("flock -w 5 /tmp/l rm x", "rm", vec!["x"]),
        ("chroot / rm x", "rm", vec!["x"]),
        ("chroot --userspec=a:b / rm x", "rm", vec!["x"]),
        ("exec -a name rm x", "rm", vec!["x"]),
        ("timeout -s KILL 5 rm x", "rm", vec!["x"]),
        ("timeout --signal=KILL -k 2 5s rm x", "rm", vec!["x"]),
        ("timeout --kill-after 2 5 rm x", "rm", vec!["x"]),
        ("nice -n 5 rm x", "rm", vec!["x"]),
        ("nice -5 rm x", "rm", vec!["x"]),
        ("ionice -c 3 rm x", "rm", vec!["x"]),
        ("ionice -c3 -n 7 rm x", "rm", vec!["x"]),
        ("stdbuf -oL rm x", "rm", vec!["x"]),
        ("stdbuf -o L -e 0 rm x", "rm", vec!["x"]),
        ("sudo -u root rm x", "rm", vec!["x"]),
        ("sudo --user root -E rm x", "rm", vec!["x"]),
        ("doas -u root rm x", "rm", vec!["x"]),
        ("nohup rm x", "rm", vec!["x"]),
        ("command -p rm x", "rm", vec!["x"]),
        ("command -- rm x", "rm", vec!["x"]),
        ("builtin rm x", "rm", vec!["x"]),
        ("env -i A=1 rm x", "rm", vec!["x"]),
        ("env -u HOME rm x", "rm", vec!["x"]),
        ("sudo -u a timeout 5 nice -n 1 rm x", "rm", vec!["x"]),
    ] {
        let a = analyze(line);
        let c = &a.pipelines[0][0];
        assert_eq!(
            (c.program.as_str(), &c.args),
            (program, &args.iter().map(|s| s.to_string()).collect()),
            "{line}"
        );
    }
    assert_eq!(
        command("env -i A=1 rm x", "rm").env,
        vec![("A".to_string(), "1".to_string())]
    );
    // Scripts: `flock -c`, `env -S`.
    assert!(writes_path(
        "flock /tmp/l -c 'rm -rf ~/.claude'",
        "~/.claude"
    ));
    assert!(writes_path(
        "flock -n /tmp/l --command 'rm -rf ~/.claude'",
        "~/.claude"
    ));
    assert!(writes_path("env -S 'rm -rf ~/.claude'", "~/.claude"));
    assert!(writes_path(
        "env --split-string='rm -rf ~/.claude'",
        "~/.claude"
    ));
    // A wrapper with nothing to run is itself; `command -v` looks a name up.
    assert_eq!(analyze("env").pipelines[0][0].program, "env");
    assert_eq!(analyze("sudo -u root").pipelines[0][0].program, "sudo");
    assert_eq!(analyze("command -v rm").pipelines[0][0].program, "command");
    assert_eq!(analyze("flock 9").pipelines[0][0].program, "flock");
}

#[test]
fn cd_to_a_glob_is_unknown() {
    for t in ["~/.cl*", "~/.cl?ude", "~/.[c]laude", "~/.{claude,codex}"] {
        assert_eq!(Dir::Start.cd(&[t.to_string()]), Dir::Unknown, "{t}");
    }
    assert_eq!(
        Dir::Start.cd(&["~/.claude".to_string()]),
        Dir::At("~/.claude".into())
    );
}
