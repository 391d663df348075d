//! Added latency of the MCP proxy per `tools/call` round trip.
//!
//! Runs the same `tools/call` (the `echo` tool of tests/fixtures/mcp_test_server.py) N times
//! against the server directly and through `intentshield mcp-proxy`, and prints the median,
//! p90 and p99 round trip of each and the median difference, in microseconds. Skips when
//! `python3` is missing. `cargo bench --bench proxy_latency` (release build); set
//! `PROXY_BENCH_N` to change N (default 3000).

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

const BIN: &str = env!("CARGO_BIN_EXE_intentshield");

struct Conn {
    child: Child,
    stdin: ChildStdin,
    out: BufReader<ChildStdout>,
    line: String,
}

impl Conn {
    fn start(cmd: &mut Command) -> Conn {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let stdin = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        Conn {
            child,
            stdin,
            out,
            line: String::new(),
        }
    }

    fn rpc(&mut self, v: &Value) -> Value {
        writeln!(self.stdin, "{v}").unwrap();
        self.stdin.flush().unwrap();
        loop {
            self.line.clear();
            self.out.read_line(&mut self.line).unwrap();
            let r: Value = serde_json::from_str(&self.line).expect("JSON");
            if r.get("id").is_some() {
                return r;
            }
        }
    }

    fn setup(&mut self) {
        self.rpc(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}));
        writeln!(
            self.stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .unwrap();
        self.rpc(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    }

    fn measure(&mut self, n: usize) -> Vec<f64> {
        let mut t = Vec::with_capacity(n);
        for i in 0..n + 200 {
            let req = json!({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hello world, a typical short argument", "n": i}}});
            let s = Instant::now();
            let r = self.rpc(&req);
            let us = s.elapsed().as_secs_f64() * 1e6;
            assert!(r.get("result").is_some(), "{r}");
            if i >= 200 {
                t.push(us);
            }
        }
        t.sort_by(|a, b| a.partial_cmp(b).unwrap());
        t
    }

    fn stop(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

fn pct(v: &[f64], p: f64) -> f64 {
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("SKIPPED: python3 is not available");
        return;
    }
    let n: usize = std::env::var("PROXY_BENCH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3000);
    let dir = tempfile::tempdir().unwrap();
    let cat = dir.path().join("cat.json");
    std::fs::write(
        &cat,
        json!({"tools": [{"name": "echo", "description": "Echoes its arguments.", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}, "n": {"type": "integer"}}}}]}).to_string(),
    )
    .unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp_test_server.py");
    let cfg = dir.path().join("config.toml");
    std::fs::write(&cfg, "").unwrap();

    let mut direct = Conn::start(Command::new("python3").arg(&script).arg(&cat));
    direct.setup();
    let mut proxied = Conn::start(
        Command::new(BIN)
            .args(["mcp-proxy", "--name", "bench", "--config"])
            .arg(&cfg)
            .arg("--db")
            .arg(dir.path().join("bench.db"))
            .arg("--")
            .arg("python3")
            .arg(&script)
            .arg(&cat),
    );
    proxied.setup();
    // Interleave blocks so drift in machine load hits both alike.
    let mut d = Vec::new();
    let mut p = Vec::new();
    for _ in 0..5 {
        d.extend(direct.measure(n / 5));
        p.extend(proxied.measure(n / 5));
    }
    d.sort_by(|a, b| a.partial_cmp(b).unwrap());
    p.sort_by(|a, b| a.partial_cmp(b).unwrap());
    direct.stop();
    proxied.stop();
    println!(
        "tools/call round trip, {} calls each (microseconds)",
        d.len()
    );
    println!("{:<10} {:>9} {:>9} {:>9}", "", "median", "p90", "p99");
    for (name, v) in [("direct", &d), ("proxied", &p)] {
        println!(
            "{name:<10} {:>9.1} {:>9.1} {:>9.1}",
            pct(v, 0.5),
            pct(v, 0.9),
            pct(v, 0.99)
        );
    }
    let added = pct(&p, 0.5) - pct(&d, 0.5);
    println!(
        "added by the proxy: median {added:.1} us (target < 1000 us: {})",
        if added < 1000.0 { "met" } else { "NOT met" }
    );
}
