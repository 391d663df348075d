//! The relay: starts the server as a child, runs the client-to-server and server-to-client
//! threads through [`super::intercept`], shuts the server down when the client goes away, and
//! answers what the server left unanswered.

use super::framing::{dispatch, error_response, id_from_prefix, key, read_line, Line, MAX_LINE};
use super::intercept::{lock, Pending, Session, Shared};
use super::launch::floating_package;
use crate::config::{self, Config};
use crate::state::Store;
use serde_json::{json, Value};
use std::io::{BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// JSON-RPC error code of a request the server can no longer answer (it exited, or its answer
/// was over [`MAX_LINE`]).
pub const SERVER_GONE: i64 = -32002;
/// How long a server may take to exit after its stdin is closed before it is killed.
pub const GRACE: Duration = Duration::from_secs(2);

/// What the proxy needs to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The server's name in the catalog (`--name`; defaults to [`super::default_name`]).
    pub server: String,
    /// The server's command and arguments.
    pub command: Vec<String>,
    /// Settings (the operator's `read_only_tools`, the database location).
    pub config: Config,
}

fn open_store(cfg: &Config) -> Store {
    match crate::state::db_path(cfg.db.as_deref()).and_then(|p| Store::open(&p)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("intentshield mcp-proxy: {e}; using a memory-only catalog for this session (pins are not kept)");
            Store::open_in_memory().expect("in-memory SQLite")
        }
    }
}

/// Runs the proxy with the client on `client_in`/`client_out` until the server exits or the
/// client goes away. Returns the exit status: the server's when it exited, else 0; 1 when the
/// server cannot be started.
pub fn run(
    opts: Options,
    client_in: impl Read + Send + 'static,
    client_out: impl Write + Send + 'static,
) -> i32 {
    if opts.command.is_empty() {
        eprintln!("intentshield mcp-proxy: no server command after --");
        return 2;
    }
    let store = open_store(&opts.config);
    {
        let session_id = format!("mcp:{}:{}", opts.server, std::process::id());
        let shared = Arc::new(Shared {
            server: opts.server.clone(),
            session_id,
            config: opts.config.clone(),
            command: opts.command.clone(),
            store: Mutex::new(store),
            st: Mutex::new(Session::default()),
            client_out: Mutex::new(Box::new(client_out)),
            server_in: Mutex::new(None),
        });
        if let Some(p) = floating_package(&opts.command) {
            eprintln!(
                "intentshield mcp-proxy: {}: '{p}' names no fixed version, so a new release runs without changing the launch pin; pin a version (pkg@1.2.3)",
                opts.server
            );
        }
        run_with(shared, &opts.command, client_in)
    }
}

fn run_with(shared: Arc<Shared>, command: &[String], client_in: impl Read + Send + 'static) -> i32 {
    let mut child: Child = match Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("intentshield mcp-proxy: cannot start '{}': {e}", command[0]);
            return 1;
        }
    };
    *lock(&shared.server_in) = child.stdin.take();
    let server_out = child.stdout.take().expect("piped stdout");
    let child = Arc::new(Mutex::new(child));

    // Client -> server.
    {
        let shared = Arc::clone(&shared);
        let child = Arc::clone(&child);
        std::thread::spawn(move || {
            let mut r = BufReader::with_capacity(64 * 1024, client_in);
            let mut buf = Vec::new();
            loop {
                match read_line(&mut r, MAX_LINE, &mut buf) {
                    Ok(Line::Full(line)) => {
                        let (relay, answers) = dispatch(&line, |m| shared.on_client(m));
                        for a in answers {
                            if shared.send_client(a.to_string().as_bytes()).is_err() {
                                break;
                            }
                        }
                        if let Some(bytes) = relay {
                            if shared.send_server(&bytes).is_err() {
                                // The server is gone: answer the request ourselves.
                                answer_gone(&shared, &bytes);
                            }
                        }
                        // Once the session is initialized, check the catalog before the
                        // first call, even if the client calls from a cached tool list.
                        if std::mem::take(&mut lock(&shared.st).list_after_relay) {
                            shared.relist(None, 0);
                        }
                    }
                    Ok(Line::TooLong(prefix, n)) => {
                        let id = id_from_prefix(&prefix).unwrap_or(Value::Null);
                        let e = error_response(
                            &id,
                            -32600,
                            &format!("IntentShield refused a {n}-byte message (limit {MAX_LINE})"),
                            json!({"refusedBy": "intentshield"}),
                        );
                        let _ = shared.send_client(e.to_string().as_bytes());
                    }
                    Ok(Line::Eof) | Err(_) => break,
                }
            }
            // The client went away: close the server's stdin, then kill it after the grace.
            lock(&shared.server_in).take();
            let start = Instant::now();
            loop {
                {
                    let mut c = lock(&child);
                    if matches!(c.try_wait(), Ok(Some(_))) {
                        break;
                    }
                    if start.elapsed() > GRACE {
                        let _ = c.kill();
                        break;
                    }
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
    }

    // Server -> client, on this thread.
    let mut r = BufReader::with_capacity(64 * 1024, server_out);
    let mut buf = Vec::new();
    let mut client_gone = false;
    loop {
        match read_line(&mut r, MAX_LINE, &mut buf) {
            Ok(Line::Full(line)) => {
                let (relay, answers) = dispatch(&line, |m| shared.on_server(m));
                for a in answers {
                    let _ = shared.send_server(a.to_string().as_bytes());
                }
                if let Some(bytes) = relay {
                    if shared.send_client(&bytes).is_err() {
                        client_gone = true;
                        break;
                    }
                }
            }
            Ok(Line::TooLong(prefix, n)) => {
                eprintln!("intentshield mcp-proxy: {}: dropped a {n}-byte message from the server (limit {MAX_LINE})", shared.server);
                if let Some(id) = id_from_prefix(&prefix) {
                    if lock(&shared.st).pending.remove(&key(&id)).is_some() {
                        let e = error_response(
                            &id,
                            SERVER_GONE,
                            &format!("the server's answer was {n} bytes, over IntentShield's limit of {MAX_LINE}"),
                            json!({"refusedBy": "intentshield"}),
                        );
                        let _ = shared.send_client(e.to_string().as_bytes());
                    }
                }
            }
            Ok(Line::Eof) | Err(_) => break,
        }
    }
    if client_gone {
        lock(&shared.server_in).take();
        let _ = lock(&child).kill();
    }
    // The server is gone: wait for it and answer what it left unanswered.
    let status = {
        let start = Instant::now();
        loop {
            let done = lock(&child).try_wait();
            match done {
                Ok(Some(s)) => break Some(s),
                Ok(None) if start.elapsed() < GRACE => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => {
                    let mut c = lock(&child);
                    let _ = c.kill();
                    break c.wait().ok();
                }
            }
        }
    };
    let why = match status.and_then(|s| s.code()) {
        Some(c) => format!("the MCP server {} exited (status {c})", shared.server),
        None => format!("the MCP server {} was terminated", shared.server),
    };
    let pending: Vec<(String, Pending)> = lock(&shared.st).pending.drain().collect();
    for (k, p) in pending {
        if matches!(p, Pending::Relist(_)) {
            continue;
        }
        if let Ok(id) = serde_json::from_str::<Value>(&k) {
            let e = error_response(&id, SERVER_GONE, &why, json!({"refusedBy": "intentshield"}));
            let _ = shared.send_client(e.to_string().as_bytes());
        }
    }
    if !client_gone {
        eprintln!("intentshield mcp-proxy: {why}");
    }
    status
        .and_then(|s| s.code())
        .unwrap_or(if client_gone { 0 } else { 1 })
}

/// Answers a request (or batch) the server could not receive.
fn answer_gone(shared: &Shared, bytes: &[u8]) {
    let Ok(v) = serde_json::from_slice::<Value>(bytes) else {
        return;
    };
    let items = match v {
        Value::Array(a) => a,
        x => vec![x],
    };
    for it in items {
        if let (Some(_), Some(id)) = (it.get("method"), it.get("id").filter(|i| !i.is_null())) {
            lock(&shared.st).pending.remove(&key(id));
            let e = error_response(
                id,
                SERVER_GONE,
                &format!("the MCP server {} is not running", shared.server),
                json!({"refusedBy": "intentshield"}),
            );
            let _ = shared.send_client(e.to_string().as_bytes());
        }
    }
}

/// Loads the settings for the proxy from `--config`/`--db`.
///
/// # Errors
///
/// The message of [`config::load`], naming the source of the bad value: the config file (given
/// or from `INTENTSHIELD_CONFIG`) cannot be read or does not parse, or an `INTENTSHIELD_*`
/// setting in the environment is invalid.
pub fn load_config(
    config_file: Option<std::path::PathBuf>,
    db: Option<std::path::PathBuf>,
) -> Result<Config, String> {
    config::load(&config::Flags {
        config: config_file,
        db,
        ..Default::default()
    })
}
