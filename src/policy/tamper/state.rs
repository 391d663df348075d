//! Our database, its companions, our config and binary opened by another program: reading
//! them whole with a known read-only program is fine, anything else is tampering.

use super::in_place;
use crate::paths::{PathContext, Protection};
use crate::shell::Analysis;

/// A program other than a known read-only one that is given one of our own files (as an
/// argument, a redirection, or inside an inline script or here-document): `(program, file)`.
pub(super) fn opens_own_state(a: &Analysis, paths: &PathContext) -> Option<(String, String)> {
    let own_forms = own_text_forms(paths);
    for c in a.all_commands() {
        // Known read-only programs may be given our files whole (`cat config.toml`).
        let reads = c.is_read_only() && !c.is_interpreter() && !in_place(c);
        let words = c
            .args
            .iter()
            .chain(&c.redirect_reads)
            .chain(c.heredoc.iter());
        for w in words {
            // One word that could name a file (`intentshield.db` after a `cd`, `~/x`, `/x`).
            let whole_path = !w.is_empty()
                && w.len() <= 4096
                && !w.starts_with('-')
                && !w.contains(char::is_whitespace);
            if whole_path && reads {
                // A file a reading program is given (`cat config.toml`).
                continue;
            }
            if whole_path {
                let located = c.dir.locate(w).unwrap_or_else(|| w.clone());
                let is_own = paths
                    .protection(&located, false)
                    .is_some_and(|p| p == Protection::Is("protect.intentshield_state"));
                if is_own {
                    return Some((c.program.clone(), w.clone()));
                }
            }
            // Our path inside a longer word is code or a script, whatever the program
            // (`python3 -c "…open('~/.local/share/intentshield/…')"`, SQL, `sed '1e sqlite3 …'`,
            // `git log --output=…`).
            if let Some(f) = own_forms.iter().find(|f| w.contains(f.as_str())) {
                return Some((c.program.clone(), f.clone()));
            }
        }
    }
    None
}

/// The ways our own files can be written in a script: absolute, `~/…`, `$HOME/…`.
fn own_text_forms(paths: &PathContext) -> Vec<String> {
    let home = paths.home.as_deref().unwrap_or("");
    let mut out = Vec::new();
    for o in &paths.own {
        let s = o.to_string_lossy().to_string();
        if s.len() < 4 {
            continue;
        }
        if let Some(rest) = (!home.is_empty()).then(|| s.strip_prefix(home)).flatten() {
            let rest = rest.trim_start_matches('/');
            out.push(format!("~/{rest}"));
            out.push(format!("$HOME/{rest}"));
            out.push(format!("${{HOME}}/{rest}"));
        }
        out.push(s);
    }
    out
}
