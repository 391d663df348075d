//! Per-session state and the audit trail, in SQLite.
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
//! (one-time approvals given with `intentshield approve`), `mcp_servers` and `mcp_tools` (the
//! MCP catalog the proxy shares with the hook: launch pins, fingerprints, quarantine, the
//! operator's read-only decision).

use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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

const SCHEMA_VERSION: i64 = 1;

const SCHEMA_V1: &str = "
CREATE TABLE IF NOT EXISTS sessions(
  id TEXT PRIMARY KEY,
  harness TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  tainted INTEGER NOT NULL DEFAULT 0,
  taint_reason TEXT,
  taint_at INTEGER
);
CREATE TABLE IF NOT EXISTS prov_values(
  session_id TEXT NOT NULL,
  value TEXT NOT NULL,
  vkind TEXT NOT NULL,
  origin TEXT NOT NULL,
  source TEXT,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY(session_id, value, origin)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS prompts(
  session_id TEXT NOT NULL,
  ts INTEGER NOT NULL,
  text TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS prompts_session ON prompts(session_id);
CREATE TABLE IF NOT EXISTS decisions(
  id INTEGER PRIMARY KEY,
  ts INTEGER NOT NULL,
  harness TEXT NOT NULL,
  session_id TEXT NOT NULL,
  event TEXT NOT NULL,
  tool TEXT,
  verdict TEXT NOT NULL,
  reason_code TEXT NOT NULL,
  rules TEXT NOT NULL,
  args_digest TEXT,
  message TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS decisions_session ON decisions(session_id, id);
CREATE TABLE IF NOT EXISTS approvals(
  decision_id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  args_digest TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE TABLE IF NOT EXISTS mcp_servers(
  server TEXT PRIMARY KEY,
  launch_pin TEXT,
  launch_seen TEXT,
  pinned_at INTEGER,
  updated_at INTEGER
);
CREATE TABLE IF NOT EXISTS mcp_tools(
  server TEXT NOT NULL,
  tool TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  approved_fingerprint TEXT,
  description TEXT,
  input_schema TEXT,
  read_only INTEGER,
  quarantined INTEGER NOT NULL DEFAULT 0,
  quarantine_reason TEXT,
  first_seen INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY(server, tool)
);
";

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
    fn from(e: rusqlite::Error) -> Self {
        StateError(format!("database: {e}"))
    }
}

/// Result type of the state layer.
pub type Result<T> = std::result::Result<T, StateError>;

/// Where a value was seen. Stored as text in `prov_values.origin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The user's own prompt.
    User,
    /// A tool output with no injection found.
    Output,
    /// A tool output flagged as injected.
    OutputInjected,
    /// A tool description flagged as poisoned (written by the MCP catalog, session `*`).
    DescriptionPoisoned,
    /// A resource named for the first time by the agent in a tainted session.
    TaintedScope,
}

impl Origin {
    /// The stored text.
    pub fn name(self) -> &'static str {
        match self {
            Origin::User => "user",
            Origin::Output => "output",
            Origin::OutputInjected => "output_injected",
            Origin::DescriptionPoisoned => "description_poisoned",
            Origin::TaintedScope => "tainted_scope",
        }
    }

    fn from_name(s: &str) -> Option<Origin> {
        Some(match s {
            "user" => Origin::User,
            "output" => Origin::Output,
            "output_injected" => Origin::OutputInjected,
            "description_poisoned" => Origin::DescriptionPoisoned,
            "tainted_scope" => Origin::TaintedScope,
            _ => return None,
        })
    }
}

/// The set of origins of one value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Origins {
    /// Seen in a user prompt.
    pub user: bool,
    /// Seen in a clean tool output.
    pub output: bool,
    /// Seen in an injected tool output.
    pub injected: bool,
    /// Seen in a poisoned tool description.
    pub poisoned_description: bool,
    /// First named by the agent in a tainted session.
    pub tainted_scope: bool,
}

impl Origins {
    fn add(&mut self, o: Origin) {
        match o {
            Origin::User => self.user = true,
            Origin::Output => self.output = true,
            Origin::OutputInjected => self.injected = true,
            Origin::DescriptionPoisoned => self.poisoned_description = true,
            Origin::TaintedScope => self.tainted_scope = true,
        }
    }
}

/// A session's taint.
#[derive(Debug, Clone, Default)]
pub struct SessionState {
    /// True once a tool result carried injected instructions.
    pub tainted: bool,
    /// Why (rule ids and tool).
    pub taint_reason: Option<String>,
}

/// The operator's and the proxy's knowledge of one MCP tool.
#[derive(Debug, Clone, Default)]
pub struct CatalogTool {
    /// Operator's decision: `Some(true)` read-only, `Some(false)` state-changing.
    pub read_only: Option<bool>,
    /// Quarantined by the proxy (poisoned, drifted, shadowing).
    pub quarantined: bool,
    /// Why it was quarantined.
    pub quarantine_reason: Option<String>,
    /// The tool's description as last listed.
    pub description: Option<String>,
    /// The tool's input schema (JSON text) as last listed.
    pub input_schema: Option<String>,
}

/// One audit row, as read back by `intentshield log`.
#[derive(Debug, Clone)]
pub struct AuditRow {
    /// Row id (also the approval id).
    pub id: i64,
    /// Unix seconds.
    pub ts: i64,
    /// Harness name.
    pub harness: String,
    /// Session id.
    pub session_id: String,
    /// Harness event name.
    pub event: String,
    /// Tool display name.
    pub tool: Option<String>,
    /// allow, ask or deny.
    pub verdict: String,
    /// Stable reason code.
    pub reason_code: String,
    /// Matched rules, JSON array text.
    pub rules: String,
    /// SHA-256 of the canonical argument JSON, hex.
    pub args_digest: Option<String>,
    /// The one-line reason.
    pub message: String,
}

/// The columns of `decisions`, in [`AuditRow`] order.
const AUDIT_COLUMNS: &str =
    "id, ts, harness, session_id, event, tool, verdict, reason_code, rules, args_digest, message";

fn audit_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<AuditRow> {
    Ok(AuditRow {
        id: r.get(0)?,
        ts: r.get(1)?,
        harness: r.get(2)?,
        session_id: r.get(3)?,
        event: r.get(4)?,
        tool: r.get(5)?,
        verdict: r.get(6)?,
        reason_code: r.get(7)?,
        rules: r.get(8)?,
        args_digest: r.get(9)?,
        message: r.get(10)?,
    })
}

/// What a decision row records.
#[derive(Debug, Clone)]
pub struct AuditEntry<'a> {
    /// Harness name.
    pub harness: &'a str,
    /// Session id.
    pub session_id: &'a str,
    /// Harness event name.
    pub event: &'a str,
    /// Tool display name.
    pub tool: Option<&'a str>,
    /// allow, ask or deny.
    pub verdict: &'a str,
    /// Stable reason code.
    pub reason_code: &'a str,
    /// Matched rules.
    pub rules: &'a [String],
    /// Digest of the arguments.
    pub args_digest: Option<&'a str>,
    /// The one-line reason.
    pub message: &'a str,
}

/// Current Unix time in seconds.
pub fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// The default database path: `$INTENTSHIELD_DB`, else the platform data directory.
///
/// Errors when neither is available (no home directory).
pub fn default_db_path() -> Result<PathBuf> {
    if let Some(p) = crate::env::db_override() {
        return Ok(p);
    }
    let dirs = directories::ProjectDirs::from("", "", "intentshield")
        .ok_or_else(|| StateError("no home directory to keep the database in".into()))?;
    Ok(dirs.data_dir().join("intentshield.db"))
}

/// An open database.
pub struct Store {
    conn: Connection,
    wal_path: Option<PathBuf>,
}

impl Store {
    /// Opens (creating if needed) the database at `path`, migrating the schema.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !dir.exists() {
                std::fs::create_dir_all(dir)
                    .map_err(|e| StateError(format!("cannot create {}: {e}", dir.display())))?;
            }
        }
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
        };
        store.configure(true)?;
        Ok(store)
    }

    /// A private in-memory database (for `check` without `--db`, and tests).
    pub fn open_in_memory() -> Result<Store> {
        let conn = Connection::open_in_memory()?;
        let mut store = Store {
            conn,
            wal_path: None,
        };
        store.configure(false)?;
        Ok(store)
    }

    fn configure(&mut self, file: bool) -> Result<()> {
        let start = Instant::now();
        let mut seed = std::process::id() as u64 ^ 0x9e37_79b9_7f4a_7c15;
        self.conn.busy_handler(Some(move |_count: i32| {
            if start.elapsed() >= BUSY_BUDGET {
                return false;
            }
            // xorshift jitter: 150..350 µs.
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            std::thread::sleep(Duration::from_micros(150 + seed % 200));
            true
        }))?;
        if file {
            self.conn.set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                true,
            )?;
        }
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if file {
            // journal_mode is persistent in the file; setting it only when needed saves a write.
            let mode: String = self
                .conn
                .query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
            if !mode.eq_ignore_ascii_case("wal") {
                self.conn
                    .query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))?;
            }
            self.conn.execute_batch("PRAGMA synchronous=NORMAL")?;
        }
        if version < SCHEMA_VERSION {
            self.migrate(version)?;
        } else if version > SCHEMA_VERSION {
            return Err(StateError(format!(
                "database schema {version} is newer than this intentshield understands ({SCHEMA_VERSION}); upgrade intentshield"
            )));
        }
        Ok(())
    }

    fn migrate(&mut self, from: i64) -> Result<()> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Re-read under the write lock: another process may have migrated meanwhile.
        let v: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if v < 1 {
            tx.execute_batch(SCHEMA_V1)?;
        }
        let _ = from;
        tx.execute_batch(&format!("PRAGMA user_version={SCHEMA_VERSION}"))?;
        tx.commit()?;
        Ok(())
    }

    /// Starts the read-modify-write transaction of one hook invocation (`BEGIN IMMEDIATE`).
    pub fn begin(&mut self) -> Result<()> {
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        Ok(())
    }

    /// Commits, then truncates the WAL if it passed [`WAL_LIMIT`].
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

    /// The raw connection, for the MCP catalog and tests.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Reads a session's taint; creates the session row (or refreshes `last_seen`).
    pub fn touch_session(&self, id: &str, harness: &str) -> Result<SessionState> {
        // One statement: create or refresh the row, and read its taint back.
        let mut st = self.conn.prepare_cached(
            "INSERT INTO sessions(id, harness, created_at, last_seen) VALUES(?1, ?2, ?3, ?3)
             ON CONFLICT(id) DO UPDATE SET last_seen=excluded.last_seen
             RETURNING tainted, taint_reason",
        )?;
        let st = st.query_row(params![id, harness, now()], |r| {
            Ok(SessionState {
                tainted: r.get::<_, i64>(0)? != 0,
                taint_reason: r.get(1)?,
            })
        })?;
        Ok(st)
    }

    /// Marks a session tainted (the first reason is kept).
    pub fn taint(&self, id: &str, reason: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE sessions SET tainted=1, taint_reason=COALESCE(taint_reason, ?2), taint_at=COALESCE(taint_at, ?3) WHERE id=?1",
            params![id, reason, now()],
        )?;
        Ok(())
    }

    /// Records values with one origin. `values` are `(value, kind)` pairs.
    pub fn record_values(
        &self,
        session: &str,
        values: &[(String, &'static str)],
        origin: Origin,
        source: &str,
    ) -> Result<()> {
        if values.is_empty() {
            return Ok(());
        }
        let mut st = self.conn.prepare_cached(
            "INSERT INTO prov_values(session_id, value, vkind, origin, source, seen_at)
             VALUES(?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(session_id, value, origin) DO UPDATE SET seen_at=excluded.seen_at",
        )?;
        let t = now();
        for (v, k) in values {
            st.execute(params![session, v, k, origin.name(), source, t])?;
        }
        Ok(())
    }

    /// The origins of each of `values` in this session (and catalog-wide rows, session `*`).
    pub fn origins(&self, session: &str, values: &[String]) -> Result<HashMap<String, Origins>> {
        let mut out: HashMap<String, Origins> = HashMap::new();
        if values.is_empty() {
            return Ok(out);
        }
        let mut st = self.conn.prepare_cached(
            "SELECT origin FROM prov_values WHERE value=?1 AND (session_id=?2 OR session_id='*')",
        )?;
        for v in values {
            let mut rows = st.query(params![v, session])?;
            while let Some(r) = rows.next()? {
                let o: String = r.get(0)?;
                if let Some(o) = Origin::from_name(&o) {
                    out.entry(v.clone()).or_default().add(o);
                }
            }
        }
        Ok(out)
    }

    /// Values of one origin in a session (newest first, at most `limit`).
    pub fn values_with_origin(
        &self,
        session: &str,
        origin: Origin,
        limit: i64,
    ) -> Result<Vec<String>> {
        let mut st = self.conn.prepare_cached(
            "SELECT value FROM prov_values WHERE session_id=?1 AND origin=?2 ORDER BY seen_at DESC LIMIT ?3",
        )?;
        let rows = st.query_map(params![session, origin.name(), limit], |r| r.get(0))?;
        Ok(rows.collect::<std::result::Result<Vec<String>, _>>()?)
    }

    /// Remembers a user prompt (already normalized), keeping the newest
    /// [`PROMPTS_PER_SESSION`].
    pub fn record_prompt(&self, session: &str, text: &str) -> Result<()> {
        self.conn.execute(
            "INSERT INTO prompts(session_id, ts, text) VALUES(?1, ?2, ?3)",
            params![session, now(), text],
        )?;
        self.conn.execute(
            "DELETE FROM prompts WHERE session_id=?1 AND rowid NOT IN
               (SELECT rowid FROM prompts WHERE session_id=?1 ORDER BY rowid DESC LIMIT ?2)",
            params![session, PROMPTS_PER_SESSION],
        )?;
        Ok(())
    }

    /// The session's remembered prompts (normalized), newest first.
    pub fn prompts(&self, session: &str) -> Result<Vec<String>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT text FROM prompts WHERE session_id=?1 ORDER BY rowid DESC")?;
        let rows = st.query_map(params![session], |r| r.get(0))?;
        Ok(rows.collect::<std::result::Result<Vec<String>, _>>()?)
    }

    /// Appends an audit row; returns its id.
    pub fn record_decision(&self, e: &AuditEntry<'_>) -> Result<i64> {
        let rules = serde_json::to_string(e.rules).unwrap_or_else(|_| "[]".into());
        self.conn.execute(
            "INSERT INTO decisions(ts, harness, session_id, event, tool, verdict, reason_code, rules, args_digest, message)
             VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                now(),
                e.harness,
                e.session_id,
                e.event,
                e.tool,
                e.verdict,
                e.reason_code,
                rules,
                e.args_digest,
                e.message
            ],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Recent audit rows, newest first, optionally filtered.
    pub fn recent_decisions(
        &self,
        session: Option<&str>,
        verdict: Option<&str>,
        limit: i64,
    ) -> Result<Vec<AuditRow>> {
        let mut st = self.conn.prepare(&format!(
            "SELECT {AUDIT_COLUMNS} FROM decisions
             WHERE (?1 IS NULL OR session_id=?1) AND (?2 IS NULL OR verdict=?2)
             ORDER BY id DESC LIMIT ?3"
        ))?;
        let rows = st.query_map(params![session, verdict, limit], audit_row)?;
        Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
    }

    /// One audit row by id.
    pub fn decision(&self, id: i64) -> Result<Option<AuditRow>> {
        Ok(self
            .conn
            .query_row(
                &format!("SELECT {AUDIT_COLUMNS} FROM decisions WHERE id=?1"),
                params![id],
                audit_row,
            )
            .optional()?)
    }

    /// Grants a one-time approval for the call recorded as audit row `id` (which must be an
    /// ask or deny with an argument digest). Errors name what is wrong.
    pub fn approve(&self, id: i64) -> Result<AuditRow> {
        let row = self
            .decision(id)?
            .ok_or_else(|| StateError(format!("no decision with id {id}")))?;
        if row.verdict != "ask" {
            return Err(StateError(format!(
                "decision {id} was '{}' ({}); only calls that asked for approval can be approved",
                row.verdict, row.reason_code
            )));
        }
        let (Some(tool), Some(digest)) = (&row.tool, &row.args_digest) else {
            return Err(StateError(format!("decision {id} is not a tool call")));
        };
        self.conn.execute(
            "INSERT OR REPLACE INTO approvals(decision_id, session_id, tool, args_digest, created_at, used_at)
             VALUES(?1, ?2, ?3, ?4, ?5, NULL)",
            params![id, row.session_id, tool, digest, now()],
        )?;
        Ok(row)
    }

    /// Consumes an unused approval for this exact call (same session, tool and arguments),
    /// given within the last hour. Returns the approved decision's id.
    pub fn take_approval(&self, session: &str, tool: &str, digest: &str) -> Result<Option<i64>> {
        let id: Option<i64> = self
            .conn
            .query_row(
                "SELECT decision_id FROM approvals
                 WHERE session_id=?1 AND tool=?2 AND args_digest=?3 AND used_at IS NULL AND created_at>=?4
                 ORDER BY decision_id DESC LIMIT 1",
                params![session, tool, digest, now() - 3600],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(id) = id {
            self.conn.execute(
                "UPDATE approvals SET used_at=?2 WHERE decision_id=?1",
                params![id, now()],
            )?;
        }
        Ok(id)
    }

    /// The catalog's knowledge of an MCP tool, if any.
    pub fn catalog_tool(&self, server: &str, tool: &str) -> Result<Option<CatalogTool>> {
        let mut st = self.conn.prepare_cached(
            "SELECT read_only, quarantined, quarantine_reason, description, input_schema
             FROM mcp_tools WHERE server=?1 AND tool=?2",
        )?;
        Ok(st
            .query_row(params![server, tool], |r| {
                Ok(CatalogTool {
                    read_only: r.get::<_, Option<i64>>(0)?.map(|v| v != 0),
                    quarantined: r.get::<_, i64>(1)? != 0,
                    quarantine_reason: r.get(2)?,
                    description: r.get(3)?,
                    input_schema: r.get(4)?,
                })
            })
            .optional()?)
    }

    /// Housekeeping: drops sessions idle over [`SESSION_TTL`] with their values and prompts,
    /// unused approvals older than a day and audit rows older than [`AUDIT_TTL`].
    pub fn prune(&self) -> Result<usize> {
        let cutoff = now() - SESSION_TTL;
        let n = self.conn.execute(
            "DELETE FROM prov_values WHERE session_id IN (SELECT id FROM sessions WHERE last_seen < ?1)",
            params![cutoff],
        )?;
        self.conn.execute(
            "DELETE FROM prompts WHERE session_id IN (SELECT id FROM sessions WHERE last_seen < ?1)",
            params![cutoff],
        )?;
        let s = self
            .conn
            .execute("DELETE FROM sessions WHERE last_seen < ?1", params![cutoff])?;
        self.conn.execute(
            "DELETE FROM approvals WHERE created_at < ?1",
            params![now() - 24 * 3600],
        )?;
        self.conn.execute(
            "DELETE FROM decisions WHERE ts < ?1",
            params![now() - AUDIT_TTL],
        )?;
        Ok(n + s)
    }

    /// Truncates the WAL now (session end).
    pub fn checkpoint(&self) -> Result<()> {
        if self.wal_path.is_some() {
            self.conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_origins_round_trip() {
        let s = Store::open_in_memory().unwrap();
        s.touch_session("s1", "claude").unwrap();
        s.record_values(
            "s1",
            &[("a@b.example".into(), "email")],
            Origin::OutputInjected,
            "t",
        )
        .unwrap();
        s.record_values("s1", &[("a@b.example".into(), "email")], Origin::User, "p")
            .unwrap();
        let o = s.origins("s1", &["a@b.example".into()]).unwrap();
        let o = o["a@b.example"];
        assert!(o.user && o.injected && !o.output);
        assert!(s.origins("s2", &["a@b.example".into()]).unwrap().is_empty());
    }

    #[test]
    fn taint_keeps_first_reason() {
        let s = Store::open_in_memory().unwrap();
        s.touch_session("s", "codex").unwrap();
        s.taint("s", "first").unwrap();
        s.taint("s", "second").unwrap();
        let st = s.touch_session("s", "codex").unwrap();
        assert!(st.tainted);
        assert_eq!(st.taint_reason.as_deref(), Some("first"));
    }

    #[test]
    fn approval_is_single_use() {
        let s = Store::open_in_memory().unwrap();
        let id = s
            .record_decision(&AuditEntry {
                harness: "codex",
                session_id: "s",
                event: "PreToolUse",
                tool: Some("x/send"),
                verdict: "ask",
                reason_code: "taint.state_change",
                rules: &[],
                args_digest: Some("d"),
                message: "m",
            })
            .unwrap();
        s.approve(id).unwrap();
        assert_eq!(s.take_approval("s", "x/send", "d").unwrap(), Some(id));
        assert_eq!(s.take_approval("s", "x/send", "d").unwrap(), None);
    }

    #[test]
    fn deny_cannot_be_approved() {
        let s = Store::open_in_memory().unwrap();
        let id = s
            .record_decision(&AuditEntry {
                harness: "claude",
                session_id: "s",
                event: "PreToolUse",
                tool: Some("Bash"),
                verdict: "deny",
                reason_code: "builtin.pipe_to_shell",
                rules: &[],
                args_digest: Some("d"),
                message: "m",
            })
            .unwrap();
        assert!(s.approve(id).is_err());
    }

    #[test]
    fn schema_versions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let s = Store::open(&path).unwrap();
        let v: i64 = s
            .conn()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        let mode: String = s
            .conn()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        s.conn()
            .execute_batch(&format!("PRAGMA user_version={}", SCHEMA_VERSION + 1))
            .unwrap();
        drop(s);
        let e = Store::open(&path).err().expect("a newer schema is refused");
        assert!(e.0.contains("newer"), "{e}");
    }

    #[test]
    fn prompts_are_capped() {
        let s = Store::open_in_memory().unwrap();
        for i in 0..(PROMPTS_PER_SESSION + 10) {
            s.record_prompt("s", &format!("p{i}")).unwrap();
        }
        let p = s.prompts("s").unwrap();
        assert_eq!(p.len() as i64, PROMPTS_PER_SESSION);
        assert_eq!(p[0], format!("p{}", PROMPTS_PER_SESSION + 9));
    }
}
