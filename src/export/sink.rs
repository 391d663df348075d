//! The export sink the hook writes itself: one line per decision appended to a file that a
//! collector (Vector, Fluent Bit) tails, set with `[export]` in the config file:
//!
//! ```toml
//! [export]
//! path = "/var/log/intentshield/decisions.ocsf.jsonl"   # absolute
//! format = "ocsf"                                      # jsonl (default), cef or ocsf
//! max_size = "50MB"                                    # rotate past this size (default 50MB)
//! keep = 5                                             # rotated files kept: path.1 .. path.5
//! ```
//!
//! It never blocks and never changes a decision: the decision is committed to the database
//! first, and any failure here (a full disk, an unwritable or missing folder, a FIFO or a
//! symbolic link at the path, a line that cannot be cut short enough) drops the export line
//! and nothing else. How:
//! - each line is written with one `write(2)` on a file opened with `O_APPEND` (and
//!   `O_NONBLOCK`, `O_NOFOLLOW`), and is at most [`LINE_MAX`] bytes with its newline, so lines
//!   of concurrent hooks do not interleave; a short write is not retried (that would split the
//!   line);
//! - rotation is rename-based under a lock file (`<path>.lock`, made with `O_EXCL`; one older
//!   than [`STALE_LOCK_SECS`] is taken over): the process that holds it renames `path.N-1` →
//!   `path.N` … `path` → `path.1`; a process that finds it held appends to the current file
//!   (which may pass `max_size` by a few lines), and one that opened the file before the rename
//!   appends to `path.1`: no line is lost;
//! - secrets are masked with the hook's own rules (`state::call_args_text`, which runs
//!   `policy::builtin::secret_material`) in the arguments, the message, the tool name and the
//!   critical values.

use super::{cut, Format};
use crate::state::AuditRow;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Longest line written, newline included (bytes): under Linux's `PIPE_BUF` (4096).
pub const LINE_MAX: usize = 4000;
/// A rotation lock file older than this is taken over (seconds).
pub const STALE_LOCK_SECS: u64 = 30;
/// Default `max_size`: 50 MiB.
pub const MAX_SIZE_DEFAULT: u64 = 50 * 1024 * 1024;
/// Smallest `max_size` accepted: 64 KiB.
pub const MAX_SIZE_MIN: u64 = 64 * 1024;
/// Largest `max_size` accepted: 64 GiB.
pub const MAX_SIZE_MAX: u64 = 64 * 1024 * 1024 * 1024;
/// Default `keep`.
pub const KEEP_DEFAULT: u32 = 5;
/// Largest `keep` accepted.
pub const KEEP_MAX: u32 = 100;

/// The `[export]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportConfig {
    /// The file lines are appended to (absolute).
    pub path: PathBuf,
    /// The line format.
    pub format: Format,
    /// Size past which the file is rotated (bytes).
    pub max_size: u64,
    /// Rotated files kept (`path.1` newest … `path.keep`); 0 deletes the full file.
    pub keep: u32,
}

/// Parses a size: whole bytes (an integer or digits), or digits with `K`, `KB`, `KiB`, `M`,
/// `MB`, `MiB`, `G`, `GB` or `GiB` (all binary multiples: `50MB` is 50 × 2^20 bytes), checked
/// against [`MAX_SIZE_MIN`]..=[`MAX_SIZE_MAX`].
///
/// # Errors
///
/// `invalid max_size '<s>': expected a size such as 50MB (64KB to 64GB)`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let bad = || format!("invalid max_size '{s}': expected a size such as 50MB (64KB to 64GB)");
    let t = s.trim();
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(digits_end);
    let n: u64 = num.parse().map_err(|_| bad())?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1024,
        "m" | "mb" | "mib" => 1024 * 1024,
        "g" | "gb" | "gib" => 1024 * 1024 * 1024,
        _ => return Err(bad()),
    };
    let v = n.checked_mul(mult).ok_or_else(bad)?;
    if (MAX_SIZE_MIN..=MAX_SIZE_MAX).contains(&v) {
        Ok(v)
    } else {
        Err(bad())
    }
}

impl ExportConfig {
    /// Reads the `[export]` table of the config file.
    ///
    /// # Errors
    ///
    /// `export must be a table`; `export.path is required and must be an absolute path`;
    /// `unknown key 'export.<k>'`; a bad `format` ([`Format::from_name`]), `max_size`
    /// ([`parse_size`]) or `keep` (`export.keep must be a whole number from 0 to 100`).
    pub fn from_toml(item: &toml_edit::Item) -> Result<ExportConfig, String> {
        let t = item
            .as_table_like()
            .ok_or_else(|| "export must be a table".to_string())?;
        for (k, _) in t.iter() {
            if !["path", "format", "max_size", "keep"].contains(&k) {
                let shown: String = k.chars().take(64).collect();
                return Err(format!(
                    "unknown key 'export.{shown}' (known: path, format, max_size, keep)"
                ));
            }
        }
        let path = t
            .get("path")
            .and_then(|v| v.as_str())
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .ok_or_else(|| "export.path is required and must be an absolute path".to_string())?;
        let format = match t.get("format") {
            None => Format::Jsonl,
            Some(v) => Format::from_name(v.as_str().ok_or("export.format must be a string")?)?,
        };
        let max_size = match t.get("max_size") {
            None => MAX_SIZE_DEFAULT,
            Some(v) => match (v.as_integer(), v.as_str()) {
                (Some(n), _) => parse_size(&n.to_string())?,
                (None, Some(s)) => parse_size(s)?,
                _ => return Err(parse_size("?").unwrap_err()),
            },
        };
        let keep = match t.get("keep") {
            None => KEEP_DEFAULT,
            Some(v) => v
                .as_integer()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| *n <= KEEP_MAX)
                .ok_or_else(|| {
                    format!("export.keep must be a whole number from 0 to {KEEP_MAX}")
                })?,
        };
        Ok(ExportConfig {
            path,
            format,
            max_size,
            keep,
        })
    }
}

/// `s` with secrets masked by the hook's rules (`state::call_args_text` on the string: a word
/// that is a token becomes `[an API token masked]`, a string still holding a key is replaced
/// whole); `s` itself when it holds none.
pub fn mask(s: &str) -> String {
    // Cut first so that the masking never has to cut (its cut would break the JSON text).
    let s = cut(s, 8 * 1024);
    let text = crate::state::call_args_text(&serde_json::Value::String(s.clone()));
    serde_json::from_str::<String>(&text).unwrap_or_else(|_| "[masked]".into())
}

/// The row with every free-text field masked ([`mask`]): arguments, message, tool name,
/// critical values, approver.
pub fn masked(r: &AuditRow) -> AuditRow {
    let mut r = r.clone();
    r.message = mask(&r.message);
    r.tool = r.tool.as_deref().map(mask);
    r.args = r.args.as_deref().map(mask);
    r.critical = r.critical.as_deref().map(mask);
    r.approver = r.approver.as_deref().map(mask);
    r
}

/// One line of `format` for the row, at most [`LINE_MAX`] bytes with its newline: free text is
/// cut step by step (arguments, message and critical values to 512 bytes; then those dropped
/// and every other text cut to 128 bytes). `None` when even that does not fit.
pub fn bounded_line(format: Format, r: &AuditRow) -> Option<String> {
    let fits = |l: &String| l.len() < LINE_MAX && !l.contains('\n');
    let l = format.line(r);
    if fits(&l) {
        return Some(l);
    }
    let mut r = r.clone();
    r.args = r.args.as_deref().map(|a| cut(a, 512));
    r.message = cut(&r.message, 512);
    r.critical = r.critical.as_deref().map(|a| cut(a, 512));
    let l = format.line(&r);
    if fits(&l) {
        return Some(l);
    }
    r.args = None;
    r.critical = None;
    for s in [
        &mut r.message,
        &mut r.harness,
        &mut r.session_id,
        &mut r.event,
        &mut r.reason_code,
        &mut r.rules,
    ] {
        *s = cut(s, 128);
    }
    if !r.rules.ends_with(']') {
        r.rules = "[]".into();
    }
    r.tool = r.tool.as_deref().map(|t| cut(t, 128));
    r.approver = r.approver.as_deref().map(|t| cut(t, 128));
    let l = format.line(&r);
    fits(&l).then_some(l)
}

/// Appends the row (masked, one bounded line) to the sink, rotating it first when this line
/// would take it past `max_size`.
///
/// # Errors
///
/// A message saying why the line was dropped (the file cannot be opened or is not a regular
/// file, the write failed or was short, the line cannot be made short enough). The hook only
/// notes it in `errors.log`: the decision stands.
pub fn emit(cfg: &ExportConfig, row: &AuditRow) -> Result<(), String> {
    let line = bounded_line(cfg.format, &masked(row))
        .ok_or_else(|| "export line too long even when cut".to_string())?;
    let mut buf = line.into_bytes();
    buf.push(b'\n');
    append(cfg, &buf)
}

/// Opens the sink for appending: `O_APPEND | O_CREAT | O_NONBLOCK | O_NOFOLLOW`, mode 0600,
/// and refuses anything but a regular file.
fn open(path: &Path) -> Result<File, String> {
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW;
    let f = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(flags.bits() as i32)
        .open(path)
        .map_err(|e| format!("export: cannot open {}: {e}", path.display()))?;
    let meta = f
        .metadata()
        .map_err(|e| format!("export: cannot stat {}: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("export: {} is not a regular file", path.display()));
    }
    Ok(f)
}

/// Appends `buf` (one whole line) with one `write(2)`, rotating first when needed.
fn append(cfg: &ExportConfig, buf: &[u8]) -> Result<(), String> {
    let mut f = open(&cfg.path)?;
    let size = f.metadata().map(|m| m.len()).unwrap_or(0);
    if size > 0 && size + buf.len() as u64 > cfg.max_size && rotate(cfg) {
        f = open(&cfg.path)?;
    }
    match f.write(buf) {
        Ok(n) if n == buf.len() => Ok(()),
        Ok(n) => Err(format!(
            "export: short write to {} ({n} of {} bytes; disk full?)",
            cfg.path.display(),
            buf.len()
        )),
        Err(e) => Err(format!("export: cannot write {}: {e}", cfg.path.display())),
    }
}

/// `path` with `.suffix` appended (`decisions.jsonl` → `decisions.jsonl.1`).
pub fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".");
    s.push(suffix);
    PathBuf::from(s)
}

/// Rotates the sink under its lock file; true when this process rotated it (or found it
/// already rotated by another), false when the lock is held (the caller appends anyway).
fn rotate(cfg: &ExportConfig) -> bool {
    let lock = suffixed(&cfg.path, "lock");
    let take = || {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&lock)
            .is_ok()
    };
    let mut held = take();
    if !held {
        let stale = std::fs::metadata(&lock)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() > STALE_LOCK_SECS);
        if stale {
            let _ = std::fs::remove_file(&lock);
            held = take();
        }
    }
    if !held {
        return false;
    }
    // Another process may have rotated between our size check and the lock.
    let size = std::fs::symlink_metadata(&cfg.path)
        .map(|m| m.len())
        .unwrap_or(0);
    if size >= cfg.max_size.saturating_sub(LINE_MAX as u64) {
        if cfg.keep == 0 {
            let _ = std::fs::remove_file(&cfg.path);
        } else {
            for n in (1..cfg.keep).rev() {
                let _ = std::fs::rename(
                    suffixed(&cfg.path, &n.to_string()),
                    suffixed(&cfg.path, &(n + 1).to_string()),
                );
            }
            let _ = std::fs::rename(&cfg.path, suffixed(&cfg.path, "1"));
        }
    }
    let _ = std::fs::remove_file(&lock);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("50MB"), Ok(50 * 1024 * 1024));
        assert_eq!(parse_size("64KiB"), Ok(64 * 1024));
        assert_eq!(parse_size("1g"), Ok(1024 * 1024 * 1024));
        assert_eq!(parse_size("1048576"), Ok(1024 * 1024));
        for bad in [
            "",
            "MB",
            "5",
            "50 XB",
            "-1MB",
            "1.5MB",
            "65GB",
            "99999999999999999999",
        ] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn export_table() {
        let doc: toml_edit::DocumentMut =
            "[export]\npath = \"/var/log/is.jsonl\"\nformat = \"cef\"\nmax_size = \"1MB\"\nkeep = 2"
                .parse()
                .unwrap();
        let c = ExportConfig::from_toml(&doc["export"]).unwrap();
        assert_eq!(c.format, Format::Cef);
        assert_eq!((c.max_size, c.keep), (1024 * 1024, 2));
        for bad in [
            "[export]\nformat = \"cef\"",
            "[export]\npath = \"rel.jsonl\"",
            "[export]\npath = \"/a\"\nformat = \"xml\"",
            "[export]\npath = \"/a\"\nkeep = -1",
            "[export]\npath = \"/a\"\nkeep = 101",
            "[export]\npath = \"/a\"\nmax_size = \"1KB\"",
            "[export]\npath = \"/a\"\nsize = 3",
            "export = 3",
        ] {
            let doc: toml_edit::DocumentMut = bad.parse().unwrap();
            assert!(ExportConfig::from_toml(&doc["export"]).is_err(), "{bad}");
        }
    }
}
