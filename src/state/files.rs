//! Files a session's shell calls wrote secret data into or downloaded into (`session_files`),
//! so that a later call uploading or running one is judged with what the earlier call did; and
//! the digests of values a session read from secret files (`secret_digests`).

use super::{now, Result, Store};
use crate::session::{FileKind, SessionFile};
use rusqlite::{params, OptionalExtension};

/// Longest path or source text stored (bytes); longer ones are cut at a character boundary.
const MAX_TEXT: usize = 4096;

/// Most files one call records.
const MAX_PER_CALL: usize = 64;

/// Most secret-value digests one call records.
pub const MAX_DIGESTS_PER_CALL: usize = 2048;

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
        self.digest_rows(
            "SELECT digest, source FROM secret_digests WHERE session_id=?1 AND digest NOT LIKE 'w%'
             ORDER BY seen_at DESC, digest LIMIT ?2",
            session,
            limit,
        )
    }

    /// The keyed window digests (`w` and 63 hex characters,
    /// `crate::policy::secret_values::window_digest`) remembered for `session`, with their
    /// sources, newest first, at most `limit`.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn secret_windows(&self, session: &str, limit: i64) -> Result<Vec<(String, String)>> {
        self.digest_rows(
            "SELECT digest, source FROM secret_digests WHERE session_id=?1 AND digest LIKE 'w%'
             ORDER BY seen_at DESC, digest LIMIT ?2",
            session,
            limit,
        )
    }

    /// `(digest, source)` rows of one of the two queries above.
    fn digest_rows(&self, sql: &str, session: &str, limit: i64) -> Result<Vec<(String, String)>> {
        let mut st = self.conn.prepare_cached(sql)?;
        let rows = st.query_map(params![session, limit], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(Into::into)
    }

    /// The database's random key for window digests (32 bytes), kept in `meta` as `k:` and
    /// hex; made from the operating system's random source when `create` and there is none.
    /// `None` when there is none and `create` is false.
    ///
    /// # Errors
    ///
    /// A database error, or no random source to make a key from.
    pub fn secret_window_key(&self, create: bool) -> Result<Option<Vec<u8>>> {
        let read = |s: &Self| -> Result<Option<Vec<u8>>> {
            let mut st = s
                .conn
                .prepare_cached("SELECT value FROM meta WHERE key='secret_window_key'")?;
            let v: Option<String> = st.query_row([], |r| r.get::<_, String>(0)).optional()?;
            Ok(v.and_then(|v| {
                let h = v.strip_prefix("k:")?;
                (h.len() == 64)
                    .then(|| {
                        (0..64)
                            .step_by(2)
                            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).ok())
                            .collect::<Option<Vec<u8>>>()
                    })
                    .flatten()
            }))
        };
        if let Some(k) = read(self)? {
            return Ok(Some(k));
        }
        if !create {
            return Ok(None);
        }
        let mut key = [0u8; 32];
        {
            use std::io::Read as _;
            std::fs::File::open("/dev/urandom")
                .and_then(|mut f| f.read_exact(&mut key))
                .map_err(|e| {
                    super::StateError(format!("no random source for the window key: {e}"))
                })?;
        }
        self.conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES('secret_window_key', ?1)",
            params![format!("k:{}", crate::text::hex(&key))],
        )?;
        read(self)
    }
}

#[cfg(test)]
mod window_tests {
    use super::*;

    #[test]
    fn window_key_is_made_once_and_windows_stay_apart_from_digests() {
        let s = Store::open_in_memory().unwrap();
        assert_eq!(s.secret_window_key(false).unwrap(), None);
        let k = s.secret_window_key(true).unwrap().unwrap();
        assert_eq!(k.len(), 32);
        assert_eq!(s.secret_window_key(true).unwrap().unwrap(), k);
        let w = crate::policy::secret_values::window_digest(&k, b"zq8vlmn3pr");
        let d = crate::policy::secret_values::digest("Zq8vLmN3pR7sT2wX9yB4");
        s.record_secret_digests("s", &[d.clone(), w.clone()], "Read .env")
            .unwrap();
        assert_eq!(
            s.secret_digests("s", 10).unwrap(),
            vec![(d, "Read .env".into())]
        );
        assert_eq!(
            s.secret_windows("s", 10).unwrap(),
            vec![(w, "Read .env".into())]
        );
    }
}
