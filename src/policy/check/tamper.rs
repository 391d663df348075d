//! Check 5: tamper resistance, the rules of `crate::policy::tamper`: the agent may not run the
//! guard's state-changing commands, open its database or config with another program, or
//! write, remove or replace the settings of an agent, its hooks or this guard.

use super::Call;
use crate::policy::tamper;

/// Adds the tamper rules' verdicts.
pub fn check(call: &mut Call<'_>) {
    for d in tamper::check(
        &call.tool,
        call.facts.sh.as_ref(),
        &call.facts.leaves,
        call.is_read,
        call.view.session.tainted,
        &call.ctx.paths,
    ) {
        call.verdicts.add(d);
    }
}
