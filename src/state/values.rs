//! Provenance: distinctive values and where each was seen, and the user's prompts.

use super::{now, Origin, Origins, Result, Store, PROMPTS_PER_SESSION};
use rusqlite::params;
use std::collections::HashMap;

impl Store {
    /// Records values with one origin. `values` are `(value, kind)` pairs.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file); values recorded
    /// before the failing one stay unless the caller rolls back.
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
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
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
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
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

    /// The recorded instructed values (`Origin::Instructed`, `crate::policy::echo`) among
    /// `values` in this session: value, kind, action families and the tool whose output asked
    /// (the row's `source` is `families;tool`).
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn instructed(
        &self,
        session: &str,
        values: &[String],
    ) -> Result<Vec<crate::session::InstructedSeen>> {
        let mut out = Vec::new();
        if values.is_empty() {
            return Ok(out);
        }
        let mut st = self.conn.prepare_cached(
            "SELECT vkind, source FROM prov_values WHERE session_id=?1 AND value=?2 AND origin='instructed'",
        )?;
        for v in values {
            let mut rows = st.query(params![session, v])?;
            while let Some(r) = rows.next()? {
                let kind: String = r.get(0)?;
                let source: String = r.get(1)?;
                let (fam, tool) = source.split_once(';').unwrap_or(("", source.as_str()));
                out.push(crate::session::InstructedSeen {
                    value: v.clone(),
                    kind,
                    families: crate::policy::echo::parse_families(fam),
                    source: tool.to_string(),
                });
            }
        }
        Ok(out)
    }

    /// True when the session has any instructed value recorded (one indexed probe).
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn has_instructed(&self, session: &str) -> Result<bool> {
        let mut st = self.conn.prepare_cached(
            "SELECT 1 FROM prov_values WHERE session_id=?1 AND origin='instructed' LIMIT 1",
        )?;
        Ok(st.exists(params![session])?)
    }

    /// Remembers a user prompt (already normalized), keeping the newest
    /// [`PROMPTS_PER_SESSION`].
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
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
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn prompts(&self, session: &str) -> Result<Vec<String>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT text FROM prompts WHERE session_id=?1 ORDER BY rowid DESC")?;
        let rows = st.query_map(params![session], |r| r.get(0))?;
        Ok(rows.collect::<std::result::Result<Vec<String>, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_origins_round_trip() {
        let s = Store::open_in_memory().unwrap();
        s.touch_session("s1", "claude", true).unwrap();
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
    fn instructed_values_round_trip() {
        let s = Store::open_in_memory().unwrap();
        s.touch_session("s1", "claude", true).unwrap();
        assert!(!s.has_instructed("s1").unwrap());
        s.record_values(
            "s1",
            &[("13".into(), "quoted")],
            Origin::Instructed,
            "delete,create;workspace/get_day_calendar_events",
        )
        .unwrap();
        // The same value from a clean output is another row, not an instruction.
        s.record_values("s1", &[("14".into(), "id")], Origin::Output, "t")
            .unwrap();
        assert!(s.has_instructed("s1").unwrap());
        assert!(!s.has_instructed("s2").unwrap());
        let got = s.instructed("s1", &["13".into(), "14".into()]).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].value, "13");
        assert_eq!(got[0].kind, "quoted");
        assert_eq!(got[0].source, "workspace/get_day_calendar_events");
        let f = crate::policy::echo::family::DELETE | crate::policy::echo::family::CREATE;
        assert_eq!(got[0].families, f);
        assert!(s.origins("s1", &["13".into()]).unwrap()["13"].instructed);
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
