//! Rule families (stub: the full table replaces this).

use super::normalize::Normalized;
use super::{Finding, TextKind};

/// Runs every rule on a normalized text.
pub fn run(norm: &Normalized, _kind: TextKind) -> Vec<Finding> {
    let mut out = Vec::new();
    for (rule, family, re) in [
        (
            "override.ignore_previous",
            "instruction_override",
            r"(ignore|disregard|forget)( all)? (previous|prior|above) (instructions|directions)",
        ),
        ("hidden.important_tag", "hidden_directive", r"<important>"),
        (
            "concealment.do_not_tell",
            "concealment",
            r"(do not|don't) (tell|mention|notify|inform) (the )?user",
        ),
    ] {
        if let Ok(re) = regex_lite::Regex::new(re) {
            if let Some(m) = re.find(&norm.text) {
                out.push(Finding {
                    rule,
                    family,
                    start: m.start(),
                    end: m.end(),
                    excerpt: m.as_str().chars().take(160).collect(),
                });
            }
        }
    }
    out
}
