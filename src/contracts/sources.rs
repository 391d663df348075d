//! Where a critical value may come from: the user's prompts in the session (as the store keeps
//! them, folded: `crate::state` `prompts`), and registry files the user keeps (JSON or CSV).
//! Also loads what a contracted call's check needs ([`load_inputs`]): only for a call a
//! contract governs, so other calls read no registry and query nothing more.

use super::budget::{self, Spent};
use super::normalize::{self, Norm};
use super::{Contract, Contracts, Registry, Source};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;

/// Largest registry file read (bytes): 1 MiB.
pub const MAX_REGISTRY_BYTES: u64 = 1024 * 1024;
/// Most values kept from one registry.
pub const MAX_REGISTRY_VALUES: usize = 20_000;

/// A registry's values as written (each normalised when compared).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RegistryData {
    /// Every value of the registry's fields.
    pub values: Vec<String>,
    /// Entries by their key field, for `{ "ref": "NAME/KEY" }` arguments: the entry's values.
    pub keyed: BTreeMap<String, Vec<String>>,
}

/// What the check of one contracted call needs besides the session view.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Inputs {
    /// The registries the contract's params name: their data, or why they could not be read.
    pub registries: BTreeMap<String, Result<RegistryData, String>>,
    /// What the contract's budget spent so far; `None` when the budget is not checked here
    /// (no budget, or the MCP proxy deciding a call the hook already decided and spent).
    pub spent: Option<Spent>,
    /// The UTC day of the decision (`budget::day_of`).
    pub day: i64,
}

/// True when `value` (normalised by `norm`) is written in one of the user's `prompts`.
pub fn from_prompt(norm: Norm, value: &str, prompts: &[String]) -> bool {
    prompts.iter().any(|p| normalize::occurs(norm, value, p))
}

/// True when `value` (normalised by `norm`) is one of the registry's values.
pub fn from_registry(norm: Norm, value: &str, data: &RegistryData) -> bool {
    data.values
        .iter()
        .any(|v| norm.apply(v).is_some_and(|n| n == value))
}

/// Reads a registry file: a JSON array (of strings, numbers or objects whose `fields` hold the
/// values), a JSON object of such arrays, or a CSV file with a header line (`.csv`; the
/// `fields` columns). At most [`MAX_REGISTRY_BYTES`] and [`MAX_REGISTRY_VALUES`].
///
/// # Errors
///
/// `cannot read PATH: e`, `PATH is over 1 MiB`, `PATH is not valid JSON: e`,
/// `PATH: no field of FIELDS in its header`, `PATH has no values`.
pub fn load_registry(r: &Registry) -> Result<RegistryData, String> {
    let shown = r.path.display();
    let f = std::fs::File::open(&r.path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let mut text = String::new();
    f.take(MAX_REGISTRY_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read {shown}: {e}"))?;
    if text.len() as u64 > MAX_REGISTRY_BYTES {
        return Err(format!("{shown} is over 1 MiB"));
    }
    let is_csv = r
        .path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let mut data = RegistryData::default();
    if is_csv {
        csv(&text, r, &mut data).map_err(|e| format!("{shown}: {e}"))?;
    } else {
        let v: Value =
            serde_json::from_str(&text).map_err(|e| format!("{shown} is not valid JSON: {e}"))?;
        json(&v, r, &mut data, 0);
    }
    if data.values.is_empty() {
        return Err(format!("{shown} has no values"));
    }
    Ok(data)
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn json(v: &Value, r: &Registry, out: &mut RegistryData, depth: usize) {
    if depth > 3 || out.values.len() >= MAX_REGISTRY_VALUES {
        return;
    }
    match v {
        Value::Array(items) => {
            for it in items {
                json(it, r, out, depth + 1);
            }
        }
        Value::Object(m) if depth > 0 => {
            let mut vals = Vec::new();
            // In the order of `fields` (a reference resolves to the first that fits).
            let picked: Vec<&Value> = if r.fields.is_empty() {
                m.iter()
                    .filter(|(k, _)| *k != &r.key)
                    .map(|(_, x)| x)
                    .collect()
            } else {
                r.fields.iter().filter_map(|f| m.get(f)).collect()
            };
            for x in picked {
                match x {
                    Value::Array(xs) => vals.extend(xs.iter().filter_map(scalar)),
                    x => vals.extend(scalar(x)),
                }
            }
            if let Some(key) = m.get(&r.key).and_then(scalar) {
                out.keyed.insert(key, vals.clone());
            }
            out.values.extend(vals);
        }
        // A top-level object: `{ "payees": [...] }`.
        Value::Object(m) => {
            for x in m.values() {
                json(x, r, out, depth + 1);
            }
        }
        x => out.values.extend(scalar(x)),
    }
    out.values.truncate(MAX_REGISTRY_VALUES);
}

/// One CSV line's fields (RFC 4180 quoting: `"a,b"`, `""` inside quotes).
fn csv_fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter().map(|s| s.trim().to_string()).collect()
}

fn csv(text: &str, r: &Registry, out: &mut RegistryData) -> Result<(), String> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = csv_fields(lines.next().ok_or("no header line")?);
    let cols: Vec<usize> = header
        .iter()
        .enumerate()
        .filter(|(_, h)| *h != &r.key && (r.fields.is_empty() || r.fields.contains(h)))
        .map(|(i, _)| i)
        .collect();
    if cols.is_empty() {
        return Err(format!("no field of {:?} in its header", r.fields));
    }
    let key = header.iter().position(|h| h == &r.key);
    for line in lines {
        if out.values.len() >= MAX_REGISTRY_VALUES {
            break;
        }
        let f = csv_fields(line);
        let vals: Vec<String> = cols
            .iter()
            .filter_map(|&i| f.get(i).filter(|s| !s.is_empty()).cloned())
            .collect();
        if let Some(k) = key.and_then(|i| f.get(i)) {
            out.keyed.insert(k.clone(), vals.clone());
        }
        out.values.extend(vals);
    }
    Ok(())
}

/// Loads what the check of a call governed by `c` needs: the registries its params name, and
/// (when `with_budget` and it has a budget) what was spent this session and this UTC day.
/// Runs inside the hook's transaction, so the spending read here and the spending recorded
/// with the decision are one atomic step.
///
/// # Errors
///
/// A database error reading the spending (a registry that cannot be read is no error here:
/// its error is kept, and the check denies the values it would have allowed).
pub fn load_inputs(
    store: &crate::state::Store,
    session: &str,
    c: &Contract,
    set: &Contracts,
    with_budget: bool,
    now: i64,
) -> crate::state::Result<Inputs> {
    let mut inputs = Inputs {
        day: budget::day_of(now),
        ..Inputs::default()
    };
    for p in c.params.values() {
        for s in &p.sources {
            if let Source::Registry(n) = s {
                if inputs.registries.contains_key(n) {
                    continue;
                }
                let data = match set.registries.get(n) {
                    Some(r) => load_registry(r),
                    None => Err(format!("no registry named '{n}'")),
                };
                inputs.registries.insert(n.clone(), data);
            }
        }
    }
    if let (true, Some(_)) = (with_budget, &c.budget) {
        inputs.spent = Some(store.contract_spent(&c.label(), session, inputs.day)?);
    }
    Ok(inputs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn reg(path: PathBuf, fields: &[&str]) -> Registry {
        Registry {
            name: "payees".into(),
            path,
            fields: fields.iter().map(|s| s.to_string()).collect(),
            key: "id".into(),
        }
    }

    #[test]
    fn prompt_source() {
        let prompts = vec![
            "please refund gb29 nwbk 6016 1331 9268 19 for what they sent".to_string(),
            "and mail bob@example.com".to_string(),
        ];
        assert!(from_prompt(Norm::Iban, "GB29NWBK60161331926819", &prompts));
        assert!(from_prompt(Norm::Email, "bob@example.com", &prompts));
        assert!(!from_prompt(
            Norm::Iban,
            "US133000000121212121212",
            &prompts
        ));
        assert!(!from_prompt(Norm::Email, "eve@example.com", &[]));
    }

    #[test]
    fn registry_json_and_csv() {
        let dir = tempfile::tempdir().unwrap();
        let j = dir.path().join("p.json");
        std::fs::write(
            &j,
            r#"[{"id": "acme", "name": "ACME Rentals", "iban": "UK12 3456 7890 1234 5678 90", "note": "x"}, "DE89370400440532013000"]"#,
        )
        .unwrap();
        let d = load_registry(&reg(j.clone(), &["iban", "name"])).unwrap();
        assert!(from_registry(Norm::Iban, "UK12345678901234567890", &d));
        assert!(from_registry(Norm::Iban, "DE89370400440532013000", &d));
        assert!(from_registry(Norm::Account, "acmerentals", &d));
        assert!(
            !d.values.contains(&"x".to_string()),
            "only the named fields"
        );
        assert_eq!(d.keyed["acme"].len(), 2);
        let c = dir.path().join("p.csv");
        std::fs::write(
            &c,
            "id,name,iban\nacme,\"ACME, Rentals\",UK12345678901234567890\n",
        )
        .unwrap();
        let d = load_registry(&reg(c, &["iban"])).unwrap();
        assert_eq!(d.values, vec!["UK12345678901234567890".to_string()]);
        assert!(load_registry(&reg(dir.path().join("missing.json"), &[])).is_err());
        let big = dir.path().join("big.json");
        std::fs::write(&big, vec![b' '; (MAX_REGISTRY_BYTES + 10) as usize]).unwrap();
        assert!(load_registry(&reg(big, &[]))
            .unwrap_err()
            .contains("over 1 MiB"));
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, "[1,").unwrap();
        assert!(load_registry(&reg(bad, &[])).is_err());
    }
}
