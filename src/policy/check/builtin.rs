//! Check 4: the built-in always-deny rules of `crate::policy::builtin` (pipe-to-shell,
//! secrets into the network, nested agents without permission checks), and
//! arguments too large or too deeply nested to be checked whole.

use super::Call;
use crate::decision::{Decision, Reason, Verdict};
use crate::policy::{builtin, shell_effects};
use crate::provenance::{MAX_LEAF_DEPTH, MAX_LEAVES};

/// Adds the built-in rules' denies.
pub fn check(call: &mut Call<'_>) {
    if !call.facts.whole {
        // The injection, secret and provenance checks only see the strings collected: what
        // lies beyond them cannot be analysed, and so is not harmless.
        let name = &call.name;
        call.verdicts.add(
            Decision::new(
                Verdict::Deny,
                Reason::Unanalysable,
                format!(
                    "the arguments of {name} hold more than {MAX_LEAVES} strings or nest deeper than {MAX_LEAF_DEPTH} levels: too large to check whole"
                ),
            )
            .rule("builtin.unanalysable_arguments"),
        );
    }
    for d in builtin::check(
        &call.tool,
        call.facts.sh.as_ref(),
        call.view.session.tainted,
    ) {
        call.verdicts.add(d);
    }
    if let Some(sh) = call.facts.sh.as_ref() {
        for d in shell_effects::always(&call.tool, sh, call.facts.runtime(), &call.ctx.paths) {
            call.verdicts.add(d);
        }
    }
}
