//! A per-project pause that a person sets (`intentshield pause`) and the agent cannot.
//!
//! A pause is a small JSON file (a marker) in [`pause_dir`], `~/.local/share/intentshield/pause/`:
//! our own data folder, which the tamper rules protect by name under any home (no tool of the
//! agent may write, remove or replace it, and `intentshield pause` is one of the guard's
//! state-changing commands, which the agent may not run). The hook reads it cheaply: one `stat`
//! of the folder when no pause exists (the usual case); only when the folder exists are its
//! markers read (at most [`MAX_MARKERS`], each at most [`MAX_MARKER_BYTES`]).
//!
//! Every marker is checked before it counts ([`scan_in`]): the agent may find a way to write a
//! file that the tamper rules do not see, and such a file must not pause the whole disk, the
//! home folder, or for long.
//!
//! While a valid pause covers the working directory of a call (the harness's `cwd`, and a
//! shell tool's own folder argument, are the project folder or inside it, with `..` and
//! symlinks resolved) and has not expired, the checks after the tamper check (provenance,
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

/// The unexpired, valid pause in `dir` that covers working directory `cwd` at `now` (Unix
/// seconds), if any. One `stat` when `dir` does not exist; never writes, never fails (an
/// unreadable, malformed or invalid marker counts as no pause: see [`scan_in`]).
pub fn active_in(dir: &Path, cwd: &Path, now: i64) -> Option<Pause> {
    active_call_in(dir, cwd, None, now)
}

/// [`active_in`] for a call that also names its own folder `call_dir` (a shell tool's
/// `workdir`, `dir_path` or `cwd` argument, resolved against `cwd`): the pause covers the call
/// only when both `cwd` and `call_dir` are inside its project.
pub fn active_call_in(dir: &Path, cwd: &Path, call_dir: Option<&Path>, now: i64) -> Option<Pause> {
    // The usual case: no pause folder, one stat.
    let meta = std::fs::symlink_metadata(dir).ok()?;
    if !meta.is_dir() {
        return None;
    }
    let places: Vec<&Path> = std::iter::once(cwd).chain(call_dir).collect();
    if places.iter().any(|p| !p.is_absolute()) {
        return None;
    }
    list_in(dir, now)
        .into_iter()
        .find(|p| p.until > now && places.iter().all(|d| covers(&p.project, d)))
}

/// [`active_in`] the default [`pause_dir`].
pub fn active(cwd: &Path, now: i64) -> Option<Pause> {
    active_in(&pause_dir()?, cwd, now)
}

/// [`active_call_in`] the default [`pause_dir`]. The hook passes the event's `cwd` and the
/// folder the call runs in (`call_dir`: the tool's own folder argument, else the same cwd).
pub fn active_call(cwd: &str, call_dir: Option<String>, now: i64) -> Option<Pause> {
    let call_dir = call_dir.map(PathBuf::from);
    active_call_in(&pause_dir()?, Path::new(cwd), call_dir.as_deref(), now)
}

/// True when the absolute folder `dir` is `project` or inside it, both with `.` and `..`
/// removed lexically and where it really is through the symlinks that exist now (a pause of
/// `~/proj` covers neither `~/proj/../other` nor `~/proj/link` pointing to `~/other`).
fn covers(project: &Path, dir: &Path) -> bool {
    let lexical = crate::paths::normalize(dir);
    if !lexical.starts_with(project) {
        return false;
    }
    let ctx = crate::paths::PathContext::new(None, Vec::new());
    ctx.real(&lexical)
        .is_none_or(|real| real.starts_with(project))
}

/// One file found in the pause folder: the pause it holds when it could be read, and why it is
/// ignored when it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// The file.
    pub file: PathBuf,
    /// The pause it holds, when it is a readable marker.
    pub pause: Option<Pause>,
    /// Why the hook ignores it (`None`: a valid marker, which covers its project until it ends).
    pub ignored: Option<String>,
}

/// Every marker file in `dir` (at most [`MAX_MARKERS`] files named `*.json`), valid or not, at
/// `now` (Unix seconds), sorted by project. A marker is valid only when it is a regular file
/// of at most [`MAX_MARKER_BYTES`] owned by the current user (`geteuid`) with
/// no group or other write permission; it parses as a [`Pause`]; its file name is the digest
/// of its project ([`marker_path`]); the project is absolute, without `.` or `..`, its own
/// real path, an existing folder, and neither `/` nor the home folder nor above it; its
/// `set_at` is not in the future; and `until - set_at` is between 1 second and
/// [`MAX_PAUSE_SECS`]. The agent may be able to write a file the tamper rules do not see: such
/// a marker cannot pause everything, or pause for long.
pub fn scan_in(dir: &Path, now: i64) -> Vec<Marker> {
    let home = crate::env::path(crate::env::HOME);
    scan(dir, now, home.as_deref(), crate::env::current_uid())
}

/// The valid markers of [`scan_in`] (expired ones too), sorted by project.
pub fn list_in(dir: &Path, now: i64) -> Vec<Pause> {
    scan_in(dir, now)
        .into_iter()
        .filter(|m| m.ignored.is_none())
        .filter_map(|m| m.pause)
        .collect()
}

fn scan(dir: &Path, now: i64, home: Option<&Path>, uid: Option<u32>) -> Vec<Marker> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<Marker> = entries
        .flatten()
        .take(MAX_MARKERS)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .map(|e| {
            let file = e.path();
            let (pause, problem) = match read_marker(&file, uid) {
                Ok(p) => {
                    let why = invalid(dir, &file, &p, now, home).err();
                    (Some(p), why)
                }
                Err(why) => (None, Some(why)),
            };
            Marker {
                file,
                pause,
                ignored: problem,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        let key = |m: &Marker| m.pause.as_ref().map(|p| p.project.clone());
        key(a).cmp(&key(b)).then_with(|| a.file.cmp(&b.file))
    });
    out
}

/// The marker's pause, or why the file is no marker of ours.
fn read_marker(file: &Path, uid: Option<u32>) -> Result<Pause, String> {
    let meta = std::fs::symlink_metadata(file).map_err(|e| format!("unreadable: {e}"))?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > MAX_MARKER_BYTES {
        return Err(format!("larger than {MAX_MARKER_BYTES} bytes"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let me = uid.ok_or("the current user cannot be told on this system")?;
        if meta.uid() != me {
            return Err(format!("owned by user {}, not by you ({me})", meta.uid()));
        }
        if meta.mode() & 0o022 != 0 {
            return Err(format!(
                "writable by group or others (mode {:o})",
                meta.mode() & 0o777
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = uid;
    let text = std::fs::read(file).map_err(|e| format!("unreadable: {e}"))?;
    serde_json::from_slice(&text).map_err(|e| format!("not a pause marker: {e}"))
}

/// `Err(why)` when the marker at `file` in `dir` does not hold a pause `intentshield pause`
/// could have written (see [`scan_in`]).
fn invalid(
    dir: &Path,
    file: &Path,
    p: &Pause,
    now: i64,
    home: Option<&Path>,
) -> Result<(), String> {
    let project = &p.project;
    if file.file_name() != marker_path(dir, project).file_name() {
        return Err("its file name is not the digest of its project".into());
    }
    if !project.is_absolute() {
        return Err("the project is not an absolute path".into());
    }
    if crate::paths::normalize(project).as_os_str() != project.as_os_str() {
        return Err("the project path holds `.`, `..` or empty parts".into());
    }
    if project.parent().is_none() {
        return Err("the project is the whole disk (/)".into());
    }
    if let Some(h) = home {
        let real_home = std::fs::canonicalize(h).ok();
        if std::iter::once(h)
            .chain(real_home.as_deref())
            .any(|h| h.starts_with(project))
        {
            return Err("the project is the home folder or above it".into());
        }
    }
    if std::fs::canonicalize(project).ok().as_deref() != Some(project.as_path())
        || !project.is_dir()
    {
        return Err("the project is not an existing folder named by its real path".into());
    }
    if p.set_at > now {
        return Err("it was set in the future".into());
    }
    let length = p.until.saturating_sub(p.set_at);
    if length <= 0 || length > MAX_PAUSE_SECS {
        return Err(format!(
            "its length is not between 1 second and {} days",
            MAX_PAUSE_SECS / 86400
        ));
    }
    Ok(())
}

/// `Err(why)` when `project` (canonical) may not be paused: `/`, or the home folder `home` or
/// a folder above it (such a marker would be ignored, see [`scan_in`]).
///
/// # Errors
///
/// `refused: <project> is the whole disk` or `refused: <project> is your home folder or above
/// it; pause a project folder`.
pub fn check_project(project: &Path, home: Option<&Path>) -> Result<(), String> {
    if project.parent().is_none() {
        return Err(format!(
            "refused: {} is the whole disk; pause a project folder",
            project.display()
        ));
    }
    if let Some(h) = home {
        let real_home = std::fs::canonicalize(h).ok();
        if std::iter::once(h)
            .chain(real_home.as_deref())
            .any(|h| h.starts_with(project))
        {
            return Err(format!(
                "refused: {} is your home folder or above it; pause a project folder",
                project.display()
            ));
        }
    }
    Ok(())
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
    crate::fsutil::write_atomic(&path, format!("{text}\n").as_bytes(), owner_only())
        .map_err(|e| e.to_string())?;
    Ok(path)
}

/// Owner read and write only: a marker that others could write is ignored.
fn owner_only() -> crate::fsutil::Mode {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        crate::fsutil::Mode::Exactly(std::fs::Permissions::from_mode(0o600))
    }
    #[cfg(not(unix))]
    {
        crate::fsutil::Mode::Keep
    }
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
        assert_eq!(list_in(&dir, 150).len(), 1);
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
        assert!(list_in(&dir, 10).is_empty());
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

    fn write_marker(dir: &Path, name: Option<&str>, p: &Pause) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        let path = match name {
            Some(n) => dir.join(n),
            None => marker_path(dir, &p.project),
        };
        std::fs::write(&path, serde_json::to_string(p).unwrap()).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        path
    }

    #[test]
    fn a_marker_that_pause_could_not_have_written_is_ignored_with_why() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let home = root.join("home");
        let project = home.join("proj");
        std::fs::create_dir_all(&project).unwrap();
        let dir = root.join("pause");
        let uid = crate::env::current_uid();
        let now = 10_000;
        let ok = Pause {
            project: project.clone(),
            set_at: now - 10,
            until: now + 3600,
            terminal: "t".into(),
            uid,
        };
        let why = |p: &Pause, name: Option<&str>| -> Option<String> {
            let _ = std::fs::remove_dir_all(&dir);
            write_marker(&dir, name, p);
            let all = scan(&dir, now, Some(&home), uid);
            assert_eq!(all.len(), 1);
            all[0].ignored.clone()
        };
        assert_eq!(why(&ok, None), None);
        let with = |f: &dyn Fn(&mut Pause)| {
            let mut p = ok.clone();
            f(&mut p);
            p
        };
        for (p, name, want) in [
            (ok.clone(), Some("0123.json"), "digest"),
            (with(&|p| p.project = "/".into()), None, "whole disk"),
            (with(&|p| p.project = home.clone()), None, "home folder"),
            (with(&|p| p.project = root.clone()), None, "home folder"),
            (
                with(&|p| p.project = project.join("..").join("proj")),
                None,
                "`..`",
            ),
            (with(&|p| p.project = "rel".into()), None, "absolute"),
            (
                with(&|p| p.project = project.join("missing")),
                None,
                "existing folder",
            ),
            (with(&|p| p.until = 4_102_444_800), None, "length"),
            (with(&|p| p.until = p.set_at), None, "length"),
            (with(&|p| p.set_at = now + 5), None, "future"),
        ] {
            let got = why(&p, name).unwrap_or_default();
            assert!(got.contains(want), "{p:?}: {got}");
        }
        // Writable by others, or owned by another user.
        let _ = std::fs::remove_dir_all(&dir);
        let path = write_marker(&dir, None, &ok);
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
        let got = scan(&dir, now, Some(&home), uid);
        assert!(got[0]
            .ignored
            .as_deref()
            .unwrap_or_default()
            .contains("writable"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let other = uid.map(|u| u.wrapping_add(1));
        let got = scan(&dir, now, Some(&home), other);
        assert!(got[0]
            .ignored
            .as_deref()
            .unwrap_or_default()
            .contains("owned by"));
        assert!(scan(&dir, now, Some(&home), None)[0].ignored.is_some());
        // A symlink is no regular file.
        let _ = std::fs::remove_dir_all(&dir);
        let real = write_marker(&root, Some("real.json"), &ok);
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::symlink(&real, marker_path(&dir, &project)).unwrap();
        let got = scan(&dir, now, Some(&home), uid);
        assert!(got[0]
            .ignored
            .as_deref()
            .unwrap_or_default()
            .contains("regular"));
        // What `set_in` writes is valid (owner-only, whatever the umask).
        let _ = std::fs::remove_dir_all(&dir);
        set_in(&dir, &ok).unwrap();
        assert_eq!(scan(&dir, now, Some(&home), uid)[0].ignored, None);
    }

    #[test]
    fn a_pause_covers_neither_dot_dot_nor_a_symlink_out_nor_a_tool_folder_outside() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let dir = root.join("pause");
        let project = root.join("proj");
        let other = root.join("other");
        std::fs::create_dir_all(project.join("sub")).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        std::os::unix::fs::symlink(&other, project.join("link")).unwrap();
        let now = crate::state::now();
        let mut p = pause(&project, now + 600);
        p.set_at = now - 1;
        set_in(&dir, &p).unwrap();
        assert!(active_in(&dir, &project.join("sub"), now).is_some());
        assert!(active_in(&dir, &project.join("sub/../sub"), now).is_some());
        assert_eq!(active_in(&dir, &project.join("../other"), now), None);
        assert_eq!(active_in(&dir, &project.join("sub/../../other"), now), None);
        assert_eq!(active_in(&dir, &project.join("link"), now), None);
        assert_eq!(active_in(&dir, &project.join("link/new/dir"), now), None);
        // A folder that does not exist yet, inside: covered.
        assert!(active_in(&dir, &project.join("new/dir"), now).is_some());
        // The tool's own folder must be inside too.
        assert!(active_call_in(&dir, &project, Some(&project.join("sub")), now).is_some());
        assert_eq!(active_call_in(&dir, &project, Some(&other), now), None);
        assert_eq!(
            active_call_in(&dir, &project, Some(&project.join("link")), now),
            None
        );
        assert_eq!(active_call_in(&dir, &other, Some(&project), now), None);
    }

    #[test]
    fn pause_refuses_the_disk_and_the_home() {
        let home = Path::new("/home/dev");
        assert!(check_project(Path::new("/"), Some(home)).is_err());
        assert!(check_project(Path::new("/home"), Some(home)).is_err());
        assert!(check_project(home, Some(home)).is_err());
        assert!(check_project(Path::new("/home/dev/proj"), Some(home)).is_ok());
        assert!(check_project(Path::new("/home/other"), Some(home)).is_ok());
    }
}
