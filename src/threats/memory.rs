//! The threat memory's steps in the hook: before a tool, the indicators among the call's values
//! (loaded into the session view; `crate::policy::check::threat` decides on them); after a
//! tool, learning from a flagged output, or tainting an output that matches a fingerprint,
//! comes from a hostile source, or trips a pack rule.
//!
//! Cost: before a tool, one indexed query over the call's values (and their registrable
//! domains). After a tool, one query reading the summary row (the fingerprint index, the
//! hostile sources, the pack rules) and, only when the index is not empty, one shingling pass
//! over the output; writes happen only when something was learned or matched.

use super::{fingerprint, lesson, packs, source_of, ThreatHit};
use crate::config::Outputs;
use crate::decision::{Decision, Reason, Verdict};
use crate::detect::{self, TextKind};
use crate::event::{Event, EventKind};
use crate::policy::{Context, Evaluation};
use crate::session::{Effect, Origin};
use crate::state::{Result, Store};

/// The remembered indicators among a call's values `keys` (`crate::policy::Facts::keys`).
///
/// # Errors
///
/// A database error.
pub fn hits(store: &Store, keys: &[String]) -> Result<Vec<ThreatHit>> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    packs::sync_if_changed(store, store.threat_packs_dir().as_deref())?;
    store.threat_hits(&super::lookup_keys(keys))
}

/// After a tool ran (`ev` a post-tool event, `e` its evaluation by the output check): learns
/// from an output the rules flagged, else taints an output that matches a fingerprint, comes
/// from a hostile source, or trips a pack rule. The caller holds the transaction; the pack
/// directory is synced first when it changed (`packs::sync`).
///
/// # Errors
///
/// A database error.
pub fn after_output(
    store: &Store,
    ev: &Event,
    e: &mut Evaluation,
    ctx: &Context<'_>,
) -> Result<()> {
    let Some(tool) = ev.tool.as_ref().filter(|_| ev.kind == EventKind::PostTool) else {
        return Ok(());
    };
    let output = ev.output.as_deref().unwrap_or("");
    let summary = packs::sync(store, store.threat_packs_dir().as_deref())?;
    let name = tool.display_name();
    if e.decision.reason == Reason::OutputInjected {
        let report = crate::policy::output::take_flagged_report(output.len())
            .unwrap_or_else(|| detect::scan(output, TextKind::ToolOutput));
        let injected: Vec<(String, &'static str)> = e
            .effects
            .iter()
            .filter_map(|x| match x {
                Effect::RecordValues {
                    values,
                    origin: Origin::OutputInjected,
                    ..
                } => Some(values.clone()),
                _ => None,
            })
            .flatten()
            .collect();
        let l = lesson(tool, output, &report, &injected);
        if !l.is_empty() {
            let learned = store.learn_threat(&ev.session_id, &name, &l)?;
            e.decision.message = format!(
                "{}; threat memory: {} indicators, {} fingerprints learned{}{}",
                e.decision.message,
                learned.indicators,
                learned.fingerprints,
                if learned.seen_again > 0 {
                    format!(", {} seen again", learned.seen_again)
                } else {
                    String::new()
                },
                if learned.hostile {
                    "; source now hostile"
                } else {
                    ""
                }
            );
        }
        return Ok(());
    }
    let Some(summary) = summary else {
        return Ok(());
    };
    // A hostile source first (no scan needed), then fingerprints, then pack rules.
    let source = source_of(tool);
    if let Some(src) = source.as_ref().filter(|s| summary.hostile.contains(s)) {
        let why = format!(
            "{src} produced injected content in {} or more sessions within 7 days",
            super::HOSTILE_SESSIONS
        );
        taint(
            e,
            ctx,
            &name,
            Reason::ThreatHostileSource,
            format!("the result of {name} comes from a hostile source: {why}; session tainted (intentshield threats allow {src} clears it)"),
            vec![format!("threat:source:{src}")],
            false,
        );
        return Ok(());
    }
    let ids = summary.index.matches(output);
    if !ids.is_empty() {
        let taught = store.threat_fingerprint_hit(&ids)?;
        let by = taught.map_or(String::new(), |(s, t)| {
            format!(
                " (fingerprint learned from {}{})",
                s,
                t.map_or(String::new(), |t| format!(", result of {t}"))
            )
        });
        taint(
            e,
            ctx,
            &name,
            Reason::ThreatKnownFingerprint,
            format!("the result of {name} matches injected text seen before{by}; session tainted"),
            ids.iter().map(|i| format!("threat:F{i}")).collect(),
            true,
        );
        return Ok(());
    }
    if let Some((pack, rule)) = packs::match_rules(&summary.rules, output) {
        taint(
            e,
            ctx,
            &name,
            Reason::ThreatPackRule,
            format!(
                "the result of {name} matches rule {rule} of threat pack {pack}; session tainted"
            ),
            vec![format!("pack:{pack}:{rule}")],
            true,
        );
    }
    Ok(())
}

/// Turns the evaluation of an output into a tainted one: the taint effect, the notice to the
/// model, the output replaced under `outputs = "block"`; with `injected` the output's values
/// are remembered as injected.
fn taint(
    e: &mut Evaluation,
    ctx: &Context<'_>,
    name: &str,
    reason: Reason,
    message: String,
    rules: Vec<String>,
    injected: bool,
) {
    let mut effects = vec![Effect::Taint(format!(
        "{} in the result of {name}",
        rules.join(",")
    ))];
    for x in e.effects.drain(..) {
        match x {
            Effect::RecordValues {
                values,
                origin: Origin::Output,
                source,
            } if injected => effects.push(Effect::RecordValues {
                values,
                origin: Origin::OutputInjected,
                source,
            }),
            other => effects.push(other),
        }
    }
    e.effects = effects;
    let mut d = Decision::new(Verdict::Allow, reason, message);
    d.rules = rules;
    d.context = Some(crate::policy::taint_notice(
        &format!("the result of {name}"),
        &[reason.code()],
    ));
    if ctx.config.outputs == Outputs::Block {
        d.replace_output = Some(format!(
            "[IntentShield removed this tool result: {}.]",
            reason.code()
        ));
    }
    e.decision = d;
}

/// Fingerprints of a text, for tests and the campaign: the gated samples of its sentences.
pub fn samples(text: &str) -> Vec<Vec<u32>> {
    fingerprint::sentences(text)
        .iter()
        .filter_map(|w| super::gate::sample(w))
        .collect()
}
