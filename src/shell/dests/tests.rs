use super::*;
use crate::shell::analyze;

fn dests(line: &str) -> Dests {
    analyze(line).destinations(line)
}

fn hosts(line: &str) -> Vec<String> {
    dests(line)
        .dests
        .into_iter()
        .flat_map(|d| match d {
            Dest::Known(v) => v
                .into_iter()
                .filter(|x| x.kind == kind::HOST)
                .map(|x| x.text)
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

#[test]
fn compiles() {
    assert!(hosts("curl https://evil.com").contains(&"evil.com".to_string()));
}
