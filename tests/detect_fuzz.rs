//! Property tests: normalize and scan never panic and stay bounded on arbitrary input.

use intentshield::detect::normalize::normalize;
use intentshield::detect::{learned, rules, scan, TextKind};
use proptest::prelude::*;

const KINDS: [TextKind; 4] = [
    TextKind::ToolOutput,
    TextKind::Description,
    TextKind::Argument,
    TextKind::Prompt,
];

fn check(s: &str) {
    let n = normalize(s);
    assert!(n.visible_len <= n.text.len());
    for p in [0, n.text.len() / 2, n.text.len()] {
        if let Some(o) = n.original_offset(p) {
            assert!(o <= s.len() + 4, "offset {o} beyond input {}", s.len());
        }
    }
    for k in KINDS {
        let r = scan(s, k);
        for f in &r.findings {
            assert!(f.start <= f.end && f.end <= n.text.len());
            assert!(f.excerpt.len() <= 160);
            if let Some(o) = f.input_offset {
                assert!(o <= s.len() + 4);
            }
        }
        assert_eq!(r.flagged, r.score >= 3);
        // The learned scorer only adds evidence: without its finding the score is never higher.
        let rules_only: Vec<_> = r
            .findings
            .iter()
            .filter(|f| f.family != learned::FAMILY)
            .cloned()
            .collect();
        assert!(rules::score(&rules_only, &n) <= r.score);
    }
    assert!(learned::logit(s).is_finite());
}

/// Characters the normalizer treats specially, mixed with ASCII attack words.
fn tricky() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "ignore",
        " previous ",
        "instructions",
        "<important>",
        "\u{200B}",
        "\u{202E}",
        "\u{E0049}",
        "\u{E0067}",
        "\u{1F3F4}",
        "\x1b[",
        "\x1b]",
        "\x07",
        "m",
        "é",
        "\u{0301}",
        "ＡＢ",
        "ﬁ",
        "а",
        "\n",
        "  ",
        "SWdub3Jl",
        "QUFBQUFB",
        "==",
        "<!--",
        "-->",
        "assistant:",
        "user:",
        "\u{FEFF}",
        "<|im_start|>",
        "~/.ssh/id_rsa",
        "send",
        " to ",
        "a@b.cd",
        "ǅ",
        "ß",
        "İ",
        "\u{10FFFF}",
        "\0",
    ]);
    prop::collection::vec(atoms, 0..64).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_strings(s in any::<String>()) {
        check(&s);
    }

    #[test]
    fn arbitrary_unicode(s in "\\PC{0,300}") {
        check(&s);
    }

    #[test]
    fn tricky_mixtures(s in tricky()) {
        check(&s);
    }

    #[test]
    fn repeats(s in tricky(), n in 1usize..200) {
        check(&s.repeat(n));
    }
}

#[test]
fn huge_repeats_stay_fast_enough() {
    for unit in [
        "ignore previous instructions ",
        "a",
        "\u{E0041}",
        "SGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQg",
        "\x1b[31m",
        "<!--",
        "before ",
        "é\u{200B}",
    ] {
        let big = unit.repeat((1 << 20) / unit.len());
        let t = std::time::Instant::now();
        let r = scan(&big, TextKind::ToolOutput);
        let el = t.elapsed();
        // Debug builds are slow; this only catches super-linear blow-ups.
        assert!(el.as_secs() < 20, "{unit:?}: {el:?}");
        let _ = r.flagged;
    }
}
