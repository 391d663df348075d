//! Operator settings: review mode, what to do with injected outputs, Gemini CLI's "ask",
//! read-only tools, the database path, how long an approval lasts.
//!
//! Precedence: command-line flag, then environment (`INTENTSHIELD_REVIEW`,
//! `INTENTSHIELD_OUTPUTS`, `INTENTSHIELD_GEMINI_ASK`, `INTENTSHIELD_DB`), then the config file
//! (`$INTENTSHIELD_CONFIG`, else `config.toml` in the platform config directory; see
//! `configs/intentshield.toml`), then defaults. An invalid value from any source is an error
//! at start: the hook then fails closed.
//!
//! Settings that weaken protection (`review = never`, `outputs = warn`, `gemini_ask = ask`,
//! `read_only_tools`, the `[allow]` table) count only from the flags on the harness's own hook
//! command and from the
//! config file at its default path or named by `--config`: those files are protected from the
//! agent. The environment can only make the guard stricter: an agent that got a variable
//! exported (through a shell start-up file, say) must not gain from it. So an environment
//! value, and a config file named by `$INTENTSHIELD_CONFIG`, apply only where they are
//! stricter than what the protected sources say (`read_only_tools` from such a file is
//! ignored). The database path may come from the environment: a session the database has not
//! seen start is treated as tainted. Likewise `INTENTSHIELD_APPROVAL_TTL` can only shorten
//! `approval_ttl`.

use crate::env;
use std::path::PathBuf;

/// How an "ask" is delivered where the harness cannot ask reliably. Ordered from least to
/// most strict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AskMode {
    /// Use the harness's own ask (Gemini CLI `decision:"ask"`: interactive sessions only).
    Ask,
    /// Deny, with a reason that tells the user how to approve once (`intentshield approve`).
    Deny,
}

/// When state-changing calls need a person's confirmation. Ordered from least to most strict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Review {
    /// Never ask for taint alone (provenance and built-in rules still apply).
    Never,
    /// State-changing calls ask once the session is tainted (default).
    Tainted,
    /// Every state-changing call asks.
    Always,
}

/// What happens to a tool result that carries injected instructions. Ordered from least to
/// most strict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outputs {
    /// Admit it, taint the session, and tell the model it is data (default).
    Warn,
    /// Replace it with a notice where the harness allows (and taint the session).
    Block,
}

/// The settings in force for one invocation.
#[derive(Debug, Clone)]
pub struct Config {
    /// `--review`.
    pub review: Review,
    /// `--outputs`.
    pub outputs: Outputs,
    /// `--gemini-ask`.
    pub gemini_ask: AskMode,
    /// Tools the operator declares read-only: `server/tool` names or built-in names, with `*`
    /// as a wildcard (`github/get_*`).
    pub read_only_tools: Vec<String>,
    /// Database file; `None` means the default location.
    pub db: Option<PathBuf>,
    /// How long an approval given with `intentshield approve` lasts, and how long after its ask
    /// a call can still be approved (seconds, [`APPROVAL_TTL_MIN`]..=[`APPROVAL_TTL_MAX`]):
    /// the config file's `approval_ttl`, shortened by `INTENTSHIELD_APPROVAL_TTL`, default
    /// [`APPROVAL_TTL_DEFAULT`].
    pub approval_ttl: i64,
    /// The `[allow]` table: hosts, command prefixes and paths the provenance, taint and review
    /// checks do not ask about (`policy::check::allow`). A weakening setting: it counts only
    /// from the protected config file (default path or `--config`), never from a file named by
    /// `$INTENTSHIELD_CONFIG`.
    pub allow: crate::policy::check::allow::AllowList,
    /// The `[exposure]` table: MCP servers and hosts whose content does not expose a session
    /// (`policy::check::exposure`). Weakening, like `[allow]`: only from the protected file.
    pub exposure: crate::policy::check::exposure::Trust,
    /// `[[trusted_destinations]]`: destinations the user keeps, which critical tools may send
    /// to and the destination rules do not ask about (`policy::trusted`). A weakening setting,
    /// from the protected config file only (like `allow`).
    pub trusted_destinations: Vec<crate::policy::trusted::TrustedDestination>,
    /// `[[contracts]]`, `[registries]` and the files named by `contracts_files`: contracts
    /// for critical arguments (`crate::contracts`). Weakening for the tools they govern (their
    /// decision replaces the later checks'): only from the protected config file, like `[allow]`.
    pub contracts: crate::contracts::Contracts,
    /// The `[export]` table: the file the hook appends one line per decision to
    /// (`export::sink`). Only from the protected config file (default path or `--config`):
    /// a file named by `$INTENTSHIELD_CONFIG` must not make the hook append to a path of its
    /// choosing.
    pub export: Option<crate::export::sink::ExportConfig>,
    /// The config file that was read, if any.
    pub file: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            review: Review::Tainted,
            outputs: Outputs::Warn,
            gemini_ask: AskMode::Deny,
            read_only_tools: Vec::new(),
            db: None,
            approval_ttl: APPROVAL_TTL_DEFAULT,
            allow: Default::default(),
            exposure: Default::default(),
            trusted_destinations: Vec::new(),
            contracts: Default::default(),
            export: None,
            file: None,
        }
    }
}

/// Default lifetime of an approval (seconds): 5 minutes.
pub const APPROVAL_TTL_DEFAULT: i64 = 300;
/// Shortest `approval_ttl` accepted (seconds).
pub const APPROVAL_TTL_MIN: i64 = 10;
/// Longest `approval_ttl` accepted (seconds): 24 hours (unused approvals are pruned after a day).
pub const APPROVAL_TTL_MAX: i64 = 24 * 3600;

/// Checks an approval lifetime in seconds against [`APPROVAL_TTL_MIN`]..=[`APPROVAL_TTL_MAX`].
///
/// # Errors
///
/// Out of range: `invalid approval_ttl <n>: expected whole seconds from 10 to 86400`.
pub fn check_approval_ttl(secs: i64) -> Result<i64, String> {
    if (APPROVAL_TTL_MIN..=APPROVAL_TTL_MAX).contains(&secs) {
        Ok(secs)
    } else {
        Err(format!(
            "invalid approval_ttl {secs}: expected whole seconds from {APPROVAL_TTL_MIN} to {APPROVAL_TTL_MAX}"
        ))
    }
}

/// Parses an approval lifetime given as text (the environment's form): whole seconds,
/// checked by [`check_approval_ttl`].
///
/// # Errors
///
/// Not a whole number: `invalid approval_ttl '<s>': expected whole seconds from 10 to 86400`;
/// out of range: as [`check_approval_ttl`].
pub fn parse_approval_ttl(s: &str) -> Result<i64, String> {
    let n: i64 = s.trim().parse().map_err(|_| {
        format!(
            "invalid approval_ttl '{s}': expected whole seconds from {APPROVAL_TTL_MIN} to {APPROVAL_TTL_MAX}"
        )
    })?;
    check_approval_ttl(n)
}

/// Parses `always|tainted|never`.
///
/// # Errors
///
/// Any other text: `invalid review mode '<s>': expected always, tainted or never`.
pub fn parse_review(s: &str) -> Result<Review, String> {
    match s {
        "always" => Ok(Review::Always),
        "tainted" => Ok(Review::Tainted),
        "never" => Ok(Review::Never),
        _ => Err(format!(
            "invalid review mode '{s}': expected always, tainted or never"
        )),
    }
}

/// Parses `warn|block`.
///
/// # Errors
///
/// Any other text: `invalid outputs mode '<s>': expected warn or block`.
pub fn parse_outputs(s: &str) -> Result<Outputs, String> {
    match s {
        "warn" => Ok(Outputs::Warn),
        "block" => Ok(Outputs::Block),
        _ => Err(format!(
            "invalid outputs mode '{s}': expected warn or block"
        )),
    }
}

/// Parses `deny|ask`.
///
/// # Errors
///
/// Any other text: `invalid gemini-ask mode '<s>': expected deny or ask`.
pub fn parse_ask(s: &str) -> Result<AskMode, String> {
    match s {
        "deny" => Ok(AskMode::Deny),
        "ask" => Ok(AskMode::Ask),
        _ => Err(format!(
            "invalid gemini-ask mode '{s}': expected deny or ask"
        )),
    }
}

/// Command-line values (already split out by the CLI); `None` when not given.
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// `--review`.
    pub review: Option<String>,
    /// `--outputs`.
    pub outputs: Option<String>,
    /// `--gemini-ask`.
    pub gemini_ask: Option<String>,
    /// `--db`.
    pub db: Option<PathBuf>,
    /// `--config`.
    pub config: Option<PathBuf>,
}

/// The config file's path: `--config`, `$INTENTSHIELD_CONFIG`, or the platform default.
pub fn config_path(flag: Option<&PathBuf>) -> Option<PathBuf> {
    if let Some(p) = flag {
        return Some(p.clone());
    }
    if let Some(p) = env::config_override() {
        return Some(p);
    }
    default_config_path()
}

/// The platform's default config file (`~/.config/intentshield/config.toml` on Linux), whose
/// settings count in full whatever `--config` or the environment name: it is protected
/// whenever it can be found.
pub fn default_config_path() -> Option<PathBuf> {
    // Looked up once per process: the hook asks for it twice (settings, protected files).
    static DEFAULT: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    DEFAULT
        .get_or_init(|| {
            directories::ProjectDirs::from("", "", "intentshield")
                .map(|d| d.config_dir().join("config.toml"))
        })
        .clone()
}

/// Loads the settings.
///
/// # Errors
///
/// A message naming the source of the bad value: `cannot read config <path>: <e>` (a missing
/// file is an error only when `--config` or `$INTENTSHIELD_CONFIG` named it); `<path>: <e>`
/// for a config file over 1 MiB, not valid TOML, with a key not in [`KNOWN_KEYS`] (see
/// [`check_known_keys`]), with an invalid `review`, `outputs` or
/// `gemini_ask`, or a `read_only_tools` that is not an array of strings;
/// `INTENTSHIELD_REVIEW: <e>` (likewise `INTENTSHIELD_OUTPUTS`, `INTENTSHIELD_GEMINI_ASK`) or
/// `--review: <e>` (likewise `--outputs`, `--gemini-ask`) for an invalid mode, `<e>` being the
/// message of [`parse_review`], [`parse_outputs`] or [`parse_ask`];
/// `INTENTSHIELD_APPROVAL_TTL: <e>` for a lifetime [`parse_approval_ttl`] refuses (the config
/// file's `approval_ttl` is reported as `<path>: <e>`).
pub fn load(flags: &Flags) -> Result<Config, String> {
    let mut cfg = Config::default();
    // A file named only by the environment (or moved there by `XDG_CONFIG_HOME`) is not
    // protected: it may only tighten.
    let from_env =
        flags.config.is_none() && (env::config_is_set() || env::config_home_is_steered());
    let explicit = flags.config.is_some() || env::config_is_set();
    if let Some(path) = config_path(flags.config.as_ref()) {
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let mut file = Config::default();
                let base = path.parent().unwrap_or(std::path::Path::new("."));
                apply_file_in(&mut file, &text, base)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                if from_env {
                    cfg.tighten(file.review, file.outputs, file.gemini_ask);
                    cfg.approval_ttl = cfg.approval_ttl.min(file.approval_ttl);
                    cfg.db = file.db;
                } else {
                    cfg = file;
                }
                cfg.file = Some(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !explicit => {}
            Err(e) => return Err(format!("cannot read config {}: {e}", path.display())),
        }
    }
    // The hook command's own flags are protected with the harness settings that hold them.
    if let Some(v) = &flags.review {
        cfg.review = parse_review(v).map_err(|e| format!("--review: {e}"))?;
    }
    if let Some(v) = &flags.outputs {
        cfg.outputs = parse_outputs(v).map_err(|e| format!("--outputs: {e}"))?;
    }
    if let Some(v) = &flags.gemini_ask {
        cfg.gemini_ask = parse_ask(v).map_err(|e| format!("--gemini-ask: {e}"))?;
    }
    // The environment only tightens.
    let review = match env::text(env::REVIEW) {
        Some(v) => parse_review(&v).map_err(|e| format!("{}: {e}", env::REVIEW))?,
        None => cfg.review,
    };
    let outputs = match env::text(env::OUTPUTS) {
        Some(v) => parse_outputs(&v).map_err(|e| format!("{}: {e}", env::OUTPUTS))?,
        None => cfg.outputs,
    };
    let gemini_ask = match env::text(env::GEMINI_ASK) {
        Some(v) => parse_ask(&v).map_err(|e| format!("{}: {e}", env::GEMINI_ASK))?,
        None => cfg.gemini_ask,
    };
    cfg.tighten(review, outputs, gemini_ask);
    if let Some(v) = env::text(env::APPROVAL_TTL) {
        // Only ever shorter: a longer value from the environment is ignored.
        let ttl = parse_approval_ttl(&v).map_err(|e| format!("{}: {e}", env::APPROVAL_TTL))?;
        cfg.approval_ttl = cfg.approval_ttl.min(ttl);
    }
    if let Some(db) = &flags.db {
        cfg.db = Some(db.clone());
    }
    Ok(cfg)
}

impl Config {
    /// Takes each of these settings where it is stricter than the current one.
    fn tighten(&mut self, review: Review, outputs: Outputs, gemini_ask: AskMode) {
        self.review = self.review.max(review);
        self.outputs = self.outputs.max(outputs);
        self.gemini_ask = self.gemini_ask.max(gemini_ask);
    }
}

#[cfg(test)]
fn apply_file(cfg: &mut Config, text: &str) -> Result<(), String> {
    apply_file_in(cfg, text, std::path::Path::new("."))
}

/// Applies a config file's text; `base` is its folder (relative contract and registry paths
/// are resolved against it).
fn apply_file_in(cfg: &mut Config, text: &str, base: &std::path::Path) -> Result<(), String> {
    if text.len() > 1024 * 1024 {
        return Err("config file over 1 MiB".into());
    }
    let doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        e.to_string()
            .lines()
            .next()
            .unwrap_or("parse error")
            .to_string()
    })?;
    check_known_keys(doc.iter().map(|(k, _)| k))?;
    let get_str = |k: &str| doc.get(k).and_then(|v| v.as_str()).map(str::to_string);
    if let Some(v) = get_str("review") {
        cfg.review = parse_review(&v)?;
    }
    if let Some(v) = get_str("outputs") {
        cfg.outputs = parse_outputs(&v)?;
    }
    if let Some(v) = get_str("gemini_ask") {
        cfg.gemini_ask = parse_ask(&v)?;
    }
    if let Some(v) = get_str("db") {
        cfg.db = Some(PathBuf::from(v));
    }
    if let Some(v) = doc.get("approval_ttl") {
        let secs = v.as_integer().ok_or_else(|| {
            format!(
                "approval_ttl must be whole seconds from {APPROVAL_TTL_MIN} to {APPROVAL_TTL_MAX}"
            )
        })?;
        cfg.approval_ttl = check_approval_ttl(secs)?;
    }
    if let Some(item) = doc.get("allow") {
        cfg.allow = crate::policy::check::allow::AllowList::from_toml(item)?;
    }
    if let Some(item) = doc.get("exposure") {
        cfg.exposure = crate::policy::check::exposure::Trust::from_toml(item)?;
    }
    if let Some(item) = doc.get("trusted_destinations") {
        cfg.trusted_destinations = crate::policy::trusted::from_toml(item)?;
    }
    if doc.contains_key("contracts") || doc.contains_key("registries") {
        cfg.contracts.add_toml(doc.as_table(), base, "config")?;
    }
    if let Some(item) = doc.get("contracts_files") {
        crate::contracts::add_files(&mut cfg.contracts, item, base)?;
    }
    if !cfg.contracts.is_empty() || !cfg.contracts.registries.is_empty() {
        cfg.contracts.check_refs()?;
    }
    if let Some(item) = doc.get("export") {
        cfg.export = Some(crate::export::sink::ExportConfig::from_toml(item)?);
    }
    if let Some(arr) = doc.get("read_only_tools") {
        let arr = arr
            .as_array()
            .ok_or("read_only_tools must be an array of strings")?;
        for item in arr.iter() {
            let s = item
                .as_str()
                .ok_or("read_only_tools must be an array of strings")?;
            cfg.read_only_tools.push(s.to_string());
        }
    }
    Ok(())
}

/// Every top-level key the config file may hold (`configs/intentshield.toml` shows each).
pub const KNOWN_KEYS: crate::strtab::StrTable = crate::str_table![
    "review",
    "outputs",
    "gemini_ask",
    "read_only_tools",
    "approval_ttl",
    "db",
    "allow",
    "exposure",
    "trusted_destinations",
    "contracts",
    "registries",
    "contracts_files",
    "export",
];

/// Refuses a key the config file may not hold: a misspelled setting (`reviw`) must not be
/// silently ignored, any more than a bad value is.
///
/// # Errors
///
/// `unknown key '<k>' (did you mean '<known>'?; known keys: review, outputs, ...)`, the
/// suggestion when a known key is at most two edits away.
pub fn check_known_keys<'a>(keys: impl IntoIterator<Item = &'a str>) -> Result<(), String> {
    for k in keys {
        if KNOWN_KEYS.contains(k) {
            continue;
        }
        let near = KNOWN_KEYS
            .iter()
            .map(|known| (edit_distance(k, known), known))
            .filter(|(d, _)| *d <= 2)
            .min();
        let hint = near
            .map(|(_, known)| format!("did you mean '{known}'?; "))
            .unwrap_or_default();
        let shown: String = k.chars().take(64).collect();
        return Err(format!(
            "unknown key '{shown}' ({hint}known keys: {})",
            KNOWN_KEYS.to_vec().join(", ")
        ));
    }
    Ok(())
}

/// Levenshtein distance over chars, for the "did you mean" of [`check_known_keys`] (keys are
/// short; a long one is cut to 64 chars first).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(64).collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Matches a tool name against a `read_only_tools` pattern (`*` matches any run of characters).
pub fn tool_pattern_matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let mut rest = name;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(part) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            match rest.find(part) {
                Some(pos) => rest = &rest[pos + part.len()..],
                None => return false,
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(tool_pattern_matches(
            "github/get_*",
            "github/get_file_contents"
        ));
        assert!(!tool_pattern_matches("github/get_*", "github/create_issue"));
        assert!(tool_pattern_matches("*/list_*", "slack/list_channels"));
        assert!(tool_pattern_matches("Bash", "Bash"));
    }

    #[test]
    fn tighten_takes_the_stricter_of_each() {
        let mut c = Config {
            review: Review::Never,
            outputs: Outputs::Warn,
            gemini_ask: AskMode::Ask,
            ..Config::default()
        };
        c.tighten(Review::Tainted, Outputs::Block, AskMode::Ask);
        assert_eq!(
            (c.review, c.outputs, c.gemini_ask),
            (Review::Tainted, Outputs::Block, AskMode::Ask)
        );
        c.tighten(Review::Never, Outputs::Warn, AskMode::Deny);
        assert_eq!(
            (c.review, c.outputs, c.gemini_ask),
            (Review::Tainted, Outputs::Block, AskMode::Deny)
        );
        assert!(Review::Always > Review::Tainted && Review::Tainted > Review::Never);
    }

    #[test]
    fn file_values_are_checked() {
        let mut c = Config::default();
        assert!(apply_file(&mut c, "review = \"sometimes\"").is_err());
        assert!(apply_file(&mut Config::default(), "read_only_tools = [\"a/*\", 3]").is_err());
        apply_file(
            &mut c,
            "review = \"always\"\nread_only_tools = [\"x/get_*\"]",
        )
        .unwrap();
        assert_eq!(c.review, Review::Always);
        assert_eq!(c.read_only_tools, vec!["x/get_*"]);
    }

    #[test]
    fn unknown_keys_are_refused() {
        let e = apply_file(&mut Config::default(), "reviw = \"always\"").unwrap_err();
        assert!(e.contains("unknown key 'reviw'"), "{e}");
        assert!(e.contains("did you mean 'review'"), "{e}");
        for k in KNOWN_KEYS {
            assert!(e.contains(k), "{e} names {k}");
        }
        let e = apply_file(&mut Config::default(), "[extras]\nx = 1").unwrap_err();
        assert!(
            e.contains("unknown key 'extras'") && !e.contains("did you mean"),
            "{e}"
        );
        // The example file holds every known key, and only known keys.
        let example = include_str!("../configs/intentshield.toml");
        apply_file(&mut Config::default(), example).unwrap();
        for k in KNOWN_KEYS {
            assert!(
                example
                    .lines()
                    .map(|l| l.trim_start_matches("# "))
                    .any(|l| l.starts_with(&format!("{k} =")) || l.starts_with(&format!("[{k}]"))),
                "configs/intentshield.toml shows {k}"
            );
        }
    }

    #[test]
    fn approval_ttl_from_the_file_is_bounded() {
        let mut c = Config::default();
        assert_eq!(c.approval_ttl, 300);
        apply_file(&mut c, "approval_ttl = 600").unwrap();
        assert_eq!(c.approval_ttl, 600);
        for bad in [
            "approval_ttl = 9",
            "approval_ttl = 86401",
            "approval_ttl = -5",
            "approval_ttl = \"300\"",
            "approval_ttl = 1.5",
        ] {
            let e = apply_file(&mut Config::default(), bad).unwrap_err();
            assert!(e.contains("approval_ttl"), "{bad}: {e}");
        }
        assert_eq!(parse_approval_ttl("10"), Ok(10));
        assert_eq!(parse_approval_ttl(" 86400 "), Ok(86400));
        for bad in ["", "5", "90000", "5m", "-1", "1e3"] {
            assert!(parse_approval_ttl(bad).is_err(), "{bad}");
        }
    }
}
