//! Check 8: the operator's `--review always`: every state-changing call is confirmed. (In a
//! tainted session the taint check already asks, so this adds nothing there.)

use super::Call;
use crate::config::Review;
use crate::decision::{Decision, Reason, Verdict};

/// Adds an ask for a state-changing call under `--review always`.
pub fn check(call: &mut Call<'_>) {
    let review = call.ctx.config.review;
    let covered_by_taint = call.view.session.tainted && review != Review::Never;
    if covered_by_taint || review != Review::Always || call.is_read {
        return;
    }
    let name = call.name.clone();
    call.verdicts.add(
        Decision::new(
            Verdict::Ask,
            Reason::ReviewAlways,
            format!("{name} changes state (review mode: always)"),
        )
        .rule("review.always"),
    );
}
