//! Settings files with comments (JSONC): Gemini CLI strips `//` and `/* */` comments before
//! it parses its `settings.json` (so users keep notes there), while Claude Code, Codex and
//! Cursor read plain JSON. A file with comments is parsed here, and edited in place on the
//! `jsonc-parser` crate's concrete syntax tree: only the values that change are touched, so
//! every comment, blank line and the rest of the layout keep their bytes.
//!
//! Only comments are allowed: no trailing commas, single quotes or other JSON5 forms, which
//! Gemini CLI's reader (comments stripped, then `JSON.parse`) refuses too. Install, uninstall
//! and doctor only; never on the hook's path.

use super::InstallError;
use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject, CstRootNode};
use jsonc_parser::ParseOptions;
use serde_json::{Map, Value};
use std::path::Path;

/// Deepest nesting of arrays and objects we parse (serde_json's own limit is 128).
pub const MAX_DEPTH: usize = 128;

/// What Gemini CLI accepts: comments, and otherwise plain JSON.
fn options() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

/// The deepest nesting of `[` and `{` outside strings and comments, counted up to
/// `MAX_DEPTH + 1` (the parser recurses; this keeps a hostile file from overflowing the stack).
fn depth(text: &str) -> usize {
    let b = text.as_bytes();
    let (mut i, mut d, mut max) = (0, 0usize, 0usize);
    while i < b.len() && max <= MAX_DEPTH {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b'[' | b'{' => {
                d += 1;
                max = max.max(d);
            }
            b']' | b'}' => d = d.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    max
}

/// Parses JSON with comments into a document (key order kept).
///
/// # Errors
///
/// An [`InstallError`] at `path`: `<line>:<column>: not valid JSON (<message>); the file was
/// not changed`, `nested more than 128 deep; the file was not changed`, or `the top level is
/// not a JSON object`.
pub fn parse(path: &Path, text: &str) -> Result<Map<String, Value>, InstallError> {
    if depth(text) > MAX_DEPTH {
        return Err(InstallError::at(
            path,
            format!("nested more than {MAX_DEPTH} deep; the file was not changed"),
        ));
    }
    match jsonc_parser::parse_to_serde_value::<Value>(text, &options()) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(InstallError::at(path, "the top level is not a JSON object")),
        Err(e) => Err(parse_error(path, &e)),
    }
}

/// The error for a file that does not parse: `<path>: LINE:COL: not valid JSON (why); the file
/// was not changed`.
fn parse_error(path: &Path, e: &jsonc_parser::errors::ParseError) -> InstallError {
    InstallError::at(
        path,
        format!(
            "{}:{}: not valid JSON ({}); the file was not changed",
            e.line_display(),
            e.column_display(),
            e.kind()
        ),
    )
}

/// The text of every comment, in order (a change to any of them is a change by the user).
pub fn comments(text: &str) -> Vec<String> {
    if depth(text) > MAX_DEPTH {
        return Vec::new();
    }
    let Ok(root) = CstRootNode::parse(text, &options()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut stack: Vec<CstNode> = root.children();
    stack.reverse();
    while let Some(n) = stack.pop() {
        if let Some(c) = n.as_comment() {
            out.push(c.raw_value());
        }
        let mut kids = n.children();
        kids.reverse();
        stack.extend(kids);
    }
    out
}

/// Rewrites `text` (whose document is `old`) so that its document becomes `new`, touching only
/// the values that differ: properties and list elements that are gone are removed, new ones
/// are inserted where `new` has them, changed scalars are replaced. Comments and layout
/// elsewhere keep their bytes.
///
/// # Errors
///
/// An [`InstallError`] at `path` when the text does not parse, or when the edited text would
/// not read back as `new` (`cannot edit it keeping its comments; the file was not changed`).
pub fn edit(
    path: &Path,
    text: &str,
    old: &Map<String, Value>,
    new: &Map<String, Value>,
) -> Result<String, InstallError> {
    let root = CstRootNode::parse(text, &options()).map_err(|e| parse_error(path, &e))?;
    let obj = root.object_value_or_set();
    sync_object(&obj, old, new);
    let out = root.to_string();
    match parse(path, &out) {
        Ok(doc) if &doc == new => Ok(out),
        _ => Err(InstallError::at(
            path,
            "cannot edit it keeping its comments; the file was not changed",
        )),
    }
}

fn input(v: &Value) -> CstInputValue {
    match v {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(a) => CstInputValue::Array(a.iter().map(input).collect()),
        Value::Object(m) => {
            CstInputValue::Object(m.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

fn sync_object(obj: &CstObject, old: &Map<String, Value>, new: &Map<String, Value>) {
    for prop in obj.properties() {
        let gone = prop
            .name()
            .and_then(|n| n.decoded_value().ok())
            .is_some_and(|n| !new.contains_key(&n));
        if gone {
            prop.remove();
        }
    }
    for (i, (k, v)) in new.iter().enumerate() {
        let Some(prop) = obj.get(k) else {
            obj.insert(i, k, input(v));
            continue;
        };
        let before = old.get(k);
        if before == Some(v) {
            continue;
        }
        match (before, v, prop.value()) {
            (Some(Value::Object(o)), Value::Object(n), Some(node))
                if node.as_object().is_some() =>
            {
                if let Some(o2) = node.as_object() {
                    sync_object(&o2, o, n);
                }
            }
            (Some(Value::Array(o)), Value::Array(n), Some(node)) if node.as_array().is_some() => {
                if let Some(a) = node.as_array() {
                    sync_array(&a, o, n);
                }
            }
            _ => prop.set_value(input(v)),
        }
    }
}

/// Keeps the longest run of elements common to both lists (in order), removes the other old
/// ones and inserts the other new ones at their places.
fn sync_array(arr: &CstArray, old: &[Value], new: &[Value]) {
    let elements = arr.elements();
    if elements.len() != old.len() {
        // The tree and the document disagree (cannot happen for text that parsed): replace
        // the whole list.
        for e in elements {
            e.remove();
        }
        for (i, v) in new.iter().enumerate() {
            arr.insert(i, input(v));
        }
        return;
    }
    let (n, m) = (old.len(), new.len());
    let mut t = vec![0u32; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i * (m + 1) + j] = if old[i] == new[j] {
                t[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                t[(i + 1) * (m + 1) + j].max(t[i * (m + 1) + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut keep_old = vec![false; n];
    let mut keep_new = vec![false; m];
    while i < n && j < m {
        if old[i] == new[j] {
            keep_old[i] = true;
            keep_new[j] = true;
            i += 1;
            j += 1;
        } else if t[(i + 1) * (m + 1) + j] >= t[i * (m + 1) + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    for (e, keep) in elements.into_iter().zip(keep_old) {
        if !keep {
            e.remove();
        }
    }
    for (j, v) in new.iter().enumerate() {
        if !keep_new[j] {
            arr.insert(j, input(v));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_depth() {
        let t = "{\n  // a\n  \"x\": 1 /* b */\n}\n";
        assert_eq!(comments(t), ["// a", "/* b */"]);
        assert!(parse(Path::new("s"), t).is_ok());
        assert!(
            parse(Path::new("s"), "{\"a\": 1,}").is_err(),
            "no trailing commas"
        );
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(100_000), "]".repeat(100_000));
        let e = parse(Path::new("s"), &deep).unwrap_err();
        assert!(e.to_string().contains("nested"), "{e}");
    }

    #[test]
    fn edits_keep_comments() {
        let t = "{\n  // theme\n  \"theme\": \"x\", /* keep */\n  \"list\": [1, 2, 3]\n}\n";
        let old = parse(Path::new("s"), t).unwrap();
        let mut new = old.clone();
        new.insert("list".into(), serde_json::json!([1, 3, 4]));
        new.insert("added".into(), serde_json::json!({"k": true}));
        let out = edit(Path::new("s"), t, &old, &new).unwrap();
        assert!(
            out.contains("// theme") && out.contains("/* keep */"),
            "{out}"
        );
        assert_eq!(parse(Path::new("s"), &out).unwrap(), new);
        let back = edit(Path::new("s"), &out, &new, &old).unwrap();
        assert_eq!(parse(Path::new("s"), &back).unwrap(), old);
    }
}
