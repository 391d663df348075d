//! What a shell command line does: which programs it runs, which files it reads and writes,
//! whether it reaches the network, pipes a download into an interpreter, feeds secrets to the
//! network, or starts a nested coding agent with its permission checks off.
//!
//! The line is parsed by brush-parser (a bash parser in pure Rust) into a syntax tree, and
//! the whole tree is walked: every simple command anywhere becomes a [`SimpleCommand`], in
//! pipelines, `&&`/`||` lists, subshells, groups, every branch of `if`/`case`, loop bodies,
//! function bodies (where defined, and at each call with its arguments), `[[ ]]`; a compound
//! command inside a pipeline joins it (`{ cat key; } | curl -T - …` is one flow). Command and
//! process substitutions, and those in here-strings and here-documents, are analysed as nested
//! lines attached to the command that holds them; so are the lines a command runs (`sh -c`,
//! `eval`, a here-document fed to a shell, `find -exec`, `xargs`, a script written and run in
//! the same line, code run through options). Within the line the walk follows literal
//! variables (`K=…; … $K`, `export`, `for x in LITERAL…`), `cd`/`pushd` (scoped to
//! subshells; unknown after a `cd` to an unknown place, or branches that disagree) and prefix
//! assignments. Words lose their quoting, `$'…'` is decoded and `${IFS}` splits, so
//! `$'\x72\x6d'${IFS}-rf` reads `rm -rf`; text computed at run time that cannot be seen
//! (`${b@P}`, `${!x}`, `$(…)` as a program name) is kept as written and flagged
//! ([`SimpleCommand::computed_program`]). A command it does not know is state-changing.
//!
//! What cannot be analysed says so ([`Analysis::unanalysable`], [`Unanalysable`]), never "no
//! effects": a line over [`MAX_COMMAND`] bytes, nested deeper than [`MAX_NESTING`] (counted by
//! a cheap scan before parsing, so that the parser's recursive descent cannot exhaust the
//! stack) or [`MAX_DEPTH`] levels of nested lines, not valid shell syntax, or on which the
//! parser panics (caught: it may unwrap on odd input).
//!
//! Why brush-parser: measured on this machine (release builds), it parses a typical 60–100
//! byte command in 3–10 µs and a 4 KB nested command in ~0.5 ms (tokenize ~0.27 ms, PEG parse
//! ~0.43 ms), for ~0.5 MB of binary; tree-sitter-bash took 6–14 µs and ~0.66 ms and 1.1 MB of
//! C tables. It covers here-documents, `$'…'`, `${x@P}`, process substitution, `case` and
//! functions. Its uncached tokenizer is used (the cached one keeps a global cache); its word
//! parser gives the pieces of each word. Of the 17,111 tldr-pages example commands (alias and
//! keypress lines left out) it rejects 18: 16 are not valid bash either (SQL, zsh, unterminated
//! quotes, keypress notation), 2 are `select` loops, which it does not know. The whole
//! analysis (parse and walk) against the hand lexer it replaces, release build, medians of one
//! run: a 99-byte pipeline 10.3 µs (was 3.2 µs), 957 bytes of `if`/`for`/here-documents/
//! substitutions 133 µs (was 25 µs), 3.8 KB of the same 0.53 ms (was 0.10 ms); the parser is
//! most of it, and words without quotes or `$` skip the word parser.
//!
//! Where things live: `tree` (parsing, bounds, the walk), `words` (one word: quoting, `$'…'`,
//! variables, substitutions), `runs` (the command lines a command runs: `sh -c`, `eval`,
//! here-documents fed to a shell, `find -exec`, `xargs`, scripts written then run, code in
//! options), `expand` (the line's variables, what `xargs` is fed, `echo`/`printf` text),
//! `command` (one simple command: wrappers and their options, `cd`, git's global options, the
//! option reader), `programs` (the program tables), `writes` (what a command writes),
//! `scripts` (sed scripts and awk programs), `classify` (read-only, network, downloaders,
//! interpreters), `flows` (pipe-to-shell, secret egress, nested agents).

mod capabilities;
mod classify;
mod code_options;
mod command;
mod dests;
mod evaluated;
mod expand;
mod flows;
mod inline;
mod programs;
mod runs;
mod scripts;
#[cfg(test)]
mod testing;
mod tree;
mod words;
mod writes;

pub use command::{Dir, SimpleCommand};
pub use dests::{config_remote_url, destination_values, Dest, Dests, RemoteSet};
pub use flows::{
    glob_match, is_secret_path, is_secret_var, secret_kind, Flows, SecretFlow, SecretKind,
    SecretRead,
};
pub use inline::{
    facts as inline_facts_of, fork_bomb, is_shell, InlineCode, InlineFacts, Lang, TransformedFeed,
};
pub use writes::{WriteKind, WriteTarget};

use expand::Vars;

/// Longest command line analysed (bytes); a longer one is unanalysable
/// ([`Unanalysable::TooLong`]).
pub const MAX_COMMAND: usize = 256 * 1024;
/// Deepest `$(...)` nesting followed (command lines run by command lines: substitutions,
/// `sh -c`, `eval`…); deeper is unanalysable ([`Unanalysable::TooDeep`]).
pub const MAX_DEPTH: usize = 8;
/// Deepest syntactic nesting (`(`, `{`, backticks, `if`, `case`, loops) of one line handed to
/// the parser, counted by a cheap scan before parsing so that its recursive descent stays
/// well within the stack; deeper is unanalysable ([`Unanalysable::TooDeep`]).
pub const MAX_NESTING: usize = 40;

/// Why a command line (or a line nested in it) could not be analysed whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unanalysable {
    /// Longer than [`MAX_COMMAND`] bytes or 20,000 tokens.
    TooLong,
    /// Nested deeper than [`MAX_NESTING`] levels of syntax or [`MAX_DEPTH`] levels of lines.
    TooDeep,
    /// Not valid shell syntax (brush-parser's error, cut to 160 bytes): an unterminated quote,
    /// a stray `)`, `fi` without `if`…
    Unparsable(String),
    /// The parser panicked on it (caught).
    Panic,
}

impl Unanalysable {
    /// A short reason for messages: `too long`, `too deeply nested`, `not valid shell syntax`,
    /// `not parsable`.
    pub fn describe(&self) -> &'static str {
        match self {
            Unanalysable::TooLong => "too long",
            Unanalysable::TooDeep => "too deeply nested",
            Unanalysable::Unparsable(_) => "not valid shell syntax",
            Unanalysable::Panic => "not parsable",
        }
    }
}

/// The analysis of a whole command line.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// Pipelines, each a list of simple commands joined by `|`, in the order they appear
    /// anywhere in the tree (inside groups, subshells, every branch, loop and function
    /// bodies). A compound command inside a pipeline has its commands joined to it.
    pub pipelines: Vec<Vec<SimpleCommand>>,
    /// Analyses of command lines run by a command: `$(...)`, backtick, `<(...)` contents, the
    /// substitutions of here-strings and here-documents, `sh -c`, `eval`…, with the index of
    /// the pipeline and command that holds them (`usize::MAX` for both when no command does:
    /// a `case` word, a `for` list, `(( … ))`).
    pub nested: Vec<(usize, usize, Analysis)>,
    /// True when the line (or a line nested in it) could not be analysed whole: the caller
    /// must not treat what was seen as all there is. [`Analysis::unanalysable`] says why.
    pub incomplete: bool,
    /// Why [`Analysis::incomplete`] is set (the first reason met).
    pub unanalysable: Option<Unanalysable>,
    /// [`Analysis::plain_flows`], computed on first use: several checks of one call ask for
    /// it (secret egress, secret reads), and the walk over a long line is costly. Filled only
    /// by the policy's readers, after the analysis is complete.
    flows: std::cell::OnceCell<Flows>,
}

/// The last path component of a program word (`/usr/bin/systemd-run` → `systemd-run`).
pub fn basename_of(w: &str) -> &str {
    command::basename(w)
}

/// Analyses a command line. Never panics; bounded in size and depth.
pub fn analyze(cmd: &str) -> Analysis {
    tree::analyze_text(cmd, tree::Ctx::new(0, &Dir::Start, &Vars::default()))
}

impl Analysis {
    /// Every simple command, nested ones included.
    pub fn all_commands(&self) -> Vec<&SimpleCommand> {
        let mut out: Vec<&SimpleCommand> = self.pipelines.iter().flatten().collect();
        for (_, _, n) in &self.nested {
            out.extend(n.all_commands());
        }
        out
    }

    /// Marks the analysis incomplete for `why` (the first reason is kept).
    fn mark(&mut self, why: Unanalysable) {
        self.incomplete = true;
        if self.unanalysable.is_none() {
            self.unanalysable = Some(why);
        }
    }

    /// Takes on the first reason a nested analysis could not be analysed whole.
    fn propagate(&mut self) {
        let why = self
            .nested
            .iter()
            .find_map(|(_, _, n)| n.unanalysable.clone());
        if let Some(why) = why {
            self.mark(why);
        }
    }
}
