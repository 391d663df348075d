//! Every environment variable IntentShield reads, by name, with who reads it and what it may
//! change. Read them through these constants and helpers, never by a string literal.
//!
//! Precedence everywhere: a command-line flag, then the variable, then the default. A variable
//! set to the empty string counts as unset, except where a reader says otherwise.
//!
//! The `directories` crate also reads the platform's own variables (`HOME`, `XDG_DATA_HOME`,
//! `XDG_CONFIG_HOME` on Linux) for the default database and config locations; we do not read
//! those ourselves.

use std::path::PathBuf;

/// `INTENTSHIELD_DB`: the SQLite database file (taint, provenance, audit, approvals, the MCP
/// catalog). Read through [`db_override`] by `state::default_db_path` (the hook, `log`,
/// `approve`, `mcp`, `mcp-proxy`) and by `doctor`; `--db` wins over it. Changes which session
/// state every decision sees. `demo` and the install probes set it for the hooks they spawn.
pub const DB: &str = "INTENTSHIELD_DB";

/// `INTENTSHIELD_CONFIG`: the config file. Read by `config::config_path` and `config::load`
/// (hook, `check`, `replay`, `mcp-proxy`); `--config` wins over it. When set (even empty) a
/// missing file is an error rather than "no config".
pub const CONFIG: &str = "INTENTSHIELD_CONFIG";

/// `INTENTSHIELD_REVIEW`: `always`, `tainted` or `never`; when calls are sent to the user for
/// review. Read by `config::load`; overrides the config file, `--review` overrides it.
pub const REVIEW: &str = "INTENTSHIELD_REVIEW";

/// `INTENTSHIELD_OUTPUTS`: `warn` or `block`; what happens to a tool output that carries an
/// injection. Read by `config::load`; overrides the config file, `--outputs` overrides it.
pub const OUTPUTS: &str = "INTENTSHIELD_OUTPUTS";

/// `INTENTSHIELD_GEMINI_ASK`: `deny` or `ask`; what an "ask" becomes on Gemini CLI. Read by
/// `config::load`; overrides the config file, `--gemini-ask` overrides it.
pub const GEMINI_ASK: &str = "INTENTSHIELD_GEMINI_ASK";

/// `INTENTSHIELD_APPROVAL_TTL`: whole seconds (10..=86400) an approval given with
/// `intentshield approve` lasts. Read by `config::load` (the hook, `approve`); it can only
/// shorten the config file's `approval_ttl` (default 300 s), never lengthen it: an agent that
/// got a variable exported (a shell start-up file) must not gain from it. An invalid value is
/// an error like any other setting (the hook fails closed).
pub const APPROVAL_TTL: &str = "INTENTSHIELD_APPROVAL_TTL";

/// `CODEX_HOME`: Codex CLI's configuration directory (default `~/.codex`). Read by
/// `install::Env::from_process` (install, uninstall, doctor); changes which `hooks.json` and
/// `config.toml` they edit or check.
pub const CODEX_HOME: &str = "CODEX_HOME";

/// `HOME`: the user's home directory. Read by `paths::PathContext::new` to expand `~` and
/// `$HOME` in the paths of tool calls (protected-path checks).
pub const HOME: &str = "HOME";

/// `XDG_CONFIG_HOME`: moves the platform config folder, and with it the default config file.
/// A value other than `~/.config` makes that file as untrusted as one named by [`CONFIG`]
/// (`config::load`: it may only tighten the settings).
pub const XDG_CONFIG_HOME: &str = "XDG_CONFIG_HOME";

/// True when [`XDG_CONFIG_HOME`] points the default config file somewhere other than
/// `$HOME/.config`.
pub fn config_home_is_steered() -> bool {
    match (path(XDG_CONFIG_HOME), path(HOME)) {
        (Some(x), Some(h)) => x != h.join(".config"),
        (Some(_), None) => true,
        _ => false,
    }
}

/// `PATH`: searched by `install` for the harness programs (`claude`, `codex`, `cursor`,
/// `cursor-agent`, `gemini`) when no harness is named; changes which harnesses are installed
/// for by default. The hook searches it for copies of its own binary run under another name.
pub const PATH: &str = "PATH";

/// The value of `name` when set, valid UTF-8 and not empty.
pub fn text(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The value of `name` as a path when set and not empty.
pub fn path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// [`DB`] when set and not empty: the database every command uses unless `--db` names one.
pub fn db_override() -> Option<PathBuf> {
    path(DB)
}

/// [`CONFIG`] when set and not empty: the config file unless `--config` names one.
pub fn config_override() -> Option<PathBuf> {
    path(CONFIG)
}

/// Whether [`CONFIG`] is set at all (even empty): then a missing config file is an error.
pub fn config_is_set() -> bool {
    std::env::var_os(CONFIG).is_some()
}

/// The effective user id of this process (`geteuid(2)`, through rustix), on every Unix
/// including macOS (which has no `/proc/self`); `None` elsewhere.
pub fn current_uid() -> Option<u32> {
    #[cfg(unix)]
    {
        Some(rustix::process::geteuid().as_raw())
    }
    #[cfg(not(unix))]
    {
        None
    }
}
