//! File access for install/uninstall: bounded reads, atomic writes that keep the mode, one
//! backup per settings file (the text before our first install, with the file's permissions).

use super::InstallError;
use crate::fsutil::{Mode, Step};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest settings file we read (hand-written settings are a few KiB).
pub const MAX_SETTINGS_BYTES: u64 = 4 * 1024 * 1024;

/// The backup path of a settings file: `<file>.intentshield.bak`, next to it.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".intentshield.bak");
    PathBuf::from(s)
}

/// Follows symlinks so that a settings file managed as a symlink (dotfile managers) is
/// rewritten where it lives instead of being replaced by a regular file.
pub fn resolve(path: &Path) -> PathBuf {
    match fs::canonicalize(path) {
        Ok(p) if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) => p,
        _ => path.to_path_buf(),
    }
}

/// Reads a UTF-8 text file of at most [`MAX_SETTINGS_BYTES`]; `None` when it does not exist.
///
/// # Errors
///
/// An [`InstallError`] at `path`: `cannot read: <e>`, `is not a regular file`, `is larger than
/// <MAX_SETTINGS_BYTES> bytes; not touched`, or `is not UTF-8 (byte <n>)`.
pub fn read_text(path: &Path) -> Result<Option<String>, InstallError> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(InstallError::at(path, format!("cannot read: {e}"))),
    };
    if !meta.is_file() {
        return Err(InstallError::at(path, "is not a regular file"));
    }
    if meta.len() > MAX_SETTINGS_BYTES {
        return Err(InstallError::at(
            path,
            format!("is larger than {MAX_SETTINGS_BYTES} bytes; not touched"),
        ));
    }
    let mut buf = Vec::new();
    fs::File::open(path)
        .and_then(|f| f.take(MAX_SETTINGS_BYTES + 1).read_to_end(&mut buf))
        .map_err(|e| InstallError::at(path, format!("cannot read: {e}")))?;
    String::from_utf8(buf).map(Some).map_err(|e| {
        InstallError::at(
            path,
            format!("is not UTF-8 (byte {})", e.utf8_error().valid_up_to()),
        )
    })
}

/// Refuses a file the user marked read-only (checked on the mode bits, so it also holds for
/// root, which the kernel would let write anyway).
///
/// # Errors
///
/// An [`InstallError`] at `path` when the file exists and is read-only: `is read-only; nothing
/// was changed (make it writable, or edit it by hand)`. A file that does not exist (or whose
/// metadata cannot be read) passes.
pub fn check_writable(path: &Path) -> Result<(), InstallError> {
    match fs::metadata(path) {
        Ok(m) if m.permissions().readonly() => Err(InstallError::at(
            path,
            "is read-only; nothing was changed (make it writable, or edit it by hand)",
        )),
        _ => Ok(()),
    }
}

/// Writes `text` to `path` atomically ([`crate::fsutil::write_atomic`]): a temporary file in
/// the same directory, given the old file's mode (a new file gets the default one), synced,
/// then renamed over it. Creates missing parent directories.
///
/// # Errors
/// Names the file: `cannot create directory` (the parent), `cannot create` (the temporary
/// file) or `cannot write`; the target is unchanged.
pub fn atomic_write(path: &Path, text: &str) -> Result<(), InstallError> {
    atomic_write_mode(path, text, Mode::Keep)
}

/// [`atomic_write`] with the permissions `mode` says, set on the temporary file before any
/// byte is written (a backup that may hold secrets is never readable by others, not even for
/// a moment).
///
/// # Errors
/// As [`atomic_write`].
pub fn atomic_write_mode(path: &Path, text: &str, mode: Mode) -> Result<(), InstallError> {
    crate::fsutil::write_atomic(path, text.as_bytes(), mode).map_err(|e| {
        let what = match e.step {
            Step::CreateDir => "cannot create directory",
            Step::CreateTemp => "cannot create",
            Step::Write => "cannot write",
        };
        InstallError::at(&e.path, format!("{what}: {}", e.source))
    })
}
