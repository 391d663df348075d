//! Check 3: injected instructions or secret material inside the call's arguments → deny.
//! Matches inside text the user typed are not held against them.

use super::Call;
use crate::decision::{Decision, Reason, Verdict};
use crate::detect::{self, TextKind};
use crate::event::ToolKind;
use crate::policy::builtin;

/// Adds a deny for injected instructions (any argument) or secrets (outbound tools only).
pub fn check(call: &mut Call<'_>) {
    let scan_args = match call.tool.kind {
        ToolKind::Mcp | ToolKind::WebFetch | ToolKind::Other => true,
        // A developer's own files and commands mention attacks all the time; in a tainted
        // session, writes ask anyway, and then the text is evidence worth showing.
        ToolKind::Shell | ToolKind::FileWrite => call.view.session.tainted,
        ToolKind::FileRead => false,
    };
    // Outbound tools only: a local tool (a to-do list) is not a way out.
    let outbound = matches!(call.tool.kind, ToolKind::Mcp | ToolKind::WebFetch);
    if !scan_args && !outbound {
        return;
    }
    let name = &call.name;
    let prompts = &call.view.prompts;
    let leaves = &call.facts.leaves;
    if scan_args {
        for (key, text) in leaves {
            let r = detect::scan(text, TextKind::Argument);
            if !r.flagged {
                continue;
            }
            let foreign: Vec<_> = r
                .findings
                .iter()
                .filter(|f| !prompts.iter().any(|p| p.contains(f.excerpt.trim())))
                .collect();
            if foreign.is_empty() {
                continue;
            }
            let mut d = Decision::new(
                Verdict::Deny,
                Reason::InjectionInArguments,
                format!("argument '{key}' of {name} carries injected instructions"),
            );
            d.rules = foreign.iter().map(|f| f.rule.to_string()).collect();
            d.evidence = detect::distinct_excerpts(foreign.iter().copied(), 3);
            call.verdicts.add(d);
            break;
        }
    }
    if outbound {
        for (key, text) in leaves {
            if let Some(what) = builtin::secret_material(text) {
                call.verdicts.add(
                    Decision::new(
                        Verdict::Deny,
                        Reason::SecretInArguments,
                        format!("argument '{key}' of {name} carries {what}"),
                    )
                    .rule("secret.material"),
                );
                break;
            }
        }
    }
}
