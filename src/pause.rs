//! A per-project pause that a person sets (`intentshield pause`) and the agent cannot.
//!
//! A pause is a small JSON file (a marker) in [`pause_dir`], `~/.local/share/intentshield/pause/`:
//! our own data folder, which the tamper rules protect by name under any home (no tool of the
//! agent may write, remove or replace it, and `intentshield pause` is one of the guard's
//! state-changing commands, which the agent may not run). The hook reads it cheaply: one `stat`
//! of the folder when no pause exists (the usual case); only when the folder exists are its
//! markers read (at most [`MAX_MARKERS`], each at most [`MAX_MARKER_BYTES`]).
//!
//! While a pause covers the working directory of a call (the harness's `cwd` is the project
//! folder or inside it) and has not expired, the checks after the tamper check (provenance,
//! taint, review) do not object: the call is answered with no objection and audited as
//! `pause.project`. The checks before it (MCP quarantine, self-disclosure, injection and secrets
//! in arguments, the built-in always-deny rules, tamper protection) still decide.
//!
//! The folder is found from `$HOME` alone (not `XDG_DATA_HOME`, not `INTENTSHIELD_DB`): a
//! variable the agent got exported must not point the hook at a folder of its own.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Most marker files read from [`pause_dir`]; more are ignored.
pub const MAX_MARKERS: usize = 64;
/// Largest marker file read (bytes); a larger one is ignored.
pub const MAX_MARKER_BYTES: u64 = 4096;
/// Longest pause `intentshield pause --for` accepts (seconds): 7 days.
pub const MAX_PAUSE_SECS: i64 = 7 * 24 * 3600;
/// The pause `intentshield pause` sets without `--for` (seconds): 1 hour.
pub const DEFAULT_PAUSE_SECS: i64 = 3600;

/// One pause: the project folder it covers, until when, and who set it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pause {
    /// The project folder, absolute and canonical when it was set.
    pub project: PathBuf,
    /// Unix time (seconds) the pause was set.
    pub set_at: i64,
    /// Unix time (seconds) it ends.
    pub until: i64,
    /// The terminal it was set at (`/dev/pts/3`, or `unknown`).
    pub terminal: String,
    /// The user id that set it, where known.
    pub uid: Option<u32>,
}

/// `$HOME/.local/share/intentshield/pause`; `None` without a home.
pub fn pause_dir() -> Option<PathBuf> {
    pause_dir_in(&crate::env::path(crate::env::HOME)?)
}

/// [`pause_dir`] under the home folder `home`.
pub fn pause_dir_in(home: &Path) -> Option<PathBuf> {
    home.is_absolute()
        .then(|| home.join(".local/share/intentshield/pause"))
}

/// The marker file of `project` in `dir`: a digest of the path, so any path is one safe name.
pub fn marker_path(dir: &Path, project: &Path) -> PathBuf {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(project.as_os_str().as_encoded_bytes());
    dir.join(format!("{}.json", &crate::text::hex(&digest)[..32]))
}

/// The unexpired pause in `dir` that covers working directory `cwd` at `now` (Unix seconds),
/// if any. One `stat` when `dir` does not exist; never writes, never fails (an unreadable or
/// malformed marker counts as no pause).
pub fn active_in(dir: &Path, cwd: &Path, now: i64) -> Option<Pause> {
    // The usual case: no pause folder, one stat.
    let meta = std::fs::symlink_metadata(dir).ok()?;
    if !meta.is_dir() {
        return None;
    }
    if !cwd.is_absolute() {
        return None;
    }
    let real = std::fs::canonicalize(cwd).ok();
    list_in(dir).into_iter().find(|p| {
        p.until > now
            && (cwd.starts_with(&p.project)
                || real.as_deref().is_some_and(|r| r.starts_with(&p.project)))
    })
}

/// [`active_in`] the default [`pause_dir`].
pub fn active(cwd: &Path, now: i64) -> Option<Pause> {
    active_in(&pause_dir()?, cwd, now)
}

/// Every readable marker in `dir` (expired ones too), at most [`MAX_MARKERS`], sorted by project.
pub fn list_in(dir: &Path) -> Vec<Pause> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<Pause> = entries
        .flatten()
        .take(MAX_MARKERS)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .filter_map(|e| {
            let meta = std::fs::symlink_metadata(e.path()).ok()?;
            if !meta.is_file() || meta.len() > MAX_MARKER_BYTES {
                return None;
            }
            let text = std::fs::read(e.path()).ok()?;
            let p: Pause = serde_json::from_slice(&text).ok()?;
            p.project.is_absolute().then_some(p)
        })
        .collect();
    out.sort_by(|a, b| a.project.cmp(&b.project));
    out
}

/// Writes (or replaces) the marker of `pause.project` in `dir`, creating `dir` (mode 0700).
///
/// # Errors
///
/// The I/O error of creating the folder or writing the file, as `<path>: <e>`.
pub fn set_in(dir: &Path, pause: &Pause) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    }
    let path = marker_path(dir, &pause.project);
    let text = serde_json::to_string_pretty(pause).map_err(|e| e.to_string())?;
    crate::fsutil::write_atomic(
        &path,
        format!("{text}\n").as_bytes(),
        crate::fsutil::Mode::Keep,
    )
    .map_err(|e| e.to_string())?;
    Ok(path)
}

/// Removes the marker of `project` from `dir`; `Ok(false)` when there was none. The folder is
/// removed too once it is empty, so the hook is back to one `stat`.
///
/// # Errors
///
/// The I/O error of removing the file, as `<path>: <e>`.
pub fn end_in(dir: &Path, project: &Path) -> Result<bool, String> {
    let path = marker_path(dir, project);
    let removed = match std::fs::remove_file(&path) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    // Only succeeds when empty.
    let _ = std::fs::remove_dir(dir);
    Ok(removed)
}

/// Parses a pause length: a whole number with a unit, `s`, `m`, `h` or `d` (`90m`, `2h`, `1d`),
/// from 1 minute to 7 days. Returns seconds.
///
/// # Errors
///
/// `invalid pause length '<s>': expected a number with s, m, h or d (1m to 7d), e.g. 30m or 2h`.
pub fn parse_duration(s: &str) -> Result<i64, String> {
    let bad = || {
        format!(
            "invalid pause length '{s}': expected a number with s, m, h or d (1m to 7d), e.g. 30m or 2h"
        )
    };
    let t = s.trim();
    let unit = t.chars().last().ok_or_else(bad)?;
    let mult = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86400,
        _ => return Err(bad()),
    };
    let n: i64 = t[..t.len() - 1].parse().map_err(|_| bad())?;
    let secs = n.checked_mul(mult).ok_or_else(bad)?;
    if (60..=MAX_PAUSE_SECS).contains(&secs) {
        Ok(secs)
    } else {
        Err(bad())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pause(project: &Path, until: i64) -> Pause {
        Pause {
            project: project.to_path_buf(),
            set_at: 100,
            until,
            terminal: "/dev/pts/1".into(),
            uid: Some(1000),
        }
    }

    #[test]
    fn a_pause_covers_its_project_and_folders_inside_until_it_ends() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let dir = root.join("pause");
        let project = root.join("proj");
        std::fs::create_dir_all(project.join("sub")).unwrap();
        std::fs::create_dir_all(root.join("proj2")).unwrap();
        // No folder: no pause.
        assert_eq!(active_in(&dir, &project, 150), None);
        set_in(&dir, &pause(&project, 200)).unwrap();
        assert!(active_in(&dir, &project, 150).is_some());
        assert!(active_in(&dir, &project.join("sub"), 150).is_some());
        // Not a sibling whose name starts the same, not the parent, not after it ended.
        assert_eq!(active_in(&dir, &root.join("proj2"), 150), None);
        assert_eq!(active_in(&dir, &root, 150), None);
        assert_eq!(active_in(&dir, &project, 200), None);
        // A relative cwd is never covered.
        assert_eq!(active_in(&dir, Path::new("proj"), 150), None);
        assert_eq!(list_in(&dir).len(), 1);
        assert!(end_in(&dir, &project).unwrap());
        assert!(!dir.exists(), "the empty folder is removed");
        assert!(!end_in(&dir, &project).unwrap());
    }

    #[test]
    fn malformed_or_oversized_markers_are_no_pause() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("pause");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.json"), "{not json").unwrap();
        let big = format!(
            "{{\"project\":\"/\",\"set_at\":0,\"until\":9999999999,\"terminal\":\"{}\",\"uid\":null}}",
            "x".repeat(5000)
        );
        std::fs::write(dir.join("b.json"), big).unwrap();
        std::fs::write(
            dir.join("c.json"),
            "{\"project\":\"rel\",\"set_at\":0,\"until\":9999999999,\"terminal\":\"t\",\"uid\":null}",
        )
        .unwrap();
        assert_eq!(active_in(&dir, Path::new("/tmp"), 10), None);
        assert!(list_in(&dir).is_empty());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1h"), Ok(3600));
        assert_eq!(parse_duration("30m"), Ok(1800));
        assert_eq!(parse_duration("7d"), Ok(MAX_PAUSE_SECS));
        for bad in [
            "",
            "h",
            "10",
            "8d",
            "30s",
            "-1h",
            "1.5h",
            "1w",
            "99999999999999999d",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_folder_is_under_home_only() {
        assert_eq!(
            pause_dir_in(Path::new("/home/dev")),
            Some(PathBuf::from("/home/dev/.local/share/intentshield/pause"))
        );
        assert_eq!(pause_dir_in(Path::new("rel")), None);
    }
}
