//! A prompt the user submitted: remembered as trusted input, with its values (addresses, URLs,
//! numbers) recorded as the user's.

use super::{fold, to_pairs, Evaluation};
use crate::decision::{Decision, Reason, Verdict};
use crate::event::Event;
use crate::provenance;
use crate::session::{Effect, Origin};
use crate::text::cap;

/// Largest prompt remembered (bytes); the rest is cut at a character boundary.
pub const MAX_PROMPT: usize = 256 * 1024;

/// Decides a prompt event: always no objection; the effects remember it.
pub fn evaluate(ev: &Event) -> Evaluation {
    let text = ev.prompt.as_deref().unwrap_or("");
    let capped = cap(text, MAX_PROMPT);
    let vals = to_pairs(&provenance::extract(capped));
    let n = vals.len();
    Evaluation {
        decision: Decision::new(
            Verdict::Allow,
            Reason::PromptRecorded,
            format!("prompt remembered as the user's ({n} values)"),
        ),
        effects: vec![
            Effect::RecordPrompt(fold(capped)),
            Effect::RecordValues {
                values: vals,
                origin: Origin::User,
                source: "prompt".into(),
            },
        ],
    }
}
