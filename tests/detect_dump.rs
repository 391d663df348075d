//! Equivalence check for speed work on the detector: dumps every finding (rule, span, excerpt,
//! weight, origin, input offset) of every corpus text in `../shared/corpora` plus the red-team
//! outputs, so that two builds can be compared byte for byte. Run with
//! `INTENTSHIELD_DUMP=/tmp/x.txt cargo test --test detect_dump -- --ignored` and `diff` the
//! files of the builds compared.

use std::fmt::Write as _;
use std::path::Path;

use intentshield::detect::{scan, TextKind};

mod common;

#[test]
#[ignore = "writes a dump for comparing builds; run by hand"]
fn dump_findings() {
    let Ok(out) = std::env::var("INTENTSHIELD_DUMP") else {
        return;
    };
    let mut s = String::new();
    for (_, v) in &common::corpus_items().expect("../shared/corpora") {
        let (Some(text), Some(kind)) = (
            v["text"].as_str(),
            v["kind"].as_str().and_then(TextKind::from_name),
        ) else {
            continue;
        };
        // Every text as its own kind and as a tool output (the hook's hot path).
        for k in [kind, TextKind::ToolOutput] {
            let r = scan(text, k);
            let _ = writeln!(
                s,
                "{} {} flagged={} score={} trunc={}",
                v["id"],
                k.name(),
                r.flagged,
                r.score,
                r.truncated
            );
            for f in &r.findings {
                let _ = writeln!(
                    s,
                    "  {} {} {}..{} w={} {} {:?} {:?}",
                    f.rule, f.family, f.start, f.end, f.weight, f.origin, f.input_offset, f.excerpt
                );
            }
        }
    }
    // Every string of the red-team sessions (tool outputs, commands, descriptions), as a tool
    // output.
    let rt = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/cases/redteam/sessions.jsonl");
    if let Ok(all) = std::fs::read_to_string(rt) {
        for (n, line) in all.lines().enumerate() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let mut stack = vec![&v];
            let mut k = 0;
            while let Some(x) = stack.pop() {
                match x {
                    serde_json::Value::String(t) if t.len() >= 16 => {
                        k += 1;
                        let r = scan(t, TextKind::ToolOutput);
                        let _ = writeln!(s, "rt{n}.{k} flagged={} score={}", r.flagged, r.score);
                        for f in &r.findings {
                            let _ = writeln!(
                                s,
                                "  {} {}..{} w={} {} {:?} {:?}",
                                f.rule,
                                f.start,
                                f.end,
                                f.weight,
                                f.origin,
                                f.input_offset,
                                f.excerpt
                            );
                        }
                    }
                    serde_json::Value::Array(a) => stack.extend(a.iter()),
                    serde_json::Value::Object(o) => stack.extend(o.values()),
                    _ => {}
                }
            }
        }
    }
    std::fs::write(out, s).unwrap();
}
