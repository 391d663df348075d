//! The MCP catalog: what each server offers, pinned, scanned and shared through the database.
//!
//! Hooks never see tool descriptions; an MCP proxy does. This module is the part both share:
//! - [`record_tools`] takes a `tools/list` result for one server, scans every tool's
//!   agent-visible text as a description, fingerprints it, pins it on first sight, and
//!   quarantines a tool that is poisoned, that changed since it was approved (rug pull), or
//!   whose description names another server's tool (shadowing). Values in a poisoned
//!   description (addresses, numbers) are remembered catalog-wide as
//!   `Origin::DescriptionPoisoned`, so a hook sees where a call's recipient came from.
//! - [`check_launch`] pins a server's launch (command, arguments, package version) and reports
//!   a change (the postmark-mcp backdoor changed code, not descriptions).
//! - [`approve`] accepts the current version of a server's tools.
//!
//! Sources: Invariant Labs, "MCP Security Notification: Tool Poisoning Attacks" (2025) for
//! poisoning, rug pulls and shadowing; the postmark-mcp incident (2025) for launch pinning.

use crate::decision::{Reason, Verdict};
use crate::detect::{self, TextKind};
use crate::provenance;
use crate::state::{Origin, Result, Store, ToolListing};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// What the catalog concluded about one tool.
#[derive(Debug, Clone)]
pub struct ToolVerdict {
    /// The tool's name.
    pub tool: String,
    /// Allow (listed), or Deny (quarantined: hidden and refused).
    pub verdict: Verdict,
    /// Why.
    pub reason: Reason,
    /// Rule ids and short evidence.
    pub rules: Vec<String>,
    /// One line for people.
    pub message: String,
}

use crate::text::hex;

/// The agent-visible text of a tool: title, description, and every description, title, enum
/// and default value in its input schema, one per line. Depth-bounded.
pub fn visible_text(tool: &Value) -> String {
    let mut out = Vec::new();
    for k in ["title", "description"] {
        if let Some(s) = tool.get(k).and_then(Value::as_str) {
            out.push(s.to_string());
        }
    }
    fn walk(v: &Value, out: &mut Vec<String>, depth: usize) {
        if depth > 16 {
            return;
        }
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x) {
                        ("description" | "title" | "default", Value::String(s)) => {
                            out.push(s.clone())
                        }
                        ("enum", Value::Array(a)) => {
                            out.extend(a.iter().filter_map(Value::as_str).map(str::to_string))
                        }
                        _ => walk(x, out, depth + 1),
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out, depth + 1)),
            _ => {}
        }
    }
    if let Some(s) = tool.get("inputSchema") {
        walk(s, &mut out, 0);
    }
    out.join("\n")
}

/// SHA-256 over the tool's title, description, input and output schemas and annotations.
pub fn fingerprint(tool: &Value) -> String {
    let mut h = Sha256::new();
    for k in [
        "name",
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
    ] {
        h.update(k.as_bytes());
        h.update(
            serde_json::to_string(tool.get(k).unwrap_or(&Value::Null))
                .unwrap_or_default()
                .as_bytes(),
        );
    }
    hex(&h.finalize())
}

/// Records one server's `tools/list` result (every page) and returns a verdict per tool.
///
/// A tool seen for the first time is pinned (its fingerprint becomes the approved one) unless
/// it is poisoned. A tool whose fingerprint differs from the approved one is quarantined until
/// [`approve`].
///
/// # Errors
///
/// A database error from reading or writing the catalog (see [`crate::state`]); tools
/// recorded before the error stay unless the caller rolls back.
pub fn record_tools(store: &Store, server: &str, tools: &[Value]) -> Result<Vec<ToolVerdict>> {
    // Other servers' tool names, for shadowing.
    let others = store.catalog_other_tools(server)?;
    let mut out = Vec::new();
    for tool in tools.iter().take(10_000) {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        let text = visible_text(tool);
        let fp = fingerprint(tool);
        let report = detect::scan(&text, TextKind::Description);
        let mut rules: Vec<String> = report.findings.iter().map(|f| f.rule.to_string()).collect();
        let lower = text.to_lowercase();
        let shadowed: Vec<String> = others
            .iter()
            .filter(|(s, o)| {
                o.len() >= 4
                    && (lower.contains(&format!("{s}_{o}"))
                        || lower.contains(&format!("({s}) {o}"))
                        || lower.contains(&format!("{s}.{o}"))
                        || lower.contains(&format!("{s}/{o}")))
            })
            .map(|(s, o)| format!("{s}/{o}"))
            .collect();
        let mentions_other_server = lower.contains("(mcp_") || !shadowed.is_empty();
        let approved = store.catalog_approved_fingerprint(server, name)?;
        let drifted = approved.as_deref().is_some_and(|a| a != fp);
        // Shadowing first: it names the more specific harm (another server's tool is steered).
        let (verdict, reason, message) = if mentions_other_server {
            rules.push("mcp.shadowing".into());
            (
                Verdict::Deny,
                Reason::QuarantinedTool,
                format!("{server}/{name}: the description steers another server's tool"),
            )
        } else if report.flagged {
            (
                Verdict::Deny,
                Reason::QuarantinedTool,
                format!("{server}/{name}: the description carries instructions for the agent"),
            )
        } else if drifted {
            rules.push("mcp.rug_pull".into());
            (
                Verdict::Deny,
                Reason::QuarantinedTool,
                format!("{server}/{name} changed since it was approved; run `intentshield mcp approve {server}`"),
            )
        } else {
            (
                Verdict::Allow,
                Reason::Ok,
                format!("{server}/{name}: listed"),
            )
        };
        if drifted && verdict == Verdict::Deny && !rules.iter().any(|r| r == "mcp.rug_pull") {
            rules.push("mcp.rug_pull".into());
        }
        let quarantined = verdict == Verdict::Deny;
        let new_approved = match (&approved, quarantined) {
            (Some(a), _) => Some(a.clone()),
            (None, false) => Some(fp.clone()),
            (None, true) => None,
        };
        let input_schema = tool.get("inputSchema").map(|s| s.to_string());
        store.upsert_catalog_tool(&ToolListing {
            server,
            tool: name,
            fingerprint: &fp,
            approved_fingerprint: new_approved.as_deref(),
            description: tool.get("description").and_then(Value::as_str),
            input_schema: input_schema.as_deref(),
            quarantine_reason: quarantined.then_some(message.as_str()),
        })?;
        if quarantined {
            let vals: Vec<(String, &'static str)> = provenance::extract(&text)
                .into_iter()
                .map(|v| (v.text, v.kind))
                .collect();
            store.record_values(
                "*",
                &vals,
                Origin::DescriptionPoisoned,
                &format!("{server}/{name}"),
            )?;
        }
        out.push(ToolVerdict {
            tool: name.to_string(),
            verdict,
            reason,
            rules,
            message,
        });
    }
    Ok(out)
}

/// Accepts the current version of every tool of `server`: their fingerprints become the
/// approved ones and the quarantine for drift is lifted (poisoned tools stay quarantined).
/// The server's last launch seen becomes its pin. Returns the number of tools of `server`.
///
/// # Errors
///
/// A database error from writing the catalog (see [`crate::state`]); call it inside
/// [`Store::begin`] so nothing is half approved.
pub fn approve(store: &Store, server: &str) -> Result<usize> {
    store.approve_catalog_server(server)
}

/// Pins a server's launch (a canonical string of command, arguments and package version) on
/// first use; a different launch later is an ask until approved.
///
/// # Errors
///
/// A database error from reading or writing the server's pin (see [`crate::state`]).
pub fn check_launch(store: &Store, server: &str, launch: &str) -> Result<(Verdict, String)> {
    match store.launch_pin(server)? {
        None => {
            store.pin_launch(server, launch)?;
            Ok((Verdict::Allow, format!("{server}: launch pinned")))
        }
        Some(p) if p == launch => Ok((Verdict::Allow, format!("{server}: launch matches its pin"))),
        Some(p) => {
            store.record_launch_seen(server, launch)?;
            Ok((
                Verdict::Ask,
                format!("{server}: launch changed from '{p}' to '{launch}'; run `intentshield mcp approve {server}` if you expected this"),
            ))
        }
    }
}

/// Writes the operator's `read_only_tools` decision (patterns of `server/tool`, `*` wildcard,
/// from the config file) into `mcp_tools.read_only` for `server`: 1 where a pattern matches,
/// NULL (no decision; the hook guesses) elsewhere. Returns the number of read-only tools.
///
/// # Errors
///
/// A database error from reading or writing the catalog (see [`crate::state`]).
pub fn apply_read_only(store: &Store, server: &str, patterns: &[String]) -> Result<usize> {
    let tools = store.catalog_tool_names(server)?;
    let mut n = 0;
    for t in tools {
        let full = format!("{server}/{t}");
        let ro = patterns
            .iter()
            .any(|p| crate::config::tool_pattern_matches(p, &full));
        n += ro as usize;
        store.set_catalog_read_only(server, &t, ro)?;
    }
    Ok(n)
}

/// One row of `intentshield mcp list` (defined with the catalog tables in [`crate::state`]).
pub use crate::state::CatalogRow;

/// Every tool in the catalog (optionally of one server), by server and tool name.
///
/// # Errors
///
/// A database error from reading the catalog (see [`crate::state`]).
pub fn list(store: &Store, server: Option<&str>) -> Result<Vec<CatalogRow>> {
    store.catalog_rows(server)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn send(description: &str) -> Value {
        json!({"name": "send", "description": description, "inputSchema": {"type": "object"}})
    }

    /// Why `mail/send` is quarantined, `None` when it is not (the policy's quarantine check
    /// refuses exactly these).
    fn quarantine(s: &Store) -> Option<String> {
        let c = s.catalog_tool("mail", "send").unwrap().expect("listed");
        c.quarantined
            .then(|| c.quarantine_reason.unwrap_or_default())
    }

    #[test]
    fn first_sight_pins_and_drift_quarantines_until_approved() {
        let s = Store::open_in_memory().unwrap();
        let v = record_tools(&s, "mail", &[send("Send an email.")]).unwrap();
        assert_eq!(v[0].verdict, Verdict::Allow);
        assert_eq!(quarantine(&s), None);
        let v = record_tools(&s, "mail", &[send("Send an email to someone.")]).unwrap();
        assert_eq!(v[0].verdict, Verdict::Deny);
        assert!(v[0].rules.iter().any(|r| r == "mcp.rug_pull"));
        let why = quarantine(&s).expect("quarantined");
        assert!(why.contains("changed since it was approved"), "{why}");
        assert!(list(&s, Some("mail")).unwrap()[0].drifted);
        assert_eq!(approve(&s, "mail").unwrap(), 1);
        assert_eq!(quarantine(&s), None);
        assert!(!list(&s, None).unwrap()[0].drifted);
    }

    #[test]
    fn unknown_tool_has_no_entry() {
        // The proxy's view marks its catalog complete, so the quarantine check refuses it.
        let s = Store::open_in_memory().unwrap();
        assert!(s.catalog_tool("mail", "send").unwrap().is_none());
    }

    #[test]
    fn launch_change_asks_until_approved() {
        let s = Store::open_in_memory().unwrap();
        assert_eq!(check_launch(&s, "m", "a").unwrap().0, Verdict::Allow);
        assert_eq!(check_launch(&s, "m", "a").unwrap().0, Verdict::Allow);
        assert_eq!(check_launch(&s, "m", "b").unwrap().0, Verdict::Ask);
        approve(&s, "m").unwrap();
        let (verdict, why) = check_launch(&s, "m", "b").unwrap();
        assert_eq!(verdict, Verdict::Allow);
        assert_eq!(why, "m: launch matches its pin");
    }

    #[test]
    fn read_only_patterns_mark_matching_tools() {
        let s = Store::open_in_memory().unwrap();
        let tools = [
            json!({"name": "get_mail", "description": "Read mail."}),
            json!({"name": "send", "description": "Send mail."}),
        ];
        record_tools(&s, "mail", &tools).unwrap();
        assert_eq!(
            apply_read_only(&s, "mail", &["mail/get_*".to_string()]).unwrap(),
            1
        );
        let ro: Vec<(String, Option<bool>)> = list(&s, None)
            .unwrap()
            .into_iter()
            .map(|r| (r.tool, r.read_only))
            .collect();
        assert_eq!(
            ro,
            vec![("get_mail".into(), Some(true)), ("send".into(), None)]
        );
    }
}
