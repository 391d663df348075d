//! The audit trail: one `decisions` row per answer.

use super::{now, Result, Store};
use rusqlite::{params, OptionalExtension};

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
    /// The arguments of an asked or denied call as the hook recorded them (`call_args`:
    /// compact JSON, secrets masked, at most `CALL_ARGS_MAX` bytes); `None` for other rows,
    /// rows older than a day (pruned) and databases from before schema 2.
    pub args: Option<String>,
}

/// The columns of `decisions` (`d`), in [`AuditRow`] order, without the recorded arguments.
const AUDIT_COLUMNS: &str = "d.id, d.ts, d.harness, d.session_id, d.event, d.tool, d.verdict, d.reason_code, d.rules, d.args_digest, d.message";

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
        args: r.get(11)?,
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

/// How many of the newest audit rows [`Store::session_of_call`] looks through.
pub const CALL_LOOKBACK_ROWS: i64 = 1000;

impl Store {
    /// Appends an audit row; returns its id.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
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

    /// The harness session of the newest hook decision about this exact tool call (`tool` as
    /// the audit names it, `server/tool`; `digest` the SHA-256 of its arguments) among the last
    /// `CALL_LOOKBACK_ROWS` (1000) audit rows and at most `within_secs` old. The MCP proxy uses it to
    /// judge a `tools/call` with the session view of the hook event that preceded it.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn session_of_call(
        &self,
        tool: &str,
        digest: &str,
        within_secs: i64,
    ) -> Result<Option<String>> {
        let mut st = self.conn.prepare_cached(
            "SELECT session_id FROM decisions
             WHERE id > (SELECT COALESCE(MAX(id), 0) FROM decisions) - ?4
               AND tool=?1 AND args_digest=?2 AND ts>=?3 AND harness<>'mcp'
             ORDER BY id DESC LIMIT 1",
        )?;
        Ok(st
            .query_row(
                params![tool, digest, now() - within_secs, CALL_LOOKBACK_ROWS],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// `FROM` clause and arguments column for [`AuditRow`] queries: `decisions d` left-joined
    /// with `call_args c` where that table exists (schema 2; a read-only store may be older).
    fn audit_from(&self) -> Result<(&'static str, &'static str)> {
        let has_args: bool = self.conn.query_row(
            "SELECT EXISTS(SELECT 1 FROM sqlite_master WHERE type='table' AND name='call_args')",
            [],
            |r| r.get(0),
        )?;
        Ok(if has_args {
            (
                "decisions d LEFT JOIN call_args c ON c.decision_id=d.id",
                "c.args",
            )
        } else {
            ("decisions d", "NULL")
        })
    }

    /// Recent audit rows, newest first, optionally filtered.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn recent_decisions(
        &self,
        session: Option<&str>,
        verdict: Option<&str>,
        limit: i64,
    ) -> Result<Vec<AuditRow>> {
        let (from, args) = self.audit_from()?;
        let mut st = self.conn.prepare(&format!(
            "SELECT {AUDIT_COLUMNS}, {args} FROM {from}
             WHERE (?1 IS NULL OR d.session_id=?1) AND (?2 IS NULL OR d.verdict=?2)
             ORDER BY d.id DESC LIMIT ?3"
        ))?;
        let rows = st.query_map(params![session, verdict, limit], audit_row)?;
        Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
    }

    /// One audit row by id.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file). An unknown id is
    /// `Ok(None)`, not an error.
    pub fn decision(&self, id: i64) -> Result<Option<AuditRow>> {
        let (from, args) = self.audit_from()?;
        Ok(self
            .conn
            .query_row(
                &format!("SELECT {AUDIT_COLUMNS}, {args} FROM {from} WHERE d.id=?1"),
                params![id],
                audit_row,
            )
            .optional()?)
    }
}
