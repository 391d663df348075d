//! Contracts for critical arguments: per tool, which arguments are critical and where their
//! legitimate values live (the user's prompt, a registry file the user keeps), their types
//! and bounds, a cumulative budget, and the approval level a call needs.
//!
//! ```toml
//! [[contracts]]
//! tool = "mcp__bank__send_money"        # or server = "bank" + tool = "send_money"; `*` globs
//! action = "payment.transfer"           # names the contract (and its budget) in messages
//! budget = { param = "amount", scale = 100, per_session = 100000, per_day = 500000 }
//! [contracts.params.recipient]
//! critical = true
//! sources = ["prompt", "registry:beneficiaries"]
//! normalize = "iban"
//! [contracts.params.amount]
//! type = "number"
//! min = 0.01
//! [[contracts.approval]]
//! level = 1
//! when = { amount = "> 1000" }
//!
//! [registries.beneficiaries]
//! path = "beneficiaries.json"           # relative to the file that names it
//! fields = ["iban", "name"]
//! ```
//!
//! Contracts come from the protected config file (`[[contracts]]`, `[registries.*]`), and from
//! the files it lists in `contracts_files` (each holding only those two tables; paths in one
//! are relative to it). They weaken the later checks for the tools they govern (the contract's
//! decision replaces the provenance, exposure, taint and review checks'), so, like `[allow]`,
//! they count only from the protected file. The files they name (contract files, registries)
//! are our own files: no tool may write them.
//!
//! Files: this one holds the model and its parsing and validation; [`normalize`] the
//! normalisers; [`sources`] the prompt and registry sources (and loading a call's inputs);
//! [`budget`] budgets; [`levels`] the approval rules.

pub mod budget;
pub mod levels;
pub mod normalize;
pub mod sources;

use crate::config::tool_pattern_matches;
use crate::event::Tool;
use normalize::Norm;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Most contracts a configuration may hold.
pub const MAX_CONTRACTS: usize = 500;
/// Most parameters one contract may declare.
pub const MAX_PARAMS: usize = 64;
/// Source names that would accept any value (a tool's output is what an attacker writes):
/// refused as a critical parameter's source.
pub const CATCH_ALL_SOURCES: &[&str] = &["*", "any", "all", "output", "tool_output", "outputs"];

/// All contracts in force, with the registries they name.
#[derive(Debug, Clone, Default)]
pub struct Contracts {
    /// The contracts, in file order; the first whose tool matches governs a call.
    pub list: Vec<Contract>,
    /// Registries by name.
    pub registries: BTreeMap<String, Registry>,
    /// The contract files read besides the config file (`contracts_files`), absolute.
    pub files: Vec<PathBuf>,
}

/// One contract.
#[derive(Debug, Clone)]
pub struct Contract {
    /// The tool name pattern (`mcp__bank__send_money`, `bank/send_*`); with [`Contract::server`],
    /// the MCP tool's own name.
    pub tool: String,
    /// The MCP server name pattern, when the contract names server and tool apart.
    pub server: Option<String>,
    /// What the call does (`payment.transfer`); names the contract and keys its budget.
    pub action: Option<String>,
    /// True when the tool may never be called (`prohibited = true`).
    pub prohibited: bool,
    /// The declared parameters, by name; a call with any other parameter is refused.
    pub params: BTreeMap<String, Param>,
    /// A cumulative budget over one numeric parameter.
    pub budget: Option<budget::Budget>,
    /// The approval rules: the level a call needs is the highest rule that matches (0 if none).
    pub approval: Vec<levels::Rule>,
    /// Where it was written (`FILE: contracts[N]`), for messages.
    pub origin: String,
}

/// One declared parameter.
#[derive(Debug, Clone)]
pub struct Param {
    /// A critical value must come from one of [`Param::sources`].
    pub critical: bool,
    /// Where a critical value may come from.
    pub sources: Vec<Source>,
    /// How values are compared.
    pub normalize: Norm,
    /// The JSON type the value must have (`None`: any scalar for a critical value, anything
    /// otherwise).
    pub ty: Option<Type>,
    /// The call must carry it.
    pub required: bool,
    /// Smallest number accepted.
    pub min: Option<f64>,
    /// Largest number accepted.
    pub max: Option<f64>,
    /// Longest string accepted (characters).
    pub max_len: Option<usize>,
    /// The only values accepted (compared after normalisation).
    pub one_of: Vec<String>,
}

/// Where a critical value may come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The user's own prompts in this session.
    Prompt,
    /// A registry file the user keeps, by name.
    Registry(String),
}

impl Source {
    /// As written in a contract (`prompt`, `registry:NAME`).
    pub fn name(&self) -> String {
        match self {
            Source::Prompt => "prompt".into(),
            Source::Registry(n) => format!("registry:{n}"),
        }
    }
}

/// A parameter's JSON type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    /// A string.
    String,
    /// Any number.
    Number,
    /// A whole number.
    Integer,
    /// `true` or `false`.
    Boolean,
    /// An array (of strings or numbers, for a critical parameter: each element is checked).
    Array,
    /// An object.
    Object,
}

impl Type {
    fn parse(s: &str) -> Result<Type, String> {
        Ok(match s {
            "string" => Type::String,
            "number" => Type::Number,
            "integer" => Type::Integer,
            "boolean" | "bool" => Type::Boolean,
            "array" => Type::Array,
            "object" => Type::Object,
            t => {
                return Err(format!(
                    "type '{}' is not one of string, number, integer, boolean, array, object",
                    t.chars().take(64).collect::<String>()
                ))
            }
        })
    }

    /// The name as written.
    pub fn name(self) -> &'static str {
        match self {
            Type::String => "string",
            Type::Number => "number",
            Type::Integer => "integer",
            Type::Boolean => "boolean",
            Type::Array => "array",
            Type::Object => "object",
        }
    }

    /// True when `v` has this type.
    pub fn holds(self, v: &serde_json::Value) -> bool {
        use serde_json::Value as V;
        match self {
            Type::String => v.is_string(),
            Type::Number => v.is_number(),
            Type::Integer => {
                v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            Type::Boolean => v.is_boolean(),
            Type::Array => matches!(v, V::Array(_)),
            Type::Object => v.is_object(),
        }
    }
}

/// A registry the user keeps: a JSON or CSV file of values (payees, addresses, repositories).
#[derive(Debug, Clone)]
pub struct Registry {
    /// Its name (`registry:NAME`).
    pub name: String,
    /// The file, absolute (resolved against the file that named it).
    pub path: PathBuf,
    /// The fields (JSON keys, CSV columns) that hold values; empty: every field.
    pub fields: Vec<String>,
    /// The field that names an entry for a `{ "ref": "NAME/KEY" }` argument (default `id`).
    pub key: String,
}

impl Contract {
    /// The contract's name in messages: its action, else its tool pattern.
    pub fn label(&self) -> String {
        match (&self.action, &self.server) {
            (Some(a), _) => a.clone(),
            (None, Some(s)) => format!("{s}/{}", self.tool),
            (None, None) => self.tool.clone(),
        }
    }

    /// True when this contract governs `tool`.
    pub fn matches(&self, tool: &Tool) -> bool {
        match &self.server {
            Some(server) => tool.mcp.as_ref().is_some_and(|m| {
                tool_pattern_matches(server, &m.server) && tool_pattern_matches(&self.tool, &m.tool)
            }),
            None => {
                tool_pattern_matches(&self.tool, &tool.name)
                    || tool_pattern_matches(&self.tool, &tool.display_name())
            }
        }
    }
}

impl Contracts {
    /// True when no contract is configured (the check then costs one comparison).
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The contract that governs `tool`: the first that matches.
    pub fn find(&self, tool: &Tool) -> Option<&Contract> {
        if self.list.is_empty() {
            return None;
        }
        self.list.iter().find(|c| c.matches(tool))
    }

    /// Every file the contracts depend on (contract files and registries): our own files,
    /// which no tool may write.
    pub fn protected_files(&self) -> Vec<PathBuf> {
        let mut out = self.files.clone();
        out.extend(self.registries.values().map(|r| r.path.clone()));
        out
    }

    /// Reads `[[contracts]]` and `[registries]` from a parsed config or contract file. `base`
    /// is the folder relative registry paths are resolved against; `what` names the file in
    /// messages.
    ///
    /// # Errors
    ///
    /// The first problem found, prefixed with where it is (`contracts[2].params.amount: ...`):
    /// an unknown key, a bad type or normaliser name, a critical parameter without sources or
    /// with a catch-all source, a registry source that names no registry, a budget or approval
    /// rule over an undeclared parameter, too many contracts.
    pub fn add_toml(
        &mut self,
        doc: &toml_edit::Table,
        base: &Path,
        what: &str,
    ) -> Result<(), String> {
        if let Some(item) = doc.get("registries") {
            let t = item
                .as_table_like()
                .ok_or("registries must be a table of tables")?;
            for (name, r) in t.iter() {
                let r = r
                    .as_table_like()
                    .ok_or_else(|| format!("registries.{name} must be a table"))?;
                let reg =
                    parse_registry(name, r, base).map_err(|e| format!("registries.{name}: {e}"))?;
                if self.registries.insert(name.to_string(), reg).is_some() {
                    return Err(format!("registries.{name} is defined twice"));
                }
            }
        }
        if let Some(item) = doc.get("contracts") {
            let mut tables: Vec<&dyn toml_edit::TableLike> = Vec::new();
            if let Some(arr) = item.as_array_of_tables() {
                tables.extend(arr.iter().map(|t| t as &dyn toml_edit::TableLike));
            } else if let Some(arr) = item.as_array() {
                for v in arr.iter() {
                    tables.push(
                        v.as_inline_table()
                            .ok_or("contracts must be an array of tables ([[contracts]])")?,
                    );
                }
            } else {
                return Err("contracts must be an array of tables ([[contracts]])".into());
            }
            for (i, t) in tables.into_iter().enumerate() {
                if self.list.len() >= MAX_CONTRACTS {
                    return Err(format!("more than {MAX_CONTRACTS} contracts"));
                }
                let at = format!("contracts[{i}]");
                let mut c = parse_contract(t).map_err(|e| format!("{at}: {e}"))?;
                c.origin = format!("{what}: {at}");
                self.list.push(c);
            }
        }
        Ok(())
    }

    /// Checks what needs every file read: each registry source names a registry. Call once
    /// all files are added.
    ///
    /// # Errors
    ///
    /// `<origin>.params.<p>: source 'registry:<n>' names no [registries.<n>] table`.
    pub fn check_refs(&self) -> Result<(), String> {
        for c in &self.list {
            for (p, param) in &c.params {
                for s in &param.sources {
                    if let Source::Registry(n) = s {
                        if !self.registries.contains_key(n) {
                            return Err(format!(
                                "{}.params.{p}: source 'registry:{n}' names no [registries.{n}] table",
                                c.origin
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Problems `intentshield contracts check` reports beyond what loading refuses: a tool both
    /// governed by a contract and prohibited by another, two contracts for the same tool, a
    /// contracted tool the operator declares read-only (`read_only_tools`), a registry file
    /// that cannot be read. One line each.
    pub fn problems(&self, read_only_tools: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for (i, a) in self.list.iter().enumerate() {
            for b in &self.list[i + 1..] {
                if a.tool == b.tool && a.server == b.server {
                    if a.prohibited != b.prohibited {
                        out.push(format!(
                            "tool '{}' is both allowed ({}) and prohibited ({})",
                            a.label(),
                            if a.prohibited { &b.origin } else { &a.origin },
                            if a.prohibited { &a.origin } else { &b.origin },
                        ));
                    } else {
                        out.push(format!(
                            "tool '{}' has two contracts ({} and {}): only the first is used",
                            a.label(),
                            a.origin,
                            b.origin
                        ));
                    }
                }
            }
            if a.prohibited {
                for p in read_only_tools {
                    if p == &a.tool || tool_pattern_matches(p, &a.tool) {
                        out.push(format!(
                            "tool '{}' is both prohibited ({}) and allowed as read-only (read_only_tools '{p}')",
                            a.label(),
                            a.origin
                        ));
                    }
                }
            }
        }
        for r in self.registries.values() {
            if let Err(e) = sources::load_registry(r) {
                out.push(format!("registries.{}: {e}", r.name));
            }
        }
        out
    }
}

/// Refuses keys outside `known`.
fn known_keys(t: &dyn toml_edit::TableLike, known: &[&str]) -> Result<(), String> {
    for (k, _) in t.iter() {
        if !known.contains(&k) {
            return Err(format!(
                "unknown key '{}' (known keys: {})",
                k.chars().take(64).collect::<String>(),
                known.join(", ")
            ));
        }
    }
    Ok(())
}

fn get_str<'a>(t: &'a dyn toml_edit::TableLike, k: &str) -> Result<Option<&'a str>, String> {
    match t.get(k) {
        None => Ok(None),
        Some(v) => v
            .as_str()
            .map(Some)
            .ok_or_else(|| format!("{k} must be a string")),
    }
}

fn get_bool(t: &dyn toml_edit::TableLike, k: &str) -> Result<bool, String> {
    match t.get(k) {
        None => Ok(false),
        Some(v) => v
            .as_bool()
            .ok_or_else(|| format!("{k} must be true or false")),
    }
}

/// A number from an integer or a float item.
pub(crate) fn item_f64(v: &toml_edit::Item) -> Option<f64> {
    v.as_integer().map(|i| i as f64).or_else(|| v.as_float())
}

fn get_f64(t: &dyn toml_edit::TableLike, k: &str) -> Result<Option<f64>, String> {
    match t.get(k) {
        None => Ok(None),
        Some(v) => item_f64(v)
            .filter(|f| f.is_finite())
            .map(Some)
            .ok_or_else(|| format!("{k} must be a number")),
    }
}

fn get_strings(t: &dyn toml_edit::TableLike, k: &str) -> Result<Vec<String>, String> {
    match t.get(k) {
        None => Ok(Vec::new()),
        Some(v) => {
            let arr = v
                .as_array()
                .ok_or_else(|| format!("{k} must be an array of strings"))?;
            arr.iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_string)
                        .or_else(|| x.as_integer().map(|i| i.to_string()))
                        .ok_or_else(|| format!("{k} must be an array of strings"))
                })
                .collect()
        }
    }
}

fn parse_registry(
    name: &str,
    t: &dyn toml_edit::TableLike,
    base: &Path,
) -> Result<Registry, String> {
    known_keys(t, &["path", "fields", "key"])?;
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err("a registry name holds only letters, digits, '_' and '-'".into());
    }
    let path = get_str(t, "path")?.ok_or("path is required")?;
    let p = Path::new(path);
    let path = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    Ok(Registry {
        name: name.to_string(),
        path,
        fields: get_strings(t, "fields")?,
        key: get_str(t, "key")?.unwrap_or("id").to_string(),
    })
}

fn parse_contract(t: &dyn toml_edit::TableLike) -> Result<Contract, String> {
    known_keys(
        t,
        &[
            "tool",
            "server",
            "action",
            "prohibited",
            "params",
            "budget",
            "approval",
        ],
    )?;
    let tool = get_str(t, "tool")?
        .ok_or("tool is required (a tool name, or with server the MCP tool's own name)")?
        .to_string();
    if tool.is_empty() || tool.chars().all(|c| c == '*') {
        return Err("tool must name a tool (a pattern of only `*` would govern every tool)".into());
    }
    let mut c = Contract {
        tool,
        server: get_str(t, "server")?.map(str::to_string),
        action: get_str(t, "action")?.map(str::to_string),
        prohibited: get_bool(t, "prohibited")?,
        params: BTreeMap::new(),
        budget: None,
        approval: Vec::new(),
        origin: String::new(),
    };
    if let Some(item) = t.get("params") {
        let params = item.as_table_like().ok_or("params must be a table")?;
        for (name, p) in params.iter() {
            if c.params.len() >= MAX_PARAMS {
                return Err(format!("more than {MAX_PARAMS} params"));
            }
            let p = p
                .as_table_like()
                .ok_or_else(|| format!("params.{name} must be a table"))?;
            let param = parse_param(p).map_err(|e| format!("params.{name}: {e}"))?;
            c.params.insert(name.to_string(), param);
        }
    }
    if c.prohibited && !c.params.is_empty() {
        return Err("a prohibited tool declares no params".into());
    }
    if let Some(item) = t.get("budget") {
        let b = item.as_table_like().ok_or("budget must be a table")?;
        let b = budget::Budget::from_toml(b).map_err(|e| format!("budget: {e}"))?;
        match c.params.get(&b.param) {
            Some(p) if matches!(p.ty, Some(Type::Number | Type::Integer)) => {}
            _ => {
                return Err(format!(
                    "budget: param '{}' must be a declared number or integer param",
                    b.param
                ))
            }
        }
        c.budget = Some(b);
    }
    if let Some(item) = t.get("approval") {
        c.approval = levels::from_toml(item, &c.params).map_err(|e| format!("approval: {e}"))?;
    }
    Ok(c)
}

fn parse_param(t: &dyn toml_edit::TableLike) -> Result<Param, String> {
    known_keys(
        t,
        &[
            "critical",
            "sources",
            "normalize",
            "type",
            "required",
            "min",
            "max",
            "max_len",
            "one_of",
        ],
    )?;
    let critical = get_bool(t, "critical")?;
    let mut sources = Vec::new();
    for s in get_strings(t, "sources")? {
        if CATCH_ALL_SOURCES.contains(&s.as_str()) {
            return Err(format!(
                "source '{s}' would accept any value (a tool's output is what an attacker writes): name the prompt or a registry"
            ));
        }
        sources.push(match s.as_str() {
            "prompt" | "user" => Source::Prompt,
            _ => match s.strip_prefix("registry:") {
                Some(n) if !n.is_empty() => Source::Registry(n.to_string()),
                _ => {
                    return Err(format!(
                        "source '{}' is not 'prompt' or 'registry:NAME'",
                        s.chars().take(64).collect::<String>()
                    ))
                }
            },
        });
    }
    if critical && sources.is_empty() {
        return Err("a critical param needs sources (prompt, registry:NAME)".into());
    }
    if !critical && !sources.is_empty() {
        return Err("sources are only checked for a critical param (add critical = true)".into());
    }
    let normalize = match get_str(t, "normalize")? {
        Some(n) => Norm::parse(n)?,
        None => Norm::Exact,
    };
    let ty = get_str(t, "type")?.map(Type::parse).transpose()?;
    if critical && matches!(ty, Some(Type::Boolean | Type::Object)) {
        return Err("a critical param is a string, number or array of them".into());
    }
    let max_len = match get_f64(t, "max_len")? {
        Some(f) if f >= 0.0 && f.fract() == 0.0 => Some(f as usize),
        Some(_) => return Err("max_len must be a whole number".into()),
        None => None,
    };
    let mut one_of = Vec::new();
    for v in get_strings(t, "one_of")? {
        one_of.push(
            normalize
                .apply(&v)
                .ok_or_else(|| format!("one_of: '{v}' is not a valid {}", normalize.name()))?,
        );
    }
    Ok(Param {
        critical,
        sources,
        normalize,
        ty,
        required: get_bool(t, "required")?,
        min: get_f64(t, "min")?,
        max: get_f64(t, "max")?,
        max_len,
        one_of,
    })
}

/// Reads the contract files named by a config file's `contracts_files` (paths relative to
/// `base`, the config file's folder) into `set`.
///
/// # Errors
///
/// `contracts_files must be an array of strings`; `cannot read contract file F: e`; a file
/// over 1 MiB; its parse error or the first problem [`Contracts::add_toml`] finds, prefixed
/// with the file; a key other than `contracts` and `registries` in it.
pub fn add_files(set: &mut Contracts, item: &toml_edit::Item, base: &Path) -> Result<(), String> {
    let arr = item
        .as_array()
        .ok_or("contracts_files must be an array of strings")?;
    for v in arr.iter() {
        let f = v
            .as_str()
            .ok_or("contracts_files must be an array of strings")?;
        let p = Path::new(f);
        let path = if p.is_absolute() {
            p.to_path_buf()
        } else {
            base.join(p)
        };
        let shown = path.display().to_string();
        let meta = std::fs::metadata(&path)
            .map_err(|e| format!("cannot read contract file {shown}: {e}"))?;
        if meta.len() > 1024 * 1024 {
            return Err(format!("contract file {shown} is over 1 MiB"));
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read contract file {shown}: {e}"))?;
        let doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
            format!(
                "{shown}: {}",
                e.to_string().lines().next().unwrap_or("parse error")
            )
        })?;
        known_keys(doc.as_table(), &["contracts", "registries"])
            .map_err(|e| format!("{shown}: {e}"))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        set.add_toml(doc.as_table(), dir, &shown)
            .map_err(|e| format!("{shown}: {e}"))?;
        set.files.push(path);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Contracts, String> {
        let doc: toml_edit::DocumentMut = text.parse().unwrap();
        let mut c = Contracts::default();
        c.add_toml(doc.as_table(), Path::new("/cfg"), "test")?;
        c.check_refs()?;
        Ok(c)
    }

    const BANK: &str = r#"
[[contracts]]
tool = "mcp__bank__send_money"
action = "payment.transfer"
budget = { param = "amount", scale = 100, per_session = 100000, per_day = 500000 }
[contracts.params.recipient]
critical = true
sources = ["prompt", "registry:payees"]
normalize = "iban"
[contracts.params.amount]
type = "number"
[registries.payees]
path = "payees.json"
"#;

    #[test]
    fn parses_the_issue_example() {
        let c = parse(BANK).unwrap();
        assert_eq!(c.list.len(), 1);
        let k = &c.list[0];
        assert_eq!(k.label(), "payment.transfer");
        assert!(k.params["recipient"].critical);
        assert_eq!(k.params["recipient"].normalize, Norm::Iban);
        assert_eq!(c.registries["payees"].path, Path::new("/cfg/payees.json"));
        assert_eq!(k.budget.as_ref().unwrap().per_session, Some(100000));
    }

    #[test]
    fn refuses_bad_configs() {
        let cases = [
            (
                "unknown key",
                BANK.replace("critical = true", "critical = true\ncritcal = 1"),
            ),
            (
                "catch-all",
                BANK.replace("\"prompt\", \"registry:payees\"", "\"*\""),
            ),
            (
                "output source",
                BANK.replace("\"prompt\", \"registry:payees\"", "\"output\""),
            ),
            (
                "no sources",
                BANK.replace("sources = [\"prompt\", \"registry:payees\"]", ""),
            ),
            (
                "undefined registry",
                BANK.replace("registry:payees", "registry:nope"),
            ),
            ("bad normaliser", BANK.replace("\"iban\"", "\"ibn\"")),
            (
                "budget param",
                BANK.replace("param = \"amount\"", "param = \"subject\""),
            ),
            ("every tool", BANK.replace("mcp__bank__send_money", "*")),
        ];
        for (what, text) in cases {
            assert!(parse(&text).is_err(), "{what} accepted");
        }
    }

    #[test]
    fn both_allowed_and_prohibited() {
        let text =
            format!("{BANK}\n[[contracts]]\ntool = \"mcp__bank__send_money\"\nprohibited = true\n");
        let c = parse(&text).unwrap();
        let p = c.problems(&[]);
        assert!(p.iter().any(|l| l.contains("both allowed")), "{p:?}");
        let text = "[[contracts]]\ntool = \"mcp__bank__update_password\"\nprohibited = true\n";
        let c = parse(text).unwrap();
        let p = c.problems(&["mcp__bank__*".to_string()]);
        assert!(p.iter().any(|l| l.contains("read-only")), "{p:?}");
    }
}
