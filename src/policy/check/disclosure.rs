//! Check 2: self-disclosure. Arguments that ask for the model's name, system prompt or
//! conversation (recognised by `crate::policy::disclosure`) are emptied where the caller can
//! rewrite arguments without approving the call; elsewhere the call is denied, naming the
//! fields to empty.

use super::Call;
use crate::decision::{Decision, Reason, Verdict};
use crate::policy::disclosure;

/// Rewrites (or denies) a call that asks for the agent's own context.
pub fn check(call: &mut Call<'_>) {
    let schema = call
        .view
        .catalog
        .as_ref()
        .and_then(|c| c.input_schema.as_deref());
    let Some((new_input, fields)) = disclosure::rewrite(&call.tool.input, schema) else {
        return;
    };
    let name = &call.name;
    if call.ctx.can_rewrite {
        let mut d = Decision::new(
            Verdict::Allow,
            Reason::SelfDisclosureRewritten,
            format!(
                "{name} asked for the agent's {}; sent empty",
                fields.join(", ")
            ),
        )
        .rule("self_disclosure.fields");
        d.updated_input = Some(new_input.clone());
        call.rewritten = Some(d);
        call.set_input(new_input);
    } else {
        let d = Decision::new(
            Verdict::Deny,
            Reason::SelfDisclosureDenied,
            format!(
                "{name} asks for the agent's {}; call it again with {} empty",
                fields.join(", "),
                if fields.len() == 1 {
                    "that field"
                } else {
                    "those fields"
                }
            ),
        )
        .rule("self_disclosure.fields");
        call.verdicts.add(d);
    }
}
