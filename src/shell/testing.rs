//! Helpers shared by the shell analysis tests.

use super::{analyze, Analysis, SimpleCommand, WriteKind};

/// Asserts `found` holds for every command in `yes` and for none in `no`.
pub(super) fn cases(found: impl Fn(&Analysis) -> bool, yes: &[&str], no: &[&str]) {
    for c in yes {
        assert!(found(&analyze(c)), "{c}");
    }
    for c in no {
        assert!(!found(&analyze(c)), "{c}");
    }
}

/// The located write targets of a line as `(path, kind)`.
pub(super) fn targets(line: &str) -> Vec<(String, WriteKind)> {
    analyze(line)
        .write_targets()
        .into_iter()
        .map(|t| (t.path, t.kind))
        .collect()
}

/// True when `line` writes `path` (any kind).
pub(super) fn writes_path(line: &str, path: &str) -> bool {
    targets(line).iter().any(|(p, _)| p == path)
}

/// The first command (nested ones included) running `program`.
pub(super) fn command(line: &str, program: &str) -> SimpleCommand {
    analyze(line)
        .all_commands()
        .into_iter()
        .find(|c| c.program == program)
        .cloned()
        .unwrap_or_else(|| panic!("no {program} in {line}"))
}

#[test]
#[ignore]
fn dbg_dump() {
    for l in std::env::var("DBG").unwrap_or_default().split("@@") {
        let a = analyze(l);
        eprintln!("=== {l}");
        for (i, p) in a.pipelines.iter().enumerate() {
            for c in p {
                eprintln!("P{i} env={:?} prog={:?} argv0={:?} args={:?} rr={:?} rw={:?} comp={} nested_script={:?}", c.env, c.program, c.argv0, c.args, c.redirect_reads, c.redirect_writes, c.computed_program, c.nested_script);
            }
        }
        for (pi, ci, n) in &a.nested {
            eprintln!(" nested@{pi},{ci}:");
            for p in &n.pipelines {
                for c in p {
                    eprintln!("   prog={:?} args={:?} rr={:?} rw={:?}", c.program, c.args, c.redirect_reads, c.redirect_writes);
                }
            }
            eprintln!("   (+{} nested)", n.nested.len());
        }
    }
}
