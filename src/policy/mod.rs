//! The decision logic, pure: an [`Event`], the session as the store saw it ([`SessionView`]) and
//! the operator's settings in; a [`Decision`] and the [`Effect`]s it has on the session out.
//! Nothing here opens the database or a file; `crate::effects` loads the view and applies the
//! effects, so every check can be tested with plain values.
//!
//! Per event kind:
//! - a prompt ([`prompt`]): its values are remembered as the user's;
//! - before a tool runs: the checks of [`check::PRE_TOOL`] run in order (quarantine,
//!   self-disclosure, injection, built-in rules, provenance, taint, review); the strongest
//!   verdict wins and the first check to reach it names the reason;
//! - after a tool ran ([`output`]): its output is scanned; an injected output taints the
//!   session, its values are remembered as injected, and the model is told it is data;
//! - session start and end: housekeeping.
//!
//! The hook and the MCP proxy both call [`evaluate`]: no check exists twice.

pub mod builtin;
pub mod check;
pub mod disclosure;
pub mod echo;
pub mod output;
pub mod persist;
pub mod prompt;
pub mod readwrite;
pub mod secret_rules;
pub mod secret_values;
pub mod shell_effects;
pub mod tamper;
#[cfg(test)]
mod tests;
pub mod trusted;

use crate::config::Config;
use crate::decision::{Decision, Reason, Verdict};
use crate::event::{Event, EventKind, Tool};
use crate::paths::PathContext;
use crate::provenance::{self, kind, Val};
use crate::session::{Effect, SessionView};
use crate::shell::Analysis;
use sha2::{Digest, Sha256};

pub use check::pre_tool;
pub use output::{
    setup_shape_only, setup_step_notice, taint_notice, INJECTION_AFTER, INJECTION_BEFORE,
};

/// Everything a decision may look at besides the event and the session.
pub struct Context<'a> {
    /// Operator settings.
    pub config: &'a Config,
    /// Path resolution and our own files.
    pub paths: PathContext,
    /// True when the caller can replace the call's arguments without also approving the call
    /// (the harness's spec for this event; always true in the MCP proxy). Where it cannot,
    /// self-disclosure fields deny the call instead.
    pub can_rewrite: bool,
    /// The person's pause that covers the event's working directory, if any
    /// (`crate::pause::active`); it sets the later checks' objections aside (`check::allow`).
    pub pause: Option<crate::pause::Pause>,
}

/// A decision and the changes it makes to the session.
#[derive(Debug, Clone)]
pub struct Evaluation {
    /// What to answer.
    pub decision: Decision,
    /// What to record, in order.
    pub effects: Vec<Effect>,
}

impl Evaluation {
    fn new(decision: Decision) -> Evaluation {
        Evaluation {
            decision,
            effects: Vec::new(),
        }
    }
}

/// SHA-256 of the arguments' JSON text, hex; what the audit and approvals key on.
pub fn args_digest(tool: &Tool) -> String {
    let text = serde_json::to_string(&tool.input).unwrap_or_default();
    crate::text::hex(&Sha256::digest(text.as_bytes()))
}

/// What a tool call carries, analysed once: the shell analysis of its command, its string
/// arguments and the values (addresses, URLs, hosts, numbers, paths) in them.
#[derive(Debug, Clone)]
pub struct Facts {
    /// The shell command's analysis, for shell tools.
    pub sh: Option<Analysis>,
    /// Every leaf of the arguments (`provenance::walk_args`: strings, numbers, object keys) as
    /// `(nearest key, text)`.
    pub leaves: Vec<(String, String)>,
    /// The string arguments joined by newlines.
    pub arg_text: String,
    /// The values found in the arguments (sorted by text, deduplicated), the values of the
    /// destination arguments included.
    pub vals: Vec<Val>,
    /// The values of the destination arguments (`provenance::destination_args`: nested
    /// recipients, `owner`+`repo` pairs, channels, hosts and numbers read as the argument's
    /// name says), sorted by text.
    pub dest_args: Vec<Val>,
    /// False when the arguments hold strings that were not collected (nested deeper than
    /// `provenance::MAX_LEAF_DEPTH`, or past the first `provenance::MAX_LEAVES`): such a call
    /// cannot be checked whole.
    pub whole: bool,
    /// Where the shell line sends, per program (`crate::shell::Analysis::destinations`);
    /// empty for other tools. Its resolved hosts and URLs are among [`Facts::vals`].
    pub shell_dests: crate::shell::Dests,
    /// The shell analysis's runtime-code findings, computed on first use and shared by the
    /// checks before and after the allow list ([`Facts::runtime`]).
    runtime: std::cell::OnceCell<Vec<shell_effects::Runtime>>,
}

impl Facts {
    /// Analyses `tool`'s arguments.
    pub fn of(tool: &Tool) -> Facts {
        let cmd = tool.shell_command();
        let sh = cmd.as_deref().map(crate::shell::analyze);
        let (leaves, whole) = provenance::arg_leaves_whole(&tool.input);
        let arg_text: String = leaves
            .iter()
            .map(|(_, s)| s.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let mut vals: Vec<Val> = provenance::extract(&arg_text);
        // Hosts glued to a substitution still name the destination: the command's words cut
        // at `)`, backquotes and spaces catch `$(id).exfil.invalid`; the analysed words, where
        // each substitution reads `$(…)`, catch it with a path or query after the host too
        // (`https://$(id).exfil.invalid/x`).
        let glued = cmd
            .iter()
            .flat_map(|c| c.split(|c: char| c == ')' || c == '`' || c.is_whitespace()));
        let marked = sh
            .iter()
            .flat_map(Analysis::all_commands)
            .flat_map(|c| &c.args)
            .flat_map(|w| w.split("$(…)").skip(1))
            .map(|p| {
                p.split(['/', '?', '#', ':', '"', '\''])
                    .next()
                    .unwrap_or("")
            });
        for w in glued.chain(marked) {
            if let Some(h) = provenance::normalize_host(w.trim_start_matches('.')) {
                vals.push(Val {
                    kind: kind::DOMAIN,
                    text: provenance::domain_of(&h),
                });
                vals.push(Val {
                    kind: kind::HOST,
                    text: h,
                });
            }
        }
        let shell_dests = match (&sh, &cmd) {
            (Some(a), Some(c)) => a.destinations(c),
            _ => crate::shell::Dests::default(),
        };
        for d in &shell_dests.dests {
            if let crate::shell::Dest::Known(v) = d {
                vals.extend(v.iter().cloned());
            }
        }
        let dest_args = if sh.is_some() {
            Vec::new()
        } else {
            provenance::destination_args(&tool.input)
        };
        vals.extend(dest_args.iter().cloned());
        vals.sort_by(|a, b| a.text.cmp(&b.text));
        vals.dedup();
        Facts {
            sh,
            leaves,
            arg_text,
            vals,
            dest_args,
            whole,
            shell_dests,
            runtime: std::cell::OnceCell::new(),
        }
    }

    /// The runtime-code findings of the shell command ([`shell_effects::runtime_code`]),
    /// computed once per call; empty for other tools.
    pub fn runtime(&self) -> &[shell_effects::Runtime] {
        self.runtime.get_or_init(|| {
            self.sh
                .as_ref()
                .map(shell_effects::runtime_code)
                .unwrap_or_default()
        })
    }

    /// The values whose origins the session view must hold (`SessionView::origins`).
    /// Each text once (a two-label host is also its own domain; `vals` is sorted by text).
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.vals.iter().map(|x| x.text.clone()).collect();
        keys.dedup();
        keys
    }
}

/// Decides one event. `facts` is [`Facts::of`] the event's tool as sent (the caller computed it
/// to load the view; `None` computes it here). Pure: reads only its arguments.
pub fn evaluate(
    ev: &Event,
    facts: Option<Facts>,
    view: &SessionView,
    ctx: &Context<'_>,
) -> Evaluation {
    match ev.kind {
        EventKind::PromptSubmit => prompt::evaluate(ev),
        EventKind::PreTool => match &ev.tool {
            Some(t) => check::pre_tool(t, facts, view, ctx),
            None => Evaluation::new(Decision::error("pre-tool event without a tool")),
        },
        EventKind::PostTool => match &ev.tool {
            Some(t) => output::evaluate(t, ev.output.as_deref().unwrap_or(""), ctx),
            None => Evaluation::new(Decision::allow()),
        },
        EventKind::SessionStart | EventKind::SessionEnd => {
            let mut effects = vec![Effect::Prune];
            if ev.kind == EventKind::SessionEnd {
                effects.push(Effect::Checkpoint);
            }
            Evaluation {
                decision: Decision::new(Verdict::Allow, Reason::Housekeeping, "housekeeping"),
                effects,
            }
        }
        EventKind::Other => Evaluation::new(Decision::allow()),
    }
}

/// True when [`evaluate`] reads the session view for an event of this kind (only before a
/// tool runs); for the other kinds the caller may evaluate before loading it.
pub fn reads_view(kind: EventKind) -> bool {
    kind == EventKind::PreTool
}

/// Turns an ask into no objection with the one-time approval given for audit row `approval`
/// (looked up by the caller for exactly this session, tool and argument digest). A rewrite
/// that came with the ask still applies.
pub fn use_approval(e: Evaluation, approval: i64) -> Evaluation {
    if e.decision.verdict != Verdict::Ask {
        return e;
    }
    let mut d = Decision::new(
        Verdict::Allow,
        Reason::Approved,
        format!("approved once by the user (decision {approval})"),
    );
    d.updated_input = e.decision.updated_input;
    let mut effects = e.effects;
    effects.push(Effect::ConsumeApproval(approval));
    Evaluation {
        decision: d,
        effects,
    }
}

/// Folds text the way the user-typed check compares it: the detector's normalization.
pub(crate) fn fold(text: &str) -> String {
    crate::detect::normalize::normalize(text).text
}

/// `(value, kind)` pairs of values, as [`Effect::RecordValues`] takes them.
pub(crate) fn to_pairs(vals: &[Val]) -> Vec<(String, &'static str)> {
    vals.iter().map(|v| (v.text.clone(), v.kind)).collect()
}
