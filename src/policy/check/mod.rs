//! The checks run before a tool, one file each, in the order of [`PRE_TOOL`]. Each check looks
//! at the [`Call`] (the tool as it will run, its analysed arguments, the session view and the
//! settings) and adds its verdicts; the strongest verdict wins and the first check to reach it
//! names the reason. A check never reads the database: what it needs is in the view.
//!
//! To add a check: write `check/<name>.rs` with `pub fn check(call: &mut Call<'_>)` and put it
//! in [`PRE_TOOL`] where it belongs.

pub mod allow;
pub mod builtin;
pub mod contract;
pub mod disclosure;
pub mod echo;
pub mod effects;
pub mod exposure;
pub mod injection;
pub mod provenance;
pub mod quarantine;
pub mod review;
pub mod secrets;
pub mod taint;
pub mod tamper;
#[cfg(test)]
mod tests;
pub mod threat;

use super::{readwrite, Context, Evaluation, Facts};
use crate::decision::{Decision, Verdict};
use crate::event::{Tool, ToolKind};
use crate::provenance::{kind, Val};
use crate::session::{Effect, SessionView};

/// One check: reads the call, adds verdicts and effects to it.
pub type Check = fn(&mut Call<'_>);

/// The checks before a tool runs, in order. Quarantine and self-disclosure come first (the
/// rewrite decides which arguments the later checks see).
pub const PRE_TOOL: &[(&str, Check)] = &[
    ("quarantine", quarantine::check),
    ("disclosure", disclosure::check),
    ("injection", injection::check),
    ("builtin", builtin::check),
    ("tamper", tamper::check),
    ("secrets", secrets::check),
    ("threat", threat::check),
    ("contract", contract::check),
    ("allow", allow::check),
    ("effects", effects::check),
    ("provenance", provenance::check),
    ("echo", echo::check),
    ("exposure", exposure::check),
    ("taint", taint::check),
    ("review", review::check),
];

/// A tool call under evaluation, with what the checks derive from it computed once (and again
/// only when a self-disclosure rewrite replaces the arguments).
pub struct Call<'a> {
    /// The tool's display name (`server/tool` for MCP tools).
    pub name: String,
    /// The tool as it will run: the arguments after a self-disclosure rewrite.
    pub tool: Tool,
    /// The session as loaded before the decision.
    pub view: &'a SessionView,
    /// Settings and paths.
    pub ctx: &'a Context<'a>,
    /// The rewrite decision, when self-disclosure fields were emptied.
    pub rewritten: Option<Decision>,
    /// The verdicts so far.
    pub verdicts: Verdicts,
    /// The effects so far.
    pub effects: Vec<Effect>,
    /// The analysed arguments of the tool as it will run.
    pub facts: Facts,
    /// The values among the call's values that are destinations (recipient, URL, host...).
    pub dests: Vec<Val>,
    /// True when the call only reads (see [`readwrite::is_read_only`]).
    pub is_read: bool,
    /// True when the call reaches the network (see [`readwrite::is_egress`]).
    pub egress: bool,
    /// Set by the `allow` check: the checks after it may not object (see [`Waiver`]).
    pub waiver: Option<Waiver>,
    /// Set by the `contract` check when a contract governs the tool: the checks after it do
    /// not run (the contract's decision is the call's, with the earlier checks' objections).
    pub contracted: bool,
    /// Git remotes the shell line sends to by name whose URL this session set and the hook
    /// cannot read (computed at run time, or a `.git/config` written in the session that is
    /// not readable now): `(name, what)`. Their known URLs are among [`Call::dests`].
    pub unresolved_remotes: Vec<(String, String)>,
}

/// A person's decision that the checks after the `allow` check (provenance, taint, review) do
/// not object to this call: it is on the config file's `[allow]` list, or its project is paused.
/// The checks before it (quarantine, self-disclosure, injection, built-in, tamper) still decide.
#[derive(Debug, Clone)]
pub struct Waiver {
    /// The no-objection answer to give instead (`allow.listed` or `pause.project`).
    pub decision: Decision,
    /// True when the later checks' denies are set aside too (a pause); otherwise only their
    /// asks (the allow list: an injected value used, or data of a resource reached after the
    /// taint written out, is still denied).
    pub lifts_deny: bool,
}

impl<'a> Call<'a> {
    /// A call of `tool` (as sent); `facts` are [`Facts::of`] that tool when the caller has them.
    pub fn new(
        tool: &Tool,
        facts: Option<Facts>,
        view: &'a SessionView,
        ctx: &'a Context<'a>,
    ) -> Call<'a> {
        let facts = facts.unwrap_or_else(|| Facts::of(tool));
        let mut call = Call {
            name: tool.display_name(),
            tool: tool.clone(),
            view,
            ctx,
            rewritten: None,
            verdicts: Verdicts::default(),
            effects: Vec::new(),
            facts,
            dests: Vec::new(),
            is_read: false,
            egress: false,
            waiver: None,
            contracted: false,
            unresolved_remotes: Vec::new(),
        };
        call.derive();
        call
    }

    /// Replaces the arguments (a self-disclosure rewrite); what was derived from the old ones
    /// is computed again.
    pub fn set_input(&mut self, input: serde_json::Value) {
        self.tool.set_input(input);
        self.facts = Facts::of(&self.tool);
        self.derive();
    }

    fn derive(&mut self) {
        let sh = self.facts.sh.as_ref();
        self.is_read = readwrite::is_read_only(
            &self.tool,
            sh,
            self.view.catalog.as_ref(),
            &self.ctx.config.read_only_tools,
        );
        self.dests = destinations(&self.tool, &self.facts, self.is_read);
        self.unresolved_remotes.clear();
        let remotes = session_remotes(&self.facts, self.view, &self.ctx.paths);
        for r in remotes {
            match r {
                Ok(v) => self.dests.extend(v),
                Err(u) => self.unresolved_remotes.push(u),
            }
        }
        self.dests.sort_by(|a, b| a.text.cmp(&b.text));
        self.dests.dedup();
        self.egress = readwrite::is_egress(&self.tool, sh);
    }
}

/// Collects the verdicts of the checks; the strongest wins, the first at that level names it.
#[derive(Debug, Default, Clone)]
pub struct Verdicts {
    best: Option<Decision>,
}

impl Verdicts {
    /// Adds a decision; it replaces the current one only if it is strictly stronger.
    pub fn add(&mut self, d: Decision) {
        match &self.best {
            Some(b) if b.verdict >= d.verdict => {}
            _ => self.best = Some(d),
        }
    }

    /// The strongest verdict so far (allow when none).
    pub fn strongest(&self) -> Verdict {
        self.best.as_ref().map_or(Verdict::Allow, |d| d.verdict)
    }

    /// The winning decision, if any check objected.
    pub fn into_best(self) -> Option<Decision> {
        self.best
    }
}

/// Runs [`PRE_TOOL`] over a call of `tool`.
pub fn pre_tool(
    tool: &Tool,
    facts: Option<Facts>,
    view: &SessionView,
    ctx: &Context<'_>,
) -> Evaluation {
    let mut call = Call::new(tool, facts, view, ctx);
    // The verdict of the checks before the waiver, once the `allow` check set one.
    let mut before_waiver: Option<Option<Decision>> = None;
    for (_, check) in PRE_TOOL {
        if call.contracted {
            break;
        }
        check(&mut call);
        if before_waiver.is_none() && call.waiver.is_some() {
            before_waiver = Some(call.verdicts.best.clone());
        }
    }
    let rewritten = call.rewritten;
    let mut best = call.verdicts.into_best();
    let mut effects = call.effects;
    if let (Some(w), Some(before)) = (call.waiver, before_waiver) {
        best = waive(w, before, best, rewritten.as_ref());
    }
    let mut d = match best {
        Some(d) => d,
        None => rewritten.clone().unwrap_or_else(Decision::allow),
    };
    // A rewrite still applies under an ask.
    if d.verdict == Verdict::Ask {
        if let Some(r) = &rewritten {
            d.updated_input = r.updated_input.clone();
            d.rules.extend(r.rules.iter().cloned());
        }
    }
    // Files are remembered (and a downloaded file's read exposes the session) only for a call
    // that may run (allowed, or asked and then approved by the person): a denied call wrote
    // and read nothing.
    if d.verdict == Verdict::Deny {
        effects.retain(|e| !matches!(e, Effect::RecordFiles(_) | Effect::Expose(_)));
    }
    Evaluation {
        decision: d,
        effects,
    }
}

/// The answer under a waiver: `before` is what the checks before it decided, `after` what all
/// of them did. An objection of the later checks that the waiver covers is set aside: the
/// earlier checks' verdict stands if there was one, else the waiver's no objection (naming what
/// was set aside). With a self-disclosure rewrite, the rewrite is the answer (its arguments
/// must still be emptied), carrying the waiver's rule.
fn waive(
    w: Waiver,
    before: Option<Decision>,
    after: Option<Decision>,
    rewritten: Option<&Decision>,
) -> Option<Decision> {
    let before = before.filter(|d| d.verdict > Verdict::Allow);
    let floor = before.as_ref().map_or(Verdict::Allow, |d| d.verdict);
    let mut allow = w.decision;
    match after {
        Some(d) if d.verdict > floor && (d.verdict == Verdict::Ask || w.lifts_deny) => {
            if before.is_some() {
                return before;
            }
            allow.message = format!(
                "{}; without it: {} {}: {}",
                allow.message,
                d.verdict.name(),
                d.reason.code(),
                d.message
            );
            allow.rules.extend(d.rules);
        }
        Some(d) if d.verdict > Verdict::Allow => return Some(d),
        _ => {}
    }
    match rewritten {
        Some(r) => {
            let mut r = r.clone();
            r.rules.extend(allow.rules);
            r.message = format!("{}; {}", r.message, allow.message);
            Some(r)
        }
        None => Some(allow),
    }
}

/// Most bytes of a repository's `.git/config` read to resolve a remote.
const MAX_GIT_CONFIG: u64 = 64 * 1024;

/// The destinations of the git remotes a shell line sends to by name (`git push NAME`) that
/// this session set (`crate::session::FileKind::Remote`): the URL it recorded, or, when the
/// session rewrote remotes wholesale (`.git/config` written, an `insteadOf` key) or recorded
/// a computed URL, the URL in the repository's `.git/config` under the event's working
/// directory (read bounded). `Err((name, why))` when that cannot be known. A remote the
/// session never set predates it: the user's own, not listed.
fn session_remotes(
    f: &Facts,
    view: &SessionView,
    paths: &crate::paths::PathContext,
) -> Vec<Result<Vec<Val>, (String, String)>> {
    use crate::session::FileKind;
    let mut out = Vec::new();
    let names: Vec<&str> = f
        .shell_dests
        .dests
        .iter()
        .filter_map(|d| match d {
            crate::shell::Dest::Remote(n) => Some(n.as_str()),
            _ => None,
        })
        .collect();
    if names.is_empty() {
        return out;
    }
    let recorded = |key: &str| {
        view.files
            .iter()
            .find(|x| x.kind == FileKind::Remote && x.path == format!("git-remote:{key}"))
            .map(|x| x.source.clone())
    };
    let wholesale = recorded("*");
    for name in names {
        let shown = if name.is_empty() {
            "the default remote"
        } else {
            name
        };
        let own = if name.is_empty() {
            None
        } else {
            recorded(name)
        };
        let url = match (own, &wholesale) {
            (Some(u), _) if u != "?" => Some(u),
            (Some(_), _) | (None, Some(_)) => {
                // An `insteadOf` rewrite to a known URL: that URL is where pushes go.
                if let Some(w) = wholesale.as_ref().filter(|w| *w != "?") {
                    out.push(Ok(crate::shell::destination_values(w)));
                }
                let cfg = paths.resolve(".git/config");
                let text = std::fs::File::open(&cfg).ok().and_then(|fh| {
                    use std::io::Read;
                    let mut s = String::new();
                    fh.take(MAX_GIT_CONFIG)
                        .read_to_string(&mut s)
                        .ok()
                        .map(|_| s)
                });
                let key = if name.is_empty() { "origin" } else { name };
                match text.and_then(|t| crate::shell::config_remote_url(&t, key)) {
                    Some(u) => Some(u),
                    None => {
                        out.push(Err((
                            shown.to_string(),
                            "a remote this session set, whose URL the hook cannot read".into(),
                        )));
                        None
                    }
                }
            }
            (None, None) => None,
        };
        if let Some(u) = url {
            let v = crate::shell::destination_values(&u);
            if v.is_empty() {
                out.push(Err((
                    shown.to_string(),
                    format!(
                        "a remote this session set to '{}'",
                        crate::text::cap(&u, 120)
                    ),
                )));
            } else {
                out.push(Ok(v));
            }
        }
    }
    out
}

/// The values among the call's values that are destinations of this call. `is_read`: the call
/// only reads (a repository named by a read is where the data comes from, not where it goes).
fn destinations(tool: &Tool, f: &Facts, is_read: bool) -> Vec<Val> {
    let mut out: Vec<Val> = Vec::new();
    match tool.kind {
        ToolKind::Shell => {
            // Each program's own destination operands (`crate::shell::Analysis::destinations`):
            // registry hosts, `host::module`, percent-decoded hosts, resolver names.
            for d in &f.shell_dests.dests {
                if let crate::shell::Dest::Known(v) = d {
                    out.extend(v.iter().cloned());
                }
            }
            if f.sh
                .as_ref()
                .is_some_and(crate::shell::Analysis::is_network)
            {
                out.extend(
                    f.vals
                        .iter()
                        .filter(|x| {
                            matches!(x.kind, kind::HOST | kind::URL | kind::EMAIL | kind::DOMAIN)
                        })
                        .cloned(),
                );
            }
        }
        ToolKind::WebFetch => {
            out.extend(
                f.vals
                    .iter()
                    .filter(|x| matches!(x.kind, kind::HOST | kind::URL | kind::DOMAIN))
                    .cloned(),
            );
        }
        ToolKind::FileRead => {}
        _ => {
            // What an MCP call posts (a comment, a message, a page) is shown to people and bots
            // whose renderers fetch its images unasked: every such URL is a destination.
            if tool.kind == ToolKind::Mcp {
                for (_, s) in &f.leaves {
                    for u in crate::provenance::rendered_urls(s) {
                        out.extend(crate::provenance::extract(u));
                    }
                }
            }
            // Repositories, channels and user names are destinations of tools that talk to
            // people or services, not of a file write; a repository only for a call that
            // changes something.
            let named = matches!(tool.kind, ToolKind::Mcp | ToolKind::Other);
            out.extend(
                f.dest_args
                    .iter()
                    .filter(|x| match x.kind {
                        kind::REPO => named && !is_read,
                        kind::ACCOUNT => named,
                        _ => true,
                    })
                    .cloned(),
            );
        }
    }
    out.sort_by(|a, b| a.text.cmp(&b.text));
    out.dedup();
    out
}

/// True for a resource name that is unlikely to occur in text by chance: at least 8 bytes and
/// holding a `-`, `_`, `/`, `.` or a digit (`private-repo`, `team_2024`, `acme/app`).
pub(crate) fn is_distinctive_name(s: &str) -> bool {
    s.len() >= 8
        && s.chars()
            .any(|c| matches!(c, '-' | '_' | '/' | '.') || c.is_ascii_digit())
}

/// Case-insensitive whole-word containment (`needle` already lower-case).
pub(crate) fn contains_word(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let mut start = 0;
    while let Some(pos) = hay[start..].find(needle) {
        let a = start + pos;
        let b = a + needle.len();
        let before = hay[..a].chars().next_back();
        let after = hay[b..].chars().next();
        let boundary =
            |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'));
        if boundary(before) && boundary(after) {
            return true;
        }
        start = a + needle.len().max(1);
        if start >= hay.len() {
            break;
        }
    }
    false
}
