//! Codex's `apply_patch` format (and unified diffs): which files a patch writes.

/// Files a Codex `apply_patch` text writes: `*** Add File:`, `*** Update File:`,
/// `*** Delete File:` and `*** Move to:` lines, and unified diffs' `+++ b/<path>` headers.
pub fn patch_targets(patch: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in patch.lines().take(100_000) {
        for prefix in [
            "*** Add File:",
            "*** Update File:",
            "*** Delete File:",
            "*** Move to:",
        ] {
            if let Some(rest) = line.strip_prefix(prefix) {
                out.push(rest.trim().to_string());
            }
        }
        // Unified diffs (`+++ b/path`).
        if let Some(rest) = line.strip_prefix("+++ ") {
            let p = rest.trim();
            let p = p.strip_prefix("b/").unwrap_or(p);
            if p != "/dev/null" {
                out.push(p.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_files() {
        let p = "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+x\n*** Update File: src/app.py\n*** End Patch";
        assert_eq!(
            patch_targets(p),
            vec![".git/hooks/pre-commit", "src/app.py"]
        );
        let d = "--- a/x\n+++ b/src/y.rs\n@@\n+z\n--- a/old\n+++ /dev/null\n";
        assert_eq!(patch_targets(d), vec!["src/y.rs"]);
    }
}
