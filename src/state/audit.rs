//! The audit trail: one `decisions` row per answer, and its receipts: a hash chain per
//! database.
//!
//! # Receipts
//!
//! Every row written since schema 8 carries `prev_hash`, the `row_hash` of the row before it
//! (by id), and `row_hash`, the SHA-256 (lowercase hex) of:
//!
//! ```text
//! "intentshield-audit-v1" 0x00
//! prev_hash                      64 ASCII hex characters
//! F(id) F(ts) F(harness) F(session_id) F(event) F(tool) F(verdict) F(reason_code)
//! F(rules) F(args_digest) F(message) F(critical) F(approver)
//! ```
//!
//! where `F(text)` is the length of the UTF-8 text in bytes as an unsigned 64-bit big-endian
//! integer followed by those bytes, `F(NULL)` is eight `0xFF` bytes (so NULL and the empty
//! text differ), and the integers `id` and `ts` are hashed as their decimal text. Every field is
//! the column exactly as stored: `rules` the JSON array text, `args_digest` the SHA-256 of the
//! arguments as the agent sent them (the row keeps the digest, not the call), `critical` the
//! JSON text of the call's resolved critical values with their origins, `approver` who
//! approved an approved call. The first row of a chain has `prev_hash` = 64 `0`s
//! ([`GENESIS`]), or, once rows were pruned, the `row_hash` of the last pruned row, kept in
//! `audit_chain` (`pruned_hash`, with its id as `pruned_id`): pruning removes a prefix of the
//! chain and the rest stays verifiable.
//!
//! Appending reads the newest row's hash and inserts inside the caller's `BEGIN IMMEDIATE`
//! transaction (the hook's one transaction per event; [`Store::record_decision_with`] opens
//! its own when called outside one), so concurrent processes cannot fork the chain.
//! `intentshield audit verify` walks it ([`Store::verify_chain`]); `log` marks rows whose
//! receipt does not match ([`Store::chain_status`]). A chain proves order and integrity against
//! edits, insertions and deletions inside it; someone who can write the database can rebuild
//! the whole chain, so the export sink's copy of each `row_hash` (in a SIEM) is the outside
//! anchor. Rows from before schema 8 have no hash and are counted as legacy.

use super::{now, Result, Store};
use rusqlite::{params, OptionalExtension};
use sha2::{Digest, Sha256};

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
    /// The call's resolved critical values with their origins, JSON text (an array of
    /// `{"value", "kind", "origins"}`), as hashed; `None` when it had none.
    pub critical: Option<String>,
    /// Who approved an approved call (`approval #ID by uid N on TTY`), as hashed.
    pub approver: Option<String>,
    /// The previous row's hash (hex); `None` for rows from before schema 8.
    pub prev_hash: Option<String>,
    /// This row's hash (hex, see the module notes); `None` for rows from before schema 8.
    pub row_hash: Option<String>,
    /// The row's chain status when the reader checked it (`log` does); `None` otherwise.
    pub chain: Option<ChainStatus>,
}

/// A row's place in the hash chain, as `log` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainStatus {
    /// Its hash matches its content and the row before it.
    Ok,
    /// Its hash or its link to the row before it does not match.
    Broken,
    /// Written before receipts existed (schema 8).
    Unchained,
}

impl ChainStatus {
    /// `ok`, `broken` or `unchained`.
    pub fn name(self) -> &'static str {
        match self {
            ChainStatus::Ok => "ok",
            ChainStatus::Broken => "broken",
            ChainStatus::Unchained => "unchained",
        }
    }
}

/// The `prev_hash` of the first row of a chain that nothing was pruned from: 64 `0`s.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// What starts the hashed text (a domain tag and a version).
const DOMAIN: &[u8] = b"intentshield-audit-v1\0";

/// The fields of one row that its hash covers, in hashing order.
#[derive(Debug, Clone, Copy)]
pub struct RowContent<'a> {
    /// Row id.
    pub id: i64,
    /// Unix seconds.
    pub ts: i64,
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
    /// Matched rules, the stored JSON array text.
    pub rules: &'a str,
    /// SHA-256 of the arguments as sent, hex.
    pub args_digest: Option<&'a str>,
    /// The one-line reason.
    pub message: &'a str,
    /// Resolved critical values, JSON text.
    pub critical: Option<&'a str>,
    /// Who approved the call.
    pub approver: Option<&'a str>,
}

/// The row hash (lowercase hex SHA-256) of `content` chained after `prev` (see the module
/// notes for the exact input).
pub fn row_hash(prev: &str, c: &RowContent<'_>) -> String {
    fn field(h: &mut Sha256, v: Option<&[u8]>) {
        match v {
            None => h.update([0xFF; 8]),
            Some(b) => {
                h.update((b.len() as u64).to_be_bytes());
                h.update(b);
            }
        }
    }
    let mut h = Sha256::new();
    h.update(DOMAIN);
    h.update(prev.as_bytes());
    field(&mut h, Some(c.id.to_string().as_bytes()));
    field(&mut h, Some(c.ts.to_string().as_bytes()));
    for v in [
        Some(c.harness),
        Some(c.session_id),
        Some(c.event),
        c.tool,
        Some(c.verdict),
        Some(c.reason_code),
        Some(c.rules),
        c.args_digest,
        Some(c.message),
        c.critical,
        c.approver,
    ] {
        field(&mut h, v.map(str::as_bytes));
    }
    crate::text::hex(&h.finalize())
}

impl AuditRow {
    /// The hashed fields of this row.
    pub fn content(&self) -> RowContent<'_> {
        RowContent {
            id: self.id,
            ts: self.ts,
            harness: &self.harness,
            session_id: &self.session_id,
            event: &self.event,
            tool: self.tool.as_deref(),
            verdict: &self.verdict,
            reason_code: &self.reason_code,
            rules: &self.rules,
            args_digest: self.args_digest.as_deref(),
            message: &self.message,
            critical: self.critical.as_deref(),
            approver: self.approver.as_deref(),
        }
    }

    /// True when `row_hash` is the hash of this row's content after its `prev_hash`.
    pub fn hash_matches(&self) -> bool {
        match (&self.prev_hash, &self.row_hash) {
            (Some(p), Some(h)) => row_hash(p, &self.content()) == *h,
            _ => false,
        }
    }
}

/// What is wrong with a row of the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChainProblem {
    /// Its `row_hash` is not the hash of its content: the row was edited.
    Content,
    /// Its `prev_hash` is not the `row_hash` of the row before it (`previous`: that row's id;
    /// `None`: the chain's anchor): a row was removed or inserted before it.
    Link {
        /// The id of the row before it, `None` for the anchor.
        previous: Option<i64>,
    },
    /// It has no hash although chained rows come before it.
    MissingHash,
}

/// A row that does not match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRow {
    /// Row id.
    pub id: i64,
    /// What does not match.
    pub problem: ChainProblem,
}

/// The result of walking the chain ([`Store::verify_chain`]).
#[derive(Debug, Clone, Default)]
pub struct ChainReport {
    /// Rows in the audit.
    pub rows: usize,
    /// Rows with a receipt (or that should have one).
    pub chained: usize,
    /// Rows from before schema 8, before the first chained row.
    pub legacy: usize,
    /// Id of the first and last chained rows.
    pub first_id: Option<i64>,
    /// Id of the last chained row.
    pub last_id: Option<i64>,
    /// The anchor the first row chains to, once rows were pruned: `(pruned_id, pruned_hash)`.
    pub anchor: Option<(i64, String)>,
    /// Rows that do not match, in id order (the first [`BAD_ROWS_KEPT`]).
    pub bad: Vec<BadRow>,
    /// How many rows do not match in all.
    pub bad_count: usize,
}

/// How many bad rows a [`ChainReport`] lists.
pub const BAD_ROWS_KEPT: usize = 1000;

/// What a row records beyond [`AuditEntry`]: the call's resolved critical values with their
/// origins (JSON text) and who approved it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Receipt<'a> {
    /// Resolved critical values, JSON text (masked).
    pub critical: Option<&'a str>,
    /// Who approved the call.
    pub approver: Option<&'a str>,
}

/// A row as it was appended.
#[derive(Debug, Clone)]
pub struct Appended {
    /// Row id.
    pub id: i64,
    /// Unix seconds.
    pub ts: i64,
    /// The previous row's hash (or the anchor).
    pub prev_hash: String,
    /// This row's hash.
    pub row_hash: String,
}

/// The columns of `decisions` (`d`), in [`AuditRow`] order, without the recorded arguments
/// and the receipt columns.
const AUDIT_COLUMNS: &str = "d.id, d.ts, d.harness, d.session_id, d.event, d.tool, d.verdict, d.reason_code, d.rules, d.args_digest, d.message";
/// The receipt columns (schema 8), in [`AuditRow`] order.
const RECEIPT_COLUMNS: &str = "d.critical, d.approver, d.prev_hash, d.row_hash";

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
        critical: r.get(12)?,
        approver: r.get(13)?,
        prev_hash: r.get(14)?,
        row_hash: r.get(15)?,
        chain: None,
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
    /// Appends an audit row; returns its id. As [`Store::record_decision_with`] with no
    /// critical values and no approver.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn record_decision(&self, e: &AuditEntry<'_>) -> Result<i64> {
        Ok(self.record_decision_with(e, &Receipt::default())?.id)
    }

    /// Appends an audit row chained after the newest one (see the module notes), with what
    /// `receipt` adds. Inside an open transaction it runs in it (the caller began it with
    /// `BEGIN IMMEDIATE`, so the newest row cannot change under it); outside one it opens and
    /// commits its own `BEGIN IMMEDIATE`.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn record_decision_with(
        &self,
        e: &AuditEntry<'_>,
        receipt: &Receipt<'_>,
    ) -> Result<Appended> {
        self.append_decision(e, receipt, now())
    }

    /// [`Store::record_decision_with`] at time `ts`.
    pub(super) fn append_decision(
        &self,
        e: &AuditEntry<'_>,
        receipt: &Receipt<'_>,
        ts: i64,
    ) -> Result<Appended> {
        let own_tx = self.conn.is_autocommit();
        if own_tx {
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
        }
        let r = self.append_in_tx(e, receipt, ts);
        if own_tx {
            match &r {
                Ok(_) => {
                    if let Err(err) = self.conn.execute_batch("COMMIT") {
                        let _ = self.conn.execute_batch("ROLLBACK");
                        return Err(err.into());
                    }
                }
                Err(_) => {
                    let _ = self.conn.execute_batch("ROLLBACK");
                }
            }
        }
        r
    }

    fn append_in_tx(&self, e: &AuditEntry<'_>, receipt: &Receipt<'_>, ts: i64) -> Result<Appended> {
        let rules = serde_json::to_string(e.rules).unwrap_or_else(|_| "[]".into());
        let last: Option<(i64, Option<String>)> = self
            .conn
            .prepare_cached("SELECT id, row_hash FROM decisions ORDER BY id DESC LIMIT 1")?
            .query_row([], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?;
        let (id, prev) = match last {
            Some((id, Some(h))) => (id + 1, h),
            // An empty audit, or one whose newest row is from before schema 8: the chain
            // starts at the anchor.
            other => {
                let anchor = self.chain_anchor()?;
                let after = other
                    .map(|(id, _)| id)
                    .max(anchor.as_ref().map(|(id, _)| *id))
                    .unwrap_or(0);
                (
                    after + 1,
                    anchor.map(|(_, h)| h).unwrap_or_else(|| GENESIS.into()),
                )
            }
        };
        let hash = row_hash(
            &prev,
            &RowContent {
                id,
                ts,
                harness: e.harness,
                session_id: e.session_id,
                event: e.event,
                tool: e.tool,
                verdict: e.verdict,
                reason_code: e.reason_code,
                rules: &rules,
                args_digest: e.args_digest,
                message: e.message,
                critical: receipt.critical,
                approver: receipt.approver,
            },
        );
        self.conn
            .prepare_cached(
                "INSERT INTO decisions(id, ts, harness, session_id, event, tool, verdict, reason_code, rules, args_digest, message, critical, approver, prev_hash, row_hash)
                 VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
            )?
            .execute(params![
                id,
                ts,
                e.harness,
                e.session_id,
                e.event,
                e.tool,
                e.verdict,
                e.reason_code,
                rules,
                e.args_digest,
                e.message,
                receipt.critical,
                receipt.approver,
                prev,
                hash
            ])?;
        Ok(Appended {
            id,
            ts,
            prev_hash: prev,
            row_hash: hash,
        })
    }

    /// The chain's anchor once rows were pruned: `(pruned_id, pruned_hash)`; `None` before
    /// any pruning (the anchor is then [`GENESIS`]) or in a database older than schema 8.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn chain_anchor(&self) -> Result<Option<(i64, String)>> {
        if !self.has_receipts()? {
            return Ok(None);
        }
        let get = |k: &str| -> Result<Option<String>> {
            Ok(self
                .conn
                .prepare_cached("SELECT value FROM audit_chain WHERE key=?1")?
                .query_row([k], |r| r.get(0))
                .optional()?)
        };
        let (Some(id), Some(hash)) = (get("pruned_id")?, get("pruned_hash")?) else {
            return Ok(None);
        };
        Ok(id.parse().ok().map(|id| (id, hash)))
    }

    /// True when the database has the receipt columns (schema 8; a read-only store may be
    /// older).
    fn has_receipts(&self) -> Result<bool> {
        Ok(self.conn.query_row(
            "SELECT EXISTS(SELECT 1 FROM pragma_table_info('decisions') WHERE name='row_hash')",
            [],
            |r| r.get(0),
        )?)
    }

    /// Housekeeping: drops the audit rows older than `cutoff` (Unix seconds) as a prefix of
    /// the chain: every row up to the newest one older than `cutoff`, so a clock that went
    /// back cannot leave a hole. The last dropped row's id and hash become the chain's anchor
    /// (`audit_chain`). Returns how many rows were dropped. Runs in the caller's transaction.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn prune_audit(&self, cutoff: i64) -> Result<usize> {
        let last: Option<(i64, Option<String>)> = self
            .conn
            .query_row(
                "SELECT id, row_hash FROM decisions
                 WHERE id = (SELECT max(id) FROM decisions WHERE ts < ?1)",
                params![cutoff],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let Some((last_id, hash)) = last else {
            return Ok(0);
        };
        if let Some(h) = hash {
            self.conn.execute(
                "INSERT INTO audit_chain(key, value) VALUES('pruned_id', ?1), ('pruned_hash', ?2)
                 ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                params![last_id.to_string(), h],
            )?;
        }
        Ok(self
            .conn
            .execute("DELETE FROM decisions WHERE id <= ?1", params![last_id])?)
    }

    /// Walks the whole chain in id order and reports every row that does not match (see the
    /// module notes): its hash against its content, its `prev_hash` against the row before it
    /// (the anchor for the first), and a missing hash after chained rows.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn verify_chain(&self) -> Result<ChainReport> {
        let mut rep = ChainReport::default();
        if !self.has_receipts()? {
            rep.rows = self
                .conn
                .query_row("SELECT count(*) FROM decisions", [], |r| r.get::<_, i64>(0))?
                as usize;
            rep.legacy = rep.rows;
            return Ok(rep);
        }
        rep.anchor = self.chain_anchor()?;
        let mut st = self.conn.prepare(&format!(
            "SELECT {AUDIT_COLUMNS}, NULL, {RECEIPT_COLUMNS} FROM decisions d ORDER BY d.id"
        ))?;
        let mut rows = st.query([])?;
        // The hash the next row must link to; `None` after a row without one.
        let mut expected: Option<String> = Some(
            rep.anchor
                .as_ref()
                .map(|(_, h)| h.clone())
                .unwrap_or_else(|| GENESIS.into()),
        );
        let mut previous: Option<i64> = None;
        let mut chained = false;
        while let Some(r) = rows.next()? {
            let row = audit_row(r)?;
            rep.rows += 1;
            let problem = match &row.row_hash {
                None if !chained => {
                    rep.legacy += 1;
                    continue;
                }
                None => Some(ChainProblem::MissingHash),
                Some(_) if !row.hash_matches() => Some(ChainProblem::Content),
                Some(_) => match &expected {
                    Some(e) if row.prev_hash.as_deref() != Some(e.as_str()) => {
                        Some(ChainProblem::Link { previous })
                    }
                    _ => None,
                },
            };
            chained = true;
            rep.chained += 1;
            rep.first_id.get_or_insert(row.id);
            rep.last_id = Some(row.id);
            if let Some(problem) = problem {
                rep.bad_count += 1;
                if rep.bad.len() < BAD_ROWS_KEPT {
                    rep.bad.push(BadRow {
                        id: row.id,
                        problem,
                    });
                }
            }
            expected = row.row_hash.clone();
            previous = Some(row.id);
        }
        Ok(rep)
    }

    /// The chain status of one row read back ([`AuditRow`]): unchained (no hash, and the row
    /// before it has none either), broken (its hash does not match its content, its
    /// `prev_hash` is not the hash of the row before it or of the anchor, or it lost its hash
    /// after a chained row), else ok. One indexed query per row.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn chain_status(&self, row: &AuditRow) -> Result<ChainStatus> {
        if !self.has_receipts()? {
            return Ok(ChainStatus::Unchained);
        }
        let before: Option<Option<String>> = self
            .conn
            .prepare_cached(
                "SELECT row_hash FROM decisions WHERE id < ?1 ORDER BY id DESC LIMIT 1",
            )?
            .query_row([row.id], |r| r.get(0))
            .optional()?;
        if row.row_hash.is_none() {
            return Ok(match before {
                Some(Some(_)) => ChainStatus::Broken,
                _ => ChainStatus::Unchained,
            });
        }
        let expected = match before {
            Some(Some(h)) => h,
            _ => self
                .chain_anchor()?
                .map(|(_, h)| h)
                .unwrap_or_else(|| GENESIS.into()),
        };
        Ok(
            if row.hash_matches() && row.prev_hash.as_deref() == Some(expected.as_str()) {
                ChainStatus::Ok
            } else {
                ChainStatus::Broken
            },
        )
    }

    /// Who approved with the approval given for audit row `approval` (`approval #ID by uid N on
    /// TTY`), for the receipt of the call it let through; `None` when there is no such row.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn approver_of(&self, approval: i64) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row(
                "SELECT uid, tty FROM approvals WHERE decision_id=?1",
                [approval],
                |r| {
                    let uid: Option<i64> = r.get(0)?;
                    let tty: Option<String> = r.get(1)?;
                    Ok(format!(
                        "approval #{approval} by uid {} on {}",
                        uid.map_or_else(|| "unknown".into(), |u| u.to_string()),
                        tty.unwrap_or_else(|| "unknown".into())
                    ))
                },
            )
            .optional()?)
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

    /// `FROM` clause and the columns after [`AUDIT_COLUMNS`] for [`AuditRow`] queries:
    /// `decisions d` left-joined with `call_args c` where that table exists (schema 2), and the
    /// receipt columns where they exist (schema 8; a read-only store may be older).
    fn audit_from(&self) -> Result<(&'static str, String)> {
        let has_args: bool = self.conn.query_row(
            "SELECT EXISTS(SELECT 1 FROM sqlite_master WHERE type='table' AND name='call_args')",
            [],
            |r| r.get(0),
        )?;
        let receipts = if self.has_receipts()? {
            RECEIPT_COLUMNS
        } else {
            "NULL, NULL, NULL, NULL"
        };
        Ok(if has_args {
            (
                "decisions d LEFT JOIN call_args c ON c.decision_id=d.id",
                format!("c.args, {receipts}"),
            )
        } else {
            ("decisions d", format!("NULL, {receipts}"))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(msg: &str) -> AuditEntry<'_> {
        AuditEntry {
            harness: "claude",
            session_id: "s",
            event: "PreToolUse",
            tool: Some("Bash"),
            verdict: "allow",
            reason_code: "ok",
            rules: &[],
            args_digest: None,
            message: msg,
        }
    }

    #[test]
    fn pruning_moves_the_anchor_and_keeps_the_chain() {
        let s = Store::open_in_memory().unwrap();
        let old = now() - crate::state::AUDIT_TTL - 10;
        let mut written = Vec::new();
        for i in 0..3 {
            let r = s
                .append_decision(&entry(&format!("old {i}")), &Receipt::default(), old)
                .unwrap();
            written.push(r);
        }
        let receipt = Receipt {
            critical: Some(r#"[{"value":"bob@example.com","kind":"email","origins":["user"]}]"#),
            approver: Some("approval #2 by uid 1000 on /dev/pts/1"),
        };
        let fresh = s.record_decision_with(&entry("new"), &receipt).unwrap();
        assert_eq!(fresh.prev_hash, written[2].row_hash);
        assert_eq!(written[0].prev_hash, GENESIS);
        assert_eq!(s.verify_chain().unwrap().bad_count, 0);
        assert_eq!(s.prune_audit(now() - crate::state::AUDIT_TTL).unwrap(), 3);
        assert_eq!(
            s.chain_anchor().unwrap(),
            Some((written[2].id, written[2].row_hash.clone()))
        );
        let r = s.verify_chain().unwrap();
        assert_eq!((r.rows, r.chained, r.bad_count), (1, 1, 0));
        let row = s.decision(fresh.id).unwrap().unwrap();
        assert_eq!(s.chain_status(&row).unwrap(), ChainStatus::Ok);
        assert_eq!(row.approver.as_deref(), receipt.approver);
        // Pruning everything: ids go on after the anchor, and the chain from it.
        assert_eq!(s.prune_audit(now() + 10).unwrap(), 1);
        let next = s
            .record_decision_with(&entry("after"), &Receipt::default())
            .unwrap();
        assert_eq!(next.id, fresh.id + 1);
        assert_eq!(next.prev_hash, fresh.row_hash);
        assert_eq!(s.verify_chain().unwrap().bad_count, 0);
        // Nothing older than the cutoff: nothing pruned, the anchor stays.
        assert_eq!(s.prune_audit(0).unwrap(), 0);
        assert_eq!(s.chain_anchor().unwrap().unwrap().0, fresh.id);
    }

    #[test]
    fn null_and_empty_hash_differently() {
        let e = entry("m");
        let base = RowContent {
            id: 1,
            ts: 2,
            harness: e.harness,
            session_id: e.session_id,
            event: e.event,
            tool: None,
            verdict: e.verdict,
            reason_code: e.reason_code,
            rules: "[]",
            args_digest: None,
            message: e.message,
            critical: None,
            approver: None,
        };
        let empty = RowContent {
            tool: Some(""),
            ..base
        };
        assert_ne!(row_hash(GENESIS, &base), row_hash(GENESIS, &empty));
        // Moving bytes between neighbouring fields changes the hash (length prefixes).
        let shifted = RowContent {
            harness: "claudes",
            session_id: "",
            ..base
        };
        let other = RowContent {
            harness: "claude",
            session_id: "s",
            ..base
        };
        assert_ne!(row_hash(GENESIS, &shifted), row_hash(GENESIS, &other));
        assert_eq!(row_hash(GENESIS, &base).len(), 64);
    }
}
