//! `intentshield threats`: see and steer the threat memory (`crate::threats`), and manage
//! threat packs.
//!
//! `stats`, `list`, `show ID` and `export` read; `confirm ID` (a learned entry then denies),
//! `allow VALUE` (a value, a domain or a source `mcp:<server>` / `web:<domain>` is cleared and
//! never learned again), `forget ID` and `import FEED` (a JSON feed, as `export` writes it, or
//! one value per line: denies) change it. `pack verify FILE`, `pack install FILE [--key HEX |
//! --sha256 | --hmac-key HEX]`, `pack list`, `pack remove NAME`, `pack keygen`, `pack sign FILE
//! --key-file F`. Every subcommand takes `--json` and `--db`. The hook refuses the changing ones
//! to the agent (`tamper.guard_command`).

use crate::exit::{CliError, CliResult, ExitStatus};
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
                .about("Import indicators from a feed (JSON as `export` writes it, or one value per line): denied")
                .arg(file()),
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
                        .arg(Arg::new("out").long("out").required(true).value_parser(clap::value_parser!(PathBuf))),
                ))
                .subcommand(common(
                    Command::new("sign")
                        .about("Write FILE.sig with an Ed25519 secret key file, or an HMAC key file")
                        .arg(file())
                        .arg(Arg::new("key-file").long("key-file").value_parser(clap::value_parser!(PathBuf)))
                        .arg(Arg::new("hmac-key-file").long("hmac-key-file").value_parser(clap::value_parser!(PathBuf))),
                )),
        )
}

fn open(m: &ArgMatches) -> Result<Store, CliError> {
    let path = state::db_path(m.get_one::<PathBuf>("db").map(PathBuf::as_path))
        .map_err(|e| CliError::error(CONTEXT, e))?;
    Store::open(&path).map_err(|e| CliError::error(CONTEXT, e))
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
            let s = open(sub)?.threat_stats().map_err(err)?;
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
            let rows = open(sub)?.threat_rows(limit).map_err(err)?;
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
            let rows = open(sub)?.threat_rows(i64::MAX).map_err(err)?;
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
            let items = read_feed(file).map_err(err)?;
            let origin = format!(
                "feed:{}",
                file.file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default()
            );
            let store = open(sub)?;
            let n = store
                .import_threat_indicators(&items, Status::Imported, &origin)
                .map_err(err)?;
            store.rebuild_threat_summary().map_err(err)?;
            print(
                sub,
                json!({"imported": n, "origin": origin}),
                &format!("{n} indicators imported from {origin}: calls carrying them are denied"),
            )
        }
        Some(("export", sub)) => {
            let rows = open(sub)?.threat_rows(i64::MAX).map_err(err)?;
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

/// A feed: a JSON array of `{value, kind}` objects (as `export` writes it; fingerprint rows
/// skipped), or one value per line (kind guessed by the extractor). At most 20,000.
fn read_feed(file: &Path) -> Result<Vec<(String, String)>, String> {
    let meta = std::fs::metadata(file).map_err(|e| format!("{}: {e}", file.display()))?;
    if meta.len() > 8 << 20 {
        return Err("feed is over 8 MiB".into());
    }
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let mut out = Vec::new();
    if let Ok(serde_json::Value::Array(items)) = serde_json::from_str(&text) {
        for i in items {
            let v = i.get("value").and_then(|v| v.as_str());
            let k = i.get("kind").and_then(|v| v.as_str());
            if let (Some(v), Some(k)) = (v, k) {
                if !k.starts_with("fingerprint") {
                    out.push((v.trim().to_lowercase(), k.to_string()));
                }
            }
        }
    } else {
        for line in text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            if let Some(v) = crate::provenance::extract(line).into_iter().next() {
                out.push((v.text, v.kind.to_string()));
            }
        }
    }
    out.truncate(20_000);
    Ok(out)
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
            let rows = open(sub)?.threat_packs().map_err(err)?;
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
