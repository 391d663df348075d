//! Sessions: creation, taint, and housekeeping of old rows.

use super::{now, Result, SessionState, Store, AUDIT_TTL, SESSION_TTL};
use rusqlite::{params, OptionalExtension};

impl Store {
    /// Reads a session's taint without creating or refreshing its row; `None` when the session
    /// is unknown.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn session_state(&self, id: &str) -> Result<Option<SessionState>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT tainted, taint_reason FROM sessions WHERE id=?1")?;
        Ok(st
            .query_row(params![id], |r| {
                Ok(SessionState {
                    tainted: r.get::<_, i64>(0)? != 0,
                    taint_reason: r.get(1)?,
                })
            })
            .optional()?)
    }

    /// Reads a session's taint; creates the session row (or refreshes `last_seen`).
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
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
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file). An unknown session
    /// is not an error: nothing is updated.
    pub fn taint(&self, id: &str, reason: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE sessions SET tainted=1, taint_reason=COALESCE(taint_reason, ?2), taint_at=COALESCE(taint_at, ?3) WHERE id=?1",
            params![id, reason, now()],
        )?;
        Ok(())
    }

    /// Housekeeping: drops sessions idle over [`SESSION_TTL`] with their values and prompts,
    /// unused approvals older than a day, audit rows older than [`AUDIT_TTL`] and the
    /// arguments of asks older than a day.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file); rows deleted before
    /// the failing statement stay deleted unless the caller rolls back.
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
        self.prune_call_args()?;
        Ok(n + s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
