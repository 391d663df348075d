use super::*;

/// A deterministic filler of `n` characters from `alphabet` (a linear congruential walk):
/// high entropy, no real secret.
pub(crate) fn filler(n: usize, alphabet: &str, seed: u64) -> String {
    let a: Vec<char> = alphabet.chars().collect();
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            a[((x >> 33) as usize) % a.len()]
        })
        .collect()
}

const ALNUM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const UPPER32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const HEX: &str = "0123456789abcdef";
const DIGITS: &str = "0123456789";

/// Token shapes per big provider, built from each rule's pattern with generated filler.
pub(crate) fn shapes() -> Vec<(&'static str, String)> {
    let f = filler;
    vec![
        ("github-pat", format!("ghp_{}", f(36, ALNUM, 1))),
        ("github-oauth", format!("gho_{}", f(36, ALNUM, 2))),
        (
            "github-fine-grained-pat",
            format!("github_pat_{}", f(82, ALNUM, 3)),
        ),
        ("aws-access-token", format!("AKIA{}", f(16, UPPER32, 4))),
        ("aws-access-token", format!("ASIA{}", f(16, UPPER32, 5))),
        (
            "slack-bot-token",
            format!(
                "xoxb-{}-{}-{}",
                f(12, DIGITS, 6),
                f(12, DIGITS, 7),
                f(24, ALNUM, 8)
            ),
        ),
        (
            "slack-webhook-url",
            format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                f(8, UPPER32, 9),
                f(8, UPPER32, 10),
                f(24, ALNUM, 11)
            ),
        ),
        (
            "stripe-access-token",
            format!("sk_live_{}", f(24, ALNUM, 12)),
        ),
        (
            "openai-api-key",
            format!("sk-proj-{}T3BlbkFJ{}", f(74, ALNUM, 13), f(74, ALNUM, 14)),
        ),
        (
            "anthropic-api-key",
            format!("sk-ant-api03-{}AA", f(93, ALNUM, 15)),
        ),
        ("gcp-api-key", format!("AIza{}", f(35, ALNUM, 16))),
        ("gitlab-pat", format!("glpat-{}", f(20, ALNUM, 17))),
        ("npm-access-token", format!("npm_{}", f(36, ALNUM, 18))),
        (
            "pypi-upload-token",
            format!("pypi-AgEIcHlwaS5vcmc{}", f(60, ALNUM, 19)),
        ),
        (
            "huggingface-access-token",
            format!("hf_{}", f(34, LOWER, 20)),
        ),
        ("digitalocean-pat", format!("dop_v1_{}", f(64, HEX, 21))),
        ("shopify-access-token", format!("shpat_{}", f(32, HEX, 22))),
        (
            "sendgrid-api-token",
            format!("SG.{}.{}", f(22, ALNUM, 23), f(43, ALNUM, 24)),
        ),
        (
            "jwt",
            format!(
                "eyJhbGciOiJIUzI1NiJ9.eyJ{}.{}",
                f(30, ALNUM, 25),
                f(43, ALNUM, 26)
            ),
        ),
        (
            "private-key",
            format!(
                "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----",
                f(120, ALNUM, 27)
            ),
        ),
        ("generic-api-key", format!("API_TOKEN={}", f(32, ALNUM, 28))),
    ]
}

#[test]
fn the_table_parses_and_every_regex_compiles() {
    assert_eq!(gen::parse().malformed, 0);
    let eng = build();
    assert_eq!(eng.rules.len(), 217, "rules kept from gitleaks' 221");
    let bad: Vec<&str> = eng
        .rules
        .iter()
        .filter(|r| regex_lite::Regex::new(r.pattern()).is_err())
        .map(|r| r.id())
        .collect();
    assert!(bad.is_empty(), "rules regex-lite refuses: {bad:?}");
    let bad_allow = table::ALLOW_PATTERNS
        .iter()
        .filter(|a| regex_lite::Regex::new(a).is_err())
        .count();
    assert_eq!(bad_allow, 0);
    assert!(eng.global_allows.len() >= 10 && !eng.global_stops.is_empty());
}

#[test]
fn provider_shapes_are_secrets_in_context() {
    for (rule, token) in shapes() {
        let texts = if rule.starts_with("generic") {
            vec![token.clone(), format!("{token}\n# next line")]
        } else {
            vec![
                token.clone(),
                format!("export TOKEN=\"{token}\""),
                format!("{{\"headers\":{{\"Authorization\":\"Bearer {token}\"}}}}"),
            ]
        };
        for text in texts {
            let hits = scan(&text, 16);
            assert!(
                hits.iter().any(|h| h.rule == rule),
                "{rule} not found in {text:?}: {hits:?}"
            );
        }
    }
}

#[test]
fn hashes_ids_images_and_integrity_strings_are_not_secrets() {
    let sha256 = filler(64, HEX, 40);
    let sha1 = filler(40, HEX, 41);
    let uuid = format!(
        "{}-{}-4{}-a{}-{}",
        filler(8, HEX, 42),
        filler(4, HEX, 43),
        filler(3, HEX, 44),
        filler(3, HEX, 45),
        filler(12, HEX, 46)
    );
    let b64 = filler(600, &format!("{ALNUM}+/"), 47);
    for text in [
        format!("commit {sha1}\nAuthor: Dev <dev@example.com>"),
        format!("sha256:{sha256}  target/release/app"),
        format!("{sha256}  dist/app.tar.gz"),
        format!("request id {uuid}"),
        format!("\"id\": \"{uuid}\""),
        format!("<img src=\"data:image/png;base64,{b64}\">"),
        format!("\"integrity\": \"sha512-{}==\"", filler(86, &format!("{ALNUM}+/"), 48)),
        format!("\"resolved\": \"https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz\", \"integrity\": \"sha1-{}=\"", filler(27, ALNUM, 49)),
        format!("checksum = \"{sha256}\""),
        "the AKIA prefix marks AWS keys; sk-proj- is OpenAI's".to_string(),
        "let key = cache_key(&path); token = next_token();".to_string(),
        "password = ${DB_PASSWORD}".to_string(),
        "api_key: \"<your-api-key>\"".to_string(),
        "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE".to_string(),
        "[package]\nname = \"intentshield\"\nversion = \"0.5.0\"\nedition = \"2021\"".to_string(),
    ] {
        let hits = scan(&text, 4);
        assert!(hits.is_empty(), "{text:?} -> {hits:?}");
    }
}

#[test]
fn a_text_without_keywords_compiles_no_regex() {
    // A private engine: the global one is shared with tests running at the same time.
    let eng: &'static Engine = Box::leak(Box::new(build()));
    let benign = "fn main() {\n    println!(\"hello world\");\n}\n".repeat(80);
    let mut windows = 0;
    eng.lits
        .for_each_match(&benign.to_ascii_lowercase(), |_, _, _| windows += 1);
    assert_eq!(windows, 0);
    let compiled = eng.regexes.iter().filter(|c| c.get().is_some()).count();
    assert_eq!(compiled, 0);
    assert!(rule_regex(eng, 0).is_some());
    assert_eq!(eng.regexes.iter().filter(|c| c.get().is_some()).count(), 1);
}

#[test]
fn entropy_and_bounds() {
    assert_eq!(entropy(""), 0.0);
    assert_eq!(entropy("aaaa"), 0.0);
    assert!((entropy("abcd") - 2.0).abs() < 1e-9);
    // A huge text of keywords with no secret is bounded and finds nothing.
    let text = "token = none; ".repeat(100_000);
    assert!(scan(&text, 4).is_empty());
    assert!(scan("", 4).is_empty());
    assert!(scan("ghp_x", 0).is_empty());
}

/// The hand list that `policy::builtin::secret_material` carried before the rule set (prefix,
/// shortest tail), with the hand tests' own samples: which the rule set catches alone.
fn hand_list() -> Vec<(&'static str, usize)> {
    // The AWS key ids, then the prefixes the fallback still carries.
    let mut v = vec![("AKIA", 16), ("ASIA", 16)];
    v.extend_from_slice(crate::policy::builtin::TOKEN_PREFIXES);
    v
}

#[test]
#[ignore = "prints the coverage figures of the report"]
fn hand_list_coverage() {
    let mut missed = Vec::new();
    let hand = hand_list();
    for (i, (p, n)) in hand.iter().enumerate() {
        let alpha = if p.starts_with("AKIA") || p.starts_with("ASIA") {
            UPPER32
        } else {
            ALNUM
        };
        let t = format!("token {p}{}", filler(*n + 6, alpha, 100 + i as u64));
        if first(&t).is_none() {
            missed.push(t);
        }
    }
    println!(
        "hand list: {} of {} caught by the rule set alone; missed: {missed:#?}",
        hand.len() - missed.len(),
        hand.len()
    );
}

#[test]
fn prefix_rules_gate_their_keyword() {
    let p = gen::prefix_of(r"\b(ey[a-zA-Z0-9]{17,}\.ey)", "ey").unwrap();
    assert_eq!(
        (p.literals[0].as_str(), p.case_sensitive, p.word_start),
        ("ey", true, true)
    );
    let p = gen::prefix_of("SK[0-9a-fA-F]{32}", "sk").unwrap();
    assert_eq!(
        (p.literals[0].as_str(), p.case_sensitive, p.word_start),
        ("SK", true, false)
    );
    assert!(gen::prefix_of(r"(?i)\b(npm_[a-z0-9]{36})", "npm_").is_some_and(|p| !p.case_sensitive));
    assert!(gen::prefix_of(r"\b(sk-(?:proj|svcacct)-x)T3BlbkFJ", "t3blbkfj").is_none());
    assert!(gen::prefix_of(r"(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE", "-----begin").is_some());
    // An alternation of literals that each start with a keyword (vault's `hvs.` and `s.`).
    let p = gen::prefix_of(
        r#"\b((?:hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24})))(?:[\x60'"\s;]|\\[nr]|$)"#,
        "hvs.,s.",
    )
    .unwrap();
    assert_eq!(
        (p.literals.clone(), p.case_sensitive, p.word_start),
        (vec!["hvs.".to_string(), "s.".to_string()], true, true)
    );
    // An alternative without a keyword literal, an alternation in an outer group or at the
    // top level (where `\b` binds to the first alternative only): no prefix.
    assert!(gen::prefix_of(r"\b((?:hvs\.x|[a-z]s\.y))", "hvs.,s.").is_none());
    assert!(gen::prefix_of(r"((?:abc)|def)", "abc").is_none());
    assert!(gen::prefix_of(r"\babc|def", "abc").is_none());
    assert!(gen::prefix_of(r"(?:A3T[A-Z0-9]|AKIA|ASIA)[A-Z2-7]{16}", "a3t,akia,asia").is_some());
    assert!(gen::prefix_of(r"(?:A3T[A-Z0-9]|AKIA|[AB]SIA)", "a3t,akia,asia").is_none());
    // Classes and escapes inside the group do not split it.
    let p = gen::prefix_of(r"(ab[|)]c\|d|xy)", "ab,xy").unwrap();
    assert_eq!(p.literals, vec!["ab".to_string(), "xy".to_string()]);
    // Sentences ending in a plural (`seconds. `) hold `s.` inside a word: no window for vault.
    let prose = "The build finished in 42 seconds. Tests: 118 passed. ".repeat(80);
    assert!(scan(&prose, 4).is_empty());
    let vault = format!("token s.{} here", "Ab3dE6gH9jK2mN5pQ8rS1tU4");
    assert_eq!(
        first(&vault).map(|h| h.rule),
        Some("vault-service-token"),
        "{vault}"
    );
    assert!(first(&format!("token xs.{}", "Ab3dE6gH9jK2mN5pQ8rS1tU4")).is_none());
    // `ey` inside `key` or `they`, `SK` as `sk` in `ask`: no window, nothing compiled for them.
    let eng: &'static Engine = Box::leak(Box::new(build()));
    let _ = eng;
    assert!(scan(&"they ask the key holder; ".repeat(400), 4).is_empty());
}

/// `table.rs` is what the generator renders from data/secret_rules.tsv (the statics the hook
/// uses hold exactly the TSV's rules); with `INTENTSHIELD_REGENERATE=1` the test writes it.
#[test]
fn the_table_is_generated_from_the_tsv() {
    let parsed = gen::parse();
    assert_eq!(parsed.malformed, 0);
    let want = gen::render(&parsed);
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/policy/secret_rules/table.rs"
    );
    if std::env::var_os("INTENTSHIELD_REGENERATE").is_some() {
        std::fs::write(path, &want).unwrap();
    }
    let have = std::fs::read_to_string(path).unwrap();
    assert!(
        have == want,
        "src/policy/secret_rules/table.rs is stale; regenerate it: INTENTSHIELD_REGENERATE=1 cargo test --lib secret_rules::tests::the_table_is_generated_from_the_tsv"
    );
    // And the compiled-in statics are that file's (not an older build's), every field of the
    // packed form (strings and lists as runs of pools) read back equal to the parsed table.
    assert_eq!(table::RULES.len(), parsed.rules.len());
    for (a, b) in table::RULES.iter().zip(&parsed.rules) {
        assert_eq!((a.id(), a.pattern(), a.after), (b.id, b.pattern, b.after));
        assert_eq!(
            (a.entropy, a.group, a.assignment),
            (b.entropy, b.group, b.assignment)
        );
        let stops: Vec<&str> = table::STRS
            .range(a.stops.first.into(), a.stops.count.into())
            .collect();
        assert_eq!(stops, b.stops, "{}", b.id);
        let allows: Vec<usize> = table::RULE_ALLOWS[a.allows.range()]
            .iter()
            .map(|&i| usize::from(i))
            .collect();
        assert_eq!(allows, b.allows, "{}", b.id);
        match (&a.prefix, &b.prefix) {
            (None, None) => {}
            (Some(x), Some(y)) => {
                let lits: Vec<&str> = table::STRS
                    .range(x.literals.first.into(), x.literals.count.into())
                    .collect();
                assert_eq!(lits, y.literals, "{}", b.id);
                assert_eq!(
                    (x.case_sensitive, x.word_start),
                    (y.case_sensitive, y.word_start)
                );
            }
            _ => panic!("prefix differs for {}", b.id),
        }
    }
    assert_eq!(table::ALLOW_PATTERNS.len(), parsed.allows.len());
    for (i, a) in parsed.allows.iter().enumerate() {
        assert_eq!(table::ALLOW_PATTERNS.at(i), a.pattern);
        assert_eq!(table::ALLOW_ON_MATCH[i], a.on_match);
    }
    assert_eq!(table::GLOBAL_ALLOWS, parsed.global_allows.as_slice());
    assert_eq!(table::GLOBAL_STOPS.to_vec(), parsed.global_stops);
    assert_eq!(table::KEYWORDS.to_vec(), parsed.keywords);
    let eng = build();
    for (k, owners) in parsed.owners.iter().enumerate() {
        assert_eq!(eng.owners(k), owners.as_slice());
    }
    assert!(eng.owners(parsed.owners.len()).is_empty());
}

#[test]
fn keyword_index_built_at_compile_time_is_the_one_built_at_run_time() {
    assert_eq!(engine().lits.parts(), build().lits.parts());
}
