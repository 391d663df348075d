//! The one atomic file writer, shared by `install`/`uninstall` (settings files and their
//! backups, through `install::fsutil::atomic_write`) and `wrap`/`unwrap` (MCP configs, their
//! backups and sidecars). Never on the hook's path.
//!
//! A write goes to a temporary file in the target's own directory (so the rename stays on one
//! file system), which gets its mode before any byte is written, is written and `fsync`ed, and
//! is then renamed over the target: a reader sees the old file or the new one, never a part.
//! A failed write leaves the target as it was and removes the temporary file. Built on
//! `tempfile` (`Builder::tempfile_in` + `NamedTempFile::persist`). Symlinks are not followed
//! here: callers resolve them first (`install::fsutil::resolve`).

use std::fmt;
use std::fs::{self, Permissions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The permissions the written file ends up with.
#[derive(Debug, Clone)]
pub enum Mode {
    /// The target's current permissions when it exists; a new file gets what `File::create`
    /// gives (0o666 minus the umask on Unix).
    Keep,
    /// Exactly these, from the start (a backup that may hold secrets, an owner-only sidecar).
    Exactly(Permissions),
}

/// The step of a write that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Creating the missing parent directories ([`WriteError::path`] is the directory).
    CreateDir,
    /// Creating the temporary file next to the target.
    CreateTemp,
    /// Setting the mode, writing, syncing or renaming over the target.
    Write,
}

/// A failed atomic write: the step, the file it names and the cause. Displays as
/// `<path>: <cause>`.
#[derive(Debug)]
pub struct WriteError {
    /// What failed.
    pub step: Step,
    /// The file (or, for [`Step::CreateDir`], the directory) the error is about.
    pub path: PathBuf,
    /// The underlying error.
    pub source: io::Error,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.source)
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Writes `bytes` to `path` atomically with the permissions `mode` says, creating missing
/// parent directories.
///
/// # Errors
/// A [`WriteError`] naming the step and the file: the parent directory cannot be created, the
/// temporary file cannot be created in it, or setting the mode, writing, syncing or the rename
/// failed. In every case the target is unchanged.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: Mode) -> Result<(), WriteError> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|source| WriteError {
        step: Step::CreateDir,
        path: dir.to_path_buf(),
        source,
    })?;
    let perm = match mode {
        Mode::Exactly(p) => Some(p),
        Mode::Keep => fs::metadata(path).ok().map(|m| m.permissions()),
    };
    let fail = |step, source| WriteError {
        step,
        path: path.to_path_buf(),
        source,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let prefix = format!(".{name}.intentshield-");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    if perm.is_none() {
        // A new file: what `File::create` would give (tempfile's default is 0o600).
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(Permissions::from_mode(0o666));
    }
    let mut tmp = builder
        .tempfile_in(dir)
        .map_err(|e| fail(Step::CreateTemp, e))?;
    let written = (|| -> io::Result<()> {
        if let Some(p) = perm {
            tmp.as_file().set_permissions(p)?;
        }
        tmp.write_all(bytes)?;
        tmp.as_file().sync_all()
    })();
    written.map_err(|e| fail(Step::Write, e))?;
    // On failure the returned temporary file is dropped, which removes it.
    tmp.persist(path).map_err(|e| fail(Step::Write, e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replaces_and_leaves_no_temporary_file() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("sub").join("a.json");
        write_atomic(&f, b"one", Mode::Keep).unwrap();
        write_atomic(&f, b"two", Mode::Keep).unwrap();
        assert_eq!(fs::read_to_string(&f).unwrap(), "two");
        let names: Vec<_> = fs::read_dir(f.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("a.json")]);
    }

    #[cfg(unix)]
    #[test]
    fn modes() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        // A new file gets 0o666 minus the umask, like `File::create`.
        let fresh = d.path().join("fresh");
        fs::File::create(d.path().join("reference")).unwrap();
        write_atomic(&fresh, b"x", Mode::Keep).unwrap();
        assert_eq!(mode(&fresh), mode(&d.path().join("reference")));
        // An existing file keeps its mode.
        let kept = d.path().join("kept");
        fs::write(&kept, "old").unwrap();
        fs::set_permissions(&kept, Permissions::from_mode(0o640)).unwrap();
        write_atomic(&kept, b"new", Mode::Keep).unwrap();
        assert_eq!(mode(&kept), 0o640);
        // An explicit mode wins.
        write_atomic(
            &kept,
            b"newer",
            Mode::Exactly(Permissions::from_mode(0o600)),
        )
        .unwrap();
        assert_eq!(mode(&kept), 0o600);
    }

    #[test]
    fn errors_name_the_file() {
        let d = tempfile::tempdir().unwrap();
        let blocker = d.path().join("blocker");
        fs::write(&blocker, "a file, not a directory").unwrap();
        let e = write_atomic(&blocker.join("x.json"), b"x", Mode::Keep).unwrap_err();
        assert_eq!(e.step, Step::CreateDir);
        assert!(e.to_string().starts_with(&blocker.display().to_string()));
    }
}
