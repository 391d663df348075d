//! What the policy knows about a session, and what a decision changes in it: plain data shared
//! by the pure policy (which reads a [`SessionView`] and returns [`Effect`]s) and the state
//! layer (which stores them). Neither side imports the other; `crate::effects` loads views and
//! applies effects.

use std::collections::HashMap;

pub use crate::state::{CatalogTool, Origin, Origins, SessionState};

/// Everything the policy may know about the session besides the event itself, loaded in one
/// step before a decision (`crate::effects::load_view`).
#[derive(Debug, Clone, Default)]
pub struct SessionView {
    /// The session's taint (a tool result carried injected instructions).
    pub session: SessionState,
    /// The MCP catalog's entry for the event's MCP tool, if the proxy listed it.
    pub catalog: Option<CatalogTool>,
    /// True when the caller knows the server's complete tool list (the MCP proxy): a tool with no
    /// catalog entry was never listed and is refused. The hook leaves it false (without the proxy
    /// there is no catalog at all).
    pub catalog_complete: bool,
    /// The user's prompts in this session, normalized (newest first, at most
    /// `crate::state::PROMPTS_PER_SESSION`).
    pub prompts: Vec<String>,
    /// The origins of the values this call carries (keys: [`crate::policy::Facts::keys`]).
    /// A value absent from the map was never seen.
    pub origins: HashMap<String, Origins>,
    /// Resources first reached after the session was tainted (newest first, at most 50); only
    /// loaded for a tainted session.
    pub tainted_scopes: Vec<String>,
}

impl SessionView {
    /// The origins of one value (all false when it was never seen).
    pub fn origin(&self, value: &str) -> Origins {
        self.origins.get(value).copied().unwrap_or_default()
    }
}

/// One change to the session that a decision makes. The policy returns them; the hook (or the
/// proxy) applies them all in the transaction that records the decision.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Remember a user prompt (normalized text).
    RecordPrompt(String),
    /// Remember values with one origin; `source` names where they were seen (a tool, `prompt`).
    RecordValues {
        /// `(value, kind)` pairs, kinds from `crate::provenance::kind`.
        values: Vec<(String, &'static str)>,
        /// Where they came from.
        origin: Origin,
        /// The tool or `prompt`.
        source: String,
    },
    /// Mark the session tainted (the first reason is kept).
    Taint(String),
    /// Use up the one-time approval given for audit row `decision_id`.
    ConsumeApproval(i64),
    /// Drop stale sessions, values, approvals and audit rows (session start and end).
    Prune,
    /// Truncate the write-ahead log (session end; best effort).
    Checkpoint,
}
