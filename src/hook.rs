//! `intentshield hook <harness>`: read one event on stdin, decide, record, answer.
//!
//! Fails closed: a bad flag (one that is not UTF-8 too, read in main.rs) or environment value,
//! an unknown harness, input over [`MAX_INPUT`], invalid UTF-8, malformed or truncated JSON, a
//! locked or corrupt database, or a panic all end in an explicit deny on a before-tool event
//! (exit 2 with the reason on stderr, or Cursor's deny JSON), never in the harness's fail-open
//! paths (a crash, a timeout, junk on stdout). A damaged database is never repaired here: its
//! message names `intentshield doctor --repair` ([`state::REPAIR_HINT`]). The error is also
//! appended to `errors.log` beside the database. Nothing but the harness's answer is written to
//! stdout.

use crate::config::{self, Flags};
use crate::decision::{Decision, Reason, Verdict};
use crate::effects;
use crate::event::{Event, EventKind, Harness};
use crate::harness::{self, RenderOptions, Rendered};
use crate::paths::{self, PathContext};
use crate::policy::{self, Context};
use crate::session::SessionView;
use crate::state::{self, AuditEntry, Store};
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest event accepted on stdin (bytes): 16 MiB.
pub const MAX_INPUT: usize = 16 * 1024 * 1024;

/// The result of one invocation, for `check` and tests.
pub struct Outcome {
    /// The normalized event, when it could be read.
    pub event: Option<Event>,
    /// The decision (an error decision when something failed).
    pub decision: Decision,
    /// What is printed and the exit status.
    pub rendered: Rendered,
}

/// Runs the hook on `input` for the harness named `harness` (as given on the command line).
///
/// `db` overrides the database location (`None`: `--db`, `INTENTSHIELD_DB`, config, default).
/// `store` may be given to use an already open store (`check` uses an in-memory one).
/// Without one, the database is opened here and, once the decision is committed, left open
/// (not closed) for the process to exit: call it without a store only from a short-lived
/// process (the `hook` command).
pub fn run(harness: &str, flags: &Flags, input: &[u8], mut store: Option<&mut Store>) -> Outcome {
    let Some(mut harness) = Harness::from_name(harness) else {
        return fail(
            None,
            None,
            &format!("unknown harness '{harness}' (expected claude, codex, cursor or gemini)"),
        );
    };
    let cfg = match config::load(flags) {
        Ok(c) => c,
        Err(e) => return fail(Some(harness), None, &format!("bad setting: {e}")),
    };
    let db_path = state::db_path(cfg.db.as_deref());
    // An event that cannot be read fails closed; its session (when its id can be found) is
    // tainted, since a tool result the guard could not read may carry anything.
    let mut unreadable = |harness: Harness, event_name: Option<&str>, msg: &str| {
        taint_unreadable(
            harness,
            input,
            db_path.as_deref().ok(),
            store.as_deref_mut(),
            msg,
        );
        fail(Some(harness), event_name, msg)
    };
    if input.len() > MAX_INPUT {
        return unreadable(
            harness,
            None,
            &format!(
                "event is {} bytes, over the {} byte limit",
                input.len(),
                MAX_INPUT
            ),
        );
    }
    if input.iter().all(u8::is_ascii_whitespace) {
        return unreadable(
            harness,
            None,
            "no event on stdin (the harness writes its event JSON there; to try an event by hand: intentshield check EVENT.json)",
        );
    }
    let text = match std::str::from_utf8(input) {
        Ok(t) => t,
        Err(e) => return unreadable(harness, None, &format!("event is not valid UTF-8: {e}")),
    };
    let raw: Value =
        match serde_json::from_str(text).or_else(|e| match lone_surrogates_replaced(text) {
            Some(fixed) => serde_json::from_str(&fixed),
            None => Err(e),
        }) {
            Ok(v) => v,
            Err(e) => return unreadable(harness, None, &format!("event is not valid JSON: {e}")),
        };
    // Cursor also runs hooks from Claude Code's settings files (hook-protocols.md §3.6).
    if harness == Harness::Claude && harness::sniff(&raw) == Some(Harness::Cursor) {
        harness = Harness::Cursor;
    }
    let event_name = raw.get("hook_event_name").and_then(Value::as_str);
    let ev = match harness::parse(harness, &raw) {
        Ok(ev) => ev,
        Err(e) => return unreadable(harness, event_name, &format!("malformed event: {e}")),
    };
    let opts = RenderOptions {
        gemini_ask: cfg.gemini_ask,
    };
    let mut own = paths::own_files(db_path.as_deref().ok(), flags.config.as_ref());
    // Contract files and the registries they name hold what critical values are checked
    // against: no tool may write them.
    own.extend(cfg.contracts.protected_files());
    let ctx = Context {
        config: &cfg,
        paths: PathContext::new(call_dir(&ev).as_deref(), own),
        can_rewrite: ev.harness.spec().can_rewrite(&ev.event_name),
        // A person's pause of the project (one stat when there is none); before a tool only.
        pause: (ev.kind == crate::event::EventKind::PreTool)
            .then_some(ev.cwd.as_deref())
            .flatten()
            .and_then(|cwd| crate::pause::active_call(cwd, call_dir(&ev), state::now())),
    };
    let own_store = store.is_none();
    // The export sink is the real hook's only (`check` passes its own store).
    let export = cfg.export.as_ref().filter(|_| own_store);
    let result = match store {
        Some(s) => decide_and_record(&ev, s, &ctx, None),
        None => match &db_path {
            Ok(p) => match Store::open(p) {
                Ok(mut s) => {
                    let r = fold_pending_taint(&mut s, p)
                        .and_then(|()| decide_and_record(&ev, &mut s, &ctx, export));
                    // The decision is committed and the process exits after answering
                    // (main.rs, without destructors): closing the connection would only free
                    // the parsed schema and cached statements (about 0.14 M instructions, 6%
                    // of a small event). A failed call closes it, since the error path may
                    // still inspect the file (`state::health`).
                    if r.is_ok() {
                        std::mem::forget(s);
                    }
                    r
                }
                Err(e) => Err(e),
            },
            Err(e) => Err(state::StateError(e.0.clone())),
        },
    };
    match result {
        Ok((d, row)) => {
            // After the commit, never changing the decision: a failed export line is noted
            // in errors.log and dropped.
            if let (Some(x), Some(mut row)) = (export, row) {
                // The arguments of a stopped call, as the database keeps them (masked, capped).
                if matches!(
                    harness::answered_verdict(&ev, &d),
                    Verdict::Ask | Verdict::Deny
                ) {
                    row.args = ev.tool.as_ref().map(|t| state::call_args_text(&t.input));
                }
                if let Err(e) = crate::export::sink::emit(x, &row) {
                    log_error(db_path.as_ref().ok().map(PathBuf::as_path), &e);
                }
            }
            let rendered = harness::render(&ev, &d, &opts);
            Outcome {
                event: Some(ev),
                decision: d,
                rendered,
            }
        }
        Err(e) => {
            let mut msg = e.to_string();
            // A file that opened but is not ours whole (a replaced database without our
            // tables, damage SQLite reports only on some pages) is named as damaged too, so
            // the message says how to recover. Only on this error path.
            if let (true, Ok(p)) = (own_store && !msg.contains(state::REPAIR_HINT), &db_path) {
                if matches!(state::health(p), state::Health::Damaged(_)) {
                    msg = format!("{msg}; {}", state::REPAIR_HINT);
                }
            }
            log_error(db_path.as_ref().ok().map(PathBuf::as_path), &msg);
            // A tool's output that could not be recorded may carry anything: the session is
            // tainted by the next event that can write (fail closed across events).
            if own_store && ev.kind == EventKind::PostTool {
                if let Ok(p) = &db_path {
                    note_pending_taint(p, ev.harness.name(), &ev.session_id);
                }
            }
            let mut out = fail(Some(harness), Some(&ev.event_name), &msg);
            out.event = Some(ev);
            out
        }
    }
}

/// Decides, applies and records the event in one transaction; with `export`, also returns the
/// audit row as written (without the arguments), for the sink.
fn decide_and_record(
    ev: &Event,
    store: &mut Store,
    ctx: &Context<'_>,
    export: Option<&crate::export::sink::ExportConfig>,
) -> state::Result<(Decision, Option<state::AuditRow>)> {
    // Everything that needs no database runs before the write lock is taken, so concurrent
    // hooks wait less: the digest of the arguments as sent (the audit row and the approval
    // check share it), the call's facts (the view needs their origins, the checks their
    // analysis), and the whole decision of an event whose policy reads no session view.
    let digest = ev.tool.as_ref().map(policy::args_digest);
    let facts = match (ev.kind, &ev.tool) {
        (EventKind::PreTool, Some(t)) => Some(policy::Facts::of(t)),
        _ => None,
    };
    let early = (!policy::reads_view(ev.kind))
        .then(|| policy::evaluate(ev, None, &SessionView::default(), ctx));
    store.begin()?;
    let result = (|| {
        let (mut d, approval, critical) = decide(ev, digest.as_deref(), facts, early, store, ctx)?;
        let tool = ev.tool.as_ref().map(|t| t.display_name());
        // The receipt names who approved a call a person let through.
        let approver = match approval {
            Some(a) if d.reason == Reason::Approved => store.approver_of(a)?,
            _ => None,
        };
        // The verdict as the harness is told it (a rewrite Claude Code is asked about is an
        // ask in the audit, `log --decision ask` and the export).
        let answered = harness::answered_verdict(ev, &d);
        let entry = AuditEntry {
            harness: ev.harness.name(),
            session_id: &ev.session_id,
            event: &ev.event_name,
            tool: tool.as_deref(),
            verdict: answered.name(),
            reason_code: d.reason.code(),
            rules: &d.rules,
            args_digest: digest.as_deref(),
            message: &d.message,
        };
        let receipt = state::Receipt {
            critical: critical.as_deref(),
            approver: approver.as_deref(),
        };
        let written = store.record_decision_with(&entry, &receipt)?;
        let id = written.id;
        d.audit_id = Some(id);
        let stopped = matches!(answered, Verdict::Ask | Verdict::Deny);
        if stopped {
            // What `intentshield approve` and `log` show the person (masked, capped): the
            // calls that were stopped, asks and denies.
            // A value read from a secret file is known by digest only: masking cannot find
            // it, so those arguments are not kept.
            if d.reason == crate::decision::Reason::SecretValueOutbound {
                store.record_call_args(
                    id,
                    &serde_json::json!({"intentshield": "arguments not kept: they carry a value read from a secret file"}),
                )?;
            } else if let Some(t) = &ev.tool {
                store.record_call_args(id, &t.input)?;
            }
        }
        let row = export.map(|_| state::AuditRow {
            id,
            ts: written.ts,
            harness: entry.harness.into(),
            session_id: entry.session_id.into(),
            event: entry.event.into(),
            tool: tool.clone(),
            verdict: entry.verdict.into(),
            reason_code: entry.reason_code.into(),
            rules: serde_json::to_string(&d.rules).unwrap_or_else(|_| "[]".into()),
            args_digest: digest.clone(),
            message: d.message.clone(),
            // Filled in after the commit (masking is not done under the write lock).
            args: None,
            critical: critical.clone(),
            approver: approver.clone(),
            prev_hash: Some(written.prev_hash),
            row_hash: Some(written.row_hash),
            chain: None,
        });
        Ok((d, row))
    })();
    match result {
        Ok(out) => {
            store.commit()?;
            Ok(out)
        }
        Err(e) => {
            store.rollback();
            Err(e)
        }
    }
}

/// Loads the session view (which also creates or refreshes the session row), evaluates the
/// event unless `early` already holds its evaluation, uses a pending approval for an ask, and
/// applies the effects (the caller holds the transaction). Returns the decision, the id of
/// the approval it used (if any) and the call's critical values for the receipt
/// ([`critical_values`]).
fn decide(
    ev: &Event,
    digest: Option<&str>,
    facts: Option<policy::Facts>,
    early: Option<policy::Evaluation>,
    store: &Store,
    ctx: &Context<'_>,
) -> state::Result<(Decision, Option<i64>, Option<String>)> {
    let keys = facts.as_ref().map(policy::Facts::keys).unwrap_or_default();
    let mut view = effects::load_view(store, ev, &keys)?;
    // A call a contract governs: its registries and budget, read in this transaction.
    if let (EventKind::PreTool, Some(t)) = (ev.kind, &ev.tool) {
        if let Some(c) = ctx.config.contracts.find(t) {
            let set = &ctx.config.contracts;
            view.contract = Some(crate::contracts::sources::load_inputs(
                store,
                &ev.session_id,
                c,
                set,
                true,
                state::now(),
            )?);
        }
    }
    let critical = facts.as_ref().and_then(|f| critical_values(f, &view));
    let mut approval = None;
    let mut e = match early {
        Some(e) => e,
        None => policy::evaluate(ev, facts, &view, ctx),
    };
    if e.decision.verdict == Verdict::Ask {
        // A one-time approval turns exactly this call's ask into no objection.
        if let (Some(t), Some(digest)) = (&ev.tool, digest) {
            let (harness, tool) = (ev.harness.name(), t.display_name());
            let ttl = ctx.config.approval_ttl;
            if e.decision.reason == Reason::ContractSecondApproverRequired {
                // Approval level 2: two approvals of this exact call by distinct user ids.
                let rows = store.pending_approvers(harness, &ev.session_id, &tool, digest, ttl)?;
                match state::two_approvers(&rows) {
                    Some((a, b)) => {
                        e = policy::use_approval(e, a);
                        e.effects.push(crate::session::Effect::ConsumeApproval(b));
                        approval = Some(a);
                    }
                    None if !rows.is_empty() => {
                        e.decision.message = format!(
                            "{} ({} approval(s) so far, all by one person: a second person, under another user id, must approve too)",
                            e.decision.message,
                            rows.len()
                        );
                    }
                    None => {}
                }
            } else if let Some(id) =
                store.pending_approval(harness, &ev.session_id, &tool, digest, ttl)?
            {
                e = policy::use_approval(e, id);
                approval = Some(id);
            }
        }
    }
    // The threat memory learns from a flagged output, or taints one it recognizes.
    crate::threats::memory::after_output(store, ev, &mut e, ctx)?;
    // A contracted call spends its budget only when it runs.
    if e.decision.verdict != Verdict::Allow {
        e.effects
            .retain(|x| !matches!(x, crate::session::Effect::Spend(_)));
    }
    let applied = effects::apply(store, &ev.session_id, &e.effects)?;
    if e.decision.reason == Reason::Housekeeping {
        e.decision.message = format!("housekeeping ({} stale rows pruned)", applied.pruned);
    }
    Ok((e.decision, approval, critical))
}

/// Most critical values a receipt records.
const CRITICAL_MAX: usize = 16;

/// The call's critical values for its receipt: the values of its destination arguments
/// (recipients, URLs, hosts, accounts, repositories: `Facts::dest_args`), each with its kind
/// and where the session saw it (`user`, `output`, `output_injected`, `description_poisoned`,
/// `tainted_scope`; none: never seen), as JSON text with secrets masked
/// (`state::call_args_text`); at most [`CRITICAL_MAX`] values of at most 256 characters.
/// `None` when the call has no destination argument.
fn critical_values(facts: &policy::Facts, view: &SessionView) -> Option<String> {
    if facts.dest_args.is_empty() {
        return None;
    }
    let vals: Vec<Value> = facts
        .dest_args
        .iter()
        .take(CRITICAL_MAX)
        .map(|v| {
            let o = view.origins.get(&v.text).copied().unwrap_or_default();
            let origins: Vec<&str> = [
                (o.user, "user"),
                (o.output, "output"),
                (o.injected, "output_injected"),
                (o.poisoned_description, "description_poisoned"),
                (o.tainted_scope, "tainted_scope"),
            ]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect();
            let text: String = v.text.chars().take(256).collect();
            serde_json::json!({"value": text, "kind": v.kind, "origins": origins})
        })
        .collect();
    Some(state::call_args_text(&Value::Array(vals)))
}

/// Argument fields in which a shell tool is told the folder to run in (Codex `workdir`, Gemini
/// CLI `dir_path`/`directory`, Cursor's `cwd`).
const SHELL_DIR_KEYS: [&str; 4] = ["workdir", "dir_path", "directory", "cwd"];

/// Where the call runs: a shell tool's own folder argument (resolved against the event's cwd),
/// else the event's cwd. Paths the call writes are resolved from here.
fn call_dir(ev: &Event) -> Option<String> {
    let dir = ev
        .tool
        .as_ref()
        .filter(|t| t.kind == crate::event::ToolKind::Shell)
        .and_then(|t| {
            SHELL_DIR_KEYS
                .iter()
                .find_map(|k| t.input.get(*k).and_then(Value::as_str))
        })
        .filter(|d| !d.trim().is_empty());
    match dir {
        Some(d) => {
            let base = PathContext::new(ev.cwd.as_deref(), Vec::new());
            Some(base.resolve(d).to_string_lossy().into_owned())
        }
        None => ev.cwd.clone(),
    }
}

/// JSON text with every lone UTF-16 surrogate escape (`\ud800` not followed by a low
/// surrogate, or a low one alone) replaced by `\ufffd`; `None` when there is none. Node's
/// `JSON.stringify` writes such escapes for any string holding a lone surrogate, and serde_json
/// refuses them: a tool result must not become unreadable (and so untainted) by one character.
fn lone_surrogates_replaced(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let hex = |i: usize| -> Option<u32> {
        let s = text.get(i..i + 4)?;
        u32::from_str_radix(s, 16).ok()
    };
    let escape_at = |i: usize| -> Option<u32> {
        (b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u'))
            .then(|| hex(i + 2))
            .flatten()
    };
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        match escape_at(i) {
            Some(hi @ 0xD800..=0xDBFF)
                if escape_at(i + 6).is_some_and(|lo| (0xDC00..=0xDFFF).contains(&lo)) =>
            {
                let _ = hi;
                i += 12;
            }
            Some(0xD800..=0xDFFF) => {
                out.push_str(&text[last..i]);
                out.push_str("\\ufffd");
                i += 6;
                last = i;
                changed = true;
            }
            // Any other escape (`\\`, `\"`, `\n`, `\u0041`): skip it whole.
            _ => i += 2,
        }
    }
    if !changed {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// The session id an unreadable event names, found without parsing it: the first
/// `"session_id"` (or Cursor's `"conversation_id"`) string value, at most 256 bytes, without
/// escapes.
fn session_hint(input: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(&input[..input.len().min(MAX_INPUT)]);
    for key in ["\"session_id\"", "\"conversation_id\""] {
        let Some(pos) = text.find(key) else {
            continue;
        };
        let rest = text[pos + key.len()..].trim_start();
        let Some(rest) = rest.strip_prefix(':') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix('"') else {
            continue;
        };
        let id: String = rest
            .chars()
            .take_while(|c| *c != '"' && *c != '\\')
            .take(257)
            .collect();
        if !id.is_empty() && id.len() <= 256 {
            return Some(id);
        }
    }
    None
}

/// Taints the session an unreadable event names (best effort: without a session id or a
/// usable database nothing happens; the event itself has already failed closed).
fn taint_unreadable(
    harness: Harness,
    input: &[u8],
    db: Option<&Path>,
    store: Option<&mut Store>,
    why: &str,
) {
    let Some(id) = session_hint(input) else {
        return;
    };
    let reason: String = format!("an event the guard could not read ({why})")
        .chars()
        .take(300)
        .collect();
    let mut opened;
    let store = match store {
        Some(s) => s,
        None => {
            let Some(Ok(s)) = db.map(Store::open) else {
                return;
            };
            opened = s;
            &mut opened
        }
    };
    if store.begin().is_err() {
        return;
    }
    let done = store
        .touch_session(&id, harness.name(), false)
        .and_then(|_| store.taint(&id, &reason));
    match done {
        Ok(()) => {
            let _ = store.commit();
        }
        Err(_) => store.rollback(),
    }
}

/// Longest pending-taint file read back (bytes): beyond it the rest is dropped, and every
/// session it names is tainted as before.
const MAX_PENDING: u64 = 64 * 1024;

/// The pending-taint file of the database at `db` ([`paths::PENDING_TAINT`]).
fn pending_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_os_string();
    name.push(paths::PENDING_TAINT);
    PathBuf::from(name)
}

/// Appends `harness session` to the pending-taint file beside the database (best effort:
/// created owner-only, capped at [`MAX_PENDING`]; the id is cut to 256 chars without control
/// characters).
fn note_pending_taint(db: &Path, harness: &str, session: &str) {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let path = pending_path(db);
    if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_PENDING) {
        return;
    }
    let id: String = session
        .chars()
        .filter(|c| !c.is_control())
        .take(256)
        .collect();
    if id.is_empty() {
        return;
    }
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&path)
    {
        let _ = writeln!(f, "{harness} {id}");
    }
}

/// Taints the sessions the pending-taint file beside `db` names (tool outputs that arrived
/// while the database could not be written), then removes the file. One `stat` when there is
/// none.
///
/// # Errors
///
/// A database error while tainting (the file is then kept for the next event).
fn fold_pending_taint(store: &mut Store, db: &Path) -> state::Result<()> {
    use std::io::Read;
    let path = pending_path(db);
    let Ok(f) = std::fs::File::open(&path) else {
        return Ok(());
    };
    let mut text = String::new();
    // An unreadable or non-UTF-8 file names no session it could be trusted to name; it is
    // still removed below only after a successful commit.
    let _ = f.take(MAX_PENDING).read_to_string(&mut text);
    store.begin()?;
    let done = (|| {
        for line in text.lines().filter(|l| !l.is_empty()).take(4096) {
            let (harness, id) = line.split_once(' ').unwrap_or(("unknown", line));
            store.touch_session(id, harness, false)?;
            store.taint(
                id,
                "a tool output arrived while the database could not be written; it was not checked",
            )?;
        }
        Ok(())
    })();
    match done {
        Ok(()) => {
            store.commit()?;
            let _ = std::fs::remove_file(&path);
            Ok(())
        }
        Err(e) => {
            store.rollback();
            Err(e)
        }
    }
}

/// The fail-closed outcome for an error.
pub fn fail(harness: Option<Harness>, event_name: Option<&str>, msg: &str) -> Outcome {
    let decision = Decision::error(msg);
    let rendered = match harness {
        Some(h) => harness::render_error(h, event_name, msg),
        // Unknown harness: exit 2 with the reason on stderr blocks in all four (Cursor treats
        // exit 2 on a permission event as a deny).
        None => harness::exit2_error(false, msg),
    };
    Outcome {
        event: None,
        decision,
        rendered,
    }
}

/// Appends one line to `errors.log` beside the database (best effort, capped at 1 MiB).
pub fn log_error(db: Option<&Path>, msg: &str) {
    use std::io::Write;
    let Some(dir) = db.and_then(Path::parent) else {
        return;
    };
    let path = dir.join("errors.log");
    if std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) > 1024 * 1024 {
        let _ = std::fs::rename(&path, dir.join("errors.log.1"));
    }
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        let _ = writeln!(f, "{} {}", state::now(), msg.replace('\n', " "));
    }
}

/// Reads stdin up to [`MAX_INPUT`] + 1 bytes (so an oversized event is detected, not cut).
///
/// # Errors
///
/// The I/O error of reading stdin (the hook then fails closed).
pub fn read_stdin() -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(8192);
    std::io::stdin()
        .lock()
        .take(MAX_INPUT as u64 + 1)
        .read_to_end(&mut buf)?;
    Ok(buf)
}
