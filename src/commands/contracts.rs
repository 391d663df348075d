//! `intentshield contracts check [--config FILE] [--cases FILE]`: validates the contracts of
//! the config file (what loading refuses: unknown keys, a catch-all source, a registry source
//! naming no registry; and beyond that: a tool both allowed and prohibited, two contracts for
//! one tool, a registry that cannot be read), runs a table of expected decisions, and for
//! every call expected to pass (allow or ask) generates the same call with each critical
//! argument replaced by a value from no trusted source, and requires a deny
//! (`contract.untrusted_value`). The real tools are never called: each call is decided by the
//! policy (`policy::pre_tool`) over a clean session whose prompts are the case's.
//!
//! Cases: JSON Lines, one call each:
//! `{"tool": "mcp__bank__send_money", "input": {...}, "prompt": "..." | "prompts": [...],
//!   "expect": "allow" | "ask" | "deny", "reason": "contract.untrusted_value"?,
//!   "spent": {"session": 0, "day": 0}?}`.
//! Exit status 0 when everything holds, 1 when a case or a generated attack fails or the
//! configuration has a problem, 2 when a file cannot be read.

use crate::config::{self, Flags};
use crate::contracts::budget::Spent;
use crate::contracts::normalize::Norm;
use crate::contracts::sources::{self, Inputs};
use crate::contracts::{Contract, Contracts, Type};
use crate::decision::{Reason, Verdict};
use crate::event::Harness;
use crate::exit::{CliError, CliResult, ExitStatus};
use crate::paths::PathContext;
use crate::policy::{self, Context};
use crate::session::SessionView;
use clap::{Arg, ArgMatches, Command};
use serde_json::{json, Value};
use std::path::PathBuf;

/// Largest cases file read (bytes): 16 MiB.
pub const MAX_CASES_BYTES: u64 = 16 * 1024 * 1024;

/// The clap definition.
pub fn command() -> Command {
    Command::new("contracts")
        .about("Check the contracts for critical arguments (see docs/contracts.md)")
        .subcommand_required(true)
        .subcommand(
            Command::new("check")
                .about("Validate the contracts, run a table of expected decisions and the generated per-argument attacks; never calls a tool")
                .arg(Arg::new("config").long("config").value_parser(clap::value_parser!(PathBuf)).help("The config file (default: the protected config file)"))
                .arg(Arg::new("cases").long("cases").value_parser(clap::value_parser!(PathBuf)).help("JSON Lines of calls and their expected decisions")),
        )
}

/// Runs `contracts check`.
///
/// # Errors
///
/// A config the loader refuses, or a cases file that cannot be read (exit 2); problems and
/// failed cases give exit 1.
pub fn run(m: &ArgMatches) -> CliResult {
    let Some(("check", sub)) = m.subcommand() else {
        return Ok(ExitStatus::ERROR);
    };
    let flags = Flags {
        config: sub.get_one::<PathBuf>("config").cloned(),
        ..Flags::default()
    };
    let cfg =
        config::load(&flags).map_err(|e| CliError::failure("intentshield contracts check", e))?;
    let set = &cfg.contracts;
    println!(
        "{} contract(s), {} registr{} ({})",
        set.list.len(),
        set.registries.len(),
        if set.registries.len() == 1 {
            "y"
        } else {
            "ies"
        },
        cfg.file
            .as_ref()
            .map_or("no config file".into(), |f| f.display().to_string())
    );
    // A config named only by the environment may only tighten: the hook ignores its contracts
    // (they replace later checks). Say so rather than print an empty set.
    let mut failed = false;
    if flags.config.is_none()
        && set.list.is_empty()
        && (crate::env::config_is_set() || crate::env::config_home_is_steered())
    {
        if let Some(file) = cfg.file.clone() {
            let named = Flags {
                config: Some(file.clone()),
                ..Flags::default()
            };
            match config::load(&named) {
                Err(e) => {
                    println!(
                        "warning: cannot read the contracts of {}: {e}",
                        file.display()
                    );
                    failed = true;
                }
                Ok(c) if !c.contracts.list.is_empty() || !c.contracts.registries.is_empty() => {
                    println!(
                        "warning: {} contract(s) and {} registr{} in {} are ignored by the hook: a config named by $INTENTSHIELD_CONFIG or under a moved $XDG_CONFIG_HOME may only tighten settings, and contracts replace later checks; the normal checks decide those tools. Move them to the protected config file{} or check them with --config.",
                        c.contracts.list.len(),
                        c.contracts.registries.len(),
                        if c.contracts.registries.len() == 1 { "y" } else { "ies" },
                        file.display(),
                        config::default_config_path()
                            .map_or(String::new(), |p| format!(" ({})", p.display())),
                    );
                    failed = true;
                }
                Ok(_) => {}
            }
        }
    }
    for r in set.registries.values() {
        if let Ok(d) = sources::load_registry(r) {
            println!(
                "registry {}: {} values ({})",
                r.name,
                d.values.len(),
                r.path.display()
            );
        }
    }
    for p in set.problems(&cfg.read_only_tools) {
        println!("error: {p}");
        failed = true;
    }
    if let Some(path) = sub.get_one::<PathBuf>("cases") {
        let text = read_cases(path)?;
        let mut stats = Stats::default();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let case: Value = serde_json::from_str(line).map_err(|e| {
                CliError::error(
                    "intentshield contracts check",
                    format!("{}:{}: {e}", path.display(), i + 1),
                )
            })?;
            run_case(&cfg, set, &case, i + 1, &mut stats).map_err(|e| {
                CliError::error(
                    "intentshield contracts check",
                    format!("{}:{}: {e}", path.display(), i + 1),
                )
            })?;
        }
        println!(
            "{} cases passed, {} failed; {} generated attacks denied, {} not denied",
            stats.passed, stats.failed, stats.attacks_denied, stats.attacks_missed
        );
        failed |= stats.failed > 0 || stats.attacks_missed > 0;
    }
    Ok(ExitStatus::failure_if(failed))
}

fn read_cases(path: &PathBuf) -> Result<String, CliError> {
    use std::io::Read;
    let err = |e: std::io::Error| {
        CliError::error(
            "intentshield contracts check",
            format!("cannot read {}: {e}", path.display()),
        )
    };
    let f = std::fs::File::open(path).map_err(err)?;
    let mut text = String::new();
    f.take(MAX_CASES_BYTES)
        .read_to_string(&mut text)
        .map_err(err)?;
    Ok(text)
}

#[derive(Default)]
struct Stats {
    passed: usize,
    failed: usize,
    attacks_denied: usize,
    attacks_missed: usize,
}

/// One decision: (verdict, reason code, message).
fn decide(
    cfg: &config::Config,
    set: &Contracts,
    tool_name: &str,
    input: &Value,
    prompts: &[String],
    spent: Spent,
) -> Result<(Verdict, Reason, String), String> {
    let ev = json!({"session_id": "intentshield-contracts-check", "cwd": "/", "hook_event_name": "PreToolUse",
        "tool_name": tool_name, "tool_input": input});
    let ev = crate::harness::parse(Harness::Claude, &ev)?;
    let tool = ev.tool.ok_or("not a tool call")?;
    let mut view = SessionView {
        prompts: prompts.iter().map(|p| policy::fold(p)).collect(),
        ..SessionView::default()
    };
    if let Some(c) = set.find(&tool) {
        let mut inputs = Inputs {
            spent: c.budget.as_ref().map(|_| spent),
            ..Inputs::default()
        };
        for r in set.registries.values() {
            inputs
                .registries
                .insert(r.name.clone(), sources::load_registry(r));
        }
        view.contract = Some(inputs);
    }
    let ctx = Context {
        config: cfg,
        paths: PathContext::new(Some("/"), set.protected_files()),
        can_rewrite: true,
        pause: None,
    };
    let e = policy::pre_tool(&tool, None, &view, &ctx);
    Ok((e.decision.verdict, e.decision.reason, e.decision.message))
}

fn run_case(
    cfg: &config::Config,
    set: &Contracts,
    case: &Value,
    line: usize,
    st: &mut Stats,
) -> Result<(), String> {
    let tool = case
        .get("tool")
        .and_then(Value::as_str)
        .ok_or("a case needs \"tool\"")?;
    let input = case.get("input").cloned().unwrap_or_else(|| json!({}));
    let expect = case
        .get("expect")
        .and_then(Value::as_str)
        .ok_or("a case needs \"expect\"")?;
    let want = match expect {
        "allow" => Verdict::Allow,
        "ask" => Verdict::Ask,
        "deny" => Verdict::Deny,
        e => return Err(format!("expect '{e}' is not allow, ask or deny")),
    };
    let mut prompts: Vec<String> = Vec::new();
    if let Some(p) = case.get("prompt").and_then(Value::as_str) {
        prompts.push(p.to_string());
    }
    if let Some(ps) = case.get("prompts").and_then(Value::as_array) {
        prompts.extend(ps.iter().filter_map(Value::as_str).map(str::to_string));
    }
    let spent = Spent {
        session: case
            .pointer("/spent/session")
            .and_then(Value::as_i64)
            .unwrap_or(0),
        day: case
            .pointer("/spent/day")
            .and_then(Value::as_i64)
            .unwrap_or(0),
    };
    let (v, reason, msg) = decide(cfg, set, tool, &input, &prompts, spent)?;
    let want_reason = case.get("reason").and_then(Value::as_str);
    if v == want && want_reason.is_none_or(|r| r == reason.code()) {
        st.passed += 1;
        println!("ok   case {line}: {tool} {} {}", v.name(), reason.code());
    } else {
        st.failed += 1;
        println!(
            "FAIL case {line}: {tool}: expected {expect}{}, got {} {}: {msg}",
            want_reason.map(|r| format!(" {r}")).unwrap_or_default(),
            v.name(),
            reason.code()
        );
    }
    if want == Verdict::Deny {
        return Ok(());
    }
    // The generated attacks: each critical argument from no trusted source.
    let parsed = crate::harness::parse(
        Harness::Claude,
        &json!({"session_id": "x", "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input}),
    )?;
    let Some(c) = parsed.tool.as_ref().and_then(|t| set.find(t)) else {
        return Ok(());
    };
    for (name, attacked) in attacks(c, &input) {
        let (v, reason, msg) = decide(cfg, set, tool, &attacked, &prompts, spent)?;
        if v == Verdict::Deny && reason == Reason::ContractUntrustedValue {
            st.attacks_denied += 1;
        } else {
            st.attacks_missed += 1;
            println!(
                "FAIL case {line}: {tool} with '{name}' from no trusted source: expected deny contract.untrusted_value, got {} {}: {msg}",
                v.name(),
                reason.code()
            );
        }
    }
    Ok(())
}

/// A value of kind `norm` that no user wrote and no registry holds.
pub fn untrusted_value(norm: Norm, ty: Option<Type>) -> Value {
    if matches!(ty, Some(Type::Number | Type::Integer)) {
        return json!(987_654_321);
    }
    json!(match norm {
        Norm::Iban => "ZZ00UNTRUSTED0000000001",
        Norm::Email => "untrusted@attacker-controlled.invalid",
        Norm::Phone => "+99912345678",
        Norm::Host => "attacker-controlled.invalid",
        Norm::Url => "https://attacker-controlled.invalid/x",
        Norm::Account => "zz-untrusted-account-0001",
        Norm::Path => "/untrusted/attacker-controlled",
        Norm::Exact | Norm::Lowercase => "untrusted-attacker-value",
    })
}

/// The call `input` once per critical argument it carries, that argument replaced by an
/// [`untrusted_value`] (an array by a one-element array of one).
pub fn attacks(c: &Contract, input: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for (name, p) in c.params.iter().filter(|(_, p)| p.critical) {
        let Some(v) = input.get(name) else {
            continue;
        };
        let bad = untrusted_value(p.normalize, p.ty);
        let bad = if v.is_array() { json!([bad]) } else { bad };
        let mut call = input.clone();
        if let Some(o) = call.as_object_mut() {
            o.insert(name.clone(), bad);
        }
        out.push((name.clone(), call));
    }
    out
}
