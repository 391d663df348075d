//! Per-session state and the audit trail, in SQLite. This module owns every SQL statement.
//!
//! One file (default: the platform data directory's `intentshield/intentshield.db`; override
//! with `INTENTSHIELD_DB` or `--db`), opened by every hook process. Design from
//! `../shared/perf-notes.md` §1 and §4:
//! - WAL with `synchronous=NORMAL`; no checkpoint on close (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`),
//!   and a `wal_checkpoint(TRUNCATE)` once the `-wal` file passes [`WAL_LIMIT`], so the WAL
//!   never grows without bound.
//! - Every read-modify-write runs in `BEGIN IMMEDIATE` with a short busy handler (about 200 µs
//!   sleeps with jitter, [`BUSY_BUDGET`] in all): a deferred read-then-write fails under
//!   contention, this does not.
//! - Schema migrations keyed on `PRAGMA user_version`.
//!
//! Tables: `sessions` (taint), `prov_values` (distinctive values and where each came from),
//! `prompts` (the user's own words, normalized), `decisions` (the audit), `approvals`
//! (one-time approvals given with `intentshield approve`), `call_args` (the arguments of asked
//! and denied calls, masked and capped, shown by `approve` and `log`), `session_files` (files
//! a session's shell calls wrote secrets or downloads into), `mcp_servers` and `mcp_tools` (the
//! MCP catalog the proxy shares with the hook: launch pins, fingerprints, quarantine, the
//! operator's read-only decision).
//!
//! Files: this one opens the database and runs transactions; `schema.rs` holds the DDL and
//! migrations; `sessions.rs` taint and housekeeping; `values.rs` provenance values and
//! prompts; `audit.rs` the decision rows; `approvals.rs` one-time approvals; `catalog.rs` the
//! MCP catalog tables; `files.rs` the session's remembered files. Each adds an `impl Store` block; [`Store`]'s connection is private to
//! this module, so no SQL is written anywhere else.

use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

mod approvals;
mod audit;
mod catalog;
mod contracts;
mod files;
mod repair;
mod schema;
mod sessions;
mod threats;
mod values;

pub use crate::session::{CatalogTool, Origin, Origins, SessionState};
pub use approvals::{call_args_text, ApprovalRow, AskedCall, Granted, Grantor, CALL_ARGS_MAX};
pub use audit::{
    row_hash, Appended, AuditEntry, AuditRow, BadRow, ChainProblem, ChainReport, ChainStatus,
    Receipt, RowContent, GENESIS,
};
pub use catalog::{CatalogRow, ToolListing};
pub use contracts::two_approvers;
pub use repair::{health, is_damage, repair, Health, Repair, COMPANIONS, REPAIR_HINT};
pub use sessions::UNSEEN_START;
pub use threats::{Learned, PackRow, ThreatRow, ThreatStats, ThreatSummary};

/// Bytes of `-wal` after which a process truncates it (perf-notes.md: 256 KiB).
pub const WAL_LIMIT: u64 = 256 * 1024;
/// How long a process waits for the write lock before failing closed.
pub const BUSY_BUDGET: Duration = Duration::from_secs(3);
/// Sessions idle longer than this are pruned (seconds): 7 days.
pub const SESSION_TTL: i64 = 7 * 24 * 3600;
/// Audit rows older than this are pruned (seconds): 90 days.
pub const AUDIT_TTL: i64 = 90 * 24 * 3600;
/// Prompts kept per session (the newest).
pub const PROMPTS_PER_SESSION: i64 = 50;

/// Errors from the state layer; the hook turns any of them into a fail-closed deny.
#[derive(Debug)]
pub struct StateError(pub String);

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StateError {}

impl From<rusqlite::Error> for StateError {
    /// `database: <SQLite's message>`; for a damaged file (corrupt, not a database) followed by
    /// [`REPAIR_HINT`].
    fn from(e: rusqlite::Error) -> Self {
        if is_damage(&e) {
            StateError(format!("database: {e}; {REPAIR_HINT}"))
        } else {
            StateError(format!("database: {e}"))
        }
    }
}

/// Result type of the state layer.
pub type Result<T> = std::result::Result<T, StateError>;

/// Current Unix time in seconds.
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// The database path: `configured` (a `--db` flag or the config file's `db`) when given, else
/// [`default_db_path`]. The one place every command and the hook resolve it.
///
/// # Errors
///
/// As [`default_db_path`], when nothing is configured.
pub fn db_path(configured: Option<&Path>) -> Result<PathBuf> {
    match configured {
        Some(p) => Ok(p.to_path_buf()),
        None => default_db_path(),
    }
}

/// The default database path: `$INTENTSHIELD_DB`, else the platform data directory.
///
/// # Errors
///
/// "no home directory to keep the database in" when `INTENTSHIELD_DB` is unset or empty and
/// the platform has no data directory for this user.
pub fn default_db_path() -> Result<PathBuf> {
    if let Some(p) = crate::env::db_override() {
        return Ok(p);
    }
    let dirs = directories::ProjectDirs::from("", "", "intentshield")
        .ok_or_else(|| StateError("no home directory to keep the database in".into()))?;
    Ok(dirs.data_dir().join("intentshield.db"))
}

/// Whether the linked SQLite was compiled with `option` (as `sqlite3_compileoption_used`
/// names it: without the `SQLITE_` prefix, `NAME` or `NAME=VALUE`). A C call, no SQL and no
/// allocation; the options come from `LIBSQLITE3_FLAGS` in `.cargo/config.toml`.
pub(crate) fn compiled_with(option: &std::ffi::CStr) -> bool {
    // SAFETY: `sqlite3_compileoption_used` reads a NUL-terminated string and may be called at
    // any time (it needs no initialised library).
    unsafe { rusqlite::ffi::sqlite3_compileoption_used(option.as_ptr()) != 0 }
}

/// Turns off SQLite's memory statistics (`SQLITE_CONFIG_MEMSTATUS`) before SQLite is first
/// initialized in this process: with them on, every allocation SQLite makes takes and releases
/// a global mutex to count bytes (about 0.15 M instructions of a hook call that only opens the
/// database, parses its schema and writes one audit row). Nothing here reads the statistics
/// (`sqlite3_memory_used`, soft heap limits). Once SQLite is initialized the call is refused
/// with `SQLITE_MISUSE` and changes nothing, which is fine: the setting only saves time. Every
/// connection this crate opens outside tests calls it first, and `Once` makes the others wait,
/// so no thread is inside SQLite while it runs (`sqlite3_config` is not thread-safe).
pub(crate) fn no_memory_statistics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: `sqlite3_config` is documented safe to call before `sqlite3_initialize`
        // and returns SQLITE_MISUSE (changing nothing) after; MEMSTATUS takes one int.
        let _ = unsafe {
            rusqlite::ffi::sqlite3_config(
                rusqlite::ffi::SQLITE_CONFIG_MEMSTATUS,
                0 as std::os::raw::c_int,
            )
        };
    });
}

/// An open database.
pub struct Store {
    conn: Connection,
    wal_path: Option<PathBuf>,
    /// Set by [`Store::assume_sessions_start_here`]: every new session row counts as seen from
    /// its start.
    sessions_start_here: bool,
}

impl Store {
    /// Opens (creating if needed) the database at `path`, migrating the schema.
    ///
    /// # Errors
    ///
    /// "cannot create DIR: ..." when the parent directory is missing and cannot be created;
    /// a database error when the file cannot be opened, configured (WAL, busy handler) or
    /// migrated; "database schema N is newer than this intentshield understands" when the
    /// file was written by a newer version; "PATH is not a database file" when something
    /// other than a file is there. A damaged file's message names [`REPAIR_HINT`].
    pub fn open(path: &Path) -> Result<Store> {
        let meta = std::fs::metadata(path);
        if meta.as_ref().is_ok_and(|m| !m.is_file()) {
            return Err(StateError(format!(
                "{} is not a database file (a directory?); {REPAIR_HINT}",
                path.display()
            )));
        }
        // Nothing there yet (the first event): its folder and the file, the user's own. An
        // existing database costs no further call here (this runs on every hook event).
        if meta.is_err() {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                if !dir.exists() {
                    create_private_dir(dir)
                        .map_err(|e| StateError(format!("cannot create {}: {e}", dir.display())))?;
                }
            }
            create_private_file(path);
        }
        no_memory_statistics();
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        let mut store = Store {
            conn,
            wal_path: Some(PathBuf::from(wal)),
            sessions_start_here: false,
        };
        store.configure(true)?;
        Ok(store)
    }

    /// Opens an existing database read-only, for commands that only show what is there
    /// (`log`): nothing is created (neither the file nor its folder) and nothing is migrated.
    ///
    /// # Errors
    ///
    /// "no database at PATH (the hook creates it on its first event)" when no file is there;
    /// "PATH is not a database file" when something other than a file is there; "database
    /// schema N is newer than this intentshield understands" for a newer file; SQLite's
    /// message when the file cannot be opened or read (not a database, no permission).
    pub fn open_read_only(path: &Path) -> Result<Store> {
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StateError(format!(
                    "no database at {} (the hook creates it on its first event)",
                    path.display()
                )))
            }
            Ok(m) if !m.is_file() => {
                return Err(StateError(format!(
                    "{} is not a database file (a directory?)",
                    path.display()
                )))
            }
            _ => {}
        }
        no_memory_statistics();
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(BUSY_BUDGET)?;
        let store = Store {
            conn,
            wal_path: None,
            sessions_start_here: false,
        };
        let version = store.schema_version()?;
        if version > schema::SCHEMA_VERSION {
            return Err(StateError(format!(
                "database schema {version} is newer than this intentshield understands ({}); upgrade intentshield",
                schema::SCHEMA_VERSION
            )));
        }
        Ok(store)
    }

    /// A private in-memory database (for `check` without `--db`, and tests).
    ///
    /// # Errors
    ///
    /// A database error when SQLite cannot allocate the database or create the schema.
    pub fn open_in_memory() -> Result<Store> {
        no_memory_statistics();
        let conn = Connection::open_in_memory()?;
        let mut store = Store {
            conn,
            wal_path: None,
            sessions_start_here: false,
        };
        store.configure(false)?;
        Ok(store)
    }

    fn configure(&mut self, file: bool) -> Result<()> {
        let start = Instant::now();
        let mut seed = std::process::id() as u64 ^ 0x9e37_79b9_7f4a_7c15;
        self.conn
            .busy_handler(Some(move |_count: i32| busy_wait(start, &mut seed)))?;
        if file {
            self.conn.set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                true,
            )?;
        }
        // One plan per statement whatever its bound values (the query planner stability
        // guarantee): without it, a statement with `LIMIT ?n`, `LIKE ?n` or a parameter the
        // planner looks at is compiled a second time on its first step after the binding, and
        // each process runs each statement once. Results are the same; only plans that the
        // values would have tuned are not made.
        self.conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
            true,
        )?;
        let version = self.schema_version()?;
        if file {
            self.ensure_wal(start)?;
            if !compiled_with(c"DEFAULT_WAL_SYNCHRONOUS=1") {
                self.conn.execute_batch("PRAGMA synchronous=NORMAL")?;
            }
        }
        self.upgrade_schema(version)
    }

    /// Puts the file in WAL mode unless it is (the mode is persistent in the file; reading it
    /// first saves a write on every open but the first).
    ///
    /// Switching needs the file to itself, and SQLite answers `SQLITE_BUSY` at once there
    /// without asking the busy handler: processes that open a new database together (an
    /// agent's parallel tool calls on a fresh install) saw "database is locked" in about 1 of
    /// 100 first calls. So the switch is retried like a busy lock ([`busy_wait`]) until
    /// [`BUSY_BUDGET`] from `start` is spent, reading the mode again each time
    /// (another process may have switched it meanwhile).
    ///
    /// # Errors
    ///
    /// A database error, "database is locked" once the budget is spent.
    fn ensure_wal(&self, start: Instant) -> Result<()> {
        let mut seed = std::process::id() as u64 ^ 0x2545_f491_4f6c_dd1d;
        loop {
            let mode: String = self
                .conn
                .query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
            if mode.eq_ignore_ascii_case("wal") {
                return Ok(());
            }
            match self
                .conn
                .query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))
            {
                Err(e)
                    if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy)
                        && busy_wait(start, &mut seed) => {}
                Err(e) => return Err(e.into()),
                Ok(_) => return Ok(()),
            }
        }
    }

    /// Starts the read-modify-write transaction of one hook invocation (`BEGIN IMMEDIATE`).
    ///
    /// # Errors
    ///
    /// A database error, typically "database is locked" when another process held the write
    /// lock for longer than [`BUSY_BUDGET`], or when a transaction is already open.
    pub fn begin(&mut self) -> Result<()> {
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        Ok(())
    }

    /// Commits, then truncates the WAL if it passed [`WAL_LIMIT`].
    ///
    /// # Errors
    ///
    /// A database error when the commit fails (no open transaction, disk full, I/O). The
    /// checkpoint after it is best effort and never errors.
    pub fn commit(&mut self) -> Result<()> {
        self.conn.execute_batch("COMMIT")?;
        if let Some(wal) = &self.wal_path {
            if std::fs::metadata(wal).map(|m| m.len()).unwrap_or(0) > WAL_LIMIT {
                // Best effort and without waiting: a checkpoint that waits for readers holds
                // up every other writer, so a busy one is left to a later process.
                let _ = self.conn.busy_handler(None::<fn(i32) -> bool>);
                let _ = self
                    .conn
                    .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
            }
        }
        Ok(())
    }

    /// Rolls back an open transaction (best effort).
    pub fn rollback(&mut self) {
        let _ = self.conn.execute_batch("ROLLBACK");
    }

    /// Truncates the WAL now (session end).
    ///
    /// # Errors
    ///
    /// A database error when the checkpoint cannot run (for example the database is locked
    /// past [`BUSY_BUDGET`]). An in-memory store has no WAL and never errors.
    pub fn checkpoint(&self) -> Result<()> {
        if self.wal_path.is_some() {
            self.conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        }
        Ok(())
    }
}

/// One wait for a busy database: false once [`BUSY_BUDGET`] from `start` is spent, else a
/// sleep of 150..350 µs (xorshift jitter on `seed`, so processes that collided do not retry in
/// step) and true. The busy handler's, and [`Store::ensure_wal`]'s where SQLite does not ask
/// the handler.
fn busy_wait(start: Instant, seed: &mut u64) -> bool {
    if start.elapsed() >= BUSY_BUDGET {
        return false;
    }
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    std::thread::sleep(Duration::from_micros(150 + *seed % 200));
    true
}

/// Creates `dir` and its missing parents readable by the owner only (0700 on Unix): the
/// database holds the arguments of asked calls, provenance values and the audit.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}

/// Creates an empty database file readable by the owner only (0600 on Unix) when none is
/// there, so that SQLite (which gives its `-wal` and `-shm` files the database's mode) does
/// not create it with the umask's 0644. An existing file is left as it is; a failure here is
/// SQLite's to report when it opens the path.
fn create_private_file(path: &Path) {
    let mut o = std::fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    let _ = o.open(path);
}

/// Checks that the database at `db` can be written: creates its folder, opens it and takes and
/// releases the write lock (waiting at most 2 s). Used by `doctor`; changes nothing else.
///
/// # Errors
/// "cannot create DIR: …" when the folder cannot be made; SQLite's message when the file
/// cannot be opened or locked for writing.
pub fn probe_writable(db: &Path) -> Result<()> {
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        create_private_dir(dir)
            .map_err(|e| StateError(format!("cannot create {}: {e}", dir.display())))?;
    }
    create_private_file(db);
    let plain = |e: rusqlite::Error| StateError(e.to_string());
    let conn = Connection::open(db).map_err(plain)?;
    conn.busy_timeout(Duration::from_secs(2)).map_err(plain)?;
    conn.execute_batch("BEGIN IMMEDIATE; ROLLBACK;")
        .map_err(plain)
}

/// Session-id prefixes of the sessions our own commands make up (`doctor`'s canaries,
/// `demo`): their decisions are not the harness's own calls, so they never count as the hook
/// "seen running" ([`last_decision_of`]), even when they land in the real database (a config
/// file's `db` wins over the scratch `INTENTSHIELD_DB` those commands set).
pub const TOOL_SESSION_PREFIXES: [&str; 2] = ["intentshield-doctor-", "intentshield-demo-"];

/// The time (Unix seconds) of the newest audit row of `harness` in the database at `db`,
/// opened read-only; `None` when it has none. Rows of the sessions our own commands make up
/// ([`TOOL_SESSION_PREFIXES`]) do not count. Used by `doctor` to tell whether the hook ran.
///
/// # Errors
/// "no database yet" when the file does not exist; SQLite's message when it cannot be read
/// or has no audit table yet.
pub fn last_decision_of(db: &Path, harness: &str) -> Result<Option<i64>> {
    if !db.exists() {
        return Err(StateError("no database yet".into()));
    }
    let plain = |e: rusqlite::Error| StateError(e.to_string());
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(plain)?;
    conn.query_row(
        "SELECT max(ts) FROM decisions WHERE harness = ?1
           AND substr(session_id, 1, length(?2)) <> ?2
           AND substr(session_id, 1, length(?3)) <> ?3",
        rusqlite::params![harness, TOOL_SESSION_PREFIXES[0], TOOL_SESSION_PREFIXES[1]],
        |r| r.get::<_, Option<i64>>(0),
    )
    .map_err(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hook leaves its connection open when it exits (`hook::run`) and SQLite runs without
    /// memory statistics: what a committed transaction wrote is there for the next process, and
    /// the WAL a connection left open is read back by a new one.
    #[test]
    fn committed_writes_survive_a_connection_left_open() {
        no_memory_statistics();
        no_memory_statistics();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let mut s = Store::open(&path).unwrap();
        s.begin().unwrap();
        s.touch_session("s1", "claude", true).unwrap();
        s.taint("s1", "test reason").unwrap();
        s.commit().unwrap();
        std::mem::forget(s);
        let t = Store::open(&path).unwrap();
        let st = t.session_state("s1").unwrap().expect("session row");
        assert!(st.tainted);
        let r = Store::open_read_only(&path).unwrap();
        assert!(r.session_state("s1").unwrap().expect("row").tainted);
    }

    /// `.cargo/config.toml` builds the bundled SQLite with our options (`LIBSQLITE3_FLAGS`);
    /// a build that lost them (another config, another SQLite) fails here, not in a benchmark.
    #[test]
    fn sqlite_is_built_with_our_options() {
        for o in [
            c"THREADSAFE=2",
            c"DEFAULT_WAL_SYNCHRONOUS=1",
            c"OMIT_LOAD_EXTENSION",
            c"OMIT_SHARED_CACHE",
            c"DQS=0",
        ] {
            assert!(compiled_with(o), "SQLite built without {o:?}");
        }
        for o in [c"ENABLE_FTS5", c"ENABLE_FTS3", c"ENABLE_RTREE"] {
            assert!(!compiled_with(o), "SQLite built with {o:?}");
        }
    }

    /// A file store is in WAL mode with synchronous=NORMAL (1), whether the pragma was run or
    /// the compiled default gave it.
    #[test]
    fn a_file_store_is_wal_and_synchronous_normal() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("s.db")).unwrap();
        let mode: String = s
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode.to_ascii_lowercase(), "wal");
        let sync: i64 = s
            .conn
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 1);
    }
}
