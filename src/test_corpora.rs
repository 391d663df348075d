//! The corpus texts the unit tests hold new code to its reference on: the `text` field of the
//! JSONL files in `../shared/corpora` (the team's labelled corpora, beside the checkout). When
//! the folder is absent the list is empty and a message says so.

use std::path::Path;

/// Whether `../shared/corpora` is there: tests hold their corpus-size floors only then (without
/// it they run on their own texts and say that the corpus was skipped).
pub(crate) fn present() -> bool {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpora")
        .is_dir()
}

/// The `text` of every `step`-th line of each corpus file, at most `per_file` lines read per
/// file, files in name order.
pub(crate) fn texts(step: usize, per_file: usize) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        eprintln!("skipped the corpus texts: {} not found", dir.display());
        return Vec::new();
    };
    let mut files: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let body = std::fs::read_to_string(&f).unwrap_or_default();
        for line in body.lines().take(per_file).step_by(step.max(1)) {
            let v: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
            if let Some(t) = v.get("text").and_then(serde_json::Value::as_str) {
                out.push(t.to_string());
            }
        }
    }
    out
}

/// [`texts`], each as detection normalizes it (`detect::normalize`).
pub(crate) fn normalized(step: usize, per_file: usize) -> Vec<String> {
    texts(step, per_file)
        .iter()
        .map(|t| crate::detect::normalize::normalize(t).text)
        .collect()
}
