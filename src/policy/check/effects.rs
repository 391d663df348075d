//! Check 6b: the shell verdict families whose answer depends on the session
//! (`crate::policy::shell_effects::by_session`): code built at run time and irreversible
//! unconfirmed deletion (ask in a clean session, deny in a tainted one), destructive everyday
//! commands (ask in a tainted session). After the `allow` check, so a person's allow list sets
//! their asks aside; before `taint`, so they name the reason.

use super::Call;
use crate::policy::shell_effects;

/// Adds the session-dependent shell verdicts.
pub fn check(call: &mut Call<'_>) {
    let Some(sh) = call.facts.sh.as_ref() else {
        return;
    };
    let tainted = call.view.session.tainted;
    let runtime = call.facts.runtime();
    for d in shell_effects::by_session(&call.tool, sh, runtime, tainted, &call.ctx.paths) {
        call.verdicts.add(d);
    }
}
