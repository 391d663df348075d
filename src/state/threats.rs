//! The threat memory's tables (`crate::threats`): indicators, fingerprints, hostile sources,
//! the operator's allow list, the one-row match summary, installed packs and pinned trust.

use super::{now, Result, StateError, Store};
use crate::threats::fingerprint::{self, Index};
use crate::threats::{self, Lesson, Status, ThreatHit};
use rusqlite::{params, OptionalExtension};

/// What the hook reads once per tool output: the fingerprint index, the hostile sources, the
/// packs directory stamp the compiled rules belong to, and the compiled pack rules (JSON).
#[derive(Debug, Clone, Default)]
pub struct ThreatSummary {
    /// The fingerprint match index (empty when there is none or it is malformed).
    pub index: Index,
    /// Sources (`mcp:<server>`, `web:<domain>`) that are hostile now.
    pub hostile: Vec<String>,
    /// The stamp of the packs directory the `rules` were compiled from (`""`: never synced).
    pub packs_stamp: String,
    /// The rules of the installed packs (`crate::threats::packs::CompiledRule` list, JSON).
    pub rules: String,
}

/// One indicator or fingerprint row, for `intentshield threats list|show|export`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ThreatRow {
    /// `I<n>` for an indicator, `F<n>` for a fingerprint.
    pub id: String,
    /// The value (indicator) or the sentence excerpt (fingerprint).
    pub value: String,
    /// The value's kind, or `fingerprint` / `fingerprint (triggers blanked)`.
    pub kind: String,
    /// `learned`, `confirmed`, `imported` or `pack`.
    pub status: String,
    /// The session that taught it first, or the pack or feed.
    pub origin: String,
    /// The tool whose injected output named it.
    pub tool: Option<String>,
    /// Distinct sessions that taught it (indicators).
    pub sessions: i64,
    /// Times it matched a tool output (fingerprints).
    pub hits: i64,
    /// First and last seen (Unix seconds).
    pub first_seen: i64,
    /// See `first_seen`.
    pub last_seen: i64,
    /// A fingerprint's sample (its shingle hashes as stored, hex), so that `export` and
    /// `import` carry it; `None` for indicators.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample: Option<String>,
}

/// What learning one lesson stored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Learned {
    /// Indicators added (new rows).
    pub indicators: usize,
    /// Fingerprints added (new rows).
    pub fingerprints: usize,
    /// Indicators and fingerprints already stored and seen again (their last-seen refreshed).
    pub seen_again: usize,
    /// True when the source became hostile with this lesson.
    pub hostile: bool,
}

/// Counts for `intentshield threats stats`.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ThreatStats {
    /// Indicators by status.
    pub indicators: Vec<(String, i64)>,
    /// Fingerprints by status.
    pub fingerprints: Vec<(String, i64)>,
    /// Sources with injected content and in how many sessions (last 7 days).
    pub sources: Vec<(String, i64)>,
    /// Sources hostile now.
    pub hostile: Vec<String>,
    /// Values, domains and sources the operator allowed.
    pub allowed: Vec<String>,
}

fn live_cutoff() -> i64 {
    now() - threats::TTL
}

impl Store {
    /// The remembered indicators among `keys` (`crate::threats::lookup_keys`): one query. Learned
    /// entries older than [`threats::TTL`] and learned domains taught by fewer than
    /// [`threats::DOMAIN_SESSIONS`] sessions are left out.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn threat_hits(&self, keys: &[String]) -> Result<Vec<ThreatHit>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let json = serde_json::to_string(keys).map_err(|e| StateError(e.to_string()))?;
        let mut st = self.conn.prepare_cached(
            "SELECT id, value, vkind, status, origin, tool, sessions FROM threat_indicators
             WHERE value IN (SELECT value FROM json_each(?1))
               AND (status <> 'learned' OR (last_seen >= ?2 AND (vkind <> 'domain' OR sessions >= ?3)))",
        )?;
        let rows = st.query_map(
            params![json, live_cutoff(), threats::DOMAIN_SESSIONS],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, Option<String>>(5)?,
                    r.get::<_, i64>(6)?,
                ))
            },
        )?;
        let mut out = Vec::new();
        for row in rows {
            let (id, value, kind, status, origin, tool, sessions) = row?;
            if let Some(status) = Status::from_name(&status) {
                out.push(ThreatHit {
                    id,
                    value,
                    kind,
                    status,
                    origin,
                    tool,
                    sessions,
                });
            }
        }
        Ok(out)
    }

    /// The summary row (one query); `None` when nothing was ever learned or installed.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn threat_summary(&self) -> Result<Option<ThreatSummary>> {
        let mut st = self.conn.prepare_cached(
            "SELECT fp_index, hostile, packs_stamp, rules FROM threat_summary WHERE id=1",
        )?;
        let row = st
            .query_row([], |r| {
                Ok((
                    r.get::<_, Vec<u8>>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })
            .optional()?;
        Ok(row.map(|(ix, hostile, packs_stamp, rules)| ThreatSummary {
            index: Index::from_bytes(&ix).unwrap_or_default(),
            hostile: hostile
                .split('\n')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
            packs_stamp,
            rules,
        }))
    }

    /// True when `value` (or the registrable domain of the host it names) is on the operator's
    /// allow list.
    fn threat_allowed(&self, value: &str, vkind: &str) -> Result<bool> {
        let mut st = self
            .conn
            .prepare_cached("SELECT 1 FROM threat_allowed WHERE value=?1")?;
        if st.exists([value])? {
            return Ok(true);
        }
        if let Some(h) = threats::host_of(value, vkind) {
            if st.exists([&h])? {
                return Ok(true);
            }
            if let Some(d) = threats::registrable(&h) {
                return Ok(st.exists([d])?);
            }
        }
        Ok(false)
    }

    /// Stores what a flagged output of `tool` in `session` teaches: its indicators (skipping
    /// values the session's user typed and allowed ones), fingerprints, and the source's
    /// session; evicts past the caps (least recently seen learned entries first) and rebuilds
    /// the summary.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn learn_threat(&self, session: &str, tool: &str, l: &Lesson) -> Result<Learned> {
        let t = now();
        let mut out = Learned::default();
        let mut user = self.conn.prepare_cached(
            "SELECT 1 FROM prov_values WHERE session_id=?1 AND value=?2 AND origin='user'",
        )?;
        let mut ins = self.conn.prepare_cached(
            "INSERT INTO threat_indicators(value, vkind, status, origin, session_id, tool, first_seen, last_seen)
             VALUES(?1, ?2, 'learned', ?3, ?3, ?4, ?5, ?5)
             ON CONFLICT(value) DO UPDATE SET last_seen=excluded.last_seen
             RETURNING id",
        )?;
        let mut link = self.conn.prepare_cached(
            "INSERT OR IGNORE INTO threat_indicator_sessions(indicator_id, session_id) VALUES(?1, ?2)",
        )?;
        let mut count = self.conn.prepare_cached(
            "UPDATE threat_indicators SET sessions=(SELECT count(*) FROM threat_indicator_sessions WHERE indicator_id=?1) WHERE id=?1",
        )?;
        // A domain the session's user typed a value under is theirs, never an indicator.
        let mut user_domain = self.conn.prepare_cached(
            "SELECT 1 FROM prov_values WHERE session_id=?1 AND origin='user'
               AND (value=?2 OR value LIKE '%@' || ?2 OR value LIKE '%.' || ?2
                    OR value LIKE '%://' || ?2 || '%' OR value LIKE '%.' || ?2 || '/%')",
        )?;
        let mut have_ind = self
            .conn
            .prepare_cached("SELECT 1 FROM threat_indicators WHERE value=?1")?;
        for (v, k) in &l.indicators {
            if user.exists(params![session, v])?
                || (*k == crate::provenance::kind::DOMAIN
                    && user_domain.exists(params![session, v])?)
                || self.threat_allowed(v, k)?
            {
                continue;
            }
            let known = have_ind.exists([v])?;
            let id: i64 = ins.query_row(params![v, k, session, tool, t], |r| r.get(0))?;
            link.execute(params![id, session])?;
            count.execute(params![id])?;
            if known {
                out.seen_again += 1;
            } else {
                out.indicators += 1;
            }
        }
        let mut fp = self.conn.prepare_cached(
            "INSERT INTO threat_fingerprints(digest, sample, blanked, status, origin, session_id, tool, excerpt, first_seen, last_seen)
             VALUES(?1, ?2, ?3, 'learned', ?4, ?4, ?5, ?6, ?7, ?7)
             ON CONFLICT(digest) DO UPDATE SET last_seen=excluded.last_seen",
        )?;
        let mut have_fp = self
            .conn
            .prepare_cached("SELECT 1 FROM threat_fingerprints WHERE digest=?1")?;
        for (sample, blanked, excerpt) in &l.fingerprints {
            let bytes = fingerprint::sample_bytes(sample);
            let digest = crate::text::hex(&bytes);
            if have_fp.exists([&digest])? {
                out.seen_again += 1;
            } else {
                out.fingerprints += 1;
            }
            fp.execute(params![digest, bytes, blanked, session, tool, excerpt, t])?;
        }
        if let Some(src) = &l.source {
            let before = self.hostile_sources()?;
            self.conn.execute(
                "INSERT INTO threat_sources(source, session_id, seen_at) VALUES(?1, ?2, ?3)
                 ON CONFLICT(source, session_id) DO UPDATE SET seen_at=excluded.seen_at",
                params![src, session, t],
            )?;
            out.hostile = !before.contains(src) && self.hostile_sources()?.contains(src);
        }
        self.evict_threats()?;
        self.rebuild_threat_summary()?;
        Ok(out)
    }

    /// Learned entries past the caps, least recently seen first, and expired ones, removed.
    fn evict_threats(&self) -> Result<usize> {
        let cut = live_cutoff();
        let mut n = self.conn.execute(
            "DELETE FROM threat_indicators WHERE status='learned' AND (last_seen < ?1 OR id IN
               (SELECT id FROM threat_indicators WHERE status='learned' ORDER BY last_seen DESC, id DESC LIMIT -1 OFFSET ?2))",
            params![cut, threats::MAX_INDICATORS],
        )?;
        n += self.conn.execute(
            "DELETE FROM threat_fingerprints WHERE status='learned' AND (last_seen < ?1 OR id IN
               (SELECT id FROM threat_fingerprints WHERE status='learned' ORDER BY last_seen DESC, id DESC LIMIT -1 OFFSET ?2))",
            params![cut, threats::MAX_FINGERPRINTS],
        )?;
        self.conn.execute(
            "DELETE FROM threat_indicator_sessions WHERE indicator_id NOT IN (SELECT id FROM threat_indicators)",
            [],
        )?;
        self.conn.execute(
            "DELETE FROM threat_sources WHERE seen_at < ?1",
            params![cut],
        )?;
        Ok(n)
    }

    /// Housekeeping: expired and over-cap learned entries removed, the summary rebuilt when
    /// anything went. Returns the rows removed.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn prune_threats(&self) -> Result<usize> {
        let n = self.evict_threats()?;
        if n > 0 {
            self.rebuild_threat_summary()?;
        }
        Ok(n)
    }

    fn hostile_sources(&self) -> Result<Vec<String>> {
        let mut st = self.conn.prepare_cached(
            "SELECT source FROM threat_sources WHERE seen_at >= ?1
               AND source NOT IN (SELECT value FROM threat_allowed)
             GROUP BY source HAVING count(*) >= ?2 ORDER BY source",
        )?;
        let rows = st.query_map(
            params![now() - threats::HOSTILE_WINDOW, threats::HOSTILE_SESSIONS],
            |r| r.get(0),
        )?;
        Ok(rows.collect::<std::result::Result<Vec<String>, _>>()?)
    }

    /// Rebuilds the summary's fingerprint index and hostile sources (keeping the packs stamp
    /// and rules).
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn rebuild_threat_summary(&self) -> Result<()> {
        let mut st = self.conn.prepare_cached(
            "SELECT id, sample FROM threat_fingerprints WHERE status <> 'learned' OR last_seen >= ?1 ORDER BY id",
        )?;
        let fps = st
            .query_map(params![live_cutoff()], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, Vec<u8>>(1)?))
            })?
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let fps: Vec<(i64, Vec<u32>)> = fps
            .into_iter()
            .map(|(id, b)| (id, fingerprint::sample_from_bytes(&b)))
            .collect();
        let index = Index::build(&fps).to_bytes();
        let hostile = self.hostile_sources()?.join("\n");
        self.conn.execute(
            "INSERT INTO threat_summary(id, fp_index, hostile) VALUES(1, ?1, ?2)
             ON CONFLICT(id) DO UPDATE SET fp_index=excluded.fp_index, hostile=excluded.hostile",
            params![index, hostile],
        )?;
        Ok(())
    }

    /// Records that fingerprints `ids` matched an output (hits, last seen); returns the
    /// session and tool that taught the first one, for the message.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn threat_fingerprint_hit(&self, ids: &[i64]) -> Result<Option<(String, Option<String>)>> {
        let mut up = self.conn.prepare_cached(
            "UPDATE threat_fingerprints SET hits=hits+1, last_seen=?2 WHERE id=?1",
        )?;
        for id in ids {
            up.execute(params![id, now()])?;
        }
        let Some(first) = ids.first() else {
            return Ok(None);
        };
        Ok(self
            .conn
            .query_row(
                "SELECT origin, tool FROM threat_fingerprints WHERE id=?1",
                [first],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    }

    /// Sets the packs stamp and compiled rules of the summary (creating the row if needed).
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn set_threat_packs_stamp(&self, stamp: &str, rules: &str) -> Result<()> {
        if self.threat_summary()?.is_none() {
            self.rebuild_threat_summary()?;
        }
        self.conn.execute(
            "UPDATE threat_summary SET packs_stamp=?1, rules=?2 WHERE id=1",
            params![stamp, rules],
        )?;
        Ok(())
    }

    /// Every indicator and fingerprint (indicators first, newest first), at most `limit` of each.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn threat_rows(&self, limit: i64) -> Result<Vec<ThreatRow>> {
        let mut out = Vec::new();
        let mut st = self.conn.prepare(
            "SELECT id, value, vkind, status, origin, tool, sessions, hits, first_seen, last_seen
             FROM threat_indicators ORDER BY last_seen DESC, id DESC LIMIT ?1",
        )?;
        let rows = st.query_map([limit], |r| {
            Ok(ThreatRow {
                id: format!("I{}", r.get::<_, i64>(0)?),
                value: r.get(1)?,
                kind: r.get(2)?,
                status: r.get(3)?,
                origin: r.get(4)?,
                tool: r.get(5)?,
                sessions: r.get(6)?,
                hits: r.get(7)?,
                first_seen: r.get(8)?,
                last_seen: r.get(9)?,
                sample: None,
            })
        })?;
        for r in rows {
            out.push(r?);
        }
        let mut st = self.conn.prepare(
            "SELECT id, excerpt, blanked, status, origin, tool, hits, first_seen, last_seen, sample
             FROM threat_fingerprints ORDER BY last_seen DESC, id DESC LIMIT ?1",
        )?;
        let rows = st.query_map([limit], |r| {
            let blanked: bool = r.get(2)?;
            Ok(ThreatRow {
                id: format!("F{}", r.get::<_, i64>(0)?),
                value: r.get(1)?,
                kind: if blanked {
                    "fingerprint (triggers blanked)".into()
                } else {
                    "fingerprint".into()
                },
                status: r.get(3)?,
                origin: r.get(4)?,
                tool: r.get(5)?,
                sessions: 1,
                hits: r.get(6)?,
                first_seen: r.get(7)?,
                last_seen: r.get(8)?,
                sample: Some(crate::text::hex(&r.get::<_, Vec<u8>>(9)?)),
            })
        })?;
        for r in rows {
            out.push(r?);
        }
        Ok(out)
    }

    /// Sets the status of indicator or fingerprint `id` (`I<n>` / `F<n>`); false when there is
    /// no such row.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn set_threat_status(&self, id: &str, status: Status) -> Result<bool> {
        let n = match parse_id(id) {
            Some(('I', n)) => self.conn.execute(
                "UPDATE threat_indicators SET status=?2 WHERE id=?1",
                params![n, status.name()],
            )?,
            Some(('F', n)) => self.conn.execute(
                "UPDATE threat_fingerprints SET status=?2 WHERE id=?1",
                params![n, status.name()],
            )?,
            _ => 0,
        };
        self.rebuild_threat_summary()?;
        Ok(n > 0)
    }

    /// Removes indicator or fingerprint `id`; false when there is no such row.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn forget_threat(&self, id: &str) -> Result<bool> {
        let n = match parse_id(id) {
            Some(('I', n)) => {
                self.conn.execute(
                    "DELETE FROM threat_indicator_sessions WHERE indicator_id=?1",
                    [n],
                )?;
                self.conn
                    .execute("DELETE FROM threat_indicators WHERE id=?1", [n])?
            }
            Some(('F', n)) => self
                .conn
                .execute("DELETE FROM threat_fingerprints WHERE id=?1", [n])?,
            _ => 0,
        };
        self.rebuild_threat_summary()?;
        Ok(n > 0)
    }

    /// The operator allows `value` (a value, a domain, or a source `mcp:<server>` /
    /// `web:<domain>`): indicators equal to it or under it are removed, its source sessions
    /// cleared, and it is never learned again. Returns the rows removed.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn allow_threat(&self, value: &str) -> Result<usize> {
        let v = value.trim().to_lowercase();
        self.conn.execute(
            "INSERT OR REPLACE INTO threat_allowed(value, at) VALUES(?1, ?2)",
            params![v, now()],
        )?;
        let like_sub = format!("%.{v}");
        let like_mail = format!("%@{v}");
        let like_url = format!("%://{v}%");
        let like_url_sub = format!("%.{v}/%");
        let mut n = self.conn.execute(
            "DELETE FROM threat_indicators WHERE value=?1 OR value LIKE ?2 OR value LIKE ?3 OR value LIKE ?4 OR value LIKE ?5",
            params![v, like_sub, like_mail, like_url, like_url_sub],
        )?;
        n += self
            .conn
            .execute("DELETE FROM threat_sources WHERE source=?1", [&v])?;
        self.conn.execute(
            "DELETE FROM threat_indicator_sessions WHERE indicator_id NOT IN (SELECT id FROM threat_indicators)",
            [],
        )?;
        self.rebuild_threat_summary()?;
        Ok(n)
    }

    /// Adds indicators from an imported feed or a pack (`origin` names it) with `status`
    /// (learned entries of a feed stay learned: they ask). An existing row takes the new status
    /// unless it is `learned` (a feed never weakens a deny). A value the operator allowed
    /// (`threats allow`, also by its host or registrable domain) is skipped: the operator's
    /// word wins over any feed or pack. Returns rows written.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn import_threat_indicators(
        &self,
        items: &[(String, String)],
        status: Status,
        origin: &str,
    ) -> Result<usize> {
        let t = now();
        let mut st = self.conn.prepare_cached(
            "INSERT INTO threat_indicators(value, vkind, status, origin, first_seen, last_seen)
             VALUES(?1, ?2, ?3, ?4, ?5, ?5)
             ON CONFLICT(value) DO UPDATE SET
               status=CASE WHEN excluded.status='learned' THEN threat_indicators.status ELSE excluded.status END,
               origin=CASE WHEN excluded.status='learned' THEN threat_indicators.origin ELSE excluded.origin END,
               last_seen=excluded.last_seen",
        )?;
        let mut n = 0;
        for (v, k) in items {
            if self.threat_allowed(v, k)? {
                continue;
            }
            n += st.execute(params![v, k, status.name(), origin, t])?;
        }
        Ok(n)
    }

    /// Adds fingerprints from a pack or an imported feed with `status` (as for
    /// [`Store::import_threat_indicators`]). Returns rows written; rebuilds the summary.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn import_threat_fingerprints(
        &self,
        items: &[(Vec<u32>, String)],
        status: Status,
        origin: &str,
    ) -> Result<usize> {
        let t = now();
        let mut st = self.conn.prepare_cached(
            "INSERT INTO threat_fingerprints(digest, sample, status, origin, excerpt, first_seen, last_seen)
             VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?6)
             ON CONFLICT(digest) DO UPDATE SET
               status=CASE WHEN excluded.status='learned' THEN threat_fingerprints.status ELSE excluded.status END,
               origin=CASE WHEN excluded.status='learned' THEN threat_fingerprints.origin ELSE excluded.origin END",
        )?;
        let mut n = 0;
        for (sample, excerpt) in items {
            let bytes = fingerprint::sample_bytes(sample);
            n += st.execute(params![
                crate::text::hex(&bytes),
                bytes,
                status.name(),
                origin,
                excerpt,
                t
            ])?;
        }
        self.rebuild_threat_summary()?;
        Ok(n)
    }

    /// Removes every entry a pack or feed named `origin` added. Returns rows removed.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn remove_threat_origin(&self, origin: &str) -> Result<usize> {
        let mut n = self.conn.execute(
            "DELETE FROM threat_indicators WHERE status IN ('pack','imported') AND origin=?1",
            [origin],
        )?;
        n += self.conn.execute(
            "DELETE FROM threat_fingerprints WHERE status IN ('pack','imported') AND origin=?1",
            [origin],
        )?;
        self.rebuild_threat_summary()?;
        Ok(n)
    }

    /// Counts for `threats stats`.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn threat_stats(&self) -> Result<ThreatStats> {
        let pairs = |sql: &str| -> Result<Vec<(String, i64)>> {
            let mut st = self.conn.prepare(sql)?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
        };
        let mut allowed = self
            .conn
            .prepare("SELECT value FROM threat_allowed ORDER BY value")?;
        let allowed = allowed
            .query_map([], |r| r.get(0))?
            .collect::<std::result::Result<Vec<String>, _>>()?;
        Ok(ThreatStats {
            indicators: pairs(
                "SELECT status, count(*) FROM threat_indicators GROUP BY status ORDER BY status",
            )?,
            fingerprints: pairs(
                "SELECT status, count(*) FROM threat_fingerprints GROUP BY status ORDER BY status",
            )?,
            sources: pairs(
                "SELECT source, count(*) FROM threat_sources GROUP BY source ORDER BY source",
            )?,
            hostile: self.hostile_sources()?,
            allowed,
        })
    }

    /// Installed packs: name, version, digest, trust, file, refusal (if the last change was
    /// refused).
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn threat_packs(&self) -> Result<Vec<PackRow>> {
        let mut st = self.conn.prepare(
            "SELECT name, version, digest, trust, file, compiled, refused FROM threat_packs ORDER BY name",
        )?;
        let rows = st.query_map([], |r| {
            Ok(PackRow {
                name: r.get(0)?,
                version: r.get(1)?,
                digest: r.get(2)?,
                trust: r.get(3)?,
                file: r.get(4)?,
                compiled: r.get(5)?,
                refused: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
    }

    /// Records an installed pack (replacing the row of the same name).
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn put_threat_pack(&self, p: &PackRow) -> Result<()> {
        self.conn.execute(
            "INSERT OR REPLACE INTO threat_packs(name, version, digest, trust, file, compiled, installed_at, refused)
             VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![p.name, p.version, p.digest, p.trust, p.file, p.compiled, now(), p.refused],
        )?;
        Ok(())
    }

    /// Notes why the last change of pack `name` was refused (the installed form stays).
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn refuse_threat_pack(&self, name: &str, why: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE threat_packs SET refused=?2 WHERE name=?1",
            params![name, crate::text::cap(why, 300)],
        )?;
        Ok(())
    }

    /// Removes pack `name` and what it added. Returns true when it was installed.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn remove_threat_pack(&self, name: &str) -> Result<bool> {
        let n = self
            .conn
            .execute("DELETE FROM threat_packs WHERE name=?1", [name])?;
        self.remove_threat_origin(&format!("pack:{name}"))?;
        Ok(n > 0)
    }

    /// The packs directory: `threat-packs` beside the database (`None` for an in-memory one).
    pub fn threat_packs_dir(&self) -> Option<std::path::PathBuf> {
        let wal = self.wal_path.as_ref()?;
        Some(wal.parent()?.join("threat-packs"))
    }

    /// The packs directory stamp recorded in the summary (`None` without a summary row).
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn threat_packs_stamp(&self) -> Result<Option<String>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT packs_stamp FROM threat_summary WHERE id=1")?;
        Ok(st.query_row([], |r| r.get(0)).optional()?)
    }

    /// Pinned pack trust anchors of one kind (`ed25519`, `sha256`, `hmac`).
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn threat_pins(&self, kind: &str) -> Result<Vec<String>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT value FROM threat_pins WHERE kind=?1 ORDER BY value")?;
        let rows = st.query_map([kind], |r| r.get(0))?;
        Ok(rows.collect::<std::result::Result<Vec<String>, _>>()?)
    }

    /// Pins a pack trust anchor.
    ///
    /// # Errors
    ///
    /// A database error.
    pub fn pin_threat(&self, kind: &str, value: &str) -> Result<()> {
        self.conn.execute(
            "INSERT OR IGNORE INTO threat_pins(kind, value) VALUES(?1, ?2)",
            params![kind, value],
        )?;
        Ok(())
    }
}

/// An installed pack.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct PackRow {
    /// The pack's name.
    pub name: String,
    /// Its version (a newer install must carry a higher one).
    pub version: i64,
    /// SHA-256 of the file, hex.
    pub digest: String,
    /// How it verified (`ed25519:<key prefix>`, `sha256`, `hmac`).
    pub trust: String,
    /// The file it was read from.
    pub file: String,
    /// The compiled rules (JSON).
    #[serde(skip)]
    pub compiled: String,
    /// Why the last change of the file was refused, if it was.
    pub refused: Option<String>,
}

fn parse_id(id: &str) -> Option<(char, i64)> {
    let mut c = id.trim().chars();
    let k = c.next()?.to_ascii_uppercase();
    let n: i64 = c.as_str().parse().ok()?;
    matches!(k, 'I' | 'F').then_some((k, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson(vals: &[(&str, &'static str)]) -> Lesson {
        Lesson {
            indicators: vals.iter().map(|(v, k)| (v.to_string(), *k)).collect(),
            fingerprints: vec![(vec![1, 2, 3, 4, 5, 6, 7, 8], false, "x".into())],
            source: Some("mcp:mail".into()),
        }
    }

    #[test]
    fn learned_indicators_are_found_and_domains_need_two_sessions() {
        let s = Store::open_in_memory().unwrap();
        s.learn_threat(
            "s1",
            "mail/read",
            &lesson(&[("a@evil.example", "email"), ("evil.example", "domain")]),
        )
        .unwrap();
        let keys = vec!["a@evil.example".to_string(), "evil.example".to_string()];
        let hits = s.threat_hits(&keys).unwrap();
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits[0].origin, "s1");
        s.learn_threat(
            "s2",
            "mail/read",
            &lesson(&[("b@evil.example", "email"), ("evil.example", "domain")]),
        )
        .unwrap();
        assert_eq!(s.threat_hits(&keys).unwrap().len(), 2);
        // Hostile after three sessions.
        let l = s.learn_threat("s3", "mail/read", &lesson(&[])).unwrap();
        assert!(l.hostile);
        assert_eq!(
            s.threat_summary().unwrap().unwrap().hostile,
            vec!["mcp:mail"]
        );
        // Allow clears the domain and everything under it, and the source.
        assert!(s.allow_threat("evil.example").unwrap() >= 3);
        // A feed imported later does not bring an allowed value (or its domain's) back.
        let back = s
            .import_threat_indicators(
                &[
                    ("evil.example".into(), "domain".into()),
                    ("ops@evil.example".into(), "email".into()),
                ],
                Status::Learned,
                "feed",
            )
            .unwrap();
        assert_eq!(back, 0, "allowed values came back from a feed");
        assert!(s.threat_hits(&keys).unwrap().is_empty());
        s.allow_threat("mcp:mail").unwrap();
        assert!(s.threat_summary().unwrap().unwrap().hostile.is_empty());
        // Never learned again.
        s.learn_threat("s4", "t", &lesson(&[("c@evil.example", "email")]))
            .unwrap();
        assert!(s
            .threat_hits(&["c@evil.example".to_string()])
            .unwrap()
            .is_empty());
    }

    #[test]
    fn user_typed_values_are_not_learned_and_caps_evict() {
        let s = Store::open_in_memory().unwrap();
        s.touch_session("s1", "claude", true).unwrap();
        s.record_values(
            "s1",
            &[("me@mine.example".to_string(), "email")],
            crate::session::Origin::User,
            "prompt",
        )
        .unwrap();
        s.learn_threat("s1", "t", &lesson(&[("me@mine.example", "email")]))
            .unwrap();
        assert!(s
            .threat_hits(&["me@mine.example".to_string()])
            .unwrap()
            .is_empty());
        for i in 0..(threats::MAX_INDICATORS + 5) {
            s.conn
                .execute(
                    "INSERT INTO threat_indicators(value, vkind, status, origin, first_seen, last_seen) VALUES(?1,'email','learned','s',?2,?2)",
                    params![format!("x{i}@e.example"), now() - 1000 + i],
                )
                .unwrap();
        }
        s.learn_threat("s2", "t", &lesson(&[("new@e2.example", "email")]))
            .unwrap();
        let n: i64 = s
            .conn
            .query_row("SELECT count(*) FROM threat_indicators", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, threats::MAX_INDICATORS);
        assert_eq!(
            s.threat_hits(&["new@e2.example".to_string()])
                .unwrap()
                .len(),
            1
        );
        assert!(s
            .threat_hits(&["x0@e.example".to_string()])
            .unwrap()
            .is_empty());
        // Confirm turns it into a deny-level entry; forget removes it.
        let id = format!(
            "I{}",
            s.threat_hits(&["new@e2.example".to_string()]).unwrap()[0].id
        );
        assert!(s.set_threat_status(&id, Status::Confirmed).unwrap());
        assert_eq!(
            s.threat_hits(&["new@e2.example".to_string()]).unwrap()[0].status,
            Status::Confirmed
        );
        assert!(s.forget_threat(&id).unwrap());
        assert!(!s.forget_threat("I999999").unwrap());
        assert!(!s.forget_threat("bogus").unwrap());
    }
}
