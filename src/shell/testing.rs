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
