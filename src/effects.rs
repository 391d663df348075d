//! Between the pure policy and the database: loads the [`SessionView`] a decision needs in one
//! step, and applies the [`Effect`]s it returns. The caller holds the transaction, so a view,
//! its decision, the effects and the audit row commit together or not at all.

use crate::event::{Event, EventKind, Tool};
use crate::session::{Effect, Origin, SessionView};
use crate::state::{Result, Store};

/// Slack for clocks and file-system timestamps when comparing a transcript's birth with the
/// database's (seconds).
const BIRTH_SLACK: i64 = 5;

/// True when `ev` is a prompt whose conversation's transcript file was created before this
/// database was: the session began before the database, which cannot know what it read (a
/// database repaired, replaced or moved by `INTENTSHIELD_DB` mid-conversation). False when
/// either time is unknown (no transcript path, a file system without birth times, a database
/// migrated from schema 1). One `statx` and one query, on prompt events only.
///
/// # Errors
/// A database error reading the creation time.
fn began_before(store: &Store, ev: &Event) -> Result<bool> {
    let Some(path) = ev
        .transcript
        .as_deref()
        .filter(|_| ev.kind == EventKind::PromptSubmit)
    else {
        return Ok(false);
    };
    let born = std::fs::metadata(path)
        .and_then(|m| m.created())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_secs()).ok());
    let Some(born) = born else {
        return Ok(false);
    };
    Ok(store
        .created_at()?
        .is_some_and(|db| born + BIRTH_SLACK < db))
}

/// Resources first reached after the taint that the toxic-flow check compares (newest first).
pub const TAINTED_SCOPES: i64 = 50;

/// Files written with secret data or downloaded that a shell call's view holds (newest first).
pub const SESSION_FILES: i64 = 200;

/// Digests of values read from secret files that a call's view holds (newest first).
pub const SECRET_DIGESTS: i64 = 2000;

/// Window digests of values read from secret files that a call's view holds (newest first):
/// [`crate::policy::secret_values::MAX_WINDOWS_PER_VALUE`] for 64 values.
pub const SECRET_WINDOWS: i64 = 4096;

/// Loads what the policy needs to decide `ev`: creates or refreshes the session row (every
/// event but [`EventKind::Other`] and a pre-tool event without a tool; a row first created by
/// an event that is no session start, [`Event::starts_session`], is tainted: see
/// `Store::touch_session`), and for a pre-tool
/// event reads the catalog entry of its MCP tool, the session's prompts, the origins of `keys`
/// (the call's values, `crate::policy::Facts::keys`) and, in a tainted session, the resources
/// first reached after the taint.
///
/// # Errors
/// Database errors (locked, corrupt, read-only); the caller fails closed.
pub fn load_view(store: &Store, ev: &Event, keys: &[String]) -> Result<SessionView> {
    let mut view = SessionView::default();
    match ev.kind {
        EventKind::Other => return Ok(view),
        EventKind::PreTool if ev.tool.is_none() => return Ok(view),
        _ => {}
    }
    let start = ev.starts_session() && !began_before(store, ev)?;
    view.session = store.touch_session(&ev.session_id, ev.harness.name(), start)?;
    if ev.kind != EventKind::PreTool {
        return Ok(view);
    }
    fill_call_view(store, &ev.session_id, ev.tool.as_ref(), keys, &mut view)?;
    Ok(view)
}

/// Loads the view of a tool call for a session already read into `view.session`: the catalog
/// entry of the MCP tool, the session's prompts, the origins of `keys` and, when tainted, the
/// resources first reached after the taint. Reads only.
///
/// # Errors
/// Database errors.
pub fn fill_call_view(
    store: &Store,
    session: &str,
    tool: Option<&Tool>,
    keys: &[String],
    view: &mut SessionView,
) -> Result<()> {
    if let Some(m) = tool.and_then(|t| t.mcp.as_ref()) {
        view.catalog = store.catalog_tool(&m.server, &m.tool)?;
    }
    view.prompts = store.prompts(session)?;
    view.origins = store.origins(session, keys)?;
    view.threats = crate::threats::memory::hits(store, keys)?;
    // Shell calls (uploads and runs of remembered files) and file reads (a downloaded file
    // read exposes the session, `crate::policy::check::exposure`).
    if tool.is_some_and(|t| {
        matches!(
            t.kind,
            crate::event::ToolKind::Shell | crate::event::ToolKind::FileRead
        )
    }) {
        view.files = store.session_files(session, SESSION_FILES)?;
    }
    // Calls that can reach the network compare their arguments with values read from secret
    // files (`crate::policy::check::secrets`).
    if tool.is_some_and(|t| {
        !matches!(
            t.kind,
            crate::event::ToolKind::FileRead | crate::event::ToolKind::FileWrite
        )
    }) {
        view.secret_digests = store.secret_digests(session, SECRET_DIGESTS)?;
        if !view.secret_digests.is_empty() {
            view.secret_windows = store.secret_windows(session, SECRET_WINDOWS)?;
            if !view.secret_windows.is_empty() {
                view.secret_window_key = store.secret_window_key(false)?;
            }
        }
    }
    // State-changing named tools: the values exposed outputs' sentences asked for
    // (`crate::policy::check::echo`).
    if let Some(t) = tool.filter(|t| crate::policy::check::echo::applies_to(t)) {
        if store.has_instructed(session)? {
            let keys: Vec<String> = crate::policy::echo::arg_keys(&t.input)
                .into_iter()
                .map(|a| a.key)
                .collect();
            view.instructed = store.instructed(session, &keys)?;
        }
    }
    if view.session.tainted {
        view.tainted_scopes =
            store.values_with_origin(session, Origin::TaintedScope, TAINTED_SCOPES)?;
    }
    Ok(())
}

/// What applying the effects found out (for the decision's message).
#[derive(Debug, Clone, Copy, Default)]
pub struct Applied {
    /// Rows removed by [`Effect::Prune`].
    pub pruned: usize,
}

/// Applies `effects` to session `session` of harness `harness`, in order.
///
/// # Errors
/// Database errors; [`Effect::Checkpoint`] is best effort and never fails.
pub fn apply(store: &Store, session: &str, effects: &[Effect]) -> Result<Applied> {
    let mut out = Applied::default();
    for e in effects {
        match e {
            Effect::RecordPrompt(text) => store.record_prompt(session, text)?,
            Effect::RecordValues {
                values,
                origin,
                source,
            } => store.record_values(session, values, *origin, source)?,
            Effect::Taint(reason) => store.taint(session, reason)?,
            Effect::Expose(source) => store.expose(session, source)?,
            Effect::RecordFiles(files) => store.record_files(session, files)?,
            Effect::RecordSecretDigests {
                digests,
                windows,
                source,
            } => {
                store.record_secret_digests(session, digests, source)?;
                if !windows.0.is_empty() {
                    if let Some(key) = store.secret_window_key(true)? {
                        let m = crate::policy::secret_values::WindowMatcher::new(&key);
                        let d: Vec<String> = windows.0.iter().map(|w| m.digest(w)).collect();
                        store.record_secret_digests(session, &d, source)?;
                    }
                }
            }
            Effect::ConsumeApproval(id) => store.consume_approval(*id)?,
            Effect::Spend(s) => store.record_spend(session, s)?,
            Effect::Prune => out.pruned += store.prune()? + store.prune_contract_spend()?,
            Effect::Checkpoint => {
                // Best effort; a busy checkpoint is retried later.
                let _ = store.checkpoint();
            }
        }
    }
    Ok(out)
}
