//! Check 3: the built-in always-deny rules of `crate::policy::builtin` (protected paths,
//! pipe-to-shell, secrets into the network, nested agents without permission checks).

use super::Call;
use crate::policy::builtin;

/// Adds the built-in rules' denies.
pub fn check(call: &mut Call<'_>) {
    call.facts();
    let sh = call.facts.as_ref().and_then(|f| f.sh.as_ref());
    for d in builtin::check(&call.tool, sh, &call.ctx.paths) {
        call.verdicts.add(d);
    }
}
