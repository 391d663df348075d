//! Contracts for critical arguments (`crate::contracts`): a call of a tool a contract governs
//! is decided by its contract. Runs after quarantine, self-disclosure, injection, the built-in
//! rules, tamper resistance and secrets (their objections still count: the strongest verdict
//! wins), and sets [`Call::contracted`] so the checks after it (allow list, provenance,
//! exposure, taint, review) do not run: the contract has checked the values that matter
//! against trusted sources, which is what those checks approximate.
//!
//! In order: a prohibited tool is denied (`contract.prohibited`); a parameter the contract
//! does not declare is denied (`contract.unknown_param`); a missing required parameter, a wrong
//! type, a failed validator or a value its normaliser cannot read is denied
//! (`contract.bad_type`); a critical value that equals, after normalisation, no value of its
//! sources is denied (`contract.untrusted_value`; a `{ "ref": "REGISTRY/KEY" }` is resolved
//! here against the registry, never trusted as sent, and the call is rewritten with the
//! value); a call over its budget is denied (`contract.budget_exceeded`); then the approval
//! rules give the level: 0 allows (`contract.satisfied`, with the spending as an effect), 1
//! asks a person to confirm the exact call (`contract.approval_required`), 2 asks for two
//! distinct people (`contract.second_approver_required`, see `crate::hook`).
//!
//! When no contract is configured the check costs one comparison; when contracts exist but
//! none governs the tool, one pattern match per contract (no file read, no query).

use super::Call;
use crate::contracts::budget::Spend;
use crate::contracts::levels::{self, Resolved};
use crate::contracts::sources::{self, Inputs};
use crate::contracts::{Contract, Param, Source, Type};
use crate::decision::{Decision, Reason, Verdict};
use crate::session::Effect;
use serde_json::Value;
use std::collections::BTreeMap;

/// Decides a call a contract governs.
pub fn check(call: &mut Call<'_>) {
    let set = &call.ctx.config.contracts;
    if set.is_empty() {
        return;
    }
    let Some(c) = set.find(&call.tool) else {
        return;
    };
    call.contracted = true;
    let needs_inputs = c.budget.is_some()
        || c.params
            .values()
            .any(|p| p.sources.iter().any(|s| matches!(s, Source::Registry(_))));
    let empty = Inputs::default();
    let inputs = match (&call.view.contract, needs_inputs) {
        (Some(i), _) => i,
        (None, false) => &empty,
        (None, true) => {
            call.verdicts.add(
                Decision::error(format!(
                    "the registries and budget of contract {} were not loaded",
                    c.label()
                ))
                .rule(rule(c)),
            );
            return;
        }
    };
    let out = evaluate(c, &call.tool.input, &call.view.prompts, inputs);
    let mut d = out.decision;
    if let Some(input) = out.rewrite {
        if d.verdict != Verdict::Deny {
            if call.ctx.can_rewrite {
                d.updated_input = Some(input);
            } else {
                d = Decision::new(
                    Verdict::Deny,
                    Reason::ContractUntrustedValue,
                    format!(
                        "contract {}: this harness cannot replace a {{\"ref\": …}} argument with its value here; send the value itself ({})",
                        c.label(),
                        out.resolved_refs.join(", ")
                    ),
                )
                .rule(rule(c));
            }
        }
    }
    if let Some(s) = out.spend {
        if d.verdict != Verdict::Deny {
            call.effects.push(Effect::Spend(s));
        }
    }
    call.verdicts.add(d);
}

fn rule(c: &Contract) -> String {
    format!("contract.{}", c.label())
}

/// What the contract made of one call.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The decision.
    pub decision: Decision,
    /// The spending to record if the call runs.
    pub spend: Option<Spend>,
    /// The arguments with every `{ "ref": … }` replaced by its value, when there was one.
    pub rewrite: Option<Value>,
    /// `param=value` for each resolved reference.
    pub resolved_refs: Vec<String>,
    /// Each critical value with where it was found: `(param, value, source)`.
    pub origins: Vec<(String, String, String)>,
}

fn cut(s: &str) -> String {
    let mut out: String = s.chars().take(80).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

fn num_text(v: &Value) -> Option<String> {
    let f = v.as_f64()?;
    Some(if f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{}", f as i64)
    } else {
        v.to_string()
    })
}

/// Evaluates contract `c` over the arguments `input`, the user's (folded) `prompts` and the
/// loaded `inputs`. Pure.
pub fn evaluate(c: &Contract, input: &Value, prompts: &[String], inputs: &Inputs) -> Outcome {
    let label = c.label();
    let mut out = Outcome {
        decision: Decision::allow(),
        spend: None,
        rewrite: None,
        resolved_refs: Vec::new(),
        origins: Vec::new(),
    };
    let deny = |reason: Reason, msg: String| {
        Decision::new(Verdict::Deny, reason, format!("contract {label}: {msg}")).rule(rule(c))
    };
    if c.prohibited {
        out.decision = deny(
            Reason::ContractProhibited,
            format!("the tool is prohibited ({})", c.origin),
        );
        return out;
    }
    let Some(args) = input.as_object() else {
        out.decision = deny(
            Reason::ContractBadType,
            "the arguments are not an object".into(),
        );
        return out;
    };
    let unknown: Vec<&str> = args
        .keys()
        .filter(|k| !c.params.contains_key(k.as_str()))
        .map(String::as_str)
        .collect();
    if !unknown.is_empty() {
        let declared: Vec<&str> = c.params.keys().map(String::as_str).collect();
        out.decision = deny(
            Reason::ContractUnknownParam,
            format!(
                "parameter {} is not declared by the contract (declared: {}); call the tool with the declared parameters only",
                unknown.iter().map(|k| format!("'{}'", cut(k))).collect::<Vec<_>>().join(", "),
                declared.join(", ")
            ),
        );
        return out;
    }
    let mut resolved: BTreeMap<String, Resolved> = BTreeMap::new();
    let mut rewritten = input.clone();
    for (name, p) in &c.params {
        let Some(v) = args.get(name) else {
            if p.required {
                out.decision = deny(
                    Reason::ContractBadType,
                    format!("parameter '{name}' is required"),
                );
                return out;
            }
            continue;
        };
        let mut r = Resolved::default();
        if let Err(msg) = validate(name, p, v, &mut r) {
            out.decision = deny(Reason::ContractBadType, msg);
            return out;
        }
        if p.critical {
            match critical(name, p, v, prompts, inputs, &mut r) {
                Ok(found) => {
                    for f in found {
                        if let Some(lit) = &f.literal {
                            out.resolved_refs.push(format!("{name}={lit}"));
                        }
                        out.origins.push((name.clone(), f.value, f.source));
                    }
                    if let Some(nv) = r_literal(p, v, &out.resolved_refs, name) {
                        if let Some(o) = rewritten.as_object_mut() {
                            o.insert(name.clone(), nv);
                        }
                    }
                }
                Err((reason, msg)) => {
                    out.decision = deny(reason, msg);
                    return out;
                }
            }
        }
        resolved.insert(name.clone(), r);
    }
    if !out.resolved_refs.is_empty() {
        out.rewrite = Some(rewritten);
    }
    if let Some(b) = &c.budget {
        let value = args.get(&b.param).and_then(Value::as_f64).unwrap_or(0.0);
        let Some(units) = b.units(value) else {
            out.decision = deny(
                Reason::ContractBadType,
                format!("parameter '{}' must be a number from 0", b.param),
            );
            return out;
        };
        if let Some(spent) = &inputs.spent {
            if let Some(why) = b.exceeded(spent, units) {
                out.decision = deny(Reason::ContractBudgetExceeded, why);
                return out;
            }
        }
        out.spend = Some(Spend {
            key: label.clone(),
            units,
            day: inputs.day,
        });
    }
    let shown = out
        .origins
        .iter()
        .map(|(p, v, s)| format!("{p}={} (from {s})", cut(v)))
        .collect::<Vec<_>>()
        .join(", ");
    let (level, why) = levels::level(&c.approval, &resolved);
    out.decision = match level {
        0 => Decision::new(
            Verdict::Allow,
            Reason::ContractSatisfied,
            if shown.is_empty() {
                format!("contract {label} satisfied")
            } else {
                format!("contract {label} satisfied: {shown}")
            },
        ),
        1 => Decision::new(
            Verdict::Ask,
            Reason::ContractApprovalRequired,
            format!(
                "contract {label}: a person must confirm this exact call ({}; {}), approval level 1",
                why.unwrap_or_default(),
                call_text(args)
            ),
        ),
        _ => Decision::new(
            Verdict::Ask,
            Reason::ContractSecondApproverRequired,
            format!(
                "contract {label}: two different people must confirm this exact call ({}; {}), approval level 2: each approves one ask of it with `intentshield approve`",
                why.unwrap_or_default(),
                call_text(args)
            ),
        ),
    }
    .rule(rule(c));
    out
}

/// The call's arguments in one line for the person who confirms it (each value cut).
fn call_text(args: &serde_json::Map<String, Value>) -> String {
    args.iter()
        .map(|(k, v)| {
            let s = match v {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            format!("{k}={}", cut(&s))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The argument with its references replaced by their values, when it had any.
fn r_literal(p: &Param, v: &Value, refs: &[String], name: &str) -> Option<Value> {
    let lits: Vec<&str> = refs
        .iter()
        .filter_map(|r| r.strip_prefix(name).and_then(|x| x.strip_prefix('=')))
        .collect();
    if lits.is_empty() {
        return None;
    }
    let mut it = lits.into_iter();
    let mut swap = |x: &Value| -> Value {
        if is_ref(x) {
            it.next()
                .map_or(Value::Null, |s| Value::String(s.to_string()))
        } else {
            x.clone()
        }
    };
    let _ = p;
    Some(match v {
        Value::Array(xs) => Value::Array(xs.iter().map(&mut swap).collect()),
        x => swap(x),
    })
}

fn is_ref(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| o.len() == 1 && o.get("ref").is_some_and(Value::is_string))
}

/// Type and validators; fills the numbers and texts the approval rules see.
fn validate(name: &str, p: &Param, v: &Value, r: &mut Resolved) -> Result<(), String> {
    let ref_ok = p.critical && (is_ref(v) || v.as_array().is_some_and(|a| a.iter().any(is_ref)));
    if let Some(t) = p.ty {
        let as_ref = ref_ok && matches!(t, Type::String | Type::Array);
        if !(t.holds(v) || as_ref) {
            return Err(format!(
                "parameter '{name}' must be {} {} (got {})",
                if t == Type::Integer || t == Type::Array {
                    "an"
                } else {
                    "a"
                },
                t.name(),
                kind_of(v)
            ));
        }
    }
    r.number = v.as_f64();
    if let Some(f) = r.number {
        if p.min.is_some_and(|m| f < m) || p.max.is_some_and(|m| f > m) {
            return Err(format!(
                "parameter '{name}' is {f}, outside {}..{}",
                p.min.map_or("".into(), |m| m.to_string()),
                p.max.map_or("".into(), |m| m.to_string())
            ));
        }
    }
    let texts: Vec<&str> = match v {
        Value::String(s) => vec![s.as_str()],
        Value::Array(xs) => xs.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    for s in &texts {
        if p.max_len.is_some_and(|m| s.chars().count() > m) {
            return Err(format!(
                "parameter '{name}' is longer than {} characters",
                p.max_len.unwrap_or(0)
            ));
        }
        if !p.critical {
            let n = p.normalize.apply(s).unwrap_or_else(|| s.to_string());
            if !p.one_of.is_empty() && !p.one_of.contains(&n) {
                return Err(format!(
                    "parameter '{name}' must be one of {}",
                    p.one_of.join(", ")
                ));
            }
            r.texts.push(n);
        }
    }
    if !p.critical && texts.is_empty() {
        if let Some(n) = num_text(v) {
            r.texts.push(n);
        }
    }
    Ok(())
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// One critical value and where it was found.
struct Found {
    value: String,
    source: String,
    /// The value a reference resolved to.
    literal: Option<String>,
}

type Refusal = (Reason, String);

/// Checks every value of a critical parameter against its sources.
fn critical(
    name: &str,
    p: &Param,
    v: &Value,
    prompts: &[String],
    inputs: &Inputs,
    r: &mut Resolved,
) -> Result<Vec<Found>, Refusal> {
    let items: Vec<&Value> = match v {
        Value::Array(xs) => xs.iter().collect(),
        x => vec![x],
    };
    if items.is_empty() || items.len() > 100 {
        return Err((
            Reason::ContractBadType,
            format!("parameter '{name}' must hold 1 to 100 values"),
        ));
    }
    let allowed = p
        .sources
        .iter()
        .map(|s| match s {
            Source::Prompt => "the user's own words in this session".to_string(),
            Source::Registry(n) => format!("the registry '{n}' the user keeps"),
        })
        .collect::<Vec<_>>()
        .join(" or ");
    let mut found = Vec::new();
    let mut all_registry = true;
    for item in items {
        let (raw, literal) = if is_ref(item) {
            let reference = item.get("ref").and_then(Value::as_str).unwrap_or("");
            let lit = resolve_ref(p, reference, inputs).ok_or_else(|| {
                (
                    Reason::ContractUntrustedValue,
                    format!(
                        "parameter '{name}': the reference '{}' names no entry of its registries ({allowed})",
                        cut(reference)
                    ),
                )
            })?;
            (lit.clone(), Some(lit))
        } else {
            let raw = match item {
                Value::String(s) => s.clone(),
                Value::Number(_) => num_text(item).unwrap_or_default(),
                other => {
                    return Err((
                        Reason::ContractBadType,
                        format!(
                            "parameter '{name}' must be a string or number (got {})",
                            kind_of(other)
                        ),
                    ))
                }
            };
            (raw, None)
        };
        let Some(value) = p.normalize.apply(&raw) else {
            return Err((
                Reason::ContractBadType,
                format!(
                    "parameter '{name}': '{}' is not a valid {}",
                    cut(&raw),
                    p.normalize.name()
                ),
            ));
        };
        if !p.one_of.is_empty() && !p.one_of.contains(&value) {
            return Err((
                Reason::ContractBadType,
                format!("parameter '{name}' must be one of {}", p.one_of.join(", ")),
            ));
        }
        let mut source = None;
        let mut unreadable = Vec::new();
        for s in &p.sources {
            match s {
                Source::Registry(n) => match inputs.registries.get(n) {
                    Some(Ok(data)) if sources::from_registry(p.normalize, &value, data) => {
                        source = Some(s.name());
                        break;
                    }
                    Some(Err(e)) => unreadable.push(e.clone()),
                    _ => {}
                },
                Source::Prompt => {
                    if literal.is_none() && sources::from_prompt(p.normalize, &value, prompts) {
                        source = Some(s.name());
                    }
                }
            }
        }
        // A registry match is preferred (it decides whether the value is new); the prompt
        // was tried in order above and may have matched first.
        let in_registry = source
            .as_deref()
            .is_some_and(|s| s.starts_with("registry:"))
            || p.sources.iter().any(|s| match s {
                Source::Registry(n) => inputs.registries.get(n).is_some_and(|d| {
                    d.as_ref()
                        .is_ok_and(|d| sources::from_registry(p.normalize, &value, d))
                }),
                Source::Prompt => false,
            });
        all_registry &= in_registry;
        let Some(source) = source else {
            let extra = if unreadable.is_empty() {
                String::new()
            } else {
                format!(" (unreadable: {})", unreadable.join("; "))
            };
            return Err((
                Reason::ContractUntrustedValue,
                format!(
                    "parameter '{name}' is '{}', which is not a value from {allowed}{extra}; a value found in a tool's output (a mail, a file, a web page) is not enough: ask the user to confirm it in their own words, or to add it to the registry",
                    cut(&raw)
                ),
            ));
        };
        r.texts.push(value.clone());
        found.push(Found {
            value,
            source,
            literal,
        });
    }
    r.new = !all_registry;
    Ok(found)
}

/// The value a `{ "ref": "REGISTRY/KEY" }` names: the first value of that entry that the
/// param's normaliser reads, when the registry is one of the param's sources.
fn resolve_ref(p: &Param, reference: &str, inputs: &Inputs) -> Option<String> {
    let (reg, key) = reference
        .strip_prefix("registry:")
        .unwrap_or(reference)
        .split_once('/')?;
    if !p.sources.contains(&Source::Registry(reg.to_string())) {
        return None;
    }
    let data = inputs.registries.get(reg)?.as_ref().ok()?;
    data.keyed
        .get(key)?
        .iter()
        .find(|v| p.normalize.apply(v).is_some())
        .cloned()
}
