//! `intentshield approve ID`: a person lets one asked-for call run once, and
//! `intentshield approve --list`: what can be approved and what was approved but not used.
//!
//! Approvals come from a person, never from the agent's tools: `approve ID` grants nothing
//! unless stdin and stdout are both terminals, shows the exact call (harness, session, tool,
//! arguments, the reason it was asked), writes a random confirmation code to the controlling
//! terminal (`/dev/tty`, never to stdout, so a pipe does not see it) and grants only when the
//! person types that code back there. The approval is bound to the call (harness, session,
//! tool, SHA-256 of the arguments as sent), used once, and expires after `approval_ttl`
//! (default 300 s); the grant is audited (`approval.granted`, with the terminal and user id).
//!
//! The confirmation runs through [`Terminal`], so tests drive it without a real terminal;
//! only [`run`] opens `/dev/tty`.

use crate::commands::log::fmt_ts;
use crate::config::{self, Flags};
use crate::exit::{CliError, CliResult, ExitStatus};
use crate::state::{self, AskedCall, Granted, Grantor, Store};
use clap::{Arg, ArgAction, ArgMatches, Command};
use std::io::{self, IsTerminal, Read, Write};
use std::path::PathBuf;

const CONTEXT: &str = "intentshield approve";

/// Characters of the confirmation code: no `0`/`O`, `1`/`I`, so it is read back without doubt;
/// 32 of them, so a random byte picks one without bias.
pub const CODE_ALPHABET: &[u8; 32] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
/// Length of the confirmation code (30 bits).
pub const CODE_LEN: usize = 6;
/// Longest answer read from the terminal (bytes); a longer one is refused.
pub const MAX_ANSWER: usize = 64;
/// Lines of pretty-printed arguments shown from the start of a long call.
pub const SHOW_HEAD_LINES: usize = 200;
/// Lines of pretty-printed arguments shown from the end of a long call.
pub const SHOW_TAIL_LINES: usize = 50;
/// Asks listed by `--list`, at most.
pub const LIST_LIMIT: i64 = 50;

/// The message of the refusal when stdin or stdout is not a terminal.
pub const NO_TERMINAL: &str = "refused: an approval must be confirmed by a person at an interactive terminal, and stdin or stdout is not one. Run `intentshield approve ID` yourself in a terminal; nothing was approved";

/// The controlling terminal, where the confirmation code is written and the answer read.
pub trait Terminal {
    /// Writes `text` to the terminal as it is.
    ///
    /// # Errors
    ///
    /// The I/O error of the write (the approval is then refused).
    fn write_text(&mut self, text: &str) -> io::Result<()>;

    /// Reads one line typed at the terminal, without its line end, at most `max` bytes
    /// (a longer line is returned cut, so it does not match any code).
    ///
    /// # Errors
    ///
    /// The I/O error of the read (the approval is then refused).
    fn read_line(&mut self, max: usize) -> io::Result<String>;
}

/// A terminal whose answers a function makes from the text written to it so far: how tests
/// (and the pause command's) stand in for the person at the terminal. It cannot be used to
/// skip the person: `intentshield approve` and `pause` refuse before they get this far unless
/// stdin and stdout are terminals, and then talk to `/dev/tty` only.
pub struct ScriptedTerminal {
    /// Everything written to the terminal.
    pub written: String,
    /// The answer to each read, made from what was written so far.
    pub answer: fn(&str) -> String,
}

impl ScriptedTerminal {
    /// A terminal that answers with `answer`'s text.
    pub fn new(answer: fn(&str) -> String) -> ScriptedTerminal {
        ScriptedTerminal {
            written: String::new(),
            answer,
        }
    }
}

impl Terminal for ScriptedTerminal {
    fn write_text(&mut self, text: &str) -> io::Result<()> {
        self.written.push_str(text);
        Ok(())
    }
    fn read_line(&mut self, max: usize) -> io::Result<String> {
        let a = (self.answer)(&self.written);
        Ok(crate::text::cap(&a, max).to_string())
    }
}

/// The confirmation code a prompt written to a terminal showed (`… type the code X7K2QP …`),
/// or an empty string.
pub fn shown_code(written: &str) -> String {
    written
        .split("type the code ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .unwrap_or("")
        .to_string()
}

/// The process's controlling terminal, `/dev/tty`, opened for reading and writing.
pub struct DevTty(std::fs::File);

impl DevTty {
    /// Opens `/dev/tty`.
    ///
    /// # Errors
    ///
    /// The I/O error when the process has no controlling terminal (or it cannot be opened).
    pub fn open() -> io::Result<DevTty> {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .map(DevTty)
    }
}

impl Terminal for DevTty {
    fn write_text(&mut self, text: &str) -> io::Result<()> {
        self.0.write_all(text.as_bytes())?;
        self.0.flush()
    }

    fn read_line(&mut self, max: usize) -> io::Result<String> {
        // Byte by byte, so nothing typed after the line end is consumed.
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        loop {
            match self.0.read(&mut byte)? {
                0 => break,
                _ if byte[0] == b'\n' => break,
                _ if line.len() < max => line.push(byte[0]),
                // Past `max`: keep reading to the line end, keep nothing more.
                _ => {}
            }
        }
        Ok(String::from_utf8_lossy(&line).into_owned())
    }
}

/// The clap definition of `approve`.
pub fn command() -> Command {
    Command::new("approve")
        .about("Let one call that IntentShield asked about run once: shows the call and asks you to type a code at your terminal")
        .arg(
            Arg::new("db")
                .long("db")
                .value_parser(clap::value_parser!(PathBuf))
                .help("Database file (default: the config file's db, $INTENTSHIELD_DB or the platform data directory)"),
        )
        .arg(
            Arg::new("config")
                .long("config")
                .value_parser(clap::value_parser!(PathBuf))
                .help("Config file (for approval_ttl and db)"),
        )
        .arg(
            Arg::new("id")
                .required_unless_present("list")
                .value_parser(clap::value_parser!(i64))
                .help("The decision id from the message, `intentshield approve --list` or `intentshield log`"),
        )
        .arg(
            Arg::new("list")
                .long("list")
                .action(ArgAction::SetTrue)
                .conflicts_with("id")
                .help("List the asks that can still be approved and the approvals not used yet (no terminal needed)"),
        )
}

/// Runs `approve`: `--list`, or the confirmation of one ask at the terminal.
///
/// # Errors
///
/// [`CliError::error`] (exit 2, `intentshield approve: <e>`), nothing granted, when:
/// stdin or stdout is not a terminal ([`NO_TERMINAL`]; checked before anything else);
/// a setting is invalid (as `config::load`); no database path can be found or the database does
/// not open (`<path>: <e>`); the ask cannot be approved (the refusals of
/// [`Store::asked_call`]); `/dev/tty` cannot be opened or the confirmation code cannot be
/// drawn; the code typed does not match; or the grant fails (a database error).
pub fn run(m: &ArgMatches) -> CliResult {
    let list = m.get_flag("list");
    let at_terminal = io::stdin().is_terminal() && io::stdout().is_terminal();
    if !list && !at_terminal {
        return Err(CliError::error(CONTEXT, NO_TERMINAL));
    }
    let flags = Flags {
        db: m.get_one::<PathBuf>("db").cloned(),
        config: m.get_one::<PathBuf>("config").cloned(),
        ..Flags::default()
    };
    let cfg = config::load(&flags).map_err(|e| CliError::error(CONTEXT, e))?;
    let path = state::db_path(cfg.db.as_deref()).map_err(|e| CliError::error(CONTEXT, e))?;
    // `--list` only reads: it never creates a database. With none there yet it lists what an
    // empty one holds (nothing pending, nothing granted) rather than failing.
    let opened = if list && !path.exists() {
        Store::open_in_memory()
    } else if list {
        Store::open_read_only(&path)
    } else {
        Store::open(&path)
    };
    let mut store =
        opened.map_err(|e| CliError::error(CONTEXT, format!("{}: {e}", path.display())))?;
    let mut out = io::stdout().lock();
    if list {
        list_approvals(&store, cfg.approval_ttl, &mut out)
            .map_err(|e| CliError::error(CONTEXT, e))?;
        return Ok(ExitStatus::SUCCESS);
    }
    let Some(&id) = m.get_one::<i64>("id") else {
        return Err(CliError::error(CONTEXT, "no decision id given"));
    };
    // Refuse an ask that cannot be approved before bothering the person with a code.
    store
        .asked_call(id, cfg.approval_ttl)
        .map_err(|e| CliError::error(CONTEXT, format!("refused: {e}")))?;
    let mut tty = DevTty::open().map_err(|e| {
        CliError::error(
            CONTEXT,
            format!("refused: cannot open the terminal /dev/tty ({e}); nothing was approved"),
        )
    })?;
    let code = random_code().map_err(|e| {
        CliError::error(
            CONTEXT,
            format!("refused: cannot draw a confirmation code ({e}); nothing was approved"),
        )
    })?;
    let who = Grantor {
        tty: &terminal_name(),
        uid: user_id(),
    };
    confirm(
        &mut store,
        id,
        cfg.approval_ttl,
        &mut out,
        &mut tty,
        &code,
        who,
    )
    .map_err(|e| CliError::error(CONTEXT, e))?;
    Ok(ExitStatus::SUCCESS)
}

/// Shows the ask recorded as audit row `id` on `show`, writes the confirmation `code` and the
/// prompt to `tty` only, reads the answer from `tty`, and grants the approval (for `ttl`
/// seconds, audited with `who`) only when the answer is `code` (case and surrounding blanks
/// ignored). Returns the grant.
///
/// # Errors
///
/// A message starting `refused:` when the ask cannot be approved ([`Store::asked_call`]),
/// writing or reading fails, the answer is empty or another text than `code`, or the grant
/// fails; nothing is granted then.
pub fn confirm(
    store: &mut Store,
    id: i64,
    ttl: i64,
    show: &mut dyn Write,
    tty: &mut dyn Terminal,
    code: &str,
    who: Grantor<'_>,
) -> Result<Granted, String> {
    let call = store
        .asked_call(id, ttl)
        .map_err(|e| format!("refused: {e}"))?;
    let io_err = |e: io::Error| format!("refused: terminal: {e}; nothing was approved");
    show.write_all(describe(&call, ttl, state::now()).as_bytes())
        .and_then(|()| show.flush())
        .map_err(io_err)?;
    tty.write_text(&format!(
        "To approve, type the code {code} and press Enter (anything else refuses): "
    ))
    .map_err(io_err)?;
    let answer = tty.read_line(MAX_ANSWER).map_err(io_err)?;
    if code.is_empty() || !answer.trim().eq_ignore_ascii_case(code) {
        let _ = tty.write_text("Not approved.\n");
        return Err(if answer.trim().is_empty() {
            "refused: no confirmation code was typed; nothing was approved".to_string()
        } else {
            "refused: the confirmation code did not match; nothing was approved".to_string()
        });
    }
    let g = store
        .grant_approval(id, ttl, who)
        .map_err(|e| format!("refused: {e}"))?;
    let _ = writeln!(
        show,
        "Approved once: {} in session {} may run this call until {} UTC ({ttl} s). Ask the agent to retry the same call.",
        printable(&g.call.tool),
        printable(&g.call.session_id),
        fmt_ts(g.expires_at),
    );
    let _ = show.flush();
    Ok(g)
}

/// What the person is shown before the code: the exact call and what approving it means.
/// Every text that came from the agent is made printable ([`printable`]).
pub fn describe(call: &AskedCall, ttl: i64, now: i64) -> String {
    let mut s = String::new();
    s.push_str("IntentShield asked about this call. Approve it once?\n\n");
    s.push_str(&format!(
        "  decision   #{}, asked {} UTC ({} s ago)\n",
        call.id,
        fmt_ts(call.ts),
        now - call.ts
    ));
    s.push_str(&format!("  harness    {}\n", printable(&call.harness)));
    s.push_str(&format!("  session    {}\n", printable(&call.session_id)));
    s.push_str(&format!("  tool       {}\n", printable(&call.tool)));
    s.push_str(&format!(
        "  reason     {}: {}\n",
        printable(&call.reason_code),
        printable(&call.message)
    ));
    s.push_str(&format!(
        "  arguments  (SHA-256 of the arguments as sent: {})\n",
        call.args_digest
    ));
    let args = call.args.as_deref().unwrap_or("");
    if args.contains("…[IntentShield cut ") {
        s.push_str("  WARNING: the arguments are longer than IntentShield keeps; the middle is cut (see the marker). Approve only if you know what the whole call holds.\n");
    }
    for line in args_lines(args) {
        s.push_str("    ");
        s.push_str(&line);
        s.push('\n');
    }
    s.push_str(&format!(
        "\nApproving lets exactly this call (same harness, session, tool and arguments) run once, within {ttl} s.\n"
    ));
    s
}

/// The arguments pretty-printed (when they are whole JSON), made printable, at most
/// [`SHOW_HEAD_LINES`] + [`SHOW_TAIL_LINES`] lines with a marker for the lines between.
fn args_lines(args: &str) -> Vec<String> {
    let pretty = serde_json::from_str::<serde_json::Value>(args)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| args.to_string());
    let lines: Vec<String> = pretty.lines().map(printable).collect();
    if lines.len() <= SHOW_HEAD_LINES + SHOW_TAIL_LINES {
        return lines;
    }
    let hidden = lines.len() - SHOW_HEAD_LINES - SHOW_TAIL_LINES;
    let mut out: Vec<String> = lines[..SHOW_HEAD_LINES].to_vec();
    out.push(format!(
        "… [{hidden} lines not shown; approve only if you know what they hold] …"
    ));
    out.extend_from_slice(&lines[lines.len() - SHOW_TAIL_LINES..]);
    out
}

/// `s` with every character that could act on the terminal instead of being shown (control
/// characters, escape sequences, C1 controls, bidirectional and zero-width format characters)
/// written as `\u{…}`, so an agent's text cannot redraw or hide part of what the person reads.
pub fn printable(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let format_char = matches!(
            c,
            '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2069}'
                | '\u{FEFF}'
                | '\u{061C}'
        );
        if c.is_control() || format_char {
            out.push_str(&format!("\\u{{{:04x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Prints the asks that can still be approved (newest first) and the approvals not used yet.
///
/// # Errors
///
/// A message for a database error or a failed write.
pub fn list_approvals(store: &Store, ttl: i64, out: &mut dyn Write) -> Result<(), String> {
    let t = state::now();
    let asks = store
        .approvable_asks(ttl, LIST_LIMIT)
        .map_err(|e| e.to_string())?;
    let granted = store.unused_approvals(ttl).map_err(|e| e.to_string())?;
    let mut s = String::new();
    if asks.is_empty() {
        s.push_str(&format!(
            "No asks to approve (asked within the last {ttl} s, not approved yet).\n"
        ));
    } else {
        s.push_str(&format!(
            "Asks you can approve (asked within the last {ttl} s), newest first; run `intentshield approve ID` in a terminal:\n"
        ));
        for c in &asks {
            s.push_str(&format!(
                "  #{:<6} {:>4} s ago  {:<7} session {}  tool {}  {}: {}\n",
                c.id,
                t - c.ts,
                printable(&c.harness),
                printable(&c.session_id),
                printable(&c.tool),
                printable(&c.reason_code),
                printable(&c.message)
            ));
        }
    }
    if granted.is_empty() {
        s.push_str("No approvals waiting to be used.\n");
    } else {
        s.push_str("Approved, not used yet:\n");
        for a in &granted {
            let uid = a
                .uid
                .map_or_else(|| "unknown".to_string(), |u| u.to_string());
            s.push_str(&format!(
                "  #{:<6} {:<7} session {}  tool {}  expires {} UTC (in {} s)  granted {} UTC at {} by uid {}\n",
                a.decision_id,
                printable(&a.harness),
                printable(&a.session_id),
                printable(&a.tool),
                fmt_ts(a.expires_at),
                a.expires_at - t,
                fmt_ts(a.granted_at),
                printable(&a.tty),
                uid
            ));
        }
    }
    out.write_all(s.as_bytes()).map_err(|e| e.to_string())
}

/// A confirmation code of [`CODE_LEN`] characters of [`CODE_ALPHABET`], from the kernel's
/// random source (`/dev/urandom`).
///
/// # Errors
///
/// The I/O error when `/dev/urandom` cannot be read.
pub fn random_code() -> io::Result<String> {
    let mut bytes = [0u8; CODE_LEN];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes
        .iter()
        .map(|b| char::from(CODE_ALPHABET[usize::from(b & 31)]))
        .collect())
}

/// The terminal on stdin (`/dev/pts/3`), read from `/proc/self/fd/0`; `unknown` where that
/// cannot be read (no `/proc`, or stdin is not a device).
pub fn terminal_name() -> String {
    std::fs::read_link("/proc/self/fd/0")
        .ok()
        .and_then(|p| p.to_str().map(str::to_string))
        .filter(|p| p.starts_with("/dev/"))
        .unwrap_or_else(|| "unknown".to_string())
}

/// The user id of this process ([`crate::env::current_uid`]).
pub fn user_id() -> Option<u32> {
    crate::env::current_uid()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const WHO: Grantor<'static> = Grantor {
        tty: "/dev/pts/4",
        uid: Some(1000),
    };

    fn asked(s: &Store) -> i64 {
        let id = s
            .record_decision(&state::AuditEntry {
                harness: "codex",
                session_id: "sess-1",
                event: "PreToolUse",
                tool: Some("notes/create_note"),
                verdict: "ask",
                reason_code: "taint.state_change",
                rules: &[],
                args_digest: Some("d1"),
                message: "a state-changing call in a tainted session",
            })
            .unwrap();
        s.record_call_args(id, &json!({"title": "t\u{1b}[2Jhidden", "body": "b"}))
            .unwrap();
        id
    }

    fn run_confirm(
        answer: fn(&str) -> String,
    ) -> (Store, i64, Result<Granted, String>, String, String) {
        let mut s = Store::open_in_memory().unwrap();
        let id = asked(&s);
        let code = random_code().unwrap();
        let mut shown = Vec::new();
        let mut tty = ScriptedTerminal::new(answer);
        let r = confirm(&mut s, id, 300, &mut shown, &mut tty, &code, WHO);
        (s, id, r, String::from_utf8(shown).unwrap(), tty.written)
    }

    #[test]
    fn the_right_code_grants_once() {
        let (s, id, r, shown, written) =
            run_confirm(|w| format!("  {}\n", shown_code(w).to_lowercase()));
        let g = r.unwrap();
        assert_eq!(g.call.id, id);
        // The code went to the terminal only, never to stdout.
        let code = shown_code(&written);
        assert_eq!(code.len(), CODE_LEN);
        assert!(!shown.contains(&code), "{shown}");
        // The exact call was shown, escapes made harmless.
        for part in [
            "harness    codex",
            "session    sess-1",
            "tool       notes/create_note",
            "taint.state_change: a state-changing call in a tainted session",
            "\"title\": \"t\\u001b[2Jhidden\"",
            "SHA-256 of the arguments as sent: d1",
            "Approved once",
        ] {
            assert!(shown.contains(part), "{part} in {shown}");
        }
        assert!(!shown.contains('\u{1b}'));
        assert_eq!(
            s.pending_approval("codex", "sess-1", "notes/create_note", "d1", 300)
                .unwrap(),
            Some(id)
        );
    }

    #[test]
    fn a_wrong_or_empty_code_grants_nothing() {
        for answer in [
            (|_: &str| "ABCDEF\n".to_string()) as fn(&str) -> String,
            |_| String::new(),
            |w| format!("{}X", shown_code(w)),
            |w| shown_code(w).repeat(20),
        ] {
            let (s, id, r, _, written) = run_confirm(answer);
            let e = r.unwrap_err();
            assert!(e.starts_with("refused:"), "{e}");
            assert!(written.contains("Not approved."), "{written}");
            assert_eq!(
                s.pending_approval("codex", "sess-1", "notes/create_note", "d1", 300)
                    .unwrap(),
                None
            );
            assert!(s.unused_approvals(300).unwrap().is_empty());
            // Nothing was audited as granted either.
            let rows = s.recent_decisions(None, Some("allow"), 10).unwrap();
            assert!(rows.is_empty(), "{rows:?} for {id}");
        }
    }

    #[test]
    fn codes_are_random_and_unambiguous() {
        let a = random_code().unwrap();
        let b = random_code().unwrap();
        assert_eq!(a.len(), CODE_LEN);
        assert!(a.bytes().all(|c| CODE_ALPHABET.contains(&c)));
        for c in ['0', 'O', '1', 'I'] {
            assert!(!CODE_ALPHABET.contains(&(c as u8)));
        }
        // 2^-30 chance of a false failure.
        assert_ne!(a, b);
    }

    #[test]
    fn printable_neutralises_terminal_controls() {
        assert_eq!(printable("a\u{1b}[31mb"), "a\\u{001b}[31mb");
        assert_eq!(
            printable("x\u{202e}y\u{9b}z\rw"),
            "x\\u{202e}y\\u{009b}z\\u{000d}w"
        );
        assert_eq!(printable("plain é"), "plain é");
    }

    #[test]
    fn long_arguments_are_shown_head_and_tail() {
        let v: Vec<String> = (0..1000).map(|i| format!("line{i}")).collect();
        let lines = args_lines(&serde_json::to_string(&v).unwrap());
        assert_eq!(lines.len(), SHOW_HEAD_LINES + SHOW_TAIL_LINES + 1);
        assert!(lines[SHOW_HEAD_LINES].contains("lines not shown"));
        assert!(lines.last().unwrap().contains(']'));
        assert!(lines[lines.len() - 2].contains("line999"));
    }
}
