//! Detection: does a text carry instructions aimed at the agent (prompt injection)?
//!
//! Detectors only add evidence; the policy (`crate::policy`) decides. The same code serves the
//! hook, `intentshield check` and `intentshield scan`.
//!
//! Shape: [`scan`] normalizes the text (`normalize`), finds rule candidates with one
//! pass over every rule's literals (a two-byte-prefix index that costs microseconds to build), runs only those rules' regexes in windows
//! around their hits (`rules`), and returns a [`Report`].

pub mod classes;
pub mod learned;
pub mod normalize;
pub mod plant;
pub mod rules;
pub mod unspecified;

/// Where a text meets the guard; rules are tuned per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// A tool's result (untrusted data the agent reads).
    ToolOutput,
    /// A tool's description or schema text (MCP `tools/list`).
    Description,
    /// A value in a tool call's arguments.
    Argument,
    /// A user prompt (trusted; scanned only for evaluation).
    Prompt,
}

impl TextKind {
    /// Position of this kind in a rule's weights (`[tool_output, description, argument,
    /// prompt]`), the order every rule table of this module uses.
    pub fn index(self) -> usize {
        match self {
            TextKind::ToolOutput => 0,
            TextKind::Description => 1,
            TextKind::Argument => 2,
            TextKind::Prompt => 3,
        }
    }

    /// `tool_output`, `description`, `argument` or `prompt` (the corpus format's `kind`).
    pub fn name(self) -> &'static str {
        match self {
            TextKind::ToolOutput => "tool_output",
            TextKind::Description => "description",
            TextKind::Argument => "argument",
            TextKind::Prompt => "prompt",
        }
    }

    /// Parses the corpus format's `kind`.
    pub fn from_name(s: &str) -> Option<TextKind> {
        match s {
            "tool_output" => Some(TextKind::ToolOutput),
            "description" => Some(TextKind::Description),
            "argument" => Some(TextKind::Argument),
            "prompt" => Some(TextKind::Prompt),
            _ => None,
        }
    }
}

/// One rule that matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Stable rule id, e.g. `override.ignore_previous`.
    pub rule: &'static str,
    /// Rule family, e.g. `instruction_override`.
    pub family: &'static str,
    /// Byte range of the match in the normalized text.
    pub start: usize,
    /// End of the byte range (exclusive).
    pub end: usize,
    /// The matched normalized text, at most 160 bytes.
    pub excerpt: String,
    /// The rule's weight for the scanned kind (see [`rules::FLAG_THRESHOLD`]).
    pub weight: u8,
    /// Where the match lies: `text` (visible input), `base64` or `unicode_tags` (decoded
    /// hidden text), `normalizer` (evidence found while normalizing), or `learned` (the
    /// learned scorer's judgement of a window, which places no match).
    pub origin: &'static str,
    /// Byte offset in the *input* text where the match (or the encoded run) starts, when known.
    pub input_offset: Option<usize>,
}

/// The result of scanning one text.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Every rule that matched, in text order.
    pub findings: Vec<Finding>,
    /// True when the findings reach the operating point the hook uses.
    pub flagged: bool,
    /// Sum over families of the highest weight found (plus one for instructions hidden in
    /// encoded text); `flagged` is `score >= rules::FLAG_THRESHOLD`.
    pub score: u32,
    /// True when the input exceeded [`normalize::MAX_INPUT`] and only its start was scanned.
    pub truncated: bool,
}

impl Report {
    /// Distinct rule ids of the findings with a non-zero weight, in text order: the reason codes.
    pub fn reasons(&self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = Vec::new();
        for f in &self.findings {
            if f.weight > 0 && !v.contains(&f.rule) {
                v.push(f.rule);
            }
        }
        v
    }
}

/// The excerpts of `findings` as a decision's evidence: at most `n`, in the findings' order,
/// each passage once (two rules that match the same words give one line; an excerpt inside a
/// longer one already kept adds nothing, and a longer one replaces the shorter it holds).
pub fn distinct_excerpts<'a>(
    findings: impl IntoIterator<Item = &'a Finding>,
    n: usize,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in findings {
        let e = f.excerpt.trim();
        if e.is_empty() || out.iter().any(|k| k.contains(e)) {
            continue;
        }
        if let Some(pos) = out.iter().position(|k| e.contains(k.as_str())) {
            out[pos] = e.to_string();
            let mut i = pos + 1;
            while i < out.len() {
                if e.contains(out[i].as_str()) {
                    out.remove(i);
                } else {
                    i += 1;
                }
            }
            continue;
        }
        if out.len() == n {
            break;
        }
        out.push(e.to_string());
    }
    out
}

/// Scans `text` as `kind`. Never panics; cost is linear in the text size (at most
/// [`normalize::MAX_INPUT`] bytes are read).
///
/// Operating point: each finding carries its rule's weight for `kind` (0-3); per family the
/// highest weight counts, and the text is flagged when the sum reaches
/// [`rules::FLAG_THRESHOLD`] (3). Strong rules flag alone; weak ones need another family.
pub fn scan(text: &str, kind: TextKind) -> Report {
    let norm = normalize::normalize(text);
    let mut findings = classes::run(&norm, kind);
    let planted = plant::run(&norm, kind);
    // `plant.unspecified_step` needs the prerequisite framing: texts without it cost nothing.
    let framed = planted.iter().any(|f| f.rule == "coercion.prerequisite");
    findings.extend(planted);
    if framed {
        findings.extend(unspecified::run(&norm, kind));
    }
    let anchors: Vec<usize> = findings.iter().map(|f| f.start).collect();
    findings.extend(rules::run(&norm, kind, &anchors));
    findings.sort_by_key(|f| f.start);
    for f in &mut findings {
        f.weight = rules::weight_of(f.rule, kind);
        // Text that quotes an attack to discuss it ("phrases such as ...") counts as weak. A
        // flooded region is not a quote: it was not analysed, whatever precedes it.
        if f.weight > 1
            && f.rule != rules::FLOOD_RULE
            && rules::looks_like_mention(&norm.text, f.start)
        {
            f.weight = 1;
        }
        if f.rule.starts_with("hidden.") || f.rule.starts_with("obfuscation.") {
            f.origin = "normalizer";
            f.input_offset = None;
        } else if let Some(seg) = norm
            .segment_at(f.start)
            .filter(|_| f.start >= norm.visible_len)
        {
            f.origin = seg.origin;
            f.input_offset = Some(seg.input_offset);
        } else {
            f.origin = "text";
            f.input_offset = norm.original_offset(f.start);
        }
    }
    // A protected path named as the object of a `plant` rule (agent configuration, a
    // persistence target) is that rule's evidence: it is not counted again as a sensitive file.
    let planted: Vec<(usize, usize)> = findings
        .iter()
        .filter(|f| matches!(f.family, "agent_control" | "persistence"))
        .map(|f| plant::sentence_of(&norm.text, f.start))
        .collect();
    for f in &mut findings {
        if f.family == "sensitive_file"
            && f.weight == 1
            && planted.iter().any(|&(s, e)| f.start >= s && f.start < e)
        {
            f.weight = 0;
        }
    }
    let mut score = rules::score(&findings, &norm);
    // The learned scorer only adds evidence (its own family, its weight on top of the rules'
    // score); it never removes a finding.
    if kind != TextKind::Prompt {
        // It reads the text as it was trained on it: without the JSON values joined by
        // normalization (always the last segment), which would shift its windows.
        let learned_end = norm
            .segments
            .iter()
            .find(|s| s.origin == "json_values")
            .map_or(norm.text.len(), |s| s.start.saturating_sub(1));
        if let Some(f) = learned::finding(&norm.text[..learned_end]) {
            score += u32::from(f.weight);
            findings.insert(0, f);
        }
    }
    Report {
        findings,
        flagged: score >= rules::FLAG_THRESHOLD,
        score,
        truncated: norm.truncated,
    }
}
