//! Cost of the secret rule set (`policy::secret_rules`) on the hook's path, as a hook process
//! pays it: once per process, cold (the table parsed, the regexes of the rules whose keyword
//! occurs compiled), beside the prompt-injection detector (`detect::scan`) on the same text.
//! Each measurement runs in a fresh child process (this binary with `--once CASE`); medians.
//!
//! Run: `cargo bench --bench secret_scan`. Prints a Markdown table (microseconds).
//! `INTENTSHIELD_BENCH_ROUNDS` sets the processes per case (default 41).

use std::process::Command;
use std::time::Instant;

const BASH: &str = "set -euo pipefail\ncargo fmt --all -- --check\ncargo clippy --all-targets -- -D warnings\nfor f in src/*.rs; do wc -l \"$f\"; done | sort -n | tail -5\ngit log --oneline -20 | grep -v wip\nnpm ci && npm run build --if-present\nfind . -name '*.orig' -delete\n";
const PROSE: &str = "The build finished in 42 seconds. Tests: 118 passed, 0 failed. The parser now accepts trailing commas in arrays, and the config loader reports the line and column of a syntax error; the API token refresh and the auth key rotation are documented in docs/config.md. ";
const CODE: &str = "fn load(path: &Path) -> Result<Config> {\n    let key = cache_key(path);\n    let token = next_token(&mut lexer)?;\n    let secret_name = format!(\"{}-api\", service);\n    Ok(Config { key, token, secret_name })\n}\n";

fn fill(unit: &str, len: usize) -> String {
    let mut s = String::new();
    while s.len() < len {
        s.push_str(unit);
    }
    s.truncate(len);
    s
}

fn case(name: &str) -> String {
    match name {
        "bash4k" => fill(BASH, 4 << 10),
        "write4k" => fill(CODE, 4 << 10),
        "out64k" => fill(PROSE, 64 << 10),
        "out64k_code" => fill(CODE, 64 << 10),
        _ => panic!("unknown case {name}"),
    }
}

/// One cold measurement in this process: prints "secrets_us detect_us compiled".
fn once(name: &str, what: &str) {
    let text = case(name);
    let t = Instant::now();
    let n = match what {
        "secrets" => intentshield::policy::secret_rules::scan(&text, 16).len(),
        _ => intentshield::detect::scan(&text, intentshield::detect::TextKind::ToolOutput)
            .findings
            .len(),
    };
    let us = t.elapsed().as_secs_f64() * 1e6;
    println!(
        "{us:.1} {n} {}",
        intentshield::policy::secret_rules::compiled_count()
    );
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list") {
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--once") {
        once(&args[i + 1], &args[i + 2]);
        return;
    }
    let rounds: usize = std::env::var("INTENTSHIELD_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(41);
    let me = std::env::current_exe().unwrap();
    println!("| text | secret rules, cold (us) | regexes compiled | injection detector, cold (us) | ratio |");
    println!("|---|---|---|---|---|");
    for name in ["bash4k", "write4k", "out64k", "out64k_code"] {
        let mut sec = Vec::new();
        let mut det = Vec::new();
        let mut compiled = 0;
        for _ in 0..rounds {
            for (what, into) in [("secrets", &mut sec), ("detect", &mut det)] {
                let out = Command::new(&me)
                    .args(["--once", name, what])
                    .output()
                    .unwrap();
                let s = String::from_utf8_lossy(&out.stdout);
                let mut f = s.split_whitespace();
                into.push(f.next().and_then(|x| x.parse().ok()).unwrap_or(f64::NAN));
                if what == "secrets" {
                    compiled = f.nth(1).and_then(|x| x.parse().ok()).unwrap_or(0);
                }
            }
        }
        let (s, d) = (median(&mut sec), median(&mut det));
        println!("| {name} | {s:.0} | {compiled} | {d:.0} | {:.2} |", s / d);
    }
}
