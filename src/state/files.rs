//! Files a session's shell calls wrote secret data into or downloaded into (`session_files`),
//! so that a later call uploading or running one is judged with what the earlier call did; and
//! the digests of values a session read from secret files (`secret_digests`).

use super::{now, Result, Store};
use crate::session::{FileKind, SessionFile};
use rusqlite::params;

/// Longest path or source text stored (bytes); longer ones are cut at a character boundary.
const MAX_TEXT: usize = 4096;

/// Most files one call records.
const MAX_PER_CALL: usize = 64;

/// Most secret-value digests one call records.
pub const MAX_DIGESTS_PER_CALL: usize = 256;

fn cut(s: &str, n: usize) -> &str {
    crate::text::cap(s, n)
}

impl Store {
    /// Remembers `files` for `session` (at most 64 per call; a path seen again is refreshed).
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn record_files(&self, session: &str, files: &[SessionFile]) -> Result<()> {
        if files.is_empty() {
            return Ok(());
        }
        let mut st = self.conn.prepare_cached(
            "INSERT INTO session_files(session_id, path, kind, source, seen_at)
             VALUES(?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(session_id, path, kind) DO UPDATE SET source=excluded.source, seen_at=excluded.seen_at",
        )?;
        let t = now();
        for f in files.iter().take(MAX_PER_CALL) {
            st.execute(params![
                session,
                cut(&f.path, MAX_TEXT),
                f.kind.name(),
                cut(&f.source, MAX_TEXT),
                t
            ])?;
        }
        Ok(())
    }

    /// The files remembered for `session`, newest first, at most `limit`.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn session_files(&self, session: &str, limit: i64) -> Result<Vec<SessionFile>> {
        let mut st = self.conn.prepare_cached(
            "SELECT path, kind, source FROM session_files WHERE session_id=?1
             ORDER BY seen_at DESC, path LIMIT ?2",
        )?;
        let rows = st.query_map(params![session, limit], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (path, kind, source) = row?;
            if let Some(kind) = FileKind::from_name(&kind) {
                out.push(SessionFile { path, kind, source });
            }
        }
        Ok(out)
    }

    /// Remembers the SHA-256 `digests` (hex) of values `session` read from a secret file, with
    /// the reading call `source` (at most [`MAX_DIGESTS_PER_CALL`] per call; one seen again is
    /// refreshed). The values themselves are never stored.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn record_secret_digests(
        &self,
        session: &str,
        digests: &[String],
        source: &str,
    ) -> Result<()> {
        if digests.is_empty() {
            return Ok(());
        }
        let mut st = self.conn.prepare_cached(
            "INSERT INTO secret_digests(session_id, digest, source, seen_at)
             VALUES(?1, ?2, ?3, ?4)
             ON CONFLICT(session_id, digest) DO UPDATE SET source=excluded.source, seen_at=excluded.seen_at",
        )?;
        let t = now();
        for d in digests.iter().take(MAX_DIGESTS_PER_CALL) {
            st.execute(params![session, cut(d, 64), cut(source, MAX_TEXT), t])?;
        }
        Ok(())
    }

    /// The digests remembered for `session` with their sources, newest first, at most `limit`.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn secret_digests(&self, session: &str, limit: i64) -> Result<Vec<(String, String)>> {
        let mut st = self.conn.prepare_cached(
            "SELECT digest, source FROM secret_digests WHERE session_id=?1
             ORDER BY seen_at DESC, digest LIMIT ?2",
        )?;
        let rows = st.query_map(params![session, limit], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        let mut out = Vec::new();
        for row in rows {
            out.push(row?);
        }
        Ok(out)
    }
}
