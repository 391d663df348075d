//! One audit row as an OCSF event: class API Activity (`class_uid` 6003, category Application
//! Activity 6) with the Security Control profile (`action_id`, `disposition_id`, `is_alert`,
//! `policy`).
//!
//! Why this class: every tool call an agent makes is an API call by an application (the agent)
//! on behalf of a session, and every one of them is recorded, allowed or not. API Activity
//! carries exactly that (`actor`, `api.operation`, `src_endpoint`), and the Security Control
//! profile carries the guard's outcome. Detection Finding (2004) was the other candidate; it
//! describes a detection (its `finding_info` is required), which fits a deny but would turn
//! every allowed call into an alert in a SIEM.
//!
//! Required attributes (OCSF schema: `events/base_event.json`,
//! `events/application/api_activity.json`, `objects/metadata.json`, `objects/api.json` and the
//! `at_least_one` constraints of `actor`, `network_endpoint` and `product`): `activity_id`,
//! `category_uid`, `class_uid`, `type_uid` (= class_uid × 100 + activity_id), `severity_id`,
//! `time` (ms since the epoch), `metadata.product` and `metadata.version`, `actor` (here
//! `app_name` and `session`), `api.operation`, `src_endpoint` (here `hostname`). What OCSF has
//! no attribute for (the hash chain, the rules, the argument digest) is under `unmapped`.
//!
//! Mapping: `activity_id` 99 (Other) with the harness event as `activity_name`; severity
//! allow 1 (Informational), ask 3 (Medium), deny 4 (High); allow → action 1 Allowed with
//! disposition 1 Allowed (8 Approved for a call a person approved), ask → action 99 (`Ask`)
//! with disposition 23 Challenge, deny → action 2 Denied with disposition 2 Blocked.

use super::{PRODUCT, VERSION};
use crate::state::AuditRow;
use serde_json::{json, Value};

/// The OCSF schema version the events declare.
pub const SCHEMA_VERSION: &str = "1.5.0";
/// API Activity.
pub const CLASS_UID: i64 = 6003;
/// Application Activity.
pub const CATEGORY_UID: i64 = 6;
/// Other (the harness event names the activity).
pub const ACTIVITY_ID: i64 = 99;

/// `(severity_id, severity)` of a decision.
fn severity(verdict: &str) -> (i64, &'static str) {
    match verdict {
        "allow" => (1, "Informational"),
        "ask" => (3, "Medium"),
        _ => (4, "High"),
    }
}

/// `(action_id, action, disposition_id, disposition)` of a decision.
fn outcome(verdict: &str, reason: &str) -> (i64, &'static str, i64, &'static str) {
    match (verdict, reason) {
        ("allow", "approved") => (1, "Allowed", 8, "Approved"),
        ("allow", _) => (1, "Allowed", 1, "Allowed"),
        ("ask", _) => (99, "Ask", 23, "Challenge"),
        _ => (2, "Denied", 2, "Blocked"),
    }
}

/// This machine's host name (`/proc/sys/kernel/hostname`, else `$HOSTNAME`, else
/// `localhost`), read once per process.
pub fn hostname() -> &'static str {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty() && h.len() <= 255)
            .unwrap_or_else(|| "localhost".into())
    })
}

/// One audit row as an OCSF API Activity event.
pub fn event(r: &AuditRow) -> Value {
    let (severity_id, severity) = severity(&r.verdict);
    let (action_id, action, disposition_id, disposition) = outcome(&r.verdict, &r.reason_code);
    let operation = r.tool.clone().unwrap_or_else(|| r.event.clone());
    let mut api = json!({ "operation": operation });
    // An MCP tool is `server/tool`: the server is the API's service.
    if let Some((server, _)) = r.tool.as_deref().and_then(|t| t.split_once('/')) {
        api["service"] = json!({ "name": server });
    }
    json!({
        "class_uid": CLASS_UID,
        "class_name": "API Activity",
        "category_uid": CATEGORY_UID,
        "category_name": "Application Activity",
        "activity_id": ACTIVITY_ID,
        "activity_name": r.event,
        "type_uid": CLASS_UID * 100 + ACTIVITY_ID,
        "type_name": "API Activity: Other",
        "time": r.ts.saturating_mul(1000),
        "severity_id": severity_id,
        "severity": severity,
        "message": r.message,
        "metadata": {
            "version": SCHEMA_VERSION,
            "product": { "name": PRODUCT, "vendor_name": PRODUCT, "version": VERSION },
            "uid": r.id.to_string(),
            "log_name": "audit",
            "event_code": r.reason_code,
            "profiles": ["security_control"],
        },
        "actor": {
            "app_name": r.harness,
            "session": { "uid": r.session_id },
        },
        "api": api,
        "src_endpoint": { "hostname": hostname() },
        "action_id": action_id,
        "action": action,
        "disposition_id": disposition_id,
        "disposition": disposition,
        "is_alert": r.verdict != "allow",
        "policy": { "name": PRODUCT, "uid": r.reason_code },
        "unmapped": {
            "decision": r.verdict,
            "reason_code": r.reason_code,
            "rules": super::rules(r),
            "args_digest": r.args_digest,
            "args": r.args,
            "critical": super::critical(r),
            "approver": r.approver,
            "prev_hash": r.prev_hash,
            "row_hash": r.row_hash,
        },
    })
}
