//! What a shell command line does: which programs it runs, which files it writes, whether it
//! reaches the network, pipes a download into an interpreter, feeds secrets to the network, or
//! starts a nested coding agent with its permission checks off.
//!
//! This is a small POSIX-shell lexer, not a shell: it understands quoting, `\` escapes,
//! `;` `&&` `||` `&` `|` and newlines, redirections (`>`, `>>`, `&>`, `N>`, `<`), `$(...)`,
//! backticks and `<(...)` (whose contents are analysed as command lines of their own), and
//! leading `VAR=value`, `sudo`, `env`, `nohup`, `time`, `timeout N`, `command`, `exec` wrappers.
//! Anything it cannot follow (here-docs, `eval` of a variable) it treats conservatively: a
//! command it does not know is state-changing. Input is bounded ([`MAX_COMMAND`]) and nesting
//! is bounded ([`MAX_DEPTH`]).
//!
//! Where things live: `lex` (tokens, quoting, here-documents, here-strings, `$'…'`), `parse`
//! (tokens into pipelines, `cd`s, and the command lines a command runs: `sh -c`, `eval`,
//! substitutions, `find -exec`, `xargs`), `expand` (variables, positional parameters, what
//! `xargs` is fed), `command` (one simple command: wrappers and their options, `cd`, git's
//! global options, the option reader), `programs` (the program tables), `writes` (what a
//! command writes), `scripts` (sed scripts and awk programs), `classify` (read-only, network,
//! downloaders, interpreters), `flows` (pipe-to-shell, secret egress, nested agents).

mod classify;
mod code_options;
mod command;
mod expand;
mod flows;
mod inline;
mod lex;
mod parse;
mod programs;
mod scripts;
#[cfg(test)]
mod testing;
mod writes;

pub use command::{Dir, SimpleCommand};
pub use flows::{glob_match, is_secret_path, is_secret_var, SecretFlow};
pub use inline::{
    facts as inline_facts_of, fork_bomb, is_shell, InlineCode, InlineFacts, Lang, TransformedFeed,
};
pub use writes::{WriteKind, WriteTarget};

use expand::Vars;
use parse::analyze_depth;

/// Longest command line analysed (bytes); the rest is ignored for structure but still scanned
/// for values by the caller.
pub const MAX_COMMAND: usize = 256 * 1024;
/// Deepest `$(...)` nesting followed.
pub const MAX_DEPTH: usize = 8;

/// The analysis of a whole command line.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// Pipelines, each a list of simple commands joined by `|`. Substitutions' contents
    /// are analysed into [`Analysis::nested`].
    pub pipelines: Vec<Vec<SimpleCommand>>,
    /// Analyses of `$(...)`, backtick and `<(...)` contents, with the index of the pipeline
    /// and command that contains them.
    pub nested: Vec<(usize, usize, Analysis)>,
    /// True when the line was too long or too deeply nested to analyse whole: the caller must
    /// not treat what was seen as all there is.
    pub incomplete: bool,
}

/// Analyses a command line. Never panics; bounded in size and depth.
pub fn analyze(cmd: &str) -> Analysis {
    analyze_depth(cmd, 0, &Dir::Start, &Vars::default())
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
}
