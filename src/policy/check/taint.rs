//! Check 7: a tainted session (a tool result carried injected instructions).
//! - Toxic flow: data from a resource first reached after the taint flowing into a write → deny.
//! - Unless the operator chose `--review never`: state-changing calls, network egress, reads
//!   of resources the user never named (scope widening) and secret-file reads → ask.

use super::{contains_word, is_distinctive_name, Call};
use crate::config::Review;
use crate::decision::{Decision, Reason, Verdict};
use crate::event::ToolKind;
use crate::policy::readwrite;
use crate::provenance::kind;
use crate::session::{Effect, Origin};

/// Adds the taint verdicts; records newly reached resources (scope widening).
pub fn check(call: &mut Call<'_>) {
    let view = call.view;
    if !view.session.tainted {
        return;
    }
    let name = call.name.clone();
    let is_read = call.is_read;
    // Toxic flow: data from a scope first reached after the taint flowing into a write.
    if !is_read {
        let lower = call.facts.arg_text.to_lowercase();
        for s in &view.tainted_scopes {
            // Only names distinctive enough to mean that resource (`private-repo`, not
            // `general`) count as its data.
            if is_distinctive_name(s) && contains_word(&lower, s) {
                call.verdicts.add(
                    Decision::new(
                        Verdict::Deny,
                        Reason::ToxicFlow,
                        format!(
                            "{name} would carry data from '{s}', a resource first reached after this session was tainted"
                        ),
                    )
                    .rule("provenance.tainted_scope")
                    .evidence(s.clone()),
                );
                break;
            }
        }
    }
    if call.ctx.config.review == Review::Never {
        return;
    }
    let why = view.session.taint_reason.clone().unwrap_or_default();
    let egress = call.egress;
    let dests = &call.dests;
    let kind_ = call.tool.kind;
    let vals = &call.facts.vals;
    // A write whose every destination (recipient, account, URL...) the user typed goes
    // where the user said: the attacker's usual goal, a destination of theirs, is absent.
    // Writes with no destination (delete, change a setting) still ask.
    // The payload must not carry distinctive data read from tools (a card or account
    // number, an address) either: that would be a leak to a trusted recipient.
    let user_directed = kind_ == ToolKind::Mcp
        && dests.iter().any(|d| d.kind != kind::DOMAIN)
        && dests
            .iter()
            .filter(|d| d.kind != kind::DOMAIN)
            .all(|d| view.origins.get(&d.text).is_some_and(|o| o.user))
        && vals.iter().all(|x| {
            dests.contains(x)
                || matches!(x.kind, kind::DOMAIN | kind::HOST)
                || view
                    .origins
                    .get(&x.text)
                    .is_none_or(|o| o.user || !(o.output || o.injected))
        });
    if !is_read && !user_directed {
        call.verdicts.add(
            Decision::new(
                Verdict::Ask,
                Reason::TaintedStateChange,
                format!("{name} changes state in a tainted session ({why})"),
            )
            .rule("taint.state_change"),
        );
    }
    if egress {
        call.verdicts.add(
            Decision::new(
                Verdict::Ask,
                Reason::TaintedEgress,
                format!("{name} reaches the network in a tainted session ({why})"),
            )
            .rule("taint.network_egress"),
        );
    }
    if kind_ == ToolKind::Mcp {
        let widened = readwrite::scope_values(&call.tool.input)
            .into_iter()
            .filter(|s| {
                !view
                    .prompts
                    .iter()
                    .any(|p| contains_word(p, &s.to_lowercase()))
            })
            .collect::<Vec<_>>();
        if !widened.is_empty() {
            let values: Vec<(String, &'static str)> = widened
                .iter()
                .map(|s| (s.to_lowercase(), "scope"))
                .collect();
            call.effects.push(Effect::RecordValues {
                values,
                origin: Origin::TaintedScope,
                source: name.clone(),
            });
            call.verdicts.add(
                Decision::new(
                    Verdict::Ask,
                    Reason::TaintedScopeWidening,
                    format!(
                        "{name} reaches {} that the user never named, in a tainted session",
                        widened.join(", ")
                    ),
                )
                .rule("taint.scope_widening"),
            );
        }
    }
    // Secret files read by the Read tool or the shell: the same decision for both.
    if let Some((p, _)) =
        readwrite::secret_reads(&call.tool, call.facts.sh.as_ref(), &call.ctx.paths)
            .into_iter()
            .next()
    {
        call.verdicts.add(
            Decision::new(
                Verdict::Ask,
                Reason::TaintedSecretRead,
                format!("{name} reads the secret file {p} in a tainted session"),
            )
            .rule("taint.secret_read"),
        );
    }
}
