//! Codex `config.toml`: the hooks feature switch, edited with `toml_edit` so comments, order
//! and formatting stay as they were.
//!
//! `[features] hooks = true` is the default since about Codex 0.124; the key was `codex_hooks`
//! before about 0.130 and is kept as an alias (hook-protocols.md §2.4, §2.5). We only turn a
//! switch the user set to `false` back on, and never create the file.

use super::InstallError;
use std::path::Path;
use toml_edit::{DocumentMut, Item, Value};

/// Line and column (1-based) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// Parses TOML.
///
/// # Errors
///
/// An [`InstallError`] at `path`: `<line>:<column>: not valid TOML (<parser message>); the
/// file was not changed`.
pub fn parse(path: &Path, text: &str) -> Result<DocumentMut, InstallError> {
    text.parse::<DocumentMut>().map_err(|e| {
        let (l, c) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
        let msg = e.message().to_string();
        InstallError::at(
            path,
            format!("{l}:{c}: not valid TOML ({msg}); the file was not changed"),
        )
    })
}

/// The switches under `[features]` that are set to `false`.
pub fn disabled_switches(doc: &DocumentMut) -> Vec<&'static str> {
    let Some(features) = doc.get("features").and_then(Item::as_table_like) else {
        return Vec::new();
    };
    ["hooks", "codex_hooks"]
        .into_iter()
        .filter(|k| features.get(k).and_then(Item::as_bool) == Some(false))
        .collect()
}

/// Turns the disabled hooks switches on; `None` when nothing needs to change.
///
/// # Errors
///
/// The [`parse`] error when `text` is not valid TOML.
pub fn enable_hooks(path: &Path, text: &str) -> Result<Option<String>, InstallError> {
    let mut doc = parse(path, text)?;
    let off = disabled_switches(&doc);
    if off.is_empty() {
        return Ok(None);
    }
    if let Some(features) = doc.get_mut("features").and_then(Item::as_table_like_mut) {
        for k in off {
            if let Some(v) = features.get_mut(k).and_then(Item::as_value_mut) {
                let decor = v.decor().clone();
                *v = Value::from(true);
                *v.decor_mut() = decor;
            }
        }
    }
    Ok(Some(doc.to_string()))
}

/// Turns the named `[features]` switches that are `true` back to `false` (what uninstall does
/// for the switches install turned on); `None` when none of them is `true`. The value's
/// comments and spacing are kept, so undoing [`enable_hooks`] gives the original bytes.
///
/// # Errors
///
/// The [`parse`] error when `text` is not valid TOML.
pub fn disable_hooks(
    path: &Path,
    text: &str,
    keys: &[&str],
) -> Result<Option<String>, InstallError> {
    let mut doc = parse(path, text)?;
    let Some(features) = doc.get_mut("features").and_then(Item::as_table_like_mut) else {
        return Ok(None);
    };
    let mut changed = false;
    for k in keys {
        if let Some(v) = features.get_mut(k).and_then(Item::as_value_mut) {
            if v.as_bool() == Some(true) {
                let decor = v.decor().clone();
                *v = Value::from(false);
                *v.decor_mut() = decor;
                changed = true;
            }
        }
    }
    Ok(changed.then(|| doc.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_the_switch_on_and_keeps_comments() {
        let p = Path::new("config.toml");
        let t =
            "# mine\nmodel = \"x\"\n\n[features]\n# why\nhooks = false # off for now\nother = 1\n";
        let out = enable_hooks(p, t).unwrap().unwrap();
        assert_eq!(out, t.replace("hooks = false", "hooks = true"));
        assert_eq!(enable_hooks(p, &out).unwrap(), None);
        assert_eq!(enable_hooks(p, "a = 1\n").unwrap(), None);
        assert_eq!(
            disable_hooks(p, &out, &["hooks"]).unwrap().as_deref(),
            Some(t)
        );
        assert_eq!(disable_hooks(p, t, &["hooks"]).unwrap(), None);
    }

    #[test]
    fn reports_line_and_column() {
        let e = enable_hooks(Path::new("c.toml"), "a = 1\nb = = 2\n").unwrap_err();
        assert!(e.to_string().starts_with("c.toml: 2:"), "{e}");
    }
}
