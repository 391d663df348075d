//! What the policy knows about a session, and what a decision changes in it: plain data shared
//! by the pure policy (which reads a [`SessionView`] and returns [`Effect`]s) and the state
//! layer (which stores them). Neither side imports the other; `crate::effects` loads views and
//! applies effects.

use std::collections::HashMap;

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
    /// fifty).
    pub prompts: Vec<String>,
    /// The origins of the values this call carries (keys: [`crate::policy::Facts::keys`]).
    /// A value absent from the map was never seen.
    pub origins: HashMap<String, Origins>,
    /// Resources first reached after the session was tainted (newest first, at most 50); only
    /// loaded for a tainted session.
    pub tainted_scopes: Vec<String>,
    /// Files earlier shell calls of the session wrote secret data into or downloaded into
    /// (newest first, at most `crate::effects::SESSION_FILES`); loaded for shell calls.
    pub files: Vec<SessionFile>,
    /// What the check of a call a contract governs needs (registries, budget spent); `None`
    /// when no contract governs the call or nothing was loaded (the check then fails closed).
    pub contract: Option<crate::contracts::sources::Inputs>,
    /// Threat-memory indicators among the call's values (`crate::threats::memory::hits`);
    /// loaded before a tool runs.
    pub threats: Vec<crate::threats::ThreatHit>,
    /// SHA-256 digests (hex) of values the session read from secret files, with the call that
    /// read them (newest first, at most `crate::effects::SECRET_DIGESTS`); loaded for calls
    /// that can reach the network. See `crate::policy::secret_values`.
    pub secret_digests: Vec<(String, String)>,
    /// Keyed digests of folded windows of those values (`w` and 63 hex characters), with their
    /// sources (newest first, at most `crate::effects::SECRET_WINDOWS`), and the database's
    /// window key; loaded with [`SessionView::secret_digests`].
    pub secret_windows: Vec<(String, String)>,
    /// The database's key for window digests (`crate::state::Store::secret_window_key`);
    /// `None` when none was made yet (then no window digest exists either).
    pub secret_window_key: Option<Vec<u8>>,
    /// Values among the call's argument keys (`crate::policy::echo::arg_keys`) that a
    /// sentence of an exposed output asked for, with what asked; loaded for state-changing
    /// MCP and other named tools of a session that has any.
    pub instructed: Vec<InstructedSeen>,
}

/// A value an exposed output's sentence asked for (`crate::policy::echo`), as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstructedSeen {
    /// The normalised value.
    pub value: String,
    /// Its kind (`crate::policy::echo::kind`), as stored.
    pub kind: String,
    /// The action families of the sentence (`crate::policy::echo::family` bits).
    pub families: u16,
    /// The tool whose output held the sentence.
    pub source: String,
}

/// Folded windows of secret values (`crate::policy::secret_values::value_windows`), held in
/// memory only until they are stored as keyed digests; `Debug` shows only how many there are.
#[derive(Clone, PartialEq, Default)]
pub struct SecretWindows(pub Vec<Vec<u8>>);

impl std::fmt::Debug for SecretWindows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SecretWindows({} windows)", self.0.len())
    }
}

/// A file an earlier call of the session left behind that matters later: one holding secret
/// data (uploading it is secret egress) or a download (running it is running unseen code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFile {
    /// The absolute path, resolved as the call that wrote it saw it (`~`, cwd, `..`).
    pub path: String,
    /// What it holds.
    pub kind: FileKind,
    /// The call that wrote it (its command, cut to 200 bytes), for the evidence.
    pub source: String,
}

/// What a [`SessionFile`] holds. Stored as text in `session_files.kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// Secret data (a key, credentials, an environment file or dump, an archive of them).
    Secret,
    /// Something downloaded from the network.
    Download,
    /// A git remote this session set (`git remote add`, `set-url`, `git config remote.X.url`):
    /// the path is `git-remote:NAME` (`git-remote:*` when the session wrote a repository's
    /// `.git/config` or an `insteadOf` rewrite, so no remote there is known to be the user's),
    /// the source the URL as the call wrote it (`?` when computed at run time).
    Remote,
}

impl FileKind {
    /// The stored text.
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Secret => "secret",
            FileKind::Download => "download",
            FileKind::Remote => "remote",
        }
    }

    /// Parses the stored text; `None` for anything else.
    pub fn from_name(s: &str) -> Option<FileKind> {
        match s {
            "secret" => Some(FileKind::Secret),
            "download" => Some(FileKind::Download),
            "remote" => Some(FileKind::Remote),
            _ => None,
        }
    }
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
    /// Mark the session exposed: it read content from outside the user's trust boundary (the
    /// text names the tool and the source; the first is kept). See
    /// `crate::policy::check::exposure`.
    Expose(String),
    /// Remember files a call wrote secret data or a download into. The policy returns it only
    /// for a call that may run (allowed or asked); see `crate::policy::check::secrets`.
    RecordFiles(Vec<SessionFile>),
    /// Remember the SHA-256 digests (hex) of values read from a secret file; `source` names the
    /// call that read them (tool and file). See `crate::policy::secret_values`.
    RecordSecretDigests {
        /// Lower-case hex SHA-256 digests.
        digests: Vec<String>,
        /// The values' folded windows, stored as keyed digests under the database's key
        /// (`crate::policy::secret_values::value_windows`).
        windows: SecretWindows,
        /// The reading call, for the evidence.
        source: String,
    },
    /// Use up the one-time approval given for audit row `decision_id`.
    ConsumeApproval(i64),
    /// Record a contracted call's spending of its budget. Applied only when the final answer
    /// is allow (the hook drops it from an ask or deny: an asked call spends once approved).
    Spend(crate::contracts::budget::Spend),
    /// Drop stale sessions, values, approvals and audit rows (session start and end).
    Prune,
    /// Truncate the write-ahead log (session end; best effort).
    Checkpoint,
}

/// Where a value was seen. Stored as text in `prov_values.origin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The user's own prompt.
    User,
    /// A tool output with no injection found.
    Output,
    /// A tool output flagged as injected.
    OutputInjected,
    /// A tool description flagged as poisoned (written by the MCP catalog, session `*`).
    DescriptionPoisoned,
    /// A resource named for the first time by the agent in a tainted session.
    TaintedScope,
    /// A value inside a sentence of an exposed tool output that tells its reader to do
    /// something (`crate::policy::echo`); the row's `source` is `families;tool`.
    Instructed,
}

impl Origin {
    /// The stored text.
    pub fn name(self) -> &'static str {
        match self {
            Origin::User => "user",
            Origin::Output => "output",
            Origin::OutputInjected => "output_injected",
            Origin::DescriptionPoisoned => "description_poisoned",
            Origin::TaintedScope => "tainted_scope",
            Origin::Instructed => "instructed",
        }
    }

    /// Parses the stored text; `None` for anything else.
    pub fn from_name(s: &str) -> Option<Origin> {
        Some(match s {
            "user" => Origin::User,
            "output" => Origin::Output,
            "output_injected" => Origin::OutputInjected,
            "description_poisoned" => Origin::DescriptionPoisoned,
            "tainted_scope" => Origin::TaintedScope,
            "instructed" => Origin::Instructed,
            _ => return None,
        })
    }
}

/// The set of origins of one value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Origins {
    /// Seen in a user prompt.
    pub user: bool,
    /// Seen in a clean tool output.
    pub output: bool,
    /// Seen in an injected tool output.
    pub injected: bool,
    /// Seen in a poisoned tool description.
    pub poisoned_description: bool,
    /// First named by the agent in a tainted session.
    pub tainted_scope: bool,
    /// Asked for by a sentence of an exposed output (`crate::policy::echo`).
    pub instructed: bool,
}

impl Origins {
    /// Adds one origin to the set.
    pub fn add(&mut self, o: Origin) {
        match o {
            Origin::User => self.user = true,
            Origin::Output => self.output = true,
            Origin::OutputInjected => self.injected = true,
            Origin::DescriptionPoisoned => self.poisoned_description = true,
            Origin::TaintedScope => self.tainted_scope = true,
            Origin::Instructed => self.instructed = true,
        }
    }
}

/// A session's taint and exposure.
#[derive(Debug, Clone, Default)]
pub struct SessionState {
    /// True once a tool result carried injected instructions.
    pub tainted: bool,
    /// Why (rule ids and tool).
    pub taint_reason: Option<String>,
    /// True once the session read content from outside the user's trust boundary (a web page,
    /// an issue or comment body, mail, chat, an untrusted MCP server, `curl` output, a
    /// downloaded file), flagged or not. Taint is the stronger state: a tainted session counts
    /// as exposed too ([`SessionState::is_exposed`]).
    pub exposed: bool,
    /// What exposed it first: the tool and the source (`WebFetch: https://example.com/x`).
    pub exposed_by: Option<String>,
}

impl SessionState {
    /// True when the session is exposed or tainted (taint implies exposure).
    pub fn is_exposed(&self) -> bool {
        self.exposed || self.tainted
    }
}

/// The operator's and the proxy's knowledge of one MCP tool.
#[derive(Debug, Clone, Default)]
pub struct CatalogTool {
    /// Operator's decision: `Some(true)` read-only, `Some(false)` state-changing.
    pub read_only: Option<bool>,
    /// Quarantined by the proxy (poisoned, drifted, shadowing).
    pub quarantined: bool,
    /// Why it was quarantined.
    pub quarantine_reason: Option<String>,
    /// The tool's description as last listed.
    pub description: Option<String>,
    /// The tool's input schema (JSON text) as last listed.
    pub input_schema: Option<String>,
}
