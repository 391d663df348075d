//! Regression floors on the development corpora in `../shared/corpora` (skipped when absent).
//! The floors are a little under the figures measured when they were set (docs/evaluation.md),
//! so a rule change that loses recall or adds false positives fails here.

use std::collections::BTreeMap;

use intentshield::detect::{scan, TextKind};

mod common;

#[derive(Default, Debug)]
struct T {
    inj: u32,
    caught: u32,
    ben: u32,
    fp: u32,
}

#[test]
fn corpus_floors() {
    let Some(items) = common::corpus_items() else {
        return;
    };
    let mut t: BTreeMap<(String, String), T> = BTreeMap::new();
    for (stem, v) in &items {
        let (Some(text), Some(kind)) = (
            v["text"].as_str(),
            v["kind"].as_str().and_then(TextKind::from_name),
        ) else {
            continue;
        };
        let flagged = scan(text, kind).flagged;
        let e = t
            .entry((stem.clone(), kind.name().to_string()))
            .or_default();
        match v["label"].as_str() {
            Some("injection") => {
                e.inj += 1;
                e.caught += u32::from(flagged);
            }
            Some("benign") => {
                e.ben += 1;
                e.fp += u32::from(flagged);
            }
            _ => {}
        }
    }
    for (k, v) in &t {
        println!("{k:?}: {v:?}");
    }
    let recall = |s: &str, k: &str| {
        let v = &t[&(s.to_string(), k.to_string())];
        v.caught as f64 / v.inj.max(1) as f64
    };
    let fpr = |s: &str, k: &str| {
        let v = &t[&(s.to_string(), k.to_string())];
        v.fp as f64 / v.ben.max(1) as f64
    };
    // Recall floors (injection items).
    for (s, k, floor) in [
        ("agentdojo_injection_payloads", "tool_output", 0.83),
        ("agentdojo_tool_outputs", "tool_output", 0.84),
        ("bipia", "tool_output", 0.58),
        ("garak_latentinjection", "tool_output", 0.97),
        ("injecagent_attacker_cases", "tool_output", 0.55),
        ("msb_mcp_security_bench", "description", 0.97),
        ("msb_mcp_security_bench", "tool_output", 0.95),
        ("invariant_mcp_injection_experiments", "description", 1.0),
    ] {
        let r = recall(s, k);
        assert!(r >= floor, "{s}/{k}: recall {r:.3} below floor {floor}");
    }
    // False-positive ceilings (benign items).
    for (s, k, ceil) in [
        ("pypi_readmes", "tool_output", 0.0),
        ("mcp_official_servers_descriptions", "description", 0.0),
        ("github_mcp_server_descriptions", "description", 0.0),
        ("agentdojo_tool_descriptions", "description", 0.0),
        ("agentdojo_tool_outputs", "tool_output", 0.0),
        ("bipia", "tool_output", 0.005),
        ("garak_latentinjection", "tool_output", 0.0),
        ("tensor_trust_defenses", "prompt", 0.02),
    ] {
        let f = fpr(s, k);
        assert!(f <= ceil, "{s}/{k}: FP rate {f:.3} above ceiling {ceil}");
    }
}
