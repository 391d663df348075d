//! Telling a damaged database from a healthy one, and `intentshield doctor --repair`: moving a
//! damaged file (and its `-wal`, `-shm` and `-journal` companions) aside, kept for inspection,
//! and starting a fresh database in its place.
//!
//! The hook never repairs on its own: a damaged database fails closed, with a message that
//! names [`REPAIR_HINT`], until a person runs the repair. Sessions continued after a repair are
//! tainted, since the fresh database did not see them start (`Store::touch_session`).

use super::{Result, StateError, Store};
use rusqlite::{Connection, ErrorCode, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the hook's fail-closed message and `doctor` tell a person to do about a damaged
/// database.
pub const REPAIR_HINT: &str =
    "run `intentshield doctor --repair` to move the damaged database aside and start a fresh one";

/// The files SQLite keeps beside a database, by suffix.
pub const COMPANIONS: [&str; 3] = ["-wal", "-shm", "-journal"];

/// Every table the schema creates; a file that lacks one was not written by us (or was
/// damaged), and every hook on it would fail.
const TABLES: [(&str, i64); 13] = [
    ("sessions", 1),
    ("prov_values", 1),
    ("prompts", 1),
    ("decisions", 1),
    ("approvals", 1),
    ("mcp_servers", 1),
    ("mcp_tools", 1),
    ("call_args", 2),
    ("session_files", 3),
    ("secret_digests", 5),
    ("contract_spend", 7),
    ("audit_chain", 8),
    ("threat_summary", 9),
];

/// True for SQLite errors that mean the file is damaged or not a database at all (as opposed
/// to busy, locked, read-only or missing): the ones a repair fixes.
pub fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

/// The state of the database file at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Health {
    /// No file there yet; the hook creates one on its first event.
    Missing,
    /// It opens, passes `PRAGMA quick_check` and holds every table.
    Healthy,
    /// Damaged: not a regular file, not a database, failing `quick_check`, or missing tables.
    /// The text says which.
    Damaged(String),
    /// It cannot be checked now for a reason a repair does not fix (busy or locked past 2 s,
    /// no permission, a newer schema); the text is SQLite's or ours.
    Unknown(String),
}

/// Checks the database at `db` without changing it: opened read-only, with a 2 s busy
/// timeout. A WAL file that still holds good pages makes a database whose main file is
/// damaged read as healthy, as SQLite itself reads it.
pub fn health(db: &Path) -> Health {
    let meta = match std::fs::metadata(db) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Health::Missing,
        Err(e) => return Health::Unknown(e.to_string()),
    };
    if !meta.is_file() {
        return Health::Damaged("not a regular file (a directory?)".into());
    }
    let classify = |e: rusqlite::Error| {
        if is_damage(&e) {
            Health::Damaged(e.to_string())
        } else {
            Health::Unknown(e.to_string())
        }
    };
    // Read-only, so nothing is touched (a read-write connection would roll back a hot journal
    // or rewrite a WAL index, changing what a person may want to inspect). When that cannot
    // tell (a hot journal, a WAL without its index), the state is unknown and nothing is moved.
    let open = || {
        super::no_memory_statistics();
        let c = Connection::open_with_flags(
            db,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        c.busy_timeout(Duration::from_secs(2))?;
        c.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0))
            .map(|v| (c, v))
    };
    let (conn, version) = match open() {
        Ok(cv) => cv,
        Err(e) => return classify(e),
    };
    if version > super::schema::SCHEMA_VERSION {
        return Health::Unknown(format!(
            "database schema {version} is newer than this intentshield understands; upgrade intentshield"
        ));
    }
    let rows: Vec<String> = match conn.prepare("PRAGMA quick_check(5)").and_then(|mut st| {
        st.query_map([], |r| r.get::<_, String>(0))?
            .collect::<std::result::Result<Vec<_>, _>>()
    }) {
        Ok(r) => r,
        Err(e) => return classify(e),
    };
    if rows.len() != 1 || rows[0] != "ok" {
        let first: Vec<String> = rows
            .iter()
            .take(3)
            .map(|r| crate::text::cap(r, 120).to_string())
            .collect();
        return Health::Damaged(format!("quick_check: {}", first.join("; ")));
    }
    if version == 0 {
        // An empty file (or a database with nothing of ours yet): the hook creates the schema.
        return Health::Healthy;
    }
    // (A table newer than the file's schema is created by its migration on the next open.)
    for (t, since) in TABLES {
        if version < since {
            continue;
        }
        let sql = format!("SELECT 1 FROM {t} LIMIT 1");
        if let Err(e) = conn.query_row(&sql, [], |_| Ok(())).or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(()),
            e => Err(e),
        }) {
            return match e.sqlite_error_code() {
                Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
                    Health::Unknown(e.to_string())
                }
                _ if is_damage(&e) => Health::Damaged(e.to_string()),
                _ => Health::Damaged(format!("schema {version} without table {t}: {e}")),
            };
        }
    }
    Health::Healthy
}

/// What [`repair`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repair {
    /// No database there; nothing changed (the hook creates one on its first event).
    Missing,
    /// The database is healthy; nothing changed.
    Healthy,
    /// The database was damaged (why): the files were moved aside (`(from, to)`, the
    /// database first) and a fresh database was created at the same path.
    Repaired {
        /// Why it was damaged ([`Health::Damaged`]).
        why: String,
        /// Each file moved: where it was, where it is kept now.
        moved: Vec<(PathBuf, PathBuf)>,
    },
    /// The database could not be checked for a reason a repair does not fix; nothing changed.
    NotRepaired(String),
}

/// Repairs the database at `db`: when [`health`] finds it damaged, renames it and each of its
/// [`COMPANIONS`] that exists to `<name>.damaged-<stamp>` (plus `-wal`, ...; `-2`, `-3`, ...
/// when that name is taken), in the same folder, then creates a fresh database there. A
/// missing, healthy or unknown-state database is left as it is. `stamp` names the moment (for
/// example `20261130T190812Z`).
///
/// # Errors
///
/// "cannot move A to B: ..." when a rename fails (files moved before it stay moved, and are
/// named in the message); the error of [`Store::open`] when the fresh database cannot be
/// created.
pub fn repair(db: &Path, stamp: &str) -> Result<Repair> {
    let why = match health(db) {
        Health::Missing => return Ok(Repair::Missing),
        Health::Healthy => return Ok(Repair::Healthy),
        Health::Unknown(e) => return Ok(Repair::NotRepaired(e)),
        Health::Damaged(why) => why,
    };
    let kept = kept_name(db, stamp);
    let mut moved: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut files = vec![(db.to_path_buf(), kept.clone())];
    for c in COMPANIONS {
        let from = with_suffix(db, c);
        if std::fs::symlink_metadata(&from).is_ok() {
            files.push((from, with_suffix(&kept, c)));
        }
    }
    for (from, to) in files {
        if let Err(e) = std::fs::rename(&from, &to) {
            let done: Vec<String> = moved
                .iter()
                .map(|(a, b)| format!("{} -> {}", a.display(), b.display()))
                .collect();
            return Err(StateError(format!(
                "cannot move {} to {}: {e}{}",
                from.display(),
                to.display(),
                if done.is_empty() {
                    String::new()
                } else {
                    format!(" (already moved: {})", done.join(", "))
                }
            )));
        }
        moved.push((from, to));
    }
    Store::open(db)?;
    Ok(Repair::Repaired { why, moved })
}

/// `<db>.damaged-<stamp>`, or with `-2`, `-3`, ... when a file of that name (or one of its
/// companions) exists.
fn kept_name(db: &Path, stamp: &str) -> PathBuf {
    let base = with_suffix(db, &format!(".damaged-{stamp}"));
    let taken = |p: &Path| {
        std::fs::symlink_metadata(p).is_ok()
            || COMPANIONS
                .iter()
                .any(|c| std::fs::symlink_metadata(with_suffix(p, c)).is_ok())
    };
    if !taken(&base) {
        return base;
    }
    (2..1000)
        .map(|n| with_suffix(&base, &format!("-{n}")))
        .find(|p| !taken(p))
        .unwrap_or_else(|| with_suffix(&base, &format!("-{}", std::process::id())))
}

fn with_suffix(p: &Path, suffix: &str) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corrupt(p: &Path) {
        let mut bytes = b"SQLite format 3\0".to_vec();
        bytes.extend((0..8192u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
        std::fs::write(p, bytes).unwrap();
    }

    #[test]
    fn healthy_missing_and_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("is.db");
        assert_eq!(health(&db), Health::Missing);
        assert_eq!(repair(&db, "T").unwrap(), Repair::Missing);
        assert!(!db.exists());
        Store::open(&db).unwrap();
        assert_eq!(health(&db), Health::Healthy);
        assert_eq!(repair(&db, "T").unwrap(), Repair::Healthy);
        // (Without its WAL: SQLite would read good pages from a WAL left beside it.)
        for c in COMPANIONS {
            let _ = std::fs::remove_file(with_suffix(&db, c));
        }
        corrupt(&db);
        assert!(
            matches!(health(&db), Health::Damaged(_)),
            "{:?}",
            health(&db)
        );
        let e = Store::open(&db)
            .err()
            .expect("a damaged file does not open");
        assert!(e.0.contains(REPAIR_HINT), "{e}");
    }

    #[test]
    fn repair_moves_the_file_and_its_companions_aside() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("is.db");
        corrupt(&db);
        std::fs::write(with_suffix(&db, "-wal"), b"w").unwrap();
        std::fs::write(with_suffix(&db, "-shm"), vec![b's'; 32768]).unwrap();
        let Repair::Repaired { why, moved } = repair(&db, "20261130T000000Z").unwrap() else {
            panic!("not repaired");
        };
        assert!(!why.is_empty());
        let kept = dir.path().join("is.db.damaged-20261130T000000Z");
        assert_eq!(moved[0], (db.clone(), kept.clone()));
        assert_eq!(moved.len(), 3);
        assert_eq!(std::fs::read(with_suffix(&kept, "-wal")).unwrap(), b"w");
        assert_eq!(
            std::fs::read(with_suffix(&kept, "-shm")).unwrap().len(),
            32768
        );
        assert!(kept.exists());
        assert_eq!(health(&db), Health::Healthy);
        // A second damage in the same second keeps both copies.
        drop(Store::open(&db).unwrap());
        for c in COMPANIONS {
            let _ = std::fs::remove_file(with_suffix(&db, c));
        }
        corrupt(&db);
        let Repair::Repaired { moved, .. } = repair(&db, "20261130T000000Z").unwrap() else {
            panic!("not repaired");
        };
        assert_eq!(
            moved[0].1,
            dir.path().join("is.db.damaged-20261130T000000Z-2")
        );
    }

    #[test]
    fn a_directory_or_a_foreign_database_is_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("is.db");
        std::fs::create_dir(&db).unwrap();
        assert!(matches!(health(&db), Health::Damaged(_)));
        let e = Store::open(&db).err().expect("a directory does not open");
        assert!(e.0.contains(REPAIR_HINT), "{e}");
        assert!(matches!(repair(&db, "T").unwrap(), Repair::Repaired { .. }));
        assert!(db.is_file());
        // A valid SQLite file that claims our schema but lacks our tables (replaced).
        let other = dir.path().join("other.db");
        let c = Connection::open(&other).unwrap();
        c.execute_batch("CREATE TABLE x(a); PRAGMA user_version=2;")
            .unwrap();
        drop(c);
        assert!(
            matches!(health(&other), Health::Damaged(ref w) if w.contains("without table")),
            "{:?}",
            health(&other)
        );
    }

    #[test]
    fn a_newer_schema_is_not_repaired() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("is.db");
        let c = Connection::open(&db).unwrap();
        c.execute_batch("PRAGMA user_version=99;").unwrap();
        drop(c);
        assert!(matches!(repair(&db, "T").unwrap(), Repair::NotRepaired(_)));
        assert!(db.exists());
    }
}
