//! One-time approvals given with `intentshield approve`.

use super::{now, AuditRow, Result, StateError, Store};
use rusqlite::{params, OptionalExtension};

impl Store {
    /// Grants a one-time approval for the call recorded as audit row `id` (which must be an
    /// ask of a tool call with an argument digest). Returns that row.
    ///
    /// # Errors
    ///
    /// - "no decision with id N" when no audit row has that id;
    /// - "decision N was 'VERDICT' (REASON); only calls that asked for approval can be
    ///   approved" when the row is not an ask;
    /// - "decision N is not a tool call" when the row has no tool or no argument digest;
    /// - a database error (locked past the busy budget, I/O, corrupt file).
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

    /// The newest unused approval for this exact call (same session, tool and arguments),
    /// given within the last hour: the approved decision's id. Does not use it up (see
    /// [`Store::consume_approval`]; the hook does both in one transaction).
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file). No matching
    /// approval is `Ok(None)`, not an error.
    pub fn pending_approval(&self, session: &str, tool: &str, digest: &str) -> Result<Option<i64>> {
        Ok(self
            .conn
            .query_row(
                "SELECT decision_id FROM approvals
                 WHERE session_id=?1 AND tool=?2 AND args_digest=?3 AND used_at IS NULL AND created_at>=?4
                 ORDER BY decision_id DESC LIMIT 1",
                params![session, tool, digest, now() - 3600],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Marks the approval given for audit row `id` as used.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn consume_approval(&self, id: i64) -> Result<()> {
        self.conn.execute(
            "UPDATE approvals SET used_at=?2 WHERE decision_id=?1",
            params![id, now()],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::AuditEntry;
    use super::*;

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
        assert_eq!(s.pending_approval("s", "x/send", "d").unwrap(), Some(id));
        s.consume_approval(id).unwrap();
        assert_eq!(s.pending_approval("s", "x/send", "d").unwrap(), None);
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
}
