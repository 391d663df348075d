//! `intentshield threats`: see and steer the threat memory (`crate::threats`), and manage
//! threat packs.
//!
//! `stats`, `list`, `show ID`, `export` and `pack list` only read (never creating a database);
//! `confirm ID` (a learned entry then denies),
//! `allow VALUE` (a value, a domain or a source `mcp:<server>` / `web:<domain>` is cleared and
//! never learned again), `forget ID` and `import FEED` (a JSON feed, as `export` writes it, or
//! one value per line) change it. `pack verify FILE`, `pack install FILE [--key HEX |
//! --sha256 | --hmac-key HEX]`, `pack list`, `pack remove NAME`, `pack keygen`, `pack sign FILE
//! --key-file F`. `import` keeps a feed's learned entries learned (they ask) unless `--confirm`,
//! carries fingerprints, and drops (naming why) values on the benign gate set's common domains.
//! Every subcommand takes `--json` and `--db`. The hook refuses the changing ones
//! to the agent (`tamper.guard_command`).

use crate::exit::{CliError, CliResult, ExitStatus};
use crate::provenance::kind;
use crate::state::{self, Store};
use crate::threats::{packs, Status};
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

const CONTEXT: &str = "intentshield threats";

fn common(c: Command) -> Command {
    c.arg(
        Arg::new("json")
            .long("json")
            .action(ArgAction::SetTrue)
            .help("JSON output"),
    )
    .arg(
        Arg::new("db")
            .long("db")
            .value_parser(clap::value_parser!(PathBuf))
            .help("Database file"),
    )
}

/// The clap definition of `threats`.
pub fn command() -> Command {
    let id = || {
        Arg::new("id")
            .required(true)
            .help("I<n> (indicator) or F<n> (fingerprint)")
    };
    let file = || {
        Arg::new("file")
            .required(true)
            .value_parser(clap::value_parser!(PathBuf))
    };
    Command::new("threats")
        .about("The threat memory (what injected content taught) and threat packs")
        .subcommand_required(true)
        .subcommand(common(Command::new("stats").about("Counts by status, sources, hostile sources")))
        .subcommand(common(
            Command::new("list").about("Indicators and fingerprints, newest first").arg(
                Arg::new("limit")
                    .long("limit")
                    .value_parser(clap::value_parser!(i64))
                    .default_value("100"),
            ),
        ))
        .subcommand(common(Command::new("show").about("One entry").arg(id())))
        .subcommand(common(
            Command::new("confirm")
                .about("Confirm a learned entry: calls carrying it are denied")
                .arg(id()),
        ))
        .subcommand(common(
            Command::new("allow")
                .about("Clear a value, a domain or a source (mcp:<server>, web:<domain>) and never learn it again")
                .arg(Arg::new("value").required(true)),
        ))
        .subcommand(common(Command::new("forget").about("Remove one entry").arg(id())))
        .subcommand(common(
            Command::new("import")
                .about("Import a feed (JSON as `export` writes it, or one value per line): learned entries stay learned (ask), the rest deny")
                .arg(file())
                .arg(Arg::new("confirm").long("confirm").action(ArgAction::SetTrue).help("Import learned entries as denies too")),
        ))
        .subcommand(common(Command::new("export").about("All entries as JSON")))
        .subcommand(
            Command::new("pack")
                .about("Threat packs: verify, install, list, remove, keygen, sign")
                .subcommand_required(true)
                .subcommand(common(Command::new("verify").about("Verify a pack file (nothing installed)").arg(file())))
                .subcommand(common(
                    Command::new("install")
                        .about("Verify and install a pack file (pinning the trust given)")
                        .arg(file())
                        .arg(Arg::new("key").long("key").help("Pin this Ed25519 public key (hex) first"))
                        .arg(Arg::new("sha256").long("sha256").action(ArgAction::SetTrue).help("Pin this file's SHA-256 first (trust the file as it is)"))
                        .arg(Arg::new("hmac-key").long("hmac-key").help("Pin this HMAC-SHA256 key (hex) first")),
                ))
                .subcommand(common(Command::new("list").about("Installed packs")))
                .subcommand(common(Command::new("remove").about("Remove a pack and what it added").arg(Arg::new("name").required(true))))
                .subcommand(common(
                    Command::new("keygen")
                        .about("Write a new Ed25519 secret key (hex) to a file; print the public key")
                        .arg(Arg::new("out").long("out").required(true).value_name("FILE").help("Where to write the secret key (created 0600; an existing file is refused)").value_parser(clap::value_parser!(PathBuf))),
                ))
                .subcommand(common(
                    Command::new("sign")
                        .about("Write FILE.sig with an Ed25519 secret key file, or an HMAC key file")
                        .arg(file())
                        .arg(Arg::new("key-file").long("key-file").value_name("FILE").help("The Ed25519 secret key `pack keygen` wrote (hex)").value_parser(clap::value_parser!(PathBuf)))
                        .arg(Arg::new("hmac-key-file").long("hmac-key-file").value_name("FILE").help("A shared HMAC-SHA256 key (hex) instead of an Ed25519 key").value_parser(clap::value_parser!(PathBuf))),
                )),
        )
}

fn open(m: &ArgMatches) -> Result<Store, CliError> {
    let path = state::db_path(m.get_one::<PathBuf>("db").map(PathBuf::as_path))
        .map_err(|e| CliError::error(CONTEXT, e))?;
    Store::open(&path).map_err(|e| CliError::error(CONTEXT, e))
}

/// The database for a reading subcommand: opened read-only, never created (exit 2 with
/// `no database at PATH …` when there is none, like `log`).
fn open_read(m: &ArgMatches) -> Result<Store, CliError> {
    let path = state::db_path(m.get_one::<PathBuf>("db").map(PathBuf::as_path))
        .map_err(|e| CliError::error(CONTEXT, e))?;
    Store::open_read_only(&path).map_err(|e| CliError::error(CONTEXT, e))
}

fn err(e: impl std::fmt::Display) -> CliError {
    CliError::error(CONTEXT, e)
}

fn print(m: &ArgMatches, j: serde_json::Value, text: &str) -> CliResult {
    let mut out = std::io::stdout().lock();
    let r = if m.get_flag("json") {
        writeln!(out, "{j}")
    } else {
        writeln!(out, "{text}")
    };
    r.map_err(err)?;
    Ok(ExitStatus::SUCCESS)
}

/// Runs `threats`.
///
/// # Errors
///
/// [`CliError::error`] (exit 2) for a database error, an unknown id, an unreadable feed or
/// pack, or a pack refused (the message names why: not signed, bad signature, downgrade, an
/// unsafe rule).
pub fn run(m: &ArgMatches) -> CliResult {
    match m.subcommand() {
        Some(("stats", sub)) => {
            let s = open_read(sub)?.threat_stats().map_err(err)?;
            let (n, k, p) = crate::threats::gate::sizes();
            let text = format!(
                "indicators: {}\nfingerprints: {}\nsources (sessions with injected content): {}\nhostile: {}\nallowed: {}\nbenign gate set: {n} shingles, {k} domains, {p} probe bytes",
                fmt_pairs(&s.indicators),
                fmt_pairs(&s.fingerprints),
                fmt_pairs(&s.sources),
                if s.hostile.is_empty() { "none".into() } else { s.hostile.join(", ") },
                if s.allowed.is_empty() { "none".into() } else { s.allowed.join(", ") },
            );
            print(sub, serde_json::to_value(&s).map_err(err)?, &text)
        }
        Some(("list", sub)) => {
            let limit = *sub.get_one::<i64>("limit").unwrap_or(&100);
            let rows = open_read(sub)?.threat_rows(limit).map_err(err)?;
            let text = if rows.is_empty() {
                "the threat memory is empty".to_string()
            } else {
                rows.iter()
                    .map(|r| {
                        format!(
                            "{:<7} {:<10} {:<30} {}  (from {}{})",
                            r.id,
                            r.status,
                            r.kind,
                            crate::text::cap(&r.value, 80),
                            r.origin,
                            r.tool
                                .as_deref()
                                .map(|t| format!(", {t}"))
                                .unwrap_or_default()
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            print(sub, serde_json::to_value(&rows).map_err(err)?, &text)
        }
        Some(("show", sub)) => {
            let id = sub
                .get_one::<String>("id")
                .map(String::as_str)
                .unwrap_or("");
            let rows = open_read(sub)?.threat_rows(i64::MAX).map_err(err)?;
            let r = rows
                .into_iter()
                .find(|r| r.id.eq_ignore_ascii_case(id))
                .ok_or_else(|| err(format!("no entry {id}")))?;
            let text = format!(
                "{}: {} {}\nstatus: {}\ntaught by: {}{}\nsessions: {}  hits: {}\nfirst seen: {}  last seen: {}",
                r.id,
                r.kind,
                r.value,
                r.status,
                r.origin,
                r.tool.as_deref().map(|t| format!(" (result of {t})")).unwrap_or_default(),
                r.sessions,
                r.hits,
                crate::commands::log::fmt_ts(r.first_seen),
                crate::commands::log::fmt_ts(r.last_seen)
            );
            print(sub, serde_json::to_value(&r).map_err(err)?, &text)
        }
        Some(("confirm", sub)) => {
            let id = sub
                .get_one::<String>("id")
                .map(String::as_str)
                .unwrap_or("");
            if !open(sub)?
                .set_threat_status(id, Status::Confirmed)
                .map_err(err)?
            {
                return Err(err(format!("no entry {id}")));
            }
            print(
                sub,
                json!({"confirmed": id}),
                &format!("{id} confirmed: calls carrying it are denied"),
            )
        }
        Some(("allow", sub)) => {
            let v = sub
                .get_one::<String>("value")
                .map(String::as_str)
                .unwrap_or("");
            if v.trim().is_empty() || !v.chars().any(char::is_alphanumeric) {
                return Err(err(format!(
                    "refused to allow {v:?}: give a value, a domain or a source (mcp:<server>, web:<domain>)"
                )));
            }
            let n = open(sub)?.allow_threat(v).map_err(err)?;
            print(
                sub,
                json!({"allowed": v, "removed": n}),
                &format!("{v} allowed ({n} entries removed); it will not be learned again"),
            )
        }
        Some(("forget", sub)) => {
            let id = sub
                .get_one::<String>("id")
                .map(String::as_str)
                .unwrap_or("");
            if !open(sub)?.forget_threat(id).map_err(err)? {
                return Err(err(format!("no entry {id}")));
            }
            print(sub, json!({"forgotten": id}), &format!("{id} forgotten"))
        }
        Some(("import", sub)) => {
            let file = sub
                .get_one::<PathBuf>("file")
                .ok_or_else(|| err("no feed"))?;
            let feed =
                read_feed(file).map_err(|e| err(format!("{} refused: {e}", file.display())))?;
            let origin = format!(
                "feed:{}",
                file.file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default()
            );
            let confirm = sub.get_flag("confirm");
            let mut store = open(sub)?;
            store.begin().map_err(err)?;
            let mut counts: Vec<(Status, usize, usize)> = Vec::new();
            for status in [Status::Learned, Status::Imported] {
                let as_status = if confirm { Status::Imported } else { status };
                let inds: Vec<(String, String)> = feed
                    .indicators
                    .iter()
                    .filter(|(_, _, s)| *s == status)
                    .map(|(v, k, _)| (v.clone(), k.clone()))
                    .collect();
                let fps: Vec<(Vec<u32>, String)> = feed
                    .fingerprints
                    .iter()
                    .filter(|(_, _, s)| *s == status)
                    .map(|(f, e, _)| (f.clone(), e.clone()))
                    .collect();
                let ni = store
                    .import_threat_indicators(&inds, as_status, &origin)
                    .map_err(err)?;
                let nf = store
                    .import_threat_fingerprints(&fps, as_status, &origin)
                    .map_err(err)?;
                counts.push((as_status, ni, nf));
            }
            store.rebuild_threat_summary().map_err(err)?;
            store.commit().map_err(err)?;
            let (learned, denied) = (counts[0], counts[1]);
            let mut text = format!(
                "from {origin}: {} indicators and {} fingerprints imported as denied, {} indicators and {} fingerprints as learned (they ask{})",
                denied.1 + if confirm { learned.1 } else { 0 },
                denied.2 + if confirm { learned.2 } else { 0 },
                if confirm { 0 } else { learned.1 },
                if confirm { 0 } else { learned.2 },
                if confirm { "" } else { "; --confirm makes them deny" },
            );
            for (line, why) in &feed.dropped {
                text.push_str(&format!("\ndropped {line}: {why}"));
            }
            print(
                sub,
                json!({"origin": origin,
                       "denied": {"indicators": denied.1 + if confirm { learned.1 } else { 0 },
                                  "fingerprints": denied.2 + if confirm { learned.2 } else { 0 }},
                       "learned": {"indicators": if confirm { 0 } else { learned.1 },
                                   "fingerprints": if confirm { 0 } else { learned.2 }},
                       "dropped": feed.dropped.iter().map(|(l, w)| json!({"entry": l, "reason": w})).collect::<Vec<_>>()}),
                &text,
            )
        }
        Some(("export", sub)) => {
            let rows = open_read(sub)?.threat_rows(i64::MAX).map_err(err)?;
            let j = serde_json::to_value(&rows).map_err(err)?;
            let text = serde_json::to_string_pretty(&j).map_err(err)?;
            print(sub, j, &text)
        }
        Some(("pack", sub)) => run_pack(sub),
        _ => Ok(ExitStatus::ERROR),
    }
}

fn fmt_pairs(p: &[(String, i64)]) -> String {
    if p.is_empty() {
        return "none".into();
    }
    p.iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Most entries read from one feed.
const MAX_FEED_ENTRIES: usize = 20_000;

/// What a feed holds: indicators `(value, kind, status)`, fingerprints `(sample, excerpt,
/// status)` (status [`Status::Learned`] or [`Status::Imported`]), and the entries dropped with
/// the reason (`line N` / `entry N`, why).
#[derive(Debug, Default)]
struct Feed {
    indicators: Vec<(String, String, Status)>,
    fingerprints: Vec<(Vec<u32>, String, Status)>,
    dropped: Vec<(String, String)>,
}

/// Kinds an imported indicator may have.
const FEED_KINDS: &[&str] = &[
    kind::EMAIL,
    kind::URL,
    kind::HOST,
    kind::DOMAIN,
    kind::IBAN,
    kind::NUMBER,
    kind::PATH,
    kind::ACCOUNT,
    kind::IDENT,
    kind::REPO,
];

/// Why an indicator may not be imported: an unknown kind, an empty value, or a value on a
/// common domain of the benign gate set (the list learning uses: importing `github.com` would
/// deny every clone).
fn refuse_indicator(value: &str, vkind: &str) -> Option<String> {
    if !FEED_KINDS.contains(&vkind) {
        return Some(format!("unknown kind {vkind:?}"));
    }
    if value.is_empty() || value.len() > 512 {
        return Some("empty or over 512 bytes".into());
    }
    let d = crate::threats::host_of(value, vkind).and_then(|h| crate::threats::registrable(&h));
    match d {
        Some(d) if crate::threats::gate::common_domain(&d) => Some(format!(
            "{d} is a common domain of the benign gate set (never learned, never imported)"
        )),
        _ => None,
    }
}

/// A feed: a JSON array as `export` writes it (`value`, `kind`, `status`; fingerprints with
/// their `sample`), or one value per line (kind guessed by the extractor; imported: denies).
/// A text that starts like JSON must parse as a JSON array. At most [`MAX_FEED_ENTRIES`].
fn read_feed(file: &Path) -> Result<Feed, String> {
    let meta = std::fs::metadata(file).map_err(|e| format!("{}: {e}", file.display()))?;
    if meta.len() > 8 << 20 {
        return Err("feed is over 8 MiB".into());
    }
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut feed = Feed::default();
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') || trimmed.starts_with('{') {
        let items = match serde_json::from_str::<serde_json::Value>(&text) {
            Ok(serde_json::Value::Array(items)) => items,
            Ok(_) => return Err("not a JSON array of entries (as `threats export` writes)".into()),
            Err(e) => return Err(format!("malformed JSON: {e}")),
        };
        for (n, i) in items.iter().enumerate().take(MAX_FEED_ENTRIES) {
            let at = format!("entry {}", n + 1);
            let v = i.get("value").and_then(|v| v.as_str()).unwrap_or("");
            let k = i.get("kind").and_then(|v| v.as_str()).unwrap_or("");
            let status = match i.get("status").and_then(|v| v.as_str()) {
                Some("learned") => Status::Learned,
                Some("confirmed" | "imported" | "pack") | None => Status::Imported,
                Some(other) => {
                    feed.dropped.push((at, format!("unknown status {other:?}")));
                    continue;
                }
            };
            if k.starts_with("fingerprint") {
                let sample = i
                    .get("sample")
                    .and_then(|v| v.as_str())
                    .and_then(packs::unhex)
                    .filter(|b| !b.is_empty() && b.len() % 4 == 0 && b.len() <= 4096)
                    .map(|b| crate::threats::fingerprint::sample_from_bytes(&b));
                match sample {
                    None => feed
                        .dropped
                        .push((at, "fingerprint without a readable sample".into())),
                    Some(s)
                        if s.iter()
                            .filter(|h| crate::threats::gate::common_shingle(**h))
                            .count()
                            * 2
                            >= s.len() =>
                    {
                        feed.dropped
                            .push((at, "fingerprint common in benign text (gate set)".into()))
                    }
                    Some(s) => {
                        feed.fingerprints
                            .push((s, crate::text::cap(v, 200).to_string(), status))
                    }
                }
                continue;
            }
            let v = v.trim().to_lowercase();
            match refuse_indicator(&v, k) {
                Some(why) => feed.dropped.push((format!("{at} ({v})"), why)),
                None => feed.indicators.push((v, k.to_string(), status)),
            }
        }
    } else {
        for (n, line) in text.lines().enumerate().take(MAX_FEED_ENTRIES) {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = format!("line {} ({})", n + 1, crate::text::cap(line, 60));
            match crate::provenance::extract(line).into_iter().next() {
                None => feed
                    .dropped
                    .push((at, "no address, URL, host or other value found".into())),
                Some(v) => match refuse_indicator(&v.text, v.kind) {
                    Some(why) => feed.dropped.push((at, why)),
                    None => feed
                        .indicators
                        .push((v.text, v.kind.to_string(), Status::Imported)),
                },
            }
        }
    }
    Ok(feed)
}

fn run_pack(m: &ArgMatches) -> CliResult {
    match m.subcommand() {
        Some(("verify", sub)) => {
            let file = sub
                .get_one::<PathBuf>("file")
                .ok_or_else(|| err("no file"))?;
            let store = open(sub)?;
            let trust = packs::Trust::load(&store).map_err(err)?;
            let v = packs::read(file)
                .and_then(|(b, s)| packs::verify(&b, s.as_deref(), &trust))
                .map_err(|e| err(format!("{} refused: {e}", file.display())))?;
            let p = &v.pack;
            print(
                sub,
                json!({"name": p.name, "version": p.version, "digest": v.digest, "trust": v.trust,
                       "rules": p.rules.len(), "indicators": p.indicators.len(), "fingerprints": p.fingerprints.len()}),
                &format!(
                    "{} verifies ({}): pack {} version {}, {} rules, {} indicators, {} fingerprints; sha256 {}",
                    file.display(), v.trust, p.name, p.version, p.rules.len(), p.indicators.len(), p.fingerprints.len(), v.digest
                ),
            )
        }
        Some(("install", sub)) => {
            let file = sub
                .get_one::<PathBuf>("file")
                .ok_or_else(|| err("no file"))?;
            let mut store = open(sub)?;
            store.begin().map_err(err)?;
            let r = (|| -> Result<String, CliError> {
                let (bytes, sig) = packs::read(file)
                    .map_err(|e| err(format!("{} refused: {e}", file.display())))?;
                if let Some(k) = sub.get_one::<String>("key") {
                    store
                        .pin_threat("ed25519", &k.trim().to_lowercase())
                        .map_err(err)?;
                }
                if let Some(k) = sub.get_one::<String>("hmac-key") {
                    store
                        .pin_threat("hmac", &k.trim().to_lowercase())
                        .map_err(err)?;
                }
                if sub.get_flag("sha256") {
                    use sha2::Digest;
                    let d = crate::text::hex(&sha2::Sha256::digest(&bytes));
                    store.pin_threat("sha256", &d).map_err(err)?;
                }
                let trust = packs::Trust::load(&store).map_err(err)?;
                let v = packs::verify(&bytes, sig.as_deref(), &trust).map_err(|e| {
                    err(format!(
                        "{} refused: {e}; the installed pack (if any) stays",
                        file.display()
                    ))
                })?;
                let abs = std::fs::canonicalize(file).unwrap_or_else(|_| file.clone());
                match packs::install(&store, &v, &abs).map_err(err)? {
                    Ok(packs::Installed::New) => Ok(format!(
                        "pack {} version {} installed ({})",
                        v.pack.name, v.pack.version, v.trust
                    )),
                    Ok(packs::Installed::Same) => Ok(format!(
                        "pack {} version {} is already installed",
                        v.pack.name, v.pack.version
                    )),
                    Err(why) => Err(err(format!("{} refused: {why}", file.display()))),
                }
            })();
            match r {
                Ok(msg) => {
                    store.commit().map_err(err)?;
                    print(sub, json!({"installed": true, "message": msg}), &msg)
                }
                Err(e) => {
                    // Keep the refusal note on the installed pack, drop anything else.
                    store.commit().map_err(err)?;
                    Err(e)
                }
            }
        }
        Some(("list", sub)) => {
            let rows = open_read(sub)?.threat_packs().map_err(err)?;
            let text = if rows.is_empty() {
                "no threat pack installed".to_string()
            } else {
                rows.iter()
                    .map(|p| {
                        format!(
                            "{} version {} ({}) sha256 {} from {}{}",
                            p.name,
                            p.version,
                            p.trust,
                            crate::text::cap(&p.digest, 16),
                            p.file,
                            p.refused
                                .as_deref()
                                .map(|r| format!("\n  last change refused: {r}"))
                                .unwrap_or_default()
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            print(sub, serde_json::to_value(&rows).map_err(err)?, &text)
        }
        Some(("remove", sub)) => {
            let name = sub
                .get_one::<String>("name")
                .map(String::as_str)
                .unwrap_or("");
            let store = open(sub)?;
            if !store.remove_threat_pack(name).map_err(err)? {
                return Err(err(format!("no pack {name} installed")));
            }
            packs::recompile(&store, None).map_err(err)?;
            print(
                sub,
                json!({"removed": name}),
                &format!("pack {name} removed"),
            )
        }
        Some(("keygen", sub)) => {
            let out = sub
                .get_one::<PathBuf>("out")
                .ok_or_else(|| err("no --out"))?;
            let (sk, pk) = packs::keygen().map_err(err)?;
            write_secret(out, &sk).map_err(err)?;
            print(sub, json!({"public_key": pk, "secret_key_file": out}), &pk)
        }
        Some(("sign", sub)) => {
            let file = sub
                .get_one::<PathBuf>("file")
                .ok_or_else(|| err("no file"))?;
            let bytes = std::fs::read(file).map_err(|e| err(format!("{}: {e}", file.display())))?;
            let sig = match (
                sub.get_one::<PathBuf>("key-file"),
                sub.get_one::<PathBuf>("hmac-key-file"),
            ) {
                (Some(k), None) => packs::sign_ed25519(&bytes, &read_key(k)?),
                (None, Some(k)) => packs::sign_hmac(&bytes, &read_key(k)?),
                _ => return Err(err("give one of --key-file or --hmac-key-file")),
            }
            .map_err(err)?;
            let sig_file = packs::sig_path(file);
            std::fs::write(&sig_file, format!("{sig}\n")).map_err(err)?;
            print(
                sub,
                json!({"signature": sig_file}),
                &format!("wrote {}", sig_file.display()),
            )
        }
        _ => Ok(ExitStatus::ERROR),
    }
}

fn read_key(p: &Path) -> Result<String, CliError> {
    let s = std::fs::read_to_string(p).map_err(|e| err(format!("{}: {e}", p.display())))?;
    Ok(s.trim().to_string())
}

fn write_secret(p: &Path, s: &str) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(p)?;
    writeln!(f, "{s}")
}
