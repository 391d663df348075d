//! One-time approvals given by a person with `intentshield approve`, and the arguments of the
//! asked calls they are shown.
//!
//! An approval is bound to one exact call: the harness, session, tool and the SHA-256 of the
//! arguments as the agent sent them (`policy::args_digest`, the audit's `args_digest`). It is
//! used at most once and expires ([`Store::grant_approval`] writes `expires_at`; the hook also
//! honours a shorter `approval_ttl` in force when it looks). Rows written by schema 1 have no
//! harness and no expiry and never match.

use super::{now, AuditEntry, Result, StateError, Store};
use crate::decision::Reason;
use crate::text;
use rusqlite::{params, OptionalExtension};
use serde_json::Value;

/// Largest argument text kept for one asked call, markers included (bytes): 16 KiB.
pub const CALL_ARGS_MAX: usize = 16 * 1024;
/// Of [`CALL_ARGS_MAX`], the bytes kept from the end of an over-long argument text, so that
/// what a long call ends with (where a payload is easiest to hide) is shown too.
const CALL_ARGS_TAIL: usize = 4 * 1024;
/// Asked calls whose arguments are kept longer than this are pruned (seconds): one day, the
/// longest `approval_ttl`.
pub const CALL_ARGS_TTL: i64 = 24 * 3600;

/// An asked call that a person may approve, as `intentshield approve` shows it.
#[derive(Debug, Clone)]
pub struct AskedCall {
    /// The ask's audit row id (the id given to `intentshield approve`).
    pub id: i64,
    /// When it was asked (Unix seconds).
    pub ts: i64,
    /// Harness name (`claude`, `codex`, `cursor`, `gemini`).
    pub harness: String,
    /// Harness session id.
    pub session_id: String,
    /// Tool display name (`server/tool` for MCP tools).
    pub tool: String,
    /// The reason code it was asked with.
    pub reason_code: String,
    /// The one-line reason it was asked with.
    pub message: String,
    /// SHA-256 (hex) of the arguments as sent.
    pub args_digest: String,
    /// The arguments as recorded by the hook: compact JSON, secrets masked, cut to
    /// [`CALL_ARGS_MAX`] with a visible marker. `None` when nothing was recorded.
    pub args: Option<String>,
}

/// A granted approval not used yet, for `intentshield approve --list`.
#[derive(Debug, Clone)]
pub struct ApprovalRow {
    /// The approved ask's audit row id.
    pub decision_id: i64,
    /// Harness name.
    pub harness: String,
    /// Session id.
    pub session_id: String,
    /// Tool display name.
    pub tool: String,
    /// When it was granted (Unix seconds).
    pub granted_at: i64,
    /// When it stops matching (Unix seconds): the stored expiry, or earlier when the
    /// `approval_ttl` now in force is shorter.
    pub expires_at: i64,
    /// The terminal it was granted at (`/dev/pts/3`), or `unknown`.
    pub tty: String,
    /// The user id that granted it, when known.
    pub uid: Option<i64>,
}

/// Who grants an approval: what the audit records of them.
#[derive(Debug, Clone, Copy)]
pub struct Grantor<'a> {
    /// The terminal the person confirmed at (`/dev/pts/3`), or `unknown`.
    pub tty: &'a str,
    /// The user id of the process that granted it, when known.
    pub uid: Option<u32>,
}

/// The result of [`Store::grant_approval`].
#[derive(Debug, Clone)]
pub struct Granted {
    /// The approved call.
    pub call: AskedCall,
    /// When the approval stops matching (Unix seconds).
    pub expires_at: i64,
    /// The audit row of the grant (event `approve`, reason `approval.granted`).
    pub audit_id: i64,
}

/// The columns of an [`AskedCall`]: `d` is `decisions`, `c` is `call_args` (left-joined).
const ASKED_COLUMNS: &str =
    "d.id, d.ts, d.harness, d.session_id, d.tool, d.reason_code, d.message, d.args_digest, c.args";

fn asked_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<AskedCall> {
    Ok(AskedCall {
        id: r.get(0)?,
        ts: r.get(1)?,
        harness: r.get(2)?,
        session_id: r.get(3)?,
        tool: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
        reason_code: r.get(5)?,
        message: r.get(6)?,
        args_digest: r.get::<_, Option<String>>(7)?.unwrap_or_default(),
        args: r.get(8)?,
    })
}

impl Store {
    /// Keeps the arguments of the asked or denied call recorded as audit row `decision_id`,
    /// for `intentshield approve` and `intentshield log` to show: `input` as compact JSON (key order as sent), obvious
    /// secrets masked (see [`call_args_text`]), cut to [`CALL_ARGS_MAX`] bytes.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn record_call_args(&self, decision_id: i64, input: &Value) -> Result<()> {
        let mut st = self
            .conn
            .prepare_cached("INSERT OR REPLACE INTO call_args(decision_id, args) VALUES(?1, ?2)")?;
        st.execute(params![decision_id, call_args_text(input)])?;
        Ok(())
    }

    /// The ask recorded as audit row `id`, when a person may still approve it: an ask of a
    /// tool call by a hook, asked at most `ttl` seconds ago, whose arguments were recorded
    /// and which has not been approved before.
    ///
    /// # Errors
    ///
    /// - "no decision with id N";
    /// - "decision N was 'VERDICT' (REASON); only calls that asked for approval can be
    ///   approved" when the row is not an ask;
    /// - "decision N is not a tool call" when it has no tool or argument digest;
    /// - "decision N was asked by the MCP proxy; use `intentshield mcp approve SERVER`";
    /// - "decision N was asked S s ago, longer than approval_ttl (T s) …" when too old;
    /// - "decision N was already approved …" when an approval row exists (used or not);
    /// - "the arguments of decision N were not recorded …" (an ask from before schema 2);
    /// - a database error (locked past the busy budget, I/O, corrupt file).
    pub fn asked_call(&self, id: i64, ttl: i64) -> Result<AskedCall> {
        let row = self
            .decision(id)?
            .ok_or_else(|| StateError(format!("no decision with id {id}")))?;
        if row.verdict != "ask" {
            return Err(StateError(format!(
                "decision {id} was '{}' ({}); only calls that asked for approval can be approved",
                row.verdict, row.reason_code
            )));
        }
        if row.tool.is_none() || row.args_digest.is_none() {
            return Err(StateError(format!("decision {id} is not a tool call")));
        }
        if row.harness == "mcp" {
            return Err(StateError(format!(
                "decision {id} was asked by the MCP proxy; use `intentshield mcp approve SERVER`"
            )));
        }
        let age = now() - row.ts;
        if age > ttl {
            return Err(StateError(format!(
                "decision {id} was asked {age} s ago, longer than approval_ttl ({ttl} s): let the agent retry the call and approve the new ask"
            )));
        }
        let granted: Option<(i64, Option<i64>)> = self
            .conn
            .query_row(
                "SELECT created_at, used_at FROM approvals WHERE decision_id=?1",
                params![id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        if let Some((at, used)) = granted {
            let what = if used.is_some() {
                "already approved and used"
            } else {
                "already approved"
            };
            return Err(StateError(format!(
                "decision {id} was {what} ({} s ago); an approval is given once",
                now() - at
            )));
        }
        let call = self.conn.query_row(
            &format!(
                "SELECT {ASKED_COLUMNS} FROM decisions d LEFT JOIN call_args c ON c.decision_id=d.id WHERE d.id=?1"
            ),
            params![id],
            asked_row,
        )?;
        if call.args.is_none() {
            return Err(StateError(format!(
                "the arguments of decision {id} were not recorded, so they cannot be shown: let the agent retry the call and approve the new ask"
            )));
        }
        Ok(call)
    }

    /// Grants a one-time approval for the ask recorded as audit row `id` (checked again by
    /// [`Store::asked_call`] under the write lock), lasting `ttl` seconds, and audits the grant:
    /// the approvals row records the time, `who.tty` and `who.uid`; a `decisions` row (event
    /// `approve`, verdict `allow`, reason `approval.granted`, the ask's harness, session, tool
    /// and digest) makes it show in `intentshield log`. Both in one transaction.
    ///
    /// Only `intentshield approve` calls this, after a person typed the confirmation code.
    ///
    /// # Errors
    ///
    /// The refusals of [`Store::asked_call`], or a database error (locked past the busy
    /// budget, a transaction already open, I/O, corrupt file); nothing is granted then.
    pub fn grant_approval(&mut self, id: i64, ttl: i64, who: Grantor<'_>) -> Result<Granted> {
        self.begin()?;
        let result = (|| {
            let call = self.asked_call(id, ttl)?;
            let at = now();
            let expires_at = at + ttl;
            self.conn.execute(
                "INSERT INTO approvals(decision_id, session_id, tool, args_digest, created_at, used_at, harness, expires_at, tty, uid)
                 VALUES(?1, ?2, ?3, ?4, ?5, NULL, ?6, ?7, ?8, ?9)",
                params![
                    id,
                    call.session_id,
                    call.tool,
                    call.args_digest,
                    at,
                    call.harness,
                    expires_at,
                    who.tty,
                    who.uid
                ],
            )?;
            let uid = who
                .uid
                .map_or_else(|| "unknown".to_string(), |u| u.to_string());
            let message = format!(
                "approved decision {id} once for {ttl} s, confirmed at terminal {} by uid {uid}",
                who.tty
            );
            let audit_id = self.record_decision(&AuditEntry {
                harness: &call.harness,
                session_id: &call.session_id,
                event: "approve",
                tool: Some(&call.tool),
                verdict: "allow",
                reason_code: Reason::ApprovalGranted.code(),
                rules: &[],
                args_digest: Some(&call.args_digest),
                message: &message,
            })?;
            Ok(Granted {
                call,
                expires_at,
                audit_id,
            })
        })();
        match result {
            Ok(g) => {
                self.commit()?;
                Ok(g)
            }
            Err(e) => {
                self.rollback();
                Err(e)
            }
        }
    }

    /// The newest unused approval for this exact call (same harness, session, tool and
    /// argument digest) that has not expired: its `expires_at` is in the future and it was
    /// granted less than `ttl` seconds ago (the `approval_ttl` in force now, which may be
    /// shorter than when it was granted). Returns the approved decision's id. Does not use it
    /// up (see [`Store::consume_approval`]; the hook does both in one transaction). Rows
    /// without a harness or expiry (schema 1) never match.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file). No matching
    /// approval is `Ok(None)`, not an error.
    pub fn pending_approval(
        &self,
        harness: &str,
        session: &str,
        tool: &str,
        digest: &str,
        ttl: i64,
    ) -> Result<Option<i64>> {
        let t = now();
        let mut st = self.conn.prepare_cached(
            "SELECT decision_id FROM approvals
             WHERE harness=?1 AND session_id=?2 AND tool=?3 AND args_digest=?4 AND used_at IS NULL
               AND expires_at>?5 AND created_at>?5-?6
             ORDER BY decision_id DESC LIMIT 1",
        )?;
        Ok(st
            .query_row(params![harness, session, tool, digest, t, ttl], |r| {
                r.get(0)
            })
            .optional()?)
    }

    /// Marks the approval given for audit row `id` as used.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn consume_approval(&self, id: i64) -> Result<()> {
        self.conn.execute(
            "UPDATE approvals SET used_at=?2 WHERE decision_id=?1 AND used_at IS NULL",
            params![id, now()],
        )?;
        Ok(())
    }

    /// Asks a person may still approve, newest first, at most `limit`: hook asks of tool
    /// calls with recorded arguments, asked within the last `ttl` seconds, not approved yet.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn approvable_asks(&self, ttl: i64, limit: i64) -> Result<Vec<AskedCall>> {
        // call_args holds only asks and denies and is pruned after a day, so it drives the
        // query rather than the (90-day) audit.
        let mut st = self.conn.prepare(&format!(
            "SELECT {ASKED_COLUMNS} FROM call_args c JOIN decisions d ON d.id=c.decision_id
             WHERE d.verdict='ask' AND d.ts>=?1 AND d.tool IS NOT NULL AND d.args_digest IS NOT NULL
               AND d.harness<>'mcp'
               AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.decision_id=d.id)
             ORDER BY d.id DESC LIMIT ?2"
        ))?;
        let rows = st.query_map(params![now() - ttl, limit], asked_row)?;
        Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
    }

    /// Granted approvals not used yet and not expired (as [`Store::pending_approval`] judges
    /// it with the same `ttl`), newest first.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn unused_approvals(&self, ttl: i64) -> Result<Vec<ApprovalRow>> {
        let t = now();
        let mut st = self.conn.prepare(
            "SELECT decision_id, harness, session_id, tool, created_at, min(expires_at, created_at+?2), tty, uid
             FROM approvals
             WHERE used_at IS NULL AND harness IS NOT NULL AND expires_at>?1 AND created_at>?1-?2
             ORDER BY decision_id DESC",
        )?;
        let rows = st.query_map(params![t, ttl], |r| {
            Ok(ApprovalRow {
                decision_id: r.get(0)?,
                harness: r.get(1)?,
                session_id: r.get(2)?,
                tool: r.get(3)?,
                granted_at: r.get(4)?,
                expires_at: r.get(5)?,
                tty: r
                    .get::<_, Option<String>>(6)?
                    .unwrap_or_else(|| "unknown".into()),
                uid: r.get(7)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
    }

    /// Housekeeping: drops the recorded arguments of asks older than `CALL_ARGS_TTL` (a day) or
    /// whose audit row is gone. Returns how many were dropped.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn prune_call_args(&self) -> Result<usize> {
        Ok(self.conn.execute(
            "DELETE FROM call_args WHERE decision_id IN (
               SELECT c.decision_id FROM call_args c LEFT JOIN decisions d ON d.id=c.decision_id
               WHERE d.id IS NULL OR d.ts<?1)",
            params![now() - CALL_ARGS_TTL],
        )?)
    }
}

/// The text kept for an asked call's arguments: `input` as compact JSON (key order as sent),
/// with obvious secrets masked and cut to [`CALL_ARGS_MAX`] bytes.
///
/// Secrets are found by the policy's own detector (`policy::builtin::secret_material`: private
/// keys, AWS access keys, common API tokens): in each string argument that holds one, the
/// words that are one (`ghp_…`, `AKIA…`) become `[an API token masked]`, and a string that
/// still holds one (a PEM key) is replaced whole. An over-long text keeps its first and last
/// bytes with `…[IntentShield cut N bytes here; the arguments are M bytes]…` between them.
pub fn call_args_text(input: &Value) -> String {
    let text = serde_json::to_string(input).unwrap_or_default();
    let text = if crate::policy::builtin::secret_material(&text).is_some() {
        let mut masked = input.clone();
        mask_secrets(&mut masked, 0);
        serde_json::to_string(&masked).unwrap_or_default()
    } else {
        text
    };
    cut_middle(&text, CALL_ARGS_MAX)
}

fn mask_secrets(v: &mut Value, depth: usize) {
    match v {
        Value::String(s) if crate::policy::builtin::secret_material(s).is_some() => {
            *s = mask_string(s);
        }
        // serde_json parses at most 128 levels; this bound only guards other callers.
        Value::Array(items) if depth < 256 => {
            for item in items {
                mask_secrets(item, depth + 1);
            }
        }
        Value::Object(map) if depth < 256 => {
            for (_, item) in map.iter_mut() {
                mask_secrets(item, depth + 1);
            }
        }
        _ => {}
    }
}

/// Masks the token-like words (`[A-Za-z0-9_-]+`) of `s` that the detector calls secret; when
/// the rest still holds a secret (a key that spans words), the whole string.
fn mask_string(s: &str) -> String {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let mut out = String::with_capacity(s.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match crate::policy::builtin::secret_material(word) {
            Some(what) => {
                out.push('[');
                out.push_str(&what);
                out.push_str(" masked]");
            }
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in s.chars() {
        if is_word(c) {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    match crate::policy::builtin::secret_material(&out) {
        Some(what) => format!("[{what} masked: {} bytes]", s.len()),
        None => out,
    }
}

/// `s` when it fits in `max` bytes; else its head and its last [`CALL_ARGS_TAIL`] bytes with a
/// marker naming what was cut, all within `max` bytes (cut at char boundaries).
fn cut_middle(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    // The marker is under 100 bytes; 128 leaves room for any length's digits.
    let head_end = text::floor_boundary(s, max - CALL_ARGS_TAIL - 128);
    let tail_start = text::ceil_boundary(s, s.len() - CALL_ARGS_TAIL);
    format!(
        "{}…[IntentShield cut {} bytes here; the arguments are {} bytes]…{}",
        &s[..head_end],
        tail_start - head_end,
        s.len(),
        &s[tail_start..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const WHO: Grantor<'static> = Grantor {
        tty: "/dev/pts/9",
        uid: Some(1000),
    };

    fn ask(s: &Store, harness: &str, session: &str, tool: &str, digest: &str) -> i64 {
        let id = s
            .record_decision(&AuditEntry {
                harness,
                session_id: session,
                event: "PreToolUse",
                tool: Some(tool),
                verdict: "ask",
                reason_code: "taint.state_change",
                rules: &[],
                args_digest: Some(digest),
                message: "m",
            })
            .unwrap();
        s.record_call_args(id, &json!({"title": "t"})).unwrap();
        id
    }

    #[test]
    fn approval_is_single_use() {
        let mut s = Store::open_in_memory().unwrap();
        let id = ask(&s, "codex", "s", "x/send", "d");
        let g = s.grant_approval(id, 300, WHO).unwrap();
        assert!(g.expires_at >= now() + 299);
        assert_eq!(
            s.pending_approval("codex", "s", "x/send", "d", 300)
                .unwrap(),
            Some(id)
        );
        s.consume_approval(id).unwrap();
        assert_eq!(
            s.pending_approval("codex", "s", "x/send", "d", 300)
                .unwrap(),
            None
        );
        // Granting it again is refused: an approval is given once.
        let e = s.grant_approval(id, 300, WHO).unwrap_err();
        assert!(e.0.contains("already approved and used"), "{e}");
    }

    #[test]
    fn approval_is_bound_to_harness_session_tool_and_arguments() {
        let mut s = Store::open_in_memory().unwrap();
        let id = ask(&s, "codex", "s", "x/send", "d");
        s.grant_approval(id, 300, WHO).unwrap();
        for (h, sess, tool, digest) in [
            ("gemini", "s", "x/send", "d"),
            ("codex", "other", "x/send", "d"),
            ("codex", "s", "x/delete", "d"),
            ("codex", "s", "x/send", "e"),
        ] {
            assert_eq!(
                s.pending_approval(h, sess, tool, digest, 300).unwrap(),
                None,
                "{h} {sess} {tool} {digest}"
            );
        }
        assert_eq!(
            s.pending_approval("codex", "s", "x/send", "d", 300)
                .unwrap(),
            Some(id)
        );
    }

    #[test]
    fn expired_approvals_and_schema_1_rows_never_match() {
        let mut s = Store::open_in_memory().unwrap();
        let id = ask(&s, "claude", "s", "Bash", "d");
        s.grant_approval(id, 300, WHO).unwrap();
        s.conn
            .execute(
                "UPDATE approvals SET expires_at=?1 WHERE decision_id=?2",
                params![now() - 1, id],
            )
            .unwrap();
        assert_eq!(
            s.pending_approval("claude", "s", "Bash", "d", 300).unwrap(),
            None
        );
        assert!(s.unused_approvals(300).unwrap().is_empty());
        // Granted 100 s ago with 300 s to live, but the approval_ttl now in force is 60 s.
        let id2 = ask(&s, "claude", "s", "Bash", "d2");
        s.grant_approval(id2, 300, WHO).unwrap();
        s.conn
            .execute(
                "UPDATE approvals SET created_at=created_at-100 WHERE decision_id=?1",
                params![id2],
            )
            .unwrap();
        assert_eq!(
            s.pending_approval("claude", "s", "Bash", "d2", 60).unwrap(),
            None
        );
        assert_eq!(
            s.pending_approval("claude", "s", "Bash", "d2", 300)
                .unwrap(),
            Some(id2)
        );
        // A row as schema 1 wrote it: no harness, no expiry.
        s.conn
            .execute(
                "INSERT INTO approvals(decision_id, session_id, tool, args_digest, created_at) VALUES(999, 's', 'Bash', 'd3', ?1)",
                params![now()],
            )
            .unwrap();
        assert_eq!(
            s.pending_approval("claude", "s", "Bash", "d3", 300)
                .unwrap(),
            None
        );
    }

    #[test]
    fn only_fresh_recorded_hook_asks_can_be_granted() {
        let mut s = Store::open_in_memory().unwrap();
        let deny = s
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
        let e = s.grant_approval(deny, 300, WHO).unwrap_err();
        assert!(e.0.contains("only calls that asked"), "{e}");
        assert!(s
            .grant_approval(12345, 300, WHO)
            .unwrap_err()
            .0
            .contains("no decision"));
        // Too old for the TTL.
        let old = ask(&s, "claude", "s", "Bash", "d");
        s.conn
            .execute("UPDATE decisions SET ts=ts-301 WHERE id=?1", params![old])
            .unwrap();
        let e = s.grant_approval(old, 300, WHO).unwrap_err();
        assert!(e.0.contains("longer than approval_ttl"), "{e}");
        // No recorded arguments (an ask from before schema 2).
        let bare = s
            .record_decision(&AuditEntry {
                harness: "claude",
                session_id: "s",
                event: "PreToolUse",
                tool: Some("Bash"),
                verdict: "ask",
                reason_code: "taint.state_change",
                rules: &[],
                args_digest: Some("d"),
                message: "m",
            })
            .unwrap();
        let e = s.grant_approval(bare, 300, WHO).unwrap_err();
        assert!(e.0.contains("not recorded"), "{e}");
        // None of the refusals left a row behind.
        let n: i64 = s
            .conn
            .query_row("SELECT count(*) FROM approvals", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 0);
    }

    #[test]
    fn a_grant_is_audited() {
        let mut s = Store::open_in_memory().unwrap();
        let id = ask(&s, "gemini", "g", "notes/create", "d");
        let g = s.grant_approval(id, 120, WHO).unwrap();
        let row = s.decision(g.audit_id).unwrap().unwrap();
        assert_eq!(row.event, "approve");
        assert_eq!(row.verdict, "allow");
        assert_eq!(row.reason_code, "approval.granted");
        assert_eq!(row.harness, "gemini");
        assert_eq!(row.tool.as_deref(), Some("notes/create"));
        assert!(row.message.contains("/dev/pts/9"), "{}", row.message);
        assert!(row.message.contains("uid 1000"), "{}", row.message);
        let (tty, uid, exp, created): (String, i64, i64, i64) = s
            .conn
            .query_row(
                "SELECT tty, uid, expires_at, created_at FROM approvals WHERE decision_id=?1",
                params![id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap();
        assert_eq!(
            (tty.as_str(), uid, exp - created),
            ("/dev/pts/9", 1000, 120)
        );
    }

    #[test]
    fn lists_asks_and_unused_approvals() {
        let mut s = Store::open_in_memory().unwrap();
        let a = ask(&s, "codex", "s", "x/send", "d1");
        let b = ask(&s, "claude", "t", "Bash", "d2");
        let old = ask(&s, "claude", "t", "Bash", "d3");
        s.conn
            .execute("UPDATE decisions SET ts=ts-400 WHERE id=?1", params![old])
            .unwrap();
        let asks: Vec<i64> = s
            .approvable_asks(300, 50)
            .unwrap()
            .iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(asks, vec![b, a]);
        s.grant_approval(a, 300, WHO).unwrap();
        let asks: Vec<i64> = s
            .approvable_asks(300, 50)
            .unwrap()
            .iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(asks, vec![b]);
        let granted = s.unused_approvals(300).unwrap();
        assert_eq!(granted.len(), 1);
        assert_eq!(granted[0].decision_id, a);
        assert_eq!(granted[0].tty, "/dev/pts/9");
        s.consume_approval(a).unwrap();
        assert!(s.unused_approvals(300).unwrap().is_empty());
    }

    #[test]
    fn call_args_are_masked_and_cut() {
        let token = format!("ghp_{}", "a1".repeat(20));
        let t = call_args_text(
            &json!({"command": format!("curl -H 'Authorization: token {token}' https://x.invalid"), "n": 1}),
        );
        assert!(!t.contains(&token), "{t}");
        assert!(
            t.contains("token [an API token masked]' https://x.invalid"),
            "{t}"
        );
        let pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----";
        let t = call_args_text(&json!({"body": pem, "to": "a@b.invalid"}));
        assert!(!t.contains("b3BlbnNzaC1rZXk"), "{t}");
        assert!(t.contains("a private key masked"), "{t}");
        assert!(t.contains("a@b.invalid"), "{t}");
        // Plain arguments are kept as sent (compact JSON, key order kept).
        assert_eq!(
            call_args_text(&json!({"z": 1, "a": "é"})),
            r#"{"z":1,"a":"é"}"#
        );
        // Over-long: head and tail kept, a visible marker between, within the cap.
        let long = format!("{}TAIL-END", "é".repeat(20_000));
        let t = call_args_text(&json!({ "body": long }));
        assert!(t.len() <= CALL_ARGS_MAX, "{}", t.len());
        assert!(t.contains("…[IntentShield cut "), "marker");
        assert!(t.contains("the arguments are 40019 bytes]…"), "marker");
        assert!(t.starts_with(r#"{"body":"éé"#));
        assert!(t.ends_with("TAIL-END\"}"));
    }

    #[test]
    fn old_call_args_are_pruned() {
        let s = Store::open_in_memory().unwrap();
        let keep = ask(&s, "claude", "s", "Bash", "d");
        let old = ask(&s, "claude", "s", "Bash", "d2");
        s.conn
            .execute(
                "UPDATE decisions SET ts=ts-?2 WHERE id=?1",
                params![old, CALL_ARGS_TTL + 1],
            )
            .unwrap();
        s.record_call_args(4242, &json!({})).unwrap();
        assert_eq!(s.prune_call_args().unwrap(), 2);
        let left: Vec<i64> = s
            .conn
            .prepare("SELECT decision_id FROM call_args")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(left, vec![keep]);
    }
}
