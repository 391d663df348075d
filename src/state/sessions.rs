//! Sessions: creation, taint, and housekeeping of old rows.

use super::{now, Result, SessionState, Store, AUDIT_TTL, SESSION_TTL};

/// The taint reason of a session whose first event this database saw was not a session
/// start (see [`Store::touch_session`]).
pub const UNSEEN_START: &str = "the guard's database did not see this session start (a new, replaced or repaired database): treated as tainted until a new session starts";
use rusqlite::{params, OptionalExtension};

impl Store {
    /// When this database was created (Unix seconds), if it was created at schema 2 or later.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn created_at(&self) -> Result<Option<i64>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT value FROM meta WHERE key='created_at'")?;
        Ok(st.query_row([], |r| r.get(0)).optional()?)
    }

    /// Reads a session's taint without creating or refreshing its row; `None` when the session
    /// is unknown.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn session_state(&self, id: &str) -> Result<Option<SessionState>> {
        let mut st = self.conn.prepare_cached(
            "SELECT tainted, taint_reason, exposed, exposed_by FROM sessions WHERE id=?1",
        )?;
        Ok(st.query_row(params![id], state_of_row).optional()?)
    }

    /// Reads a session's taint; creates the session row (or refreshes `last_seen`).
    ///
    /// `start` says whether the event that reaches the row is a session start
    /// (`crate::event::Event::starts_session`: a prompt, or a session start of a new
    /// conversation). A row created by any other event belongs to a session this database did
    /// not see from its start (a new, replaced or repaired database, or one whose row was
    /// pruned): it is created with `seen_start = 0` and tainted with [`UNSEEN_START`], since
    /// the tool results it already read are unknown. An existing row keeps its taint whatever
    /// `start` says: taint is never lost.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn touch_session(&self, id: &str, harness: &str, start: bool) -> Result<SessionState> {
        let seen = start || self.sessions_start_here;
        let ts = now();
        let (reason, taint_at) = if seen {
            (None, None)
        } else {
            (Some(UNSEEN_START), Some(ts))
        };
        // One statement: create or refresh the row, and read its taint back.
        let mut st = self.conn.prepare_cached(
            "INSERT INTO sessions(id, harness, created_at, last_seen, seen_start, tainted, taint_reason, taint_at)
             VALUES(?1, ?2, ?3, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT(id) DO UPDATE SET last_seen=excluded.last_seen
             RETURNING tainted, taint_reason, exposed, exposed_by",
        )?;
        let params = params![id, harness, ts, seen, !seen, reason, taint_at];
        Ok(st.query_row(params, state_of_row)?)
    }

    /// Makes every session row this store creates count as seen from its start, whatever
    /// event creates it. For `intentshield check`'s private in-memory database only: it starts
    /// empty by design, so its sessions have no earlier history to have missed. The hook's
    /// database never calls it.
    pub fn assume_sessions_start_here(&mut self) {
        self.sessions_start_here = true;
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

    /// Marks a session exposed: it read content from outside the user's trust boundary
    /// (`source` names the tool and where the content came from; the first is kept).
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file). An unknown session
    /// is not an error: nothing is updated.
    pub fn expose(&self, id: &str, source: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE sessions SET exposed=1, exposed_by=COALESCE(exposed_by, ?2), exposed_at=COALESCE(exposed_at, ?3) WHERE id=?1",
            params![id, crate::text::cap(source, 300), now()],
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
        self.conn.execute(
            "DELETE FROM session_files WHERE session_id IN (SELECT id FROM sessions WHERE last_seen < ?1)",
            params![cutoff],
        )?;
        self.conn.execute(
            "DELETE FROM secret_digests WHERE session_id IN (SELECT id FROM sessions WHERE last_seen < ?1)",
            params![cutoff],
        )?;
        let s = self
            .conn
            .execute("DELETE FROM sessions WHERE last_seen < ?1", params![cutoff])?;
        self.conn.execute(
            "DELETE FROM approvals WHERE created_at < ?1",
            params![now() - 24 * 3600],
        )?;
        // A prefix of the audit's hash chain, its last hash kept as the anchor.
        self.prune_audit(now() - AUDIT_TTL)?;
        self.prune_call_args()?;
        let t = self.prune_threats()?;
        Ok(n + s + t)
    }
}

/// A session's state from a row `(tainted, taint_reason, exposed, exposed_by)`.
fn state_of_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SessionState> {
    Ok(SessionState {
        tainted: r.get::<_, i64>(0)? != 0,
        taint_reason: r.get(1)?,
        exposed: r.get::<_, i64>(2)? != 0,
        exposed_by: r.get(3)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taint_keeps_first_reason() {
        let s = Store::open_in_memory().unwrap();
        s.touch_session("s", "codex", true).unwrap();
        s.taint("s", "first").unwrap();
        s.taint("s", "second").unwrap();
        let st = s.touch_session("s", "codex", true).unwrap();
        assert!(st.tainted);
        assert_eq!(st.taint_reason.as_deref(), Some("first"));
    }

    #[test]
    fn a_session_first_seen_after_its_start_is_tainted() {
        let s = Store::open_in_memory().unwrap();
        let seen = |id: &str| -> i64 {
            s.conn
                .query_row("SELECT seen_start FROM sessions WHERE id=?1", [id], |r| {
                    r.get(0)
                })
                .unwrap()
        };
        // Seen from its start: clean.
        let st = s.touch_session("new", "claude", true).unwrap();
        assert!(!st.tainted && st.taint_reason.is_none());
        assert_eq!(seen("new"), 1);
        // First seen on another event: tainted, with the reason.
        let st = s.touch_session("mid", "claude", false).unwrap();
        assert!(st.tainted);
        assert_eq!(st.taint_reason.as_deref(), Some(UNSEEN_START));
        assert_eq!(seen("mid"), 0);
        // A start arriving later does not clean it: taint is never lost.
        let st = s.touch_session("mid", "claude", true).unwrap();
        assert!(st.tainted);
        assert_eq!(seen("mid"), 0);
        // And a clean session stays clean on later events.
        assert!(!s.touch_session("new", "claude", false).unwrap().tainted);
        // The check command's private store counts every new session as started.
        let mut m = Store::open_in_memory().unwrap();
        m.assume_sessions_start_here();
        assert!(!m.touch_session("x", "claude", false).unwrap().tainted);
    }
}
