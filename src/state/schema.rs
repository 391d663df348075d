//! The schema: table definitions and migrations keyed on `PRAGMA user_version`.

use super::{Result, StateError, Store};
use rusqlite::TransactionBehavior;

/// The schema version this build writes and understands.
pub(super) const SCHEMA_VERSION: i64 = 9;

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

/// Version 2: whether the database saw a session start (`sessions.seen_start`; rows from
/// version 1 did, so they keep their taint as it was), approvals bound to the harness, with an
/// expiry and who granted them (terminal, user id), and the arguments of each asked call,
/// so that `intentshield approve` can show a person exactly what they approve; `meta` holds the
/// creation time of a database created at version 2 or later (`created_at`, Unix seconds).
const SCHEMA_V2: &str = "
ALTER TABLE sessions ADD COLUMN seen_start INTEGER NOT NULL DEFAULT 1;
ALTER TABLE approvals ADD COLUMN harness TEXT;
ALTER TABLE approvals ADD COLUMN expires_at INTEGER;
ALTER TABLE approvals ADD COLUMN tty TEXT;
ALTER TABLE approvals ADD COLUMN uid INTEGER;
CREATE TABLE IF NOT EXISTS meta(
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS call_args(
  decision_id INTEGER PRIMARY KEY,
  args TEXT NOT NULL
);
";

/// Version 3: files a session's shell calls wrote secret data into or downloaded into
/// (`kind` `secret` or `download`, see `crate::session::FileKind`), so that a later call
/// uploading or running one is judged with what the earlier call did; `source` is that call's
/// command (cut), for the evidence.
const SCHEMA_V3: &str = "
CREATE TABLE IF NOT EXISTS session_files(
  session_id TEXT NOT NULL,
  path TEXT NOT NULL,
  kind TEXT NOT NULL,
  source TEXT NOT NULL,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY(session_id, path, kind)
) WITHOUT ROWID;
";

/// Version 4: whether a session is exposed (it read content from outside the user's trust
/// boundary, flagged or not: `crate::session::SessionState::exposed`), what exposed it first
/// (tool and source) and when. Rows from version 3 start unexposed: their taint still holds.
const SCHEMA_V4: &str = "
ALTER TABLE sessions ADD COLUMN exposed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN exposed_by TEXT;
ALTER TABLE sessions ADD COLUMN exposed_at INTEGER;
";

/// Version 5: SHA-256 digests (lower-case hex) of values a session read from secret files
/// (`crate::policy::secret_values`), never the values, with the call that read them (`source`,
/// cut), so that a later call sending one out is denied.
const SCHEMA_V5: &str = "
CREATE TABLE IF NOT EXISTS secret_digests(
  session_id TEXT NOT NULL,
  digest TEXT NOT NULL,
  source TEXT NOT NULL,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY(session_id, digest)
) WITHOUT ROWID;
";

/// Version 7: what contracted calls spent of their budgets (`crate::contracts::budget`): one
/// row per allowed call, its budget key (the contract's action), session, UTC day and units.
const SCHEMA_V7: &str = "
CREATE TABLE IF NOT EXISTS contract_spend(
  id INTEGER PRIMARY KEY,
  budget TEXT NOT NULL,
  session_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  amount INTEGER NOT NULL,
  ts INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS contract_spend_session ON contract_spend(budget, session_id);
CREATE INDEX IF NOT EXISTS contract_spend_day ON contract_spend(budget, day);
";

/// Version 8: receipts, a hash chain over the audit (`state::audit`): each decision row's
/// resolved critical values with their origins (`critical`, JSON text) and who approved it
/// (`approver`), the row hash of the row before it (`prev_hash`) and its own (`row_hash`, over
/// `prev_hash` and its content); `audit_chain` holds the chain's anchor once rows are pruned
/// (`pruned_id`, `pruned_hash`: the id and row hash of the last pruned row). Rows from before
/// version 8 have no hash and stay outside the chain (`audit verify` counts them as legacy).
const SCHEMA_V8: &str = "
ALTER TABLE decisions ADD COLUMN critical TEXT;
ALTER TABLE decisions ADD COLUMN approver TEXT;
ALTER TABLE decisions ADD COLUMN prev_hash TEXT;
ALTER TABLE decisions ADD COLUMN row_hash TEXT;
CREATE TABLE IF NOT EXISTS audit_chain(
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
";

/// Version 9: threat memory and threat packs (`crate::threats`). Indicators (values named by
/// injected content, with who taught them, their status and an LRU stamp), fingerprints of
/// injected sentences (their bottom-k shingle samples), which session saw an MCP server or web
/// host produce injected content, the operator's allow list, the compact index every tool
/// output is matched against (`threat_summary`, one row), installed packs by digest and the
/// pinned pack trust anchors.
const SCHEMA_V9: &str = "
CREATE TABLE IF NOT EXISTS threat_indicators(
  id INTEGER PRIMARY KEY,
  value TEXT NOT NULL UNIQUE,
  vkind TEXT NOT NULL,
  status TEXT NOT NULL,
  origin TEXT NOT NULL,
  session_id TEXT,
  tool TEXT,
  sessions INTEGER NOT NULL DEFAULT 1,
  hits INTEGER NOT NULL DEFAULT 0,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS threat_indicators_lru ON threat_indicators(last_seen);
CREATE TABLE IF NOT EXISTS threat_indicator_sessions(
  indicator_id INTEGER NOT NULL,
  session_id TEXT NOT NULL,
  PRIMARY KEY(indicator_id, session_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS threat_fingerprints(
  id INTEGER PRIMARY KEY,
  digest TEXT NOT NULL UNIQUE,
  sample BLOB NOT NULL,
  blanked INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  origin TEXT NOT NULL,
  session_id TEXT,
  tool TEXT,
  excerpt TEXT NOT NULL,
  hits INTEGER NOT NULL DEFAULT 0,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS threat_fingerprints_lru ON threat_fingerprints(last_seen);
CREATE TABLE IF NOT EXISTS threat_sources(
  source TEXT NOT NULL,
  session_id TEXT NOT NULL,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY(source, session_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS threat_allowed(
  value TEXT PRIMARY KEY,
  at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS threat_summary(
  id INTEGER PRIMARY KEY CHECK (id = 1),
  fp_index BLOB NOT NULL,
  hostile TEXT NOT NULL,
  packs_stamp TEXT NOT NULL DEFAULT '',
  rules TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS threat_packs(
  name TEXT PRIMARY KEY,
  version INTEGER NOT NULL,
  digest TEXT NOT NULL,
  trust TEXT NOT NULL,
  file TEXT NOT NULL,
  compiled TEXT NOT NULL,
  installed_at INTEGER NOT NULL,
  refused TEXT
);
CREATE TABLE IF NOT EXISTS threat_pins(
  kind TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY(kind, value)
) WITHOUT ROWID;
";

impl Store {
    /// The file's `PRAGMA user_version`.
    pub(super) fn schema_version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    /// Brings a schema read as `version` up to [`SCHEMA_VERSION`]; refuses a newer one.
    pub(super) fn upgrade_schema(&mut self, version: i64) -> Result<()> {
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
        if v < 2 {
            tx.execute_batch(SCHEMA_V2)?;
        }
        if v < 3 {
            tx.execute_batch(SCHEMA_V3)?;
        }
        if v < 4 {
            tx.execute_batch(SCHEMA_V4)?;
        }
        if v < 5 {
            tx.execute_batch(SCHEMA_V5)?;
        }
        if v < 7 {
            tx.execute_batch(SCHEMA_V7)?;
        }
        if v < 8 {
            tx.execute_batch(SCHEMA_V8)?;
        }
        if v < 9 {
            tx.execute_batch(SCHEMA_V9)?;
        }
        if v < 1 {
            // A new database knows when it began (one migrated from version 1 does not: it
            // may have seen any session start).
            tx.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES('created_at', ?1)",
                [super::now()],
            )?;
        }
        let _ = from;
        tx.execute_batch(&format!("PRAGMA user_version={SCHEMA_VERSION}"))?;
        tx.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_versions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let s = Store::open(&path).unwrap();
        let v: i64 = s
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        let mode: String = s
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        s.conn
            .execute_batch(&format!("PRAGMA user_version={}", SCHEMA_VERSION + 1))
            .unwrap();
        drop(s);
        let e = Store::open(&path).err().expect("a newer schema is refused");
        assert!(e.0.contains("newer"), "{e}");
    }

    #[test]
    fn statements_keep_one_plan_whatever_their_values() {
        let dir = tempfile::tempdir().unwrap();
        for s in [
            Store::open(&dir.path().join("q.db")).unwrap(),
            Store::open_in_memory().unwrap(),
        ] {
            assert!(s
                .conn
                .db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG)
                .unwrap());
            s.record_prompt("s", "one").unwrap();
            s.record_prompt("s", "two").unwrap();
            assert_eq!(s.prompts("s").unwrap().len(), 2);
        }
    }

    #[test]
    fn version_1_database_is_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.db");
        {
            let c = rusqlite::Connection::open(&path).unwrap();
            c.execute_batch(SCHEMA_V1).unwrap();
            c.execute_batch(
                "INSERT INTO sessions(id, harness, created_at, last_seen, tainted) VALUES('s','claude',1,1,1);
                 PRAGMA user_version=1;",
            )
            .unwrap();
        }
        let s = Store::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
        let (seen, tainted): (i64, i64) = s
            .conn
            .query_row(
                "SELECT seen_start, tainted FROM sessions WHERE id='s'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((seen, tainted), (1, 1));
        let n: i64 = s
            .conn
            .query_row("SELECT count(*) FROM call_args", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 0);
    }

    #[test]
    fn version_2_database_gains_session_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v2.db");
        {
            let c = rusqlite::Connection::open(&path).unwrap();
            c.execute_batch(SCHEMA_V1).unwrap();
            c.execute_batch(SCHEMA_V2).unwrap();
            c.execute_batch(
                "INSERT INTO sessions(id, harness, created_at, last_seen, tainted) VALUES('s','claude',1,1,0);
                 PRAGMA user_version=2;",
            )
            .unwrap();
        }
        let s = Store::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
        let files = vec![crate::session::SessionFile {
            path: "/tmp/b.tgz".into(),
            kind: crate::session::FileKind::Secret,
            source: "tar czf /tmp/b.tgz ~/.ssh".into(),
        }];
        s.record_files("s", &files).unwrap();
        assert_eq!(s.session_files("s", 10).unwrap(), files);
        assert!(s.session_files("other", 10).unwrap().is_empty());
    }

    #[test]
    fn version_3_database_gains_exposure() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v3.db");
        {
            let c = rusqlite::Connection::open(&path).unwrap();
            c.execute_batch(SCHEMA_V1).unwrap();
            c.execute_batch(SCHEMA_V2).unwrap();
            c.execute_batch(SCHEMA_V3).unwrap();
            c.execute_batch(
                "INSERT INTO sessions(id, harness, created_at, last_seen, tainted, taint_reason) VALUES('t','claude',1,1,1,'why');
                 INSERT INTO sessions(id, harness, created_at, last_seen, tainted) VALUES('c','claude',1,1,0);
                 PRAGMA user_version=3;",
            )
            .unwrap();
        }
        let s = Store::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
        // Old rows: not exposed, taint kept (a tainted one still counts as exposed).
        let t = s.session_state("t").unwrap().unwrap();
        assert!(t.tainted && !t.exposed && t.is_exposed());
        let c = s.session_state("c").unwrap().unwrap();
        assert!(!c.tainted && !c.exposed && !c.is_exposed());
        // Exposure is recorded, the first source kept, and read back by touch_session.
        s.expose("c", "WebFetch: https://example.com/").unwrap();
        s.expose("c", "second").unwrap();
        let c = s.touch_session("c", "claude", false).unwrap();
        assert!(c.exposed && !c.tainted);
        assert_eq!(
            c.exposed_by.as_deref(),
            Some("WebFetch: https://example.com/")
        );
    }

    #[test]
    fn version_4_database_gains_contract_spend() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v4.db");
        {
            let c = rusqlite::Connection::open(&path).unwrap();
            for v in [SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4] {
                c.execute_batch(v).unwrap();
            }
            c.execute_batch("PRAGMA user_version=4;").unwrap();
        }
        let s = Store::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
        let spend = crate::contracts::budget::Spend {
            key: "payment.transfer".into(),
            units: 42,
            day: 3,
        };
        s.record_spend("s", &spend).unwrap();
        assert_eq!(
            s.contract_spent("payment.transfer", "s", 3).unwrap().day,
            42
        );
    }

    #[test]
    fn version_4_database_gains_receipts() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v4.db");
        {
            let c = rusqlite::Connection::open(&path).unwrap();
            for step in [SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4] {
                c.execute_batch(step).unwrap();
            }
            c.execute_batch(
                "INSERT INTO decisions(ts, harness, session_id, event, verdict, reason_code, rules, message)
                   VALUES(1, 'claude', 's', 'PreToolUse', 'allow', 'ok', '[]', 'old row');
                 PRAGMA user_version=4;",
            )
            .unwrap();
        }
        let s = Store::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
        // The old row stays, unchained; new rows chain after it.
        let e = crate::state::AuditEntry {
            harness: "claude",
            session_id: "s",
            event: "PreToolUse",
            tool: Some("Bash"),
            verdict: "allow",
            reason_code: "ok",
            rules: &[],
            args_digest: None,
            message: "new row",
        };
        s.record_decision(&e).unwrap();
        s.record_decision(&e).unwrap();
        let r = s.verify_chain().unwrap();
        assert_eq!((r.rows, r.legacy, r.chained, r.bad_count), (3, 1, 2, 0));
        let n: i64 = s
            .conn
            .query_row("SELECT count(*) FROM audit_chain", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 0);
    }

    #[test]
    fn version_4_database_gains_threat_memory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v4.db");
        {
            let c = rusqlite::Connection::open(&path).unwrap();
            for step in [SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4] {
                c.execute_batch(step).unwrap();
            }
            c.execute_batch(
                "INSERT INTO sessions(id, harness, created_at, last_seen, tainted) VALUES('s','claude',1,1,1);
                 PRAGMA user_version=4;",
            )
            .unwrap();
        }
        let s = Store::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
        let tainted: i64 = s
            .conn
            .query_row("SELECT tainted FROM sessions WHERE id='s'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(tainted, 1);
        for t in [
            "threat_indicators",
            "threat_fingerprints",
            "threat_sources",
            "threat_allowed",
            "threat_summary",
            "threat_packs",
            "threat_pins",
        ] {
            let n: i64 = s
                .conn
                .query_row(&format!("SELECT count(*) FROM {t}"), [], |r| r.get(0))
                .unwrap();
            assert_eq!(n, 0, "{t}");
        }
    }

    #[test]
    fn version_4_database_gains_secret_digests() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v4.db");
        {
            let c = rusqlite::Connection::open(&path).unwrap();
            for step in [SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4] {
                c.execute_batch(step).unwrap();
            }
            c.execute_batch(
                "INSERT INTO sessions(id, harness, created_at, last_seen, tainted) VALUES('s','claude',1,1,0);
                 PRAGMA user_version=4;",
            )
            .unwrap();
        }
        let s = Store::open(&path).unwrap();
        assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
        assert!(s.secret_digests("s", 10).unwrap().is_empty());
        let d = crate::policy::secret_values::digest("k3y-Val-9f8e7d6c");
        s.record_secret_digests("s", &[d.clone(), d.clone()], "Read .env")
            .unwrap();
        assert_eq!(
            s.secret_digests("s", 10).unwrap(),
            vec![(d.clone(), "Read .env".to_string())]
        );
        assert!(s.secret_digests("other", 10).unwrap().is_empty());
        // Only the digest is stored, never the value.
        let n: i64 = s
            .conn
            .query_row(
                "SELECT count(*) FROM secret_digests WHERE digest LIKE '%k3y%' OR source LIKE '%k3y%'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 0);
        // Old sessions' digests go with them.
        s.conn
            .execute_batch("UPDATE sessions SET last_seen=1")
            .unwrap();
        s.prune().unwrap();
        assert!(s.secret_digests("s", 10).unwrap().is_empty());
    }
}
