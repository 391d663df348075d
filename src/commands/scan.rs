//! `intentshield scan`: run the prompt-injection detector on files or on a labelled corpus.
//!
//! Two modes:
//! - `intentshield scan [--kind KIND] FILE...` (`-` reads stdin): per input, the verdict, the
//!   reason codes and each piece of evidence with its byte position. Exit status like grep:
//!   0 nothing flagged, 1 something flagged, 2 an error (an error wins over a match). With
//!   `--json`, one JSON object per input instead ([`run_files_json`]). Without a file, a
//!   piped stdin is not read unless `-` is given; the error says so.
//! - `intentshield scan --jsonl DIR_OR_FILE [--json]`: reads items in the corpus format
//!   (`{"id", "source", "kind", "label", "text", ...}` one per line; every `*.jsonl` file of a
//!   folder, sorted by name), scans each as its own kind and prints a table per dataset and kind:
//!   items, injections caught (recall), benign items flagged (false-positive rate), then pooled
//!   figures. With `--json` it prints one JSON object per item instead:
//!   `{"id", "source", "kind", "label", "flagged", "score", "reasons"}`. Lines that are not
//!   JSON objects with a string `text` and a known `kind` are counted as bad and reported on
//!   stderr. Exit 0, or 2 when an input cannot be read.
//!
//! Datasets: rows are grouped by file stem when reading a folder, and by the leading token of
//! `source` (up to the first space, `=`, `;`, `,` or `(`) when reading one file or stdin.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::{Arg, ArgAction, ArgMatches, Command};

use crate::detect::{scan, Report, TextKind};
use crate::exit::{CliError, CliResult, ExitStatus};

/// The clap definition of `scan`.
pub fn command() -> Command {
    Command::new("scan")
        .about("Scan texts for prompt injection (files, stdin, or a JSONL corpus)")
        .arg(
            Arg::new("kind")
                .long("kind")
                .value_name("KIND")
                .default_value("tool_output")
                .value_parser(["tool_output", "description", "argument", "prompt"])
                .help("What the texts are: tool_output, description, argument or prompt"),
        )
        .arg(
            Arg::new("jsonl")
                .long("jsonl")
                .value_name("DIR_OR_FILE")
                .help("Evaluate a labelled corpus in JSONL format (a file, a folder of *.jsonl, or - for stdin)"),
        )
        .arg(
            Arg::new("json")
                .long("json")
                .action(ArgAction::SetTrue)
                .help("One JSON line per file scanned (with --jsonl: per item, instead of the summary table)"),
        )
        .arg(
            Arg::new("files")
                .value_name("FILE")
                .num_args(0..)
                .help("Files to scan; - reads stdin"),
        )
}

/// Runs `scan`; returns the exit status (0 clean, 1 flagged, 2 error).
///
/// # Errors
///
/// [`CliError::error`] (exit 2, `intentshield scan: no input (give FILE..., - for stdin, or
/// --jsonl DIR)`) when neither files nor `--jsonl` are given. An input that cannot be read is
/// no `Err`: it is reported on stderr, the others are still scanned, and the status is 2.
pub fn run(m: &ArgMatches) -> CliResult {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let code = if let Some(src) = m.get_one::<String>("jsonl") {
        run_jsonl(Path::new(src), m.get_flag("json"), &mut out)
    } else {
        let kind = m
            .get_one::<String>("kind")
            .and_then(|k| TextKind::from_name(k))
            .unwrap_or(TextKind::ToolOutput);
        let files: Vec<String> = m
            .get_many::<String>("files")
            .map(|v| v.cloned().collect())
            .unwrap_or_default();
        if files.is_empty() {
            let hint = if stdin_is_redirected() {
                "no input named; stdin is a pipe or a file, but scan reads it only when told: give - (intentshield scan -)"
            } else {
                "no input (give FILE..., - for stdin, or --jsonl DIR)"
            };
            return Err(CliError::error("intentshield scan", hint));
        } else if m.get_flag("json") {
            run_files_json(&files, kind, &mut out)
        } else {
            run_files(&files, kind, &mut out)
        }
    };
    if let Err(e) = out.flush() {
        if crate::exit::is_broken_pipe(&e) {
            return Ok(ExitStatus::BROKEN_PIPE);
        }
    }
    Ok(code)
}

/// True when stdin is a pipe or a regular file (`cmd | intentshield scan`, `< file`), not a
/// terminal or nothing.
fn stdin_is_redirected() -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata("/dev/stdin").is_ok_and(|m| m.file_type().is_fifo() || m.is_file())
}

fn read_input(name: &str) -> std::io::Result<String> {
    let mut buf = Vec::new();
    if name == "-" {
        std::io::stdin().lock().read_to_end(&mut buf)?;
    } else {
        std::fs::File::open(name)?.read_to_end(&mut buf)?;
    }
    Ok(match String::from_utf8(buf) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

/// Text mode: scans each file and prints the verdict and evidence.
pub fn run_files(files: &[String], kind: TextKind, out: &mut dyn Write) -> ExitStatus {
    scan_each(files, kind, "(stdin)", out, |out, display, r| {
        write_report(out, display, kind, r)
    })
}

/// Text mode with `--json`: one JSON object per input, `{"file", "kind", "flagged", "score",
/// "reasons", "truncated", "findings": [{"rule", "family", "weight", "origin", "offset",
/// "excerpt"}]}` (`offset`: byte position in the input, `null` for the normalizer's own
/// findings); an input that cannot be read is reported on stderr. Exit status as
/// [`run_files`].
pub fn run_files_json(files: &[String], kind: TextKind, out: &mut dyn Write) -> ExitStatus {
    scan_each(files, kind, "-", out, |out, display, r| {
        let findings: Vec<serde_json::Value> = r
            .findings
            .iter()
            .filter(|f| f.weight > 0)
            .map(|f| {
                serde_json::json!({
                    "rule": f.rule, "family": f.family, "weight": f.weight,
                    "origin": f.origin, "offset": f.input_offset, "excerpt": f.excerpt,
                })
            })
            .collect();
        let o = serde_json::json!({
            "file": display, "kind": kind.name(), "flagged": r.flagged,
            "score": r.score, "reasons": r.reasons(), "truncated": r.truncated,
            "findings": findings,
        });
        writeln!(out, "{o}")
    })
}

/// Scans each of `files` (`-` is stdin, shown as `stdin_name`) and hands the result to
/// `report`. Exit status: 2 when an input could not be read (reported on stderr), else 1 when
/// one was flagged, else 0; `BROKEN_PIPE` when the reader went away.
fn scan_each(
    files: &[String],
    kind: TextKind,
    stdin_name: &str,
    out: &mut dyn Write,
    report: impl Fn(&mut dyn Write, &str, &crate::detect::Report) -> std::io::Result<()>,
) -> ExitStatus {
    let mut any_flagged = false;
    let mut any_error = false;
    for name in files {
        let display = if name == "-" {
            stdin_name
        } else {
            name.as_str()
        };
        match read_input(name) {
            Err(e) => {
                eprintln!("intentshield scan: {display}: {e}");
                any_error = true;
            }
            Ok(text) => {
                let r = scan(&text, kind);
                any_flagged |= r.flagged;
                if let Err(e) = report(out, display, &r) {
                    if crate::exit::is_broken_pipe(&e) {
                        return ExitStatus::BROKEN_PIPE;
                    }
                }
            }
        }
    }
    if any_error {
        ExitStatus::ERROR
    } else {
        ExitStatus::failure_if(any_flagged)
    }
}

fn write_report(
    out: &mut dyn Write,
    name: &str,
    kind: TextKind,
    r: &Report,
) -> std::io::Result<()> {
    let verdict = if r.flagged { "FLAGGED" } else { "clean" };
    let reasons = r.reasons();
    write!(
        out,
        "{name}: {verdict} (kind {}, score {}",
        kind.name(),
        r.score
    )?;
    if !reasons.is_empty() {
        write!(out, "; reasons: {}", reasons.join(", "))?;
    }
    if r.truncated {
        write!(out, "; input truncated")?;
    }
    writeln!(out, ")")?;
    for f in &r.findings {
        if f.weight == 0 {
            continue;
        }
        let pos = match f.input_offset {
            Some(o) if f.origin == "text" => format!("byte {o}"),
            Some(o) => format!("{} text decoded from byte {o}", f.origin),
            None if f.origin == "learned" => "a window of the text".to_string(),
            None => "normalizer".to_string(),
        };
        writeln!(
            out,
            "  {} [{}, weight {}] at {}: {:?}",
            f.rule, f.family, f.weight, pos, f.excerpt
        )?;
    }
    Ok(())
}

/// Counts for one dataset and kind.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Items scanned.
    pub items: u64,
    /// Items labelled `injection`.
    pub injections: u64,
    /// Injection items flagged.
    pub caught: u64,
    /// Items labelled `benign`.
    pub benign: u64,
    /// Benign items flagged.
    pub false_positives: u64,
    /// Items with another label, flagged or not.
    pub other: u64,
}

impl Tally {
    fn add(&mut self, label: &str, flagged: bool) {
        self.items += 1;
        match label {
            "injection" => {
                self.injections += 1;
                self.caught += u64::from(flagged);
            }
            "benign" => {
                self.benign += 1;
                self.false_positives += u64::from(flagged);
            }
            _ => self.other += 1,
        }
    }

    fn merge(&mut self, o: &Tally) {
        self.items += o.items;
        self.injections += o.injections;
        self.caught += o.caught;
        self.benign += o.benign;
        self.false_positives += o.false_positives;
        self.other += o.other;
    }
}

fn pct(n: u64, d: u64) -> String {
    if d == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", 100.0 * n as f64 / d as f64)
    }
}

/// The leading dataset token of a corpus `source` string.
pub fn source_token(source: &str) -> String {
    let end = source
        .find(|c: char| c.is_whitespace() || matches!(c, '=' | ';' | ',' | '('))
        .unwrap_or(source.len());
    let t = &source[..end];
    if t.is_empty() {
        "(unknown)".to_string()
    } else {
        t.to_string()
    }
}

fn list_inputs(src: &Path) -> std::io::Result<Vec<(PathBuf, Option<String>)>> {
    if src.as_os_str() == "-" {
        return Ok(vec![(PathBuf::from("-"), None)]);
    }
    if src.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(src)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        v.sort();
        Ok(v.into_iter()
            .map(|p| {
                let stem = p
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                (p, Some(stem))
            })
            .collect())
    } else {
        std::fs::metadata(src)?;
        Ok(vec![(src.to_path_buf(), None)])
    }
}

/// Corpus mode: scans every item and prints the summary (or one JSON line per item).
pub fn run_jsonl(src: &Path, json: bool, out: &mut dyn Write) -> ExitStatus {
    let inputs = match list_inputs(src) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("intentshield scan: {}: {e}", src.display());
            return ExitStatus::ERROR;
        }
    };
    let mut table: BTreeMap<(String, String), Tally> = BTreeMap::new();
    let mut bad = 0u64;
    let mut error = false;
    let mut times_us: Vec<u64> = Vec::new();
    let mut bytes_total = 0u64;
    for (path, stem) in &inputs {
        let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
            Box::new(BufReader::new(std::io::stdin()))
        } else {
            match std::fs::File::open(path) {
                Ok(f) => Box::new(BufReader::new(f)),
                Err(e) => {
                    eprintln!("intentshield scan: {}: {e}", path.display());
                    error = true;
                    continue;
                }
            }
        };
        for (lineno, line) in reader.split(b'\n').enumerate() {
            let line = match line {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("intentshield scan: {}: {e}", path.display());
                    error = true;
                    break;
                }
            };
            if line.iter().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            let item: serde_json::Value = match serde_json::from_slice(&line) {
                Ok(v) => v,
                Err(_) => {
                    bad_line(&mut bad, path, lineno, "not JSON");
                    continue;
                }
            };
            let text = item.get("text").and_then(|v| v.as_str());
            let kind = item
                .get("kind")
                .and_then(|v| v.as_str())
                .and_then(TextKind::from_name);
            let (Some(text), Some(kind)) = (text, kind) else {
                bad_line(
                    &mut bad,
                    path,
                    lineno,
                    "needs a string \"text\" and a known \"kind\"",
                );
                continue;
            };
            let label = item.get("label").and_then(|v| v.as_str()).unwrap_or("");
            let source = item.get("source").and_then(|v| v.as_str()).unwrap_or("");
            let t0 = Instant::now();
            let r = scan(text, kind);
            times_us.push(t0.elapsed().as_micros() as u64);
            bytes_total += text.len() as u64;
            let group = stem.clone().unwrap_or_else(|| source_token(source));
            table
                .entry((group, kind.name().to_string()))
                .or_default()
                .add(label, r.flagged);
            if json {
                let o = serde_json::json!({
                    "id": item.get("id").cloned().unwrap_or(serde_json::Value::Null),
                    "source": source,
                    "kind": kind.name(),
                    "label": label,
                    "flagged": r.flagged,
                    "score": r.score,
                    "reasons": r.reasons(),
                    // For scripts/loso.py: every weighted finding and the learned logit.
                    "findings": r.findings.iter().filter(|f| f.weight > 0)
                        .map(|f| serde_json::json!([f.rule, f.family, f.weight, f.origin]))
                        .collect::<Vec<_>>(),
                    "learned": crate::detect::learned::logit(
                        &crate::detect::normalize::normalize(text).text),
                });
                if let Err(e) = writeln!(out, "{o}") {
                    return if crate::exit::is_broken_pipe(&e) {
                        ExitStatus::BROKEN_PIPE
                    } else {
                        ExitStatus::ERROR
                    };
                }
            }
        }
    }
    if bad > 0 {
        eprintln!("intentshield scan: {bad} bad line(s) skipped");
    }
    if !json {
        if let Err(e) = write_summary(out, &table, bad, &times_us, bytes_total) {
            if crate::exit::is_broken_pipe(&e) {
                return ExitStatus::BROKEN_PIPE;
            }
        }
    }
    if error {
        ExitStatus::ERROR
    } else {
        ExitStatus::SUCCESS
    }
}

/// Counts one bad line (`lineno` from 0) and reports the first five on stderr.
fn bad_line(bad: &mut u64, path: &Path, lineno: usize, what: &str) {
    *bad += 1;
    if *bad <= 5 {
        eprintln!(
            "intentshield scan: {}:{}: {what}",
            path.display(),
            lineno + 1
        );
    }
}

fn write_summary(
    out: &mut dyn Write,
    table: &BTreeMap<(String, String), Tally>,
    bad: u64,
    times_us: &[u64],
    bytes: u64,
) -> std::io::Result<()> {
    writeln!(
        out,
        "| dataset | kind | items | injections | caught | recall | benign | flagged | FP rate |"
    )?;
    writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|")?;
    let row = |out: &mut dyn Write, a: &str, b: &str, t: &Tally| {
        writeln!(
            out,
            "| {a} | {b} | {} | {} | {} | {} | {} | {} | {} |",
            t.items,
            t.injections,
            t.caught,
            pct(t.caught, t.injections),
            t.benign,
            t.false_positives,
            pct(t.false_positives, t.benign)
        )
    };
    let mut per_kind: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut all = Tally::default();
    let mut hook = Tally::default();
    for ((g, k), t) in table {
        row(out, g, k, t)?;
        per_kind.entry(k.as_str()).or_default().merge(t);
        all.merge(t);
        if k != "prompt" {
            hook.merge(t);
        }
    }
    for (k, t) in &per_kind {
        row(out, "**all**", k, t)?;
    }
    row(out, "**all but prompts**", "-", &hook)?;
    row(out, "**all**", "-", &all)?;
    writeln!(out)?;
    writeln!(out, "bad lines: {bad}")?;
    if !times_us.is_empty() {
        let mut t = times_us.to_vec();
        t.sort_unstable();
        let total: u64 = t.iter().sum();
        writeln!(
            out,
            "scan time: {} items, {} bytes, total {:.1} ms, per item p50 {} µs, p99 {} µs, max {} µs",
            t.len(),
            bytes,
            total as f64 / 1000.0,
            t[t.len() / 2],
            t[(t.len() * 99 / 100).min(t.len() - 1)],
            t[t.len() - 1]
        )?;
    }
    Ok(())
}
