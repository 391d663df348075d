//! Check 1: an MCP tool the proxy quarantined (poisoned description, changed since it was
//! pinned, shadowing another server's tool) is refused; so is, where the caller knows the
//! server's whole list (the proxy), a tool the server never listed.

use super::Call;
use crate::decision::{Decision, Reason, Verdict};

/// Adds a deny for a quarantined or never-listed MCP tool.
pub fn check(call: &mut Call<'_>) {
    let Some(m) = &call.tool.mcp else { return };
    let why = match &call.view.catalog {
        Some(c) if c.quarantined => format!(
            "{} is quarantined: {}",
            call.name,
            c.quarantine_reason
                .as_deref()
                .unwrap_or("its description changed or was poisoned")
        ),
        None if call.view.catalog_complete => {
            format!("{}/{} was never listed by the server", m.server, m.tool)
        }
        _ => return,
    };
    call.verdicts
        .add(Decision::new(Verdict::Deny, Reason::QuarantinedTool, why).rule("mcp.quarantine"));
}
