//! Check 6b: the instruction echo (`crate::policy::echo`). A state-changing call of an MCP or
//! other named tool whose argument carries a value that a sentence of an exposed output asked
//! for, a value the user's prompts never carried, is most likely the agent obeying the data
//! rather than the user → ask, deny in a tainted session (`provenance.instructed_value`).
//! Weak values (a short ID, a date) count only as a whole argument and when the sentence's
//! action and the tool's name share a family (`delete … '13'` and `delete_file`).
//!
//! The user who delegates without naming the values ("do what the e-mail from Bob says") is
//! asked: the values came from the e-mail, not from them. Reads are never asked; shell, file
//! and web tools are judged by the exposure and provenance checks instead.
//!
//! After `provenance` (a value from a flagged output is denied there first), before
//! `exposure`.

use super::Call;
use crate::decision::{Decision, Reason, Verdict};
use crate::event::{Tool, ToolKind};
use crate::policy::{echo, readwrite};

/// True for the tools the check judges: MCP and other named tools whose name is not a read.
/// The view loads instructed values only for these.
pub fn applies_to(tool: &Tool) -> bool {
    matches!(tool.kind, ToolKind::Mcp | ToolKind::Other)
        && !readwrite::name_is_read(
            tool.mcp
                .as_ref()
                .map_or(tool.name.as_str(), |m| m.tool.as_str()),
        )
}

/// Runs the check.
pub fn check(call: &mut Call<'_>) {
    if call.view.instructed.is_empty() || call.is_read || !applies_to(&call.tool) {
        return;
    }
    let tool_name = call
        .tool
        .mcp
        .as_ref()
        .map_or(call.tool.name.as_str(), |m| m.tool.as_str());
    let tool_fam = echo::tool_families(tool_name);
    let args = echo::arg_keys(&call.tool.input);
    let tainted = call.view.session.tainted;
    for a in &args {
        for seen in call.view.instructed.iter().filter(|s| s.value == a.key) {
            let weak = echo::is_weak(a.kind) || echo::is_weak(&seen.kind);
            if weak && (!a.whole || seen.families & tool_fam == 0) {
                continue;
            }
            if echo::user_typed(&a.key, &seen.kind, &call.view.prompts) {
                continue;
            }
            let verdict = if tainted { Verdict::Deny } else { Verdict::Ask };
            let what = echo::family_names(seen.families);
            let d = Decision::new(
                verdict,
                Reason::InstructedValue,
                format!(
                    "{} uses {} '{}', which a sentence in the result of {} asked for ({what}), \
                     not the user; the agent may be following instructions in data",
                    call.name, seen.kind, a.key, seen.source
                ),
            )
            .rule("provenance.instructed_value")
            .evidence(a.key.clone());
            call.verdicts.add(d);
            return;
        }
    }
}
