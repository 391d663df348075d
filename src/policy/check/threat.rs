//! Threat memory: a call whose arguments carry an indicator remembered from injected content
//! (`crate::threats`). A learned one asks (`threat.known_indicator`), unless the session's user
//! typed the value themselves; one the operator confirmed, imported from a feed or installed
//! with a verified pack denies (`threat.confirmed_indicator`). The message names the session
//! and tool that taught it, so `intentshield log` shows where the memory came from.

use super::Call;
use crate::decision::{Decision, Reason, Verdict};

/// Adds the threat memory's verdict for the indicators in the view.
pub fn check(call: &mut Call<'_>) {
    let view = call.view;
    let mut deny: Option<&crate::threats::ThreatHit> = None;
    let mut ask: Option<&crate::threats::ThreatHit> = None;
    for h in &view.threats {
        if h.status.denies() {
            deny = deny.or(Some(h));
        } else if !view.origin(&h.value).user {
            ask = ask.or(Some(h));
        }
    }
    let (hit, verdict, reason) = match (deny, ask) {
        (Some(h), _) => (h, Verdict::Deny, Reason::ThreatConfirmedIndicator),
        (None, Some(h)) => (h, Verdict::Ask, Reason::ThreatKnownIndicator),
        (None, None) => return,
    };
    let taught = match hit.status {
        crate::threats::Status::Learned => format!(
            "named by injected content in the result of {} (session {}{})",
            hit.tool.as_deref().unwrap_or("a tool"),
            hit.origin,
            if hit.sessions > 1 {
                format!(", {} sessions", hit.sessions)
            } else {
                String::new()
            }
        ),
        s => format!("{} threat indicator ({})", s.name(), hit.origin),
    };
    let mut d = Decision::new(
        verdict,
        reason,
        format!(
            "{} carries {} {}, {taught}; `intentshield threats allow {}` clears it",
            call.name, hit.kind, hit.value, hit.value
        ),
    );
    d.rules = vec![format!("threat:I{}", hit.id)];
    d.evidence = vec![hit.value.clone()];
    call.verdicts.add(d);
}
