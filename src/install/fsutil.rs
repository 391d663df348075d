//! File access for install/uninstall: bounded reads, atomic writes that keep the mode, one
//! backup per settings file.

use super::InstallError;
use std::fs;
use std::io::{Read, Write};
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
/// Errors: unreadable, too large, not a regular file, or not UTF-8 (with the file named).
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
pub fn check_writable(path: &Path) -> Result<(), InstallError> {
    match fs::metadata(path) {
        Ok(m) if m.permissions().readonly() => Err(InstallError::at(
            path,
            "is read-only; nothing was changed (make it writable, or edit it by hand)",
        )),
        _ => Ok(()),
    }
}

/// Writes `text` to `path` atomically: a temporary file in the same directory, flushed, given
/// the old file's mode, then renamed over it. Creates missing parent directories.
pub fn atomic_write(path: &Path, text: &str) -> Result<(), InstallError> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir)
        .map_err(|e| InstallError::at(dir, format!("cannot create directory: {e}")))?;
    let old_perm = fs::metadata(path).ok().map(|m| m.permissions());
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "settings".into());
    let mut n = 0u32;
    let (tmp, mut file) = loop {
        let tmp = dir.join(format!(
            ".{name}.intentshield-{}-{n}.tmp",
            std::process::id()
        ));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => n += 1,
            Err(e) => return Err(InstallError::at(&tmp, format!("cannot create: {e}"))),
        }
    };
    let result = (|| -> std::io::Result<()> {
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        if let Some(p) = &old_perm {
            fs::set_permissions(&tmp, p.clone())?;
        }
        fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(InstallError::at(path, format!("cannot write: {e}")));
    }
    Ok(())
}
