//! Detection: does a text carry instructions aimed at the agent (prompt injection)?
//!
//! Detectors only add evidence; the policy (`crate::policy`) decides. The same code serves the
//! hook, `intentshield check` and `intentshield scan`.
//!
//! Shape: [`scan`] normalizes the text (`normalize`), finds rule candidates with one
//! Aho-Corasick pass over every rule's literals, runs only those rules' regexes in windows
//! around their hits (`rules`), and returns a [`Report`].

pub mod normalize;
pub mod rules;

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
}

/// The result of scanning one text.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Every rule that matched, in text order.
    pub findings: Vec<Finding>,
    /// True when the findings reach the operating point the hook uses.
    pub flagged: bool,
}

/// Scans `text` as `kind`. Never panics; cost is bounded by the text size.
pub fn scan(text: &str, kind: TextKind) -> Report {
    let norm = normalize::normalize(text);
    let findings = rules::run(&norm, kind);
    let flagged = !findings.is_empty();
    Report { findings, flagged }
}
