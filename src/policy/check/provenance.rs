//! Check 6: provenance. A value that came from an output flagged as injected (or a poisoned
//! tool description) and never from the user → deny; a destination that came only from tool
//! outputs → ask.

use super::Call;
use crate::decision::{Decision, Reason, Verdict};
use crate::event::ToolKind;
use crate::provenance::kind;

/// Adds the provenance verdicts (at most one).
pub fn check(call: &mut Call<'_>) {
    let dests = &call.dests;
    let view = call.view;
    let name = &call.name;
    let get = |t: &str| view.origin(t);
    let vals = &call.facts.vals;
    // Injected values: exact values an attacker planted, copied into this call.
    for x in vals {
        let o = get(&x.text);
        if o.user || !(o.injected || o.poisoned_description) {
            continue;
        }
        // A host or domain alone is common to benign and injected text (github.com); it counts
        // only as a destination, and only when no clean output named it too.
        let host_like = matches!(x.kind, kind::HOST | kind::DOMAIN);
        if host_like && (o.output || !dests.contains(x)) {
            continue;
        }
        // The host of an email address is judged by the address itself.
        if host_like
            && vals
                .iter()
                .any(|e| e.kind == kind::EMAIL && e.text.ends_with(&format!("@{}", x.text)))
        {
            continue;
        }
        let src = if o.poisoned_description {
            "a poisoned tool description"
        } else {
            "a tool result flagged as injected"
        };
        call.verdicts.add(
            Decision::new(
                Verdict::Deny,
                Reason::InjectedValue,
                format!(
                    "{name} uses {} '{}', which came from {src} and never from the user",
                    x.kind, x.text
                ),
            )
            .rule("provenance.injected_value")
            .evidence(x.text.clone()),
        );
        return;
    }
    // Destinations that came only from tool outputs.
    let tool_kind = call.tool.kind;
    for x in dests {
        let o = get(&x.text);
        if o.user || !(o.output || o.injected || o.poisoned_description) {
            continue;
        }
        if tool_kind == ToolKind::WebFetch || tool_kind == ToolKind::Shell {
            // Following a link exactly as a result gave it carries no data of the agent's;
            // a new URL on a host from a result can (query strings, paths).
            if matches!(x.kind, kind::HOST | kind::DOMAIN) {
                let exact_url_seen = dests
                    .iter()
                    .filter(|u| u.kind == kind::URL && u.text.contains(&x.text))
                    .all(|u| get(&u.text).output);
                let has_url = dests
                    .iter()
                    .any(|u| u.kind == kind::URL && u.text.contains(&x.text));
                if has_url && exact_url_seen {
                    continue;
                }
            }
            if x.kind == kind::URL && o.output && !o.injected {
                continue;
            }
        }
        if x.kind == kind::PATH {
            let p = call.ctx.paths.resolve(&x.text);
            if call.ctx.paths.in_workspace(&p) {
                continue;
            }
        }
        if x.kind == kind::DOMAIN {
            continue; // the host or URL itself decides
        }
        call.verdicts.add(
            Decision::new(
                Verdict::Ask,
                Reason::UntrustedDestination,
                format!(
                    "{name} sends to {} '{}', which came from a tool result, not from the user",
                    x.kind, x.text
                ),
            )
            .rule("provenance.output_destination")
            .evidence(x.text.clone()),
        );
        return;
    }
}
