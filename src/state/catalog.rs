//! The MCP catalog tables (`mcp_servers`, `mcp_tools`): launch pins, tool fingerprints,
//! quarantine and the operator's read-only decision. `crate::catalog` decides; this stores.

use super::{now, CatalogTool, Result, Store};
use rusqlite::{params, OptionalExtension};

/// One row of `intentshield mcp list`.
#[derive(Debug, Clone)]
pub struct CatalogRow {
    /// Server name.
    pub server: String,
    /// Tool name.
    pub tool: String,
    /// Quarantined (hidden and refused).
    pub quarantined: bool,
    /// Why, when quarantined.
    pub reason: Option<String>,
    /// The operator's read-only decision, if any.
    pub read_only: Option<bool>,
    /// The current fingerprint differs from the approved one.
    pub drifted: bool,
}

/// One tool as a server listed it, with the catalog's conclusion, for
/// [`Store::upsert_catalog_tool`].
#[derive(Debug, Clone, Copy)]
pub struct ToolListing<'a> {
    /// Server name.
    pub server: &'a str,
    /// Tool name.
    pub tool: &'a str,
    /// The fingerprint of the tool as listed now.
    pub fingerprint: &'a str,
    /// The approved fingerprint to store (`None`: nothing approved yet).
    pub approved_fingerprint: Option<&'a str>,
    /// The tool's description as listed.
    pub description: Option<&'a str>,
    /// The tool's input schema, JSON text.
    pub input_schema: Option<&'a str>,
    /// `Some(why)` quarantines the tool; `None` lifts any quarantine.
    pub quarantine_reason: Option<&'a str>,
}

impl Store {
    /// The catalog's knowledge of an MCP tool, if any.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file). An unknown tool is
    /// `Ok(None)`, not an error.
    pub fn catalog_tool(&self, server: &str, tool: &str) -> Result<Option<CatalogTool>> {
        let mut st = self.conn.prepare_cached(
            "SELECT read_only, quarantined, quarantine_reason, description, input_schema
             FROM mcp_tools WHERE server=?1 AND tool=?2",
        )?;
        Ok(st
            .query_row(params![server, tool], |r| {
                Ok(CatalogTool {
                    read_only: r.get::<_, Option<i64>>(0)?.map(|v| v != 0),
                    quarantined: r.get::<_, i64>(1)? != 0,
                    quarantine_reason: r.get(2)?,
                    description: r.get(3)?,
                    input_schema: r.get(4)?,
                })
            })
            .optional()?)
    }

    /// Every `(server, tool)` in the catalog whose server is not `server` (for shadowing).
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn catalog_other_tools(&self, server: &str) -> Result<Vec<(String, String)>> {
        let mut st = self
            .conn
            .prepare("SELECT server, tool FROM mcp_tools WHERE server<>?1")?;
        let rows = st.query_map(params![server], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
    }

    /// The names of `server`'s tools in the catalog.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn catalog_tool_names(&self, server: &str) -> Result<Vec<String>> {
        let mut st = self
            .conn
            .prepare("SELECT tool FROM mcp_tools WHERE server=?1")?;
        let rows = st.query_map(params![server], |r| r.get(0))?;
        Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
    }

    /// The approved fingerprint of `server/tool`: `None` when the tool is unknown or was
    /// never approved.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn catalog_approved_fingerprint(&self, server: &str, tool: &str) -> Result<Option<String>> {
        let approved: Option<Option<String>> = self
            .conn
            .query_row(
                "SELECT approved_fingerprint FROM mcp_tools WHERE server=?1 AND tool=?2",
                params![server, tool],
                |r| r.get(0),
            )
            .optional()?;
        Ok(approved.flatten())
    }

    /// Inserts or replaces what the catalog knows of one listed tool (fingerprints,
    /// description, schema, quarantine). The operator's read-only decision and the first-seen
    /// time of a known tool are kept.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn upsert_catalog_tool(&self, t: &ToolListing<'_>) -> Result<()> {
        self.conn.execute(
            "INSERT INTO mcp_tools(server, tool, fingerprint, approved_fingerprint, description, input_schema, quarantined, quarantine_reason, first_seen, updated_at)
             VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)
             ON CONFLICT(server, tool) DO UPDATE SET fingerprint=excluded.fingerprint,
               approved_fingerprint=excluded.approved_fingerprint, description=excluded.description,
               input_schema=excluded.input_schema, quarantined=excluded.quarantined,
               quarantine_reason=excluded.quarantine_reason, updated_at=excluded.updated_at",
            params![
                t.server,
                t.tool,
                t.fingerprint,
                t.approved_fingerprint,
                t.description,
                t.input_schema,
                t.quarantine_reason.is_some() as i64,
                t.quarantine_reason,
                now()
            ],
        )?;
        Ok(())
    }

    /// Accepts the current version of every tool of `server` and its launch: fingerprints
    /// become the approved ones, the quarantine is lifted except for tools whose reason says
    /// the description "carries instructions" (poisoned), and the last launch seen becomes the
    /// pin. Returns the number of tools of `server`.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file); run it inside
    /// [`Store::begin`] so a failure leaves nothing half approved.
    pub fn approve_catalog_server(&self, server: &str) -> Result<usize> {
        let n = self.conn.execute(
            "UPDATE mcp_tools SET approved_fingerprint=fingerprint,
               quarantined=CASE WHEN quarantine_reason LIKE '%carries instructions%' THEN quarantined ELSE 0 END,
               quarantine_reason=CASE WHEN quarantine_reason LIKE '%carries instructions%' THEN quarantine_reason ELSE NULL END
             WHERE server=?1",
            params![server],
        )?;
        self.conn.execute(
            "UPDATE mcp_servers SET launch_pin=launch_seen WHERE server=?1",
            params![server],
        )?;
        Ok(n)
    }

    /// The pinned launch of `server`: `None` when the server is unknown or has no pin.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn launch_pin(&self, server: &str) -> Result<Option<String>> {
        let pin: Option<Option<String>> = self
            .conn
            .query_row(
                "SELECT launch_pin FROM mcp_servers WHERE server=?1",
                params![server],
                |r| r.get(0),
            )
            .optional()?;
        Ok(pin.flatten())
    }

    /// Pins `launch` as `server`'s launch (and as the last one seen), now.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn pin_launch(&self, server: &str, launch: &str) -> Result<()> {
        self.conn.execute(
            "INSERT INTO mcp_servers(server, launch_pin, launch_seen, pinned_at, updated_at) VALUES(?1, ?2, ?2, ?3, ?3)
             ON CONFLICT(server) DO UPDATE SET launch_pin=excluded.launch_pin, launch_seen=excluded.launch_seen, pinned_at=excluded.pinned_at, updated_at=excluded.updated_at",
            params![server, launch, now()],
        )?;
        Ok(())
    }

    /// Remembers `launch` as the last launch seen of `server` (the pin is unchanged; an
    /// approval makes it the pin). Does nothing for an unknown server.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn record_launch_seen(&self, server: &str, launch: &str) -> Result<()> {
        self.conn.execute(
            "UPDATE mcp_servers SET launch_seen=?2, updated_at=?3 WHERE server=?1",
            params![server, launch, now()],
        )?;
        Ok(())
    }

    /// Writes the operator's decision for `server/tool`: `true` stores read-only (1), `false`
    /// stores no decision (NULL; the hook guesses).
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn set_catalog_read_only(&self, server: &str, tool: &str, read_only: bool) -> Result<()> {
        self.conn.execute(
            "UPDATE mcp_tools SET read_only=?3 WHERE server=?1 AND tool=?2",
            params![server, tool, if read_only { Some(1i64) } else { None }],
        )?;
        Ok(())
    }

    /// Every tool in the catalog (optionally of one server), by server and tool name.
    ///
    /// # Errors
    ///
    /// A database error (locked past the busy budget, I/O, corrupt file).
    pub fn catalog_rows(&self, server: Option<&str>) -> Result<Vec<CatalogRow>> {
        let mut st = self.conn.prepare(
            "SELECT server, tool, quarantined, quarantine_reason, read_only,
               approved_fingerprint IS NOT NULL AND approved_fingerprint<>fingerprint
             FROM mcp_tools WHERE ?1 IS NULL OR server=?1 ORDER BY server, tool",
        )?;
        let rows = st.query_map(params![server], |r| {
            Ok(CatalogRow {
                server: r.get(0)?,
                tool: r.get(1)?,
                quarantined: r.get::<_, i64>(2)? != 0,
                reason: r.get(3)?,
                read_only: r.get::<_, Option<i64>>(4)?.map(|v| v != 0),
                drifted: r.get::<_, i64>(5)? != 0,
            })
        })?;
        Ok(rows.collect::<std::result::Result<Vec<_>, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing<'a>(
        server: &'a str,
        tool: &'a str,
        fp: &'a str,
        approved: Option<&'a str>,
        quarantine: Option<&'a str>,
    ) -> ToolListing<'a> {
        ToolListing {
            server,
            tool,
            fingerprint: fp,
            approved_fingerprint: approved,
            description: Some("Send an email."),
            input_schema: Some(r#"{"type":"object"}"#),
            quarantine_reason: quarantine,
        }
    }

    #[test]
    fn upsert_round_trips_and_replaces() {
        let s = Store::open_in_memory().unwrap();
        assert!(s.catalog_tool("mail", "send").unwrap().is_none());
        assert_eq!(
            s.catalog_approved_fingerprint("mail", "send").unwrap(),
            None
        );
        s.upsert_catalog_tool(&listing("mail", "send", "f1", Some("f1"), None))
            .unwrap();
        let t = s.catalog_tool("mail", "send").unwrap().unwrap();
        assert!(!t.quarantined && t.quarantine_reason.is_none() && t.read_only.is_none());
        assert_eq!(t.description.as_deref(), Some("Send an email."));
        assert_eq!(t.input_schema.as_deref(), Some(r#"{"type":"object"}"#));
        assert_eq!(
            s.catalog_approved_fingerprint("mail", "send")
                .unwrap()
                .as_deref(),
            Some("f1")
        );
        s.set_catalog_read_only("mail", "send", true).unwrap();
        s.upsert_catalog_tool(&listing("mail", "send", "f2", Some("f1"), Some("changed")))
            .unwrap();
        let t = s.catalog_tool("mail", "send").unwrap().unwrap();
        assert!(t.quarantined);
        assert_eq!(t.quarantine_reason.as_deref(), Some("changed"));
        assert_eq!(t.read_only, Some(true), "the operator's decision is kept");
        let rows = s.catalog_rows(None).unwrap();
        assert_eq!(rows.len(), 1);
        assert!(rows[0].drifted && rows[0].quarantined);
    }

    #[test]
    fn unapproved_tool_is_not_drifted() {
        let s = Store::open_in_memory().unwrap();
        s.upsert_catalog_tool(&listing(
            "m",
            "bad",
            "f",
            None,
            Some("x carries instructions"),
        ))
        .unwrap();
        assert_eq!(s.catalog_approved_fingerprint("m", "bad").unwrap(), None);
        let rows = s.catalog_rows(Some("m")).unwrap();
        assert!(rows[0].quarantined && !rows[0].drifted);
    }

    #[test]
    fn names_other_tools_and_rows_by_server() {
        let s = Store::open_in_memory().unwrap();
        for (srv, tool) in [("b", "y"), ("a", "x"), ("a", "w"), ("c", "z")] {
            s.upsert_catalog_tool(&listing(srv, tool, "f", Some("f"), None))
                .unwrap();
        }
        let mut others = s.catalog_other_tools("a").unwrap();
        others.sort();
        assert_eq!(
            others,
            vec![("b".into(), "y".into()), ("c".into(), "z".into())]
        );
        let mut names = s.catalog_tool_names("a").unwrap();
        names.sort();
        assert_eq!(names, vec!["w".to_string(), "x".to_string()]);
        let all: Vec<(String, String)> = s
            .catalog_rows(None)
            .unwrap()
            .into_iter()
            .map(|r| (r.server, r.tool))
            .collect();
        assert_eq!(
            all,
            vec![
                ("a".into(), "w".into()),
                ("a".into(), "x".into()),
                ("b".into(), "y".into()),
                ("c".into(), "z".into())
            ]
        );
        assert_eq!(s.catalog_rows(Some("b")).unwrap().len(), 1);
        assert!(s.catalog_rows(Some("none")).unwrap().is_empty());
    }

    #[test]
    fn read_only_false_clears_the_decision() {
        let s = Store::open_in_memory().unwrap();
        s.upsert_catalog_tool(&listing("m", "t", "f", Some("f"), None))
            .unwrap();
        s.set_catalog_read_only("m", "t", true).unwrap();
        assert_eq!(s.catalog_rows(None).unwrap()[0].read_only, Some(true));
        s.set_catalog_read_only("m", "t", false).unwrap();
        assert_eq!(s.catalog_rows(None).unwrap()[0].read_only, None);
        assert_eq!(s.catalog_tool("m", "t").unwrap().unwrap().read_only, None);
    }

    #[test]
    fn approve_lifts_drift_but_not_poisoning() {
        let s = Store::open_in_memory().unwrap();
        s.upsert_catalog_tool(&listing(
            "m",
            "drift",
            "f2",
            Some("f1"),
            Some("m/drift changed"),
        ))
        .unwrap();
        s.upsert_catalog_tool(&listing(
            "m",
            "bad",
            "f3",
            None,
            Some("m/bad: the description carries instructions for the agent"),
        ))
        .unwrap();
        s.upsert_catalog_tool(&listing("other", "t", "f4", None, Some("other changed")))
            .unwrap();
        assert_eq!(s.approve_catalog_server("m").unwrap(), 2);
        let d = s.catalog_tool("m", "drift").unwrap().unwrap();
        assert!(!d.quarantined && d.quarantine_reason.is_none());
        assert_eq!(
            s.catalog_approved_fingerprint("m", "drift")
                .unwrap()
                .as_deref(),
            Some("f2")
        );
        let b = s.catalog_tool("m", "bad").unwrap().unwrap();
        assert!(b.quarantined);
        assert_eq!(
            s.catalog_approved_fingerprint("m", "bad")
                .unwrap()
                .as_deref(),
            Some("f3")
        );
        assert!(s.catalog_tool("other", "t").unwrap().unwrap().quarantined);
        assert_eq!(s.approve_catalog_server("nothing").unwrap(), 0);
    }

    #[test]
    fn launch_pin_and_seen() {
        let s = Store::open_in_memory().unwrap();
        assert_eq!(s.launch_pin("m").unwrap(), None);
        s.record_launch_seen("m", "ignored").unwrap();
        assert_eq!(
            s.launch_pin("m").unwrap(),
            None,
            "no row for an unknown server"
        );
        s.pin_launch("m", "node a.js").unwrap();
        assert_eq!(s.launch_pin("m").unwrap().as_deref(), Some("node a.js"));
        s.record_launch_seen("m", "node b.js").unwrap();
        assert_eq!(s.launch_pin("m").unwrap().as_deref(), Some("node a.js"));
        s.approve_catalog_server("m").unwrap();
        assert_eq!(s.launch_pin("m").unwrap().as_deref(), Some("node b.js"));
        s.pin_launch("m", "node c.js").unwrap();
        assert_eq!(s.launch_pin("m").unwrap().as_deref(), Some("node c.js"));
    }
}
