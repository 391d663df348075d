//! Approval levels: 0 (no person), 1 (a person confirms the exact call), 2 (a second, distinct
//! person confirms too). The level a call needs is decided over its resolved values by a small
//! rules table: the highest level among the rules whose conditions all hold, 0 when none does.
//!
//! ```toml
//! [[contracts.approval]]
//! level = 1
//! when = { amount = "> 1000" }            # > >= < <= == != on numbers
//! [[contracts.approval]]
//! level = 1
//! when = { recipient = "new" }            # its value is in no registry (only the prompt)
//! [[contracts.approval]]
//! level = 2
//! when = { base = "in main, master", amount = "> 0" }   # all conditions of one rule hold
//! ```
//!
//! Why a rules table and not Cedar: see docs/contracts.md (the measured cost on the hook).

use super::{Param, Type};
use std::collections::BTreeMap;

/// Highest level.
pub const MAX_LEVEL: u8 = 2;

/// One rule: `level` when every condition holds.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    /// 1 or 2.
    pub level: u8,
    /// `(param, condition)`, all of which must hold.
    pub when: Vec<(String, Cond)>,
}

/// One condition over a parameter's resolved value.
#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    /// A number compared: `>`, `>=`, `<`, `<=`, `==`, `!=`.
    Num(&'static str, f64),
    /// Equal to this text (normalised as the param is).
    Eq(String),
    /// Not equal to this text.
    Ne(String),
    /// One of these texts.
    In(Vec<String>),
    /// A value from no registry (only the user's prompt: a new payee, a new address).
    New,
    /// The call carries the parameter.
    Present,
}

/// What the rules see of one parameter of the call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resolved {
    /// Its string values, normalised (each element of an array).
    pub texts: Vec<String>,
    /// Its number, when it is one.
    pub number: Option<f64>,
    /// True when a critical value came from no registry (only the prompt).
    pub new: bool,
}

impl Cond {
    fn parse(s: &str, p: &Param) -> Result<Cond, String> {
        let s = s.trim();
        let norm = |v: &str| {
            p.normalize
                .apply(v)
                .ok_or_else(|| format!("'{v}' is not a valid {}", p.normalize.name()))
        };
        if s == "new" {
            if !p.critical {
                return Err("'new' needs a critical param".into());
            }
            return Ok(Cond::New);
        }
        if s == "present" {
            return Ok(Cond::Present);
        }
        if let Some(rest) = s.strip_prefix("in ") {
            let vals: Result<Vec<String>, String> =
                rest.split(',').map(|v| norm(v.trim())).collect();
            return Ok(Cond::In(vals?));
        }
        for op in [">=", "<=", "==", "!=", ">", "<"] {
            if let Some(rest) = s.strip_prefix(op) {
                let rest = rest.trim();
                let numeric = matches!(p.ty, Some(Type::Number | Type::Integer));
                if let (true, Ok(n)) = (numeric, rest.parse::<f64>()) {
                    return Ok(Cond::Num(op, n));
                }
                return match op {
                    "==" => Ok(Cond::Eq(norm(rest)?)),
                    "!=" => Ok(Cond::Ne(norm(rest)?)),
                    _ => Err(format!(
                        "'{s}': a comparison needs a number param (type = \"number\") and a number"
                    )),
                };
            }
        }
        Err(format!(
            "'{}' is not a condition (> N, >= N, < N, <= N, == V, != V, in A, B, new, present)",
            s.chars().take(64).collect::<String>()
        ))
    }

    /// True when the condition holds for `r` (`None`: the call lacks the parameter).
    pub fn holds(&self, r: Option<&Resolved>) -> bool {
        let Some(r) = r else {
            return false;
        };
        match self {
            Cond::Num(op, n) => r.number.is_some_and(|x| match *op {
                ">" => x > *n,
                ">=" => x >= *n,
                "<" => x < *n,
                "<=" => x <= *n,
                "==" => x == *n,
                _ => x != *n,
            }),
            Cond::Eq(v) => r.texts.iter().any(|t| t == v),
            Cond::Ne(v) => !r.texts.is_empty() && r.texts.iter().all(|t| t != v),
            Cond::In(vs) => r.texts.iter().any(|t| vs.contains(t)),
            Cond::New => r.new,
            Cond::Present => true,
        }
    }

    /// As written.
    pub fn show(&self) -> String {
        match self {
            Cond::Num(op, n) => format!("{op} {n}"),
            Cond::Eq(v) => format!("== {v}"),
            Cond::Ne(v) => format!("!= {v}"),
            Cond::In(vs) => format!("in {}", vs.join(", ")),
            Cond::New => "new".into(),
            Cond::Present => "present".into(),
        }
    }
}

/// Parses `[[contracts.approval]]` over the contract's declared params.
///
/// # Errors
///
/// An unknown key, a level other than 1 or 2, a condition over an undeclared param, a
/// condition that does not parse, a rule without conditions.
pub fn from_toml(
    item: &toml_edit::Item,
    params: &BTreeMap<String, Param>,
) -> Result<Vec<Rule>, String> {
    let mut tables: Vec<&dyn toml_edit::TableLike> = Vec::new();
    if let Some(arr) = item.as_array_of_tables() {
        tables.extend(arr.iter().map(|t| t as &dyn toml_edit::TableLike));
    } else if let Some(arr) = item.as_array() {
        for v in arr.iter() {
            tables.push(v.as_inline_table().ok_or("must be an array of tables")?);
        }
    } else {
        return Err("must be an array of tables ([[contracts.approval]])".into());
    }
    let mut out = Vec::new();
    for (i, t) in tables.into_iter().enumerate() {
        for (k, _) in t.iter() {
            if k != "level" && k != "when" {
                return Err(format!(
                    "[{i}]: unknown key '{k}' (known keys: level, when)"
                ));
            }
        }
        let level = match t.get("level").and_then(|v| v.as_integer()) {
            Some(l @ 1..=2) => l as u8,
            _ => return Err(format!("[{i}]: level must be 1 or 2")),
        };
        let when = t
            .get("when")
            .and_then(|w| w.as_table_like())
            .ok_or_else(|| format!("[{i}]: when must be a table of param = \"condition\""))?;
        let mut conds = Vec::new();
        for (p, c) in when.iter() {
            let param = params
                .get(p)
                .ok_or_else(|| format!("[{i}]: when names '{p}', which is not a declared param"))?;
            let text = c
                .as_str()
                .map(str::to_string)
                .or_else(|| super::item_f64(c).map(|n| format!("== {n}")))
                .ok_or_else(|| format!("[{i}]: when.{p} must be a string"))?;
            conds.push((
                p.to_string(),
                Cond::parse(&text, param).map_err(|e| format!("[{i}]: when.{p}: {e}"))?,
            ));
        }
        if conds.is_empty() {
            return Err(format!("[{i}]: a rule needs at least one condition"));
        }
        out.push(Rule { level, when: conds });
    }
    Ok(out)
}

/// The level a call needs, and the rule that decided it (shown to the person).
pub fn level(rules: &[Rule], vals: &BTreeMap<String, Resolved>) -> (u8, Option<String>) {
    let mut best = (0u8, None);
    for r in rules {
        if r.level > best.0 && r.when.iter().all(|(p, c)| c.holds(vals.get(p))) {
            let why = r
                .when
                .iter()
                .map(|(p, c)| format!("{p} {}", c.show()))
                .collect::<Vec<_>>()
                .join(" and ");
            best = (r.level, Some(why));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contracts::normalize::Norm;

    fn params() -> BTreeMap<String, Param> {
        let base = Param {
            critical: false,
            sources: Vec::new(),
            normalize: Norm::Exact,
            ty: Some(Type::Number),
            required: false,
            min: None,
            max: None,
            max_len: None,
            one_of: Vec::new(),
        };
        let mut m = BTreeMap::new();
        m.insert("amount".to_string(), base.clone());
        let mut r = base.clone();
        r.critical = true;
        r.ty = Some(Type::String);
        r.sources = vec![crate::contracts::Source::Prompt];
        m.insert("recipient".to_string(), r.clone());
        r.critical = false;
        r.sources.clear();
        m.insert("base".to_string(), r);
        m
    }

    fn rules(text: &str) -> Vec<Rule> {
        let doc: toml_edit::DocumentMut = text.parse().unwrap();
        from_toml(doc.get("approval").unwrap(), &params()).unwrap()
    }

    #[test]
    fn levels_zero_one_two() {
        let r = rules(
            r#"
[[approval]]
level = 1
when = { amount = "> 1000" }
[[approval]]
level = 1
when = { recipient = "new" }
[[approval]]
level = 2
when = { amount = "> 10000" }
[[approval]]
level = 2
when = { base = "in Main, master" }
"#,
        );
        let call = |amount: f64, new: bool, base: &str| {
            let mut m = BTreeMap::new();
            m.insert(
                "amount".into(),
                Resolved {
                    number: Some(amount),
                    ..Default::default()
                },
            );
            m.insert(
                "recipient".into(),
                Resolved {
                    texts: vec!["x".into()],
                    new,
                    ..Default::default()
                },
            );
            if !base.is_empty() {
                m.insert(
                    "base".into(),
                    Resolved {
                        texts: vec![base.into()],
                        ..Default::default()
                    },
                );
            }
            level(&r, &m).0
        };
        assert_eq!(call(10.0, false, ""), 0);
        assert_eq!(
            call(1000.0, false, ""),
            0,
            "the threshold itself needs no one"
        );
        assert_eq!(call(1000.01, false, ""), 1);
        assert_eq!(call(10.0, true, ""), 1, "a new payee");
        assert_eq!(call(20000.0, false, ""), 2);
        assert_eq!(call(1.0, false, "main"), 2, "a protected branch");
        assert_eq!(call(1.0, false, "feature"), 0);
    }

    #[test]
    fn bad_rules() {
        let doc: toml_edit::DocumentMut =
            "[[approval]]\nlevel = 3\nwhen = { amount = \"> 1\" }\n[[x]]\n"
                .parse()
                .unwrap();
        assert!(from_toml(doc.get("approval").unwrap(), &params()).is_err());
        for bad in [
            "when = { nope = \"> 1\" }",
            "when = { amount = \"about 3\" }",
            "when = { base = \"new\" }",
            "when = {}",
        ] {
            let doc: toml_edit::DocumentMut =
                format!("[[approval]]\nlevel = 1\n{bad}\n").parse().unwrap();
            assert!(
                from_toml(doc.get("approval").unwrap(), &params()).is_err(),
                "{bad}"
            );
        }
    }
}
